"""Planner execution: a fixed number of queries per chunk, a failing chunk fails its run with a readable
message, the watchdog re-sends lost chunks and fails runs without progress, the retry button."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal
from typing import Any

import pytest
from django.core.exceptions import ValidationError
from django.utils import timezone

from checks.models import Finding, context_for_run
from checks.rules import Finding as RuleFinding
from checks.services import findings_store_many
from checks.severity import Severity
from sizing import services, tasks
from sizing.models import PlanResult, PlanRun
from tests.providers.factories import OfferingFactory, PlanFactory, UserFactory

pytestmark = pytest.mark.django_db

# Queries of one chunk whatever its size: the run, the results already there, the offerings (provider and
# GPU joined), their plans, then the store: results already there, insert results, delete and insert
# findings, count the progress, read it (plus a SAVEPOINT/RELEASE pair under the test's transaction).
CHUNK_QUERY_BOUND = 12


def well_built(slug: str) -> Any:
    offering = OfferingFactory(slug=slug, max_nodes=64)
    PlanFactory(offering=offering, price_usd_per_gpu_hour=Decimal("2.50"))
    PlanFactory(offering=offering, kind="reserved", name="1y", price_usd_per_gpu_hour=Decimal("1.90"))
    return offering


def running_run(user: Any, offerings: list[Any], preset: str = "13b") -> PlanRun:
    wl = services.workload_create(owner=user, preset=preset)
    run = PlanRun.objects.create(
        workload=wl, owner=user, status="running", progress_total=len(offerings), progress_at=timezone.now()
    )
    run.offerings.set(offerings)
    return run


@pytest.mark.parametrize("count", [3, 12])
def test_a_chunk_costs_the_same_number_of_queries_whatever_its_size(
    count: int, django_assert_max_num_queries: Any
) -> None:
    user = UserFactory()
    offerings = [well_built(f"q{count}-{i}") for i in range(count)]
    run = running_run(user, offerings + [well_built(f"q{count}-rest")])
    with django_assert_max_num_queries(CHUNK_QUERY_BOUND):
        created = services.plan_run_execute_chunk(run_id=run.pk, offering_ids=[o.pk for o in offerings])
    assert created == count
    run.refresh_from_db()
    assert run.progress_done == count and run.status == "running" and run.progress_at is not None
    assert run.results.count() == count
    # The findings of the run's context are stored for every sized offering, as codes on each result.
    for result in run.results.all():
        rows = Finding.objects.filter(offering_id=result.offering_id, context=context_for_run(run.pk))
        stored = set(rows.values_list("code", flat=True))
        assert stored == set(result.findings)


def test_a_whole_run_stays_within_five_queries_per_offering(
    django_capture_on_commit_callbacks: Any, django_assert_max_num_queries: Any, settings: Any
) -> None:
    settings.SIZING_CHUNK_SIZE = 8
    user = UserFactory()
    offerings = [well_built(f"w{i}") for i in range(16)]
    wl = services.workload_create(owner=user, preset="13b")
    with django_assert_max_num_queries(5 * len(offerings)):
        with django_capture_on_commit_callbacks(execute=True):
            run = services.plan_run_create(owner=user, workload=wl)
    run.refresh_from_db()
    assert run.status == "done" and run.progress_done == 16
    assert sorted(run.results.values_list("rank", flat=True)) == list(range(1, 17))
    assert {r.offering_id for r in run.results.all()} == {o.pk for o in offerings}


def test_the_default_chunk_size_grows_with_the_run_within_its_bounds(settings: Any) -> None:
    del settings.SIZING_CHUNK_SIZE
    assert services.chunk_size(10) == services.CHUNK_MIN
    assert services.chunk_size(3000) == 47  # about CHUNKS_TARGET chunks
    assert services.chunk_size(100_000) == services.CHUNK_MAX


def test_a_chunk_raising_fails_the_run_with_a_sentence_naming_the_offering(
    django_capture_on_commit_callbacks: Any, monkeypatch: pytest.MonkeyPatch, client: Any
) -> None:
    user = UserFactory()
    offerings = [well_built("fine-1"), well_built("fine-2"), well_built("broken")]
    offerings[2].name = "Broken cluster"
    offerings[2].save()
    real = services.size_offering_with_findings

    def explode_on_broken(**kwargs: Any) -> Any:
        if kwargs["facts"]["slug"] == "broken":
            raise ZeroDivisionError("division by zero")
        return real(**kwargs)

    monkeypatch.setattr(services, "size_offering_with_findings", explode_on_broken)
    wl = services.workload_create(owner=user, preset="13b")
    with django_capture_on_commit_callbacks(execute=True):
        run = services.plan_run_create(owner=user, workload=wl)
    run.refresh_from_db()
    assert run.status == "failed" and run.finished_at is not None
    assert "“Broken cluster”" in run.error and "Retry" in run.error
    assert "ZeroDivision" not in run.error
    client.force_login(user)
    page = client.get(f"/plan/{run.pk}/")
    assert page.status_code == 200
    html = page.content.decode()
    assert 'data-status="failed"' in html and "“Broken cluster”" in html and 'id="run-retry"' in html

    # The buyer presses Retry once the cause is gone: the run finishes with every offering sized once.
    monkeypatch.setattr(services, "size_offering_with_findings", real)
    assert client.get(f"/plan/{run.pk}/retry/").status_code == 405  # a GET never writes
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(f"/plan/{run.pk}/retry/")
    assert response.status_code == 302 and response["Location"] == f"/plan/{run.pk}/"
    run.refresh_from_db()
    assert run.status == "done" and run.error == "" and run.progress_done == 3
    assert run.results.count() == 3 and run.results.values("offering").distinct().count() == 3


def test_only_the_owner_can_retry_and_a_run_that_did_not_fail_is_left_alone(client: Any) -> None:
    owner, other = UserFactory(), UserFactory()
    run = running_run(owner, [well_built("own")])
    services.plan_run_fail(run_id=run.pk, error="first")
    services.plan_run_fail(run_id=run.pk, error="second")  # the first error stays
    run.refresh_from_db()
    assert run.error == "first"
    client.force_login(other)
    assert client.post(f"/plan/{run.pk}/retry/").status_code == 404
    with pytest.raises(ValidationError) as exc:
        services.plan_run_retry(owner=other, run_id=run.pk)
    assert "run" in exc.value.message_dict
    PlanRun.objects.filter(pk=run.pk).update(status="done", error="")
    assert services.plan_run_retry(owner=owner, run_id=run.pk).status == "done"


def test_a_soft_time_limit_in_a_chunk_fails_the_run_saying_so(monkeypatch: pytest.MonkeyPatch) -> None:
    from celery.exceptions import SoftTimeLimitExceeded

    user = UserFactory()
    run = running_run(user, [well_built("slow")])

    def too_long(**kwargs: Any) -> Any:
        raise SoftTimeLimitExceeded()

    monkeypatch.setattr(services, "size_offering_with_findings", too_long)
    assert tasks.plan_run_chunk_task(run.pk, [o.pk for o in run.offerings.all()]) == 0
    run.refresh_from_db()
    assert run.status == "failed" and "longer than a sizing task may run" in run.error


def test_a_chunk_that_was_never_sent_is_sent_again_by_the_watchdog(
    django_capture_on_commit_callbacks: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    user = UserFactory()
    offerings = [well_built(f"lost-{i}") for i in range(6)]
    wl = services.workload_create(owner=user, preset="13b")
    lost: list[list[int]] = []
    monkeypatch.setattr(tasks.plan_run_chunk_task, "delay", lambda run_id, ids: lost.append(ids))
    with django_capture_on_commit_callbacks(execute=True):
        run = services.plan_run_create(owner=user, workload=wl)
    run.refresh_from_db()
    assert run.status == "running" and run.progress_done == 0 and lost  # started, every chunk lost
    monkeypatch.undo()

    assert services.sweep_queued_runs() == 0  # within the stated grace: not yet
    with django_capture_on_commit_callbacks(execute=True):
        assert services.sweep_queued_runs(stalled_older_than_s=0) == 1
    run.refresh_from_db()
    assert run.status == "done" and run.progress_done == 6
    assert run.results.count() == 6 and run.results.values("offering").distinct().count() == 6
    assert {o.pk for o in offerings} == {i for ids in lost for i in ids}


def test_chunks_sent_again_wait_a_full_grace_before_the_next_resend(monkeypatch: pytest.MonkeyPatch) -> None:
    user = UserFactory()
    run = running_run(user, [well_built("stuck")])
    old = timezone.now() - timedelta(seconds=services.STALLED_GRACE_S + 5)
    PlanRun.objects.filter(pk=run.pk).update(progress_at=old, updated_at=old)
    sent: list[int] = []
    monkeypatch.setattr(services, "_enqueue_start", sent.append)
    assert services.sweep_queued_runs() == 1 and sent == [run.pk]
    services.plan_run_start(run_id=run.pk)  # what the re-enqueued start does: it marks the resend
    assert services.sweep_queued_runs() == 0 and sent == [run.pk]  # no progress yet, but just sent
    PlanRun.objects.filter(pk=run.pk).update(updated_at=old)
    assert services.sweep_queued_runs() == 1 and sent == [run.pk, run.pk]


def test_a_run_without_progress_past_the_limit_is_failed_with_a_message(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    user = UserFactory()
    hopeless = running_run(user, [well_built("h1")])
    recent = running_run(user, [well_built("h2")])
    queued = running_run(user, [well_built("h3")])
    long_ago = timezone.now() - timedelta(seconds=services.GIVE_UP_S + 5)
    PlanRun.objects.filter(pk=hopeless.pk).update(progress_at=long_ago, updated_at=timezone.now())
    PlanRun.objects.filter(pk=queued.pk).update(status="queued", progress_at=None, created_at=long_ago)
    sent: list[int] = []
    monkeypatch.setattr(services, "_enqueue_start", sent.append)
    services.sweep_queued_runs()
    for run in (hopeless, recent, queued):
        run.refresh_from_db()
    assert hopeless.status == queued.status == "failed" and recent.status == "running"
    assert hopeless.error.startswith("Sizing made no progress for 15 minutes")
    assert sent == []  # a failed run is not sent again


def test_a_chunk_delivered_again_after_the_run_failed_writes_nothing() -> None:
    user = UserFactory()
    offerings = [well_built("late")]
    run = running_run(user, offerings)
    services.plan_run_fail(run_id=run.pk, error="stopped")
    assert services.plan_run_execute_chunk(run_id=run.pk, offering_ids=[offerings[0].pk]) == 0
    assert not PlanResult.objects.filter(run=run).exists()


def test_bulk_findings_replace_those_of_the_context_and_are_checked_once() -> None:
    offering = well_built("bulk")
    finding = RuleFinding(code="fabric-not-rdma", severity=Severity.CRITICAL, title="t" * 600)
    assert findings_store_many(context="run:7", findings_by_offering={offering.pk: [finding, finding]}) == 1
    stored = Finding.objects.get(offering=offering, context="run:7")
    assert len(stored.title) == 500
    other = RuleFinding(code="hidden-fees", severity=Severity.INFO, title="fees")
    findings_store_many(context="run:7", findings_by_offering={offering.pk: [other]})
    assert list(Finding.objects.filter(context="run:7").values_list("code", flat=True)) == ["hidden-fees"]
    with pytest.raises(ValidationError):
        findings_store_many(context="run:x", findings_by_offering={offering.pk: [other]})


def test_two_deliveries_of_a_chunk_storing_at_the_same_time_store_each_result_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The race the row lock used to prevent: both deliveries read "no result yet" before either inserts.
    The second insert then meets the first's rows: nothing is stored twice, nothing raises, and the progress
    counts the stored results, not the deliveries."""
    user = UserFactory()
    offerings = [well_built(f"race-{i}") for i in range(3)]
    run = running_run(user, offerings + [well_built("race-rest")])
    ids = [o.pk for o in offerings]
    assert services.plan_run_execute_chunk(run_id=run.pk, offering_ids=ids) == 3
    # the second delivery sized the same offerings and read "none stored" before the first one's commit
    workload = run.workload
    sized = {
        o.pk: services.size_offering_with_findings(
            workload=workload, facts=o.facts(), objective=run.objective
        )
        for o in offerings
    }
    real_filter = PlanResult.objects.filter

    def stale(*args: Any, **kwargs: Any) -> Any:
        found = real_filter(*args, **kwargs)
        return found.none() if "offering_id__in" in kwargs else found

    monkeypatch.setattr(PlanResult.objects, "filter", stale)
    created, finished = services._store_chunk(run_id=run.pk, sized=sized)
    monkeypatch.undo()
    assert created == 3 and not finished  # it believed they were new; ON CONFLICT kept the first ones
    run.refresh_from_db()
    assert run.results.count() == 3 and run.progress_done == 3 and run.status == "running"
    context = context_for_run(run.pk)
    for offering in offerings:
        codes = list(
            Finding.objects.filter(offering=offering, context=context).values_list("code", flat=True)
        )
        assert len(codes) == len(set(codes))
    # the last offering completes the run, once
    assert (
        services.plan_run_execute_chunk(run_id=run.pk, offering_ids=[run.offerings.get(slug="race-rest").pk])
        == 1
    )
    run.refresh_from_db()
    assert run.progress_done == 4 and run.status == "done"
