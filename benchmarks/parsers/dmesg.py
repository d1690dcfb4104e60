"""Kernel log lines about GPUs (`NVRM:`): GPUs fallen off the bus and Xid errors (evidence/FORMATS.md 2)."""

from __future__ import annotations

import re
from typing import Any

from .result import ParseResult
from .text import Text

GPU_BUS_RE = re.compile(r"^(?>.*?NVRM:).*?GPU\s++([0-9a-fA-F]{4,8}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.\d)")
XID_RE = re.compile(r"NVRM:\s*Xid\s*\(PCI:([^)]+)\):\s*(\d+)")
# The message wraps over several `NVRM:` lines; the bus id is on the first.
LOOKAHEAD_LINES = 4


def parse_dmesg(text: Text) -> ParseResult:
    result = ParseResult(kind="dmesg")
    fallen: list[dict[str, Any]] = []
    xids: list[dict[str, Any]] = []
    probe_failures = 0
    lines = text.lines
    for i, line in enumerate(lines):
        m = GPU_BUS_RE.search(line)
        if m:
            window = " ".join(lines[i : i + LOOKAHEAD_LINES])
            if "fallen off the bus" in window and not any(f["bus_id"] == m.group(1) for f in fallen):
                fallen.append({"bus_id": m.group(1).lower(), "line": i + 1})
        m = XID_RE.search(line)
        if m:
            xids.append({"bus_id": m.group(1), "xid": int(m.group(2)), "line": i + 1})
        if "probe routine failed" in line:
            probe_failures += 1
    result.summary = {
        "gpus_fallen_off_bus": fallen,
        "xid_events": xids[:1000],
        "xid_codes": sorted({x["xid"] for x in xids}),
        "probe_failures": probe_failures,
        "lines": [f["line"] for f in fallen] + [x["line"] for x in xids[:50]],
    }
    if fallen:
        result.warnings.append(f"{len(fallen)} GPU(s) fell off the bus: they are missing from GPU counts")
    return result
