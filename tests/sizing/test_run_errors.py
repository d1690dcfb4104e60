"""A failed run stores its message beside its English (PlanRun.error_message) wherever it fails."""

from __future__ import annotations

from typing import Any

import pytest
from celery.exceptions import SoftTimeLimitExceeded

from sizing import run_errors, services, tasks
from sizing.engine.errors import InputError
from sizing.engine.workload import workload_preset
from sizing.models import PlanRun
from tests.providers.factories import UserFactory
from tests.sizing.test_planner_runs import running_run, well_built

pytestmark = pytest.mark.django_db


def failing_on_broken(monkeypatch: pytest.MonkeyPatch, error: Exception) -> None:
    """Sizing the offering with the slug "broken" raises `error`; the others are sized."""
    real = services.size_offering_with_findings

    def size(**kwargs: Any) -> Any:
        if kwargs["facts"]["slug"] == "broken":
            raise error
        return real(**kwargs)

    monkeypatch.setattr(services, "size_offering_with_findings", size)


def broken_run(user: Any) -> PlanRun:
    broken = well_built("broken")
    broken.name = "Broken cluster"
    broken.save()
    return running_run(user, [well_built("fine"), broken])


def chunk_of(run: PlanRun) -> list[int]:
    return sorted(run.offerings.values_list("pk", flat=True))


def test_an_input_error_in_a_chunk_stores_the_message_naming_the_offering(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    user = UserFactory()
    run = broken_run(user)
    with pytest.raises(InputError) as refused:
        workload_preset("no-such-model")  # the engine's own refusal, escaping the sizing of one offering
    failing_on_broken(monkeypatch, refused.value)
    assert tasks.plan_run_chunk_task(run.pk, chunk_of(run)) == 0
    run.refresh_from_db()
    assert run.status == "failed"
    assert run.error_message == {"msgid": run_errors.CHUNK_ERROR, "params": {"what": "“Broken cluster”"}}
    assert run.error == run_errors.CHUNK_ERROR % {"what": "“Broken cluster”"}  # the API's English, as before


def test_an_unexpected_error_stores_the_message_of_what_was_being_sized(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    user = UserFactory()
    fan_out, chunk = running_run(user, [well_built("f1")]), running_run(user, [well_built("c1")])

    def explode(**kwargs: Any) -> Any:
        raise RuntimeError("a bug")

    monkeypatch.setattr(services, "plan_run_start", explode)
    monkeypatch.setattr(services, "plan_run_execute_chunk", explode)
    tasks.plan_run_start_task(fan_out.pk)
    tasks.plan_run_chunk_task(chunk.pk, [1, 2, 3] * 500)
    fan_out.refresh_from_db()
    chunk.refresh_from_db()
    the_list = {"msgid": run_errors.WHAT_LIST, "params": {}}
    assert fan_out.error_message == {"msgid": run_errors.CHUNK_ERROR, "params": {"what": the_list}}
    assert fan_out.error.startswith("Sizing stopped on an unexpected error while sizing the list of")
    count = {"msgid": run_errors.WHAT_COUNT, "params": {"n": "1,500"}}
    assert chunk.error_message == {"msgid": run_errors.CHUNK_ERROR, "params": {"what": count}}
    assert "a bug" not in fan_out.error + chunk.error


def test_a_time_limit_and_the_watchdog_store_their_messages(
    monkeypatch: pytest.MonkeyPatch, settings: Any
) -> None:
    user = UserFactory()
    slow = running_run(user, [well_built("broken")])
    failing_on_broken(monkeypatch, SoftTimeLimitExceeded())
    tasks.plan_run_chunk_task(slow.pk, chunk_of(slow))
    slow.refresh_from_db()
    one = {"msgid": run_errors.WHAT_COUNT, "params": {"n": "1"}}
    seconds = str(settings.CELERY_TASK_SOFT_TIME_LIMIT)
    assert slow.error_message == {"msgid": run_errors.TIME_LIMIT, "params": {"what": one, "seconds": seconds}}

    stalled = running_run(user, [well_built("stalled")])
    monkeypatch.setattr(services, "_enqueue_start", lambda run_id: None)
    services.sweep_queued_runs(give_up_after_s=0)
    stalled.refresh_from_db()
    assert stalled.error_message == {"msgid": run_errors.NO_PROGRESS, "params": {"minutes": "1"}}
    assert stalled.error.startswith("Sizing made no progress for 1 minutes")


def test_a_retry_clears_the_message_with_the_text(monkeypatch: pytest.MonkeyPatch) -> None:
    user = UserFactory()
    run = running_run(user, [well_built("again")])
    services.plan_run_fail(run_id=run.pk, error=run_errors.no_progress(15))
    monkeypatch.setattr(services, "_enqueue_start", lambda run_id: None)
    services.plan_run_retry(owner=user, run_id=run.pk)
    run.refresh_from_db()
    assert run.status == "queued" and run.error == "" and run.error_message is None
