"""Plain-English reasons for a layout ("TP=8 keeps tensor traffic on NVSwitch; PP=16 because ...").

Each helper writes the sentences about one dimension of the layout from the result dict `result` (the
DESIGN section 5 output being built), so every number quoted is the one the buyer sees.
"""

from __future__ import annotations

from typing import Any

from . import constants as C
from .hardware import Hardware
from .layout import Layout
from .workload import Workload

INTRA_NODE_LINK = {
    "nvswitch": "NVSwitch",
    "nvlink-mesh": "the NVLink/xGMI mesh",
    "nvlink-bridge": "NVLink bridges",
    "pcie": "PCIe",
}
RECOMPUTE_TEXT = {
    "none": "no activation recomputation",
    "selective": "selective recomputation (attention scores only)",
    "full": "full recomputation (the forward pass runs twice)",
}


def _pct(part: float, whole: float) -> str:
    return f"{100.0 * part / whole:.0f}%" if whole > 0 else "0%"


def _share(result: dict[str, Any], part: str) -> str:
    """The share of the iteration that the breakdown's `part` costs."""
    return _pct(result["iteration_breakdown_s"][part], result["iteration_time_s"])


def _tensor_parallel(hw: Hardware, lay: Layout, result: dict[str, Any]) -> list[str]:
    gpus_per_node = hw.gpus_per_node
    intra = hw.intra_busbw / C.GB
    inter_per_gpu = hw.node_busbw / C.GB / gpus_per_node
    out: list[str] = []
    if lay.tp == 1:
        out.append(
            "TP=1: no tensor parallelism, so no per-layer all-reduces; the model is split by other means."
        )
    elif lay.tp <= gpus_per_node:
        out.append(
            f"TP={lay.tp} keeps the per-layer tensor-parallel all-reduces inside the node on "
            f"{INTRA_NODE_LINK[hw.intra_node]} "
            f"(~{intra:.0f} GB/s bus bandwidth vs ~{inter_per_gpu:.0f} GB/s per GPU between nodes); "
            f"they cost "
            f"{_share(result, 'tp_comm')} of the iteration."
        )
    else:
        out.append(
            f"TP={lay.tp} spans {lay.tp // gpus_per_node} nodes: its all-reduces run over the inter-node "
            f"fabric (~{inter_per_gpu * gpus_per_node:.0f} GB/s per node) and cost "
            f"{_share(result, 'tp_comm')} of the iteration."
        )
    if hw.intra_node == "pcie" and lay.tp > 1:
        out.append(
            f"GPUs in a node only talk over PCIe (~{intra:.0f} GB/s), which makes tensor parallelism costly."
        )
    return out


def _pipeline(wl: Workload, hw: Hardware, lay: Layout, result: dict[str, Any]) -> list[str]:
    if lay.pp == 1:
        return ["PP=1: the model states fit without pipeline stages, so there is no pipeline bubble."]
    mem = result["memory_gib_per_gpu"]
    states = mem["weights"] + mem["grads"] + mem["optimizer"]
    text = (
        f"PP={lay.pp} splits the {wl.layers} layers into stages of at most {result['layers_per_stage_max']} "
        f"so weights, gradients and optimizer state fit ({states:.1f} GiB per GPU); "
    )
    text += (
        f"with {result['micro_batches_per_iteration']} micro-batches per replica the bubble (p-1)/(v m) "
        f"costs {_share(result, 'bubble')}"
        + (f", cut by {lay.virtual_stages} virtual stages" if lay.virtual_stages > 1 else "")
        + "."
    )
    out = [text]
    if lay.tp * lay.cp * lay.dp >= hw.gpus_per_node:
        out.append(
            "Pipeline stages sit on different nodes: only one activation per micro-batch crosses "
            f"the fabric, costing {_share(result, 'pp_comm')}."
        )
    return out


def _data_parallel(lay: Layout, result: dict[str, Any]) -> list[str]:
    out: list[str] = []
    if lay.dp > 1:
        what = (
            "gradient reduction adds"
            if lay.zero <= 2
            else "parameter gathers and gradient reduce-scatters add"
        )
        if lay.zero <= 2 and not lay.overlap_grad_reduce:
            hidden = f" ({int(C.DP_OVERLAP * 100)}% of the gradient traffic, without overlap_grad_reduce)."
        elif lay.zero <= 2:
            hidden = " (overlap_grad_reduce: bucket by bucket behind the last micro-batch's backward pass)."
        else:
            hidden = "."
        out.append(
            f"DP={lay.dp} replicas; the {what} {result['iteration_breakdown_s']['dp_comm']:.2f} s per "
            "iteration after the part hidden behind compute" + hidden
        )
    micro_batches = result["micro_batches_per_iteration"]
    zero_text = {
        0: "ZeRO-0: every DP rank keeps the full optimizer state.",
        1: "ZeRO-1 (Megatron's distributed optimizer) shards the optimizer state over DP, no extra traffic.",
        2: "ZeRO-2 also shards gradients over DP, so they are reduce-scattered for every one of the "
        f"{micro_batches} micro-batches instead of once per step (only without pipeline stages).",
        3: "ZeRO-3 also shards the weights: each of the "
        f"{micro_batches} micro-batches all-gathers them in the forward and again in the backward pass and "
        "reduce-scatters its gradients (1.5x the data-parallel traffic per micro-batch; prefetching hides "
        f"them behind at most {int(100 * C.ZERO3_OVERLAP)}% of each pass's compute).",
    }
    out.append(zero_text[lay.zero])
    return out


def _expert_and_context(lay: Layout, result: dict[str, Any]) -> list[str]:
    out: list[str] = []
    if lay.ep > 1:
        folded = (
            f" with ETP={lay.expert_tp}, folded over the TP x DP ranks (Megatron-Core expert tensor "
            "parallelism)"
            if lay.expert_tp != lay.tp
            else ""
        )
        out.append(
            f"EP={lay.ep} spreads the experts over {lay.ep} ranks{folded}; the token all-to-alls cost "
            f"{_share(result, 'ep_comm')} of the iteration."
        )
    if lay.cp > 1:
        out.append(
            f"CP={lay.cp} splits each sequence for attention; K/V exchange costs {_share(result, 'cp_comm')}."
        )
    return out


def _memory_and_speed(lay: Layout, result: dict[str, Any]) -> list[str]:
    mem = result["memory_gib_per_gpu"]
    sequence_parallel = " with sequence parallelism" if lay.sequence_parallel and lay.tp > 1 else ""
    return [
        f"Activations: {RECOMPUTE_TEXT[lay.recompute]}{sequence_parallel}, "
        f"{mem['activations']:.1f} GiB; {mem['total']:.1f} of {result['hbm_gib_per_gpu']:.1f} GiB used per "
        "GPU.",
        f"Predicted {result['model_tflops_per_gpu']:.0f} model TFLOP/s per GPU "
        f"(MFU {100 * result['mfu']:.1f}%), {result['train_days']:.1f} days including failures (goodput "
        f"{100 * result['goodput']['fraction']:.1f}%).",
    ] + _spares(result)


def _spares(result: dict[str, Any]) -> list[str]:
    goodput = result["goodput"]
    spares = int(goodput.get("spare_nodes") or 0)
    if not spares:
        return []
    return [
        f"{spares} spare node(s) held and billed beside the {result['nodes']} job nodes: a failed node is "
        f"out for {goodput['repair_min']:.0f} min, and with {goodput['expected_failures']:.0f} failures "
        "expected the job would otherwise wait for each replacement."
    ]


def explain(wl: Workload, hw: Hardware, lay: Layout, r: dict[str, Any]) -> list[str]:
    """Why each dimension of `lay` is what it is, from its result `r`."""
    return (
        _tensor_parallel(hw, lay, r)
        + _pipeline(wl, hw, lay, r)
        + _data_parallel(lay, r)
        + _expert_and_context(lay, r)
        + _memory_and_speed(lay, r)
    )
