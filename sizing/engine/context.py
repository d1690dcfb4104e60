"""Context parallelism (Megatron-Core's cp_comm_type "p2p", its default): Transformer Engine's K/V ring,
transformer_engine/pytorch/attention/dot_product_attention/context_parallel.py, AttnFuncWithCPAndKVP2P
(docs/MODEL.md, "Twenty-eighth stop"). What its sends leave exposed (`ring_exposed`, per layer and
micro-batch, arrays over the grid) and the memory-bound passes that merge its partial attentions
(`merge_bytes`); and the all-to-all exchange (cp_comm_type "a2a", DeepSpeed Ulysses: `all_to_all_exposed`),
which windowed attention and softmax sinks need."""

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
    forward, the first step's output into the running output and each later step's merged into it
    (flash_attn_fwd_out_correction), again under full recompute (`full`); backward, per step, the step's dQ
    and dK/dV into their sums. Zero where cp is 1 or the exchange is the all-to-all (`uses_all_to_all`)."""
    cp, tp, mb = x["cp"], x["tp"], x["mb"]
    rows = seq_local * mb / tp  # this rank's tokens, its heads' share
    forward = rows * wl.output_dim * (C.CP_OUT_FIRST_STEP_BYTES + (cp - 1.0) * C.CP_OUT_CORRECTION_BYTES)
    backward = rows * cp * (wl.query_dim + 2.0 * wl.kv_dim) * C.CP_GRAD_ACCUMULATE_BYTES
    return np.where((cp > 1) & ~uses_all_to_all(wl, x), (1.0 + full) * forward + backward, 0.0)


def uses_all_to_all(wl: Workload, x: dict[str, Any]) -> Any:
    """Whether the layout's context parallelism exchanges by all-to-all (layout.cp_comm_type "a2a", grid key
    `cpa2a`); unset, a workload with a sliding window does (Transformer Engine's context parallelism refuses
    the ring for banded attention and for learnable softmax sinks: only "a2a" or "all_gather"), any other
    the ring."""
    return np.asarray(x.get("cpa2a", wl.sliding_window is not None), dtype=bool)


def all_to_all_exposed(wl: Workload, hw: Hardware, x: dict[str, Any], tokens: Any) -> Any:
    """Seconds per layer of context parallelism by all-to-all (cp_comm_type "a2a", DeepSpeed Ulysses;
    Transformer Engine's AttnFuncWithCPAndKVAllToAll and flash_attn_a2a_communicate): before the attention
    the queries, keys and values go from a share of the sequence to a share of the heads, one all-to-all each,
    and the output comes back by one more; the backward pass does the same with the output's gradient and the
    gradients of the queries, keys and values. Each is on the critical path (the attention needs its inputs
    whole); full recompute runs the forward's again. Every rank sends (cp - 1) / cp of its bf16 share over
    the CP group (stride tp, timing.all_to_all_time)."""
    tp, cp = x["tp"], x["cp"]
    widths = (wl.query_dim, wl.kv_dim, wl.kv_dim, wl.output_dim)  # queries, keys, values, output
    one_pass = sum(T.all_to_all_time(hw, tp, cp, tokens * w / tp * 2.0) for w in widths)
    return np.where(cp > 1, (2.0 + (x["rec"] == RECOMPUTE_FULL)) * one_pass, 0.0)


def exposed(wl: Workload, hw: Hardware, x: dict[str, Any], tokens: Any, attention_forward: Any) -> Any:
    """Seconds per layer of context parallelism's exchange: the all-to-all or the ring, as the layout runs."""
    if not (x["cp"] > 1).any():
        return 0.0
    a2a = uses_all_to_all(wl, x)
    ring = ring_exposed(wl, hw, x, tokens, attention_forward) if not a2a.all() else 0.0
    alltoall = all_to_all_exposed(wl, hw, x, tokens) if a2a.any() else 0.0
    return np.where(a2a, alltoall, ring)
