"""The search's shortcuts give what the full model gives: the time model on the feasible layouts with the
memory of the constraints step reused (GridModel.feasible_throughput) equals GridModel.evaluate on those
layouts, and an alternative's brief figures (api.brief_result) equal the full result's
(perf/check_search_identical.py compares whole answers before and after, for the demo catalog)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from sizing.engine.api import brief_result, build_result, faults_for
from sizing.engine.hardware import hardware_from_facts
from sizing.engine.layout import layout_from_dict
from sizing.engine.model import GridModel
from sizing.engine.overlap import default_optimizer
from sizing.engine.search import _block_grid, _search_space, node_ladder, search
from sizing.engine.workload import workload_preset


@pytest.mark.parametrize("preset", ["13b", "gpt3-175b", "deepseek-v3-671b"])
def test_feasible_throughput_equals_evaluate_on_the_feasible_layouts(
    preset: str, h100_ib: dict[str, Any]
) -> None:
    wl = workload_preset(preset)
    hw = hardware_from_facts(h100_ib)
    counts = [n * hw.gpus_per_node for n in node_ladder(hw.max_nodes)]
    space = _search_space(wl, hw, counts, default_optimizer(hw), None)
    model = GridModel(wl, hw, default_optimizer(hw))
    checked = 0
    for rows, options in space.blocks:
        grid = _block_grid(space.structs, rows, options)
        reasons, feasible, res = model.feasible_throughput(grid)
        # the same layouts, evaluated in full from scratch (memory included)
        flat = {k: np.broadcast_to(a, reasons.shape).reshape(-1)[feasible] for k, a in grid.items()}
        full = model.evaluate(flat)
        assert np.array_equal(res["tokens_per_s"], full["tokens_per_s"])
        assert np.array_equal(reasons.reshape(-1)[feasible], full["reasons"])
        checked += feasible.size
    assert checked > 100


def test_brief_result_has_the_full_results_figures(h100_ib: dict[str, Any]) -> None:
    wl = workload_preset("13b")
    facts = {**h100_ib, "price_usd_per_gpu_hour": 2.5}
    hw = hardware_from_facts(facts)
    faults = faults_for(hw)
    lay, _ = layout_from_dict(search(wl, facts, gpus=64)["layout"], wl, 64)
    res = GridModel(wl, hw, default_optimizer(hw)).evaluate(lay.grid())
    full, brief = build_result(wl, hw, faults, lay, res), brief_result(wl, hw, faults, lay, res)
    same = ("layout", "gpus", "nodes", "iteration_time_s", "mfu", "train_days", "cost")
    assert set(brief) == {*same, "memory_gib_per_gpu"}
    for key in same:
        assert brief[key] == full[key], key
    assert brief["memory_gib_per_gpu"] == {"total": full["memory_gib_per_gpu"]["total"]}
