"""Thin Celery tasks of the benchmarks app (queue `parse`): take ids, call a service, idempotent."""

from __future__ import annotations

from celery import shared_task

from benchmarks import services
from portal.task_pool import DB_RETRY


@shared_task(name="benchmarks.parse_upload", **DB_RETRY)
def parse_upload_task(upload_id: int) -> str:
    """Parse one upload; re-running a finished one changes nothing. Retries only when the database blips."""
    return str(services.upload_parse(upload_id=upload_id).status)


@shared_task(name="benchmarks.sweep_stored")
def sweep_stored_task() -> int:
    """Re-enqueue uploads stuck in `stored` (a periodic sweeper calls this)."""
    return services.upload_sweep_stored()
