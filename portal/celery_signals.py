"""Celery signal handlers: structured task-failure logs and the worker heartbeat read by /healthz.

Connected from portal/celery.py, so every worker process (and the web process, harmlessly) has them.
Nothing here imports Django models: it runs before the apps are ready.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
from typing import Any

from celery.signals import task_failure, worker_ready, worker_shutdown

logger = logging.getLogger("portal.tasks")

# Workers write `clusterscout:worker-heartbeat:<hostname>` = unix time every HEARTBEAT_INTERVAL_S seconds,
# expiring after HEARTBEAT_TTL_S: /healthz counts the live keys. Overridable for tests and operators.
HEARTBEAT_KEY_PREFIX = "clusterscout:worker-heartbeat:"
HEARTBEAT_INTERVAL_S = float(os.environ.get("CLUSTERSCOUT_HEARTBEAT_INTERVAL_S", "10"))
HEARTBEAT_TTL_S = int(os.environ.get("CLUSTERSCOUT_HEARTBEAT_TTL_S", "30"))

_stop = threading.Event()


def _kv(value: Any, limit: int = 300) -> str:
    """One log-safe value: repr'd, newlines escaped, truncated (args may be long)."""
    text = repr(value).replace("\n", "\\n")
    return text if len(text) <= limit else text[: limit - 3] + "..."


@task_failure.connect
def log_task_failure(
    sender: Any = None,
    task_id: str | None = None,
    exception: BaseException | None = None,
    args: Any = None,
    kwargs: Any = None,
    einfo: Any = None,
    **_: Any,
) -> None:
    """One greppable key=value line per failed task (the traceback follows in Celery's own log line)."""
    logger.error(
        "task_failure task=%s id=%s args=%s kwargs=%s exception=%s message=%s",
        getattr(sender, "name", sender),
        task_id,
        _kv(args),
        _kv(kwargs),
        type(exception).__name__ if exception is not None else None,
        _kv(str(exception) if exception is not None else ""),
    )


def heartbeat_key(hostname: str) -> str:
    return HEARTBEAT_KEY_PREFIX + hostname


def _redis_client(broker_url: str) -> Any:
    import redis

    return redis.Redis.from_url(broker_url, socket_connect_timeout=1, socket_timeout=1)


def _beat(broker_url: str, hostname: str) -> None:
    """Runs in a daemon thread of the worker's main process: alive even while the pool is busy."""
    client = _redis_client(broker_url)
    while not _stop.is_set():
        try:
            client.set(heartbeat_key(hostname), f"{time.time():.3f}", ex=HEARTBEAT_TTL_S)
        except Exception as exc:  # noqa: BLE001 - a broker outage must not kill the worker
            logger.warning("worker heartbeat failed hostname=%s error=%s", hostname, type(exc).__name__)
        _stop.wait(HEARTBEAT_INTERVAL_S)


@worker_ready.connect
def start_heartbeat(sender: Any = None, **_: Any) -> None:
    app = getattr(sender, "app", None)
    broker_url = str(app.conf.broker_url or "") if app is not None else ""
    if not broker_url.startswith(("redis://", "rediss://", "unix://")):
        return
    hostname = getattr(sender, "hostname", None) or socket.gethostname()
    _stop.clear()
    threading.Thread(target=_beat, args=(broker_url, hostname), name="heartbeat", daemon=True).start()


@worker_shutdown.connect
def stop_heartbeat(sender: Any = None, **_: Any) -> None:
    """A worker stopping cleanly removes its key at once; a killed one's key expires after the TTL."""
    _stop.set()
    app = getattr(sender, "app", None)
    hostname = getattr(sender, "hostname", None)
    if app is None or not hostname:
        return
    try:
        _redis_client(str(app.conf.broker_url)).delete(heartbeat_key(hostname))
    except Exception:  # noqa: BLE001, S110 - best effort; the key expires anyway
        pass
