"""A failed run stores its message beside its English (PlanRun.error_message) wherever it fails, and every
page and the API show it in the request's language; a run stored with its English only is read back."""

from __future__ import annotations

from typing import Any

import pytest
from celery.exceptions import SoftTimeLimitExceeded
from django.test import Client

from sizing import run_errors, services, tasks
from sizing.engine.errors import InputError
from sizing.engine.workload import workload_preset
from sizing.models import PlanRun
from tests.providers.factories import UserFactory
from tests.sizing.test_planner_runs import running_run, well_built

pytestmark = pytest.mark.django_db

NAMED_CHINESE = "测算“Broken cluster”时遇到意外错误，规模测算已停止。"
LIST_CHINESE = "测算产品列表时遇到意外错误，规模测算已停止。"


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


def page_client(user: Any, language: str) -> Client:
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    client.force_login(user)
    return client


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


def test_the_chinese_pages_and_the_api_show_the_stored_message(monkeypatch: pytest.MonkeyPatch) -> None:
    user = UserFactory()
    run = broken_run(user)
    failing_on_broken(monkeypatch, ZeroDivisionError("division by zero"))
    tasks.plan_run_chunk_task(run.pk, chunk_of(run))
    english = PlanRun.objects.get(pk=run.pk).error
    # Only the message can say it now: the stored English matches no template any more.
    PlanRun.objects.filter(pk=run.pk).update(error="Sizing failed.")
    chinese = page_client(user, "zh-hans")
    for address in (f"/plan/{run.pk}/", f"/plan/{run.pk}/progress/", f"/compare/sizing/{run.pk}/"):
        html = chinese.get(address).content.decode()
        assert NAMED_CHINESE in html and "Sizing failed." not in html, address
    body = chinese.get(f"/api/v1/runs/{run.pk}/").json()
    assert body["error"] == "Sizing failed." and body["error_localized"].startswith(NAMED_CHINESE)
    PlanRun.objects.filter(pk=run.pk).update(error=english)
    body = page_client(user, "en").get(f"/api/v1/runs/{run.pk}/").json()
    assert body["error"] == body["error_localized"] == english
    assert english in page_client(user, "en").get(f"/plan/{run.pk}/").content.decode()


def test_a_run_stored_with_its_english_only_is_read_back_on_the_chinese_pages() -> None:
    user = UserFactory()
    old, other = running_run(user, [well_built("old")]), running_run(user, [well_built("other")])
    services.plan_run_fail(run_id=old.pk, error=run_errors.CHUNK_ERROR % {"what": run_errors.WHAT_LIST})
    services.plan_run_fail(run_id=other.pk, error="stopped by hand")
    assert PlanRun.objects.get(pk=old.pk).error_message is None
    chinese = page_client(user, "zh-hans")
    assert LIST_CHINESE in chinese.get(f"/plan/{old.pk}/").content.decode()
    assert chinese.get(f"/api/v1/runs/{old.pk}/").json()["error_localized"].startswith(LIST_CHINESE)
    assert "stopped by hand" in chinese.get(f"/plan/{other.pk}/progress/").content.decode()
    body = chinese.get(f"/api/v1/runs/{other.pk}/").json()
    assert body["error"] == body["error_localized"] == "stopped by hand"


def test_a_retry_clears_the_message_with_the_text(monkeypatch: pytest.MonkeyPatch) -> None:
    user = UserFactory()
    run = running_run(user, [well_built("again")])
    services.plan_run_fail(run_id=run.pk, error=run_errors.no_progress(15))
    monkeypatch.setattr(services, "_enqueue_start", lambda run_id: None)
    services.plan_run_retry(owner=user, run_id=run.pk)
    run.refresh_from_db()
    assert run.status == "queued" and run.error == "" and run.error_message is None
    assert page_client(user, "en").get(f"/api/v1/runs/{run.pk}/").json()["error_localized"] is None
