"""Offering facts dict (docs/FACTS.md) -> the hardware and link model used by memory and timing."""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any

import hardware as hw_facts
from hardware import FABRICS, GPUS, TOPOLOGIES, gpu_by_name
from hardware import INTRA_NODE_KINDS as INTRA_KINDS

from . import constants as C
from .errors import InputError


@dataclass
class Hardware:
    gpu: hw_facts.GPU
    gpus_per_node: int
    intra_node: str
    intra_busbw: float  # bytes/s, all-reduce class busbw among the GPUs of a node (large messages)
    fabric: str
    node_busbw: float  # bytes/s, achieved inter-node bandwidth per node (all NICs, before topology)
    alpha_inter_s: float
    topology: str
    oversubscription: float
    max_nodes: int
    max_nodes_published: bool
    facts: dict[str, Any]
    assumptions: list[str] = field(default_factory=list)
    # GPUs joined by the scale-up link (NVLink/UB), which may span several nodes: GB200/GB300 NVL72 racks
    # (72 GPUs over 4-GPU trays), Huawei CloudMatrix384 (384 NPUs over 8-NPU nodes); else the node
    nvlink_domain_gpus: int = 0

    @property
    def scale_up_domain_gpus(self) -> int:
        return max(self.nvlink_domain_gpus, self.gpus_per_node)

    @property
    def hbm_bytes(self) -> float:
        """Memory capacity as the device reports it (nvidia-smi / rocminfo total, hardware.GPU
        .hbm_mib_reported); the datasheet capacity where no reported figure is known (stated in
        `assumptions`). The framework's own reserve is the `overhead` memory line (memory.overhead_bytes)."""
        reported = self.gpu.hbm_bytes_reported
        return reported if reported is not None else self.gpu.hbm_gb * C.GB

    @property
    def gemm_efficiency_max(self) -> float:
        """Plateau of achieved / peak for large GEMMs on this GPU's architecture (constants)."""
        return C.GEMM_EFFICIENCY_MAX[self.gpu.architecture]

    @property
    def name(self) -> str:
        return str(self.facts.get("name") or self.facts.get("slug") or self.gpu.key)

    def topology_factor(self, nodes: Any) -> Any:
        """Share of the per-node bandwidth left for a collective spanning `nodes` nodes (numpy-friendly).
        Fat-tree / Clos / rail-optimized: full inside a leaf, 1/oversubscription beyond it. A ring or chain
        has a bisection of 2 or 1 links while uniform traffic needs n/2: efficiency falls as 4/n or 2/n; a
        3-D torus as 4 n^(-1/3). (Bisection arguments; constants in constants.py.)"""
        import numpy as np

        n = np.maximum(np.asarray(nodes, dtype=float), 1.0)
        if self.topology in ("ring",):
            f = np.minimum(1.0, 4.0 / n)
        elif self.topology == "chain":
            f = np.minimum(1.0, 2.0 / n)
        elif self.topology == "torus":
            f = np.minimum(1.0, 4.0 * n ** (-1.0 / 3.0))
        else:
            f = np.ones_like(n)
        over = np.where(n > C.NODES_PER_LEAF, 1.0 / self.oversubscription, 1.0)
        return f * over


def _pos(facts: dict[str, Any], key: str, kind: type = float) -> Any:
    v = facts.get(key)
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v):
        raise InputError(f"offering.{key}", f"must be a number, got {v!r}")
    if v <= 0:
        raise InputError(f"offering.{key}", f"must be positive, got {v!r}")
    if kind is int:
        if float(v) != int(v):
            raise InputError(f"offering.{key}", f"must be an integer, got {v!r}")
        return int(v)
    return float(v)


def resolve_gpu(key: Any) -> hw_facts.GPU:
    if not isinstance(key, str) or not key:
        raise InputError("offering.gpu", "missing (a key of the GPU table, e.g. H100-SXM-80GB)")
    gpu = gpu_by_name(key)
    if gpu is None:
        raise InputError("offering.gpu", f"unknown GPU {key!r} (known: {', '.join(GPUS)})")
    return gpu


def _default_nodes_note(nodes: int, gpn: int) -> str:
    return (
        f"maximum nodes not published: the search allows up to {nodes} nodes ({nodes * gpn:,} GPUs), "
        "assumed the typical largest single-tenant rental without a custom contract; ask for more with "
        "--gpus and confirm capacity"
    )


def allow_requested_gpus(hw: Hardware, gpus: int | None) -> Hardware:
    """An explicit GPU count may exceed the default cap when the offering publishes no maximum: the buyer
    asked for it. The cap is raised to the requested size and the assumption says so."""
    if gpus is None or hw.max_nodes_published:
        return hw
    needed = math.ceil(gpus / hw.gpus_per_node)
    if needed <= hw.max_nodes:
        return hw
    old = _default_nodes_note(hw.max_nodes, hw.gpus_per_node)
    note = (
        f"maximum nodes not published: {needed} nodes ({gpus:,} GPUs) requested explicitly, above the "
        f"default cap of {hw.max_nodes}; confirm the offering has that capacity"
    )
    return replace(hw, max_nodes=needed, assumptions=[note if a == old else a for a in hw.assumptions])


def hardware_from_facts(facts: dict[str, Any]) -> Hardware:
    """Validate the offering facts and derive the link model; every unpublished value gets a stated
    assumption."""
    if not isinstance(facts, dict):
        raise InputError("offering", "must be a JSON object")
    gpu = resolve_gpu(facts.get("gpu"))
    notes: list[str] = []
    if not gpu.confirmed:
        peaks_source = gpu.sources.get("peaks", "")
        notes.append(f"GPU {gpu.key}: peak figures not confirmed from a stored datasheet ({peaks_source})")

    gpn = _pos(facts, "gpus_per_node", int)
    if gpn is None:
        gpn = C.DEFAULT_GPUS_PER_NODE
        notes.append(f"gpus_per_node not published: {gpn} assumed")

    intra = facts.get("intra_node")
    if intra is not None and intra not in INTRA_KINDS:
        raise InputError("offering.intra_node", f"must be one of {', '.join(INTRA_KINDS)}, got {intra!r}")
    if intra is None:
        # AMD Instinct OAM platforms join their GPUs by a direct Infinity Fabric (xGMI) all-to-all mesh and
        # Huawei Atlas boards by HCCS links, not a switch; NVIDIA SXM boards up to 8 GPUs by NVSwitch
        mesh = "nvlink-mesh" if gpu.vendor in ("amd", "huawei") else "nvswitch"
        intra = mesh if gpu.scale_up_gbytes_per_s > 0 and gpn <= 8 else "pcie"
        notes.append(f"intra_node not published: {intra} assumed from the GPU model")
    link = _pos(facts, "intra_node_gbytes_per_s")
    if intra in ("nvswitch", "nvlink-mesh"):
        raw = link if link is not None else gpu.scale_up_gbytes_per_s
    elif intra == "nvlink-bridge":
        # only pairs are bridged: any collective over more than 2 GPUs runs at PCIe speed (see timing)
        raw = link if link is not None else C.NVLINK_BRIDGE_GBYTES_PER_S
    else:
        raw = link if link is not None else gpu.pcie_gbytes_per_s
    intra_busbw = raw * hw_facts.intra_node_busbw_efficiency(intra)
    if link is None and intra in ("nvswitch", "nvlink-mesh") and gpu.scale_up_gbytes_per_s <= 0:
        raise InputError("offering.intra_node", f"{intra} given but {gpu.key} has no NVLink")
    if link is None:
        notes.append(f"intra_node_gbytes_per_s not published: {raw:.0f} GB/s per GPU from the GPU table")

    fabric = facts.get("fabric")
    if fabric is not None and fabric not in FABRICS:
        raise InputError("offering.fabric", f"must be one of {', '.join(FABRICS)}, got {fabric!r}")
    if fabric is None:
        fabric = C.DEFAULT_FABRIC
        notes.append("fabric not published: treated as plain TCP Ethernet (no RDMA), the conservative case")
    nics = _pos(facts, "nics_per_node", int)
    if nics is None:
        nics = C.DEFAULT_NICS_PER_NODE
        notes.append(f"nics_per_node not published: {nics} GPU-fabric NIC per node assumed")
    gbps = _pos(facts, "gbps_per_nic")
    if gbps is None:
        gbps = C.DEFAULT_GBPS_PER_NIC
        notes.append(f"gbps_per_nic not published: {gbps:.0f} Gb/s assumed")
    node_busbw = nics * gbps / 8.0 * C.FABRIC_EFFICIENCY[fabric] * C.GB

    topology = facts.get("topology")
    if topology is not None and topology not in TOPOLOGIES:
        raise InputError("offering.topology", f"must be one of {', '.join(TOPOLOGIES)}, got {topology!r}")
    over = _pos(facts, "oversubscription")
    if over is not None and over < 1.0:
        raise InputError("offering.oversubscription", f"must be >= 1.0 (1.0 = non-blocking), got {over}")
    if topology in (None, "unknown"):
        topology = "unknown"
        if over is None:
            over = C.DEFAULT_OVERSUBSCRIPTION_UNKNOWN_TOPOLOGY
            notes.append(
                f"topology not published: a tree with {over:.0f}:1 oversubscription beyond "
                f"{C.NODES_PER_LEAF} nodes assumed"
            )
    if over is None:
        over = 1.0
        notes.append("oversubscription not published: non-blocking (1:1) assumed for the stated topology")

    if gpu.hbm_mib_reported is None:
        notes.append(
            f"GPU {gpu.key}: the capacity the device reports is not known; the datasheet's {gpu.hbm_gb:g} GB "
            "(1e9 bytes) is used"
        )
    domain = _pos(facts, "nvlink_domain_gpus", int) or 0
    if domain and domain % gpn:
        raise InputError(
            "offering.nvlink_domain_gpus", f"must be a multiple of gpus_per_node ({gpn}), got {domain}"
        )

    nodes = _pos(facts, "nodes", int)
    if nodes is None:
        nodes = _pos(facts, "max_nodes", int)
    published = nodes is not None
    if nodes is None:
        nodes = C.DEFAULT_MAX_NODES
        notes.append(_default_nodes_note(nodes, gpn))

    for key in (
        "failure_rate_per_gpu_hour",
        "storage_write_gbytes_per_s",
        "replacement_time_min",
        "price_usd_per_gpu_hour",
    ):
        v = facts.get(key)
        if v is not None and (isinstance(v, bool) or not isinstance(v, int | float) or v < 0):
            raise InputError(f"offering.{key}", f"must be a non-negative number, got {v!r}")
    return Hardware(
        gpu=gpu,
        gpus_per_node=gpn,
        intra_node=intra,
        intra_busbw=intra_busbw * C.GB,
        fabric=fabric,
        node_busbw=node_busbw,
        alpha_inter_s=C.ALPHA_INTER_S[fabric],
        topology=str(topology),
        oversubscription=over,
        max_nodes=nodes,
        max_nodes_published=published,
        facts=facts,
        assumptions=notes,
        nvlink_domain_gpus=domain,
    )
