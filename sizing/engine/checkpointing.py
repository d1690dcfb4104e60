"""Megatron-Core's selective recompute by module (layout.recompute_modules; TransformerConfig
recompute_modules with recompute_granularity "selective", docs/MODEL.md "Twenty-ninth stop"): each listed
module's forward runs again in the backward pass and its outputs are not kept.

Read from the Megatron-Core the Megatron-Bridge 26.04 recipes pin (d7288711):
- "core_attn" (attention.py `checkpoint_core_attention`, normal checkpointing): the attention core's forward
  again. Unfused attention keeps no scores then (the engine's "selective", Korthikanti et al. 2022); a fused
  kernel keeps only its inputs either way, so the rerun buys nothing but is still run (TransformerConfig
  warns "For fused attention, you have no need to set 'core_attn' to recompute").
- "moe_act" (moe/experts.py TEGroupedMLP, CheckpointWithoutOutput): the experts' activation function, its
  output (fc2's input) not kept. Rerun: the fused kernel reads fc1's output and writes the activation's
  (ACTIVATION_FORWARD_BYTES), plus the eager clamp a clamped activation runs before it (eager.py).
- "layernorm" (transformer_layer.py, CheckpointWithoutOutput): the input and pre-MLP norms that are modules
  of their own, not fused into the next linear layer: the pre-MLP norm of an MoE layer (the router and the
  experts read it) and, with multi-head latent attention, the input norm (its down-projections read it);
  each norm's output not kept, its forward again (NORM_FORWARD_BYTES).
- "mlp" (transformer_layer.py `recompute_mlp`, dense layers only) and "shared_experts" (moe_layer.py):
  the MLP's forward again, of which the GEMMs are charged (not its norm, activation or, with TP and sequence
  parallelism, the all-gather and reduce-scatter the checkpoint also reruns: every row that states them runs
  TP 1); its intermediates not kept.
- "mla_up_proj" (multi_latent_attention.py `recompute_up_proj`, CheckpointWithoutOutput): the up-projections'
  GEMMs from the query and key/value low ranks again (workload.latent_up_params; the latents' norms fused
  into them and the rotary embedding, memory-bound passes, are left out), the attention core's queries, keys
  and values not kept until its backward (at their widths, as the activation model counts them:
  memory.activation_coefficients). A workload without the ranks leaves it unmodelled, and the answer
  says so; Megatron-Core refuses it without multi-head latent attention, as layout_from_dict does.
- "moe" (the whole MoE layer with its all-to-alls) is accepted and not modelled: the answer says so
  (layout._recompute_modules).

With fp8 linear layers the activation model counts a linear layer's saved input at 1 byte (model._coeffs),
and what a module no longer keeps is taken off at that count. For moe_act that is the mechanism:
Megatron-Core has fc2 keep the bf16 original it then discards (set_save_original_input). An MoE layer's
pre-MLP norm output is kept in bf16 for the router also under fp8 (model._coeffs, thirtieth stop), so its
recompute frees those 2 bytes.
`shape` is model.WorkloadShape (not imported: model imports this module)."""

from __future__ import annotations

from typing import Any

import numpy as np

from . import constants as C
from . import eager as E
from .workload import Workload

CORE_ATTN = "core_attn"
MOE_ACT = "moe_act"
LAYERNORM = "layernorm"
MLP = "mlp"
SHARED_EXPERTS = "shared_experts"
MOE = "moe"
MLA_UP_PROJ = "mla_up_proj"
# Megatron-Core's choices (transformer_config.py allowed_modules), in its order
MODULES = (CORE_ATTN, MOE_ACT, LAYERNORM, MLA_UP_PROJ, MLP, MOE, SHARED_EXPERTS)
MODELLED = (CORE_ATTN, MOE_ACT, LAYERNORM, MLA_UP_PROJ, MLP, SHARED_EXPERTS)
# the grid's keys of the modelled modules (core_attn's also sets the recompute code, layout.Layout.grid)
GRID_KEYS = {
    MLA_UP_PROJ: "rmmla",
    MOE_ACT: "rmact",
    LAYERNORM: "rmnorm",
    MLP: "rmmlp",
    SHARED_EXPERTS: "rmshx",
    CORE_ATTN: "rmattn",
}


def _flag(x: dict[str, Any], module: str) -> Any:
    return np.asarray(x.get(GRID_KEYS[module], False), dtype=bool)


def separate_norms(wl: Workload, shape: Any) -> float:
    """Norms per layer that are modules of their own (the layernorm module's): the pre-MLP norm of the MoE
    layers, and the input norm of every layer with multi-head latent attention."""
    return shape.moe_fraction + (1.0 if wl.latent_attention else 0.0)


def _gated(wl: Workload) -> float:
    return 2.0 if wl.activation == "swiglu" else 1.0


def _listed(x: dict[str, Any]) -> bool:
    """Whether the grid lists any modelled module (a search's never does: nothing to add)."""
    return any(key in x for key in GRID_KEYS.values())


def rerun_seconds(
    wl: Workload, shape: Any, x: dict[str, Any], gemms: tuple[Any, float, Any], attention: tuple[Any, bool]
) -> Any:
    """Seconds per layer of the forward work the modules run again: the fused attention core's forward
    under core_attn (`attention`: its seconds and whether the kernel is fused; unfused, the engine's selective
    recompute charges it), and the MLP's forward GEMMs under mlp (dense layers) and shared_experts (averaged
    over dense and MoE layers); `gemms` is (tokens, the linear GEMMs' peak FLOP/s, their efficiency)."""
    if not _listed(x):
        return 0.0
    tokens, peak, efficiency = gemms
    forward, fused = attention
    params: Any = 0.0
    if x.get(GRID_KEYS[MLP]) is not None:
        params = _flag(x, MLP) * (wl.n_dense_layers * wl.mlp_params(wl.ffn_hidden) / wl.layers)
    if x.get(GRID_KEYS[SHARED_EXPERTS]) is not None and wl.moe is not None:
        shared = wl.moe.shared_experts * wl.mlp_params(wl.moe.expert_ffn_hidden) * shape.moe_fraction
        params = params + _flag(x, SHARED_EXPERTS) * shared
    if x.get(GRID_KEYS[MLA_UP_PROJ]) is not None and wl.latent_up_params is not None:
        params = params + _flag(x, MLA_UP_PROJ) * wl.latent_up_params
    return 2.0 * tokens * params / x["tp"] / (peak * efficiency) + (_flag(x, CORE_ATTN) & fused) * forward


def rerun_bytes(wl: Workload, shape: Any, x: dict[str, Any], tokens: Any) -> Any:
    """HBM bytes per layer and micro-batch the moe_act and layernorm modules move again; `tokens` the
    micro-batch's tokens on this rank before tensor parallelism (seq_local x micro-batch). A norm runs on
    the sequence-parallel share, or on every token without sequence parallelism; the experts on the tokens
    entering the dispatcher (eager.eager_bytes). A clamped activation reruns its eager clamp too, unless
    Transformer Engine's op fuser fuses it."""
    if not _listed(x):
        return 0.0
    out: Any = 0.0
    if x.get(GRID_KEYS[LAYERNORM]) is not None:
        normed = tokens / np.where(x["sp"], x["tp"], 1.0)
        out = _flag(x, LAYERNORM) * normed * wl.hidden * separate_norms(wl, shape) * C.NORM_FORWARD_BYTES
    if x.get(GRID_KEYS[MOE_ACT]) is not None and shape.moe_fraction > 0:
        fc1 = E.routed_rows(shape, x, tokens / x["tp"]) * _gated(wl) * shape.expert_ffn / x["etp"]
        # the fused kernel reads each element of fc1's output and writes each of its own (1 / gated as many)
        per_fc1: Any = C.ACTIVATION_FORWARD_BYTES * (1.0 + 1.0 / _gated(wl))
        if wl.glu_clamp is not None:
            per_fc1 = per_fc1 + np.where(E.op_fused(x), 0.0, C.GLU_CLAMP_BYTES_FORWARD)
        out = out + _flag(x, MOE_ACT) * shape.moe_fraction * fc1 * per_fc1
    return out


def unkept_bytes(wl: Workload, shape: Any, x: dict[str, Any], tokens: Any, fp8: bool) -> Any:
    """Activation bytes per layer and micro-batch the listed modules do not keep, for the Korthikanti
    coefficients the memory model uses (model._coeffs); `tokens` seq_local x micro-batch."""
    if not _listed(x):
        return 0.0
    kept = 1.0 if fp8 else 2.0  # bytes per element of a linear layer's saved input
    tp = x["tp"]
    sp_share = np.where(x["sp"], tp, 1.0)  # the non-split part is split only with sequence parallelism
    h = float(wl.hidden)
    out: Any = 0.0
    if x.get(GRID_KEYS[LAYERNORM]) is not None:
        # an MoE layer's pre-MLP norm output is kept in bf16 for the router (model._coeffs): 2 bytes freed
        norms = separate_norms(wl, shape) * kept + shape.moe_fraction * (2.0 - kept)
        out = _flag(x, LAYERNORM) * tokens * h * norms / sp_share
    per_f = 4.0 + kept if wl.activation == "swiglu" else 2.0 + kept  # fc1's output in bf16, fc2's input
    if x.get(GRID_KEYS[MOE_ACT]) is not None and wl.moe is not None:
        routed = shape.moe_fraction * wl.moe.top_k * wl.moe.expert_ffn_hidden
        out = out + _flag(x, MOE_ACT) * tokens * routed * kept / tp
    if x.get(GRID_KEYS[MLP]) is not None:
        dense = wl.n_dense_layers * wl.ffn_hidden / wl.layers
        out = out + _flag(x, MLP) * tokens * dense * per_f / tp
    if x.get(GRID_KEYS[SHARED_EXPERTS]) is not None and wl.moe is not None:
        shared = shape.moe_fraction * wl.moe.shared_experts * wl.moe.expert_ffn_hidden
        out = out + _flag(x, SHARED_EXPERTS) * tokens * shared * per_f / tp
    if x.get(GRID_KEYS[MLA_UP_PROJ]) is not None and wl.latent_up_params is not None:
        # the attention core's queries, keys and values at their widths, 2 bytes each, split over TP
        # (memory.activation_coefficients)
        qkv = wl.query_dim + wl.key_dim + wl.value_dim
        out = out + _flag(x, MLA_UP_PROJ) * tokens * 2.0 * qkv / tp
    return out
