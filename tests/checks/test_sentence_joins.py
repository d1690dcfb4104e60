"""A finding's impact made of two sentences reads as the page's language writes sentences in a row: a space
after the full stop in English, none after "。" in Chinese (hardware.messages.sentences)."""

from __future__ import annotations

from typing import Any

import pytest
from django.utils import translation

from checks.rules import run_rules
from hardware.messages import _, sentences
from portal.i18n import translated, translated_sentences
from tests.checks.helpers import WORKLOAD_175B, ev, find, good_offering, nccl_run, sizing_result


def test_sentences_in_a_row_have_a_space_in_english_and_none_after_a_chinese_full_stop() -> None:
    upper = _("Upper bound assumes all inter-node traffic crosses it.")
    both = sentences(upper, "", _("not shown in this file."))
    assert both == "Upper bound assumes all inter-node traffic crosses it. not shown in this file."
    with translation.override("zh-hans"):
        shown = translated(both.as_json(), "")
    assert shown and "。" in shown and "。 " not in shown, shown
    assert sentences() == "" and sentences(_("not shown in this file.")) == "not shown in this file."


def _impact(code: str, offering: dict[str, Any], **kwargs: Any) -> tuple[str, str]:
    found = find(run_rules(offering, codes=[code], **kwargs), code)
    assert found is not None
    with translation.override("zh-hans"):
        chinese = translated_sentences(found.messages().get("impact"), "")
    return found.impact["text"], chinese


@pytest.mark.parametrize(
    ("code", "offering", "kwargs", "second"),
    [
        (
            "intra-node-not-full-mesh",
            good_offering(intra_node="pcie"),
            {"workload": WORKLOAD_175B, "sizing": sizing_result()},
            "TP traffic is",
        ),
        (
            "fabric-too-slow",
            good_offering(nics_per_node=4, gbps_per_nic=200.0),
            {"sizing": sizing_result(iteration_breakdown_s={"compute": 5.0, "dp_comm": 4.0, "pp_comm": 1.0})},
            "At 400 Gb/s per GPU",
        ),
        (
            "topology-wont-scale",
            good_offering(oversubscription=3.0),
            {"sizing": sizing_result()},
            "Upper bound assumes",
        ),
        (
            "fabric-not-rdma",
            good_offering(),
            {
                "evidence": [ev("nccl-tests", {"runs": [nccl_run(busbw=120.0)]}, "allreduce-2n.log")],
                "sizing": sizing_result(),
            },
            "If inter-node traffic is exposed",
        ),
    ],
)
def test_a_two_sentence_impact_has_no_space_after_a_chinese_full_stop(
    code: str, offering: dict[str, Any], kwargs: dict[str, Any], second: str
) -> None:
    english, chinese = _impact(code, offering, **kwargs)
    assert f". {second}" in english, english
    assert chinese and "。" in chinese and "。 " not in chinese, chinese
