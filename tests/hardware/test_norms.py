"""Unpublished facts take the value typical for the offering's class, say so, and carry a pessimistic
value."""

from __future__ import annotations

from typing import Any

import pytest

from hardware.norms import NORMS, norm_for, offering_class
from sizing.engine import search
from sizing.engine.hardware import hardware_from_facts
from sizing.engine.unpublished import FILLED_FACTS, complete_facts, pessimistic_facts


def _assumed(facts: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {a.fact: a.as_dict() for a in complete_facts(facts)[1]}


def test_every_row_has_a_basis_and_every_needed_fact_a_row_for_any_offering() -> None:
    assert all(norm.basis and norm.typical is not None for norm in NORMS)
    anything = offering_class({"gpu": "H100-SXM-80GB"})
    for fact in FILLED_FACTS:
        if fact != "nvlink_domain_gpus":  # only NVL72 and CloudMatrix have a domain beyond the node
            assert norm_for(fact, anything) is not None, fact


def test_an_infiniband_hgx_h100_cloud_without_a_nic_count_gets_one_400g_nic_per_gpu() -> None:
    # The class norm of issue 16: never the old worst case of one 100 Gb/s NIC per node.
    assumed = _assumed({"gpu": "H100-SXM-80GB", "gpus_per_node": 8, "fabric": "infiniband"})
    assert assumed["nics_per_node"]["assumed"] == 8 and assumed["gbps_per_nic"]["assumed"] == 400
    assert assumed["nics_per_node"]["pessimistic"] == 4 and assumed["gbps_per_nic"]["pessimistic"] == 200
    assert "fabric" not in assumed  # published


def test_published_values_are_never_replaced_even_when_false_or_worse_than_the_norm() -> None:
    facts = {"gpu": "H100-SXM-80GB", "fabric": "ethernet", "nics_per_node": 1, "gbps_per_nic": 100}
    facts |= {"auto_bad_node_detection": False, "oversubscription": 3.0}
    filled, assumed = complete_facts(facts)
    assert {k: filled[k] for k in facts} == facts
    assert not {"fabric", "nics_per_node", "gbps_per_nic", "auto_bad_node_detection"} & {
        a.fact for a in assumed
    }


@pytest.mark.parametrize(
    ("label", "key", "several"),
    [
        ("NVIDIA GB200", "GB200-186GB", False),
        (
            "Huawei Ascend NPU (910C per common reporting -- not verified in stored sources)",
            "Ascend-910C-128GB",
            False,
        ),
        ("NVIDIA H100 SXM / B200", "H100-SXM-80GB", True),
        ("AMD MI355X", "MI355X-288GB", False),
    ],
)
def test_a_gpu_named_only_in_the_published_label_is_read_from_it(label: str, key: str, several: bool) -> None:
    gpu = _assumed({"gpu": None, "gpu_label": label})["gpu"]
    assert gpu["assumed"] == key and label in gpu["basis"]
    assert ("several GPU models" in gpu["basis"]) is several


def test_the_nvl72_class_has_4_gpu_trays_in_a_72_gpu_domain() -> None:
    assumed = _assumed({"gpu_label": "NVIDIA GB200", "fabric": "infiniband"})
    assert assumed["gpus_per_node"]["assumed"] == 4 and assumed["nvlink_domain_gpus"]["assumed"] == 72
    assert assumed["nics_per_node"]["assumed"] == 4  # one 400G NIC per GPU on the tray


def test_a_china_market_cloud_without_a_gpu_is_sized_on_h800_with_h20_as_the_pessimistic_case() -> None:
    assumed = _assumed({"provider_kind": "hyperscaler-cn", "fabric": "roce"})
    assert assumed["gpu"]["assumed"] == "H800-SXM-80GB" and assumed["gpu"]["pessimistic"] == "H20-96GB"


def test_the_pessimistic_facts_are_slower_and_the_answer_says_what_was_assumed() -> None:
    facts = {"name": "x", "gpu": "H100-SXM-80GB"}
    typical = search("gpt3-175b", facts, gpus=1024)
    hw = hardware_from_facts(facts)
    worse = pessimistic_facts(hw.facts, hw.assumed)
    assert worse is not None and worse["fabric"] == "ethernet" and worse["max_nodes"] == 128
    pessimistic = search("gpt3-175b", worse, gpus=1024)
    assert pessimistic["iteration_time_s"] > typical["iteration_time_s"]
    assert {a["fact"] for a in typical["assumed_facts"]} >= {"fabric", "nics_per_node", "max_nodes"}
    assert not any("conservative case" in a for a in typical["assumptions"])


def test_an_assumed_domain_off_nvidia_is_named_a_scale_up_domain() -> None:
    """CloudMatrix384's domain is a UB domain of Ascend NPUs: the assumption does not call it NVLink."""
    from sizing.engine.unpublished import assumption_text

    hw = hardware_from_facts({"name": "x", "gpu": "Ascend-910C-128GB"})
    (domain,) = [a for a in hw.assumed if a.fact == "nvlink_domain_gpus"]
    text = str(assumption_text(domain, "huawei"))
    assert text.startswith("scale-up domain not published: 384 assumed") and "NVLink domain" not in text
    assert str(assumption_text(domain, "nvidia")).startswith("NVLink domain not published")
