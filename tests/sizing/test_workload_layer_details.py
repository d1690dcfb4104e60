"""A stored workload's gated-activation clamp, linear biases and rotary embeddings: stored (null: not stated),
sent to the engine only where stated (the answer's workload echoes them), copied from a preset that states
them, refused out of range on the form, the API and in the database, shown on the workloads list, added to a
database written before them (whose old defaults become "not stated")."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, connection, transaction
from django.db.migrations.executor import MigrationExecutor
from django.test import Client

from sizing import services, workloads
from sizing.engine.calibration import SELENE
from sizing.engine.workload import PRESETS, ROPE_KINDS, workload_from_dict
from sizing.models import Rope, Workload
from tests.providers.factories import OfferingFactory, UserFactory
from tests.sizing.conftest import EN, ZH, plan_post, workload_api

pytestmark = pytest.mark.django_db

# gpt-oss's three facts (its model card and Megatron-Bridge's recipes: GLU clamp 7.0, biases, YaRN)
STATED: dict[str, Any] = {"glu_clamp": 7.0, "linear_bias": True, "rope": "yarn"}
UNSTATED: dict[str, Any] = {"glu_clamp": None, "linear_bias": None, "rope": None}
# a gpt-oss-20b-like MoE shape, so the clamp and the biases (charged over the experts' MLP) change the answer
GPT_OSS_LIKE: dict[str, Any] = {
    "layers": 24,
    "hidden": 2880,
    "heads": 64,
    "kv_heads": 8,
    "seq_len": 4096,
    "activation": "swiglu",
    "moe_experts": 32,
    "moe_top_k": 4,
    "moe_expert_ffn_hidden": 2880,
}
CLAMP_RANGE = "Clamp of the gated activation must be greater than 0 and at most 10,000"


def test_stated_fields_are_stored_and_parsed_by_the_engine_as_given() -> None:
    created = services.workload_create(owner=UserFactory(), **GPT_OSS_LIKE, **STATED)
    workload = Workload.objects.get(pk=created.pk)
    assert {k: getattr(workload, k) for k in STATED} == STATED
    engine_dict = workload.to_engine_dict()
    assert {k: engine_dict[k] for k in STATED} == STATED
    parsed = workload_from_dict(engine_dict)
    assert (parsed.glu_clamp, parsed.linear_bias, parsed.rope) == (7.0, True, "yarn")


def test_the_stored_rotary_kinds_are_the_engines() -> None:
    assert tuple(Rope.values) == ROPE_KINDS


def test_a_workload_stating_none_sends_the_engine_what_it_sent_before() -> None:
    workload = services.workload_create(owner=UserFactory(), **GPT_OSS_LIKE)
    assert {k: getattr(workload, k) for k in UNSTATED} == UNSTATED
    assert not set(STATED) & set(workload.to_engine_dict())


def test_a_stated_standard_value_is_sent_and_an_unstated_one_is_not() -> None:
    workload = services.workload_create(owner=UserFactory(), **GPT_OSS_LIKE, linear_bias=False, rope="rope")
    engine_dict = workload.to_engine_dict()
    assert (engine_dict["linear_bias"], engine_dict["rope"]) == (False, "rope")
    assert "glu_clamp" not in engine_dict


def test_a_preset_that_states_them_gives_them_to_the_workload(monkeypatch: pytest.MonkeyPatch) -> None:
    gpt_oss = replace(PRESETS["13b"], glu_clamp=7.0, linear_bias=True, rope="yarn")
    monkeypatch.setattr(workloads, "workload_preset", lambda name: gpt_oss)
    assert {k: services.preset_fields("13b")[k] for k in STATED} == STATED
    workload = services.workload_create(owner=UserFactory(), preset="13b")
    assert {k: getattr(workload, k) for k in STATED} == STATED
    overridden = services.workload_create(owner=UserFactory(), preset="13b", linear_bias=False)
    assert overridden.linear_bias is False and overridden.to_engine_dict()["linear_bias"] is False


def test_a_preset_that_states_none_leaves_them_unstated() -> None:
    assert not set(STATED) & set(services.preset_fields("13b"))


def _sizing(workload: Workload) -> dict[str, Any]:
    facts = {**SELENE, "nodes": 64}
    return services.size_offering(workload=workload, facts=facts, objective="fastest")


def test_a_run_sizes_the_stated_fields_and_its_answer_echoes_them() -> None:
    owner = UserFactory()
    plain = _sizing(services.workload_create(owner=owner, **GPT_OSS_LIKE))
    stated = _sizing(services.workload_create(owner=owner, **GPT_OSS_LIKE, **STATED))
    echoed = stated["sizing"]["workload"]
    assert {k: echoed[k] for k in STATED} == STATED
    assert not set(STATED) & set(plain["sizing"]["workload"])
    assert stated["train_days"] > plain["train_days"]  # the eager passes take time


def test_the_service_refuses_out_of_range_values_naming_the_field() -> None:
    owner = UserFactory()
    refused = [
        ({"glu_clamp": 0}, "glu_clamp", CLAMP_RANGE),
        ({"glu_clamp": 20_000}, "glu_clamp", CLAMP_RANGE),
        ({"rope": "alibi"}, "rope", "must be rope or yarn, got 'alibi'"),  # the engine's refusal
    ]
    for fields, field, english in refused:
        with pytest.raises(ValidationError) as error:
            services.workload_create(owner=owner, preset="13b", **fields)
        assert english in error.value.message_dict[field][0], fields
    assert not Workload.objects.exists()


@pytest.mark.parametrize(("field", "value"), [("glu_clamp", 0), ("glu_clamp", 10_001), ("rope", "alibi")])
def test_the_database_refuses_a_value_outside_the_bounds(field: str, value: Any) -> None:
    workload = Workload(owner=UserFactory(), name="raw", layers=4, hidden=256, heads=4, **{field: value})
    with pytest.raises(IntegrityError), transaction.atomic():
        workload.save()


def test_the_form_draws_the_section_closed_and_in_the_page_language(buyer: Client) -> None:
    english = buyer.get("/plan/", **EN).content.decode()
    for text in ("Clamp of the gated activation", "Biases on the linear layers", "Rotary embeddings"):
        assert text in english, text
    assert '<details id="layer-detail-fields" >' in english  # nothing stated: closed
    chinese = buyer.get("/plan/", **ZH).content.decode()
    shown = ("激活截断、线性层偏置与旋转位置编码", "门控激活的截断值", "线性层带偏置")
    shown += ("旋转位置编码", "留空：取已公开模型的值，否则不截断", "YaRN（为长上下文拉伸）")
    assert [text for text in shown if text not in chinese] == []
    for text in ("Clamp of the gated activation", "Rotary embeddings", "else no clamp", "stretched"):
        assert text not in chinese, text


@pytest.mark.parametrize("value", ["0", "20000"])
def test_the_form_shows_the_clamps_range_on_the_field_in_both_languages(buyer: Client, value: str) -> None:
    response = plan_post(buyer, EN, glu_clamp=value)
    assert response.status_code == 200
    errors = response.context["form"].errors
    assert list(errors) == ["glu_clamp"] and CLAMP_RANGE in errors["glu_clamp"][0]
    assert 'id="layer-detail-fields" open' in response.content.decode()  # open on its error
    response = plan_post(buyer, ZH, glu_clamp=value)
    message = response.context["form"].errors["glu_clamp"][0]
    assert "门控激活的截断值" in message and "10,000" in message and "Clamp" not in message
    assert not Workload.objects.exists()


def test_the_form_stores_the_fields_and_the_list_shows_them(buyer: Client) -> None:
    OfferingFactory(slug="layer-0")  # a catalog to size on (the run stays queued: no worker in this test)
    response = plan_post(buyer, EN, glu_clamp="7", linear_bias="yes", rope="yarn")
    assert response.status_code == 302, response.context["form"].errors
    workload = Workload.objects.get()
    assert {k: getattr(workload, k) for k in STATED} == STATED
    page = buyer.get("/plan/workloads/", **EN).content.decode()
    facts = ("gated activation clamped at 7", "biases on the linear layers", "YaRN rotary embeddings")
    assert [fact for fact in facts if fact not in page] == []
    chinese = buyer.get("/plan/workloads/", **ZH).content.decode()
    assert "门控激活截断于 7" in chinese and "线性层带偏置" in chinese and "YaRN 旋转位置编码" in chinese


def test_the_form_left_as_it_is_states_nothing(buyer: Client) -> None:
    OfferingFactory(slug="layer-1")
    response = plan_post(buyer, EN)
    assert response.status_code == 302, response.context["form"].errors
    workload = Workload.objects.get()
    assert {k: getattr(workload, k) for k in UNSTATED} == UNSTATED


def test_the_form_can_state_no_biases_and_offers_an_unstated_choice(buyer: Client) -> None:
    OfferingFactory(slug="layer-2")
    assert "preset / published model / none" in buyer.get("/plan/", **EN).content.decode()
    assert "预设 / 已公开模型 / 无" in buyer.get("/plan/", **ZH).content.decode()
    response = plan_post(buyer, EN, linear_bias="no", rope="rope")
    assert response.status_code == 302, response.context["form"].errors
    workload = Workload.objects.get()
    assert (workload.linear_bias, workload.rope) == (False, "rope")


def test_the_api_takes_and_returns_the_fields() -> None:
    api = workload_api()
    response = api.post("/api/v1/workloads/", {"preset": "13b", **STATED}, format="json")
    assert response.status_code == 201, response.json()
    assert {k: response.json()[k] for k in STATED} == STATED
    listed = api.get("/api/v1/workloads/").json()[0]
    assert {k: listed[k] for k in STATED} == STATED
    # a workload that states none returns them null (not stated), beside every field it returned before
    plain = api.post("/api/v1/workloads/", {"preset": "13b"}, format="json").json()
    assert {k: plain[k] for k in UNSTATED} == UNSTATED
    explicit = api.post("/api/v1/workloads/", {"preset": "13b", **UNSTATED}, format="json")
    assert explicit.status_code == 201 and {k: explicit.json()[k] for k in UNSTATED} == UNSTATED
    assert {"id", "name", "preset", "head_dim", "sliding_window_layers", "deadline_default"} <= set(plain)


@pytest.mark.parametrize(
    ("body", "field", "text"),
    [
        ({"glu_clamp": 0}, "glu_clamp", CLAMP_RANGE),
        ({"glu_clamp": 1e6}, "glu_clamp", CLAMP_RANGE),
        ({"glu_clamp": True}, "glu_clamp", "number"),
        ({"rope": "alibi"}, "rope", "alibi"),
        ({"linear_bias": "maybe"}, "linear_bias", "boolean"),
    ],
)
def test_the_api_answers_400_naming_the_field(body: dict[str, Any], field: str, text: str) -> None:
    response = workload_api().post("/api/v1/workloads/", {"preset": "13b", **body}, format="json")
    assert response.status_code == 400
    answer = response.json()
    assert answer["message"].startswith(f"{field}: ") and text in answer["message"]
    assert not Workload.objects.exists()


BEFORE = [("sizing", "0003_planrun_error_message")]
ADDED = [("sizing", "0004_workload_glu_clamp_linear_bias_rope")]
AFTER = [("sizing", "0005_workload_layer_details_unstated")]


def _migrate_to_latest() -> None:
    """Every app at its newest migration, as the other tests expect the schema (a later sizing migration
    included: the test above would otherwise leave it unapplied)."""
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())


def _migrate(target: list[tuple[str, str]]) -> Any:
    """The database migrated to `target`; the Workload model as it was there."""
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(target)
    return executor.loader.project_state(target).apps.get_model("sizing", "Workload")


def _details(model: Any, pk: int) -> tuple[Any, Any]:
    row = model.objects.get(pk=pk)
    return row.linear_bias, row.rope


@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_the_migrations_leave_stored_workloads_unstated_keep_stated_ones_and_hold_the_bounds() -> None:
    owner = UserFactory(username="before-layer-details")
    old = _migrate(BEFORE)
    assert "glu_clamp" not in {f.name for f in old._meta.get_fields()}
    stored = old.objects.create(owner_id=owner.pk, name="stored", layers=4, hidden=256, heads=4)
    added = _migrate(ADDED)
    assert _details(added, stored.pk) == (False, "rope")
    gpt = added.objects.create(owner_id=owner.pk, name="gpt", layers=4, hidden=256, heads=4, **STATED)
    _migrate(AFTER)
    _migrate_to_latest()  # the Workload model below has every later column (the optimizer, 0008)
    workload = Workload.objects.get(pk=stored.pk)
    assert {k: getattr(workload, k) for k in UNSTATED} == UNSTATED  # the old defaults meant "not stated"
    assert not set(STATED) & set(workload.to_engine_dict())  # the engine gets what it got before
    assert {k: getattr(Workload.objects.get(pk=gpt.pk), k) for k in STATED} == STATED
    workload.glu_clamp = 0
    with pytest.raises(IntegrityError), transaction.atomic():
        workload.save(update_fields=["glu_clamp"])
    Workload.objects.filter(pk=workload.pk).update(glu_clamp=None)
    with pytest.raises(IntegrityError), transaction.atomic():
        Workload.objects.filter(pk=workload.pk).update(rope="alibi")
    back = _migrate(ADDED)  # reversible: "not stated" is the old defaults again
    assert _details(back, stored.pk) == (False, "rope")
    _migrate_to_latest()
