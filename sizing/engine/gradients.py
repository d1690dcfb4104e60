"""Passes over a GPU's parameters and gradients outside the layers: the optimizer step once per iteration
(memory-bound, and Muon's Newton-Schulz matrix products under its conventions), and DeepSpeed's
BF16_Optimizer accumulation after every micro-batch (layout.bf16_optimizer).

numpy-friendly: every function broadcasts over arrays of layouts (the grid `x` of model.py).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import constants as C
from .hardware import Hardware
from .memory import expert_data_parallel_ranks
from .workload import Workload


def bf16_optimizer_pass(hw: Hardware, x: dict[str, Any], local_params: Any) -> Any:
    """Seconds per micro-batch of DeepSpeed's BF16_Optimizer accumulation (grid key bf16o): every local
    parameter's bf16 gradient cast to fp32 and added into the fp32 gradient buffer,
    BF16_OPTIMIZER_ACCUMULATE_BYTES of HBM traffic each, on the compute stream after the backward pass."""
    if "bf16o" not in x:
        return 0.0
    seconds = local_params * C.BF16_OPTIMIZER_ACCUMULATE_BYTES / (hw.gpu.hbm_tbytes_per_s * 1e12)
    return np.where(x["bf16o"], seconds, 0.0)


def _update_shares(x: dict[str, Any]) -> tuple[Any, Any]:
    """(dense, expert) divisors of what one GPU updates under ZeRO >= 1: the dense parameters over DP x CP,
    the experts over their expert-data-parallel ranks (TP x DP x CP / (EP x ETP), at least 1); 1 below."""
    sharded = x["zero"] >= 1
    expert_ranks = expert_data_parallel_ranks(x)
    return np.where(sharded, x["dp"] * x["cp"], 1.0), np.where(sharded, expert_ranks, 1.0)


def optimizer_step(hw: Hardware, x: dict[str, Any], convention: str, wl: Workload, memory: Any) -> Any:
    """Seconds of the optimizer step: ADAM_STEP_BYTES_PER_PARAM per parameter the GPU updates (its share of
    the dense parameters over DP x CP and of the experts over their data-parallel ranks under ZeRO >= 1), and
    under Muon's conventions the Newton-Schulz products of the weights of its most loaded stage
    (newton_schulz_seconds). `memory`: model.StageMemory (dense_local, expert_local, layers_per_stage)."""
    dense_shares, expert_shares = _update_shares(x)
    params = memory.dense_local / dense_shares
    if wl.n_moe_layers > 0:
        params = params + memory.expert_local / expert_shares
    seconds = params * C.ADAM_STEP_BYTES_PER_PARAM / (hw.gpu.hbm_tbytes_per_s * 1e12)
    if convention in C.MUON_CONVENTIONS:
        seconds = seconds + newton_schulz_seconds(wl, hw, x, memory.layers_per_stage)
    return seconds


def _newton_schulz(a: Any, b: Any) -> Any:
    """FLOPs of constants.MUON_NS_STEPS quintic Newton-Schulz iterations on an a x b matrix (arrays)."""
    m, n = np.minimum(a, b), np.maximum(a, b)
    return C.MUON_NS_STEPS * (4.0 * m * m * n + 2.0 * m * m * m)


def newton_schulz_flops(wl: Workload, x: dict[str, Any], layers: Any) -> Any:
    """FLOPs of Muon's orthogonalisation one GPU runs per step (constants.MUON_CONVENTIONS): the 2-D weights
    of its `layers` layers, each TP rank's shard of a tensor-parallel matrix (blockwise), the dense ones
    shared over the data-parallel ranks and the experts over their expert-data-parallel ranks under ZeRO >= 1
    (the LayerWiseDistributedOptimizer: whole parameters per rank). Multi-head latent attention's down- and
    up-projections and output (its ranks stated), else the fused QKV and the output projection; dense MLPs in
    the dense layers, shared experts and E / EP local experts in the MoE layers (fc1 of a gated MLP is one
    2f x h matrix, as Megatron-Core holds it)."""
    tp, etp = x["tp"], x["etp"]
    dense_shares, expert_shares = _update_shares(x)
    h = float(wl.hidden)
    g = 2.0 if wl.activation == "swiglu" else 1.0
    if wl.latent_up_params is not None:
        qk, v, rope = float(wl.qk_head_dim or 0), float(wl.v_head_dim or 0), float(wl.qk_rope_head_dim or 0)
        r_q, r_kv, heads = wl.q_lora_rank, float(wl.kv_lora_rank or 0), float(wl.heads)
        query = (
            _newton_schulz(h, float(r_q)) + _newton_schulz(float(r_q), heads * qk / tp)
            if r_q
            else _newton_schulz(h, heads * qk / tp)
        )
        keys_values = _newton_schulz(h, r_kv + rope) + _newton_schulz(r_kv, heads * (qk - rope + v) / tp)
        attention = query + keys_values + _newton_schulz(heads * v / tp, h)
    else:
        qkv = float(wl.attention_dim + 2 * wl.kv_dim)
        attention = _newton_schulz(h, qkv / tp) + _newton_schulz(float(wl.attention_dim) / tp, h)
    f = float(wl.ffn_hidden)
    mlp = _newton_schulz(h, g * f / tp) + _newton_schulz(f / tp, h)
    dense = attention + wl.n_dense_layers / wl.layers * mlp
    experts = 0.0
    if wl.moe is not None:
        moe_share = wl.n_moe_layers / wl.layers
        f_e = float(wl.moe.expert_ffn_hidden)
        shared = float(wl.moe.shared_experts) * f_e
        if shared:
            dense = dense + moe_share * (_newton_schulz(h, g * shared / tp) + _newton_schulz(shared / tp, h))
        one = _newton_schulz(h, g * f_e / etp) + _newton_schulz(f_e / etp, h)
        experts = moe_share * wl.moe.experts / x["ep"] * one / expert_shares
    return layers * (dense / dense_shares + experts)


def newton_schulz_seconds(wl: Workload, hw: Hardware, x: dict[str, Any], layers: Any) -> Any:
    """Seconds of newton_schulz_flops at the GPU's bf16 GEMM plateau (constants.MUON_CONVENTIONS)."""
    rate = hw.gpu.bf16_tflops * 1e12 * hw.gemm_efficiency_max
    return newton_schulz_flops(wl, x, layers) / rate
