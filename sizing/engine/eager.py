"""Eager passes of a model's facts whose code paths the fused kernels do not cover (docs/MODEL.md,
"Twenty-eighth stop"): a clamped gated activation and the experts' output biases without Transformer Engine's
op fuser, and YaRN rotary embeddings, charged as HBM bytes per layer and micro-batch (model._membound).
`shape` is model.WorkloadShape (not imported: model imports this module)."""

from __future__ import annotations

from typing import Any

import numpy as np

from . import constants as C
from .workload import Workload


def eager_bytes(wl: Workload, shape: Any, x: dict[str, Any], tokens: Any, full: Any) -> Any:
    """HBM bytes per layer and micro-batch of the eager passes a clamped gated activation, the experts'
    output biases (both without Transformer Engine's op fuser) and YaRN rotary embeddings run
    (constants.GLU_CLAMP_*, EXPERT_BIAS_*, YARN_ROPE_*); `tokens` this rank's share, forward again under
    full recompute (`full`)."""
    out: Any = 0.0
    if wl.rope == "yarn":
        rotated = tokens * (wl.heads * (wl.qk_head_dim or wl.head_dim) + wl.kv_dim)
        out = rotated * ((1.0 + full) * C.YARN_ROPE_BYTES_FORWARD + C.YARN_ROPE_BYTES_BACKWARD)
    if shape.moe_fraction <= 0 or (wl.glu_clamp is None and not wl.linear_bias):
        return out
    # the routed rows this rank's experts process (the busiest rank's, as their GEMMs)
    rows = shape.load_imbalance * tokens * shape.top_k
    experts = 0.0
    if wl.glu_clamp is not None:
        fc1 = rows * 2.0 * shape.expert_ffn / x["etp"]
        experts = fc1 * ((1.0 + full) * C.GLU_CLAMP_BYTES_FORWARD + C.GLU_CLAMP_BYTES_BACKWARD)
    if wl.linear_bias:
        fc2 = rows * float(wl.hidden)
        experts = experts + fc2 * ((1.0 + full) * C.EXPERT_BIAS_BYTES_FORWARD + C.EXPERT_BIAS_BYTES_BACKWARD)
    fused = np.asarray(x.get("opf", False), dtype=bool)
    return out + np.where(fused, 0.0, shape.moe_fraction * experts)
