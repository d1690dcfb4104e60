"""The vectorised core: memory and iteration time for arrays of layouts (one workload, one offering).

`evaluate_grid` takes broadcast-compatible numpy arrays of layout fields and returns arrays of results
and an infeasibility bitmask. `evaluate` (one layout) and `search` (a whole grid) both call it, so a
layout gets the same numbers whichever way it is asked for.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import constants as C
from . import memory as M
from . import timing as T
from .hardware import Hardware
from .workload import Workload

RECOMPUTE_CODES = {"none": 0, "selective": 1, "full": 2}
RECOMPUTE_NAMES = {v: k for k, v in RECOMPUTE_CODES.items()}

# infeasibility reasons (bit flags)
R_MEMORY = 1
R_NODES = 2
R_ZERO_PP = 4
R_BATCH = 8
R_STAGES = 16
REASON_TEXT = {
    R_MEMORY: "does not fit memory",
    R_NODES: "needs more nodes than the offering has",
    R_ZERO_PP: "ZeRO-2/3 cannot be combined with pipeline parallelism",
    R_BATCH: "global batch too small for this data-parallel size and micro-batch",
    R_STAGES: "more pipeline stages (x virtual stages) than layers",
}


class WorkloadShape:
    """Per-workload scalars used by every layout (computed once)."""

    def __init__(self, wl: Workload) -> None:
        self.wl = wl
        L = wl.layers
        self.matmul_active_per_layer = wl.active_matmul_params_per_layer()
        self.dense_per_layer = (wl.dense_params_total()) / L
        self.expert_per_layer = wl.expert_params_total() / L
        self.moe_fraction = wl.n_moe_layers / L
        self.top_k = wl.moe.top_k if wl.moe else 0
        self.experts = wl.moe.experts if wl.moe else 1
        # activations: MLP intermediates per token per layer, averaged over dense and MoE layers
        per_f = 6.0 if wl.activation == "swiglu" else 4.0
        mlp_dense = per_f * wl.ffn_hidden / wl.hidden
        if wl.moe:
            k = wl.moe.top_k + wl.moe.shared_experts
            mlp_moe = per_f * k * wl.moe.expert_ffn_hidden / wl.hidden
            mlp = (wl.n_dense_layers * mlp_dense + wl.n_moe_layers * mlp_moe) / L
        else:
            mlp = mlp_dense
        self.act_coeffs = M.activation_coefficients(wl.hidden, wl.heads, wl.kv_dim, mlp)
        self.attn_dim = wl.heads * wl.head_dim
        # largest layer's parameters (ZeRO-3 gathers one layer at a time)
        self.largest_layer = wl.attention_params() + max(
            wl.mlp_params(wl.ffn_hidden) if wl.n_dense_layers else 0.0,
            (wl.moe.experts + wl.moe.shared_experts) * wl.mlp_params(wl.moe.expert_ffn_hidden)
            if wl.moe
            else 0.0,
        )


def evaluate_grid(
    wl: Workload,
    hw: Hardware,
    g: dict[str, Any],
    convention: str = "megatron",
    shape: WorkloadShape | None = None,
) -> dict[str, Any]:
    """Memory and time for every layout in `g` (keys tp, pp, dp, cp, ep, zero, mb, rec, sp, v)."""
    ws = shape or WorkloadShape(wl)
    f = np.float64
    tp = np.asarray(g["tp"], dtype=f)
    pp = np.asarray(g["pp"], dtype=f)
    dp = np.asarray(g["dp"], dtype=f)
    cp = np.asarray(g["cp"], dtype=f)
    ep = np.asarray(g["ep"], dtype=f)
    zero = np.asarray(g["zero"])
    mb = np.asarray(g["mb"], dtype=f)
    rec = np.asarray(g["rec"])
    sp = np.asarray(g["sp"], dtype=bool) & (tp > 1)
    v = np.asarray(g["v"], dtype=f)
    L = float(wl.layers)
    h = float(wl.hidden)
    s = float(wl.seq_len)
    V = float(wl.vocab)
    gpn = hw.gpus_per_node

    gpus = tp * pp * dp * cp
    nodes = np.ceil(gpus / gpn)
    micro = np.ceil(wl.global_batch / (dp * mb))  # micro-batches per replica per iteration
    n_layers = np.ceil(L / pp)  # most loaded stage (uneven stages allowed)
    slack = n_layers * pp - L  # layers the last stage can give up to balance the output layer

    # ---------------- memory (first stage: most layers + embedding + most micro-batches in flight) -----
    emb_local = V * h / tp
    dense_local = n_layers * ws.dense_per_layer / tp + emb_local
    expert_local = n_layers * ws.expert_per_layer / (tp * ep)
    shards = dp * cp
    wd, gd, od = M.model_state_bytes(dense_local, shards, zero, convention)
    we, ge, oe = M.model_state_bytes(expert_local, np.maximum(shards / ep, 1.0), zero, convention)
    w_bytes = wd + we + np.where(zero >= 3, 4.0 * ws.largest_layer / tp, 0.0)  # ZeRO-3 gather buffer
    g_bytes = gd + ge
    o_bytes = od + oe
    s_local = s / cp
    act_layer = M.activation_bytes_per_layer(s_local, mb, wl.hidden, ws.act_coeffs, tp, sp, rec, seq_full=s)
    act = act_layer * n_layers * M.in_flight_factor(pp, v, micro)
    states = w_bytes + g_bytes + o_bytes
    overhead = M.overhead_bytes(states + act)
    mem_total = states + act + overhead

    # ---------------- compute per layer per micro-batch on one GPU ----------------------------------
    tokens = mb * s_local
    gsize = tokens * h * h / tp
    eff = T.gemm_efficiency(hw, gsize)
    peak16 = hw.gpu.bf16_tflops * 1e12
    peak_lin = peak16
    if wl.precision == "fp8" and hw.gpu.fp8_tflops:
        peak_lin = hw.gpu.fp8_tflops * 1e12 * C.FP8_EFFICIENCY_FACTOR
    lin_fwd = 2.0 * tokens * ws.matmul_active_per_layer / tp / (peak_lin * eff)
    att_fwd = 4.0 * tokens * s * ws.attn_dim / tp / (peak16 * eff)
    layer_compute = 3.0 * (lin_fwd + att_fwd)
    layer_recompute = np.where(rec == 2, lin_fwd + att_fwd, np.where(rec == 1, att_fwd, 0.0))
    # memory-bound elementwise work, proportional to the activations it touches (constants.MEMBOUND_FACTOR)
    act_none = M.activation_bytes_per_layer(s_local, mb, wl.hidden, ws.act_coeffs, tp, sp, 0, seq_full=s)
    act_scores = act_none - M.activation_bytes_per_layer(s_local, mb, wl.hidden, ws.act_coeffs, tp, sp, 1)
    hbm = hw.gpu.hbm_tbytes_per_s * 1e12
    passes = 3.0 + (rec == 2)
    layer_membound = C.MEMBOUND_FACTOR * (passes * act_none + (rec == 1) * act_scores) / hbm

    # ---------------- communication per layer per micro-batch ---------------------------------------
    act_msg = tokens * h * 2.0  # bf16 activations of one micro-batch
    n_tp_coll = 4.0 + 2.0 * (rec == 2)  # 2 fwd + 2 bwd (+2 in the recomputed forward)
    tp_bw, tp_alpha, tp_cross = T.group_link(hw, 1.0, tp)
    # sequence parallelism: all-gather + reduce-scatter in place of each all-reduce: same bytes, 2x alpha
    tp_one = T.collective_time(T.ALL_REDUCE, tp, act_msg, tp_bw, np.where(sp, 2.0 * tp_alpha, tp_alpha))
    layer_tp = n_tp_coll * tp_one
    cp_bw, cp_alpha, cp_cross = T.group_link(hw, tp, cp)
    kv_msg = 2.0 * tokens * wl.kv_dim * 2.0 / tp
    layer_cp = (
        (1.0 - C.CP_OVERLAP)
        * (2.0 + (rec == 2))
        * T.collective_time(T.ALL_GATHER, cp, kv_msg, cp_bw, cp_alpha)
    )
    if ws.moe_fraction > 0:
        ep_bw, ep_alpha, ep_cross = T.group_link(hw, tp * cp, ep)
        a2a_msg = tokens * ws.top_k * h * 2.0 / tp
        n_a2a = 4.0 + 2.0 * (rec == 2)
        layer_ep = (
            (1.0 - C.EP_OVERLAP)
            * ws.moe_fraction
            * n_a2a
            * T.collective_time(T.ALL_GATHER, ep, a2a_msg, ep_bw, ep_alpha)
        )
    else:
        layer_ep = np.zeros_like(tp)
        ep_cross = np.zeros_like(tp, dtype=bool)

    # ---------------- stage time per micro-batch (the slowest stage sets the pace) -------------------
    logits_fwd = 2.0 * tokens * h * V / tp / (peak16 * T.gemm_efficiency(hw, tokens * h * V / tp))
    logits = 3.0 * logits_fwd  # the output layer is not recomputed (cal §2, eq. 3's V/16lh term)
    layers_last = np.where(pp > 1, np.maximum(n_layers - slack, 0.0), n_layers)
    per_layer = layer_compute + layer_recompute + layer_membound + layer_tp + layer_cp + layer_ep
    last_binds = layers_last * per_layer + logits > n_layers * per_layer
    n_bind = np.where(last_binds, layers_last, n_layers)
    lg = np.where(last_binds, logits, 0.0)
    st_compute = n_bind * layer_compute + lg
    st_recompute = n_bind * layer_recompute
    st_other = n_bind * layer_membound
    st_tp = n_bind * layer_tp
    st_cp = n_bind * layer_cp
    st_ep = n_bind * layer_ep
    pp_bw, pp_alpha, pp_cross = T.group_link(hw, tp * cp * dp, np.minimum(pp, 2.0))
    pp_msg = act_msg / tp  # Megatron scatter/gather optimisation: each TP rank sends 1/tp
    st_pp = np.where(pp > 1, (1.0 - C.PP_OVERLAP) * 2.0 * v * (pp_alpha + pp_msg / pp_bw), 0.0)
    t_mb = st_compute + st_recompute + st_other + st_tp + st_cp + st_ep + st_pp
    bubble = (pp - 1.0) / v * t_mb

    # ---------------- per iteration --------------------------------------------------------------------
    dp_n = dp * cp
    dp_bw, dp_alpha, dp_cross = T.group_link(hw, tp, dp_n)
    grad_bytes = C.GRAD_COMM_BYTES * (dense_local + expert_local)
    dp_kind_factor = np.where(zero >= 3, 1.5, 1.0)  # ZeRO-3 re-gathers parameters: 1.5x the traffic
    dp_time = dp_kind_factor * T.collective_time(T.ALL_REDUCE, dp_n, grad_bytes, dp_bw, dp_alpha)
    dp_exposed = (1.0 - C.DP_OVERLAP) * dp_time
    opt_params = (dense_local + expert_local) / np.where(zero >= 1, shards, 1.0)
    optimizer_step = opt_params * C.ADAM_STEP_BYTES_PER_PARAM / hbm

    iteration = micro * t_mb + bubble + dp_exposed + optimizer_step
    # exposed communication that runs over the inter-node fabric (groups whose placement spans nodes);
    # the search prefers layouts that depend less on it (constants.SELECTION_BAND)
    inter_mb = st_tp * tp_cross + st_cp * cp_cross + st_ep * ep_cross + st_pp * pp_cross
    t_inter = micro * inter_mb + dp_exposed * dp_cross
    tokens_iter = float(wl.tokens_per_iteration)
    model_flops = tokens_iter * wl.model_flops_per_token()
    recompute_flops_tok = np.where(
        rec == 2,
        2.0 * wl.layers * ws.matmul_active_per_layer + 4.0 * wl.layers * s * ws.attn_dim,
        np.where(rec == 1, 4.0 * wl.layers * s * ws.attn_dim, 0.0),
    )
    hw_flops = model_flops + tokens_iter * recompute_flops_tok
    model_tf = model_flops / (gpus * iteration) / 1e12
    hw_tf = hw_flops / (gpus * iteration) / 1e12
    mfu = model_tf / hw.gpu.bf16_tflops if wl.precision == "bf16" else model_tf / (hw.gpu.fp8_tflops or 1.0)
    tokens_per_s = tokens_iter / iteration

    reasons = np.zeros(np.broadcast(tp, pp, dp, cp, ep, zero, mb, rec, v).shape, dtype=np.int64)
    reasons = reasons | np.where(mem_total > hw.hbm_bytes, R_MEMORY, 0)
    reasons = reasons | np.where(nodes > hw.max_nodes, R_NODES, 0)
    reasons = reasons | np.where((zero >= 2) & (pp > 1), R_ZERO_PP, 0)
    reasons = reasons | np.where(dp * mb > wl.global_batch, R_BATCH, 0)
    reasons = reasons | np.where(pp * v > L, R_STAGES, 0)

    return {
        "gpus": gpus,
        "nodes": nodes,
        "micro_batches": micro,
        "layers_per_stage": n_layers,
        "mem_weights": w_bytes,
        "mem_grads": g_bytes,
        "mem_optimizer": o_bytes,
        "mem_activations": act,
        "mem_overhead": overhead,
        "mem_total": mem_total,
        "t_compute": micro * st_compute,
        "t_recompute": micro * st_recompute,
        "t_tp": micro * st_tp,
        "t_pp": micro * st_pp,
        "t_dp": dp_exposed,
        "t_dp_total": dp_time,
        "t_ep": micro * st_ep,
        "t_cp": micro * st_cp,
        "t_bubble": bubble,
        "t_inter": t_inter,
        "t_other": micro * st_other + optimizer_step,
        "iteration": iteration,
        "model_tflops": model_tf,
        "hw_tflops": hw_tf,
        "mfu": mfu,
        "tokens_per_s": tokens_per_s,
        "gemm_efficiency": eff,
        "reasons": reasons,
        "tp_crosses_nodes": tp_cross & (tp > 1),
    }
