"""The runner-up sentence names what it changes in words on every page, in both languages: each layout key
(sizing.engine.layout.LAYOUT_KEYS) with each value a layout can hold, never the key a layout file types
("'moe_dispatcher=deepep'")."""

from __future__ import annotations

import dataclasses
import re
from typing import Any

import pytest
from django.utils import translation

from hardware.messages import Msg
from portal.i18n import shown
from sizing.engine import checkpointing as CK
from sizing.engine.explain import setting_text
from sizing.engine.layout import CP_COMM_TYPES, LAYOUT_KEYS, Layout
from sizing.engine.loss import CROSS_ENTROPY_IMPLS
from sizing.engine.overlap import MOE_DISPATCHERS
from sizing.engine.pipeline import PIPELINE_ENGINES
from sizing.engine.search import _why_not
from sizing.engine.zero import ZERO3_GATHERS
from tests.sizing.test_engine_words import CODE

# The values each key that is not a plain on/off flag can hold (None: unset, the framework's default).
CHOICES: dict[str, tuple[Any, ...]] = {
    "tp": (4,),
    "pp": (8,),
    "dp": (16,),
    "cp": (2,),
    "ep": (8,),
    "etp": (1,),
    "zero": (0, 3),
    "micro_batch": (2,),
    "virtual_stages": (4,),
    "recompute": ("full", "selective", "none"),
    "pipeline_engine": PIPELINE_ENGINES,
    "zero3_gather": (*ZERO3_GATHERS, None),
    "moe_dispatcher": (*MOE_DISPATCHERS, None),
    "cp_comm_type": (*CP_COMM_TYPES, None),
    "first_stage_layers": (7, None),
    "last_stage_layers": (7, None),
    "recompute_modules": ([CK.CORE_ATTN, CK.MOE_ACT], list(CK.MODULES), [], None),
    "pipeline_schedules": (4, None),
    "cross_entropy": (*CROSS_ENTROPY_IMPLS, None),
}


def _values(key: str) -> tuple[Any, ...]:
    if key in CHOICES:
        return CHOICES[key]
    kind = str(next(f.type for f in dataclasses.fields(Layout) if f.name == key))
    assert kind.startswith("bool"), f"{key} ({kind}) needs its values in CHOICES"
    return (True, False, None) if "None" in kind else (True, False)


SETTINGS = [(key, value) for key in LAYOUT_KEYS for value in _values(key)]


def _names_a_key(text: str) -> bool:
    """A layout key with an underscore, or anything quoted as Python quotes a code ('moe_dispatcher=x')."""
    keys = any(re.search(rf"\b{key}\b", text) for key in LAYOUT_KEYS if "_" in key)
    return keys or bool(re.search(r"'[a-z0-9_=.-]+'", text))


@pytest.mark.parametrize(("key", "value"), SETTINGS)
def test_every_layout_setting_is_named_in_words_in_both_languages(key: str, value: Any) -> None:
    words = setting_text(key, value)
    assert not _names_a_key(words) and not CODE.search(words), words
    with translation.override("zh-hans"):
        chinese = shown(words)
    assert not _names_a_key(chinese) and not CODE.search(chinese), chinese
    if isinstance(words, Msg) and re.search("[a-z]{3}", str(words)):  # a sentence, not "TP=4"
        assert chinese != str(words) or words == "the MLP", words


def test_a_runner_up_that_changes_the_dispatcher_says_so_in_words() -> None:
    best = {"layout": {"tp": 1, "moe_dispatcher": "alltoall"}, "train_days": 10.0, "mfu": 0.4, "gpus": 64}
    runner_up = {**best, "layout": {"tp": 1, "moe_dispatcher": "deepep"}, "train_days": 12.0}
    text = _why_not("fastest", None, best, [runner_up])
    assert str(text).startswith("Runner-up (the DeepEP token dispatcher, 64 GPUs): 12.00 days"), text
    with translation.override("zh-hans"):
        chinese = shown(text)
    assert chinese.startswith("次优方案（DeepEP token 分发器，64 个 GPU）"), chinese
    assert chinese.endswith("MFU 40.0%。它多用 20.0% 的时间。") and "moe_dispatcher" not in chinese, chinese
