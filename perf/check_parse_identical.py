"""Parse output before and after a parser change, compared byte for byte.

For every `*.log` and `*.txt` under ../shared (the shared corpus) and, with `--big`, 10 MB files built
from two nccl-tests logs repeated (as perf/bench_parsers.py builds them: the run cap and the streamed
path), it records what `manage.py parse_benchmark FILE --json` prints (stdout, stderr, exit code) and
the JSON of the streamed parse the worker runs (`benchmarks.parsers.parse_file`).

    .venv/bin/python perf/check_parse_identical.py --record /tmp/parse-before.json --big   # old code
    .venv/bin/python perf/check_parse_identical.py --compare /tmp/parse-before.json --big  # new code

`--manage` runs the real `manage.py parse_benchmark` in a subprocess per file (slower); without it the
command's own function (`benchmarks.parsers.cli.main`, which the management command calls) runs in this
process. Exit 1 when any output differs.
"""

from __future__ import annotations

import argparse
import io
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
BIG_SOURCES = (
    "benchlogs/nccl-tests/xxrjun-h100-10node-80gpu-5colls.txt",
    "benchlogs/nccl-tests/aws-p5-h100-efa-allreduce-2node-nccl2.22.3-mpitag.txt",
)
BIG_BYTES = 10_000_000

sys.path.insert(0, str(ROOT))


def corpus() -> list[Path]:
    return sorted(p for p in SHARED.rglob("*") if p.is_file() and p.suffix in (".log", ".txt"))


def build_big(tmp: Path) -> list[Path]:
    paths = []
    for rel in BIG_SOURCES:
        source = (SHARED / rel).read_bytes()
        path = tmp / f"big-{Path(rel).stem}.txt"
        with path.open("wb") as out:
            for _ in range(BIG_BYTES // len(source) + 1):
                out.write(source)
        paths.append(path)
    return paths


def command_output(path: Path, manage: bool) -> dict[str, object]:
    if manage:
        done = subprocess.run(
            [sys.executable, str(ROOT / "manage.py"), "parse_benchmark", str(path), "--json"],
            capture_output=True,
            text=True,
            cwd=ROOT,
        )
        return {"stdout": done.stdout, "stderr": done.stderr, "rc": done.returncode}
    from benchmarks.parsers.cli import main

    out, err = io.StringIO(), io.StringIO()
    rc = main([str(path), "--json"], stdout=out, stderr=err)
    return {"stdout": out.getvalue(), "stderr": err.getvalue(), "rc": rc}


def streamed_output(path: Path) -> str:
    from benchmarks.parsers import parse_file

    result = parse_file(lambda: path.open("rb"), path.name)
    return json.dumps(result.as_dict(), indent=2, default=str)


def outputs(manage: bool, big: bool) -> dict[str, dict[str, object]]:
    found: dict[str, dict[str, object]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        files = [(str(p.relative_to(SHARED)), p) for p in corpus()]
        if big:
            files += [(p.name, p) for p in build_big(Path(tmp))]
        for name, path in files:
            found[name] = {"command": command_output(path, manage), "streamed": streamed_output(path)}
    return found


def main() -> None:
    parser = argparse.ArgumentParser()
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--record", type=Path, help="write the outputs of this code to this file")
    mode.add_argument("--compare", type=Path, help="compare the outputs of this code with this file")
    parser.add_argument("--manage", action="store_true", help="run manage.py in a subprocess per file")
    parser.add_argument("--big", action="store_true", help="also 10 MB files built from two nccl-tests logs")
    args = parser.parse_args()
    if args.manage:
        import os

        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "portal.settings")
    now = outputs(args.manage, args.big)
    if args.record:
        args.record.write_text(json.dumps(now, indent=1, sort_keys=True))
        print(f"recorded {len(now)} files to {args.record}")
        return
    before = json.loads(args.compare.read_text())
    differ = sorted(name for name in before.keys() | now.keys() if before.get(name) != now.get(name))
    for name in differ:
        print(f"DIFFERENT: {name}")
    print(f"{len(now)} files compared, {len(differ)} different")
    sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()
