"""`lspci` listings (evidence/FORMATS.md section 8).

The class name follows the port protocol (`Infiniband controller` vs `Ethernet controller` for the
same ConnectX-7), so it tells the link layer each RDMA function is configured for.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from hardware.messages import _, listed, ngettext

from .result import ParseResult
from .text import ELISION_RE, HostLines, Text, line_host

BDF = r"(?:[0-9a-fA-F]{4}:)?[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]"
# `lspci -P` / `-PP` print the path of bridges down to each device, `0000:15:01.0/16:00.0/17:00.0/18:00.0`:
# the device is the last element, its domain the first's (fixtures/real/lspci/nvidia-gpu-admin-tools-hgx-b200-
# lspci-PP-...). Bounded repeats: the match costs the same on any line.
LINE_RE = re.compile(
    rf"^\s*+((?:{BDF}/){{0,32}}+)({BDF})\s+([A-Za-z0-9][^:]{{2,60}}?)(?:\s+\[[0-9a-fA-F]{{4}}\])?:\s+(.*)$"
)
# A total the author states in such a line: `8 total GH100 devices`, `total of 8 GPUs`, `8 GPUs in total`.
STATED_TOTAL_RE = re.compile(
    r"(?<![\w.])(?:(\d{1,5})\s++total\s++([^()\[\].…]{1,60})|total\s++of\s++(\d{1,5})\s++([^()\[\].…]{1,60})"
    r"|(\d{1,5})\s++([^()\[\].…]{1,60}?)\s++in\s++total\b)",
    re.IGNORECASE,
)
# Vendors whose adapters carry RDMA (InfiniBand or RoCE): NVIDIA/Mellanox ConnectX/BlueField,
# Broadcom Thor (bnxt_re), AMD Pensando/Pollara, Intel E810 (irdma), Cornelis Omni-Path, and AWS's Elastic
# Fabric Adapter (`Amazon.com, Inc. Elastic Fabric Adapter (EFA)`, 1d0f:efa0-efa3; not ENA, the front end).
RDMA_VENDOR_RE = re.compile(
    r"Mellanox|ConnectX|BlueField|Broadcom.*(?:BCM57[45]|Thor|NetXtreme-E)|Pensando|Pollara|E810|Omni-Path|Cornelis"
    r"|Elastic Fabric Adapter",
    re.IGNORECASE,
)
EFA_RE = re.compile(r"Elastic Fabric Adapter", re.IGNORECASE)
# `lspci -n` prints ids only: `18:00.0 0207: 15b3:1021 (rev 01)`. The class codes and vendor ids named here
# (PCI SIG class codes; pci.ids vendors) are given their names so the listing is read as a named one.
NUMERIC_CLASS_RE = re.compile(r"^[0-9a-fA-F]{4}$")
NUMERIC_IDS_RE = re.compile(r"^([0-9a-fA-F]{4}):([0-9a-fA-F]{4})\b(.*)$")
NUMERIC_CLASSES = {
    "0200": "Ethernet controller",
    "0207": "Infiniband controller",
    "0280": "Network controller",
    "0300": "VGA compatible controller",
    "0302": "3D controller",
    "0380": "Display controller",
    "0680": "Bridge",
    "1200": "Processing accelerators",
}
NUMERIC_VENDORS = {"15b3": "Mellanox Technologies", "10de": "NVIDIA Corporation", "1d0f": "Amazon.com, Inc.",
                   "1002": "Advanced Micro Devices", "1da3": "Habana Labs"}  # fmt: skip
# Mellanox SR-IOV virtual functions by device id (pci.ids: 1004 ConnectX-3, 1012 Connect-IB, 1014 ConnectX-4,
# 1016 ConnectX-4 Lx, 1018 ConnectX-5, 101a ConnectX-5 Ex, 101c ConnectX-6, 101e mlx5Gen Virtual Function).
MELLANOX_VF_IDS = frozenset(("1004", "1012", "1014", "1016", "1018", "101a", "101c", "101e"))
GPU_RE = re.compile(
    r"NVIDIA|Advanced Micro Devices|AMD/ATI|Habana|Intel Corporation Device 0bd", re.IGNORECASE
)
# pciutils prints the revision read from config space; `(rev ff)` (often with `(prog-if ff)` and
# `!!! Unknown header type 7f`) means every config read returned 0xFF: the function no longer answers
# (fallen off the bus, link down, overheated), whatever its name says.
DEAD_REV_RE = re.compile(r"\(rev ff\)", re.IGNORECASE)
GPU_CLASSES = ("3d controller", "vga compatible controller", "display controller", "processing accelerators")
# An adapter's own PCIe switch ports: pci.ids names them `MT2910 Family [ConnectX-7 PCIe Bridge]` and
# `MT43244 Family [BlueField-3 SoC PCIe Bridge]` (a GB200 tray lists 24 and 16 of them above its CX-7 NICs and
# BlueField-3 DPUs): they carry the adapter's traffic and are neither NICs nor NVLink-management bridges.
NIC_INTERNAL_BRIDGE_RE = re.compile(r"PCIe Bridge|PCIe Switch", re.IGNORECASE)
# `lspci -vv` LnkSta: pciutils (ls-caps.c, since 3.6) marks a speed or width below the port's LnkCap
# `(downgraded)`: `LnkSta: Speed 16GT/s (downgraded), Width x8 (downgraded)`.
LNKSTA_RE = re.compile(
    r"^\s*+LnkSta:\s*+Speed\s++([^\s,]++)\s*+(\(\w++\))?+,\s*+Width\s++(x\d++)\s*+(\(\w++\))?+"
)


def _address(bdf: str) -> str:
    """A PCI address as one key: `82:00.0` and `0000:82:00.0` are the same function (domain 0 is left out
    unless `-D` is given), hex digits in either case."""
    bdf = bdf.lower()
    return bdf if bdf.count(":") == 2 else "0000:" + bdf


def _device_address(path: str, bdf: str) -> str:
    """The device's address as printed, or for a `-P` path the last element with the path's domain."""
    if not path or bdf.count(":") == 2:
        return bdf
    first = path.split("/", 1)[0]
    return first.rsplit(":", 2)[0] + ":" + bdf if first.count(":") == 2 else bdf


def _numeric(cls: str, desc: str) -> tuple[str, str, bool, bool]:
    """An `lspci -n` line's class and device as names (NUMERIC_CLASSES, NUMERIC_VENDORS; EFA by its device
    ids efa0-efa3, a Mellanox virtual function by MELLANOX_VF_IDS), whether the line was numeric, and whether
    it is a network function of a vendor not read here (it may be an RDMA NIC: Broadcom, Intel, ...)."""
    m = NUMERIC_IDS_RE.match(desc)
    if not NUMERIC_CLASS_RE.match(cls) or not m:
        return cls, desc, False, False
    vendor, device, rest = m.group(1).lower(), m.group(2).lower(), m.group(3)
    named_class = NUMERIC_CLASSES.get(cls.lower(), cls)
    name = NUMERIC_VENDORS.get(vendor)
    if name is None:
        return named_class, desc, True, cls.startswith("02")
    if vendor == "1d0f" and device.startswith("efa"):
        name += " Elastic Fabric Adapter (EFA)"
    else:  # Amazon's other functions (ENA ec20/ec21, the front end) are not RDMA
        name += f" Device {device}" + (
            " Virtual Function" if vendor == "15b3" and device in MELLANOX_VF_IDS else ""
        )
    return named_class, f"{name} [{vendor}:{device}]{rest}", True, False


def _stated_total(no: int, line: str) -> dict[str, Any] | None:
    """The total an author's elision note states (`... (8 total GH100 devices) ...`), None if none."""
    m = STATED_TOTAL_RE.search(line)
    if not m:
        return None
    count, what = next((m.group(i), m.group(i + 1)) for i in (1, 3, 5) if m.group(i))
    return {"count": int(count), "what": what.strip(), "line": no}


def _bucket(cls_l: str, desc: str) -> str | None:
    """What a function is, from its class (lower case) and device description: `dead`, `nic`, `nic_bridge`
    (an adapter's internal PCIe switch port), `bridge`, `nvswitch`, `gpu`, or None."""
    if DEAD_REV_RE.search(desc):
        return "dead"
    if RDMA_VENDOR_RE.search(desc):
        if "infiniband" in cls_l or "ethernet" in cls_l or "network" in cls_l:
            return "nic"
        if "bridge" in cls_l and NIC_INTERNAL_BRIDGE_RE.search(desc):
            return "nic_bridge"
        # HGX B200/B300 baseboards expose ConnectX-7 bridge functions that manage NVLink and are not data
        # NICs (NVIDIA Fabric Manager User Guide).
        return "bridge" if "bridge" in cls_l else None
    # An NVSwitch is an NVIDIA function of the class `Bridge` (0680, other bridge: 10de:1af1 A100-era,
    # 10de:22a3 H100-era, also unnamed in an old pci.ids). NVIDIA's `PCI bridge` (0604) functions are PCIe
    # root or switch ports, such as Grace's 22b1/22b2/22b8 at the root of each GB200 PCI domain.
    if "nvswitch" in desc.lower() or (cls_l == "bridge" and "NVIDIA" in desc):
        return "nvswitch"
    if any(cls_l.startswith(c) for c in GPU_CLASSES) and GPU_RE.search(desc):
        return "gpu"
    return None


def _link_layer(cls_l: str, desc: str) -> str | None:
    """A NIC function's link layer from its class: `EFA` for AWS's Elastic Fabric Adapter (class Ethernet
    controller, but SRD, neither RoCE nor InfiniBand), else InfiniBand or Ethernet, None for `Network
    controller`."""
    if EFA_RE.search(desc):
        return "EFA"
    return "InfiniBand" if "infiniband" in cls_l else ("Ethernet" if "ethernet" in cls_l else None)


def _downgraded(entry: dict[str, Any], bucket: str, no: int, line: str) -> dict[str, Any] | None:
    """A NIC's or GPU's `LnkSta ... (downgraded)` line (LNKSTA_RE), None when nothing is downgraded that
    counts: a GPU lowers its link speed when idle (power saving), so only its width counts."""
    m = LNKSTA_RE.match(line)
    if not m:
        return None
    speed_down, width_down = m.group(2) == "(downgraded)", m.group(4) == "(downgraded)"
    if not (width_down or (speed_down and bucket == "nic")):
        return None
    return {"bdf": entry["bdf"], "device": entry["device"], "speed": m.group(1), "width": m.group(3),
            "speed_downgraded": speed_down, "width_downgraded": width_down, "line": no}  # fmt: skip


def _listing_summary(found: dict[str, list[dict[str, Any]]], devices: int) -> dict[str, Any]:
    nics = found["nic"]
    layers = Counter(n.get("link_layer") for n in nics if n.get("link_layer"))
    summary: dict[str, Any] = {
        "rdma_nics": len(nics),
        "rdma_nic_functions": nics,
        "rdma_nics_by_link_layer": dict(layers),
        "nvlink_management_bridges": len(found["bridge"]),
        "bridge_functions": found["bridge"],
        "nvswitches": len(found["nvswitch"]),
        "gpus": len(found["gpu"]),
        "gpu_functions": found["gpu"],
        "devices": devices,
        "unresponsive_functions": found["dead"],
        "lines": [n["line"] for n in nics],
    }
    # Listed only when present (each a list of functions): an adapter's internal PCIe switch ports, and the
    # NICs and GPUs whose PCIe link runs below its capability.
    # Network functions of `lspci -n` lines of a vendor not read by id (_numeric): they may be RDMA NICs.
    for key, bucket in (
        ("nic_internal_bridges", "nic_bridge"),
        ("pcie_downgraded", "downgraded"),
        ("unread_network_functions", "unread"),
    ):
        if found[bucket]:
            summary[key] = found[bucket]
    return summary


class _Hosts:
    """The host each function is listed under. Each PCI address is one function: a listing pasted twice, or
    two greps matching the same devices (`lspci | grep -i mellanox`, then `| grep -i bluefield`), lists it
    again, and the first listing counts. Under several hosts' prompts or command lines (text.line_host; pdsh
    files, hosts.by_host) an address is one function per host; lines before the first host named are taken
    as that host's."""

    def __init__(self) -> None:
        self.key: str | None = None  # what an address is keyed with: None under the first host named
        self.starts = HostLines()
        self.seen: set[str] = set()  # the addresses read, each after its key and a NUL under a later host

    def names_host(self, no: int, line: str) -> bool:
        """Whether the line names the host of the lines after it (text.line_host). Only a line holding a
        prompt's `@` or the command (text.HOST_COMMAND_RE) can, which `-vv` lines do not: the caller looks
        for those first."""
        host = line_host(line)
        if host is not None:
            self.starts.note(no, host)
            self.key = None if host == self.starts.hosts[0] else host
        return host is not None

    def name_hosts(self, found: dict[str, list[dict[str, Any]]], summary: dict[str, Any]) -> None:
        """With several hosts, each function's `host` (by its line) and the summary's `hosts`."""
        hosts = list(dict.fromkeys(self.starts.hosts))
        if len(hosts) < 2:
            return
        for entries in found.values():
            for entry in entries:
                entry["host"] = self.starts.host_of(entry["line"]) or hosts[0]
        summary["hosts"] = hosts


def parse_lspci(text: Text) -> ParseResult:
    result = ParseResult(kind="lspci")
    found: dict[str, list[dict[str, Any]]] = {
        name: []
        for name in ("dead", "nic", "nic_bridge", "bridge", "nvswitch", "gpu", "downgraded", "unread")
    }
    seen = _Hosts()
    repeated: list[tuple[int, str]] = []
    elided: list[int] = []
    stated: list[dict[str, Any]] = []
    devices = numeric_lines = 0
    current: tuple[dict[str, Any], str] | None = None  # the NIC or GPU whose `-vv` lines follow
    for no, line in enumerate(text.lines, start=1):
        m = LINE_RE.match(line)
        if not m:
            if ("@" in line or "lspci" in line) and seen.names_host(no, line):
                current = None
            elif current is not None and "(downgraded)" in line:
                down = _downgraded(current[0], current[1], no, line)
                if down:
                    found["downgraded"].append(down)
            elif ELISION_RE.match(line):
                elided.append(no)
                total = _stated_total(no, line)
                if total:
                    stated.append(total)
            continue
        current = None
        bdf = _device_address(m.group(1), m.group(2))
        address = _address(bdf) if seen.key is None else f"{seen.key}\0{_address(bdf)}"
        if address in seen.seen:
            repeated.append((no, bdf))
            continue
        seen.seen.add(address)
        devices += 1
        cls, desc, numeric, unread = _numeric(m.group(3).strip(), m.group(4).strip())
        cls_l = cls.lower()
        entry = {"bdf": bdf, "class": cls, "device": desc, "line": no}
        if m.group(1):
            entry["pci_path"] = m.group(1) + m.group(2)
        bucket = "unread" if unread else _bucket(cls_l, desc)
        numeric_lines += numeric
        if bucket == "nic":
            entry["link_layer"] = _link_layer(cls_l, desc)
            entry["virtual_function"] = "Virtual Function" in desc
        if bucket is not None:
            found[bucket].append(entry)
        if bucket in ("nic", "gpu"):
            current = (entry, bucket)
    result.summary = _listing_summary(found, devices)
    seen.name_hosts(found, result.summary)
    if elided:
        # The author left lines out: every count is a minimum; a total the note states is kept beside them.
        result.summary["elided_lines"] = elided
        result.summary["stated_totals"] = stated
        result.warnings.extend(_elision_warnings(elided, stated))
    result.warnings.extend(_listing_warnings(found["dead"], repeated))
    result.warnings.extend(_downgraded_warnings(found["downgraded"]))
    if numeric_lines:
        result.warnings.append(
            ngettext(
                "`lspci -n` prints ids, not names: %(count)s function read by PCI class code and vendor id "
                "(15b3 Mellanox, 1d0f Amazon EFA, 10de NVIDIA, 1002 AMD, 1da3 Habana); %(unread)s of other "
                "vendors not read (upload lspci or lspci -nn)",
                "`lspci -n` prints ids, not names: %(count)s functions read by PCI class code and vendor id "
                "(15b3 Mellanox, 1d0f Amazon EFA, 10de NVIDIA, 1002 AMD, 1da3 Habana); %(unread)s of other "
                "vendors not read (upload lspci or lspci -nn)",
                numeric_lines,
                count=numeric_lines,
                unread=ngettext(
                    "%(n)s network function",
                    "%(n)s network functions",
                    len(found["unread"]),
                    n=len(found["unread"]),
                ),
            )
        )
    if found["nic"]:
        result.warnings.append(_("lspci counts PCI functions: a dual-port adapter shows as two functions"))
    return result


def _downgraded_warnings(downgraded: list[dict[str, Any]]) -> list[str]:
    warnings: list[str] = []
    for down in downgraded[:16]:
        what = (
            _("speed %(speed)s and width %(width)s", speed=down["speed"], width=down["width"])
            if down["speed_downgraded"] and down["width_downgraded"]
            else _("width %(width)s", width=down["width"])
            if down["width_downgraded"]
            else _("speed %(speed)s", speed=down["speed"])
        )
        warnings.append(
            _(
                "line %(line)s: %(bdf)s (%(device)s) runs its PCIe link at %(what)s, below its capability "
                "(LnkSta `downgraded`): it cannot reach its full bandwidth (a card not seated fully, a "
                "riser or a slot narrower than the card)",
                line=down["line"],
                bdf=down["bdf"],
                device=down["device"][:80],
                what=what,
            )
        )
    return warnings


def _elision_warnings(elided: list[int], stated: list[dict[str, Any]]) -> list[str]:
    warnings: list[str] = [
        ngettext(
            "lines left out by the author (`...` on line %(lines)s): the counts are of the lines shown, a "
            "minimum",
            "lines left out by the author (`...` on lines %(lines)s): the counts are of the lines shown, a "
            "minimum",
            len(elided),
            lines=listed(elided[:8], more=len(elided) > 8),
        )
    ]
    for total in stated[:8]:
        warnings.append(
            _(
                "line %(line)s: the author's note states %(count)s %(what)s in all (not counted: the lines "
                "are not shown)",
                line=total["line"],
                count=total["count"],
                what=total["what"],
            )
        )
    return warnings


def _listing_warnings(unresponsive: list[dict[str, Any]], repeated: list[tuple[int, str]]) -> list[str]:
    """Functions that do not respond, and addresses listed again."""
    warnings: list[str] = []
    for dead in unresponsive:
        warnings.append(
            _(
                "line %(line)s: %(bdf)s reads revision ff (config space all 0xFF): the function "
                "does not respond and is not counted",
                line=dead["line"],
                bdf=dead["bdf"],
            )
        )
    if repeated:
        warnings.append(
            ngettext(
                "%(count)s line repeats a PCI address listed before (first: %(bdf)s, line %(line)s), as "
                "when a listing is pasted twice, two greps match the same devices or two hosts are listed: "
                "each address is counted once",
                "%(count)s lines repeat a PCI address listed before (first: %(bdf)s, line %(line)s), as "
                "when a listing is pasted twice, two greps match the same devices or two hosts are listed: "
                "each address is counted once",
                len(repeated),
                count=len(repeated),
                bdf=repeated[0][1],
                line=repeated[0][0],
            )
        )
    return warnings
