"""Data-parallel traffic per iteration by ZeRO stage and overlap setting (docs/MODEL.md "ZeRO traffic").

numpy-friendly: every function broadcasts over arrays of layouts (the grid `x` of model.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from hardware.messages import Msg, _

from . import constants as C
from . import timing as T
from .hardware import Hardware
from .memory import expert_data_parallel_ranks
from .overlap import MEGATRON_LM_2021, framework_defaults

# How ZeRO-3 gathers the parameters (layout.zero3_gather): one collective per parameter tensor, each rank
# at its own NIC's share (DeepSpeed's 2021 stage 3, partition_parameters.py), or one flat buffer per wrapped
# block at the node's pooled bandwidth (PyTorch FSDP's FlatParameter, "one all-gather per FSDP unit";
# FSDP2; Megatron-FSDP)
ZERO3_PER_TENSOR = "per_tensor"
ZERO3_FLAT = "flat"
ZERO3_GATHERS = (ZERO3_PER_TENSOR, ZERO3_FLAT)

Array = Any


def per_tensor_by_default(hw: Hardware) -> bool:
    """Whether a ZeRO-3 layout that does not state `zero3_gather` gathers per parameter tensor: on the GPUs
    whose framework default is 2021-22 Megatron-LM/DeepSpeed (overlap.framework_defaults), as DeepSpeed's
    stage 3 of those runs did; on later GPUs one flat buffer per block (FSDP, FSDP2, Megatron-FSDP)."""
    return bool(C.ZERO3_PER_GPU_NIC and framework_defaults(hw) is MEGATRON_LM_2021)


def per_tensor_gathers(hw: Hardware, zero3_gather: str | None) -> bool:
    """Whether this layout's ZeRO-3 gathers go per parameter tensor (its `zero3_gather`, else the default)."""
    if zero3_gather is None:
        return per_tensor_by_default(hw)
    return zero3_gather == ZERO3_PER_TENSOR


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
    hw: Hardware,
    stride: Any,
    n: Any,
    params: Any,
    layers: Any,
    per_tensor: Any,
    grad_bytes: Any,
    zero3: bool = True,
) -> GroupTraffic:
    """Collectives of one data-parallel group of n ranks `stride` apart holding `params` parameters per GPU
    (before ZeRO sharding) in `layers` layers. `per_tensor`: ZeRO-3 gathers each parameter tensor on its own
    (DeepSpeed 2021) rather than one flat buffer per layer (FSDP2, Megatron-FSDP). `zero3`: whether any
    layout of the grid needs the ZeRO-3 terms (else they are zero)."""
    grads = grad_bytes * params
    weights = C.PARAM_GATHER_BYTES * params
    bw, steps, _ = T.group_link(hw, stride, n)
    reduce_scatter = T.collective_time(T.ALL_GATHER, n, grads, bw, steps)
    all_gather = T.collective_time(T.ALL_GATHER, n, weights, bw, steps)
    layer_gathers: Any = 0.0
    layer_scatters: Any = 0.0
    if zero3:
        # per parameter tensor, each rank on its own NIC share (DeepSpeed 2021); or one flat buffer per
        # layer at the node's pooled bandwidth (FSDP, FSDP2, Megatron-FSDP); per_tensor may vary over the grid
        per_tensor = np.asarray(per_tensor, dtype=bool)
        if per_tensor.ndim == 0:
            bw3, steps3, _ = T.group_link(hw, stride, n, share_node=not bool(per_tensor))
        else:
            bw_flat, steps3, _ = T.group_link(hw, stride, n, share_node=True)
            bw3 = np.where(per_tensor, T.group_link(hw, stride, n, share_node=False)[0], bw_flat)
        count = np.where(per_tensor, C.ZERO3_COLLECTIVES_PER_LAYER, 1.0) * np.maximum(layers, 1.0)
        alpha3 = np.where(n > 1, count * (C.ALPHA_INTRA_S + steps3), 0.0)
        factor = T.collective_factor(T.ALL_GATHER, n)
        layer_gathers = alpha3 + factor * weights / bw3
        layer_scatters = alpha3 + factor * grads / bw3
    return GroupTraffic(
        all_reduce=T.collective_time(T.ALL_REDUCE, n, grads, bw, steps),
        reduce_scatter=reduce_scatter,
        all_gather=all_gather,
        buckets=np.maximum(
            np.ceil(params / np.maximum(C.DDP_BUCKET_PARAMS, C.DDP_BUCKET_PARAMS_PER_RANK * n)), 1.0
        ),
        layer_gathers=layer_gathers,
        layer_scatters=layer_scatters,
    )


def gather_note(hw: Hardware, zero3_gather: str | None) -> Msg:
    """The `assumptions` line of a ZeRO-3 answer: how its parameters are gathered, how much of that hides."""
    if per_tensor_gathers(hw, zero3_gather):
        return _(
            "ZeRO-3 gathers: one collective per parameter tensor at one NIC's bandwidth per GPU (DeepSpeed's "
            "2021 stage 3), hidden behind at most %(hidden)s%% of the compute of their pass with prefetch "
            "(fitted on Narayanan et al. 2021 Table 2); set the layout's zero3_gather to flat for a PyTorch "
            "FSDP or Megatron-FSDP stack",
            hidden=int(100 * C.ZERO3_OVERLAP),
        )
    return _(
        "ZeRO-3 gathers: one flat buffer per layer at the node's pooled bandwidth (PyTorch FSDP, FSDP2, "
        "Megatron-FSDP), on their own streams with the next layer prefetched, so they hide behind the "
        "compute of their pass except one layer's share; set the layout's zero3_gather to per_tensor for "
        "DeepSpeed's 2021 stage 3"
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
    (none: the 2021-22 frameworks reduce after the backward pass); with it, each reduce hides behind the
    backward pass of its micro-batch
    (`backward_mb`) and the parameter all-gather, with overlap_param_gather, behind the next forward
    (`forward_mb`), bucket by bucket; the hidden part still costs the compute the SMs NCCL holds
    (DP_OVERLAP_SM_SHARE of it; not for ZeRO-3's fitted per-tensor gathers). Expert parameters travel
    over the expert-data-parallel group
    (tp x dp x cp / (ep x etp) ranks, stride ep x etp). Gradients travel in bf16, or fp32 where the layout
    sets grad_reduce_in_fp32 (grid key `gr32`, constants.GRAD_COMM_BYTES_FP32).
    """
    tp, ep, etp, zero = x["tp"], x["ep"], x["etp"], x["zero"]
    has_zero3, has_zero2 = bool((zero >= 3).any()), bool((zero == 2).any())
    per_tensor: Any = per_tensor_by_default(hw)
    if "z3flat" in x:  # the layout states its ZeRO-3 implementation (layout.zero3_gather)
        per_tensor = ~np.asarray(x["z3flat"], dtype=bool)
    fp32_grads = x.get("gr32")
    grad_bytes: Any = C.GRAD_COMM_BYTES
    if fp32_grads is not None and np.any(fp32_grads):
        grad_bytes = np.where(fp32_grads, C.GRAD_COMM_BYTES_FP32, C.GRAD_COMM_BYTES)
    dense = group_traffic(hw, tp, x["dp"] * x["cp"], dense_local, layers, per_tensor, grad_bytes, has_zero3)
    expert = None
    if moe_fraction > 0:
        expert_ranks = expert_data_parallel_ranks(x)
        expert = group_traffic(
            hw, ep * etp, expert_ranks, expert_local, layers * moe_fraction, per_tensor, grad_bytes, has_zero3
        )
    g = _sum(dense, expert)
    overlap = _Overlap(x["ogr"], x["opg"], forward_mb, backward_mb, g.buckets)
    total, exposed = g.all_reduce, _zero01(g, zero, overlap)
    if has_zero2:
        zero2_total, zero2_exposed = _zero2(g, micro_batches, overlap)
        total, exposed = np.where(zero == 2, zero2_total, total), np.where(zero == 2, zero2_exposed, exposed)
    if has_zero3:
        zero3_total, zero3_exposed = _zero3(g, micro_batches, overlap, x.get("raf", True), per_tensor, layers)
        total, exposed = np.where(zero >= 3, zero3_total, total), np.where(zero >= 3, zero3_exposed, exposed)
    # what hides of the overlapped traffic still holds SMs (constants.DP_OVERLAP_SM_SHARE); not ZeRO-3's
    # per-tensor gathers, whose fitted ZERO3_OVERLAP holds what they cost
    pipelined = (zero <= 2) | ~np.asarray(per_tensor, dtype=bool)
    overlapped = (np.asarray(x["ogr"]) | np.asarray(x["opg"])) & pipelined
    return total, exposed + np.where(overlapped, C.DP_OVERLAP_SM_SHARE * (total - exposed), 0.0)


@dataclass(frozen=True)
class _Overlap:
    """The overlap flags and the compute they can hide behind (arrays over the grid or scalars)."""

    grad: Any  # overlap_grad_reduce
    param: Any  # overlap_param_gather
    forward_mb: Any
    backward_mb: Any
    buckets: Any

    def choose(self, flag: Any, overlapped: Any, plain: Any) -> Any:
        """`overlapped` where the flag is set; a scalar flag needs no elementwise choice."""
        flag = np.asarray(flag)
        if flag.ndim == 0:
            return overlapped() if bool(flag) else plain()
        return np.where(flag, overlapped(), plain())


def _gather_exposed(g: GroupTraffic, o: _Overlap) -> Any:
    """The once-per-step all-gather of the updated parameters, behind the next forward with
    overlap_param_gather."""
    return o.choose(
        o.param, lambda: _hidden_behind(g.all_gather, o.forward_mb, o.buckets), lambda: g.all_gather
    )


def _zero01(g: GroupTraffic, zero: Any, o: _Overlap) -> Any:
    """ZeRO-0 (all-reduce) and ZeRO-1 (reduce-scatter + all-gather), once per step: exposed seconds."""

    def overlapped() -> Any:
        return np.where(
            zero >= 1,
            _hidden_behind(g.reduce_scatter, o.backward_mb, o.buckets) + _gather_exposed(g, o),
            _hidden_behind(g.all_reduce, o.backward_mb, o.buckets),
        )

    return o.choose(o.grad, overlapped, lambda: (1.0 - C.DP_OVERLAP) * g.all_reduce)


def _zero2(g: GroupTraffic, m: Any, o: _Overlap) -> tuple[Any, Any]:
    """ZeRO-2: a reduce-scatter per micro-batch, one all-gather per step: (total, exposed)."""
    total = m * g.reduce_scatter + g.all_gather
    exposed = o.choose(
        o.grad,
        lambda: m * _hidden_behind(g.reduce_scatter, o.backward_mb, o.buckets) + _gather_exposed(g, o),
        lambda: (1.0 - C.DP_OVERLAP) * total,
    )
    return total, exposed


def _zero3(
    g: GroupTraffic, m: Any, o: _Overlap, reshard: Any = True, per_tensor: Any = True, blocks: Any = 1.0
) -> tuple[Any, Any]:
    """ZeRO-3: forward gathers hide behind the forward pass; backward gathers and (with
    overlap_grad_reduce) the reduce-scatters behind the backward, with prefetch (overlap_param_gather).
    How much of a pass they can hide behind depends on how the gathers are issued (`per_tensor`):
    - per parameter tensor (DeepSpeed's 2021 stage 3): at most ZERO3_OVERLAP of the pass's compute
      (fitted on Narayanan et al. 2021 Table 2, constants.py);
    - one flat buffer per block (PyTorch FSDP, FSDP2, Megatron-FSDP): the collectives run on their own
      streams with the next block's gather prefetched, so they pipeline with the compute like Megatron's
      gradient buckets (`_hidden_behind`): exposed is what does not fit behind the pass, and at least one
      block's share (the first gather cannot start before the pass, the last reduce-scatter ends after it).
      `blocks`: the wrapped blocks (one per layer).
    Without `reshard` (FSDP2 reshard_after_forward=False) the parameters gathered for the forward stay until
    the backward: no gathers in the backward pass. (total, exposed)."""
    backward_gathers = np.where(reshard, g.layer_gathers, 0.0)
    backward_comm = backward_gathers + np.where(o.grad, g.layer_scatters, 0.0)
    f = np.where(o.param, C.ZERO3_OVERLAP, 0.0)
    capped_forward = g.layer_gathers - np.minimum(f * o.forward_mb, g.layer_gathers)
    capped_backward = backward_comm - np.minimum(f * o.backward_mb, backward_comm)
    blocks = np.maximum(blocks, 1.0)
    piped_forward = np.where(o.param, _hidden_behind(g.layer_gathers, o.forward_mb, blocks), g.layer_gathers)
    piped_backward = np.where(o.param, _hidden_behind(backward_comm, o.backward_mb, blocks), backward_comm)
    forward_exposed = np.where(per_tensor, capped_forward, piped_forward)
    backward_exposed = np.where(per_tensor, capped_backward, piped_backward)
    unhidden_scatters = np.where(o.grad, 0.0, (1.0 - C.DP_OVERLAP) * g.layer_scatters)
    total = m * (g.layer_gathers + backward_gathers + g.layer_scatters)
    return total, m * (forward_exposed + backward_exposed + unhidden_scatters)
