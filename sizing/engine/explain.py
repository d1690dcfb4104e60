"""Plain-English reasons for a layout ("TP=8 keeps tensor traffic on NVSwitch; PP=16 because ...")."""

from __future__ import annotations

from typing import Any

from . import constants as C
from .hardware import Hardware
from .layout import Layout
from .workload import Workload


def _pct(part: float, whole: float) -> str:
    return f"{100.0 * part / whole:.0f}%" if whole > 0 else "0%"


def explain(wl: Workload, hw: Hardware, lay: Layout, r: dict[str, Any]) -> list[str]:
    out: list[str] = []
    gpn = hw.gpus_per_node
    it = r["iteration_time_s"]
    br = r["iteration_breakdown_s"]
    mem = r["memory_gib_per_gpu"]
    intra = hw.intra_busbw / C.GB
    inter_per_gpu = hw.node_busbw / C.GB / gpn
    link = {
        "nvswitch": "NVSwitch",
        "nvlink-mesh": "the NVLink/xGMI mesh",
        "nvlink-bridge": "NVLink bridges",
        "pcie": "PCIe",
    }[hw.intra_node]
    if lay.tp == 1:
        out.append(
            "TP=1: no tensor parallelism, so no per-layer all-reduces; the model is split by other means."
        )
    elif lay.tp <= gpn:
        out.append(
            f"TP={lay.tp} keeps the per-layer tensor-parallel all-reduces inside the node on {link} "
            f"(~{intra:.0f} GB/s bus bandwidth vs ~{inter_per_gpu:.0f} GB/s per GPU between nodes); "
            f"they cost "
            f"{_pct(br['tp_comm'], it)} of the iteration."
        )
    else:
        out.append(
            f"TP={lay.tp} spans {lay.tp // gpn} nodes: its all-reduces run over the inter-node fabric "
            f"(~{inter_per_gpu * gpn:.0f} GB/s per node) and cost {_pct(br['tp_comm'], it)} of the iteration."
        )
    if hw.intra_node == "pcie" and lay.tp > 1:
        out.append(
            f"GPUs in a node only talk over PCIe (~{intra:.0f} GB/s), which makes tensor parallelism costly."
        )
    if lay.pp > 1:
        n = r["layers_per_stage_max"]
        m = r["micro_batches_per_iteration"]
        s = (
            f"PP={lay.pp} splits the {wl.layers} layers into stages of at most {n} so weights, gradients and "
            f"optimizer state fit ({mem['weights'] + mem['grads'] + mem['optimizer']:.1f} GiB per GPU); "
        )
        s += (
            f"with {m} micro-batches per replica the bubble (p-1)/(v m) costs {_pct(br['bubble'], it)}"
            + (f", cut by {lay.virtual_stages} virtual stages" if lay.virtual_stages > 1 else "")
            + "."
        )
        out.append(s)
        if lay.tp * lay.cp * lay.dp >= gpn:
            out.append(
                "Pipeline stages sit on different nodes: only one activation per micro-batch crosses "
                f"the fabric, costing {_pct(br['pp_comm'], it)}."
            )
    else:
        out.append("PP=1: the model states fit without pipeline stages, so there is no pipeline bubble.")
    m = r["micro_batches_per_iteration"]
    if lay.dp > 1:
        what = (
            "gradient reduction adds"
            if lay.zero <= 2
            else "parameter gathers and gradient reduce-scatters add"
        )
        out.append(
            f"DP={lay.dp} replicas; the {what} {br['dp_comm']:.2f} s per iteration after the "
            "part hidden behind compute"
            + (f" ({int(C.DP_OVERLAP * 100)}% of the gradient traffic)." if lay.zero <= 2 else ".")
        )
    zero_text = {
        0: "ZeRO-0: every DP rank keeps the full optimizer state.",
        1: "ZeRO-1 (Megatron's distributed optimizer) shards the optimizer state over DP, no extra traffic.",
        2: "ZeRO-2 also shards gradients over DP, so they are reduce-scattered for every one of the "
        f"{m} micro-batches instead of once per step (only without pipeline stages).",
        3: "ZeRO-3 also shards the weights: each of the "
        f"{m} micro-batches all-gathers them in the forward and again in the backward pass and "
        "reduce-scatters its gradients (1.5x the data-parallel traffic per micro-batch; prefetching hides "
        f"at most {int(100 * C.ZERO3_PREFETCH_OVERLAP)}% of the gathers).",
    }
    out.append(zero_text[lay.zero])
    if lay.ep > 1:
        out.append(
            f"EP={lay.ep} spreads the experts over {lay.ep} ranks; the token all-to-alls cost "
            f"{_pct(br['ep_comm'], it)} of the iteration."
        )
    if lay.cp > 1:
        out.append(
            f"CP={lay.cp} splits each sequence for attention; K/V exchange costs {_pct(br['cp_comm'], it)}."
        )
    rec = {
        "none": "no activation recomputation",
        "selective": "selective recomputation (attention scores only)",
        "full": "full recomputation (the forward pass runs twice)",
    }[lay.recompute]
    out.append(
        f"Activations: {rec}{' with sequence parallelism' if lay.sequence_parallel and lay.tp > 1 else ''}, "
        f"{mem['activations']:.1f} GiB; {mem['total']:.1f} of {r['hbm_gib_per_gpu']:.1f} GiB used per GPU."
    )
    out.append(
        f"Predicted {r['model_tflops_per_gpu']:.0f} model TFLOP/s per GPU (MFU {100 * r['mfu']:.1f}%), "
        f"{r['train_days']:.1f} days including failures (goodput {100 * r['goodput']['fraction']:.1f}%)."
    )
    return out
