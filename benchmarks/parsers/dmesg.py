"""Kernel log lines about GPUs (`NVRM:`): GPUs fallen off the bus and Xid errors (evidence/FORMATS.md 2);
about NVSwitches (`nvidia-nvswitchN: SXid ...`); about RDMA NICs (`mlx5_core`): a probe or load that failed,
and a PCIe link narrower than the card."""

from __future__ import annotations

import re
from collections import deque
from typing import Any

from hardware.messages import _, listed, ngettext

from .result import ParseResult
from .text import Text

GPU_BUS_RE = re.compile(r"^(?>.*?NVRM:).*?GPU\s++([0-9a-fA-F]{4,8}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.\d)")
XID_RE = re.compile(r"NVRM:\s*Xid\s*\(PCI:([^)]+)\):\s*(\d+)")
# Newer drivers end a follow-on Xid with the Xid that caused it: `NVRM: Xid (PCI:0000:dc:00): 45, pid=...,
# name=python3, Ch 00000001 caused by previous Xid 149`. The earlier Xid happened on that GPU even when the
# excerpt (a grep for one code, a cut log) does not hold its own line.
CAUSED_BY_RE = re.compile(r"caused by previous Xid\s*+(\d{1,4})\b", re.IGNORECASE)
# The message wraps over several `NVRM:` lines; the bus id is on the first.
LOOKAHEAD_LINES = 4
# Xid 79 is "GPU has fallen off the bus" (NVIDIA's Xid catalogue): its line names the GPU even when no
# separate `NVRM: GPU 0000:5d:00.0: GPU has fallen off the bus.` line follows.
FALLEN_OFF_BUS_XID = 79
BDF = r"[0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.\d"
# Xids after which NVIDIA's Xid catalogue (docs.nvidia.com/deploy/xid-errors/analyzing-xid-catalog.html,
# "Resolution Bucket (Immediate Action)"; the copy in leptonai/gpud components/accelerator/nvidia/xid/
# catalog_generated.go, 2025-10-29) asks for a GPU reset (RESET_GPU), or a workflow for a double-bit ECC
# error (48) or an NVLink error (74, 144-150) that resets the GPU when the links stay down. By mnemonic.
# Not here: 63 (row remap event), 92 (high single-bit ECC rate), 94 (contained ECC error, RESTART_APP),
# which the catalogue answers with IGNORE or an application restart; 79, the GPU fallen off the bus, is
# judged as lost.
RESET_XIDS = {
    46: "GPU_TIMEOUT_ERROR", 48: "GPU_ECC_DBE", 62: "PMU_HALT_ERROR", 64: "INFOROM_DRAM_RETIREMENT_FAILURE",
    74: "NVLINK_ERROR", 95: "UNCONTAINED_ERROR", 109: "CTXSW_TIMEOUT_ERROR", 110: "SEC_FAULT_ERROR",
    119: "GSP_RPC_TIMEOUT", 120: "GSP_ERROR", 136: "ALI_TRAINING_FAIL", 140: "UNRECOVERABLE_ECC_ERROR_ESCAPE",
    143: "GPU_INIT_ERROR", 144: "NVLINK_SAW_ERROR", 145: "NVLINK_RLW_ERROR", 146: "NVLINK_TLW_ERROR",
    147: "NVLINK_TREX_ERROR", 148: "NVLINK_NVLPW_CTRL_ERROR", 149: "NVLINK_NETIR_ERROR",
    150: "NVLINK_MSE_ERROR",
    155: "NVLINK_SW_DEFINED_ERROR", 156: "RESOURCE_RETIREMENT_EVENT", 158: "GPU_FATAL_TIMEOUT",
}  # fmt: skip
# Xid 154 (GPU_RECOVERY_ACTION_CHANGED) names the action the driver now requires: `... changed from 0x0
# (None) to 0x2 (Node Reboot Required)`, or `154, Node Reboot Required`; one to None requires nothing.
RECOVERY_XID = 154
RECOVERY_NONE_RE = re.compile(r"\bto\s++0x0++\s*+\(None\)")
# NVLink Xids whose catalogue resolution is a workflow that decodes the error first (WORKFLOW_NVLINK_ERR for
# 74, WORKFLOW_NVLINK5_ERR for 144-150: its "XID 144-150 Decode" table answers many units and error statuses
# with IGNORE, non-fatal, and some with RESET_GPU): they may need a reset, not surely.
NVLINK_DECODE_XIDS = frozenset({74, 144, 145, 146, 147, 148, 149, 150})
# The GPU driver's probe of a PCI function failed: `nvidia: probe of 0000:5d:00.0 failed with error -1`;
# `NVRM: The NVIDIA probe routine failed for 1 device(s).` counts them (the GPU named by an `NVRM: The
# NVIDIA GPU <bus id> ...` message before it, e.g. `... is not supported by the NVIDIA 580.126.09 driver`).
GPU_PROBE_OF_RE = re.compile(rf"\bnvidia:\s++probe of\s++({BDF})\s++failed")
PROBE_COUNT_RE = re.compile(r"probe routine failed for\s++(\d++)\s++device")
# Only these name the GPUs of a failed probe: `NVRM: The NVIDIA GPU <bus id> ...` (the reason, before the
# count line) and `nvidia: probe of <bus id> failed`; other `NVRM: GPU <bus id>` lines near it may be healthy
# GPUs. The names since the last count line are kept (the latest MAX_PROBE_NAMES); the count line of N takes
# the last N.
GPU_NAMED_RE = re.compile(rf"NVRM:\s++The NVIDIA GPU\s++({BDF})")
MAX_PROBE_NAMES = 256
# The driver starting on a GPU: `nvidia 0000:9b:00.0: enabling device (0000 -> 0002)`. After a failed probe of
# the same bus id, a later load of the driver (an upgrade without a reboot: 470 refuses the GPU, 550 takes it)
# probed it again; without a new failure it drives the GPU.
ENABLING_RE = re.compile(rf"\bnvidia\s++({BDF}):\s++enabling device")
# mlx5_core (and mlx4_core) failures: `mlx5_core 0000:41:00.0: init_one:1371:(pid 803): mlx5_load_one failed
# with error code -22`, `mlx5_core: probe of 0000:41:00.0 failed with error -22`.
NIC_ERROR_RE = re.compile(
    rf"\b(mlx[45]_core):?\s++(?:probe of\s++)?({BDF})\b:?\s*+(.{{0,160}}?\bfailed with error\b.{{0,40}})$"
)
# The PCI core's pcie_print_link_status, printed by the NIC driver: `mlx5_core 0001:43:00.0: 63.008 Gb/s
# available PCIe bandwidth, limited by 8.0 GT/s PCIe x8 link at 0001:42:01.0 (capable of 126.016 Gb/s ...)`.
PCIE_LIMITED_RE = re.compile(
    rf"\b([\w-]{{1,32}})\s++({BDF}):\s++([\d.]{{1,12}}) Gb/s available PCIe bandwidth, limited by "
    r"(.{1,80}?) link\b(?: at \S{1,64})?\s*+(?:\(capable of ([\d.]{1,12}) Gb/s)?"
)
MAX_NIC_EVENTS = 1000
# A loaded mlx5 NIC whose firmware stopped answering (drivers/net/ethernet/mellanox/mlx5/core cmd.c,
# health.c): a command that timed out, `mlx5_core 0000:61:00.0: wait_func:1132:(pid 141181):
# CREATE_DCT(0x710) timeout. Will cause a leak of a command resource` (also `cmd[3]: ...(0x...) Async,
# timeout.`; a command the driver recovered prints `recovered after timeout` instead and is not one), and
# the health poller's `device's health compromised - reached miss count`, `Fatal error 2 detected` and
# `synd 0x8: unrecoverable hardware error` (print_health_info prints a syndrome only when the health buffer
# holds one). NVIDIA's NVSentinel NIC health monitor ("Syslog Detection", Appendix A) raises these as fatal,
# replace-the-node events.
NIC_DEVICE_RE = re.compile(rf"\b(mlx[45]_core)\s++({BDF}):")
NIC_FIRMWARE_RE = re.compile(
    r"\b([A-Z0-9_]{1,48}\(0x[0-9a-fA-F]{1,6}\))\s*+(?:Async,\s*+)?timeout\b|(device's health compromised)"
    r"|(Fatal error \d{1,6} detected)|\bsynd (0x[0-9a-fA-F]{1,4}):\s*+(.{1,60})"
)
NIC_FIRMWARE_LITERALS = ("timeout", "health compromised", "Fatal error", "synd 0x")
# The NVSwitch driver's own errors: `nvidia-nvswitch1: SXid (PCI:0000:06:00.0): 20034, Fatal, Link 48 LTSSM
# Fault Up` (NVIDIA Fabric Manager user guide, "NVSwitch errors": a fatal SXid takes the switch's links, and
# the NVLink traffic of the GPUs behind them, down until the switch is reset; a non-fatal one is corrected).
SXID_RE = re.compile(
    r"\b(nvidia-nvswitch\d{1,3}):\s++SXid\s*+\(PCI:([^)]{1,32})\):\s*+(\d{1,6}),\s*+(Fatal|Non-fatal)\b,?\s*+(.{0,120})",
    re.IGNORECASE,
)
# Its continuation lines (open-gpu-kernel-modules, nvswitch `_nvswitch_dump_error_entry`): `..., 20034,
# Severity 1 Engine instance 48 Sub-engine instance 00` (the severity: 0 non-fatal, 1 fatal,
# NVSWITCH_ERROR_SEVERITY_TYPE) and `..., 20034, Data {0x..., ...}`.
SXID_CONTINUATION_RE = re.compile(
    r"\b(nvidia-nvswitch\d{1,3}):\s++SXid\s*+\(PCI:([^)]{1,32})\):\s*+(\d{1,6}),\s*+"
    r"(?:Severity\s++(\d)\b\s*+(.{0,80})|(Data\s*+\{[^}]{0,200}\}?))",
    re.IGNORECASE,
)
MAX_SXID_EVENTS = 1000
MAX_REFERENCED = 1000


def _fallen_bus_id(xid_bus_id: str) -> str:
    """`0000:02:00` (the Xid line's domain:bus:device) -> `0000:02:00.0`, as the separate line prints it."""
    bus_id = xid_bus_id.strip().lower()
    return bus_id if "." in bus_id else bus_id + ".0"


class _Probes:
    """The GPU driver's failed probes, by bus id (GPU_NAMED_RE, GPU_PROBE_OF_RE, PROBE_COUNT_RE), and the
    later loads that took a GPU whose probe had failed (ENABLING_RE)."""

    def __init__(self) -> None:
        self.failures = 0  # `probe routine failed` lines
        self.devices = 0  # the most devices one count line counts
        self.named: deque[tuple[str, int]] = deque(maxlen=MAX_PROBE_NAMES)  # named since the last count line
        self.failed: dict[str, int] = {}  # bus id -> line of the failure (the first since its last load)
        self.enabled: dict[str, int] = {}  # bus id -> line of the latest `enabling device`

    def line(self, line: str, no: int) -> None:
        if "probe routine failed" in line:
            self.failures += 1
            m = PROBE_COUNT_RE.search(line)
            count = int(m.group(1)) if m else 1
            self.devices = max(self.devices, count)
            for bus_id, at in list(dict.fromkeys(reversed(self.named)))[:count]:
                self._fail(bus_id, at)
            self.named.clear()
        elif "probe of" in line:
            m = GPU_PROBE_OF_RE.search(line)
            if m:
                self._fail(m.group(1).lower(), no)
        elif "The NVIDIA GPU" in line:
            m = GPU_NAMED_RE.search(line)
            if m:
                self.named.append((m.group(1).lower(), no))
        elif "enabling device" in line:
            m = ENABLING_RE.search(line)
            if m:
                self.enabled[m.group(1).lower()] = no

    def _fail(self, bus_id: str, no: int) -> None:
        if bus_id not in self.failed or self.enabled.get(bus_id, 0) > self.failed[bus_id]:
            self.failed[bus_id] = no

    def summary(self) -> dict[str, Any]:
        """GPUs whose probe failed and no later load enabled; those a later load enabled (recovered); how many
        devices are still not driven (the named ones and the rest of the largest count)."""
        failed = [{"bus_id": b, "line": at} for b, at in self.failed.items() if self.enabled.get(b, 0) <= at]
        recovered = [
            {"bus_id": b, "line": at, "loaded_line": self.enabled[b]}
            for b, at in self.failed.items()
            if self.enabled.get(b, 0) > at
        ]
        unnamed = max(0, self.devices - len(self.failed))
        return {
            "probe_failures": self.failures,
            # GPUs the driver did not take (a failed probe): named by bus id, and how many it does not drive.
            "gpus_probe_failed": failed,
            "probe_failed_devices": len(failed) + unnamed,
            "gpus_probe_recovered": recovered,
        }


def parse_dmesg(text: Text) -> ParseResult:
    result = ParseResult(kind="dmesg")
    fallen: list[dict[str, Any]] = []
    xids: list[dict[str, Any]] = []
    probes = _Probes()
    nvrm_lines = 0
    nic_errors: list[dict[str, Any]] = []
    nic_firmware: list[dict[str, Any]] = []
    pcie_limited: list[dict[str, Any]] = []
    sxid_reader = _SxidReader()
    referenced: dict[tuple[str, int], int] = {}  # `caused by previous Xid N`: (bus id, N) -> first line
    # One pass: a bus id waits in `open_ids` until the lookahead window after its line has been read.
    open_ids: deque[tuple[int, str]] = deque()
    for i, line in enumerate(text.lines):
        while open_ids and i - open_ids[0][0] >= LOOKAHEAD_LINES:
            open_ids.popleft()
        if "NVRM" in line:
            nvrm_lines += 1
        m = GPU_BUS_RE.search(line)
        if m:
            open_ids.append((i, m.group(1)))
        if "fallen off the bus" in line:
            for start, bus_id in open_ids:
                if not any(f["bus_id"] == bus_id.lower() for f in fallen):
                    fallen.append({"bus_id": bus_id.lower(), "line": start + 1})
            open_ids.clear()
        m = XID_RE.search(line)
        if m:
            xids.append({"bus_id": m.group(1), "xid": int(m.group(2)), "line": i + 1})
            if int(m.group(2)) == RECOVERY_XID and RECOVERY_NONE_RE.search(line):
                xids[-1]["none"] = True
            cause = CAUSED_BY_RE.search(line) if "caused by" in line else None
            if cause and len(referenced) < MAX_REFERENCED:
                referenced.setdefault((m.group(1), int(cause.group(1))), i + 1)
            bus_id = _fallen_bus_id(m.group(1))
            if int(m.group(2)) == FALLEN_OFF_BUS_XID and not any(f["bus_id"] == bus_id for f in fallen):
                fallen.append({"bus_id": bus_id, "line": i + 1})
        probes.line(line, i + 1)
        _read_nic_line(line, i + 1, nic_errors, pcie_limited)
        _read_nic_firmware_line(line, i + 1, nic_firmware)
        sxid_reader.line(line, i + 1)
    sxids = sxid_reader.events
    only_referenced = _only_referenced(xids, referenced)
    resets, recovered = _reset_xids(sorted(xids + only_referenced, key=lambda x: x["line"]))
    result.summary = {
        "gpus_fallen_off_bus": fallen,
        "xid_events": xids[:1000],
        "xid_codes": sorted({x["xid"] for x in xids}),
        **probes.summary(),
        "xids_needing_reset": resets,
        # GPUs whose last Xid 154 puts the recovery action back to None: the Xids before it are recovered.
        "xids_recovered": recovered,
        # The GPU driver's lines: without any, the log says nothing about the GPUs (a NIC-only excerpt).
        "nvrm_lines": nvrm_lines,
        "nic_errors": nic_errors,
        "nic_pcie_limited": pcie_limited,
        "nic_firmware_errors": nic_firmware,
        "nvswitch_sxid_events": sxids,
        "lines": list(
            dict.fromkeys(
                [f["line"] for f in fallen]
                + [x["line"] for x in xids[:50]]
                + [e["line"] for e in nic_errors[:50] + pcie_limited[:50] + nic_firmware[:50] + sxids[:50]]
            )
        ),
    }
    result.warnings.extend(_nic_warnings(nic_errors, pcie_limited))
    result.warnings.extend(_nic_firmware_warnings(nic_firmware))
    result.warnings.extend(_sxid_warnings(sxids))
    if only_referenced:
        # Xids that later Xid lines name as their cause, with no line of their own on that GPU here.
        result.summary["xids_referenced"] = [
            {k: x[k] for k in ("bus_id", "xid", "line")} for x in only_referenced
        ]
    result.warnings.extend(_referenced_warnings(only_referenced))
    result.warnings.extend(_fallen_warnings(fallen))
    return result


def _fallen_warnings(fallen: list[dict[str, Any]]) -> list[str]:
    """The GPUs that fell off the bus, counted in words."""
    if not fallen:
        return []
    return [
        ngettext(
            "%(count)s GPU fell off the bus: it is missing from GPU counts",
            "%(count)s GPUs fell off the bus: they are missing from GPU counts",
            len(fallen),
            count=len(fallen),
        )
    ]


def _only_referenced(
    xids: list[dict[str, Any]], referenced: dict[tuple[str, int], int]
) -> list[dict[str, Any]]:
    """The referenced Xids (`caused by previous Xid N`) that no Xid line of the log shows on that GPU, once
    per GPU and code (the first line naming it), marked `referenced`."""
    printed = {(x["bus_id"], x["xid"]) for x in xids}
    return [
        {"bus_id": bus_id, "xid": code, "line": no, "referenced": True}
        for (bus_id, code), no in referenced.items()
        if (bus_id, code) not in printed
    ]


def _referenced_warnings(only_referenced: list[dict[str, Any]]) -> list[str]:
    if not only_referenced:
        return []
    codes = sorted({x["xid"] for x in only_referenced})
    return [
        ngettext(
            "Xid lines on %(gpus)s GPU say they were caused by an earlier Xid %(codes)s (first at line "
            "%(line)s) that the log does not show: that Xid is counted on that GPU",
            "Xid lines on %(gpus)s GPUs say they were caused by an earlier Xid %(codes)s (first at line "
            "%(line)s) that the log does not show: that Xid is counted on those GPUs",
            len({x["bus_id"] for x in only_referenced}),
            gpus=len({x["bus_id"] for x in only_referenced}),
            codes=listed(codes),
            line=only_referenced[0]["line"],
        )
    ]


class _SxidReader:
    """NVSwitch errors (SXID_RE), one event per first line; its continuation lines (SXID_CONTINUATION_RE) are
    no events of their own, unless no first line of that switch and SXid came before them (a log cut above
    them): then they are one (`header_missing`), a `Severity` line starting it (fatal from its severity) and
    the `Data` line after it joining it, a `Data` line alone making one of unknown severity."""

    def __init__(self) -> None:
        self.events: list[dict[str, Any]] = []
        self._headed: set[tuple[str, str, int]] = set()  # (switch, bus id, SXid) that had a first line
        self._open: dict[tuple[str, str, int], dict[str, Any]] = {}  # a headless event awaiting its Data

    def line(self, line: str, no: int) -> None:
        if "SXid" not in line or len(self.events) >= MAX_SXID_EVENTS:
            return
        found = SXID_RE.search(line)
        if found:
            key = (found.group(1), found.group(2).strip(), int(found.group(3)))
            self._headed.add(key)
            self._open.pop(key, None)
            self.events.append(self._event(key, found.group(4).lower() == "fatal", found.group(5), no))
            return
        cont = SXID_CONTINUATION_RE.search(line)
        if cont is None:
            return
        key = (cont.group(1), cont.group(2).strip(), int(cont.group(3)))
        if key in self._headed:
            return
        if cont.group(4) is not None:  # a Severity line: a headless event starts
            detail = f"Severity {cont.group(4)} {cont.group(5).strip()}".strip()
            event = self._event(key, cont.group(4) == "1", detail, no)
            self._open[key] = event
        elif self._open.pop(key, None) is None:  # a Data line with no Severity line before it
            event = self._event(key, None, cont.group(6), no)
        else:
            return
        event["header_missing"] = True
        self.events.append(event)

    @staticmethod
    def _event(key: tuple[str, str, int], fatal: bool | None, detail: str, no: int) -> dict[str, Any]:
        switch, bus_id, sxid = key
        return {
            "switch": switch,
            "bus_id": bus_id,
            "sxid": sxid,
            "fatal": fatal,
            "detail": detail.strip(),
        } | {"line": no}


def _sxid_warnings(sxids: list[dict[str, Any]]) -> list[str]:
    if not sxids:
        return []
    fatal = [e for e in sxids if e["fatal"]]
    first = (fatal or sxids)[0]
    return [
        ngettext(
            "%(count)s NVSwitch error (SXid), %(fatal)s fatal (first: SXid %(sxid)s on %(switch)s, line "
            "%(line)s: %(detail)s): a fatal SXid takes NVLink links between GPUs down until the switch is "
            "reset",
            "%(count)s NVSwitch errors (SXid), %(fatal)s fatal (first: SXid %(sxid)s on %(switch)s, line "
            "%(line)s: %(detail)s): a fatal SXid takes NVLink links between GPUs down until the switch is "
            "reset",
            len(sxids),
            count=len(sxids),
            fatal=len(fatal),
            sxid=first["sxid"],
            switch=first["switch"],
            line=first["line"],
            detail=first["detail"] or "?",
        )
    ] + _headless_sxid_warnings(sxids)


def _headless_sxid_warnings(sxids: list[dict[str, Any]]) -> list[str]:
    headless = [e for e in sxids if e.get("header_missing")]
    if not headless:
        return []
    return [
        ngettext(
            "%(count)s SXid event read from continuation lines (`Severity`, `Data`) whose first line, with "
            "the error's name and severity, the log does not hold (first at line %(line)s: SXid %(sxid)s on "
            "%(switch)s): the log was cut above it; the severity is read from a `Severity` line where there "
            "is one, else unknown",
            "%(count)s SXid events read from continuation lines (`Severity`, `Data`) whose first line, with "
            "the error's name and severity, the log does not hold (first at line %(line)s: SXid %(sxid)s on "
            "%(switch)s): the log was cut above them; the severity is read from a `Severity` line where "
            "there is one, else unknown",
            len(headless),
            count=len(headless),
            line=headless[0]["line"],
            sxid=headless[0]["sxid"],
            switch=headless[0]["switch"],
        )
    ]


def _reset_xids(xids: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The Xids (RESET_XIDS, and 154 with a recovery action) per GPU and code: `{xid, name, bus_id, count,
    lines}` (the first 8 lines; `nvlink_decode` for NVLINK_DECODE_XIDS; `referenced` for one known only from
    a later line's `caused by previous Xid N`), in order of first appearance. A GPU
    whose last Xid 154 changes the recovery action to None (after a reset) needs nothing: its Xids up to that
    line are left out, and the GPU is listed as recovered `{bus_id, line, xids}`."""
    cleared: dict[str, int] = {}  # bus id -> index of its last Xid 154, when that one is to None
    for i, x in enumerate(xids):
        if x["xid"] == RECOVERY_XID:
            if x.get("none"):
                cleared[x["bus_id"]] = i
            else:
                cleared.pop(x["bus_id"], None)
    found: dict[tuple[str, int], dict[str, Any]] = {}
    recovered: dict[str, dict[str, Any]] = {}
    for i, x in enumerate(xids):
        code = x["xid"]
        if code == RECOVERY_XID and x.get("none") or (code not in RESET_XIDS and code != RECOVERY_XID):
            continue
        if i < cleared.get(x["bus_id"], -1):
            entry = recovered.setdefault(
                x["bus_id"], {"bus_id": x["bus_id"], "line": xids[cleared[x["bus_id"]]]["line"], "xids": []}
            )
            if code not in entry["xids"]:
                entry["xids"].append(code)
            continue
        name = RESET_XIDS.get(code, "GPU_RECOVERY_ACTION_CHANGED")
        entry = found.setdefault((x["bus_id"], code), {"xid": code, "name": name, "bus_id": x["bus_id"],
                                                       "count": 0, "lines": []})  # fmt: skip
        if code in NVLINK_DECODE_XIDS:
            entry["nvlink_decode"] = True
        if x.get("referenced"):
            entry["referenced"] = True  # known from a later line's `caused by previous Xid N` only
        entry["count"] += 1
        if len(entry["lines"]) < 8:
            entry["lines"].append(x["line"])
    return list(found.values()), list(recovered.values())


def _read_nic_line(
    line: str, line_no: int, nic_errors: list[dict[str, Any]], pcie_limited: list[dict[str, Any]]
) -> None:
    """A NIC driver's failure (NIC_ERROR_RE) or a PCIe link narrower than the card (PCIE_LIMITED_RE)."""
    if "failed with error" in line and len(nic_errors) < MAX_NIC_EVENTS:
        m = NIC_ERROR_RE.search(line.rstrip())
        if m:
            nic_errors.append({"driver": m.group(1), "device": m.group(2).lower(), "message": m.group(3),
                               "line": line_no})  # fmt: skip
    if "available PCIe bandwidth, limited by" in line and len(pcie_limited) < MAX_NIC_EVENTS:
        m = PCIE_LIMITED_RE.search(line)
        if m:
            pcie_limited.append(
                {"driver": m.group(1), "device": m.group(2).lower(), "available_gbps": float(m.group(3)),
                 "limited_by": m.group(4).strip(), "capable_gbps": float(m.group(5)) if m.group(5) else None,
                 "line": line_no}
            )  # fmt: skip


def _read_nic_firmware_line(line: str, line_no: int, events: list[dict[str, Any]]) -> None:
    """A loaded NIC whose firmware stopped answering (NIC_FIRMWARE_RE): a command timeout, a failed health."""
    if (
        len(events) >= MAX_NIC_EVENTS
        or "_core" not in line
        or not any(w in line for w in NIC_FIRMWARE_LITERALS)
    ):
        return
    device = NIC_DEVICE_RE.search(line)
    m = NIC_FIRMWARE_RE.search(line, device.end()) if device else None
    if not device or not m:
        return
    if m.group(1):
        kind, message = "command_timeout", f"{m.group(1)} timeout"
    elif m.group(2) or m.group(3):
        kind, message = "health_failure", m.group(2) or m.group(3)
    else:
        if int(m.group(4), 16) == 0:  # an empty health buffer: no failure
            return
        kind, message = "health_failure", f"synd {m.group(4)}: {m.group(5).strip()}"
    events.append(
        {"driver": device.group(1), "device": device.group(2).lower(), "kind": kind, "message": message,
         "line": line_no}
    )  # fmt: skip


def _nic_firmware_warnings(events: list[dict[str, Any]]) -> list[str]:
    """One warning naming the NIC functions whose firmware stopped answering."""
    devices = list(dict.fromkeys(e["device"] for e in events))
    if not devices:
        return []
    return [
        ngettext(
            "%(count)s NIC function whose firmware stopped answering (%(devices)s; %(events)s, first at "
            "line %(line)s: %(message)s): such a NIC needs a firmware reset or a reboot before it carries "
            "traffic reliably",
            "%(count)s NIC functions whose firmware stopped answering (%(devices)s; %(events)s, first at "
            "line %(line)s: %(message)s): such a NIC needs a firmware reset or a reboot before it carries "
            "traffic reliably",
            len(devices),
            count=len(devices),
            devices=listed(devices[:8]),
            events=ngettext("%(n)s event", "%(n)s events", len(events), n=len(events)),
            line=events[0]["line"],
            message=events[0]["message"],
        )
    ]


def _nic_warnings(nic_errors: list[dict[str, Any]], pcie_limited: list[dict[str, Any]]) -> list[str]:
    """A warning naming the NIC functions that failed to load, and one per PCIe-limited NIC (8 at most)."""
    warnings: list[str] = []
    devices = list(dict.fromkeys(e["device"] for e in nic_errors))
    if devices:
        warnings.append(
            ngettext(
                "%(count)s NIC function failed to load (%(devices)s; first at line %(line)s: %(message)s): "
                "it carries no traffic",
                "%(count)s NIC functions failed to load (%(devices)s; first at line %(line)s: %(message)s): "
                "they carry no traffic",
                len(devices),
                count=len(devices),
                devices=listed(devices[:8]),
                line=nic_errors[0]["line"],
                message=nic_errors[0]["message"],
            )
        )
    for event in pcie_limited[:8]:
        warnings.append(
            _(
                "%(device)s (%(driver)s, line %(line)s): PCIe link limited by %(link)s to %(gbps)s Gb/s "
                "(the card is capable of %(capable)s Gb/s): the NIC cannot reach its line rate",
                device=event["device"],
                driver=event["driver"],
                line=event["line"],
                link=event["limited_by"],
                gbps=f"{event['available_gbps']:g}",
                capable=f"{event['capable_gbps']:g}" if event["capable_gbps"] else "?",
            )
        )
    return warnings
