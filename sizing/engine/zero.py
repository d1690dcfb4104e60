"""Data-parallel traffic per iteration by ZeRO stage and overlap setting (docs/MODEL.md "ZeRO traffic").

numpy-friendly: every function broadcasts over arrays of layouts (the grid `x` of model.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from . import constants as C
from . import timing as T
from .hardware import Hardware
from .overlap import MEGATRON_LM_2021, framework_defaults

Array = Any


@dataclass(frozen=True)
class GroupTraffic:
    """Seconds of one data-parallel group's collectives (arrays over the grid)."""

    all_reduce: Any  # gradient all-reduce (ZeRO-0), or reduce-scatter + all-gather (ZeRO-1)
    reduce_scatter: Any  # gradients
    all_gather: Any  # updated bf16 parameters
    buckets: Any  # gradient buckets (Megatron-Core DDP), >= 1
    layer_gathers: Any  # ZeRO-3: one pass of per-layer parameter all-gathers
    layer_scatters: Any  # ZeRO-3: one pass of per-layer gradient reduce-scatters


def group_traffic(
    hw: Hardware, stride: Any, n: Any, params: Any, layers: Any, per_tensor: bool, grad_bytes: float
) -> GroupTraffic:
    """Collectives of one data-parallel group of n ranks `stride` apart holding `params` parameters per GPU
    (before ZeRO sharding) in `layers` layers. `per_tensor`: ZeRO-3 gathers each parameter tensor on its own
    (DeepSpeed 2021) rather than one flat buffer per layer (FSDP2, Megatron-FSDP)."""
    grads = grad_bytes * params
    weights = C.PARAM_GATHER_BYTES * params
    bw, steps, _ = T.group_link(hw, stride, n)
    reduce_scatter = T.collective_time(T.ALL_GATHER, n, grads, bw, steps)
    all_gather = T.collective_time(T.ALL_GATHER, n, weights, bw, steps)
    # ZeRO-3: per parameter tensor, each rank on its own NIC share (DeepSpeed 2021); or one flat buffer per
    # layer at the node's pooled bandwidth (FSDP2, Megatron-FSDP)
    bw3, steps3, _ = T.group_link(hw, stride, n, share_node=not per_tensor)
    count = (C.ZERO3_COLLECTIVES_PER_LAYER if per_tensor else 1.0) * np.maximum(layers, 1.0)
    alpha3 = np.where(n > 1, count * (C.ALPHA_INTRA_S + steps3), 0.0)
    factor = T.collective_factor(T.ALL_GATHER, n)
    return GroupTraffic(
        all_reduce=T.collective_time(T.ALL_REDUCE, n, grads, bw, steps),
        reduce_scatter=reduce_scatter,
        all_gather=all_gather,
        buckets=np.maximum(
            np.ceil(params / np.maximum(C.DDP_BUCKET_PARAMS, C.DDP_BUCKET_PARAMS_PER_RANK * n)), 1.0
        ),
        layer_gathers=alpha3 + factor * weights / bw3,
        layer_scatters=alpha3 + factor * grads / bw3,
    )


def _sum(a: GroupTraffic, b: GroupTraffic | None) -> GroupTraffic:
    if b is None:
        return a
    return GroupTraffic(*(x + y for x, y in zip(vars(a).values(), vars(b).values(), strict=True)))


def _hidden_behind(comm: Any, compute: Any, buckets: Any) -> Any:
    """Exposed part of bucketed traffic overlapped with `compute`: what does not fit behind it, and at
    least the last bucket, which can only start when the compute is done."""
    return np.maximum(comm - compute, comm / buckets)


def data_parallel_times(
    hw: Hardware,
    x: dict[str, Any],
    micro_batches: Any,
    layers: Any,
    dense_local: Any,
    expert_local: Any,
    moe_fraction: float,
    forward_mb: Any,
    backward_mb: Any,
) -> tuple[Any, Any]:
    """(total, exposed) seconds of data-parallel traffic per iteration.

    ZeRO-0/1: the gradients of all micro-batches are accumulated and reduced once per step (all-reduce, or
    the distributed optimizer's reduce-scatter + all-gather: the same bytes). ZeRO-2: the gradients stay
    sharded, so each micro-batch's are reduce-scattered (DeepSpeed engine: "ZeRO stage >= 2 communicates
    during non gradient accumulation boundaries as well") and the updated parameters all-gathered once.
    ZeRO-3: per micro-batch, per-layer all-gathers in the forward and again in the backward pass and the
    gradient reduce-scatters (constants.ZERO3_*).

    Exposure by the layout's overlap flags: without overlap_grad_reduce, DP_OVERLAP of the traffic hides
    (the fitted 2021-22 behaviour); with it, each reduce hides behind the backward pass of its micro-batch
    (`backward_mb`) and the parameter all-gather, with overlap_param_gather, behind the next forward
    (`forward_mb`), bucket by bucket. Expert parameters travel over the expert-data-parallel group
    (tp x dp x cp / (ep x etp) ranks, stride ep x etp).
    """
    tp, ep, etp, zero = x["tp"], x["ep"], x["etp"], x["zero"]
    grad_overlap, param_overlap = x["ogr"], x["opg"]
    per_tensor = C.ZERO3_PER_GPU_NIC and framework_defaults(hw) is MEGATRON_LM_2021
    grad_bytes = C.GRAD_COMM_BYTES
    dense = group_traffic(hw, tp, x["dp"] * x["cp"], dense_local, layers, per_tensor, grad_bytes)
    expert = None
    if moe_fraction > 0:
        expert_ranks = np.maximum(tp * x["dp"] * x["cp"] / (ep * etp), 1.0)
        expert = group_traffic(
            hw, ep * etp, expert_ranks, expert_local, layers * moe_fraction, per_tensor, grad_bytes
        )
    g = _sum(dense, expert)
    keep = 1.0 - C.DP_OVERLAP
    m = micro_batches
    # ZeRO-0 (all-reduce) and ZeRO-1 (reduce-scatter + all-gather), once per step
    gather_exposed = np.where(
        param_overlap, _hidden_behind(g.all_gather, forward_mb, g.buckets), g.all_gather
    )
    zero01_overlapped = np.where(
        zero >= 1,
        _hidden_behind(g.reduce_scatter, backward_mb, g.buckets) + gather_exposed,
        _hidden_behind(g.all_reduce, backward_mb, g.buckets),
    )
    zero01 = np.where(grad_overlap, zero01_overlapped, keep * g.all_reduce)
    # ZeRO-2: a reduce-scatter per micro-batch, one all-gather per step
    zero2_total = m * g.reduce_scatter + g.all_gather
    zero2_overlapped = m * _hidden_behind(g.reduce_scatter, backward_mb, g.buckets) + gather_exposed
    zero2 = np.where(grad_overlap, zero2_overlapped, keep * zero2_total)
    # ZeRO-3: forward gathers hide behind the forward; backward gathers and (with overlap_grad_reduce) the
    # reduce-scatters behind the backward; each pass at most ZERO3_OVERLAP of its compute
    f = np.where(param_overlap, C.ZERO3_OVERLAP, 0.0)
    forward_exposed = g.layer_gathers - np.minimum(f * forward_mb, g.layer_gathers)
    backward_comm = g.layer_gathers + np.where(grad_overlap, g.layer_scatters, 0.0)
    backward_exposed = backward_comm - np.minimum(f * backward_mb, backward_comm)
    zero3_exposed = m * (
        forward_exposed + backward_exposed + np.where(grad_overlap, 0.0, keep * g.layer_scatters)
    )
    zero3_total = m * (2.0 * g.layer_gathers + g.layer_scatters)
    total = np.where(zero >= 3, zero3_total, np.where(zero == 2, zero2_total, g.all_reduce))
    exposed = np.where(zero >= 3, zero3_exposed, np.where(zero == 2, zero2, zero01))
    return total, exposed
