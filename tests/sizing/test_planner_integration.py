"""The planner on a real worker (PostgreSQL + Redis): progress, ranking, and a worker killed mid-run."""

from __future__ import annotations

import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from providers.catalog import catalog_import, read_catalog_file
from providers.models import Offering
from providers.services import gpu_table_sync
from sizing import services
from sizing.models import PlanResult, PlanRun
from tests.conftest import start_celery_worker
from tests.providers.factories import UserFactory

pytestmark = [pytest.mark.integration]

REPO = Path(__file__).resolve().parents[2]


def load_demo_catalog() -> int:
    gpu_table_sync()
    catalog_import(data=read_catalog_file(REPO / "providers" / "demo" / "catalog.yaml"))
    # A run leaves the fictional samples out unless asked for them.
    return Offering.objects.filter(fictional=False).count()


def start_worker() -> subprocess.Popen[bytes]:
    """A second `celery worker`, the same way the celery_worker fixture starts the first."""
    return start_celery_worker("second")


def wait_for(predicate: Any, timeout: float = 120) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return False


def test_a_run_over_the_demo_catalog_completes_with_visible_progress(celery_worker: Any) -> None:
    total = load_demo_catalog()
    user = UserFactory()
    wl = services.workload_create(owner=user, preset="gpt3-175b")
    run = services.plan_run_create(owner=user, workload=wl)
    seen: set[int] = set()

    def finished() -> bool:
        run.refresh_from_db()
        seen.add(run.progress_done)
        return run.status == "done"

    assert wait_for(finished), f"run stuck at {run.status} {run.progress_done}/{run.progress_total}"
    assert run.progress_done == run.progress_total == total
    assert any(0 < s < total for s in seen), f"no intermediate progress seen: {sorted(seen)}"
    ranks = list(run.results.order_by("rank").values_list("rank", flat=True))
    assert ranks == list(range(1, total + 1))


def test_a_worker_killed_mid_run_loses_and_duplicates_nothing(celery_worker: Any) -> None:
    total = load_demo_catalog()
    user = UserFactory()
    runs = []
    for preset in ("gpt3-175b", "llama3-70b", "13b", "llama3-405b"):
        wl = services.workload_create(owner=user, preset=preset)
        runs.append(services.plan_run_create(owner=user, workload=wl))
    ids = [r.pk for r in runs]

    def done_count() -> int:
        return PlanResult.objects.filter(run_id__in=ids).count()

    assert wait_for(lambda: done_count() >= 1, timeout=60)
    celery_worker.send_signal(signal.SIGKILL)
    celery_worker.wait(timeout=10)
    killed_at = done_count()
    assert killed_at < total * len(ids), "the runs finished before the worker could be killed"
    second = start_worker()
    try:
        # The periodic sweeper finds the runs without progress and re-enqueues what is missing.
        time.sleep(1)
        services.sweep_queued_runs(queued_older_than_s=0, stalled_older_than_s=0)
        assert wait_for(lambda: PlanRun.objects.filter(pk__in=ids, status="done").count() == len(ids), 180)
    finally:
        second.send_signal(signal.SIGTERM)
        try:
            second.wait(timeout=15)
        except subprocess.TimeoutExpired:
            second.kill()
    for run_id in ids:
        run = PlanRun.objects.get(pk=run_id)
        assert run.progress_done == run.progress_total == total
        assert run.results.count() == total
        assert run.results.values("offering").distinct().count() == total
