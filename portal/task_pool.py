"""The embedded mode's worker: a small in-process thread pool with a bounded queue (no broker needed).

With no CELERY_BROKER_URL, `task.delay()` used to run the task inside the request (Celery's eager mode), so
POST /api/v1/runs/ sized the whole catalog and a quote PDF rendered inside the GET before either answered.
Now every task class derives from `PooledTask`: without a broker its `apply_async` hands the task to this
pool and returns at once; the pages poll the row as they do with real workers. With a broker configured
nothing changes (Celery's own `apply_async`), and tests that set `task_always_eager` still run inline.

The queue is bounded (settings.TASKS_POOL_QUEUE): when it is full `apply_async` raises `PoolFull`, which
the services' enqueue helpers already treat like a broker outage (the row stays queued). A timer replays
the beat schedule (the sweepers) in the pool, so such rows, and work lost when the process restarted, are
picked up as `celery beat` does in the deployment.
"""

from __future__ import annotations

import logging
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from celery import Task
from django.conf import settings
from django.db import InterfaceError, OperationalError, close_old_connections, connections

logger = logging.getLogger(__name__)


class PoolFull(RuntimeError):
    """The in-process queue is full; the work stays queued and a sweeper picks it up later."""


class _Pool:
    def __init__(self, workers: int, queue: int) -> None:
        self.executor = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="clusterscout-task")
        # Running plus waiting tasks; a task beyond that is refused rather than queued without bound.
        self.slots = threading.BoundedSemaphore(workers + queue)

    def submit(self, task: Task, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Future[Any]:
        if not self.slots.acquire(blocking=False):
            raise PoolFull(f"the in-process task queue is full; {task.name} stays queued")
        try:
            future = self.executor.submit(_run, task, args, kwargs)
        except BaseException:
            self.slots.release()
            raise
        future.add_done_callback(lambda _: self.slots.release())
        return future


_pool: _Pool | None = None
_pool_lock = threading.Lock()
_beat_started = False


def pool() -> _Pool:
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = _Pool(settings.TASKS_POOL_WORKERS, settings.TASKS_POOL_QUEUE)
            _start_beat()
        return _pool


def _run(task: Task, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """Run one task in a pool thread with its own database connection, closed afterwards."""
    close_old_connections()
    try:
        return task.apply(args=args, kwargs=kwargs, throw=True).get(disable_sync_subtasks=False)
    except Exception:
        logger.exception("in-process task %s%r failed", task.name, tuple(args))
        raise
    finally:
        connections.close_all()


def _start_beat() -> None:
    """Replay settings.CELERY_BEAT_SCHEDULE in the pool (daemon timer threads), like `celery beat`."""
    global _beat_started
    if _beat_started or not getattr(settings, "TASKS_POOL_BEAT", True):
        return
    _beat_started = True
    for entry in getattr(settings, "CELERY_BEAT_SCHEDULE", {}).values():
        _schedule(str(entry["task"]), float(entry["schedule"]))


def _schedule(name: str, every_s: float) -> None:
    def fire() -> None:
        from portal.celery import app

        try:
            app.tasks[name].delay()
        except Exception:  # a full queue or a missing task: try again at the next tick
            logger.warning("in-process beat could not enqueue %s", name, exc_info=True)
        _schedule(name, every_s)

    timer = threading.Timer(every_s, fire)
    timer.daemon = True
    timer.start()


def in_process() -> bool:
    """True when there is no broker: tasks go to this pool."""
    return not settings.CELERY_BROKER_URL


class PooledTask(Task):  # type: ignore[misc]
    """The base of every task: Celery's own dispatch with a broker, the in-process pool without one."""

    def apply_async(self, args: Any = None, kwargs: Any = None, **options: Any) -> Any:  # type: ignore[override]
        if self.app.conf.task_always_eager or not in_process():
            return super().apply_async(args, kwargs, **options)
        return pool().submit(self, tuple(args or ()), dict(kwargs or {}))


# Tasks that read or write one row retry when the database blips (a restart, a dropped connection).
DB_RETRY: dict[str, Any] = {
    "autoretry_for": (OperationalError, InterfaceError),
    "retry_backoff": True,
    "max_retries": 5,
}


def enqueue(task: Task, object_id: int, what: str) -> None:
    """`task.delay(object_id)`; when the broker is down (kombu OperationalError, redis ConnectionError,
    OSError) or the in-process queue is full, log it and return: the row stays in its waiting state and the
    app's sweeper, or the next request, enqueues it again."""
    try:
        task.delay(object_id)
    except Exception:  # noqa: BLE001 - never a 500 for a broker outage
        logger.warning("could not enqueue %s %s; it will be retried", what, object_id, exc_info=True)
