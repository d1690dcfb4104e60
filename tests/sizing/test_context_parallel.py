"""Context parallelism's K/V ring (Transformer Engine's AttnFuncWithCPAndKVP2P): the sends its attention steps
do not hide (context.ring_exposed) and the passes that merge its partial attentions (context.merge_bytes,
constants.CP_*)."""

from __future__ import annotations

from typing import Any

import pytest

from sizing.engine import constants as C
from sizing.engine import evaluate
from sizing.engine.hardware import hardware_from_facts
from tests.sizing.test_fuzz_regressions import WL

# the 8B shape of the fuzz regressions (Llama 3.1 8B: 32 layers, 4,096 wide, 8 K/V heads, 8,192 tokens)
LLAMA_8B = {**WL, "name": "8B", "global_batch": 64, "precision": "bf16"}
BIG = {"tp": 8, "pp": 8, "cp": 2, "dp": 4, "virtual_stages": 2}


def _result(wl: Any, facts: dict[str, Any], layout: dict[str, Any]) -> dict[str, Any]:
    return evaluate(wl, facts, {"zero": 1, "micro_batch": 1, "sequence_parallel": True, **layout})


def _cp_seconds(wl: Any, facts: dict[str, Any], layout: dict[str, Any]) -> float:
    return float(_result(wl, facts, layout)["iteration_breakdown_s"]["cp_comm"])


def test_long_attention_steps_hide_the_whole_ring(h100_ib: dict[str, Any]) -> None:
    """Llama 3.1 405B at 8K tokens, TP8 CP2: one step's attention outlasts a K/V send, forward and
    backward, with or without full recompute."""
    for recompute in ("none", "full"):
        assert _cp_seconds("llama3-405b", h100_ib, {**BIG, "recompute": recompute}) == 0.0


def test_short_attention_steps_expose_the_ring_more_with_more_steps(h100_ib: dict[str, Any]) -> None:
    """An 8B model split four and eight ways: a step's attention is shorter than a send, so the sends show,
    and full recompute runs the forward ring again."""
    four = _cp_seconds(LLAMA_8B, h100_ib, {"tp": 2, "cp": 4, "dp": 1, "recompute": "none"})
    eight = _cp_seconds(LLAMA_8B, h100_ib, {"tp": 1, "cp": 8, "dp": 1, "recompute": "none"})
    full = _cp_seconds(LLAMA_8B, h100_ib, {"tp": 2, "cp": 4, "dp": 1, "recompute": "full"})
    assert eight > four > 0.0
    assert full > four


def test_the_merge_passes_are_the_bytes_the_ring_adds(h100_ib: dict[str, Any], monkeypatch: Any) -> None:
    layout = {"tp": 2, "cp": 4, "dp": 1, "recompute": "none"}
    with_merges = _result(LLAMA_8B, h100_ib, layout)
    for name in ("CP_OUT_CORRECTION_BYTES", "CP_OUT_CAST_BYTES", "CP_GRAD_ACCUMULATE_BYTES"):
        monkeypatch.setattr(C, name, 0.0)
    without = _result(LLAMA_8B, h100_ib, layout)
    cp, tp = 4, 2
    rows = 8192 / cp / tp  # a rank's tokens, its heads' share
    out = q = 4096.0
    kv = 2 * 8 * 128.0
    per_layer = rows * out * (cp * 10 + 6) + rows * cp * (q + kv) * 6
    hbm = hardware_from_facts(h100_ib).gpu.hbm_tbytes_per_s * 1e12
    expected = with_merges["micro_batches_per_iteration"] * 32 * per_layer / hbm
    added = with_merges["iteration_breakdown_s"]["other"] - without["iteration_breakdown_s"]["other"]
    assert added == pytest.approx(expected, abs=2e-4)
