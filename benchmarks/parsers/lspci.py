"""`lspci` listings (evidence/FORMATS.md section 8).

The class name follows the port protocol (`Infiniband controller` vs `Ethernet controller` for the
same ConnectX-7), so it tells the link layer each RDMA function is configured for.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from hardware.messages import _

from .result import ParseResult
from .text import Text

LINE_RE = re.compile(
    r"^\s*((?:[0-9a-fA-F]{4}:)?[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7])\s+([A-Za-z0-9][^:]{2,60}?)(?:\s+\[[0-9a-fA-F]{4}\])?:\s+(.*)$"
)
# Vendors whose adapters carry RDMA (InfiniBand or RoCE): NVIDIA/Mellanox ConnectX/BlueField,
# Broadcom Thor (bnxt_re), AMD Pensando/Pollara, Intel E810 (irdma), Cornelis Omni-Path.
RDMA_VENDOR_RE = re.compile(
    r"Mellanox|ConnectX|BlueField|Broadcom.*(?:BCM57[45]|Thor|NetXtreme-E)|Pensando|Pollara|E810|Omni-Path|Cornelis",
    re.IGNORECASE,
)
GPU_RE = re.compile(
    r"NVIDIA|Advanced Micro Devices|AMD/ATI|Habana|Intel Corporation Device 0bd", re.IGNORECASE
)
# pciutils prints the revision read from config space; `(rev ff)` (often with `(prog-if ff)` and
# `!!! Unknown header type 7f`) means every config read returned 0xFF: the function no longer answers
# (fallen off the bus, link down, overheated), whatever its name says.
DEAD_REV_RE = re.compile(r"\(rev ff\)", re.IGNORECASE)
GPU_CLASSES = ("3d controller", "vga compatible controller", "display controller", "processing accelerators")


def _address(bdf: str) -> str:
    """A PCI address as one key: `82:00.0` and `0000:82:00.0` are the same function (domain 0 is left out
    unless `-D` is given), hex digits in either case."""
    bdf = bdf.lower()
    return bdf if bdf.count(":") == 2 else "0000:" + bdf


def parse_lspci(text: Text) -> ParseResult:
    result = ParseResult(kind="lspci")
    nics: list[dict[str, Any]] = []
    bridges: list[dict[str, Any]] = []
    gpus: list[dict[str, Any]] = []
    nvswitches: list[dict[str, Any]] = []
    unresponsive: list[dict[str, Any]] = []
    # Each PCI address is one function: a listing pasted twice, or two greps matching the same devices
    # (`lspci | grep -i mellanox`, then `| grep -i bluefield`), lists it again. The first listing counts.
    seen: set[str] = set()
    repeated: list[tuple[int, str]] = []
    devices = 0
    for no, line in enumerate(text.lines, start=1):
        m = LINE_RE.match(line)
        if not m:
            continue
        if _address(m.group(1)) in seen:
            repeated.append((no, m.group(1)))
            continue
        seen.add(_address(m.group(1)))
        devices += 1
        bdf, cls, desc = m.group(1), m.group(2).strip(), m.group(3).strip()
        cls_l = cls.lower()
        entry = {"bdf": bdf, "class": cls, "device": desc, "line": no}
        if DEAD_REV_RE.search(desc):
            unresponsive.append(entry)
            continue
        if RDMA_VENDOR_RE.search(desc):
            if "infiniband" in cls_l or "ethernet" in cls_l or "network" in cls_l:
                entry["link_layer"] = (
                    "InfiniBand" if "infiniband" in cls_l else ("Ethernet" if "ethernet" in cls_l else None)
                )
                entry["virtual_function"] = "Virtual Function" in desc
                nics.append(entry)
            elif "bridge" in cls_l:
                # HGX B200/B300 baseboards expose ConnectX-7 bridge functions that manage NVLink and are not
                # data NICs (NVIDIA Fabric Manager User Guide).
                bridges.append(entry)
        elif "nvswitch" in desc.lower() or ("bridge" in cls_l and "NVIDIA" in desc):
            nvswitches.append(entry)
        elif any(cls_l.startswith(c) for c in GPU_CLASSES) and GPU_RE.search(desc):
            gpus.append(entry)
    layers = Counter(n.get("link_layer") for n in nics if n.get("link_layer"))
    result.summary = {
        "rdma_nics": len(nics),
        "rdma_nic_functions": nics,
        "rdma_nics_by_link_layer": dict(layers),
        "nvlink_management_bridges": len(bridges),
        "bridge_functions": bridges,
        "nvswitches": len(nvswitches),
        "gpus": len(gpus),
        "gpu_functions": gpus,
        "devices": devices,
        "unresponsive_functions": unresponsive,
        "lines": [n["line"] for n in nics],
    }
    for dead in unresponsive:
        result.warnings.append(
            _(
                "line %(line)s: %(bdf)s reads revision ff (config space all 0xFF): the function "
                "does not respond and is not counted",
                line=dead["line"],
                bdf=dead["bdf"],
            )
        )
    if repeated:
        result.warnings.append(
            _(
                "%(count)s line(s) repeat a PCI address listed before (first: %(bdf)s, line %(line)s), as "
                "when a listing is pasted twice, two greps match the same devices or two hosts are listed: "
                "each address is counted once",
                count=len(repeated),
                bdf=repeated[0][1],
                line=repeated[0][0],
            )
        )
    if nics:
        result.warnings.append(_("lspci counts PCI functions: a dual-port adapter shows as two functions"))
    return result
