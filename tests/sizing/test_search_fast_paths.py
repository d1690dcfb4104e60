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
from sizing.engine.scan import Scan
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
    same += ("billed_gpus", "gpu_hours")
    assert set(brief) == {*same, "memory_gib_per_gpu", "spare_nodes"}
    for key in same:
        assert brief[key] == full[key], key
    assert brief["memory_gib_per_gpu"] == {"total": full["memory_gib_per_gpu"]["total"]}
    assert brief["spare_nodes"] == full["goodput"]["spare_nodes"]


def test_structure_minima_keep_the_column_of_each_structures_first_minimum() -> None:
    """The scan keeps each structure's best options column, so the node-first rule needs no second
    evaluation: the first minimum of each row (np.argmin's), -1 for a row whose minimum is NaN."""
    scan = Scan()
    columns = 5
    # rows 0, 2, 3 of the block have feasible layouts; row 2 ties at its minimum, row 3 is NaN
    feasible = np.array([1, 3, 4, 10, 12, 13, 16, 18])
    scores = np.array([4.0, 2.0, 3.0, 7.0, 1.0, 1.0, np.nan, np.nan])
    scan.add_structure_minima(
        block=3, rows=np.array([10, 11, 12, 13]), feasible=feasible, columns=columns, scores=scores
    )
    assert scan.structure_row == [0, 2, 3]
    assert scan.structure_index == [10, 12, 13]
    assert scan.structure_block == [3, 3, 3]
    assert scan.structure_column == [3, 2, -1]
    assert scan.structure_best[:2] == [2.0, 1.0]


@pytest.mark.parametrize("gpu", ["A100-SXM-80GB", "H100-SXM-80GB"])
def test_node_first_pick_from_the_scan_equals_evaluating_its_structure_again(
    gpu: str, h100_ib: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """GPT-3 175B on 1,024 GPUs, where the node-first rule replaces the model's best: the column the scan
    kept gives the same answer as the structure evaluated again (the scan's columns withheld)."""
    facts = {**h100_ib, "gpu": gpu, "nodes": 256}
    kept = search("gpt3-175b", facts, gpus=1024)
    assert "selection" in kept["search"]  # the rule applied
    original = Scan.add_structure_minima

    def without_columns(self: Scan, *args: Any, **kwargs: Any) -> None:
        original(self, *args, **kwargs)
        self.structure_column[:] = [-1] * len(self.structure_column)

    monkeypatch.setattr(Scan, "add_structure_minima", without_columns)
    again = search("gpt3-175b", facts, gpus=1024)
    for answer in (kept, again):
        answer["search"].pop("seconds")
    assert kept == again
