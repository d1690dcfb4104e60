"""Parser speed and memory on big logs (issue 21 goals: 10 MB in <= 15x a plain line-by-line read;
100 MB in <= 300 MB peak memory).

Builds files from a real nccl-tests log of the shared corpus repeated to the size asked for, then, each in
a fresh subprocess (so peak RSS is the parse's own): a plain line-by-line read of the file (decoded as
UTF-8 text, as any parser must), and the
streamed parse the worker runs (`benchmarks.parsers.parse_file`). Prints JSON, one object per size.

    .venv/bin/python perf/bench_parsers.py              # 10 MB and 100 MB
    .venv/bin/python perf/bench_parsers.py --sizes 10   # 10 MB only
    .venv/bin/python perf/bench_parsers.py --code ../main --repeat 3   # another checkout's parsers, best of 3
                                                                       # (and the median: *_median)

The parse's CPU time is counted from after `import benchmarks.parsers` (a worker imports it once); the
import's own CPU time is printed apart (`import_cpu_s`, regex compilation: ~0.1 s), and so is the ratio
with it included (`ratio_with_import`, what this script printed before 2026-12-03 12:00 UTC).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT.parent / "shared" / "benchlogs" / "nccl-tests" / "xxrjun-h100-10node-80gpu-5colls.txt"

CHILD = r"""
import json, resource, sys, time
sys.path.insert(0, sys.argv[1])
path, mode = sys.argv[2], sys.argv[3]
imported = time.process_time()
if mode != "read":
    from benchmarks.parsers import parse_file
imported = time.process_time() - imported
start = time.process_time()
wall = time.perf_counter()
if mode == "read":
    n = 0
    with open(path, encoding="utf-8", errors="replace") as handle:
        for line in handle:
            n += 1
    kind = None
else:
    result = parse_file(lambda: open(path, "rb"), "big.txt")
    kind = result.kind
    n = len(result.summary.get("runs", []))
print(json.dumps({
    "cpu_s": time.process_time() - start,
    "import_cpu_s": imported,
    "wall_s": time.perf_counter() - wall,
    "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    "kind": kind,
    "count": n,
}))
"""


def _build(path: Path, megabytes: int, source: bytes) -> None:
    target = megabytes * 1_000_000
    with path.open("wb") as out:
        written = 0
        while written < target:
            out.write(source)
            written += len(source)


def _child(path: Path, mode: str, code: Path, repeat: int) -> dict[str, Any]:
    """The best (least CPU) of `repeat` fresh processes, with the median CPU time of all of them."""
    runs: list[dict[str, Any]] = []
    for _ in range(repeat):
        out = subprocess.run(
            [sys.executable, "-c", CHILD, str(code), str(path), mode],
            capture_output=True,
            text=True,
            check=True,
        )
        runs.append(json.loads(out.stdout))
    runs.sort(key=lambda data: data["cpu_s"])
    return {**runs[0], "cpu_s_median": statistics.median(data["cpu_s"] for data in runs)}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", type=int, nargs="+", default=[10, 100], help="file sizes in MB")
    parser.add_argument("--source", type=Path, default=SOURCE)
    parser.add_argument("--code", type=Path, default=ROOT, help="the checkout whose parsers are timed")
    parser.add_argument("--repeat", type=int, default=1, help="processes per measurement (the best is kept)")
    args = parser.parse_args()
    source = args.source.read_bytes()
    # The baseline interpreter (python + imports) is measured too, so the ratio is about the work.
    with tempfile.TemporaryDirectory() as tmp:
        for megabytes in args.sizes:
            path = Path(tmp) / f"nccl-{megabytes}mb.txt"
            _build(path, megabytes, source)
            read = _child(path, "read", args.code, args.repeat)
            parsed = _child(path, "parse", args.code, args.repeat)
            print(
                json.dumps(
                    {
                        "file_mb": megabytes,
                        "source": args.source.name,
                        "code": str(args.code.resolve()),
                        "plain_read_cpu_s": round(read["cpu_s"], 3),
                        "parse_cpu_s": round(parsed["cpu_s"], 3),
                        "parse_wall_s": round(parsed["wall_s"], 3),
                        "ratio_parse_to_read": round(parsed["cpu_s"] / read["cpu_s"], 1),
                        "plain_read_cpu_s_median": round(read["cpu_s_median"], 3),
                        "parse_cpu_s_median": round(parsed["cpu_s_median"], 3),
                        "ratio_of_medians": round(parsed["cpu_s_median"] / read["cpu_s_median"], 1),
                        "import_cpu_s": round(parsed["import_cpu_s"], 3),
                        "ratio_with_import": round(
                            (parsed["cpu_s"] + parsed["import_cpu_s"]) / read["cpu_s"], 1
                        ),
                        "plain_read_peak_rss_mib": round(read["peak_rss_mib"], 1),
                        "parse_peak_rss_mib": round(parsed["peak_rss_mib"], 1),
                        "kind": parsed["kind"],
                        "runs": parsed["count"],
                    }
                ),
                flush=True,
            )


if __name__ == "__main__":
    main()
