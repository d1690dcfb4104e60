"""The upload limit as a DRF throttle (scope "uploads"), for both ways in: the upload API lists
UploadThrottle in its throttle_classes, the upload page's view is wrapped in `upload_throttled`.

Both count on one per-user counter in accounts.ratelimit: a fixed window on Django's cache that lets
requests through when the cache is down (Redis restarting), so an outage never blocks evidence uploads.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from rest_framework.exceptions import Throttled
from rest_framework.request import Request
from rest_framework.throttling import BaseThrottle
from rest_framework.views import APIView

from accounts import ratelimit
from accounts.views import rate_limited_page


def upload_limit() -> ratelimit.Limit:
    # Read at each request, so a changed setting applies without a restart of the limiter.
    return ratelimit.Limit(
        scope=UploadThrottle.scope,
        max_hits=settings.RATE_LIMIT_UPLOADS,
        window_seconds=settings.RATE_LIMIT_UPLOADS_WINDOW_SECONDS,
    )


def upload_limit_message(retry_after: int) -> str:
    limit = upload_limit()
    minutes = max(1, round(retry_after / 60))
    return (
        f"Upload limit reached: at most {limit.max_hits} uploads per "
        f"{limit.window_seconds // 60} minutes. Try again in about {minutes} minutes."
    )


class UploadLimitReached(Throttled):
    """The API's 429: the same sentence as the page, `retry_after_seconds` and a Retry-After header."""

    def __init__(self, retry_after: int) -> None:
        super().__init__(detail=upload_limit_message(retry_after))
        self.wait = retry_after


class UploadThrottle(BaseThrottle):
    """At most RATE_LIMIT_UPLOADS uploads (POSTs) per user in RATE_LIMIT_UPLOADS_WINDOW_SECONDS."""

    scope = "uploads"

    def __init__(self) -> None:
        self.retry_after = 0

    @staticmethod
    def user_key(user: Any) -> str:
        # With date_joined, a re-created account (or a test database's reused id) starts from zero.
        return f"user:{user.pk}:{user.date_joined.timestamp() if user.date_joined else ''}"

    def allow_upload(self, *, user: Any, method: str | None) -> bool:
        """Count the request if it is an upload; False (and `wait()` set) when over the limit."""
        # Anonymous uploads are refused by the view itself (a redirect to log in, or a 401).
        if method != "POST" or user is None or not user.is_authenticated:
            return True
        limit = upload_limit()
        key = self.user_key(user)
        if ratelimit.record(limit, key) <= limit.max_hits:
            return True
        self.retry_after = ratelimit.blocked_for(limit, key) or 1
        return False

    def allow_request(self, request: Request, view: APIView) -> bool:
        return self.allow_upload(user=request.user, method=request.method)

    def wait(self) -> int:
        return self.retry_after


def upload_throttled(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """The page's way in to UploadThrottle: over the limit, the rate-limited page (429)."""

    @wraps(view)
    def throttled_view(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        throttle = UploadThrottle()
        if not throttle.allow_upload(user=getattr(request, "user", None), method=request.method):
            return rate_limited_page(
                request, message=upload_limit_message(throttle.wait()), retry_after=throttle.wait()
            )
        return view(request, *args, **kwargs)

    return throttled_view
