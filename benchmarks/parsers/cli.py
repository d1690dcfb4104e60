"""`parse_benchmark FILE [--json]` (DESIGN.md section 7).

Exit 0 when the file was recognised (also when it records a failed run), 2 when it was not or could
not be read, with a one-line reason on stderr. The Django management command wraps `main`.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, TextIO

from . import parse
from .result import ParseResult

# Uploads above this are refused by the portal anyway; the CLI reads at most this much.
MAX_BYTES = 512 * 1024 * 1024


class _ArgumentParser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise _UsageError(message)


class _UsageError(Exception):
    pass


def _fmt(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.2f}"
    return "-" if value is None else str(value)


def render_text(result: ParseResult, filename: str) -> str:
    """A short human-readable summary; --json carries everything."""
    lines = [f"{filename}: {result.kind or 'not recognised'}"]
    s = result.summary
    if result.kind in ("nccl-tests", "rccl-tests", "hccl-test"):
        for run in s.get("runs", []):
            lines.append(
                f"  run {run.get('index', '')} {run.get('collective') or '?'}: "
                f"ranks {_fmt(run.get('ranks'))}, "
                f"nodes {_fmt(run.get('nodes'))}, busbw@max {_fmt(run.get('busbw_at_max_size_gbps'))} GB/s "
                f"(size {_fmt(run.get('max_size_bytes'))}), peak {_fmt(run.get('peak_busbw_gbps'))} GB/s, "
                f"rows {_fmt(run.get('rows'))}"
                + (f", FAILED: {run.get('failure_reason')}" if run.get("failed") else "")
            )
    elif result.kind == "perftest":
        lines.append(
            f"  {s.get('test')} link {s.get('link_layer')}: average {_fmt(s.get('average_gbps'))} Gb/s, "
            f"peak {_fmt(s.get('peak_gbps'))} Gb/s"
        )
    elif result.kind in ("megatron", "torchtitan", "deepspeed"):
        lines.append(
            f"  {s.get('iterations')} iterations, median {_fmt(s.get('median_iteration_s'))} s, "
            f"{_fmt(s.get('median_tflops_per_gpu'))} TFLOP/s/GPU, "
            f"{_fmt(s.get('median_tokens_per_s_per_gpu'))} tokens/s/GPU, MFU {_fmt(s.get('mfu'))}"
        )
    elif result.kind in ("ibstat", "ibstatus", "ibv_devinfo", "ibdev2netdev", "rdma-link"):
        lines.append(
            f"  ports {s.get('total_ports')}, active InfiniBand {_fmt(s.get('active_infiniband_ports'))}, "
            f"active Ethernet {_fmt(s.get('active_ethernet_ports'))}"
        )
        for port in s.get("ports", [])[:64]:
            lines.append(
                f"    {port.get('device')}/{port.get('port')}: {port.get('state')} {port.get('link_layer')} "
                f"{_fmt(port.get('rate_gbps'))} Gb/s"
            )
    else:
        for key, value in s.items():
            if isinstance(value, (str, int, float, bool)) or value is None:
                lines.append(f"  {key}: {_fmt(value)}")
    lines.extend(f"  warning: {w}" for w in result.warnings)
    lines.extend(f"  error: {e}" for e in result.errors)
    return "\n".join(lines) + "\n"


def main(argv: list[str], stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    out = stdout or sys.stdout
    err = stderr or sys.stderr
    parser = _ArgumentParser(
        prog="parse_benchmark", description="Recognise and parse a benchmark log or report."
    )
    parser.add_argument("file")
    parser.add_argument("--json", action="store_true", help="print {kind, summary, warnings, errors} as JSON")
    try:
        args = parser.parse_args(argv)
    except _UsageError as exc:
        err.write(f"parse_benchmark: {exc}\n")
        return 2
    path = Path(args.file)
    try:
        with path.open("rb") as handle:
            data = handle.read(MAX_BYTES + 1)
    except OSError as exc:
        err.write(f"parse_benchmark: cannot read {args.file}: {exc.strerror or exc}\n")
        return 2
    result = parse(data[:MAX_BYTES], filename=path.name)
    if len(data) > MAX_BYTES:
        result.warnings.append(f"file larger than {MAX_BYTES} bytes: only the first part was parsed")
    if args.json:
        out.write(json.dumps(result.as_dict(), indent=2, sort_keys=False, default=str) + "\n")
    else:
        out.write(render_text(result, path.name))
    if not result.recognised:
        reason = result.errors[0] if result.errors else "not recognised"
        err.write(f"parse_benchmark: {reason}\n")
        return 2
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main(sys.argv[1:]))
