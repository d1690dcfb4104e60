"""Planner services with eager Celery: workloads, runs, fan-out, idempotency, ranking, incomplete bills."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from django.core.exceptions import ValidationError

from sizing import services
from sizing.engine.workload import workload_from_dict
from sizing.models import PlanResult, PlanRun
from tests.providers.factories import OfferingFactory, PlanFactory, UserFactory

pytestmark = pytest.mark.django_db


def well_built(slug: str, **kw: Any) -> Any:
    offering = OfferingFactory(slug=slug, max_nodes=64, **kw)
    PlanFactory(offering=offering, price_usd_per_gpu_hour=Decimal("2.50"))
    return offering


def run_all(capture: Any, **kw: Any) -> PlanRun:
    with capture(execute=True):
        run = services.plan_run_create(**kw)
    run.refresh_from_db()
    return run


def test_it_validates_a_workload_through_the_engine_with_field_names() -> None:
    user = UserFactory()
    with pytest.raises(ValidationError) as exc:
        services.workload_create(owner=user, layers=10, hidden=1000, heads=7)
    assert "heads" in exc.value.message_dict
    with pytest.raises(ValidationError) as exc:
        services.workload_create(owner=user, preset="no-such-model")
    assert "preset" in exc.value.message_dict
    with pytest.raises(ValidationError) as exc:
        services.workload_create(owner=user, preset="deepseek-v3-671b", moe_top_k=999)
    assert "moe_top_k" in exc.value.message_dict


def test_a_preset_fills_the_shape_and_a_params_only_workload_is_accepted() -> None:
    user = UserFactory()
    wl = services.workload_create(owner=user, preset="deepseek-v3-671b")
    assert wl.moe_experts == 256 and wl.precision == "fp8"
    assert wl.to_engine_dict()["moe"]["top_k"] == 8
    bare = services.workload_create(owner=user, name="my-100b", params=100e9)
    assert bare.layers is None and bare.to_engine_dict()["params"] == 100e9


def test_a_run_sizes_every_offering_once_ranks_and_finishes(django_capture_on_commit_callbacks: Any) -> None:
    user = UserFactory()
    offerings = [well_built(f"o{i}") for i in range(5)]
    PlanFactory(offering=offerings[0], kind="on-demand", name="dearer", price_usd_per_gpu_hour=Decimal("9"))
    wl = services.workload_create(owner=user, preset="13b")
    run = run_all(django_capture_on_commit_callbacks, owner=user, workload=wl)
    assert run.status == "done" and run.progress_done == run.progress_total == 5
    results = list(run.results.order_by("rank"))
    assert [r.rank for r in results] == [1, 2, 3, 4, 5]
    assert all(r.feasible and r.bill["lines"] for r in results)
    costs = [r.cost_total_usd for r in results]
    assert costs == sorted(costs)
    assert run.started_at and run.finished_at


def test_re_running_a_done_run_and_a_redelivered_chunk_change_nothing(
    django_capture_on_commit_callbacks: Any,
) -> None:
    user = UserFactory()
    offerings = [well_built(f"r{i}") for i in range(3)]
    wl = services.workload_create(owner=user, preset="13b")
    run = run_all(django_capture_on_commit_callbacks, owner=user, workload=wl)
    before = list(PlanResult.objects.filter(run=run).values("id", "rank", "cost_total_usd"))
    with django_capture_on_commit_callbacks(execute=True):
        services.plan_run_start(run_id=run.pk)
    assert services.plan_run_execute_chunk(run_id=run.pk, offering_ids=[o.pk for o in offerings]) == 0
    run.refresh_from_db()
    assert run.progress_done == 3 and run.status == "done"
    assert list(PlanResult.objects.filter(run=run).values("id", "rank", "cost_total_usd")) == before


def test_a_chunk_delivered_twice_mid_run_writes_no_duplicate() -> None:
    user = UserFactory()
    offerings = [well_built(f"d{i}") for i in range(2)]
    wl = services.workload_create(owner=user, preset="13b")
    run = PlanRun.objects.create(workload=wl, owner=user, status="running", progress_total=2)
    run.offerings.set(offerings)
    assert services.plan_run_execute_chunk(run_id=run.pk, offering_ids=[offerings[0].pk]) == 1
    assert services.plan_run_execute_chunk(run_id=run.pk, offering_ids=[offerings[0].pk]) == 0
    run.refresh_from_db()
    assert run.progress_done == 1 and run.status == "running"
    services.plan_run_execute_chunk(run_id=run.pk, offering_ids=[o.pk for o in offerings])
    run.refresh_from_db()
    assert run.status == "done" and run.results.count() == 2


def test_a_run_whose_enqueue_failed_stays_queued_and_the_sweeper_restarts_it(
    django_capture_on_commit_callbacks: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from kombu.exceptions import OperationalError

    from sizing import tasks

    user = UserFactory()
    well_built("s0")
    wl = services.workload_create(owner=user, preset="13b")

    def broker_down(*args: Any, **kwargs: Any) -> None:
        raise OperationalError("Error 111 connecting to redis")

    monkeypatch.setattr(tasks.plan_run_start_task, "delay", broker_down)
    run = run_all(django_capture_on_commit_callbacks, owner=user, workload=wl)
    assert run.status == "queued"
    monkeypatch.undo()
    assert services.sweep_queued_runs(queued_older_than_s=3600) == 0  # too recent
    with django_capture_on_commit_callbacks(execute=True):
        assert services.sweep_queued_runs(queued_older_than_s=0) == 1
    run.refresh_from_db()
    assert run.status == "done" and run.results.count() == 1


def test_unknown_offering_slugs_are_rejected_naming_the_field() -> None:
    user = UserFactory()
    wl = services.workload_create(owner=user, preset="13b")
    with pytest.raises(ValidationError) as exc:
        services.plan_run_create(owner=user, workload=wl, offering_slugs=["nope"])
    assert "offerings" in exc.value.message_dict


def test_an_offering_without_a_price_gets_an_incomplete_bill(django_capture_on_commit_callbacks: Any) -> None:
    user = UserFactory()
    priced = well_built("priced")
    unpriced = OfferingFactory(slug="unpriced", max_nodes=8)
    PlanFactory(offering=unpriced, price_usd_per_gpu_hour=None)
    wl = services.workload_create(owner=user, preset="13b")
    run = run_all(django_capture_on_commit_callbacks, owner=user, workload=wl)
    by_slug = {r.offering.slug: r for r in run.results.select_related("offering")}
    assert by_slug["unpriced"].cost_total_usd is None and by_slug["unpriced"].cost_complete is False
    assert by_slug["priced"].rank == 1
    assert priced.slug == "priced"


# The seed's sizing rules (DESIGN section 6) are tested as outcomes over a realistic catalog in
# tests/sizing/test_planner_seed.py.


def test_the_chunk_size_setting_splits_the_fan_out(
    settings: Any, monkeypatch: pytest.MonkeyPatch, django_capture_on_commit_callbacks: Any
) -> None:
    from sizing import tasks

    user = UserFactory()
    offerings = [well_built(f"c{i}") for i in range(5)]
    wl = services.workload_create(owner=user, preset="13b")
    run = PlanRun.objects.create(workload=wl, owner=user, progress_total=5)
    run.offerings.set(offerings)
    chunks: list[list[int]] = []
    monkeypatch.setattr(tasks.plan_run_chunk_task, "delay", lambda run_id, ids: chunks.append(ids))
    settings.SIZING_CHUNK_SIZE = 2
    with django_capture_on_commit_callbacks(execute=True):
        services.plan_run_start(run_id=run.pk)
    assert [len(c) for c in chunks] == [2, 2, 1]
    assert sorted(i for c in chunks for i in c) == sorted(o.pk for o in offerings)


def test_a_portal_workload_from_a_preset_is_the_presets_model(h100_ib: dict[str, Any]) -> None:
    # the portal stores no dropout field: a SwiGLU preset must not grow the dropout masks the preset
    # leaves out (the engine takes the activation's class when the workload does not say)
    from sizing.engine import evaluate
    from sizing.engine.workload import DROPOUT_NOTES

    user = UserFactory()
    stored = services.workload_create(owner=user, preset="llama3-405b").to_engine_dict()
    assert "dropout" not in stored
    layout = {"tp": 8, "pp": 16, "dp": 64}
    portal = evaluate(stored, h100_ib, layout)
    cli = evaluate("llama3-405b", h100_ib, layout)
    assert portal["memory_gib_per_gpu"] == cli["memory_gib_per_gpu"]
    assert portal["iteration_time_s"] == cli["iteration_time_s"]
    assert DROPOUT_NOTES["swiglu"] in portal["assumptions"]
    # a GELU workload keeps GPT-3-era dropout layers, and says so; a stated value is taken as stated
    gpt = {k: v for k, v in stored.items() if k != "name"} | {"activation": "gelu"}
    assert DROPOUT_NOTES["gelu"] in evaluate(gpt, h100_ib, layout)["assumptions"]
    stated = evaluate({**gpt, "dropout": False}, h100_ib, layout)
    assert not any(a.startswith("dropout not given") for a in stated["assumptions"])
    with_masks = evaluate({**stored, "dropout": True}, h100_ib, layout)
    assert with_masks["memory_gib_per_gpu"]["activations"] > portal["memory_gib_per_gpu"]["activations"]


def test_a_portal_deepseek_v3_keeps_the_preset_facts_it_stores_no_field_for(h100_ib: dict[str, Any]) -> None:
    # MLA's head widths and the multi-token-prediction module: the portal stores neither, so a workload made
    # from the preset that keeps its architecture takes them from the preset; one whose shape was changed is
    # another model and does not
    from sizing.engine import evaluate

    user = UserFactory()
    workload = services.workload_create(owner=user, preset="deepseek-v3-671b")
    stored = workload.to_engine_dict()
    assert (stored["qk_head_dim"], stored["v_head_dim"], stored["mtp_layers"]) == (192, 128, 1)
    layout = {"tp": 1, "pp": 16, "dp": 64, "ep": 64, "zero": 1}
    portal = evaluate(stored, h100_ib, layout)
    cli = evaluate("deepseek-v3-671b", h100_ib, layout)
    assert portal["params"] == cli["params"] and portal["iteration_time_s"] == cli["iteration_time_s"]
    workload.layers = 60
    changed = workload.to_engine_dict()
    assert not {"qk_head_dim", "v_head_dim", "mtp_layers"} & set(changed)


def test_a_bare_count_with_experts_is_refused_on_the_experts_field() -> None:
    user = UserFactory()
    with pytest.raises(ValidationError) as exc:
        services.workload_create(owner=user, name="mine", params=100e9, moe_experts=64, moe_top_k=8)
    assert "a parameter count alone gives a dense shape" in str(exc.value.message_dict["moe_experts"])
    named = services.workload_create(owner=user, name="Mixtral 8x7B", params=46.7e9)
    assert "moe" not in named.to_engine_dict()
    assert workload_from_dict(named.to_engine_dict()).moe.counts == (8, 2, 14336, 0, 0)
