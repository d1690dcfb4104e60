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


def collective_factor(kind: str, n: Array) -> Array:
    n = np.asarray(n, dtype=float)
    if kind == ALL_REDUCE:
        return 2.0 * (n - 1.0) / n
    if kind == ALL_GATHER:
        return (n - 1.0) / n
    return np.ones_like(n)


def gemm_efficiency(hw: Hardware, gemm_size: Array) -> Array:
    """Achieved / peak for a per-GPU GEMM of size tokens x hidden x hidden/tp: saturating curve
    (constants.GEMM_HALF_SIZE, fitted on cal §2)."""
    x = np.asarray(gemm_size, dtype=float)
    return hw.gemm_efficiency_max * x / (x + C.GEMM_HALF_SIZE)


def group_link(hw: Hardware, stride: Array, size: Array) -> tuple[Array, Array, Array]:
    """(busbw bytes/s, alpha s, crosses_nodes) for a communication group of `size` ranks placed `stride`
    ranks apart (Megatron rank order: tp, cp, ep/dp, pp).

    Inside a node: the node's interconnect (nvlink-bridge only joins pairs; larger groups go over PCIe).
    Across nodes: the node's fabric bandwidth, shared among the groups that cross the node boundary at the
    same time (a group with k members per node gets k / gpus_per_node of it), degraded by topology and
    scale (hardware.topology_factor), never faster than the intra-node link.
    """
    gpus_per_node = hw.gpus_per_node
    stride = np.asarray(stride, dtype=float)
    size = np.asarray(size, dtype=float)
    span = stride * size
    intra = span <= gpus_per_node
    if hw.intra_node == "nvlink-bridge":
        pcie = hw.gpu.pcie_gbytes_per_s * C.PCIE_BUSBW_EFFICIENCY * C.GB
        intra_bw = np.where(size <= 2, hw.intra_busbw, pcie)
    else:
        intra_bw = np.full_like(size, hw.intra_busbw)
    members_per_node = np.where(
        stride < gpus_per_node, np.minimum(np.maximum(gpus_per_node // np.maximum(stride, 1), 1), size), 1
    )
    nodes = np.where(stride < gpus_per_node, np.ceil(span / gpus_per_node), size)
    inter_bw = hw.node_busbw * members_per_node / gpus_per_node * hw.topology_factor(nodes)
    inter_bw = np.minimum(inter_bw, intra_bw)
    bw = np.where(intra, intra_bw, inter_bw)
    alpha = np.where(intra, C.ALPHA_INTRA_S, hw.alpha_inter_s * (1.0 + np.log2(np.maximum(nodes, 1.0))))
    return bw, alpha, ~intra


def collective_time(kind: str, n: Array, nbytes: Array, bw: Array, alpha: Array) -> Array:
    """Alpha-beta time of one collective over n ranks; zero when n == 1."""
    n = np.asarray(n, dtype=float)
    t = alpha + collective_factor(kind, n) * nbytes / bw
    return np.where(n > 1, t, 0.0)
