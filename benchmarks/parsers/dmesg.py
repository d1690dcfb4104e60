"""Kernel log lines about GPUs (`NVRM:`): GPUs fallen off the bus and Xid errors (evidence/FORMATS.md 2)."""

from __future__ import annotations

import re
from collections import deque
from typing import Any

from hardware.messages import _

from .result import ParseResult
from .text import Text

GPU_BUS_RE = re.compile(r"^(?>.*?NVRM:).*?GPU\s++([0-9a-fA-F]{4,8}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.\d)")
XID_RE = re.compile(r"NVRM:\s*Xid\s*\(PCI:([^)]+)\):\s*(\d+)")
# The message wraps over several `NVRM:` lines; the bus id is on the first.
LOOKAHEAD_LINES = 4
# Xid 79 is "GPU has fallen off the bus" (NVIDIA's Xid catalogue): its line names the GPU even when no
# separate `NVRM: GPU 0000:5d:00.0: GPU has fallen off the bus.` line follows.
FALLEN_OFF_BUS_XID = 79


def _fallen_bus_id(xid_bus_id: str) -> str:
    """`0000:02:00` (the Xid line's domain:bus:device) -> `0000:02:00.0`, as the separate line prints it."""
    bus_id = xid_bus_id.strip().lower()
    return bus_id if "." in bus_id else bus_id + ".0"


def parse_dmesg(text: Text) -> ParseResult:
    result = ParseResult(kind="dmesg")
    fallen: list[dict[str, Any]] = []
    xids: list[dict[str, Any]] = []
    probe_failures = 0
    # One pass: a bus id waits in `open_ids` until the lookahead window after its line has been read.
    open_ids: deque[tuple[int, str]] = deque()
    for i, line in enumerate(text.lines):
        while open_ids and i - open_ids[0][0] >= LOOKAHEAD_LINES:
            open_ids.popleft()
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
            bus_id = _fallen_bus_id(m.group(1))
            if int(m.group(2)) == FALLEN_OFF_BUS_XID and not any(f["bus_id"] == bus_id for f in fallen):
                fallen.append({"bus_id": bus_id, "line": i + 1})
        if "probe routine failed" in line:
            probe_failures += 1
    result.summary = {
        "gpus_fallen_off_bus": fallen,
        "xid_events": xids[:1000],
        "xid_codes": sorted({x["xid"] for x in xids}),
        "probe_failures": probe_failures,
        "lines": list(dict.fromkeys([f["line"] for f in fallen] + [x["line"] for x in xids[:50]])),
    }
    if fallen:
        result.warnings.append(
            _("%(count)s GPU(s) fell off the bus: they are missing from GPU counts", count=len(fallen))
        )
    return result
