"""Pipeline-parallel communication per micro-batch, by pipeline engine (a framework setting of the layout).

`megatron` (default, every engine the calibration rows of Megatron-LM, Megatron-Core and NeMo ran):
Megatron's 1F1B / interleaved schedules (schedules.py). In the steady state each stage exchanges its output
activation and the incoming gradient in one batched send/receive after the forward and one after the backward
(`send_forward_recv_backward`, `send_backward_recv_forward`): 2 v transfers per micro-batch, each rank sending
1/tp of the activation (the scatter/gather optimisation, Narayanan et al. 2021 section 4.1).

`deepspeed` (DeepSpeed's PipelineEngine, deepspeed/runtime/pipe/engine.py, schedule.py and p2p.py as of
2021, used by MT-NLG and BLOOM through Megatron-DeepSpeed): `TrainSchedule` runs 2 (m + p - 1) steps, each
a list of instructions executed one after another; the sends and receives are blocking (`p2p.send`/`recv`,
"Doesnt support async_op true"), and in one step a stage first sends, then receives (`SendActivation` then
`RecvGrad` in a backward step, `RecvActivation` then `SendGrad` in a forward step). A discrete-event
simulation of that order with rendezvous sends (docs/MODEL.md) gives the same bubble as 1F1B with free
transfers, but the two directions are no longer concurrent: 4 transfers per micro-batch on the critical path
instead of 2. With tensor parallelism the engine partitions what it sends (`is_pipe_partitioned`: each rank
sends 1/tp, the equivalent of Megatron's scatter/gather), as two messages, the partition's metadata and its
data (`PartitionedTensor.to_meta()`, `data()`), and rebuilds the full tensor with an all-gather over the TP
group three times per micro-batch (`PartitionedTensor.full()`: the received input in the forward, the stage's
own output before the backward, the received gradient), where Megatron gathers twice (after each receive).
The engine has no interleaved schedule.

What the `deepspeed` engine adds over Megatron's per micro-batch is in `deepspeed_extra`; Megatron's own two
gathers are not charged (inside the calibration of the Megatron rows), so the default leaves every Megatron
row unchanged.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import constants as C
from . import timing as T
from .hardware import Hardware

PIPELINE_ENGINES = ("megatron", "deepspeed")


def pipeline_comm(hw: Hardware, x: dict[str, Any], activation_msg: Any) -> tuple[Any, Any]:
    """(seconds per micro-batch, seconds per iteration) of the activations sent between stages.

    Blocking sends (1F1B, or interleaved without overlap_p2p_comm): 2 v transfers per micro-batch on the
    critical path. With overlap_p2p_comm (Megatron-Core's interleaved schedule posts the sends/receives
    asynchronously and waits one step later) a transfer delays only the chain of dependent chunks: 2 (p v - 1)
    transfers per iteration, independent of the micro-batch count (a discrete-event simulation of the
    schedule's order, docs/MODEL.md). Each TP rank sends 1/tp (Megatron's scatter/gather optimisation).
    DeepSpeed's engine (grid key `dsp`) adds `deepspeed_extra` per micro-batch."""
    tp, pp, v = x["tp"], x["pp"], x["v"]
    stride = tp * x["cp"] * x["dp"]
    # the stages step in lockstep, so the slowest boundary paces them: a pipeline wider than the scale-up
    # domain has a boundary between domains even where adjacent stages share one (TP4 x DP1 puts two stages
    # on an 8-GPU node, and every other boundary crosses the network), sized as a pair one domain apart
    domain = float(hw.scale_up_domain_gpus)
    pair_stride = np.where((stride < domain) & (stride * pp > domain), domain, stride)
    bw, _, crosses = T.group_link(hw, pair_stride, np.minimum(pp, 2.0))
    one = T.send_recv_time(hw, activation_msg / tp, bw, crosses)
    overlapped = x["ppo"] & (v > 1)
    per_micro_batch = np.where((pp > 1) & ~overlapped, C.MEGATRON_TRANSFERS_PER_MICRO_BATCH * v * one, 0.0)
    chain = np.where((pp > 1) & overlapped, 2.0 * (pp * v - 1.0) * one, 0.0)
    deepspeed = x.get("dsp")
    if deepspeed is not None and np.any(deepspeed):
        extra = deepspeed_extra(hw, x, activation_msg, one, bw, crosses)
        per_micro_batch = per_micro_batch + np.where(deepspeed & (pp > 1), extra, 0.0)
    return per_micro_batch, chain


def deepspeed_extra(
    hw: Hardware, x: dict[str, Any], activation_msg: Any, one: Any, bw: Any, crosses: Any
) -> Any:
    """Seconds per micro-batch DeepSpeed's 2021 pipeline engine adds over Megatron's schedule: the two
    directions in sequence (2 more transfers), the metadata message before each partitioned transfer and one
    more all-gather of the partitioned activation over the TP group (module docstring)."""
    tp = x["tp"]
    transfers = (C.DEEPSPEED_TRANSFERS_PER_MICRO_BATCH - C.MEGATRON_TRANSFERS_PER_MICRO_BATCH) * one
    partitioned = tp > 1
    meta = C.DEEPSPEED_META_MESSAGES_PER_MICRO_BATCH * T.send_recv_time(hw, 0.0, bw, crosses)
    tp_bw, tp_steps, _ = T.group_link(hw, 1.0, tp)
    gather = T.collective_time(T.ALL_GATHER, tp, activation_msg, tp_bw, tp_steps)
    gathers = (C.DEEPSPEED_GATHERS_PER_MICRO_BATCH - C.MEGATRON_GATHERS_PER_MICRO_BATCH) * gather
    return transfers + np.where(partitioned, meta + gathers, 0.0)
