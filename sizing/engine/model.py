"""The vectorised core: memory and iteration time for arrays of layouts (one workload, one offering).

`evaluate_grid` takes broadcast-compatible numpy arrays of layout fields and returns arrays of results and
an infeasibility bitmask. `evaluate` (one layout) and `search` (a grid) both call it: the same numbers.

The grid `g` is a dict of arrays keyed tp, pp, dp, cp, ep, zero, mb (micro-batch), rec (recompute code,
memory.RECOMPUTE_*), sp (sequence parallel), v (virtual stages), and optionally etp (expert tensor parallel,
default tp), the overlap flags tpo, ogr, opg, ppo (overlap.OVERLAP_GRID_KEYS; default: the framework
default of the GPU), dsp (DeepSpeed's pipeline engine, pipeline.py; default Megatron's) and gr32 (gradients
reduced in fp32, zero.py; default bf16), raf (ZeRO-3 reshard after forward, zero.py; default true), dedup
(MoE token dispatcher deduplicates per destination, timing.all_to_all_time; default by GPU), fsl / lsl and
aemb / aloss (the pipeline split, stages.py; default ceil(L / p)), sched (the schedule's runs per step;
default 1), xent (the loss's implementation, loss.py; default by GPU); `x` is the same dict as arrays
(`_inputs`). Single letters in formulas follow the papers' notation: h hidden, s sequence, L layers, V
vocabulary.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

import numpy as np

from hardware.messages import _

from . import checkpointing as CK
from . import constants as C
from . import context as CP
from . import eager as E
from . import gradients as G
from . import loss as LOSS
from . import memory as M
from . import pipeline as P
from . import stages as S
from . import timing as T
from . import zero as Z
from .hardware import Hardware
from .memory import RECOMPUTE_CODES, RECOMPUTE_FULL, RECOMPUTE_NAMES, RECOMPUTE_NONE, RECOMPUTE_SELECTIVE
from .overlap import (
    DISPATCHER_DEDUP,
    ZERO3_GRID_DEFAULTS,
    default_dispatcher,
    grid_defaults,
    hidden_all_to_alls,
    reduces_grads_in_fp32,
)
from .subgrid import subgrid_picker
from .workload import Workload

__all__ = [
    "RECOMPUTE_CODES",
    "RECOMPUTE_FULL",
    "RECOMPUTE_NAMES",
    "RECOMPUTE_NONE",
    "RECOMPUTE_SELECTIVE",
    "REASON_TEXT",
    "WorkloadShape",
    "attention_note",
    "evaluate_grid",
    "GridModel",
    "uses_flash_attention",
]

# infeasibility reasons (bit flags)
R_MEMORY = 1
R_NODES = 2
R_ZERO_PP = 4
R_BATCH = 8
R_STAGES = 16
R_INTERLEAVE = 32
REASON_TEXT = {
    R_MEMORY: _("does not fit memory"),
    R_NODES: _("needs more nodes than the offering has"),
    R_ZERO_PP: _("ZeRO-2/3 cannot be combined with pipeline parallelism"),
    R_BATCH: _("global batch too small for this data-parallel size and micro-batch"),
    R_STAGES: _("more pipeline stages (x virtual stages) than layers"),
    R_INTERLEAVE: _("the interleaved schedule needs the micro-batches per replica to be a multiple of PP"),
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
        self.top_k, self.experts = (wl.moe.top_k, wl.moe.experts) if wl.moe else (0, 1)
        self.expert_ffn = wl.moe.expert_ffn_hidden if wl.moe else 0
        imbalance = wl.moe.load_imbalance if wl.moe else None
        self.load_imbalance = C.MOE_LOAD_IMBALANCE if imbalance is None else imbalance
        # activations: MLP intermediates per token per layer, averaged over dense and MoE layers; an MoE
        # layer's experts also keep their inputs, one h-wide copy per routed token (`routed_in`, the grouped
        # FC1's saved input; a shared expert reads the norm output, counted in the nonsplit term)
        per_f = 6.0 if wl.activation == "swiglu" else 4.0
        mlp_dense = per_f * wl.ffn_hidden / wl.hidden
        fc2_dense = float(wl.ffn_hidden)
        if wl.moe:
            k = wl.moe.top_k + wl.moe.shared_experts
            mlp_moe = per_f * k * wl.moe.expert_ffn_hidden / wl.hidden + 2.0 * wl.moe.top_k
            mlp = (wl.n_dense_layers * mlp_dense + wl.n_moe_layers * mlp_moe) / L
            fc2_moe = k * wl.moe.expert_ffn_hidden + wl.moe.top_k * wl.hidden  # FC2's, routed FC1's inputs
            fc2 = (wl.n_dense_layers * fc2_dense + wl.n_moe_layers * fc2_moe) / L
        else:
            mlp, fc2 = mlp_dense, fc2_dense
        coefficients = M.activation_coefficients
        self.activation_coeffs = coefficients(wl.hidden, wl.heads, wl.kv_dim, mlp, **wl.core_widths)
        self.fp8_inputs_per_h = (wl.output_dim + fc2) / wl.hidden  # linear-layer inputs of the split term
        self.routed_in_per_h = wl.n_moe_layers * wl.moe.top_k / L if wl.moe else 0.0
        self.router_input_fp8 = self.moe_fraction * (1.0 + bool(wl.moe and wl.moe.shared_experts))
        self.attention_dim = wl.attention_dim
        self.attention_core_dim = wl.attention_core_dim  # the scores' and values' width (MLA differs)
        # elements per token Transformer Engine casts to fp8 per layer, forward and backward
        self.fp8_cast_forward, self.fp8_cast_backward = wl.fp8_cast_widths()
        # largest layer's parameters (ZeRO-3 gathers one layer at a time): dense part (/tp) and experts
        # (/(etp x ep))
        dense_mlp = wl.mlp_params(wl.ffn_hidden) if wl.n_dense_layers else 0.0
        shared = wl.moe.shared_experts * wl.mlp_params(wl.moe.expert_ffn_hidden) if wl.moe else 0.0
        self.largest_layer_dense = wl.attention_params() + max(dense_mlp, shared)
        self.largest_layer_experts = (
            wl.moe.experts * wl.mlp_params(wl.moe.expert_ffn_hidden) if wl.moe else 0.0
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
        return _(
            "attention not given: fused FlashAttention-style kernels assumed on %(gpu)s (no s x s scores in "
            "memory or HBM traffic; the backward pass recomputes them); set workload.attention to 'unfused' "
            "for a stack that materialises them",
            gpu=hw.gpu.name,
        )
    return _(
        "attention not given: unfused attention (s x s scores materialised) assumed on %(gpu)s, as in its "
        "calibration runs (Megatron-LM 2021-22); set workload.attention to 'flash' for a FlashAttention "
        "stack",
        gpu=hw.gpu.name,
    )


def _coeffs(
    wl: Workload, hw: Hardware, shape: WorkloadShape, flash: bool, routed: bool = True
) -> tuple[float, float, float]:
    """Korthikanti activation coefficients (memory.activation_coefficients) adjusted for the stack:
    - fused attention keeps no score term;
    - without dropout (Llama, Qwen, DeepSeek) the two dropout masks (1 byte each, nonsplit) and the
      attention-probability mask and its output (3 of the 5 a s / h score bytes) are not stored;
    - fp8 linear layers: Transformer Engine saves each linear layer's input in fp8 for the weight gradient,
      1 byte for the QKV and FC1 (nonsplit), output-projection, FC2 and routed FC1 inputs (split); an MoE
      layer's norm output stays bf16 for the router (RouterGatingLinearFunction), a shared expert's cast too;
    - `routed` False leaves the experts' FC1 inputs out (the memory-bound time charges their permutation)."""
    a, b, score = shape.activation_coeffs
    if not wl.dropout:
        a, score = a - 2.0, score * 2.0 / 5.0
    fp8 = _fp8_linears(wl, hw)
    if fp8:
        a, b = a - 2.0 + shape.router_input_fp8, b - shape.fp8_inputs_per_h
    b = b if routed else b - (1.0 if fp8 else 2.0) * shape.routed_in_per_h
    return (a, b, 0.0) if flash else (a, b, score)


def _fp8_linears(wl: Workload, hw: Hardware) -> bool:
    """Whether the linear layers run in fp8: an fp8 workload on a GPU with fp8 tensor cores."""
    return wl.precision == "fp8" and bool(hw.gpu.fp8_tflops)


def _linear_peak(wl: Workload, hw: Hardware) -> float:
    """FLOP/s of the linear layers' GEMMs: fp8 (derated) where the workload asks for it and the GPU has
    fp8 tensor cores, else bf16. Attention BMMs, norms and the optimizer stay in bf16/fp32 (Transformer
    Engine's fp8 recipe covers the Linear modules only)."""
    if _fp8_linears(wl, hw):
        sustained = C.FP8_SUSTAINED_RATE_FACTOR.get(hw.gpu.key, 1.0)
        return float(hw.gpu.fp8_tflops or 0.0) * 1e12 * C.FP8_EFFICIENCY_FACTOR * sustained
    return hw.gpu.bf16_tflops * 1e12


def _recomputed(mode: Any, flash: bool, attention: Any, linear: Any) -> Any:
    """Forward work run again in the backward pass, in the units of `attention` (the forward attention
    GEMMs) and `linear` (the other forward GEMMs): time or FLOPs alike.

    Fused attention: its backward recomputes the scores (FLASH_BWD_RECOMPUTE of the forward attention
    GEMMs, every layout), so selective recompute has nothing left to recompute. Full recompute reruns the
    whole forward."""
    flash_backward = C.FLASH_BWD_RECOMPUTE if flash else 0.0
    selective_share = 0.0 if flash else 1.0
    return flash_backward * attention + np.where(
        mode == RECOMPUTE_FULL,
        linear + attention,
        np.where(mode == RECOMPUTE_SELECTIVE, selective_share * attention, 0.0),
    )


def _inputs(g: dict[str, Any], defaults: dict[str, bool], fp32_grads: bool) -> dict[str, Any]:
    """The grid as float arrays; missing keys take defaults (etp = tp; the overlap flags the framework
    default of the GPU; gr32 `fp32_grads` with ZeRO-0/1, overlap.reduces_grads_in_fp32)."""
    f = np.float64
    tp = np.asarray(g["tp"], dtype=f)
    out = {
        "tp": tp,
        "pp": np.asarray(g["pp"], dtype=f),
        "dp": np.asarray(g["dp"], dtype=f),
        "cp": np.asarray(g["cp"], dtype=f),
        "ep": np.asarray(g["ep"], dtype=f),
        "etp": np.asarray(g["etp"], dtype=f) if "etp" in g else tp,
        "zero": np.asarray(g["zero"]),
        "mb": np.asarray(g["mb"], dtype=f),
        "rec": np.asarray(g["rec"]),
        "sp": np.asarray(g["sp"], dtype=bool) & (tp > 1),
        "v": np.asarray(g["v"], dtype=f),
    }
    zero3_grid = out["zero"] >= 3
    for key, default in defaults.items():
        zero3 = ZERO3_GRID_DEFAULTS.get(key, default)
        if key in g:
            out[key] = np.asarray(g[key], dtype=bool)
        elif zero3 != default:  # ZeRO-3's own default (overlap.ZERO3_DEFAULTS)
            out[key] = zero3_grid if zero3 else ~zero3_grid
        else:
            out[key] = np.asarray(default, dtype=bool)
    # settings read only when the grid sets them, else their default: DeepSpeed's pipeline engine (dsp,
    # pipeline.py; else Megatron's), gradients reduced in fp32 (gr32, zero.py; below), ZeRO-3 parameters kept
    # gathered after the forward pass (raf false, zero.py), ZeRO-3 gathers of flat buffers or per tensor
    # (z3flat, zero.py; else the GPU's framework default), the MoE token dispatcher (dedup; else the GPU's,
    # overlap.default_dispatcher), the expert-parallel all-to-all overlap (epo, off), Transformer Engine's op
    # fuser for the experts (opf, eager.eager_bytes; off), context parallelism by all-to-all (cpa2a,
    # context.uses_all_to_all; by the workload), DeepSpeed's BF16_Optimizer pass (bf16o, _stage_times; off).
    optional = ("dsp", "gr32", "raf", "z3flat", "dedup", "epo", "opf", "cpa2a", "bf16o")
    for key in (*optional, *CK.GRID_KEYS.values()):
        if key in g:
            out[key] = np.asarray(g[key], dtype=bool)
    if fp32_grads and "gr32" not in g:
        out["gr32"] = out["zero"] <= 1
    # layers of the first and last pipeline stages (0 = unset), the embedding and loss counted as pipeline
    # layers (stages.py), the schedule's runs per step (sched), the loss's implementation (xent, loss.py; else
    # the GPU's), present only when the layout sets them
    for key in (*S.UNEVEN_ENDS, *S.PIPELINE_SLOTS, "sched", LOSS.GRID_KEY):
        if key in g:
            out[key] = np.asarray(g[key], dtype=f)
    return out


# The StageMemory fields that the time model (_layer_compute, _layer_comm, _stage_times, _iteration_times,
# _throughput) reads; GridModel.feasible_throughput carries only these from the constraints to the time model.
TIME_MODEL_MEMORY = ("gpus", "micro_batches", "layers_per_stage", "layers_last", "dense_local",
                     "expert_local", "seq_local")  # fmt: skip


@dataclass(frozen=True)
class StageMemory:
    """Per-GPU memory of the most loaded (first) pipeline stage, in bytes, and the layout counts the rest
    of the model needs (arrays over the grid)."""

    gpus: Any
    nodes: Any
    micro_batches: Any  # per replica per iteration
    layers_per_stage: Any  # of the most loaded stage (uneven stages allowed)
    layers_last: Any  # of the last stage (it also runs the output layer)
    dense_local: Any  # dense parameters held by one GPU before ZeRO (with the embedding)
    expert_local: Any  # routed-expert parameters held by one GPU before ZeRO
    seq_local: Any  # sequence share of one GPU under context parallelism
    weight_bytes: Any  # this GPU's share of the weights (partitioned under ZeRO-3)
    grad_bytes: Any
    optimizer_bytes: Any
    gathered_bytes: Any  # ZeRO-3: parameters gathered for the layers being computed (own line)
    activation_bytes: Any
    overhead_bytes: Any
    total_bytes: Any


def _memory(
    wl: Workload, hw: Hardware, shape: WorkloadShape, x: dict[str, Any], convention: str
) -> StageMemory:
    """Per-GPU memory of the most loaded stage (the first's weights with the embedding, a middle stage's with
    more layers, or the last's with the output layer; the activations of the rank that holds the most, or of
    the last with one micro-batch's logits: stages.peak_layers); plus the layout counts the rest of the model
    needs."""
    tp, pp, dp, cp, ep, etp, zero = x["tp"], x["pp"], x["dp"], x["cp"], x["ep"], x["etp"], x["zero"]
    mb, mode, sp = x["mb"], x["rec"], x["sp"]
    h = float(wl.hidden)
    s = float(wl.seq_len)
    gpus = tp * pp * dp * cp
    micro = wl.micro_batches(dp, mb)  # per replica per iteration
    n_layers, first_layers, layers_last = S.stage_layers(wl.layers, x, wl.mtp_layers)
    embedding = float(wl.vocab) * h / tp
    # multi-token prediction on the last stage: each depth's h x 2h projection, and an untied model's input
    # embedding built there too (stages.most_loaded_dense)
    mtp_extra = wl.mtp_layers * 2.0 * h * h / tp + (
        embedding if wl.mtp_layers and not wl.tied_embeddings else 0.0
    )
    dense_local = S.most_loaded_dense(
        pp, n_layers, first_layers, layers_last, shape.dense_per_layer / tp, embedding, wl.tied_embeddings,
        mtp_extra,
    )  # fmt: skip
    shards = dp * cp
    weights, grads, optimizer = M.model_state_bytes(dense_local, shards, zero, convention)
    gathered = np.where(zero >= 3, 4.0 * shape.largest_layer_dense / tp, 0.0)  # DeepSpeed estimator, cal §3
    if shape.expert_per_layer > 0:
        # experts fold over the dense ranks: EP x ETP hold one copy, replicated over tp*dp*cp / (ep*etp)
        expert_local = n_layers * shape.expert_per_layer / (etp * ep)
        expert_shards = M.expert_data_parallel_ranks(x)
        expert_states = M.model_state_bytes(expert_local, expert_shards, zero, convention)
        weights, grads, optimizer = (
            weights + expert_states[0],
            grads + expert_states[1],
            optimizer + expert_states[2],
        )
        gathered = gathered + np.where(zero >= 3, 4.0 * shape.largest_layer_experts / (etp * ep), 0.0)
    else:
        expert_local, expert_shards = 0.0, 1.0
    reshard = x.get("raf")
    if reshard is not None and not np.all(reshard):
        # FSDP2 reshard_after_forward=False: every layer of the stage stays gathered from its forward to its
        # backward pass (with 1F1B, some micro-batch's backward is always pending): the stage's parameters are
        # resident in bf16, beyond the GPU's own shard
        unsharded = dense_local * (1.0 - 1.0 / shards) + expert_local * (1.0 - 1.0 / expert_shards)
        kept = C.PARAM_GATHER_BYTES * unsharded
        gathered = np.where((zero >= 3) & ~reshard, np.maximum(gathered, kept), gathered)
    seq_local = s / cp
    coeffs = _coeffs(wl, hw, shape, uses_flash_attention(wl, hw))
    act_layer = M.activation_bytes_per_layer(seq_local, mb, wl.hidden, coeffs, tp, sp, mode, seq_full=s)
    act_layer = act_layer - CK.unkept_bytes(wl, shape, x, seq_local * mb, _fp8_linears(wl, hw))
    # the output layer's rank holds a micro-batch's logits through the loss (each MTP depth its own)
    per_logit = LOSS.held_bytes_per_logit(hw, x)
    logits = (1.0 + wl.mtp_layers) * M.logits_bytes(seq_local, mb, wl.vocab, tp, per_logit)
    held, last_held = S.peak_layers(x, micro / x.get("sched", 1.0), n_layers, first_layers, layers_last)
    activations = np.maximum(act_layer * held, act_layer * last_held + logits)
    states = weights + grads + optimizer
    overhead = M.overhead_bytes(states + gathered + activations)
    return StageMemory(
        gpus=gpus,
        nodes=np.ceil(gpus / hw.gpus_per_node),
        micro_batches=micro,
        layers_per_stage=n_layers,
        layers_last=layers_last,
        dense_local=dense_local,
        expert_local=expert_local,
        seq_local=seq_local,
        weight_bytes=weights,
        grad_bytes=grads,
        optimizer_bytes=optimizer,
        gathered_bytes=gathered,
        activation_bytes=activations,
        overhead_bytes=overhead,
        total_bytes=states + gathered + activations + overhead,
    )


def _reasons(wl: Workload, hw: Hardware, x: dict[str, Any], memory: StageMemory) -> Any:
    """Infeasibility bit flags (uint8). Each test runs on its operands' own (broadcastable) shape; only the
    memory test is full-size. ZeRO-2/3 with pipeline stages is not a reason: FSDP2 runs it (NeMo AutoModel,
    torchtitan); the search does not offer it (Megatron and DeepSpeed do not support it)."""
    pp, dp, mb, v, runs = x["pp"], x["dp"], x["mb"], x["v"], x.get("sched", 1.0)  # runs of the schedule
    grid_shape = np.broadcast_shapes(*(np.shape(a) for a in x.values()), np.shape(memory.total_bytes))
    u8 = np.uint8
    reasons = np.zeros(grid_shape, dtype=u8)
    reasons |= (memory.total_bytes > hw.hbm_bytes).astype(u8) * u8(R_MEMORY)
    reasons |= (memory.nodes > hw.max_nodes).astype(u8) * u8(R_NODES)
    reasons |= (dp * mb > wl.global_batch).astype(u8) * u8(R_BATCH)
    reasons |= (pp * v > S.slots(x, wl.layers)).astype(u8) * u8(R_STAGES)
    # Megatron's interleaved schedule runs micro-batches in groups of p (schedules.py: "number of
    # microbatches is not divisible by pipeline-parallel size when using interleaved schedule")
    if (v > 1).any():
        reasons |= ((v > 1) & (np.mod(memory.micro_batches / runs, pp) != 0)).astype(u8) * u8(R_INTERLEAVE)
    return reasons


@dataclass(frozen=True)
class LayerCompute:
    """Seconds per layer per micro-batch on one GPU (arrays over the grid), and what they derive from."""

    tokens: Any  # tokens of one micro-batch on this GPU (its sequence share under CP)
    gemm_efficiency: Any  # achieved / peak of the h x h/tp GEMMs
    compute: Any  # forward and backward GEMMs
    recompute: Any  # forward work run again in the backward pass
    membound: Any  # memory-bound elementwise work
    linear_gemms: Any  # the linear layers' GEMMs of compute + recompute (what TP overlap can hide behind)
    attention_forward: Any  # the attention core's forward (what context parallelism's K/V sends hide behind)


def _linear_forward(
    wl: Workload, hw: Hardware, shape: WorkloadShape, x: dict[str, Any], tokens: Any, gemm_efficiency: Any
) -> Any:
    """Seconds of the forward linear-layer GEMMs of one layer (dense and routed experts)."""
    h, tp, peak = float(wl.hidden), x["tp"], _linear_peak(wl, hw)
    dense = shape.matmul_active_per_layer - shape.routed_active_per_layer
    forward = 2.0 * tokens * dense / tp / (peak * gemm_efficiency)
    if shape.routed_active_per_layer > 0:
        # a local expert's GEMM has (tokens / tp) x ep x etp x top_k / experts rows (the all-to-all brings it
        # the routed tokens of its EP x ETP group) by hidden x expert_ffn / etp: the same saturating curve at
        # that size, times the grouped-GEMM share where a GPU holds several experts; the busiest rank has
        # load_imbalance x the mean rows
        rows = tokens / tp * x["ep"] * x["etp"] * shape.top_k / shape.experts
        # one local expert is one plain GEMM, not a grouped one (constants.GROUPED_GEMM_EFFICIENCY)
        grouped = np.where(shape.experts > x["ep"], C.GROUPED_GEMM_EFFICIENCY, 1.0)
        expert_efficiency = grouped * T.gemm_efficiency(hw, rows * h * shape.expert_ffn / x["etp"], peak)
        forward = forward + shape.load_imbalance * 2.0 * tokens * shape.routed_active_per_layer / tp / (
            peak * expert_efficiency
        )
    return forward


def _membound(
    wl: Workload, hw: Hardware, shape: WorkloadShape, x: dict[str, Any], seq_local: Any, flash: bool
) -> Any:
    """Seconds of memory-bound elementwise work per layer, proportional to the activations it touches
    (constants.MEMBOUND_FACTOR): 3 passes, 4 with full recompute; selective rereads the scores it drops.
    MoE layers add the router and the token permutation (constants.MOE_*); fp8 layers the casts of the
    linear layers' inputs and output gradients (constants.FP8_CAST_BYTES)."""
    tp, mb, mode = x["tp"], x["mb"], x["rec"]
    h, s = float(wl.hidden), float(wl.seq_len)
    coeffs = _coeffs(wl, hw, shape, flash, routed=False)
    act_none = M.activation_bytes_per_layer(
        seq_local, mb, wl.hidden, coeffs, tp, x["sp"], RECOMPUTE_NONE, seq_full=s
    )
    act_scores = seq_local * mb * h * coeffs[2] * s / tp  # the score term selective drops (keys: s)
    full = mode == RECOMPUTE_FULL
    passes = 3.0 + full
    touched = C.MEMBOUND_FACTOR * (passes * act_none + (mode == RECOMPUTE_SELECTIVE) * act_scores)
    tokens_per_gpu = seq_local * mb / tp  # sequence-parallel share entering the MoE dispatcher
    if shape.moe_fraction > 0:
        routed = tokens_per_gpu * shape.top_k * h * C.MOE_PERMUTE_BYTES * (2.0 + full)
        router = tokens_per_gpu * shape.experts * C.MOE_ROUTER_BYTES * (2.0 + full)
        touched = touched + shape.moe_fraction * (routed + router)
    if (x["cp"] > 1).any():
        touched = touched + CP.merge_bytes(wl, x, seq_local, full)
    eager = E.eager_bytes(wl, hw, shape, x, tokens_per_gpu, full) + CK.rerun_bytes(
        wl, shape, x, seq_local * mb
    )
    touched = touched + eager
    if _fp8_linears(wl, hw):
        # forward input casts (twice with full recompute) and backward output-gradient casts
        widths = (1.0 + full) * shape.fp8_cast_forward + shape.fp8_cast_backward
        touched = touched + tokens_per_gpu * widths * C.FP8_CAST_BYTES
    return touched / (hw.gpu.hbm_tbytes_per_s * 1e12)


def _layer_compute(
    wl: Workload, hw: Hardware, shape: WorkloadShape, x: dict[str, Any], memory: StageMemory
) -> LayerCompute:
    """Compute per layer per micro-batch on one GPU."""
    h, tp = float(wl.hidden), x["tp"]
    tokens = x["mb"] * memory.seq_local
    gemm_efficiency = T.gemm_efficiency(hw, tokens * h * h / tp, _linear_peak(wl, hw))
    linear_forward = _linear_forward(wl, hw, shape, x, tokens, gemm_efficiency)
    bf16 = hw.gpu.bf16_tflops * 1e12  # the attention BMMs stay in bf16
    attention_efficiency = T.gemm_efficiency(hw, tokens * h * h / tp, bf16)
    span = wl.attention_span  # the keys per query, fewer with sliding-window layers
    attention_forward = 4.0 * tokens * span * shape.attention_core_dim / tp / (bf16 * attention_efficiency)
    flash = uses_flash_attention(wl, hw)
    recompute = _recomputed(x["rec"], flash, attention_forward, linear_forward) + CK.rerun_seconds(
        wl, shape, x, (tokens, _linear_peak(wl, hw), gemm_efficiency), (attention_forward, flash)
    )
    return LayerCompute(
        tokens=tokens,
        gemm_efficiency=gemm_efficiency,
        compute=3.0 * (linear_forward + attention_forward),
        recompute=recompute,
        membound=_membound(wl, hw, shape, x, memory.seq_local, flash),
        linear_gemms=linear_forward * (3.0 + (x["rec"] == RECOMPUTE_FULL)),
        attention_forward=attention_forward,
    )


@dataclass(frozen=True)
class LayerComm:
    """Exposed communication seconds per micro-batch on one GPU (arrays over the grid): per layer for
    TP, CP and EP, per stage boundary for PP (blocking sends), and the per-iteration pipeline-send chain of
    an overlapped interleaved schedule."""

    tp: Any
    cp: Any
    ep: Any
    pp: Any
    pp_chain: Any  # per iteration
    tp_crosses_nodes: Any


def _tensor_parallel_comm(
    hw: Hardware, x: dict[str, Any], activation_msg: Any, linear_gemms: Any
) -> tuple[Any, Any]:
    """(exposed seconds per layer, whether the TP group crosses the scale-up domain): 2 all-reduces
    forward, 2 backward, 2 more in the recomputed forward; with sequence parallelism each is an all-gather
    + reduce-scatter (same bytes, twice the start-up). With tp_comm_overlap (Transformer Engine userbuffers,
    which needs sequence parallelism and a TP group inside the NVLink domain) they run under the linear
    layers' GEMMs in chunks: exposed is what the GEMMs cannot cover, and at least the first/last chunk
    (constants.TP_OVERLAP_PIPELINE_SPLITS)."""
    tp, sp = x["tp"], x["sp"]
    collectives = 4.0 + 2.0 * (x["rec"] == RECOMPUTE_FULL)
    bw, steps, crosses = T.group_link(hw, 1.0, tp)
    all_reduce = T.collective_time(T.ALL_REDUCE, tp, activation_msg, bw, steps)
    gather_scatter = 2.0 * T.collective_time(T.ALL_GATHER, tp, activation_msg, bw, steps)
    comm = collectives * np.where(sp, gather_scatter, all_reduce)
    # userbuffers move data over NVLink (CUDA IPC / multi-node NVLink): no overlap for a TP group that
    # leaves the scale-up domain
    overlap = x["tpo"] & sp & ~crosses
    if not np.asarray(overlap).any():
        return comm, crosses
    unhidden = (1.0 / tp + 1.0 / C.TP_OVERLAP_PIPELINE_SPLITS) / 2.0
    overlapped = np.maximum(comm - linear_gemms, unhidden * comm)
    return np.where(overlap, overlapped, comm), crosses


def _expert_parallel_comm(
    wl: Workload, hw: Hardware, shape: WorkloadShape, x: dict[str, Any], compute: LayerCompute, micro: Any
) -> Any:
    """Seconds per layer (averaged over dense and MoE layers) of the token all-to-alls, dispatch and
    combine, forward and backward (+ the recomputed forward): every token's top_k copies of the hidden
    vector in bf16 over the EP group (stride etp), the busiest rank carrying load_imbalance x the mean.
    With the all-to-all overlap (epo) what overlap.hidden_all_to_alls hides is off the critical path."""
    tp = x["tp"]
    if shape.moe_fraction <= 0:
        return np.zeros_like(tp)
    a2a_bytes = shape.load_imbalance * compute.tokens / tp * shape.top_k * float(wl.hidden) * 2.0
    n_a2a = 4.0 + 2.0 * (x["rec"] == RECOMPUTE_FULL)
    # the token dispatcher (layout.moe_dispatcher): deduplicating (DeepEP/HybridEP) unless the grid says
    # otherwise, on the GPUs whose framework default is Megatron-Core 2024+ (overlap.default_dispatcher)
    dedup = x.get("dedup", default_dispatcher(hw) == DISPATCHER_DEDUP)
    one = T.all_to_all_time(hw, x["etp"], x["ep"], a2a_bytes, shape.top_k, dedup)
    exposed = (1.0 - C.EP_OVERLAP) * shape.moe_fraction * n_a2a * one
    if "epo" not in x or not np.any(x["epo"]):
        return exposed
    forward_a2a = 2.0 * shape.moe_fraction * one
    overlapped = hidden_all_to_alls(
        x, compute.compute, compute.recompute, micro, forward_a2a, exposed - forward_a2a
    )
    return np.where(x["epo"], overlapped, exposed)


def _layer_comm(
    wl: Workload, hw: Hardware, shape: WorkloadShape, x: dict[str, Any], compute: LayerCompute, micro: Any
) -> LayerComm:
    """Communication per layer (TP, CP, EP) and per stage boundary (PP) per micro-batch (`micro` micro-
    batches per iteration)."""
    tokens = compute.tokens
    activation_msg = tokens * float(wl.hidden) * 2.0  # bf16 activations of one micro-batch
    tp, tp_crosses = _tensor_parallel_comm(hw, x, activation_msg, compute.linear_gemms)
    pp, chain = P.pipeline_comm(hw, x, activation_msg)
    return LayerComm(
        tp=tp,
        cp=CP.exposed(wl, hw, x, tokens, compute.attention_forward),
        ep=_expert_parallel_comm(wl, hw, shape, x, compute, micro),
        pp=pp,
        pp_chain=chain * x.get("sched", 1.0),  # per run of the schedule, as the bubble
        tp_crosses_nodes=tp_crosses & (x["tp"] > 1),
    )


@dataclass(frozen=True)
class StageTimes:
    """Seconds per micro-batch of the stage that sets the pace (arrays over the grid), by kind."""

    compute: Any  # with the output layer when the last stage binds
    recompute: Any
    other: Any  # memory-bound elementwise work
    tp: Any
    cp: Any
    ep: Any
    pp: Any
    per_micro_batch: Any  # the sum
    bubble: Any  # pipeline bubble per iteration: (p - 1) / v micro-batches


def _stage_times(
    wl: Workload,
    hw: Hardware,
    x: dict[str, Any],
    memory: StageMemory,
    compute: LayerCompute,
    comm: LayerComm,
) -> StageTimes:
    """Stage time per micro-batch: the slowest stage sets the pace. The last stage holds the output
    layer; it holds fewer layers when the split is uneven (stages.stage_layers), and binds only if it is
    still the slowest. The bubble is (p - 1) / v of it: exact for Megatron's interleaved 1F1B order at any
    m that is a multiple of p when the sends cost nothing (the same simulation); what the sends add is in
    `pp`."""
    pp, n_layers, layers_last = x["pp"], memory.layers_per_stage, memory.layers_last
    logits = LOSS.output_layer_time(hw, wl, x, compute.tokens)  # the output layer and the loss
    per_layer = compute.compute + compute.recompute + compute.membound + comm.tp + comm.cp + comm.ep
    last_binds = layers_last * per_layer + logits > n_layers * per_layer
    binding_layers = np.where(last_binds, layers_last, n_layers)
    stage_compute = binding_layers * compute.compute + np.where(last_binds, logits, 0.0)
    stage_recompute = binding_layers * compute.recompute
    local_params = memory.dense_local + memory.expert_local
    stage_other = binding_layers * compute.membound + G.bf16_optimizer_pass(hw, x, local_params)
    stage_tp = binding_layers * comm.tp
    stage_cp = binding_layers * comm.cp
    stage_ep = binding_layers * comm.ep
    per_micro_batch = stage_compute + stage_recompute + stage_other + stage_tp + stage_cp + stage_ep + comm.pp
    return StageTimes(
        compute=stage_compute,
        recompute=stage_recompute,
        other=stage_other,
        tp=stage_tp,
        cp=stage_cp,
        ep=stage_ep,
        pp=comm.pp,
        per_micro_batch=per_micro_batch,
        bubble=(pp - 1.0) / x["v"] * per_micro_batch * x.get("sched", 1.0),
    )


@dataclass(frozen=True)
class IterationTimes:
    """Seconds per iteration (arrays over the grid)."""

    total: Any
    dp_exposed: Any  # data-parallel traffic not hidden behind compute
    dp_total: Any
    optimizer_step: Any
    sync: Any  # waiting for the slowest data-parallel replica


def _sync_wait(x: dict[str, Any], micro_batches: Any, per_micro_batch: Any) -> Any:
    """Expected wait for the slowest of R = dp replicas at the optimizer step, each replica's step being m
    micro-batches with independent relative jitter SYNC_JITTER: SYNC_JITTER x t_mb x sqrt(m) x sqrt(2 ln R)
    (constants.SYNC_JITTER)."""
    replicas = np.maximum(x["dp"], 1.0)
    return C.SYNC_JITTER * per_micro_batch * np.sqrt(micro_batches * 2.0 * np.log(replicas))


def _iteration_times(
    hw: Hardware,
    shape: WorkloadShape,
    x: dict[str, Any],
    memory: StageMemory,
    stage: StageTimes,
    comm: LayerComm,
    convention: str = "megatron",
) -> IterationTimes:
    """Per iteration: every micro-batch through the binding stage, the bubble, the pipeline-send chain,
    the exposed data-parallel traffic, the wait for the slowest replica and the optimizer step
    (memory-bound, gradients.optimizer_step; with Muon's conventions its Newton-Schulz products too)."""
    micro = memory.micro_batches
    dp_total, dp_exposed = Z.data_parallel_times(
        hw,
        x,
        micro,
        memory.layers_per_stage,
        memory.dense_local,
        memory.expert_local,
        shape.moe_fraction,
        forward_mb=stage.compute / 3.0,
        backward_mb=2.0 * stage.compute / 3.0 + stage.recompute,
    )
    step = G.optimizer_step(hw, x, convention, shape.wl, memory)
    sync = _sync_wait(x, micro, stage.per_micro_batch)
    return IterationTimes(
        total=micro * stage.per_micro_batch + stage.bubble + comm.pp_chain + dp_exposed + step + sync,
        dp_exposed=dp_exposed,
        dp_total=dp_total,
        optimizer_step=step,
        sync=sync,
    )


def _throughput(
    wl: Workload, hw: Hardware, shape: WorkloadShape, x: dict[str, Any], gpus: Any, iteration: Any
) -> dict[str, Any]:
    """Model and hardware TFLOP/s per GPU, MFU and tokens/s of an iteration of `iteration` seconds."""
    tokens_iter = float(wl.tokens_per_iteration)
    model_flops = tokens_iter * wl.model_flops_per_token()
    layers = wl.layers + wl.mtp_layers  # a multi-token-prediction depth is one more layer to recompute
    attention_flops_per_token = 4.0 * layers * wl.attention_span * shape.attention_core_dim  # forward
    recompute_flops_per_token = _recomputed(
        x["rec"],
        uses_flash_attention(wl, hw),
        attention_flops_per_token,
        2.0 * layers * shape.matmul_active_per_layer,
    )
    hw_flops = model_flops + tokens_iter * recompute_flops_per_token
    model_tflops = model_flops / (gpus * iteration) / 1e12
    # MFU against the peak of the precision the GEMMs run in: fp8 only where the GPU has fp8 tensor cores
    # (an fp8 workload on an A100 runs its GEMMs in bf16, see _linear_peak)
    fp8_peak = hw.gpu.fp8_tflops if wl.precision == "fp8" else None
    return {
        "model_tflops": model_tflops,
        "hw_tflops": hw_flops / (gpus * iteration) / 1e12,
        "mfu": model_tflops / (fp8_peak or hw.gpu.bf16_tflops),
        "tokens_per_s": tokens_iter / iteration,
    }


class GridModel:
    """One workload on one offering under one optimizer-state convention, evaluated over grids of layouts
    (`g`: see the module docstring)."""

    def __init__(
        self, wl: Workload, hw: Hardware, convention: str = "megatron", shape: WorkloadShape | None = None
    ) -> None:
        self.wl = wl
        self.hw = hw
        self.convention = convention
        self.shape = shape or WorkloadShape(wl)
        self.defaults = grid_defaults(hw, convention)
        self.fp32_grads = reduces_grads_in_fp32(convention, hw)

    def feasible_throughput(self, g: dict[str, Any]) -> tuple[Any, Any, dict[str, Any]]:
        """Memory and the other constraints over the whole broadcast grid `g`, then the time model on the
        feasible layouts only (about a third of the grid): (reasons with the grid's shape, flat indices of
        the feasible layouts, their `tokens_per_s` as evaluate gives it). The memory computed for the
        constraints is restricted to the feasible layouts and reused, not computed again: the same values
        (elementwise operations on the same operands; perf/check_search_identical.py)."""
        reasons, idx, sub, memory = self._feasible(g)
        x = _inputs(sub, self.defaults, self.fp32_grads)
        iteration = self._times(x, memory)[3]
        return reasons, idx, _throughput(self.wl, self.hw, self.shape, x, memory.gpus, iteration.total)

    def _feasible(self, g: dict[str, Any]) -> tuple[Any, Any, dict[str, Any], StageMemory]:
        """(reasons, feasible flat indices, `g` and its memory restricted to them)."""
        wl, hw = self.wl, self.hw
        x = _inputs(g, self.defaults, self.fp32_grads)
        memory = _memory(wl, hw, self.shape, x, self.convention)
        reasons = _reasons(wl, hw, x, memory)
        idx = np.flatnonzero(reasons == 0)
        pick = subgrid_picker(reasons.shape, idx)
        sub = {k: pick(a) for k, a in g.items()}
        # the memory the time model reads (TIME_MODEL_MEMORY), restricted; its scalars (fields no layout
        # setting changes) stay scalars, as evaluate has them; the other fields are not carried (None)
        kept: dict[str, Any] = {f.name: None for f in fields(StageMemory)}
        for name in TIME_MODEL_MEMORY:
            value = getattr(memory, name)
            kept[name] = value if np.ndim(value) == 0 else pick(value)
        return reasons, idx, sub, StageMemory(**kept)

    def _times(
        self, x: dict[str, Any], memory: StageMemory
    ) -> tuple[LayerCompute, LayerComm, StageTimes, IterationTimes]:
        """The time model of the layouts `x` whose memory is `memory`."""
        wl, hw, shape = self.wl, self.hw, self.shape
        compute = _layer_compute(wl, hw, shape, x, memory)
        comm = _layer_comm(wl, hw, shape, x, compute, memory.micro_batches)
        stage = _stage_times(wl, hw, x, memory, compute, comm)
        return compute, comm, stage, _iteration_times(hw, shape, x, memory, stage, comm, self.convention)

    def evaluate(self, g: dict[str, Any]) -> dict[str, Any]:
        """Memory and time for every layout in `g` (keys: see the module docstring)."""
        wl, hw, shape = self.wl, self.hw, self.shape
        x = _inputs(g, self.defaults, self.fp32_grads)
        memory = _memory(wl, hw, shape, x, self.convention)
        compute, comm, stage, iteration = self._times(x, memory)
        micro = memory.micro_batches
        return {
            "gpus": memory.gpus,
            "nodes": memory.nodes,
            "micro_batches": micro,
            "layers_per_stage": memory.layers_per_stage,
            "mem_weights": memory.weight_bytes,
            "mem_grads": memory.grad_bytes,
            "mem_optimizer": memory.optimizer_bytes,
            "mem_gathered": memory.gathered_bytes,
            "mem_activations": memory.activation_bytes,
            "mem_overhead": memory.overhead_bytes,
            "mem_total": memory.total_bytes,
            "t_compute": micro * stage.compute,
            "t_recompute": micro * stage.recompute,
            "t_tp": micro * stage.tp,
            "t_pp": micro * stage.pp + comm.pp_chain,
            "t_dp": iteration.dp_exposed,
            "t_dp_total": iteration.dp_total,
            "t_ep": micro * stage.ep,
            "t_cp": micro * stage.cp,
            "t_bubble": stage.bubble,
            "t_sync": iteration.sync,
            "t_other": micro * stage.other + iteration.optimizer_step,
            "iteration": iteration.total,
            **_throughput(wl, hw, shape, x, memory.gpus, iteration.total),
            "gemm_efficiency": compute.gemm_efficiency,
            "reasons": _reasons(wl, hw, x, memory),
            "tp_crosses_nodes": comm.tp_crosses_nodes,
        }


def evaluate_grid(
    wl: Workload,
    hw: Hardware,
    g: dict[str, Any],
    convention: str = "megatron",
    shape: WorkloadShape | None = None,
) -> dict[str, Any]:
    """GridModel.evaluate for one grid: memory and time for every layout in `g`."""
    return GridModel(wl, hw, convention, shape).evaluate(g)
