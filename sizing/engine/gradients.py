"""Memory-bound passes over a GPU's parameters and gradients outside the layers: the optimizer step once per
iteration, and DeepSpeed's BF16_Optimizer accumulation after every micro-batch (layout.bf16_optimizer).

numpy-friendly: every function broadcasts over arrays of layouts (the grid `x` of model.py).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import constants as C
from .hardware import Hardware


def bf16_optimizer_pass(hw: Hardware, x: dict[str, Any], local_params: Any) -> Any:
    """Seconds per micro-batch of DeepSpeed's BF16_Optimizer accumulation (grid key bf16o): every local
    parameter's bf16 gradient cast to fp32 and added into the fp32 gradient buffer,
    BF16_OPTIMIZER_ACCUMULATE_BYTES of HBM traffic each, on the compute stream after the backward pass."""
    if "bf16o" not in x:
        return 0.0
    seconds = local_params * C.BF16_OPTIMIZER_ACCUMULATE_BYTES / (hw.gpu.hbm_tbytes_per_s * 1e12)
    return np.where(x["bf16o"], seconds, 0.0)


def optimizer_step(hw: Hardware, x: dict[str, Any], moe: bool, dense_local: Any, expert_local: Any) -> Any:
    """Seconds of the optimizer step: ADAM_STEP_BYTES_PER_PARAM per parameter the GPU updates (its share of
    the dense parameters over DP x CP and of the experts over their data-parallel ranks under ZeRO >= 1)."""
    zero = x["zero"]
    params = dense_local / np.where(zero >= 1, x["dp"] * x["cp"], 1.0)
    if moe:
        expert_shards = np.maximum(x["tp"] * x["dp"] * x["cp"] / (x["ep"] * x["etp"]), 1.0)
        params = params + expert_local / np.where(zero >= 1, expert_shards, 1.0)
    return params * C.ADAM_STEP_BYTES_PER_PARAM / (hw.gpu.hbm_tbytes_per_s * 1e12)
