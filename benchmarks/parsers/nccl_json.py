"""nccl-tests JSON reports (`-J file.json`, nccl-tests 2.17 and later) read as the text report they mirror.

nccl-tests writes the same records to its JSON file as to stdout (src/util.cu: writeDeviceReport,
writeBenchmarkLinePreamble / writeBenchmarkLineBody per size, writeResultFooter), as one object:
`version`, `start_time`, `args` (argv: the binary names the collective), `env`, `nccl_version` (the library's
version code), `config` (the `# nThread ...` header and `devices`, one per rank), `results` (per size: `size`,
`count`, `type`, `redop`, `root`, `out_of_place` / `in_place` with `time`, `alg_bw`, `bus_bw`, `nwrong`),
`out_of_bounds`, `average_bus_bandwidth`, `errors`. The file is one line with no line breaks, so it is
recognised from its first bytes and rebuilt here as the lines nccl-tests prints for the same run, which the
nccl-tests parser then reads like any log: one parser, one set of checks, the same summary. The environment
list (which can hold tokens) is never copied.
"""

from __future__ import annotations

import json
import re
from typing import Any

from hardware.messages import _
from hardware.numbers import is_finite

# What a JSON report starts with (jsonOutputInit: `{"version":N,"start_time":"...`).
SIGNATURE_RE = re.compile(r'^\s*\{\s*"version"\s*:\s*\d+\s*,\s*"start_time"\s*:')
# JSON is parsed whole; a report with per-iteration times (-I 1) of every process can be large. Uploads are
# capped well below this (UPLOAD_MAX_BYTES); the command line gets the same bound and a clear message.
MAX_JSON_BYTES = 64 * 1024 * 1024
# writeResultHeader without per-iteration columns or timestamps.
COLUMN_HEADER = (
    "#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw"
    "   busbw  #wrong",
    "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)             (us)  (GB/s)"
    "  (GB/s)",
)
NOTE = _("read from an nccl-tests JSON report (-J): line numbers count the text report it mirrors")


def looks_like_report(head: bytes) -> bool:
    """Whether the first bytes of an upload are an nccl-tests JSON report."""
    return SIGNATURE_RE.match(head.decode("utf-8", errors="replace").removeprefix("\ufeff")) is not None


class ReportError(ValueError):
    """The upload starts like an nccl-tests JSON report but cannot be read as one (message for the buyer)."""


def report_lines(data: bytes) -> list[str]:
    """The text report's lines for a JSON report; ReportError when it is too large or not valid JSON."""
    if len(data) > MAX_JSON_BYTES:
        raise ReportError(
            f"an nccl-tests JSON report of {len(data) / 2**20:.0f} MiB is over the "
            f"{MAX_JSON_BYTES // 2**20} MiB this parser reads: upload the text output of the same run instead"
        )
    try:
        report = json.loads(data.decode("utf-8", errors="replace"))
    except ValueError as exc:
        raise ReportError(
            f"starts as an nccl-tests JSON report (-J) but is not valid JSON ({exc}); a run that was killed "
            "leaves its report unfinished: upload the text output of the run instead"
        ) from None
    if not isinstance(report, dict) or not isinstance(report.get("results", []), list):
        raise ReportError("starts as an nccl-tests JSON report (-J) but has no list of results")
    return _header(report) + _rows(report.get("results") or []) + _footer(report)


def _program(report: dict[str, Any]) -> str:
    args = report.get("args")
    first = args[0] if isinstance(args, list) and args and isinstance(args[0], str) else ""
    return first.rsplit("/", 1)[-1] or "unknown_perf"


def _version_text(code: Any) -> str | None:
    """NCCL_VERSION_CODE as printed by NCCL: 22807 -> 2.28.7 (major*10000 + minor*100 + patch since 2.9)."""
    if not isinstance(code, int) or code <= 0:
        return None
    if code >= 10000:
        return f"{code // 10000}.{code // 100 % 100}.{code % 100}"
    return f"{code // 1000}.{code // 100 % 10}.{code % 100}"


def _header(report: dict[str, Any]) -> list[str]:
    program = _program(report)
    lines = [f"# Collective test starting: {program}"]
    version = _version_text(report.get("nccl_version"))
    found = report.get("config")
    config: dict[str, Any] = found if isinstance(found, dict) else {}
    step = config.get("step_factor")
    step_text = f"{step}(factor)" if step is not None else f"{config.get('step_bytes', 0)}(bytes)"
    lines.append(
        f"# nThread {config.get('nthreads', 1)} nGpus {config.get('ngpus', 1)} "
        f"minBytes {config.get('minimum_bytes', 0)} maxBytes {config.get('maximum_bytes', 0)} "
        f"step: {step_text} "
        f"warmup iters: {config.get('warmup_iters', 0)} iters: {config.get('iterations', 0)} "
        f"agg iters: {config.get('aggregated_iterations', 1)} validation: {config.get('validation', 0)} "
        f"graph: {config.get('graph', 0)} unalign: 0"
    )
    lines += ["#", "# Using devices"]
    for device in config.get("devices") or []:
        if isinstance(device, dict):
            lines.append(
                "#  Rank {:2d} Group {:2d} Pid {:6d} on {:>10s} device {:2d} [{}] {}".format(
                    _int(device.get("rank")),
                    _int(device.get("group")),
                    _int(device.get("pid")),
                    str(device.get("hostname") or "?"),
                    _int(device.get("device")),
                    str(device.get("device_hex") or ""),
                    str(device.get("device_info") or ""),
                )
            )
    if version:
        lines.append(f"# NCCL version {version}")
    return [*lines, "#", *COLUMN_HEADER]


def _int(value: Any) -> int:
    return value if isinstance(value, int) else 0


def _figure(value: Any) -> bool:
    """A number the report's columns can print: a JSON integer no float holds (400 digits) is none, as
    formatting it as a float raises OverflowError; nccl-tests never writes one."""
    return isinstance(value, float) or (isinstance(value, int) and is_finite(value))


def _number(value: Any, width: int) -> str:
    """getFloatStr: the widest of %.2f, %.1f, %.0f that fits the column, else exponent form."""
    if not _figure(value):
        return "N/A".rjust(width)
    for digits in (2, 1, 0):
        text = f"{value:.{digits}f}"
        if len(text) <= width:
            return text.rjust(width)
    return f"{value:.1e}".rjust(width) if width >= 7 else f"{value:.0e}".rjust(width)


def _body(record: Any) -> str:
    if not isinstance(record, dict):
        return " " * 32  # writeBenchMarkLineNullBody: no out-of-place measurement
    time = record.get("time", record.get("cpu_time"))
    wrong = record.get("nwrong")
    wrong_text = f"{wrong:6g}" if _figure(wrong) else "   N/A"
    alg, bus = _number(record.get("alg_bw"), 6), _number(record.get("bus_bw"), 6)
    return f"  {_number(time, 7)}  {alg}  {bus}  {wrong_text}"


def _rows(results: list[Any]) -> list[str]:
    lines = []
    for row in results:
        if not isinstance(row, dict) or not isinstance(row.get("size"), int):
            continue
        root = str(row.get("root", "-1")).strip() or "-1"
        preamble = (
            f"{row['size']:12d}  {_int(row.get('count')):12d}  {str(row.get('type', '')):>8s}  "
            f"{str(row.get('redop', '')):>6s}  {root:>6s}"
        )
        lines.append(preamble + _body(row.get("out_of_place")) + _body(row.get("in_place")))
    return lines


def _footer(report: dict[str, Any]) -> list[str]:
    lines = []
    oob = report.get("out_of_bounds")
    if isinstance(oob, dict) and isinstance(oob.get("count"), int):
        lines.append(f"# Out of bounds values : {oob['count']} {'OK' if oob['count'] == 0 else 'FAILED'}")
    avg = report.get("average_bus_bandwidth")
    if isinstance(avg, dict) and _figure(avg.get("bandwidth")):
        okay = avg.get("okay")
        flag = "" if okay == "unchecked" or okay is None else ("OK" if okay else "FAILED")
        lines.append(f"# Avg bus bandwidth    : {avg['bandwidth']:g} {flag}".rstrip())
    if lines:
        lines += ["#", f"# Collective test concluded: {_program(report)}"]
    for error in report.get("errors") or []:
        if isinstance(error, str) and error.strip():
            lines.append(f"# error: {error.strip()[:500]}")
    return lines
