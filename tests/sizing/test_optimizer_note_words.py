"""The optimizer-state convention an answer assumes reads in words on the pages, in both languages (the engine
quotes its code, 'megatron-bf16-grads', and keeps it: the CLI and the API), each convention as
sizing/engine/constants.py describes it."""

from __future__ import annotations

import gettext as gettext_module
import html
import re
from typing import Any

import pytest
from django.utils import translation

from portal.i18n import translated
from sizing import services
from sizing.engine.calibration import SELENE
from sizing.engine.constants import OPTIMIZER_BYTES
from sizing.engine.hardware import hardware_from_facts
from sizing.engine.overlap import default_optimizer, optimizer_note
from sizing.engine_words import PAGE_VALUES, page_worded
from tests.providers.factories import UserFactory
from tests.sizing.test_engine_words import CODE
from tests.sizing.test_input_error_messages import MO
from tests.sizing.test_planner_answers import offering, run_all


def test_every_convention_has_words_in_both_languages() -> None:
    catalog = gettext_module.GNUTranslations(MO.open("rb"))
    assert set(PAGE_VALUES["convention"]) == set(OPTIMIZER_BYTES)
    for words in PAGE_VALUES["convention"].values():
        assert not CODE.search(words) and catalog.gettext(words) != words, words


@pytest.mark.parametrize(
    ("gpu", "convention", "en", "zh"),
    [
        (
            "A100-SXM-80GB",
            "megatron",
            "(Megatron's convention: bf16 weights, fp32 main gradients",
            "（Megatron 的约定",
        ),
        (
            "H100-SXM-80GB",
            "megatron-bf16-grads",
            "(Megatron's convention with a bf16 gradient buffer",
            "bf16 梯度缓冲区",
        ),
    ],
)
def test_the_default_conventions_note_names_no_code_on_a_page(
    gpu: str, convention: str, en: str, zh: str
) -> None:
    hw = hardware_from_facts({**SELENE, "gpu": gpu})
    assert default_optimizer(hw) == convention
    note = optimizer_note(hw)
    assert f"'{convention}'" in note  # the engine's English, as the CLI and the API print it
    worded = page_worded(note.as_json())
    with translation.override("en"):
        english = translated(worded, "")
    with translation.override("zh-hans"):
        chinese = translated(worded, "")
    assert en in english and not CODE.search(english), english
    assert zh in chinese and not CODE.search(chinese) and "'" not in chinese, chinese


@pytest.mark.django_db
def test_the_result_page_words_the_convention(client: Any, django_capture_on_commit_callbacks: Any) -> None:
    user: Any = UserFactory()
    offering("h100")
    wl = services.workload_create(owner=user, preset="13b")
    run = run_all(django_capture_on_commit_callbacks, owner=user, workload=wl)
    stored = " ".join(run.results.get().sizing["assumptions"])
    assert "optimizer '" in stored  # the engine's English, stored with its code
    client.force_login(user)
    for language, words in (
        ("en", "Megatron's convention"),
        ("zh-hans", "Megatron 使用 bf16 梯度缓冲区的约定"),
    ):
        client.cookies["django_language"] = language
        text = html.unescape(re.sub(r"<[^>]*>", " ", client.get(f"/plan/{run.pk}/h100/").content.decode()))
        assert words in text and not CODE.search(text), (language, CODE.search(text))
