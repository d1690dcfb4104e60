"""Thin Celery tasks of the planner: take ids, call a service; all idempotent (DESIGN section 3).

A chunk is acknowledged only once it finished (acks_late) and is given back to the broker when its worker
dies (reject_on_worker_lost); the watchdog re-sends what a restarted broker lost. Any exception in a
chunk marks its run failed with a sentence the buyer reads, instead of leaving it running."""

from __future__ import annotations

import logging

from celery import shared_task
from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings

from sizing import run_errors, services

logger = logging.getLogger(__name__)


def _fail(run_id: int, exc: BaseException, what: str) -> None:
    """Mark the run failed with the sentence for `exc` (a message: the pages show it in their language); the
    traceback goes to the log."""
    if isinstance(exc, SoftTimeLimitExceeded) or isinstance(exc.__cause__, SoftTimeLimitExceeded):
        error = run_errors.time_limit(what, settings.CELERY_TASK_SOFT_TIME_LIMIT)
    elif isinstance(exc, services.ChunkError):
        error = exc.message
    else:
        error = run_errors.chunk_error(what)
    logger.error("sizing run %s failed: %s", run_id, error, exc_info=exc)
    services.plan_run_fail(run_id=run_id, error=error)


@shared_task(name="sizing.plan_run_start", acks_late=True, reject_on_worker_lost=True)
def plan_run_start_task(run_id: int) -> None:
    """Fan a run out into chunk tasks (re-running it only re-enqueues what is missing)."""
    try:
        services.plan_run_start(run_id=run_id)
    except Exception as exc:  # noqa: BLE001 - whatever it is, the run must not stay unfinished
        _fail(run_id, exc, run_errors.LIST_OF_OFFERINGS)


@shared_task(name="sizing.plan_run_chunk", acks_late=True, reject_on_worker_lost=True)
def plan_run_chunk_task(run_id: int, offering_ids: list[int]) -> int:
    """Size a chunk of offerings; a re-delivered chunk writes nothing twice."""
    try:
        return services.plan_run_execute_chunk(run_id=run_id, offering_ids=offering_ids)
    except Exception as exc:  # noqa: BLE001 - whatever it is, the run must not stay unfinished
        _fail(run_id, exc, run_errors.chunk_what(len(offering_ids)))
        return 0


@shared_task(name="sizing.sweep_queued_runs")
def sweep_queued_runs_task() -> int:
    """Periodic (celery beat, portal/celery.py): the watchdog of planner runs."""
    return services.sweep_queued_runs()
