"""Offering facts dict (docs/FACTS.md) -> the hardware and link model used by memory and timing."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field, replace
from typing import Any

import hardware as hw_facts
from hardware import FABRICS, GPUS, TOPOLOGIES, gpu_by_name
from hardware import INTRA_NODE_KINDS as INTRA_KINDS
from hardware.messages import _
from hardware.numbers import value_text

from . import constants as C
from .bounds import check_float_range, check_offering_numbers, chosen
from .errors import InputError
from .unpublished import Assumed, assumption_text, complete_facts, fact_value_text


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
    facts: dict[str, Any]  # as published, with every unpublished fact the model needs at its class norm
    assumptions: list[str] = field(default_factory=list)
    assumed: list[Assumed] = field(default_factory=list)  # the facts taken from the class norms
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
        """Plateau of achieved / peak for large GEMMs on this GPU's architecture, scaled for a part that
        sustains a higher or lower share of its datasheet peak than its architecture's reference part
        (constants.GEMM_SUSTAINED_RATE_FACTOR: MI325X, MI355X, GB200, GB300)."""
        factor = C.GEMM_SUSTAINED_RATE_FACTOR.get(self.gpu.key, 1.0)
        return C.GEMM_EFFICIENCY_MAX[self.gpu.architecture] * factor

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
    check_float_range(f"offering.{key}", v)
    if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v):
        raise InputError(f"offering.{key}", _("must be a number, got %(got)s", got=value_text(v)))
    if v <= 0:
        raise InputError(f"offering.{key}", _("must be positive, got %(got)s", got=value_text(v)))
    if kind is int:
        if float(v) != int(v):
            raise InputError(f"offering.{key}", _("must be an integer, got %(got)s", got=value_text(v)))
        return int(v)
    return float(v)


def resolve_gpu(key: Any) -> hw_facts.GPU:
    if not isinstance(key, str) or not key:
        raise InputError(
            "offering.gpu", _("missing (a key of the GPU table, e.g. %(example)s)", example="H100-SXM-80GB")
        )
    gpu = gpu_by_name(key)
    if gpu is None:
        raise InputError(
            "offering.gpu", _("unknown GPU %(gpu)s (known: %(known)s)", gpu=repr(key), known=", ".join(GPUS))
        )
    return gpu


def allow_requested_gpus(hw: Hardware, gpus: int | None) -> Hardware:
    """An explicit GPU count may exceed the default cap when the offering publishes no maximum: the buyer
    asked for it. The cap is raised to the requested size and the assumption says so."""
    if gpus is None or hw.max_nodes_published:
        return hw
    needed = math.ceil(gpus / hw.gpus_per_node)
    if needed <= hw.max_nodes:
        return hw
    capped = next(a for a in hw.assumed if a.fact == "max_nodes")
    old = assumption_text(capped)
    note = (
        f"maximum nodes not published: {needed} nodes ({gpus:,} GPUs) requested explicitly, above the "
        f"cap of {hw.max_nodes} assumed for unpublished capacity; confirm the offering has that capacity"
    )
    asked = Assumed(
        "max_nodes", needed, "requested explicitly (--gpus); capacity not published", capped.pessimistic
    )
    assumed = [asked if a is capped else a for a in hw.assumed]
    notes = [note if a == old else a for a in hw.assumptions]
    return replace(hw, max_nodes=needed, assumptions=notes, assumed=assumed)


def _intra_node(facts: dict[str, Any], gpu: hw_facts.GPU, notes: list[str]) -> tuple[str, float]:
    """The intra-node kind and its achieved busbw (GB/s per GPU, large messages)."""
    intra = facts["intra_node"]  # published, or the class norm (hardware.norms)
    link = _pos(facts, "intra_node_gbytes_per_s")
    if intra in ("nvswitch", "nvlink-mesh"):
        raw = link if link is not None else gpu.scale_up_gbytes_per_s
    elif intra == "nvlink-bridge":
        # only pairs are bridged: any collective over more than 2 GPUs runs at PCIe speed (see timing)
        raw = link if link is not None else C.NVLINK_BRIDGE_GBYTES_PER_S
    else:
        raw = link if link is not None else gpu.pcie_gbytes_per_s
    if link is None and intra in ("nvswitch", "nvlink-mesh") and gpu.scale_up_gbytes_per_s <= 0:
        raise InputError(
            "offering.intra_node", _("%(intra)s given but %(gpu)s has no NVLink", intra=intra, gpu=gpu.key)
        )
    if link is None:
        notes.append(
            _(
                "intra-node bandwidth per GPU not published: %(gbytes)s GB/s assumed, the hardware table's "
                "figure for %(gpu)s over %(intra)s",
                gbytes=f"{raw:.0f}",
                gpu=gpu.name,
                intra=fact_value_text("intra_node", intra, gpu.vendor),
            )
        )
    return str(intra), raw * hw_facts.intra_node_busbw_efficiency(intra)


def _fabric(facts: dict[str, Any]) -> tuple[str, float]:
    """The inter-node fabric kind and the bandwidth a node achieves on it (bytes/s, all NICs)."""
    fabric = str(facts["fabric"])
    nics = _pos(facts, "nics_per_node", int)
    gbps = _pos(facts, "gbps_per_nic")
    return fabric, nics * gbps / 8.0 * C.FABRIC_EFFICIENCY[fabric] * C.GB


def _topology(facts: dict[str, Any]) -> tuple[str, float]:
    """The topology kind and its oversubscription beyond one leaf (1.0 = non-blocking)."""
    topology = facts.get("topology") or "unknown"
    return str(topology), float(_pos(facts, "oversubscription"))


def _max_nodes(facts: dict[str, Any], assumed: list[Assumed]) -> tuple[int, bool]:
    """The largest cluster the search may use and whether the offering published it."""
    nodes = _pos(facts, "nodes", int)
    if nodes is not None:
        return int(nodes), True
    return int(_pos(facts, "max_nodes", int)), not any(a.fact == "max_nodes" for a in assumed)


def _check_published(facts: dict[str, Any]) -> None:
    """Published values must be of the right kind before any class norm is looked up from them."""
    for key, kind in (("gpus_per_node", int), ("nics_per_node", int), ("gbps_per_nic", float)):
        _pos(facts, key, kind)
    for key in ("nodes", "max_nodes", "nvlink_domain_gpus"):
        _pos(facts, key, int)
    _pos(facts, "intra_node_gbytes_per_s")
    for key, allowed in (("intra_node", INTRA_KINDS), ("fabric", FABRICS), ("topology", TOPOLOGIES)):
        value = facts.get(key)
        if value is not None and value not in allowed:
            raise InputError(
                f"offering.{key}",
                _(
                    "must be one of %(allowed)s, got %(got)s",
                    allowed=", ".join(allowed),
                    got=value_text(value),
                ),
            )
    over = _pos(facts, "oversubscription")
    if over is not None and over < 1.0:
        raise InputError(
            "offering.oversubscription",
            _("must be >= 1.0 (1.0 = non-blocking), got %(got)s", got=value_text(over)),
        )
    # every bounded number (failure rate, storage write bandwidth, replacement time, price included): a
    # number, finite and inside the catalog's range, named with that range when it is not
    check_offering_numbers(facts)


def _nvlink_domain(facts: dict[str, Any], gpus_per_node: int) -> int:
    """GPUs in one scale-up domain (0 = the node), a whole number of nodes."""
    domain = _pos(facts, "nvlink_domain_gpus", int) or 0
    if domain and domain % gpus_per_node:
        raise InputError(
            "offering.nvlink_domain_gpus",
            _(
                "must be a multiple of gpus_per_node (%(per_node)s), got %(got)s",
                per_node=gpus_per_node,
                got=value_text(domain),
            ),
        )
    return int(domain)


def _named_as_the_engine_names(facts: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """The facts with the kinds given in another case or spelling (`InfiniBand`, `Fat_Tree`) under the
    engine's names (bounds.chosen), and a GPU given by its name (`NVIDIA H100 SXM5 80GB`, `h100-sxm-80gb`)
    under its table key, with a note when it was read from a name rather than a key."""
    out = dict(facts)
    for key, allowed in (("intra_node", INTRA_KINDS), ("fabric", FABRICS), ("topology", TOPOLOGIES)):
        value = chosen(out.get(key), tuple(allowed))
        if value is not None:
            out[key] = value
    given = out.get("gpu")
    notes: list[str] = []
    if isinstance(given, str) and given and gpu_by_name(given) is None:
        named = _gpu_named(given)
        if named is not None:
            out["gpu"] = named.key
            if given.strip().lower() not in (named.key.lower(), named.name.lower()):  # not the key or name
                notes.append(_("GPU %(given)s read as %(gpu)s", given=repr(given), gpu=named.name))
    return out, notes


def _gpu_named(given: str) -> hw_facts.GPU | None:
    """The GPU a name stands for (hardware.gpu_from_text: `B300`, `NVIDIA H100 SXM 80GB`) when every word of
    it is in that GPU's key or names: `H100-ULTRA` names no GPU the table has, so it is not read as an
    H100."""
    gpu = hw_facts.gpu_from_text(given)
    if gpu is None:
        return None
    names = " ".join([gpu.key, gpu.name, *(a for a, key in hw_facts.ALIASES.items() if key == gpu.key)])
    haystack = names.lower()
    return gpu if all(word in haystack for word in re.findall(r"[a-z0-9]+", given.lower())) else None


def hardware_from_facts(facts: dict[str, Any]) -> Hardware:
    """Validate the offering facts and derive the link model; every unpublished value the model needs takes
    its class norm (hardware.norms) and becomes a stated assumption."""
    if not isinstance(facts, dict):
        raise InputError("offering", _("must be a JSON object"))
    facts, read_as = _named_as_the_engine_names(facts)
    _check_published(facts)
    filled, assumed = complete_facts(facts)
    gpu = resolve_gpu(filled.get("gpu"))
    notes = [*read_as, *(assumption_text(a, gpu.vendor) for a in assumed)]
    if not gpu.confirmed:
        notes.append(
            _(
                "GPU %(gpu)s: its peak figures come from third-party reports, not a vendor datasheet; ask "
                "the provider for the datasheet",
                gpu=gpu.name,
            )
        )
    gpus_per_node = int(filled["gpus_per_node"])
    if gpu.hbm_mib_reported is None:
        notes.append(
            _(
                "GPU %(gpu)s: the capacity the device reports is not known; the datasheet's %(gb)s GB (1e9 "
                "bytes) is used",
                gpu=gpu.name,
                gb=f"{gpu.hbm_gb:g}",
            )
        )
    domain = _nvlink_domain(filled, gpus_per_node)
    intra, intra_busbw = _intra_node(filled, gpu, notes)
    fabric, node_busbw = _fabric(filled)
    topology, oversubscription = _topology(filled)
    max_nodes, published = _max_nodes(filled, assumed)
    return Hardware(
        gpu=gpu,
        gpus_per_node=gpus_per_node,
        intra_node=intra,
        intra_busbw=intra_busbw * C.GB,
        fabric=fabric,
        node_busbw=node_busbw,
        alpha_inter_s=C.ALPHA_INTER_S[fabric],
        topology=topology,
        oversubscription=oversubscription,
        max_nodes=max_nodes,
        max_nodes_published=published,
        facts=filled,
        assumptions=notes,
        assumed=assumed,
        nvlink_domain_gpus=domain,
    )
