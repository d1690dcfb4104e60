"""Muon as an optimizer-state convention (constants.MUON_CONVENTIONS): one fp32 momentum instead of Adam's
two, the Newton-Schulz products of every 2-D weight (gradients.newton_schulz_flops) and the parameter gather
the layer-wise distributed optimizer runs after the step (overlap.MUON_DEFAULTS)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from sizing.engine import InputError, evaluate, search
from sizing.engine import constants as C
from sizing.engine import gradients as G
from sizing.engine import validation as V
from sizing.engine.hardware import hardware_from_facts
from sizing.engine.workload import workload_from_dict

DENSE = {
    "name": "dense",
    "layers": 4,
    "hidden": 4096,
    "heads": 32,
    "kv_heads": 8,
    "ffn_hidden": 14336,
    "vocab": 128256,
    "seq_len": 4096,
    "global_batch": 512,
    "train_tokens": 1e12,
    "precision": "bf16",
    "activation": "swiglu",
}


def _ns(a: float, b: float) -> float:
    m, n = min(a, b), max(a, b)
    return 5 * (4 * m * m * n + 2 * m**3)


def _grid(**values: float) -> dict[str, Any]:
    base = {"tp": 1.0, "etp": 1.0, "zero": 1, "dp": 1.0, "cp": 1.0, "ep": 1.0}
    return {k: np.asarray(v) for k, v in {**base, **values}.items()}


def test_the_newton_schulz_flops_are_each_weights_iterations_shared_as_the_optimizer_shards() -> None:
    wl = workload_from_dict(dict(DENSE))
    h, qkv, f = 4096, 4096 + 2 * 1024, 14336
    # per layer: the fused QKV (6,144 x 4,096), the output (4,096 x 4,096), FC1 (2 x 14,336 x 4,096), FC2
    layer = _ns(h, qkv) + _ns(h, h) + _ns(h, 2 * f) + _ns(f, h)
    assert G.newton_schulz_flops(wl, _grid(), np.asarray(4.0)) == pytest.approx(4 * layer)
    # ZeRO-1 over 8 data-parallel ranks: each updates an eighth of the matrices; without ZeRO all of them
    assert G.newton_schulz_flops(wl, _grid(dp=8.0), np.asarray(4.0)) == pytest.approx(4 * layer / 8)
    assert G.newton_schulz_flops(wl, _grid(dp=8.0, zero=0), np.asarray(4.0)) == pytest.approx(4 * layer)
    # TP 2 orthogonalises each rank's half (blockwise)
    half = _ns(h, qkv / 2) + _ns(h / 2, h) + _ns(h, f) + _ns(f / 2, h)
    assert G.newton_schulz_flops(wl, _grid(tp=2.0), np.asarray(4.0)) == pytest.approx(4 * half)


def test_latent_attention_and_local_experts_are_orthogonalised_as_megatron_holds_them() -> None:
    row = V.by_id("bridge2606-gb300-kimi-k2-256-mxfp8")
    wl = workload_from_dict(dict(row.workload))
    grid = _grid(dp=64.0, ep=64.0)
    # Kimi K2 on EP64 x DP64 (expert data parallelism 1): each GPU's 6 local experts per MoE layer, fc1
    # 4,096 x 7,168 and fc2 2,048 x 7,168, whole on the GPU; the dense matrices shared over the 64 DP ranks
    experts = 60 / 61 * 6 * (_ns(7168, 4096) + _ns(2048, 7168))
    attention = (
        _ns(7168, 1536) + _ns(1536, 64 * 192) + _ns(7168, 576) + _ns(512, 64 * 256) + _ns(64 * 128, 7168)
    )
    dense = attention + 1 / 61 * (_ns(7168, 2 * 18432) + _ns(18432, 7168))
    dense += 60 / 61 * (_ns(7168, 2 * 2048) + _ns(2048, 7168))  # the shared expert
    flops = G.newton_schulz_flops(wl, grid, np.asarray(16.0))
    assert flops == pytest.approx(16 * (experts + dense / 64))
    assert 3.5e14 < flops < 3.7e14  # the row's own statement


def test_muon_keeps_one_momentum_and_charges_its_products_in_the_step() -> None:
    offering = {"name": "h100", "gpu": "H100-SXM-80GB", "gpus_per_node": 8, "nodes": 8}
    layout = {"tp": 2, "pp": 1, "dp": 32, "zero": 1, "micro_batch": 1, "recompute": "selective"}
    adam = evaluate(
        DENSE, offering, {**layout, "optimizer": "megatron-bf16-grads", "overlap_param_gather": False}
    )
    muon = evaluate(
        DENSE, offering, {**layout, "optimizer": "muon-bf16-grads", "overlap_param_gather": False}
    )
    assert muon["memory_gib_per_gpu"]["optimizer"] == pytest.approx(
        adam["memory_gib_per_gpu"]["optimizer"] * 8 / 12, rel=1e-6
    )
    assert muon["memory_gib_per_gpu"]["grads"] == adam["memory_gib_per_gpu"]["grads"]
    wl = workload_from_dict(dict(DENSE))
    hw = hardware_from_facts(offering)
    ns = G.newton_schulz_seconds(wl, hw, _grid(tp=2.0, dp=32.0), np.asarray(4.0))
    added = muon["iteration_breakdown_s"]["other"] - adam["iteration_breakdown_s"]["other"]
    assert added == pytest.approx(float(ns), abs=1e-4) and added > 0
    fp32 = evaluate(DENSE, offering, {**layout, "optimizer": "muon", "overlap_param_gather": False})
    assert fp32["memory_gib_per_gpu"]["grads"] == pytest.approx(2 * muon["memory_gib_per_gpu"]["grads"])


def test_muon_gathers_the_updated_weights_after_the_step_unless_the_layout_says_otherwise() -> None:
    offering = {"name": "h100", "gpu": "H100-SXM-80GB", "gpus_per_node": 8, "nodes": 8}
    layout = {"tp": 2, "pp": 1, "dp": 32, "zero": 1, "micro_batch": 1, "recompute": "selective"}
    unset = evaluate(DENSE, offering, {**layout, "optimizer": "muon"})
    assert unset["layout"]["overlap_param_gather"] is False
    said = "Muon optimizer: unlike the other overlap defaults, the updated weights are gathered after"
    assert any(a.startswith(said) for a in unset["assumptions"])
    stated = evaluate(DENSE, offering, {**layout, "optimizer": "muon", "overlap_param_gather": True})
    assert stated["layout"]["overlap_param_gather"] is True
    assert not any(a.startswith("Muon optimizer") for a in stated["assumptions"])
    assert stated["iteration_breakdown_s"]["dp_comm"] <= unset["iteration_breakdown_s"]["dp_comm"]
    # a ZeRO-3 layout keeps ZeRO-3's prefetching default, as the search grid does
    zero3 = evaluate(DENSE, offering, {**layout, "zero": 3, "optimizer": "muon"})
    assert zero3["layout"]["overlap_param_gather"] is True
    assert not any(a.startswith("Muon optimizer") for a in zero3["assumptions"])
    # Adam's conventions keep the framework default (overlapped on Hopper)
    adam = evaluate(DENSE, offering, {**layout, "optimizer": "megatron-bf16-grads"})
    assert adam["layout"]["overlap_param_gather"] is True
    # a search under Muon answers with the gather after the step, and says so; the explanation names the
    # layer-wise optimizer where Adam's names Megatron's distributed optimizer
    found = search(DENSE, {**offering, "nodes": 4}, gpus=32, optimizer="muon")
    assert found["feasible"] and found["layout"]["overlap_param_gather"] is False
    assert any(a.startswith("Muon optimizer") for a in found["assumptions"])
    layer_wise = "ZeRO-1 (Muon's layer-wise distributed optimizer) gives each DP rank whole weights"
    assert any(e.startswith(layer_wise) for e in unset["explanation"])
    assert any(e.startswith(layer_wise) for e in found["explanation"]) == (found["layout"]["zero"] == 1)
    assert not any(e.startswith(layer_wise) for e in adam["explanation"])
    assert any(e.startswith("ZeRO-1 (Megatron's distributed optimizer)") for e in adam["explanation"])


def test_an_unknown_optimizer_names_the_muon_conventions_among_the_allowed() -> None:
    offering = {"name": "h100", "gpu": "H100-SXM-80GB", "gpus_per_node": 8, "nodes": 8}
    with pytest.raises(InputError) as e:
        evaluate(DENSE, offering, {"tp": 8, "pp": 1, "dp": 8, "optimizer": "shampoo"})
    assert e.value.field == "layout.optimizer"
    assert "muon, muon-bf16-grads" in str(e.value)
    assert set(C.MUON_CONVENTIONS) <= set(C.OPTIMIZER_BYTES)


def test_the_kimi_k2_rows_run_muon_as_their_recipe_does() -> None:
    rows = [r for r in V.results() if "gb300-kimi-k2" in r.row.id]
    assert len(rows) == 4
    for r in rows:
        assert r.row.layout is not None and r.row.layout["optimizer"] == "muon-bf16-grads"
        assert r.row.layout["overlap_param_gather"] is False and r.feasible
        assert abs(r.error) < r.row.tolerance
        adam = V.predict(r.row, optimizer="megatron-bf16-grads")
        assert r.predicted_s > adam["iteration_time_s"]  # the Newton-Schulz products
