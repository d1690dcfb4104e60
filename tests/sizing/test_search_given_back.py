"""A search answer given back: what a search shows (its answer and alternatives) is what it ranked, and an
answer's layout passed back with the contract's keys (DESIGN section 5 `L`) is the same layout, the same
time. Findings of a property probe of the `size` contract; each test failed before its fix."""

from __future__ import annotations

from typing import Any

import pytest

from sizing.engine import evaluate, search
from tests.sizing.conftest import DOCUMENTED_LAYOUT_KEYS


def _offering(gpu: str) -> dict[str, Any]:
    return {
        "name": gpu,
        "gpu": gpu,
        "gpus_per_node": 8,
        "intra_node": "nvswitch",
        "fabric": "infiniband",
        "nics_per_node": 4,
        "gbps_per_nic": 200,
        "topology": "fat-tree",
        "nodes": 128,
    }


@pytest.mark.parametrize("gpu", ["A800-SXM-80GB", "A100-SXM-80GB", "H100-SXM-80GB"])
@pytest.mark.parametrize("objective", ["fastest", "cheapest"])
def test_an_moe_answer_given_back_with_the_contract_keys_takes_the_same_time(
    gpu: str, objective: str
) -> None:
    """DeepSeek-V3 searched on A800 answered TP2 EP8 with ETP = 1 (the search formed ETP = 1 and ETP = TP on
    every GPU) at 136 s a step; the same layout given back without `etp` (not a contract key) took the A100
    generation's default, ETP = TP, at 214 s. The search now forms only the ETP a layout without `etp` takes
    on the GPU (layout.default_expert_tp) and says so in `assumptions`."""
    offering = _offering(gpu)
    res = search("deepseek-v3-671b", offering, objective=objective, top=5)
    assert res["feasible"]
    rule = "the search forms the default of a layout that does not state etp"
    assert any(rule in a for a in res["assumptions"])
    for answer in [res, *res["alternatives"]]:
        given = {k: v for k, v in answer["layout"].items() if k in DOCUMENTED_LAYOUT_KEYS}
        again = evaluate("deepseek-v3-671b", offering, given, gpus=answer["gpus"])
        assert again["layout"]["etp"] == answer["layout"]["etp"], given
        assert again["iteration_time_s"] == answer["iteration_time_s"], given
