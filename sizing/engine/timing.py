"""Time building blocks: GEMM efficiency, alpha-beta collectives over the link a group lands on.

numpy-friendly: every function broadcasts over arrays of layouts.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import constants as C
from .hardware import Hardware

Array = Any

# nccl-tests bus-bandwidth factors (cal §5): time = alpha + factor x bytes / busbw
ALL_REDUCE = "all_reduce"
ALL_GATHER = "all_gather"  # also reduce-scatter and all-to-all: (n-1)/n
SEND_RECV = "send_recv"
# ring steps of a collective, in units of an all-gather's n-1 (NCCL tuning model: all-reduce 2(n-1))
RING_STEPS = {ALL_REDUCE: 2.0, ALL_GATHER: 1.0, SEND_RECV: 0.0}


def collective_factor(kind: str, n: Array) -> Array:
    n = np.asarray(n, dtype=float)
    if kind == ALL_REDUCE:
        return 2.0 * (n - 1.0) / n
    if kind == ALL_GATHER:
        return (n - 1.0) / n
    return np.ones_like(n)


def gemm_efficiency(hw: Hardware, gemm_size: Array, peak: float) -> Array:
    """Achieved / peak for a per-GPU GEMM of size tokens x hidden x hidden/tp run at `peak` FLOP/s (the
    tensor-core peak of its precision, derated as the model runs it): a saturating curve whose half point is
    a fixed time per GEMM, not a fixed size (constants.GEMM_HALF_SIZE, fitted on cal §2's A100 runs, scaled
    by this GEMM's plateau rate over the rate it was fitted at, constants.GEMM_HALF_SIZE_RATE)."""
    x = np.asarray(gemm_size, dtype=float)
    rate = peak * hw.gemm_efficiency_max
    return hw.gemm_efficiency_max * x / (x + C.GEMM_HALF_SIZE * rate / C.GEMM_HALF_SIZE_RATE)


def ring_step_net_s(hw: Hardware) -> float:
    """Latency of one ring step that crosses nodes on this fabric (constants.RING_STEP_NET_S for
    InfiniBand, scaled by the fabric's start-up latency relative to InfiniBand's)."""
    return C.RING_STEP_NET_S * hw.alpha_inter_s / C.ALPHA_INTER_S["infiniband"]


def group_link(
    hw: Hardware, stride: Array, size: Array, share_node: bool = True
) -> tuple[Array, Array, Array]:
    """(busbw bytes/s, ring-step latency s, crosses the scale-up domain) for a communication group of
    `size` ranks placed `stride` ranks apart (Megatron rank order: tp, cp, ep/dp, pp).

    Inside the scale-up domain (a node, or an NVL72/CloudMatrix rack of several nodes): the scale-up link
    (nvlink-bridge only joins pairs; larger groups go over PCIe). Across it: the node's fabric bandwidth,
    shared among the groups that cross the node boundary at the same time (a group with k members per node
    gets k / gpus_per_node of it, as NCCL's multi-ring collectives use every NIC of the node), degraded by
    topology and scale (hardware.topology_factor), never faster than the intra-node link. With
    `share_node=False` each member gets only its own NIC's share (per-layer ZeRO-3 collectives,
    constants.ZERO3_PER_GPU_NIC).

    The latency is the ring-step part of NCCL's tuning model (src/graph/tuning.cc): an all-gather over n
    ranks on k nodes takes (n - k) steps over NVLink and k - 1 over the network (all-reduce twice that);
    collective_time adds the fixed start-up constants.ALPHA_INTRA_S.
    """
    gpus_per_node = hw.gpus_per_node
    stride = np.asarray(stride, dtype=float)
    size = np.asarray(size, dtype=float)
    span = stride * size
    intra = span <= hw.scale_up_domain_gpus
    intra_bw: Array = hw.intra_busbw
    if hw.intra_node == "nvlink-bridge":
        pcie = hw.gpu.pcie_gbytes_per_s * C.PCIE_BUSBW_EFFICIENCY * C.GB
        intra_bw = np.where(size <= 2, hw.intra_busbw, pcie)
    within_node = stride < gpus_per_node
    nodes = np.where(within_node, np.ceil(span / gpus_per_node), size)
    # NCCL fuses the topology of a multi-node NVLink clique (NVL72) into one node (src/graph/topo.cc, "XML
    # topo fusion ... MNNVL clique support"): its rings cross the network once per clique and balance over
    # every NIC of the clique, as they do over a node's NICs. A plain node is its own domain; so is another
    # vendor's node in a larger scale-up domain (CloudMatrix384): no source read says its library does that.
    pool = hw.scale_up_domain_gpus if hw.gpu.vendor == "nvidia" else gpus_per_node
    within_pool = stride < pool
    pools = nodes if pool == gpus_per_node else np.where(within_pool, np.ceil(span / pool), size)
    if share_node:
        share = np.where(within_pool, np.minimum(np.maximum(pool // np.maximum(stride, 1), 1), size), 1)
        inter_bw = (hw.node_busbw / gpus_per_node) * share * hw.topology_factor(nodes)
    else:
        inter_bw = (hw.node_busbw / gpus_per_node) * hw.topology_factor(nodes)
    bw = np.where(intra, intra_bw, np.minimum(inter_bw, intra_bw))
    # ring steps over NVLink (n - k) and over the network (k - 1), k the nodes or cliques the group spans,
    # only for groups that leave the domain
    steps = np.maximum(size - pools, 0.0) * C.RING_STEP_NVLINK_S + np.maximum(
        pools - 1.0, 0.0
    ) * ring_step_net_s(hw)
    return bw, np.where(intra, 0.0, steps), ~intra


def collective_time(kind: str, n: Array, nbytes: Array, bw: Array, step_latency: Array) -> Array:
    """Alpha-beta time of one collective over n ranks; zero when n == 1. alpha = the fixed start-up
    (constants.ALPHA_INTRA_S) + the ring steps of this kind of collective (group_link)."""
    n = np.asarray(n, dtype=float)
    alpha = C.ALPHA_INTRA_S + RING_STEPS[kind] * step_latency
    t = alpha + collective_factor(kind, n) * nbytes / bw
    return np.where(n > 1, t, 0.0)


def send_recv_time(hw: Hardware, nbytes: Array, bw: Array, crosses: Array) -> Array:
    """One point-to-point transfer: start-up, one network hop if it leaves the scale-up domain, bytes."""
    return C.ALPHA_INTRA_S + np.where(crosses, ring_step_net_s(hw), 0.0) + nbytes / bw


def all_to_all_time(
    hw: Hardware, stride: Array, n: Array, nbytes: Array, top_k: int = 1, dedup: Array = False
) -> Array:
    """All-to-all of `nbytes` per rank over n ranks `stride` apart (MoE token dispatch/combine; `nbytes`
    holds top_k copies of each token).

    Every rank sends (n-1)/n of its bytes, point to point: the part bound for ranks in its own scale-up
    domain goes over NVLink, the rest over this GPU's own NIC (an all-to-all cannot pool the node's NICs the
    way ring collectives do: every GPU talks to every other at once). The two proceed in parallel; the
    slower one sets the time.

    Without `dedup` (Megatron-Core's MoEAlltoAllTokenDispatcher, moe_token_dispatcher_type "alltoall":
    tokens are permuted into one row per routed expert before the all-to-all) every one of a token's top_k
    copies travels. With `dedup` (DeepEP, Megatron-Core's flex dispatcher with the DeepEP or HybridEP
    backend; DeepSeek-V3 report section 3.2.2) a token travels once to each scale-up domain its experts
    live in (one network transfer, then NVLink forwarding) and, inside the domain, once to each rank that
    holds one of its experts (DeepEP get_dispatch_layout: is_token_in_rank): with experts spread evenly over
    g destinations, E[destinations reached] = g (1 - (1 - 1/g)^k) instead of k copies."""
    stride = np.asarray(stride, dtype=float)
    n = np.asarray(n, dtype=float)
    domain = float(hw.scale_up_domain_gpus)
    local = np.minimum(n, np.maximum(np.floor(domain / np.maximum(stride, 1.0)), 1.0))
    remote = n - local
    on_copies = np.ones_like(n)
    if top_k > 1 and np.any(dedup):
        domains = np.maximum(n / local, 1.0)
        per_domain = np.where(domains > 1.0, _copies_reached(domains, top_k), 1.0)
        per_rank = np.where(n > 1.0, _copies_reached(n, top_k), 1.0)
        remote = np.where(dedup, remote * per_domain, remote)
        on_copies = np.where(dedup, per_rank, 1.0)
    nodes = np.maximum(np.ceil(n * stride / hw.gpus_per_node), 1.0)
    nic_bw = hw.node_busbw / hw.gpus_per_node * hw.topology_factor(nodes)
    on_link = nbytes * on_copies * np.maximum(local - 1.0, 0.0) / n / hw.intra_busbw
    off_link = nbytes * remote / n / nic_bw
    alpha = C.ALPHA_INTRA_S + np.where(remote > 0, ring_step_net_s(hw), 0.0)
    return np.where(n > 1, alpha + np.maximum(on_link, off_link), 0.0)


def _copies_reached(destinations: Array, top_k: int) -> Array:
    """Share of a token's top_k copies a deduplicating dispatcher sends when its experts are spread evenly
    over `destinations` (domains or ranks): E[destinations reached] / top_k = g (1 - (1 - 1/g)^k) / k."""
    return destinations * (1.0 - (1.0 - 1.0 / destinations) ** top_k) / top_k


def output_layer_time(hw: Hardware, hidden: int, vocab: int, mtp: int, tp: Array, tokens: Array) -> Array:
    """Seconds of the output layer (logits) per micro-batch, forward and backward; it is not recomputed
    (cal §2, eq. 3's V/16lh term) and stays in bf16 under fp8 (Megatron keeps the output layer in bf16).
    Each of `mtp` multi-token-prediction depths runs it again, and its own 2h x h projection."""
    h, peak, forward = float(hidden), hw.gpu.bf16_tflops * 1e12, 0.0
    for width, passes in ((float(vocab), 1.0 + mtp), (2.0 * h, float(mtp))):
        size = tokens * h * width / tp
        forward = forward + passes * 2.0 * size / (peak * gemm_efficiency(hw, size, peak))
    return 3.0 * forward
