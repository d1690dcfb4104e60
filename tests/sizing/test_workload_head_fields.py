"""A stored workload's head widths, multi-token prediction and sliding window: stored, sent to the engine
(over a preset's own values), refused on the form and the API when out of range or inconsistent, shown."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.exceptions import ValidationError
from django.test import Client

from sizing import services
from sizing.engine.calibration import SELENE
from sizing.engine.workload import PRESETS, workload_from_dict
from sizing.models import Workload
from tests.providers.factories import OfferingFactory, UserFactory
from tests.sizing.conftest import EN, ZH, plan_post, workload_api

pytestmark = pytest.mark.django_db

# a gpt-oss-like dense shape at a 4k context, custom (no preset)
CUSTOM = {"layers": 24, "hidden": 2880, "heads": 64, "kv_heads": 8, "seq_len": 4096, "activation": "swiglu"}
STATED = {
    "head_dim": 64,
    "qk_head_dim": 96,
    "v_head_dim": 80,
    "mtp_layers": 2,
    "sliding_window": 128,
    "sliding_window_layers": 0.5,
}


def test_stated_fields_are_stored_and_parsed_by_the_engine_as_given() -> None:
    created = services.workload_create(owner=UserFactory(), name="oss-like", **CUSTOM, **STATED)
    workload = Workload.objects.get(pk=created.pk)
    engine_dict = workload.to_engine_dict()
    assert {k: engine_dict[k] for k in STATED} == STATED
    parsed = workload_from_dict(engine_dict)
    assert (parsed.head_dim, parsed.qk_head_dim, parsed.v_head_dim) == (64, 96, 80)
    assert (parsed.mtp_layers, parsed.sliding_window, parsed.sliding_window_layers) == (2, 128, 0.5)


def test_fields_left_blank_are_not_sent() -> None:
    workload = services.workload_create(owner=UserFactory(), **CUSTOM)
    assert not set(STATED) & set(workload.to_engine_dict())
    parsed = workload_from_dict(workload.to_engine_dict())
    assert (parsed.mtp_layers, parsed.sliding_window, parsed.qk_head_dim) == (0, None, None)


def test_a_stated_value_wins_over_the_presets_and_blank_ones_take_the_presets() -> None:
    owner = UserFactory()
    preset = PRESETS["deepseek-v3-671b"]
    plain = services.workload_create(owner=owner, preset="deepseek-v3-671b").to_engine_dict()
    assert (plain["mtp_layers"], plain["qk_head_dim"], plain["v_head_dim"]) == (1, 192, 128)
    stated = services.workload_create(
        owner=owner, preset="deepseek-v3-671b", mtp_layers=0, v_head_dim=64
    ).to_engine_dict()
    assert (stated["mtp_layers"], stated["v_head_dim"]) == (0, 64)  # stated, over the preset's 1 and 128
    assert stated["qk_head_dim"] == preset.qk_head_dim  # left blank: the preset's
    assert workload_from_dict(stated).mtp_layers == 0
    # another architecture is not the preset's model: its facts no longer apply, the stated ones do
    other = services.workload_create(
        owner=owner, preset="deepseek-v3-671b", layers=30, mtp_layers=2
    ).to_engine_dict()
    assert other["mtp_layers"] == 2 and "qk_head_dim" not in other and "v_head_dim" not in other


@pytest.mark.parametrize(
    ("fields", "field", "english"),
    [
        ({"sliding_window_layers": 0.5}, "sliding_window_layers", "is given without a sliding window"),
        ({"sliding_window": 8192}, "sliding_window", "must be at most the sequence length 4,096, got 8,192"),
        ({"mtp_layers": 9}, "mtp_layers", "Multi-token prediction modules must be between 0 and 8"),
        ({"qk_head_dim": 2048}, "qk_head_dim", "Query/key head width must be between 1 and 1,024"),
    ],
)
def test_the_service_refuses_inconsistent_or_out_of_range_values_naming_the_field(
    fields: dict[str, Any], field: str, english: str
) -> None:
    with pytest.raises(ValidationError) as error:
        services.workload_create(owner=UserFactory(), preset="13b", **fields)
    assert english in error.value.message_dict[field][0]
    assert not Workload.objects.exists()


def test_the_database_refuses_a_value_outside_the_bounds() -> None:
    from django.db import IntegrityError, transaction

    workload = Workload(
        owner=UserFactory(), name="raw", layers=4, hidden=256, heads=4, sliding_window_layers=1.5
    )
    with pytest.raises(IntegrityError), transaction.atomic():
        workload.save()


@pytest.mark.parametrize(
    ("fields", "field", "english", "chinese"),
    [
        (
            {"mtp_layers": 9},
            "mtp_layers",
            "Multi-token prediction modules must be between 0 and 8",
            "多 token",
        ),
        ({"sliding_window_layers": 0}, "sliding_window_layers", "Layers with the window must be", "使用窗口"),
        (
            {"sliding_window_layers": 0.5},
            "sliding_window_layers",
            "is given without a sliding window",
            "需要同时给出",
        ),
        (
            {"sliding_window": 8192},
            "sliding_window",
            "at most the sequence length 4,096",
            "不得超过序列长度 4,096",
        ),
    ],
)
def test_the_form_shows_the_error_on_the_field_in_english_and_chinese(
    buyer: Client, fields: dict[str, Any], field: str, english: str, chinese: str
) -> None:
    response = plan_post(buyer, EN, **fields)
    assert response.status_code == 200
    errors = response.context["form"].errors
    assert list(errors) == [field] and english in errors[field][0]
    assert 'id="head-fields" open' in response.content.decode()  # the section is open on its error
    response = plan_post(buyer, ZH, **fields)
    assert response.status_code == 200
    message = response.context["form"].errors[field][0]
    assert chinese in message and english not in message
    assert not Workload.objects.exists()


def test_the_form_draws_the_section_closed_and_in_the_page_language(buyer: Client) -> None:
    english = buyer.get("/plan/", **EN).content.decode()
    assert (
        "Attention and prediction heads (optional)" in english and "Multi-token prediction modules" in english
    )
    assert '<details id="head-fields" >' in english  # nothing stated: closed
    chinese = buyer.get("/plan/", **ZH).content.decode()
    for label in ("注意力与预测头", "注意力头宽度", "查询/键头宽度", "预测模块数", "使用窗口的层占比"):
        assert label in chinese, label
    assert "Sliding window" not in chinese and "empty: the whole sequence" not in chinese


def test_the_form_stores_the_fields_and_the_list_shows_them(buyer: Client) -> None:
    OfferingFactory(slug="head-0")  # a catalog to size on (the run stays queued: no worker in this test)
    response = plan_post(buyer, EN, **STATED)
    assert response.status_code == 302, response.context["form"].errors
    workload = Workload.objects.get()
    assert {k: getattr(workload, k) for k in STATED} == STATED
    page = buyer.get("/plan/workloads/", **EN).content.decode()
    facts = (
        "head width 64",
        "query/key heads 96 wide",
        "value heads 80 wide",
        "2 multi-token prediction modules",
        "sliding window of 128 tokens on 50% of the layers",
    )
    assert [fact for fact in facts if fact not in page] == []
    chinese = buyer.get("/plan/workloads/", **ZH).content.decode()
    assert "2 个多 token 预测模块" in chinese and "50% 的层使用 128 个 token 的滑动窗口" in chinese


def test_the_api_takes_and_returns_the_fields() -> None:
    api = workload_api()
    response = api.post("/api/v1/workloads/", {"name": "oss-like", **CUSTOM, **STATED}, format="json")
    assert response.status_code == 201, response.json()
    assert {k: response.json()[k] for k in STATED} == STATED
    listed = api.get("/api/v1/workloads/").json()[0]
    assert {k: listed[k] for k in STATED} == STATED
    # a workload that states none returns them as null, beside every field it returned before
    plain = api.post("/api/v1/workloads/", {"preset": "13b"}, format="json").json()
    assert {k: plain[k] for k in STATED} == dict.fromkeys(STATED)
    assert {"id", "name", "preset", "layers", "moe_dense_layers", "deadline_default", "created_at"} <= set(
        plain
    )


@pytest.mark.parametrize(
    ("body", "field", "text"),
    [
        ({"sliding_window": 8192}, "sliding_window", "must be at most the sequence length 4,096, got 8,192"),
        ({"sliding_window_layers": 0.25}, "sliding_window_layers", "is given without a sliding window"),
        ({"mtp_layers": -1}, "mtp_layers", "between 0 and 8"),
        ({"head_dim": 1025}, "head_dim", "Head width must be between 1 and 1,024"),
    ],
)
def test_the_api_answers_400_naming_the_field(body: dict[str, Any], field: str, text: str) -> None:
    response = workload_api().post("/api/v1/workloads/", {"preset": "13b", **body}, format="json")
    assert response.status_code == 400
    answer = response.json()
    assert answer["message"].startswith(f"{field}: ") and text in answer["message"]
    assert text in answer["extra"]["fields"][field][0]
    assert not Workload.objects.exists()


def _train_days(workload: Workload) -> float:
    facts = {**SELENE, "nodes": 64}
    return float(services.size_offering(workload=workload, facts=facts, objective="fastest")["train_days"])


def test_a_run_sizes_the_stated_fields() -> None:
    owner = UserFactory()
    plain = services.workload_create(owner=owner, preset="13b")
    with_mtp = services.workload_create(owner=owner, preset="13b", mtp_layers=1)
    assert _train_days(with_mtp) > _train_days(plain) * 1.01  # one more layer and output pass per token
    # a 128-token window on every layer of a 4k context: far less attention work than full attention
    windowed = services.workload_create(owner=owner, preset="13b", sliding_window=128)
    assert _train_days(windowed) < _train_days(plain)


# Qwen3-30B-A3B's shape (Megatron-Bridge Qwen3MoEModelProvider30B_A3B), custom: no preset names it
QWEN3_30B = {
    "layers": 48,
    "hidden": 2048,
    "heads": 32,
    "kv_heads": 4,
    "ffn_hidden": 6144,
    "vocab": 151936,
    "seq_len": 4096,
    "activation": "swiglu",
    "moe_experts": 128,
    "moe_top_k": 8,
    "moe_expert_ffn_hidden": 768,
    "moe_shared_experts": 0,
    "moe_dense_layers": 0,
}


def test_a_published_models_shape_left_blank_takes_its_values_and_the_answer_lists_them() -> None:
    owner = UserFactory()
    blank = services.workload_create(owner=owner, name="qwen3-30b", **QWEN3_30B)
    assert "head_dim" not in blank.to_engine_dict()  # nothing stated is sent
    answer = services.size_offering(workload=blank, facts={**SELENE, "nodes": 4}, objective="fastest")
    assert answer["sizing"]["workload"]["head_dim"] == 128  # 32 heads of 128, not 2,048 / 32 = 64
    assert any("Qwen3-30B-A3B's" in str(a) for a in answer["sizing"]["assumptions"])
    # the buyer's own value wins, and then nothing is taken
    stated = services.workload_create(owner=owner, name="qwen3-30b-64", head_dim=64, **QWEN3_30B)
    answer = services.size_offering(workload=stated, facts={**SELENE, "nodes": 4}, objective="fastest")
    assert answer["sizing"]["workload"]["head_dim"] == 64
    assert not any("Qwen3-30B-A3B's" in str(a) for a in answer["sizing"]["assumptions"])


def test_the_form_says_a_published_shape_takes_its_values(buyer: Client) -> None:
    english = buyer.get("/plan/", **EN).content.decode()
    assert english.count("takes that model's published values") == 2
    chinese = buyer.get("/plan/", **ZH).content.decode()
    assert chinese.count("则采用该模型公开的取值") == 2
