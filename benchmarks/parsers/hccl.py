"""Huawei hccl_test output (benchlogs/FORMATS.md section 3).

Fields are `|`-separated. There is no busbw column: it is derived with the nccl-tests factors when
the collective and the rank count are known from the command line. `data_size` is per NPU.
"""

from __future__ import annotations

import re
from typing import Any

from hardware.messages import _

from .result import ParseResult
from .text import Text, to_float, to_int

HEADER_RE = re.compile(r"data_size\(Bytes\)")
TEST_RE = re.compile(
    r"\b(all_reduce|all_gather|reduce_scatter|alltoallv?|broadcast|reduce|scatter|send_recv|sendrecv)_test\b"
)
NP_RE = re.compile(r"^(?>.*?(?:mpirun|mpiexec)\b).*?\s-(?:n|np)\s++(\d+)")
# hccl_test's own `-p,--npus <npus used for one node>` (its usage text): ranks / NPUs per node = nodes.
NPUS_RE = re.compile(r"^(?>.*?_test\b).*?\s(?:-p|--npus)\s++(\d+)")
# The tool's first line: `the minbytes is 8192, maxbytes is 67108864, iters is 20, warmup_iters is 5`.
SWEEP_RE = re.compile(r"minbytes is (\d+), maxbytes is (\d+), iters is (\d+), warmup_iters is (\d+)")
# hccl_test's failure messages (common/src/hccl_test_common.cc): `hccl interface return err <file>:<line>,
# retcode: 7` then `This is an error in init_hcclComm.`, one pair per rank, before any table.
FAILURE_RE = re.compile(r"hccl interface return err\b|This is an error in \w+")
MAX_FAILURE_LINES = 20
# A command continued over several lines with a trailing `\` (`mpirun -np 16 \` / `.../all_reduce_test \` /
# `-b 2097152 ... -p 8`) is read as one line; at most this many characters are joined.
MAX_COMMAND_CHARS = 16384
# Runs and rows held per file (as nccl-tests' assembly): a log concatenated with itself would otherwise hold
# every row of every run in memory (723 MiB for 50 MB of one repeated run). Past them lines are read, counted.
MAX_RUNS = 500
MAX_ROWS = 20_000
FACTORS = {
    "all_reduce": lambda n: 2 * (n - 1) / n,
    "all_gather": lambda n: (n - 1) / n,
    "reduce_scatter": lambda n: (n - 1) / n,
    "alltoall": lambda n: (n - 1) / n,
    "alltoallv": lambda n: (n - 1) / n,
    "broadcast": lambda n: 1.0,
    "reduce": lambda n: 1.0,
    "scatter": lambda n: (n - 1) / n,
    "sendrecv": lambda n: 1.0,
    "send_recv": lambda n: 1.0,
}


def parse_hccl(text: Text) -> ParseResult:
    result = ParseResult(kind="hccl-test")
    runs: list[dict[str, Any]] = []
    run: dict[str, Any] | None = None
    collective = None
    ranks = npus = None
    sweep: dict[str, int] = {}
    continued = ""
    failures: list[tuple[int, str]] = []
    kept_rows = dropped_rows = dropped_runs = 0
    for no, line in enumerate(text.lines, start=1):
        if line.rstrip().endswith("\\") and len(continued) < MAX_COMMAND_CHARS:
            continued += line.rstrip()[:-1] + " "
            continue
        command, continued = (continued + line if continued else line), ""
        m = TEST_RE.search(command)
        if m and "|" not in command:
            collective = m.group(1).replace("send_recv", "sendrecv")
        m = NP_RE.search(command)
        if m:
            ranks = int(m.group(1))
        m = NPUS_RE.search(command)
        if m:
            npus = int(m.group(1))
        m = SWEEP_RE.search(line)
        if m:
            sweep = dict(zip(("requested_min_bytes", "requested_max_bytes", "iters", "warmup_iters"),
                             (int(g) for g in m.groups()), strict=True))  # fmt: skip
            continue
        if FAILURE_RE.search(line) and len(failures) < MAX_FAILURE_LINES:
            failures.append((no, line.strip()[:200]))
            continue
        header = HEADER_RE.search(line) is not None
        if header and (len(runs) >= MAX_RUNS or kept_rows >= MAX_ROWS):
            run, dropped_runs = None, dropped_runs + 1
            continue
        if header:
            run = {
                "collective": collective,
                "ranks": ranks,
                "npus_per_node": npus,
                "nodes": ranks // npus if ranks and npus and ranks % npus == 0 else None,
                **sweep,
                "rows_data": [],
                "first_line": no,
                "last_line": no,
            }
            runs.append(run)
            continue
        row = _row(line, no) if run is not None and "|" in line else None
        if row is not None and kept_rows >= MAX_ROWS:
            dropped_rows += 1
        elif row is not None and run is not None:
            kept_rows += 1
            run["rows_data"].append(row)
            run["last_line"] = no
    if not runs and failures:
        # Failed before its table (as nccl-tests runs that fail at init are recorded): one failed run.
        runs.append(
            {"collective": collective, "ranks": ranks, "npus_per_node": npus, "nodes": None, **sweep,
             "rows_data": [], "first_line": failures[0][0], "last_line": failures[-1][0]}
        )  # fmt: skip
    summaries = [_run_summary(r, result.warnings) for r in runs]
    result.note_skipped(len(runs), dropped_runs, kept_rows, dropped_rows)
    if failures and summaries and not summaries[-1]["rows"]:
        quoted = list(dict.fromkeys(text for _no, text in failures))
        summaries[-1]["failure_reason"] = "; ".join(quoted[:4])
        summaries[-1]["failure_line"] = failures[0][0]
        result.warnings.append(
            _(
                "hccl_test failed before printing results (line %(line)s): %(errors)s",
                line=failures[0][0],
                errors=summaries[-1]["failure_reason"],
            )
        )
    result.summary = {"runs": summaries, "failed_runs": sum(1 for s in summaries if s["failed"])}
    return result


def _row(line: str, no: int) -> dict[str, Any] | None:
    """A result row (`2097152 | 1000.00 | 2.09715 | success`: size, time, algbw, check), else None."""
    cells = [c.strip() for c in line.split("|")]
    if len(cells) < 3:
        return None
    size, time_us, algbw = to_int(cells[0]), to_float(cells[1]), to_float(cells[2])
    if size is None or algbw is None:
        return None
    check = cells[3] if len(cells) > 3 and cells[3] else None
    return {"size_bytes": size, "time_us": time_us, "algbw_gbps": algbw, "check": check, "line": no}


def _run_summary(r: dict[str, Any], warnings: list[str]) -> dict[str, Any]:
    """One run's `runs` entry: busbw derived with the nccl-tests factor, the sweep's end, the check."""
    rows = r.pop("rows_data")
    n, coll = r["ranks"], r["collective"]
    factor = FACTORS[coll](n) if coll in FACTORS and n and n > 1 else None
    for row in rows:
        row["busbw_gbps"] = round(row["algbw_gbps"] * factor, 4) if factor is not None else None
    max_size = max((x["size_bytes"] for x in rows), default=None)
    at_max = [x for x in rows if x["size_bytes"] == max_size]
    failed_rows = [x["line"] for x in rows if (x["check"] or "").lower() == "failed"]
    wanted = r.get("requested_max_bytes")
    if rows and wanted and max_size is not None and max_size < wanted:
        warnings.append(
            _(
                "hccl_test run (lines %(first)s-%(last)s) stops at %(size)s B of maxbytes %(wanted)s: "
                "cut or aborted",
                first=r["first_line"],
                last=r["last_line"],
                size=max_size,
                wanted=wanted,
            )
        )
    no_busbw = _(
        "hccl_test prints no busbw and the collective or rank count (mpirun -n) is not in the log: "
        "busbw not derived"
    )
    if factor is None and no_busbw not in warnings:  # once for the file, not once per run
        warnings.append(no_busbw)
    return {
        **r,
        "rows": len(rows),
        "max_size_bytes": max_size,
        "peak_algbw_gbps": max((x["algbw_gbps"] for x in rows), default=None),
        "algbw_at_max_size_gbps": at_max[-1]["algbw_gbps"] if at_max else None,
        "peak_busbw_gbps": max((x["busbw_gbps"] for x in rows if x["busbw_gbps"] is not None), default=None),
        "busbw_at_max_size_gbps": at_max[-1]["busbw_gbps"] if at_max else None,
        "avg_busbw_reported": None,
        "check_results": sorted({x["check"] for x in rows if x["check"]}),
        "failed": bool(failed_rows) or not rows,
        "failure_reason": (
            f"check_result failed at line {failed_rows[0]}" if failed_rows else (None if rows else "no rows")
        ),
        "size_rows": rows[:5000],
    }
