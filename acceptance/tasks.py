"""Thin Celery tasks of the acceptance app (queue `parse`): take ids, call a service, idempotent."""

from __future__ import annotations

from celery import shared_task

from acceptance import services
from portal.task_pool import DB_RETRY


@shared_task(name="acceptance.process", **DB_RETRY)
def process_bundle_task(run_id: int) -> str:
    """Read one bundle and compute its report; a finished run changes nothing."""
    return str(services.acceptance_process(run_id=run_id).status)


@shared_task(name="acceptance.sweep_queued")
def sweep_queued_task() -> int:
    """Re-enqueue runs left `queued` or stalled `running` (a periodic sweeper calls this)."""
    return services.acceptance_sweep()
