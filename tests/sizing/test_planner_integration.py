"""The planner on a real worker (PostgreSQL + Redis): progress, ranking, a worker killed mid-run, a chunk that
raises, chunks delivered three times, chunks lost before they reached the broker."""

from __future__ import annotations

import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from checks.models import Finding, context_for_run
from providers.catalog import catalog_import, read_catalog_file
from providers.models import Offering, Provider
from providers.services import gpu_table_sync
from sizing import run_errors, services
from sizing.models import PlanResult, PlanRun
from sizing.tasks import plan_run_chunk_task
from tests.conftest import start_celery_worker
from tests.providers.catalog_copies import copy_providers
from tests.providers.factories import UserFactory

pytestmark = [pytest.mark.integration]

REPO = Path(__file__).resolve().parents[2]


def load_demo_catalog(copies: int = 1) -> int:
    """The demo catalog, `copies` times (renamed copies), so that a run can be made to last long enough."""
    gpu_table_sync()
    catalog_import(data=read_catalog_file(REPO / "providers" / "demo" / "catalog.yaml"))
    providers = list(Provider.objects.order_by("pk"))
    for n in range(1, copies):
        copy_providers(n, providers)
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
    total = load_demo_catalog(copies=3)  # a run of a few seconds: progress polled every 50 ms shows part-way
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


def _wait_finished(run: PlanRun, timeout: float = 120) -> None:
    def finished() -> bool:
        run.refresh_from_db()
        return run.status in ("done", "failed")

    assert wait_for(finished, timeout), f"run stuck at {run.status} {run.progress_done}/{run.progress_total}"


def test_a_chunk_raising_on_a_real_worker_fails_the_run_with_a_readable_message(
    celery_worker: Any,
) -> None:
    load_demo_catalog()
    victim = Offering.objects.order_by("slug")[5]
    # The fixture's worker is replaced by one whose sizing of `victim` raises.
    celery_worker.send_signal(signal.SIGTERM)
    celery_worker.wait(timeout=15)
    broken = start_celery_worker("broken", RELIABILITY_FAIL_SIZING_SLUG=victim.slug)
    try:
        user = UserFactory()
        wl = services.workload_create(owner=user, preset="13b")
        run = services.plan_run_create(owner=user, workload=wl)
        _wait_finished(run, 60)
    finally:
        broken.send_signal(signal.SIGTERM)
        broken.wait(timeout=15)
    assert run.status == "failed", run.status
    assert f"“{victim.name}”" in run.error and "Retry" in run.error
    assert "ZeroDivision" not in run.error and "Traceback" not in run.error
    # stored with its message too: the pages show it in their language (tests/sizing/test_run_errors.py)
    assert run.error_message == {"msgid": run_errors.CHUNK_ERROR, "params": {"what": f"“{victim.name}”"}}
    assert not run.results.filter(offering=victim).exists()


def test_chunks_delivered_three_times_to_two_workers_store_each_result_once(celery_worker: Any) -> None:
    total = load_demo_catalog()
    second = start_worker()
    try:
        user = UserFactory()
        wl = services.workload_create(owner=user, preset="llama3-70b")
        run = services.plan_run_create(owner=user, workload=wl)
        ids = sorted(Offering.objects.values_list("id", flat=True))
        # The same chunks again, twice, as a broker would redeliver them, racing the originals.
        for _ in range(2):
            for start in range(0, len(ids), 4):
                plan_run_chunk_task.delay(run.pk, ids[start : start + 4])
        _wait_finished(run)
        time.sleep(2)  # let the redelivered copies that are still queued run too
    finally:
        second.send_signal(signal.SIGTERM)
        second.wait(timeout=15)
    run.refresh_from_db()
    assert run.status == "done" and run.progress_done == run.progress_total == total
    assert run.results.count() == run.results.values("offering").distinct().count() == total
    assert sorted(run.results.values_list("rank", flat=True)) == list(range(1, total + 1))
    findings = Finding.objects.filter(context=context_for_run(run.pk))
    assert findings.count() == sum(len(set(r.findings)) for r in run.results.all())


def test_a_run_whose_chunks_were_never_sent_is_finished_by_the_sweeper(
    celery_worker: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    total = load_demo_catalog()
    user = UserFactory()
    wl = services.workload_create(owner=user, preset="13b")
    monkeypatch.setattr(services, "_enqueue_start", lambda run_id: None)
    run = services.plan_run_create(owner=user, workload=wl)
    lost: list[list[int]] = []
    monkeypatch.setattr(plan_run_chunk_task, "delay", lambda run_id, chunk: lost.append(chunk))
    services.plan_run_start(run_id=run.pk)  # started, then every chunk lost with the broker
    monkeypatch.undo()
    run.refresh_from_db()
    assert run.status == "running" and run.progress_done == 0 and sum(map(len, lost)) == total
    time.sleep(3)
    assert run.results.count() == 0  # nothing is coming: the messages are gone
    assert services.sweep_queued_runs() == 0  # within the 60 s grace
    assert services.sweep_queued_runs(stalled_older_than_s=0) == 1
    _wait_finished(run)
    assert run.status == "done" and run.progress_done == total
    assert run.results.count() == run.results.values("offering").distinct().count() == total
