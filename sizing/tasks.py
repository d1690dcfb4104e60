"""Thin Celery tasks of the planner: take ids, call a service; all idempotent (DESIGN section 3)."""

from __future__ import annotations

from celery import shared_task
from celery.exceptions import SoftTimeLimitExceeded

from sizing import services


@shared_task(name="sizing.plan_run_start")
def plan_run_start_task(run_id: int) -> None:
    """Fan a run out into chunk tasks (re-running it only re-enqueues what is missing)."""
    services.plan_run_start(run_id=run_id)


@shared_task(name="sizing.plan_run_chunk")
def plan_run_chunk_task(run_id: int, offering_ids: list[int]) -> int:
    """Size a chunk of offerings; a re-delivered chunk writes nothing twice."""
    try:
        return services.plan_run_execute_chunk(run_id=run_id, offering_ids=offering_ids)
    except SoftTimeLimitExceeded:
        services.plan_run_fail(run_id=run_id, error="sizing took longer than the task time limit")
        raise


@shared_task(name="sizing.sweep_queued_runs")
def sweep_queued_runs_task() -> int:
    """Periodic: re-enqueue runs whose enqueue was lost or whose worker died."""
    return services.sweep_queued_runs()
