"""What an empty head or layer-detail field means, as the planner form and the API's schema say it: a
published model's value where the shape is one (the facts sizing/engine/architectures.py fills), the
engine's default otherwise; multi-token prediction, a run's choice, stays "none"."""

from __future__ import annotations

from typing import Any

import pytest
from django import forms
from django.test import Client
from django.utils import translation

from sizing.engine.architectures import FACT_KEYS, architecture, shape_of
from sizing.engine.workload import workload_from_dict
from sizing.forms import PlanForm
from sizing.models import HEAD_FIELDS, LAYER_DETAIL_FIELDS, Workload
from tests.sizing.conftest import EN, ZH

pytestmark = pytest.mark.django_db

FIELDS = (*HEAD_FIELDS, *LAYER_DETAIL_FIELDS)


def _empty_meaning(field: forms.Field) -> str:
    """A form field's hint and, for a choice, the label of its empty choice: where the form says what empty
    means."""
    empty = [str(label) for value, label in getattr(field, "choices", []) if value == ""]
    return " ".join([str(field.help_text), *empty])


def test_each_field_a_published_shape_fills_says_so_and_no_other_does() -> None:
    with translation.override("en"):
        form = PlanForm()
    says = {name for name in FIELDS if "published model" in _empty_meaning(form.fields[name])}
    assert says == set(FIELDS) & set(FACT_KEYS)
    assert "mtp_layers" not in says and "; empty: none;" in str(form.fields["mtp_layers"].help_text)
    schema = {name for name in FIELDS if "published model" in str(Workload._meta.get_field(name).help_text)}
    assert schema == says  # the model's help text, which the API's schema shows


def test_the_chinese_form_says_it_in_chinese(buyer: Client) -> None:
    chinese = buyer.get("/plan/", **ZH).content.decode()
    shown = (
        "留空：形状与已公开模型一致时取该模型的值，否则为隐藏层维度 ÷ 注意力头数",
        "留空：两个宽度都留空时取已公开模型的值，否则等于注意力头宽度",
        "留空：取已公开模型的值，否则为整个序列",
        "留空：窗口也留空时取已公开模型的占比，否则为全部层",
        "留空：取已公开模型的值，否则不截断",
        "预设 / 已公开模型 / 无",
        "预设 / 已公开模型 / 标准",
        "留空：无",  # multi-token prediction
    )
    assert [text for text in shown if text not in chinese] == []
    assert "published model" not in chinese
    english = buyer.get("/plan/", **EN).content.decode()
    assert (
        "empty: the published model&#x27;s value when the shape is one, else hidden size ÷ heads" in english
    )


def _gpt_oss_20b(**stated: Any) -> Any:
    return workload_from_dict({**shape_of(architecture("gpt-oss-20b")), "seq_len": 4096, **stated})


def test_the_paired_hints_are_true_a_stated_half_keeps_the_engines_default_for_the_other() -> None:
    # "the published model's share when the window is empty too, else all of them"
    assert (_gpt_oss_20b().sliding_window, _gpt_oss_20b().sliding_window_layers) == (128, 0.5)
    assert _gpt_oss_20b(sliding_window=256).sliding_window_layers == 1.0
    # "the published model's value when both widths are empty, else the head width"
    deepseek = {**shape_of(architecture("DeepSeek-V3")), "seq_len": 4096}
    assert workload_from_dict(deepseek).v_head_dim == 128
    assert workload_from_dict({**deepseek, "qk_head_dim": 160}).v_head_dim is None  # the head width
