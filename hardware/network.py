"""The inter-node fabric: fabric kinds, what each achieves of its line rate, start-up latency, NIC line rates.

"cal §N" is ../shared/data/calibration.md section N.
"""

from __future__ import annotations

from .messages import _

# The fabric kinds of docs/FACTS.md: `ethernet` is TCP without RDMA.
FABRICS = ("infiniband", "roce", "efa", "tcpx", "ethernet", "other")
RDMA_FABRICS = ("infiniband", "roce", "efa")
# Each kind's name on a page: the product names as written, the others translated where they are shown.
FABRIC_NAMES: dict[str, str] = {
    "infiniband": "InfiniBand",
    "roce": "RoCE",
    "efa": "EFA",
    "tcpx": "TCPX",
    "ethernet": _("TCP Ethernet (no RDMA)"),
    "other": _("other"),
}
# The link layer a port of the fabric reports (ibv_devinfo and ibstat `link_layer`, perftest `Link type`,
# lspci's device class): RoCE runs on Ethernet ports. EFA ports are neither.
FABRIC_LINK_LAYERS: dict[str, str] = {"infiniband": "InfiniBand", "roce": "Ethernet"}
TOPOLOGIES = ("fat-tree", "rail-optimized", "clos", "torus", "ring", "chain", "unknown")
# Each topology as a page names it, translated where it is shown.
TOPOLOGY_NAMES: dict[str, str] = {
    "fat-tree": _("fat-tree"),
    "rail-optimized": _("rail-optimized"),
    "clos": _("Clos"),
    "torus": _("torus"),
    "ring": _("ring"),
    "chain": _("chain"),
    "unknown": _("unknown"),
}

# Achieved busbw / line rate per NIC at large messages. InfiniBand: DGX A100 8 x 200G -> 192 GB/s (24 of
# 25 GB/s per NIC, 0.96); NDR 46-48 of 50; AWS p5en EFA 365 of 400 (0.91); tuned RoCE close to IB (cal §5).
FABRIC_EFFICIENCY: dict[str, float] = {
    "infiniband": 0.96,  # cal §5
    "roce": 0.92,  # cal §5 ("tuned RoCE close to InfiniBand")
    "efa": 0.91,  # cal §5 (p5en 365 of 400)
    "tcpx": 0.60,  # assumed: GPUDirect-TCPX, TCP without host copies but with header processing
    "ethernet": 0.25,  # assumed: NCCL socket transport is CPU-bound, far below line rate (cal §5)
    "other": 0.50,  # assumed
}
# Effective collective start-up latency per collective (s), scaled by (1 + log2(nodes)) in the model.
# 4 x B200 over EFA: 5.4 GB/s at 1 MiB and 64 at 16 MiB -> ~0.4 ms at 4 nodes (cal §5) -> 0.13 ms per
# step. Other fabrics assumed relative to it.
ALPHA_INTER_S: dict[str, float] = {
    "infiniband": 0.05e-3,  # assumed: native RDMA, lower than EFA
    "roce": 0.06e-3,  # assumed
    "efa": 0.13e-3,  # cal §5 (4 x B200 EFA curve)
    "tcpx": 0.20e-3,  # assumed
    "ethernet": 0.50e-3,  # assumed: kernel TCP socket transport
    "other": 0.20e-3,  # assumed
}
# Nodes under one leaf switch before traffic crosses the (possibly oversubscribed) spine: one DGX
# SuperPOD scalable unit is 32 nodes (NVIDIA SuperPOD reference architecture). assumed.
NODES_PER_LEAF = 32

# InfiniBand 4x port rates by generation name, Gb/s (what `ibstatus` prints beside the rate: "200 Gb/sec
# (4X HDR)"). InfiniBand Trade Association roadmap; FDR10 is 40 Gb/s of data on FDR signalling.
INFINIBAND_RATE_GBPS: dict[str, float] = {
    "SDR": 10.0,
    "DDR": 20.0,
    "QDR": 40.0,
    "FDR10": 40.0,
    "FDR": 56.0,
    "EDR": 100.0,
    "HDR": 200.0,
    "NDR": 400.0,
    "XDR": 800.0,
}


def fabric_efficiency(fabric: str | None) -> float:
    """Achieved busbw / line rate of a fabric kind (large messages); an unknown kind counts as `other`."""
    return FABRIC_EFFICIENCY.get(fabric or "other", FABRIC_EFFICIENCY["other"])


def expected_node_busbw_gbytes(nics: float, gbps_per_nic: float, fabric: str | None) -> float:
    """GB/s a healthy node of this fabric reaches in a ring collective across nodes (nccl-tests busbw):
    the line rate of its GPU-fabric NICs times the fabric's achieved share (cal §5)."""
    return nics * gbps_per_nic / 8.0 * fabric_efficiency(fabric)


def fabric_name(fabric: str | None) -> str:
    """The fabric kind's name for a page (English; a kind outside FABRICS as it is given)."""
    return FABRIC_NAMES.get(fabric or "", fabric or "")


def port_link_layer(fabric: str | None) -> str | None:
    """The link layer the offering's GPU-fabric ports should show: FABRIC_LINK_LAYERS, and Ethernet for a TCP
    Ethernet offering too; None where no layer is known (EFA, TCPX, other)."""
    return {**FABRIC_LINK_LAYERS, "ethernet": "Ethernet"}.get(fabric or "")
