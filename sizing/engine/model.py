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
        # routed-expert share of it: those GEMMs see only the tokens routed to each expert
        self.routed_active_per_layer = (
            wl.n_moe_layers * wl.moe.top_k * wl.mlp_params(wl.moe.expert_ffn_hidden) / L if wl.moe else 0.0
        )
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


def uses_flash_attention(wl: Workload, hw: Hardware) -> bool:
    """Fused (FlashAttention-style) attention kernels for this workload on this GPU; "auto" resolves by
    GPU generation (constants.UNFUSED_ATTENTION_GPUS)."""
    if wl.attention != "auto":
        return wl.attention == "flash"
    return hw.gpu.key not in C.UNFUSED_ATTENTION_GPUS


def attention_note(wl: Workload, hw: Hardware) -> str | None:
    """The assumption "auto" makes, for the output's `assumptions`."""
    if wl.attention != "auto":
        return None
    if uses_flash_attention(wl, hw):
        return (
            f"attention not given: fused FlashAttention-style kernels assumed on {hw.gpu.key} (no s x s "
            "scores in memory or HBM traffic; the backward pass recomputes them); set workload.attention "
            "to 'unfused' for a stack that materialises them"
        )
    return (
        f"attention not given: unfused attention (s x s scores materialised) assumed on {hw.gpu.key}, as in "
        "its calibration runs (Megatron-LM 2021-22); set workload.attention to 'flash' for a "
        "FlashAttention stack"
    )


def _coeffs(ws: WorkloadShape, flash: bool) -> tuple[float, float, float]:
    """Korthikanti activation coefficients; fused attention keeps no score term."""
    a, b, score = ws.act_coeffs
    return (a, b, 0.0) if flash else (a, b, score)


def _dp_group_times(
    hw: Hardware, stride: Any, n: Any, grads: Any, params: Any, units: Any
) -> tuple[Any, Any, Any, Any]:
    """Over one data-parallel group of n ranks `stride` apart: (all-reduce of the gradients, their
    reduce-scatter, one bucketed all-gather of the parameters, the same gather as `units` per-layer
    collectives)."""
    bw, alpha, _ = T.group_link(hw, stride, n)
    ar = T.collective_time(T.ALL_REDUCE, n, grads, bw, alpha)
    rs = T.collective_time(T.ALL_GATHER, n, grads, bw, alpha)
    ag = T.collective_time(T.ALL_GATHER, n, params, bw, alpha)
    ag_layers = ag + np.where(n > 1, alpha * (units - 1.0), 0.0)
    return ar, rs, ag, ag_layers


def _dp_comm(
    hw: Hardware,
    ws: WorkloadShape,
    tp: Any,
    dp_n: Any,
    ep: Any,
    zero: Any,
    micro: Any,
    n_layers: Any,
    dense_local: Any,
    expert_local: Any,
    st_compute: Any,
    st_recompute: Any,
) -> tuple[Any, Any]:
    """Data-parallel traffic per iteration (total, exposed) by ZeRO stage; docs/MODEL.md "ZeRO traffic".

    ZeRO-0/1 (and Megatron's distributed optimizer): one gradient all-reduce (reduce-scatter + all-gather,
    same bytes) per step, after the gradients of all micro-batches are accumulated unsharded.
    ZeRO-2: gradients are kept sharded, so they are reduce-scattered every micro-batch (DeepSpeed engine
    `allreduce_gradients`: "ZeRO stage >= 2 communicates during non gradient accumulation boundaries as
    well") and the updated bf16 parameters all-gathered once per step.
    ZeRO-3: per micro-batch an all-gather of the stage's parameters in the forward and again in the backward
    (one collective per layer) plus the gradient reduce-scatter; no per-step gather. With one micro-batch
    that is 3 x (n-1)/n x the parameter bytes = 1.5x an all-reduce, the ZeRO paper's figure (cal §3).
    Gradient traffic hides DP_OVERLAP of itself behind the backward pass; ZeRO-3 gathers hide at most
    ZERO3_PREFETCH_OVERLAP of themselves and never more than the compute of their pass.
    Expert parameters are reduced/gathered over the expert-data-parallel group (dp*cp/ep ranks).
    """
    units = n_layers + 1.0  # FSDP/DeepSpeed gather layer by layer (+ the embedding): one alpha per unit
    g_d = C.GRAD_COMM_BYTES * dense_local
    ar, rs, ag, ag_l = _dp_group_times(hw, tp, dp_n, g_d, C.PARAM_GATHER_BYTES * dense_local, units)
    if ws.expert_per_layer > 0:
        g_e = C.GRAD_COMM_BYTES * expert_local
        n_e = np.maximum(dp_n / ep, 1.0)
        ar_e, rs_e, ag_e, ag_le = _dp_group_times(
            hw, tp * ep, n_e, g_e, C.PARAM_GATHER_BYTES * expert_local, n_layers * ws.moe_fraction
        )
        ar, rs, ag, ag_l = ar + ar_e, rs + rs_e, ag + ag_e, ag_l + ag_le
    keep = 1.0 - C.DP_OVERLAP
    # ZeRO-3: forward gathers overlap the forward compute (1/3 of the GEMM time), backward gathers the
    # backward (2/3) and its recomputation
    fwd_busy = st_compute / 3.0
    bwd_busy = 2.0 * st_compute / 3.0 + st_recompute
    f = C.ZERO3_PREFETCH_OVERLAP
    ag3_exposed = (ag_l - np.minimum(f * ag_l, fwd_busy)) + (ag_l - np.minimum(f * ag_l, bwd_busy))
    z3_total = micro * (2.0 * ag_l + rs)
    z3_exposed = micro * (ag3_exposed + keep * rs)
    z2_total = micro * rs + ag
    total = np.where(zero >= 3, z3_total, np.where(zero == 2, z2_total, ar))
    exposed = np.where(zero >= 3, z3_exposed, keep * np.where(zero == 2, z2_total, ar))
    return total, exposed


def _inputs(g: dict[str, Any]) -> dict[str, Any]:
    f = np.float64
    tp = np.asarray(g["tp"], dtype=f)
    return {
        "tp": tp,
        "pp": np.asarray(g["pp"], dtype=f),
        "dp": np.asarray(g["dp"], dtype=f),
        "cp": np.asarray(g["cp"], dtype=f),
        "ep": np.asarray(g["ep"], dtype=f),
        "zero": np.asarray(g["zero"]),
        "mb": np.asarray(g["mb"], dtype=f),
        "rec": np.asarray(g["rec"]),
        "sp": np.asarray(g["sp"], dtype=bool) & (tp > 1),
        "v": np.asarray(g["v"], dtype=f),
    }


def _memory(
    wl: Workload, hw: Hardware, ws: WorkloadShape, x: dict[str, Any], convention: str
) -> dict[str, Any]:
    """Per-GPU memory of the most loaded (first) stage: most layers + embedding + most micro-batches in
    flight; plus the layout counts the rest of the model needs."""
    tp, pp, dp, cp, ep, zero = x["tp"], x["pp"], x["dp"], x["cp"], x["ep"], x["zero"]
    mb, rec, sp, v = x["mb"], x["rec"], x["sp"], x["v"]
    h = float(wl.hidden)
    s = float(wl.seq_len)
    gpus = tp * pp * dp * cp
    nodes = np.ceil(gpus / hw.gpus_per_node)
    micro = np.ceil(wl.global_batch / (dp * mb))  # micro-batches per replica per iteration
    n_layers = np.ceil(float(wl.layers) / pp)  # most loaded stage (uneven stages allowed)
    emb_local = float(wl.vocab) * h / tp
    dense_local = n_layers * ws.dense_per_layer / tp + emb_local
    expert_local = n_layers * ws.expert_per_layer / (tp * ep)
    shards = dp * cp
    wd, gd, od = M.model_state_bytes(dense_local, shards, zero, convention)
    if ws.expert_per_layer > 0:
        we, ge, oe = M.model_state_bytes(expert_local, np.maximum(shards / ep, 1.0), zero, convention)
        wd, gd, od = wd + we, gd + ge, od + oe
    w_bytes = wd + np.where(zero >= 3, 4.0 * ws.largest_layer / tp, 0.0)  # ZeRO-3 gather buffer
    s_local = s / cp
    coeffs = _coeffs(ws, uses_flash_attention(wl, hw))
    act_layer = M.activation_bytes_per_layer(s_local, mb, wl.hidden, coeffs, tp, sp, rec, seq_full=s)
    act = act_layer * n_layers * M.in_flight_factor(pp, v, micro)
    states = w_bytes + gd + od
    overhead = M.overhead_bytes(states + act)
    return {
        "gpus": gpus,
        "nodes": nodes,
        "micro": micro,
        "n_layers": n_layers,
        "dense_local": dense_local,
        "expert_local": expert_local,
        "s_local": s_local,
        "w_bytes": w_bytes,
        "g_bytes": gd,
        "o_bytes": od,
        "act": act,
        "overhead": overhead,
        "mem_total": states + act + overhead,
    }


def _reasons(wl: Workload, hw: Hardware, x: dict[str, Any], mem: dict[str, Any]) -> Any:
    """Infeasibility bit flags (uint8). Each test runs on its operands' own (broadcastable) shape; only the
    memory test is full-size."""
    pp, dp, mb, v, zero = x["pp"], x["dp"], x["mb"], x["v"], x["zero"]
    shape = np.broadcast_shapes(*(np.shape(a) for a in x.values()), np.shape(mem["mem_total"]))
    u8 = np.uint8
    reasons = np.zeros(shape, dtype=u8)
    reasons |= (mem["mem_total"] > hw.hbm_bytes).astype(u8) * u8(R_MEMORY)
    reasons |= (mem["nodes"] > hw.max_nodes).astype(u8) * u8(R_NODES)
    reasons |= ((zero >= 2) & (pp > 1)).astype(u8) * u8(R_ZERO_PP)
    reasons |= (dp * mb > wl.global_batch).astype(u8) * u8(R_BATCH)
    reasons |= (pp * v > wl.layers).astype(u8) * u8(R_STAGES)
    return reasons


def feasible_subgrid(
    wl: Workload,
    hw: Hardware,
    g: dict[str, Any],
    convention: str = "megatron",
    shape: WorkloadShape | None = None,
) -> tuple[Any, Any, dict[str, Any]]:
    """Memory and the other constraints over the whole broadcast grid `g`; returns (reasons with the grid's
    shape, flat indices of the feasible layouts, `g` restricted to them as 1-D arrays). The search runs the
    time model on the feasible layouts only (about a third of the grid)."""
    ws = shape or WorkloadShape(wl)
    x = _inputs(g)
    reasons = _reasons(wl, hw, x, _memory(wl, hw, ws, x, convention))
    idx = np.flatnonzero(reasons == 0)
    if reasons.ndim != 2:
        sub = {k: np.broadcast_to(np.asarray(a), reasons.shape).reshape(-1)[idx] for k, a in g.items()}
        return reasons, idx, sub
    # (rows, 1) structure fields and (1, cols) option fields: index each by its own axis, no full copies
    rows, cols = np.divmod(idx, reasons.shape[1])
    sub = {}
    for k, a in g.items():
        a = np.asarray(a)
        if a.ndim == 2 and a.shape[1] == 1:
            sub[k] = a[rows, 0]
        elif a.ndim == 2 and a.shape[0] == 1:
            sub[k] = a[0, cols]
        else:
            sub[k] = np.broadcast_to(a, reasons.shape)[rows, cols]
    return reasons, idx, sub


def evaluate_grid(
    wl: Workload,
    hw: Hardware,
    g: dict[str, Any],
    convention: str = "megatron",
    shape: WorkloadShape | None = None,
) -> dict[str, Any]:
    """Memory and time for every layout in `g` (keys tp, pp, dp, cp, ep, zero, mb, rec, sp, v)."""
    ws = shape or WorkloadShape(wl)
    x = _inputs(g)
    tp, pp, dp, cp, ep, zero = x["tp"], x["pp"], x["dp"], x["cp"], x["ep"], x["zero"]
    mb, rec, sp, v = x["mb"], x["rec"], x["sp"], x["v"]
    L = float(wl.layers)
    h = float(wl.hidden)
    s = float(wl.seq_len)
    V = float(wl.vocab)

    mem = _memory(wl, hw, ws, x, convention)
    gpus, nodes, micro, n_layers = mem["gpus"], mem["nodes"], mem["micro"], mem["n_layers"]
    dense_local, expert_local, s_local = mem["dense_local"], mem["expert_local"], mem["s_local"]
    slack = n_layers * pp - L  # layers the last stage can give up to balance the output layer

    # ---------------- compute per layer per micro-batch on one GPU ----------------------------------
    tokens = mb * s_local
    gsize = tokens * h * h / tp
    eff = T.gemm_efficiency(hw, gsize)
    peak16 = hw.gpu.bf16_tflops * 1e12
    peak_lin = peak16
    if wl.precision == "fp8" and hw.gpu.fp8_tflops:
        peak_lin = hw.gpu.fp8_tflops * 1e12 * C.FP8_EFFICIENCY_FACTOR
    lin_fwd = 2.0 * tokens * (ws.matmul_active_per_layer - ws.routed_active_per_layer) / tp / (peak_lin * eff)
    if ws.routed_active_per_layer > 0:
        # a routed expert GEMM has tokens x top_k x ep / experts rows (the all-to-all brings it the tokens of
        # its EP group): the same saturating curve, so small EP means small, inefficient expert GEMMs
        eff_e = T.gemm_efficiency(hw, tokens * ws.top_k * ep / ws.experts * h * h / tp)
        lin_fwd = lin_fwd + 2.0 * tokens * ws.routed_active_per_layer / tp / (peak_lin * eff_e)
    att_fwd = 4.0 * tokens * s * ws.attn_dim / tp / (peak16 * eff)
    layer_compute = 3.0 * (lin_fwd + att_fwd)
    flash = uses_flash_attention(wl, hw)
    coeffs = _coeffs(ws, flash)
    # fused attention: its backward recomputes the scores (FLASH_BWD_RECOMPUTE of the forward attention
    # GEMMs, every layout), so selective recompute has nothing left to recompute
    fa_bwd = C.FLASH_BWD_RECOMPUTE if flash else 0.0
    sel_att = 0.0 if flash else 1.0
    layer_recompute = fa_bwd * att_fwd + np.where(
        rec == 2, lin_fwd + att_fwd, np.where(rec == 1, sel_att * att_fwd, 0.0)
    )
    # memory-bound elementwise work, proportional to the activations it touches (constants.MEMBOUND_FACTOR)
    act_none = M.activation_bytes_per_layer(s_local, mb, wl.hidden, coeffs, tp, sp, 0, seq_full=s)
    act_scores = s_local * mb * h * coeffs[2] * s / tp  # the score term selective drops (keys: s)
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
    cp_bw, cp_alpha, _ = T.group_link(hw, tp, cp)
    kv_msg = 2.0 * tokens * wl.kv_dim * 2.0 / tp
    layer_cp = (
        (1.0 - C.CP_OVERLAP)
        * (2.0 + (rec == 2))
        * T.collective_time(T.ALL_GATHER, cp, kv_msg, cp_bw, cp_alpha)
    )
    if ws.moe_fraction > 0:
        ep_bw, ep_alpha, _ = T.group_link(hw, tp * cp, ep)
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
    pp_bw, pp_alpha, _ = T.group_link(hw, tp * cp * dp, np.minimum(pp, 2.0))
    pp_msg = act_msg / tp  # Megatron scatter/gather optimisation: each TP rank sends 1/tp
    st_pp = np.where(pp > 1, (1.0 - C.PP_OVERLAP) * 2.0 * v * (pp_alpha + pp_msg / pp_bw), 0.0)
    t_mb = st_compute + st_recompute + st_other + st_tp + st_cp + st_ep + st_pp
    bubble = (pp - 1.0) / v * t_mb

    # ---------------- per iteration --------------------------------------------------------------------
    dp_time, dp_exposed = _dp_comm(
        hw, ws, tp, dp * cp, ep, zero, micro, n_layers, dense_local, expert_local, st_compute, st_recompute
    )
    opt_params = (dense_local + expert_local) / np.where(zero >= 1, dp * cp, 1.0)
    optimizer_step = opt_params * C.ADAM_STEP_BYTES_PER_PARAM / hbm

    iteration = micro * t_mb + bubble + dp_exposed + optimizer_step
    tokens_iter = float(wl.tokens_per_iteration)
    model_flops = tokens_iter * wl.model_flops_per_token()
    att_flops_tok = 4.0 * wl.layers * s * ws.attn_dim  # forward attention GEMMs per token
    recompute_flops_tok = fa_bwd * att_flops_tok + np.where(
        rec == 2,
        2.0 * wl.layers * ws.matmul_active_per_layer + att_flops_tok,
        np.where(rec == 1, sel_att * att_flops_tok, 0.0),
    )
    hw_flops = model_flops + tokens_iter * recompute_flops_tok
    model_tf = model_flops / (gpus * iteration) / 1e12
    hw_tf = hw_flops / (gpus * iteration) / 1e12
    # MFU against the peak of the precision the GEMMs run in: fp8 only where the GPU has fp8 tensor cores
    # (an fp8 workload on an A100 runs its GEMMs in bf16, see peak_lin above)
    fp8_peak = hw.gpu.fp8_tflops if wl.precision == "fp8" else None
    mfu = model_tf / (fp8_peak or hw.gpu.bf16_tflops)
    tokens_per_s = tokens_iter / iteration

    reasons = _reasons(wl, hw, x, mem)

    return {
        "gpus": gpus,
        "nodes": nodes,
        "micro_batches": micro,
        "layers_per_stage": n_layers,
        "mem_weights": mem["w_bytes"],
        "mem_grads": mem["g_bytes"],
        "mem_optimizer": mem["o_bytes"],
        "mem_activations": mem["act"],
        "mem_overhead": mem["overhead"],
        "mem_total": mem["mem_total"],
        "t_compute": micro * st_compute,
        "t_recompute": micro * st_recompute,
        "t_tp": micro * st_tp,
        "t_pp": micro * st_pp,
        "t_dp": dp_exposed,
        "t_dp_total": dp_time,
        "t_ep": micro * st_ep,
        "t_cp": micro * st_cp,
        "t_bubble": bubble,
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
