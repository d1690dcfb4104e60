"""A small fixed-window rate limiter on Django's cache (Redis in the deployment, local memory otherwise).

Limits slow down password guessing and upload floods; they are not a billing meter. When the cache is
unreachable (Redis restarting) the limiter lets requests through rather than locking everyone out.
"""

from __future__ import annotations

import hashlib
import logging
import time
import unicodedata
from dataclasses import dataclass

from django.core.cache import cache
from django.http import HttpRequest

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Limit:
    scope: str
    max_hits: int
    window_seconds: int


def _cache_key(limit: Limit, key: str) -> tuple[str, int]:
    window = int(time.time() // limit.window_seconds)
    digest = hashlib.sha256(key.encode()).hexdigest()[:32]
    retry_after = (window + 1) * limit.window_seconds - int(time.time())
    return f"ratelimit:{limit.scope}:{digest}:{window}", max(retry_after, 1)


def hits(limit: Limit, key: str) -> int:
    """How many hits `key` has in the current window."""
    cache_key, _ = _cache_key(limit, key)
    try:
        return int(cache.get(cache_key, 0))
    except Exception:  # a cache outage must not lock users out
        logger.warning("rate limit cache unavailable; not limiting %s", limit.scope, exc_info=True)
        return 0


def record(limit: Limit, key: str, amount: int = 1) -> int:
    """Count `amount` hits (files, bytes) for `key`; returns the hits in the current window."""
    cache_key, _ = _cache_key(limit, key)
    try:
        cache.add(cache_key, 0, timeout=limit.window_seconds + 1)
        return int(cache.incr(cache_key, amount))
    except ValueError:  # expired between add and incr
        cache.set(cache_key, amount, timeout=limit.window_seconds + 1)
        return amount
    except Exception:  # the cache is down: fail open
        logger.warning("rate limit cache unavailable; not counting %s", limit.scope, exc_info=True)
        return 0


def blocked_for(limit: Limit, key: str, amount: int = 1) -> int:
    """Seconds until `key` may try again (with `amount` more hits), or 0 when that stays in the limit."""
    if hits(limit, key) + amount <= limit.max_hits:
        return 0
    return _cache_key(limit, key)[1]


def reset(limit: Limit, key: str) -> None:
    cache_key, _ = _cache_key(limit, key)
    try:
        cache.delete(cache_key)
    except Exception:  # the cache is down: fail open
        logger.warning("rate limit cache unavailable", exc_info=True)


def normalised_identity(text: str) -> str:
    """A user name as the limiter counts it: NFKC (fullwidth and other compatibility forms become their
    plain letters), case-folded, surrounding blanks dropped; so look-alikes share one counter."""
    return unicodedata.normalize("NFKC", text).casefold().strip()


def client_ip(request: HttpRequest) -> str:
    # REMOTE_ADDR only: X-Forwarded-For is set by the client unless a trusted proxy rewrites it.
    return str(request.META.get("REMOTE_ADDR") or "unknown")
