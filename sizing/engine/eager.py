"""Eager passes of a model's facts whose code paths the fused kernels do not cover (docs/MODEL.md,
"Twenty-eighth stop"): a clamped gated activation and the experts' output biases without Transformer Engine's
op fuser, and YaRN rotary embeddings, charged as HBM bytes per layer and micro-batch (model._membound).
`shape` is model.WorkloadShape (not imported: model imports this module)."""

from __future__ import annotations

from typing import Any

import numpy as np

from . import constants as C
from .hardware import Hardware
from .overlap import DISPATCHER_DEDUP, default_dispatcher
from .workload import Workload


def eager_bytes(wl: Workload, hw: Hardware, shape: Any, x: dict[str, Any], tokens: Any, full: Any) -> Any:
    """HBM bytes per layer and micro-batch of the eager passes a clamped gated activation, the experts'
    output biases (both without Transformer Engine's op fuser) and YaRN rotary embeddings run
    (constants.GLU_CLAMP_*, EXPERT_BIAS_*, YARN_ROPE_*); `tokens` this rank's share, forward again under
    full recompute (`full`). The biases are added in fp32 where the token dispatcher carries fp32 routing
    probabilities (DeepEP and HybridEP: Megatron-Core token_dispatcher.py asserts or casts them to fp32), in
    bf16 with the all-to-all dispatcher."""
    out: Any = 0.0
    if wl.rope == "yarn":
        rotated = tokens * (wl.query_dim + wl.kv_dim)
        out = rotated * ((1.0 + full) * C.YARN_ROPE_BYTES_FORWARD + C.YARN_ROPE_BYTES_BACKWARD)
    if shape.moe_fraction <= 0 or (wl.glu_clamp is None and not wl.linear_bias):
        return out
    rows = routed_rows(shape, x, tokens)
    experts: Any = 0.0
    if wl.glu_clamp is not None:
        fc1 = rows * 2.0 * shape.expert_ffn / x["etp"]
        experts = fc1 * ((1.0 + full) * C.GLU_CLAMP_BYTES_FORWARD + C.GLU_CLAMP_BYTES_BACKWARD)
    if wl.linear_bias:
        dedup = np.asarray(x.get("dedup", default_dispatcher(hw) == DISPATCHER_DEDUP), dtype=bool)
        forward = np.where(dedup, C.EXPERT_BIAS_BYTES_FORWARD_FP32, C.EXPERT_BIAS_BYTES_FORWARD)
        backward = np.where(dedup, C.EXPERT_BIAS_BYTES_BACKWARD_FP32, C.EXPERT_BIAS_BYTES_BACKWARD)
        experts = experts + rows * float(wl.hidden) * ((1.0 + full) * forward + backward)
    return out + np.where(op_fused(x), 0.0, shape.moe_fraction * experts)


def routed_rows(shape: Any, x: dict[str, Any], tokens: Any) -> Any:
    """The routed rows this rank's experts process for `tokens` entering the dispatcher, the busiest rank's
    as their GEMMs (model._linear_forward: each of the etp ranks of an expert holds every one of its rows, at
    1/etp of the width)."""
    return shape.load_imbalance * tokens * shape.top_k * x["etp"]


def op_fused(x: dict[str, Any]) -> Any:
    """Whether Transformer Engine's op fuser runs the experts' MLP (layout.te_op_fuser), over the grid."""
    return np.asarray(x.get("opf", False), dtype=bool)
