from __future__ import annotations

from typing import Any

import pytest

from sizing.engine import InputError, evaluate, search, workload_from_dict, workload_preset
from sizing.engine.workload import PRESETS


def _fabric_share(r: dict[str, Any]) -> float:
    """Exposed inter-node share for layouts whose TP stays in the node and whose PP and DP groups cross
    nodes (every case below): pp_comm + dp_comm over the iteration."""
    b = r["iteration_breakdown_s"]
    return (b["pp_comm"] + b["dp_comm"]) / r["iteration_time_s"]


def test_175b_on_1024_a100_keeps_tp_in_the_node_and_pp_across_nodes(a100_ib: dict[str, Any]) -> None:
    r = search("gpt3-175b", a100_ib, gpus=1024)
    lay = r["layout"]
    assert r["feasible"]
    assert lay["tp"] <= 8 and lay["pp"] > 1  # TP inside the 8-GPU NVSwitch node, pipeline stages
    assert lay["tp"] * lay["cp"] * lay["dp"] >= 8  # the pipeline group's stride spans a node: stages on
    # different nodes
    # The raw fastest is TP=4 PP=8 DP=32 (19.15 s); inside the 7% band the search takes the layout least
    # exposed to the fabric: TP=4 PP=16 DP=16 (20.19 s, 2.0% of the iteration on the fabric). TP=8 PP=8
    # DP=16 is in the band too but ranks second (2.2%): its TP traffic is on NVSwitch either way, and its DP
    # groups, one rank per node, put more gradient bytes on the fabric.
    assert (lay["tp"], lay["pp"], lay["dp"]) == (4, 16, 16)
    sel = r["search"]["selection"]
    raw = sel["best_by_objective"]["layout"]
    assert sel["band"] == 0.07 and (raw["tp"], raw["pp"], raw["dp"]) == (4, 8, 32)
    assert r["train_days"] <= 1.07 * sel["best_by_objective"]["value"]
    assert any("error band" in s for s in r["explanation"])
    tp8 = evaluate(
        "gpt3-175b",
        a100_ib,
        {"tp": 8, "pp": 8, "micro_batch": 1, "recompute": "none", "virtual_stages": 2},
        gpus=1024,
    )
    assert tp8["iteration_time_s"] < 1.07 * r["alternatives"][0]["iteration_time_s"]  # in the band
    assert _fabric_share(r) < _fabric_share(tp8)
    assert 0.45 < r["mfu"] < 0.58


def test_selection_not_reported_when_the_best_is_also_the_least_exposed(h100_ib: dict[str, Any]) -> None:
    r = search("13b", h100_ib, gpus=8)  # one node: nothing crosses the fabric, ties go to the objective
    assert "selection" not in r["search"]
    assert r["train_days"] <= min(a["train_days"] for a in r["alternatives"])


def test_selection_without_a_price_ranks_gpu_hours(h100_ib: dict[str, Any]) -> None:
    facts = {k: v for k, v in h100_ib.items() if k != "price_usd_per_gpu_hour"}
    r = search("13b", facts, objective="cheapest")
    assert r["feasible"] and "cost" not in r
    sel = r["search"].get("selection")
    if sel is not None:  # the band moved the answer: the raw best is reported in GPU-hours
        assert sel["best_by_objective"]["unit"] == "GPU-hours"
        assert r["train_days"] * 24 * r["gpus"] <= 1.07 * sel["best_by_objective"]["value"] + 1.0


def test_175b_with_megatron_2021_memory_chooses_tp8_pp8(a100_ib: dict[str, Any]) -> None:
    # Without the distributed optimizer (ZeRO-0: 18 bytes/param, as in Narayanan 2021) TP=4 PP=8 does not
    # fit, and the fastest layout by the model is the paper's choice: TP=8 inside the node, PP=8 across
    # nodes. The selection band then prefers TP=4 PP=16 (5.5% slower, half the fabric exposure).
    r = search("gpt3-175b", a100_ib, gpus=1024, zero_stages=(0,))
    raw = r["search"]["selection"]["best_by_objective"]["layout"]
    assert raw["tp"] == 8 and raw["pp"] == 8
    assert r["layout"]["tp"] <= 8 and r["layout"]["pp"] > 1
    tp4 = evaluate("gpt3-175b", a100_ib, {"tp": 4, "pp": 8, "zero": 0}, gpus=1024)
    assert not tp4["feasible"]


def test_tp_across_nodes_pays_for_it(a100_ib: dict[str, Any]) -> None:
    inside = evaluate("gpt3-175b", a100_ib, {"tp": 8, "pp": 8, "virtual_stages": 3}, gpus=1024)
    across = evaluate("gpt3-175b", a100_ib, {"tp": 16, "pp": 4, "virtual_stages": 3}, gpus=1024)
    assert across["iteration_breakdown_s"]["tp_comm"] > 2 * inside["iteration_breakdown_s"]["tp_comm"]
    assert across["iteration_time_s"] > inside["iteration_time_s"]


def test_pcie_nodes_are_clearly_slower(a100_ib: dict[str, Any]) -> None:
    nv = search("gpt3-175b", a100_ib, gpus=1024)
    pcie = search("gpt3-175b", {**a100_ib, "intra_node": "pcie"}, gpus=1024)
    assert pcie["iteration_time_s"] > 1.3 * nv["iteration_time_s"]
    # PCIe pushes TP down and PP/recompute up: the bubble or the recompute grows
    assert pcie["layout"]["tp"] < nv["layout"]["tp"]


def test_tcp_ethernet_is_clearly_slower(a100_ib: dict[str, Any]) -> None:
    ib = search("gpt3-175b", a100_ib, gpus=1024)
    tcp = search("gpt3-175b", {**a100_ib, "fabric": "ethernet"}, gpus=1024)
    assert tcp["iteration_time_s"] > 1.05 * ib["iteration_time_s"]
    b_ib, b_tcp = ib["iteration_breakdown_s"], tcp["iteration_breakdown_s"]
    assert b_tcp["dp_comm"] + b_tcp["pp_comm"] > 2.5 * (b_ib["dp_comm"] + b_ib["pp_comm"])


def test_ring_topology_loses_efficiency_with_scale(a100_ib: dict[str, Any]) -> None:
    tree = evaluate("gpt3-175b", a100_ib, {"tp": 8, "pp": 8}, gpus=1024)
    ring = evaluate("gpt3-175b", {**a100_ib, "topology": "ring"}, {"tp": 8, "pp": 8}, gpus=1024)
    assert ring["iteration_breakdown_s"]["dp_comm"] > 3 * tree["iteration_breakdown_s"]["dp_comm"]


def test_moe_search_uses_expert_parallelism(h100_ib: dict[str, Any]) -> None:
    r = search("deepseek-v3-671b", h100_ib)
    assert r["feasible"] and r["layout"]["ep"] > 1
    assert r["params"]["total"] == pytest.approx(671e9, rel=0.02)
    assert r["params"]["active"] == pytest.approx(37e9, rel=0.06)


@pytest.mark.parametrize("name", list(PRESETS))
def test_every_preset_sizes(name: str, h100_ib: dict[str, Any]) -> None:
    r = search(name, h100_ib, objective="cheapest")
    assert r["feasible"], r["reasons"]
    assert r["train_days"] > 0 and r["cost"]["total_usd"] > 0


def test_uneven_stages_llama3_405b_126_layers_on_16_stages(h100_ib: dict[str, Any]) -> None:
    r = evaluate("llama3-405b", h100_ib, {"tp": 8, "pp": 16, "dp": 1, "recompute": "full"})
    assert r["layers_per_stage_max"] == 8  # ceil(126 / 16): the most loaded stage sets memory and time
    even = evaluate(
        {**workload_preset("llama3-405b").to_dict(), "layers": 128, "moe": None},
        h100_ib,
        {"tp": 8, "pp": 16, "dp": 1, "recompute": "full"},
    )
    # with 126 layers the last stage holds 6 layers + the output layer, so the 8-layer stages set the pace;
    # with 128 the last stage holds 8 layers + the output layer and is slower (why Llama 3 went uneven)
    assert r["iteration_time_s"] < even["iteration_time_s"] < 1.06 * r["iteration_time_s"]


def test_cheapest_within_deadline_and_missed_deadline(h100_ib: dict[str, Any]) -> None:
    fast = search("gpt3-175b", h100_ib)
    ok = search(
        "gpt3-175b", h100_ib, objective="cheapest-within-deadline", deadline_days=fast["train_days"] * 2
    )
    assert ok["feasible"] and ok["train_days"] <= fast["train_days"] * 2
    assert ok["cost"]["total_usd"] <= fast["cost"]["total_usd"]
    missed = search("gpt3-175b", h100_ib, objective="cheapest-within-deadline", deadline_days=0.5)
    assert missed["feasible"] is False and "deadline" in missed["reasons"][0]


def test_unpublished_max_nodes_caps_the_search_at_128_nodes(h100_ib: dict[str, Any]) -> None:
    facts = {k: v for k, v in h100_ib.items() if k != "nodes"}  # 8 x H100, 8 x 400G IB, no max nodes
    r = search("gpt3-175b", facts)
    assert r["feasible"] and r["gpus"] <= 1024 and r["mfu"] > 0.35
    assert max(r["search"]["gpu_counts"]) == 1024
    assert any("up to 128 nodes" in a for a in r["assumptions"])
    big = search("gpt3-175b", facts, gpus=2048)  # an explicit size may exceed the default cap
    assert big["feasible"] and big["gpus"] == 2048
    assert any("requested explicitly" in a for a in big["assumptions"])
    one = evaluate("13b", facts, {"tp": 8}, gpus=2048)
    assert one["feasible"], one["reasons"]


def test_unknown_facts_are_stated_assumptions() -> None:
    r = search("13b", {"gpu": "H100-SXM-80GB"})
    text = " ".join(r["assumptions"])
    assert "fabric not published" in text and "maximum nodes not published" in text


def test_bare_parameter_count_derives_a_shape() -> None:
    wl = workload_from_dict(
        {"name": "x", "params": 175e9, "seq_len": 2048, "global_batch": 1536, "train_tokens": 3e11}
    )
    assert wl.total_params() == pytest.approx(175e9, rel=0.05)
    assert wl.hidden % wl.heads == 0 and wl.notes


def test_unknown_gpu_alias_resolves_and_unknown_key_fails(h100_ib: dict[str, Any]) -> None:
    r = evaluate("13b", {**h100_ib, "gpu": "NVIDIA H100 80GB HBM3"}, {"tp": 8}, gpus=8)
    assert r["offering"]["gpu"] == "H100-SXM-80GB"
    with pytest.raises(InputError) as e:
        evaluate("13b", {**h100_ib, "gpu": "H100-ULTRA"}, {"tp": 8}, gpus=8)
    assert e.value.field == "offering.gpu"
