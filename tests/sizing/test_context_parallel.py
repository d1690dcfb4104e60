"""Context parallelism's K/V ring (Transformer Engine's AttnFuncWithCPAndKVP2P): the sends its attention steps
do not hide (context.ring_exposed) and the passes that merge its partial attentions (context.merge_bytes,
constants.CP_*)."""

from __future__ import annotations

from typing import Any

import pytest

from sizing.engine import InputError, evaluate
from sizing.engine import constants as C
from sizing.engine import timing as T
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
    for name in ("CP_OUT_FIRST_STEP_BYTES", "CP_OUT_CORRECTION_BYTES", "CP_GRAD_ACCUMULATE_BYTES"):
        monkeypatch.setattr(C, name, 0.0)
    without = _result(LLAMA_8B, h100_ib, layout)
    cp, tp = 4, 2
    rows = 8192 / cp / tp  # a rank's tokens, its heads' share
    out = q = 4096.0
    kv = 2 * 8 * 128.0
    # the first step's output into the running output (4 bytes), each later step's merged in (6), in bf16
    per_layer = rows * out * (4 + (cp - 1) * 6) + rows * cp * (q + kv) * 6
    hbm = hardware_from_facts(h100_ib).gpu.hbm_tbytes_per_s * 1e12
    expected = with_merges["micro_batches_per_iteration"] * 32 * per_layer / hbm
    added = with_merges["iteration_breakdown_s"]["other"] - without["iteration_breakdown_s"]["other"]
    assert added == pytest.approx(expected, abs=2e-4)


def test_windowed_attention_exchanges_by_all_to_all(h100_ib: dict[str, Any]) -> None:
    """Transformer Engine runs no ring for banded attention (or softmax sinks): the exchange is the all-to-all
    of the queries, keys, values and output, forward and backward, none of it hidden, and no merge passes."""
    windowed = {**LLAMA_8B, "sliding_window": 1024, "sliding_window_layers": 0.5}
    layout = {"tp": 2, "cp": 4, "dp": 1, "recompute": "none"}
    r = _result(windowed, h100_ib, layout)
    hw = hardware_from_facts(h100_ib)
    rows = 8192 / 4  # a rank's tokens
    widths = (4096, 1024, 1024, 4096)  # queries, keys, values, output
    one_pass = sum(float(T.all_to_all_time(hw, 2, 4, rows * w / 2 * 2.0)) for w in widths)
    expected = r["micro_batches_per_iteration"] * 32 * 2 * one_pass
    assert r["iteration_breakdown_s"]["cp_comm"] == pytest.approx(expected, rel=0.01)
    # stated, the same; the ring stated for a plain model differs
    stated = _result(windowed, h100_ib, {**layout, "cp_comm_type": "a2a"})
    assert stated["iteration_breakdown_s"] == r["iteration_breakdown_s"]
    ring = _result(LLAMA_8B, h100_ib, {**layout, "cp_comm_type": "p2p"})
    alltoall = _result(LLAMA_8B, h100_ib, {**layout, "cp_comm_type": "a2a"})
    assert ring["iteration_breakdown_s"]["cp_comm"] != alltoall["iteration_breakdown_s"]["cp_comm"]
    assert alltoall["layout"]["cp_comm_type"] == "a2a"


def test_an_unknown_exchange_is_refused(h100_ib: dict[str, Any]) -> None:
    with pytest.raises(InputError) as err:
        _result(LLAMA_8B, h100_ib, {"tp": 2, "cp": 4, "dp": 1, "cp_comm_type": "ring"})
    assert err.value.field == "layout.cp_comm_type"
    assert str(err.value).endswith("must be one of p2p, a2a, got 'ring'")
