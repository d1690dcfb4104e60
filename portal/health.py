"""/healthz for operators and load balancers: database, broker and workers, in well under a second.

Status rules (docs/RELIABILITY.md):
- database down -> 503 `unavailable`: the portal cannot serve a page, take it out of rotation;
- database up but broker down or no live worker -> 200 `degraded`: pages still answer and uploads and runs
  are stored (they wait as `stored`/`queued` until the sweepers re-enqueue them), so restarting the web
  process would not help; the checks say what to fix;
- everything up -> 200 `ok`.
In the embedded mode (no broker URL) tasks run in-process: broker and workers report `in-process`.
"""

from __future__ import annotations

import time
from typing import Any

from django.conf import settings
from django.db import connection
from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache

from portal.celery_signals import HEARTBEAT_KEY_PREFIX

# Every probe gives up after this long: a health check that hangs is worse than one that says "error".
PROBE_TIMEOUT_S = 1.0


def check_database() -> dict[str, Any]:
    started = time.perf_counter()
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
    except Exception as exc:  # noqa: BLE001 - any failure means "database down"
        return {"status": "error", "error": type(exc).__name__}
    return {"status": "ok", "ms": round((time.perf_counter() - started) * 1000, 1)}


def _redis() -> Any:
    import redis

    return redis.Redis.from_url(
        settings.CELERY_BROKER_URL, socket_connect_timeout=PROBE_TIMEOUT_S, socket_timeout=PROBE_TIMEOUT_S
    )


def check_broker_and_workers() -> tuple[dict[str, Any], dict[str, Any]]:
    """Ping Redis, then count the workers whose heartbeat key (portal/celery_signals.py) is still alive."""
    if not settings.CELERY_BROKER_URL:
        return {"status": "in-process"}, {"status": "in-process"}
    started = time.perf_counter()
    try:
        client = _redis()
        client.ping()
        broker = {"status": "ok", "ms": round((time.perf_counter() - started) * 1000, 1)}
        now = time.time()
        ages = []
        for key in client.scan_iter(match=HEARTBEAT_KEY_PREFIX + "*", count=100):
            value = client.get(key)
            if value is not None:
                ages.append(now - float(value))
    except Exception as exc:  # noqa: BLE001 - any failure means "broker down"
        broker = {"status": "error", "error": type(exc).__name__}
        return broker, {"status": "unknown", "error": "broker unreachable"}
    if not ages:
        return broker, {"status": "error", "count": 0, "error": "no worker heartbeat"}
    return broker, {"status": "ok", "count": len(ages), "last_heartbeat_s": round(min(ages), 1)}


@never_cache
def healthz(request: HttpRequest) -> JsonResponse:
    """{"status": ok|degraded|unavailable, "checks": {database, broker, workers}, "details": {...}}; 503 only
    without the database."""
    database = check_database()
    broker, workers = check_broker_and_workers()
    if database["status"] != "ok":
        status, code = "unavailable", 503
    elif broker["status"] not in ("ok", "in-process") or workers["status"] not in ("ok", "in-process"):
        status, code = "degraded", 200
    else:
        status, code = "ok", 200
    details = {"database": database, "broker": broker, "workers": workers}
    # `checks` holds one word per check ("ok", "error", "in-process"...) for scripts; `details` the rest.
    checks = {name: str(detail["status"]) for name, detail in details.items()}
    return JsonResponse({"status": status, "checks": checks, "details": details}, status=code)
