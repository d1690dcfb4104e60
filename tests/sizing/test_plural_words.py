"""Counts in words, never "node(s)" / "GPU(s)": the engine's, the bill's and the pitfall rules' sentences take
the singular for one and the plural otherwise in English (hardware.messages.ngettext), and a page shows
its language's form by the count stored beside the two message ids (portal.i18n)."""

from __future__ import annotations

import pickle
from typing import Any

import pytest
from django.utils import translation

from hardware.messages import Msg, Plural, ngettext
from portal.i18n import translated
from sizing.bill import spare_nodes
from sizing.engine import api, explain
from sizing.engine.calibration import SELENE
from sizing.engine.hardware import hardware_from_facts
from sizing.engine.search import search
from tests.checks.helpers import ev, good_offering, rules_for


def test_a_plural_message_is_english_by_its_count_and_keeps_both_ids() -> None:
    one = ngettext("%(n)s spare node", "%(n)s spare nodes", 1, n=1)
    three = ngettext("%(n)s spare node", "%(n)s spare nodes", 3, n=3)
    assert (str(one), str(three)) == ("1 spare node", "3 spare nodes")
    assert three.as_json() == {
        "msgid": "%(n)s spare node",
        "params": {"n": "3"},
        "plural": "%(n)s spare nodes",
        "count": 3,
    }
    again = Msg.from_json(three.as_json())
    assert isinstance(again, Plural) and str(again) == "3 spare nodes" and again.number == 3
    unpickled = pickle.loads(pickle.dumps(three))
    assert unpickled == three and unpickled.plural == three.plural and unpickled.number == 3


@pytest.mark.parametrize(
    ("count", "en", "zh"),
    [
        (1, "1 node added to reach the plan's minimum of 4", "为达到方案最少 4 个节点而增加 1 个节点"),
        (2, "2 nodes added to reach the plan's minimum of 4", "为达到方案最少 4 个节点而增加 2 个节点"),
    ],
)
def test_a_page_shows_the_form_of_its_language(count: int, en: str, zh: str) -> None:
    message = ngettext(
        "%(extra)s node added to reach the plan's minimum of %(min)s",
        "%(extra)s nodes added to reach the plan's minimum of %(min)s",
        count,
        extra=count,
        min=4,
    ).as_json()
    with translation.override("en"):
        assert translated(message, "") == en
    with translation.override("zh-hans"):
        assert translated(message, "") == zh


@pytest.mark.parametrize(("nodes", "spares"), [(20, 1), (100, 5)])
def test_the_bills_spare_nodes_are_counted_in_words(nodes: int, spares: int) -> None:
    count, note = spare_nodes({"usable_gpu_guarantee_pct": 95.0}, nodes)
    assert count == spares
    word = "node" if spares == 1 else "nodes"
    assert str(note).endswith(f"= {spares} spare {word}") and "(s)" not in note, note


# DGX A100 nodes in a cluster of 140: the fastest 13B job takes 128 of them and holds spares beside them
SELENE_140 = {**SELENE, "name": "A100 IB", "nodes": 140}


def _goodput(spares: int) -> dict[str, Any]:
    return {"spare_nodes": spares, "repair_min": 240.0, "expected_failures": 12.0, "repair_wait_min": 0.5}


@pytest.mark.parametrize("spares", [1, 3])
def test_the_engines_spare_node_sentences_are_counted_in_words(spares: int) -> None:
    word = "node" if spares == 1 else "nodes"
    [why] = explain._spares({"goodput": _goodput(spares), "nodes": 64})
    assert str(why).startswith(f"{spares} spare {word} held and billed beside the 64 job nodes"), why
    hardware = hardware_from_facts(SELENE_140)
    faults = api.faults_for(hardware)
    story = api._restart_story(_goodput(spares), faults)
    held = "on the spare node held" if spares == 1 else f"on one of {spares} spare nodes held"
    assert held in story and "(s)" not in story, story
    [note] = api._spares_note(_goodput(spares), faults, hardware)
    verb = "is held" if spares == 1 else "are held"
    assert note.startswith(f"{spares} spare {word} ({spares * 8} GPUs) {verb} and billed"), note


def test_the_engines_answer_has_no_count_written_with_s_in_brackets() -> None:
    result = search("13b", {**SELENE_140, "failure_rate_per_gpu_hour": 1e-4}, objective="fastest", top=1)
    assert result["goodput"]["spare_nodes"] == 3  # the case: the answer holds spare nodes
    sentences = [*result["explanation"], *result["assumptions"], result["goodput"]["restart"]]
    assert not [s for s in sentences if "(s)" in s]


@pytest.mark.parametrize(("gpus", "words"), [(7, "1 GPU short on 1 node."), (6, "2 GPUs short on 1 node.")])
def test_the_pitfall_counts_missing_gpus_in_words(gpus: int, words: str) -> None:
    item = ev("nvidia-smi", {"gpus": gpus, "gpu_models": ["NVIDIA H100 80GB HBM3"], "lines": [9, 12]})
    [found] = rules_for("usable-gpus-short", good_offering(), evidence=[item])
    assert found.impact["text"] == words
    [impact] = found.messages()["impact"]
    with translation.override("zh-hans"):
        assert translated(impact, "") == f"1 个节点上缺少 {8 - gpus} 个 GPU。"
