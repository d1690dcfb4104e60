"""Context parallelism (Megatron-Core's cp_comm_type "p2p", its default): Transformer Engine's K/V ring,
transformer_engine/pytorch/attention/dot_product_attention/context_parallel.py, AttnFuncWithCPAndKVP2P
(docs/MODEL.md, "Twenty-eighth stop"). What its sends leave exposed (`ring_exposed`, per layer and
micro-batch, arrays over the grid) and the memory-bound passes that merge its partial attentions
(`merge_bytes`)."""

from __future__ import annotations

from typing import Any

import numpy as np

from . import constants as C
from . import timing as T
from .hardware import Hardware
from .memory import RECOMPUTE_FULL
from .workload import Workload


def ring_exposed(wl: Workload, hw: Hardware, x: dict[str, Any], tokens: Any, attention_forward: Any) -> Any:
    """Seconds per layer of context parallelism's K/V ring that its attention steps do not hide.

    Transformer Engine's ring (AttnFuncWithCPAndKVP2P, cp_comm_type "p2p", Megatron-Core's default) runs
    the attention of a rank's sequence share in cp steps, one per K/V block: step i computes on the block
    received during step i - 1 while it sends that block on to the next rank. A step waits for its block,
    so each of the cp - 1 sends is exposed by what it takes beyond one step's attention. The backward
    pass runs the same ring, one send per step (the K/V block alone first, the K/V block and the dK/dV
    accumulated so far on the middle steps, the finished dK/dV alone last, to the rank that owns it), each
    hidden behind that step's attention backward and waited for at its end. Full recompute runs the
    forward ring again."""
    tp, cp = x["tp"], x["cp"]
    if not (cp > 1).any():
        return 0.0
    bw, _, crosses = T.group_link(hw, tp, cp)
    kv_msg = 2.0 * tokens * wl.kv_dim * 2.0 / tp  # this rank's K and V block in bf16
    steps = np.maximum(cp - 1.0, 0.0)
    one = T.send_recv_time(hw, kv_msg, bw, crosses)
    two = T.send_recv_time(hw, 2.0 * kv_msg, bw, crosses)
    step_forward = attention_forward / cp
    step_backward = 2.0 * step_forward
    forward = steps * np.maximum(one - step_forward, 0.0)
    # backward: cp sends, the first and the last of one block, the cp - 2 middle ones of two
    middle = np.maximum(cp - 2.0, 0.0)
    backward = 2.0 * np.maximum(one - step_backward, 0.0) + middle * np.maximum(two - step_backward, 0.0)
    return np.where(cp > 1, (1.0 + (x["rec"] == RECOMPUTE_FULL)) * forward + backward, 0.0)


def merge_bytes(wl: Workload, x: dict[str, Any], seq_local: Any, full: Any) -> Any:
    """HBM bytes per layer and micro-batch of the ring's merges of its cp partial attentions (constants.CP_*):
    forward, per step, the step's output into the fp32 running output (flash_attn_fwd_out_correction) and
    one cast at the end, again under full recompute (`full`); backward, per step, the step's dQ and dK/dV
    into their sums. Zero where cp is 1."""
    cp, tp, mb = x["cp"], x["tp"], x["mb"]
    heads = float(wl.heads)
    out_width = heads * float(wl.v_head_dim or wl.head_dim)
    q_width = heads * float(wl.qk_head_dim or wl.head_dim)
    kv_width = 2.0 * float(wl.kv_dim)
    rows = seq_local * mb / tp  # this rank's tokens, its heads' share
    forward = rows * out_width * (cp * C.CP_OUT_CORRECTION_BYTES + C.CP_OUT_CAST_BYTES)
    backward = rows * cp * (q_width + kv_width) * C.CP_GRAD_ACCUMULATE_BYTES
    return np.where(cp > 1, (1.0 + full) * forward + backward, 0.0)
