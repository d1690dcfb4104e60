"""Defects of the `size` contract found by a property probe of the CLI entry point (sizing.engine.cli.main)
over presets, parameter-count, dense and MoE workloads, every GPU, fabric and topology, given layouts and
searches; one test each, every one failing before its fix."""

from __future__ import annotations

import io
import json
from typing import Any

import pytest

from sizing.engine import InputError, evaluate, search
from sizing.engine.cli import main


def _cli(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(argv, stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def test_a_search_with_no_alternatives_asked_still_answers_and_names_the_model_best(
    h100_ib: dict[str, Any],
) -> None:
    """`--top 0` raised IndexError (exit 1, a traceback) whenever the node-first rule replaced the model's own
    best: the rule's record reads the model's best from the alternatives, which `top` had cut to none."""
    facts = {**h100_ib, "nodes": 128}
    full = search("gpt3-175b", facts, top=3)
    assert full["search"]["selection"]["rule"] == "node-first"  # the case: the rule applies
    argv = ["--workload", "gpt3-175b", "--offering", json.dumps(facts), "--top", "0", "--json"]
    code, out, err = _cli(argv)
    assert code == 0, err
    res = json.loads(out)
    assert res["alternatives"] == []
    assert res["layout"] == full["layout"]
    assert res["search"]["selection"]["model_best"] == full["search"]["selection"]["model_best"]
    assert res["explanation"][-1] == full["explanation"][-1]


def test_a_search_with_no_alternatives_asked_does_not_say_there_is_no_other_layout(
    h100_ib: dict[str, Any],
) -> None:
    """With `top` 0 the explanation said "No other feasible layout was found." while thousands were feasible:
    the runner-up is compared whether or not it is listed."""
    full = search("13b", h100_ib, top=1)
    none_listed = search("13b", h100_ib, top=0)
    assert "search" in full and full["search"]["feasible"] > 1 and "selection" not in full["search"]
    assert none_listed["alternatives"] == []
    assert none_listed["explanation"][-1] == full["explanation"][-1]
    assert "No other feasible layout" not in none_listed["explanation"][-1]


@pytest.mark.parametrize(("gpus_per_node", "tp"), [(6, 4), (5, 4), (3, 2), (6, 8)])
def test_tensor_parallelism_that_straddles_nodes_is_refused_naming_tp(
    h100_ib: dict[str, Any], gpus_per_node: int, tp: int
) -> None:
    """TP=4 on 6-GPU nodes puts every other tensor-parallel group across two nodes, yet the answer priced
    every group on NVLink (the same 1.6 s of TP traffic as on 8-GPU nodes) and the search chose such layouts
    (TP=4 on 5-GPU nodes). A TP degree that neither divides the node nor is a whole number of nodes is
    refused."""
    facts = {**h100_ib, "gpus_per_node": gpus_per_node}
    code, out, err = _cli(
        ["--workload", "13b", "--offering", json.dumps(facts), "--layout", json.dumps({"tp": tp, "dp": 8})]
    )
    assert code == 2
    assert err.startswith("error: layout.tp: ") and err.count("\n") == 1
    assert f"{gpus_per_node} GPUs per node" in err
    res = search("13b", facts, top=3)
    for lay in [res["layout"], *(a["layout"] for a in res["alternatives"])]:
        assert gpus_per_node % lay["tp"] == 0 or lay["tp"] % gpus_per_node == 0, lay


@pytest.mark.parametrize(("gpus_per_node", "tp"), [(8, 4), (4, 8), (6, 2), (6, 3), (1, 4)])
def test_tensor_parallelism_inside_or_over_whole_nodes_still_answers(
    h100_ib: dict[str, Any], gpus_per_node: int, tp: int
) -> None:
    wl = {"name": "w", "layers": 24, "hidden": 6144, "heads": 48, "seq_len": 2048, "global_batch": 512}
    res = evaluate(wl, {**h100_ib, "gpus_per_node": gpus_per_node}, {"tp": tp, "dp": 8})
    assert res["layout"]["tp"] == tp


def test_tensor_parallelism_that_straddles_nothing_is_answered(h100_ib: dict[str, Any]) -> None:
    """review: a job of one TP=4 group on a 6-GPU node, and TP=6 in a GB200 NVL72 rack of 4-GPU trays (every
    group inside one 72-GPU NVLink domain), were refused as if they straddled nodes."""
    wl = {"name": "w", "layers": 24, "hidden": 6144, "heads": 48, "seq_len": 2048, "global_batch": 512}
    one = evaluate(wl, {**h100_ib, "gpus_per_node": 6}, {"tp": 4, "dp": 1, "pp": 1})
    assert one["layout"]["tp"] == 4 and one["gpus"] == 4
    rack = {**h100_ib, "gpu": "GB200-186GB", "gpus_per_node": 4, "nvlink_domain_gpus": 72, "nodes": 18}
    res = evaluate(wl, rack, {"tp": 6, "dp": 12})
    assert res["layout"]["tp"] == 6 and res["gpus"] == 72
    # across domains the groups would straddle: still refused
    with pytest.raises(InputError) as err:
        evaluate(wl, {**h100_ib, "gpus_per_node": 4, "nodes": 18}, {"tp": 6, "dp": 12})
    assert err.value.field == "layout.tp"


@pytest.mark.parametrize("value", [0, 1, 0.0])
def test_recompute_given_as_a_number_is_refused(h100_ib: dict[str, Any], value: Any) -> None:
    """`recompute: 0` was taken as "none" (0 == False), while 1 was refused and 2 too: a number is not one of
    the contract's values (true and false stay accepted: full and none)."""
    with pytest.raises(InputError) as err:
        evaluate("13b", h100_ib, {"tp": 8, "dp": 2, "recompute": value})
    assert err.value.field == "layout.recompute"
    assert evaluate("13b", h100_ib, {"tp": 8, "dp": 2, "recompute": False})["layout"]["recompute"] == "none"


@pytest.mark.parametrize(
    ("layout", "gpus", "field"),
    [
        ({"tp": 4, "pp": 1e30}, None, "layout.pp"),  # was answered: 4e30 GPUs, goodput 0.0, 1e82 failures
        ({"tp": 4, "dp": 10**9}, None, "layout.dp"),
        ({"tp": 4, "micro_batch": 10**12}, None, "layout.micro_batch"),
        ({"tp": 4, "pp": 2, "virtual_stages": 10**20}, None, "layout.virtual_stages"),
        ({"tp": 8, "pp": 512, "dp": 512}, None, "layout"),  # each degree in range, the product not
        ({"tp": 8}, 10**9, "gpus"),
    ],
)
def test_absurd_layout_sizes_are_refused_naming_the_field(
    h100_ib: dict[str, Any], layout: dict[str, Any], gpus: int | None, field: str
) -> None:
    with pytest.raises(InputError) as err:
        evaluate("13b", h100_ib, layout, gpus=gpus)
    assert err.value.field == field
    assert "131,072" in err.value.reason
    with pytest.raises(InputError):
        search("13b", h100_ib, gpus=10**9)
    assert evaluate("13b", h100_ib, {"tp": 8, "pp": 8, "dp": 2048})["gpus"] == 131_072


def test_a_pipeline_that_crosses_nodes_pays_the_network_for_its_boundaries(h100_ib: dict[str, Any]) -> None:
    """TP=4 x DP=1 puts two pipeline stages on each 8-GPU node: every other stage boundary crosses the
    network, and 1F1B's lockstep runs at the pace of the slowest boundary. The model sized the sends of the
    first pair of stages only (inside a node), so 175B on TP4 PP96 DP1 over one 25 Gb/s NIC per node came out
    at 0.5 s of pipeline sends per step, and doubling DP (the boundaries now between nodes) at 198 s: a 10x
    slower step for twice the GPUs."""
    slow = {**h100_ib, "intra_node": "nvswitch", "fabric": "ethernet", "nics_per_node": 1, "gbps_per_nic": 25}
    slow["nodes"] = 4096
    lay = {"tp": 4, "pp": 96, "zero": 1, "micro_batch": 1, "recompute": "none", "virtual_stages": 1}
    one = evaluate("gpt3-175b", slow, {**lay, "dp": 1})
    two = evaluate("gpt3-175b", slow, {**lay, "dp": 2})
    per_transfer_one = one["iteration_breakdown_s"]["pp_comm"] / one["micro_batches_per_iteration"]
    per_transfer_two = two["iteration_breakdown_s"]["pp_comm"] / two["micro_batches_per_iteration"]
    # the same message over the same kind of boundary (one GPU's NIC share): within 2x, not 100x apart
    assert per_transfer_one >= per_transfer_two / 2
    assert two["iteration_time_s"] < 2 * one["iteration_time_s"]
    # a pipeline inside one node keeps NVLink for every boundary
    inside = evaluate("13b", h100_ib, {"tp": 2, "pp": 4, "dp": 1})
    assert inside["iteration_breakdown_s"]["pp_comm"] < 0.05 * inside["iteration_time_s"]


def test_a_search_on_a_huge_offering_answers_a_layout_that_evaluates(h100_ib: dict[str, Any]) -> None:
    """review: the search's node ladder went past the 131,072 GPUs the engine sizes, so a search on a
    100,000-node offering answered 262,144 GPUs, a layout that `evaluate` (and `--gpus`) then refused."""
    huge = {**h100_ib, "nodes": 100_000}
    work = {"name": "70B", "params": 70e9, "seq_len": 4096, "global_batch": 262_144, "train_tokens": 1e13}
    best = search(work, huge, objective="fastest")
    assert best["feasible"] and best["gpus"] <= 131_072
    again = evaluate(work, huge, {k: best["layout"][k] for k in ("tp", "pp", "dp", "cp", "ep", "zero")})
    assert again["gpus"] == best["gpus"]


def test_a_price_out_of_bounds_is_refused_in_dollars_written_as_money(h100_ib: dict[str, Any]) -> None:
    """The engine's bound on an offering's price read "between 0 and 200 $"; money is written "$200" on every
    page and in the portal's other messages."""
    with pytest.raises(InputError) as err:
        evaluate("13b", {**h100_ib, "price_usd_per_gpu_hour": 500}, None)
    assert err.value.field == "offering.price_usd_per_gpu_hour"
    assert "between $0 and $200, got 500" in str(err.value) and "200 $" not in str(err.value)


def test_a_run_too_long_for_a_float_costs_infinity_without_an_overflow_warning() -> None:
    """A priced search on an offering with a near-zero link (an RFQ answer stating 1e-300 GB/s) timed some
    layouts beyond any float: the plan totals overflowed with a RuntimeWarning (seen in CI). Such a run costs
    infinity on every plan and ranks last, quietly."""
    import warnings

    import numpy as np

    from sizing.engine.cost import billed_rate

    facts = {"billing_plans": [{"kind": "on-demand", "price_usd_per_gpu_hour": 2.4}]}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        rates = billed_rate(facts, np.asarray([64.0, 64.0]), 8, np.asarray([1e308, 10.0]))
    assert list(rates) == [2.4, 2.4]
