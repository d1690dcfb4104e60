"""nccl-tests and rccl-tests logs (benchlogs/FORMATS.md sections 1 and 2).

The table is read by tokens from the end of each row (two groups of time/algbw/busbw/#wrong, one
for in-place-only `-O 0`), never by character columns, because widths changed between versions and
wide numbers overflow their columns. A row is only a row when its first two tokens (after launcher
prefixes) are integers and what lies between them and the measurement groups looks like
`type [redop] [root]`; that single rule rejects split rows, NCCL INFO tables and other noise.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from .result import ParseResult
from .text import Text, median, to_float, to_int

REDUCTION_OPS = {"sum", "prod", "max", "min", "avg", "mulsum", "premulsum"}
KNOWN_COLLECTIVES = (
    "all_reduce", "all_gather", "reduce_scatter", "alltoallv", "alltoall", "sendrecv", "broadcast",
    "reduce", "gather", "scatter", "hypercube",
)  # fmt: skip
NVLS_CAPABLE_GPU_RE = re.compile(r"\b(H100|H200|H800|H20|B200|B300|GB200|GB300)\b")

VERSION_RE = re.compile(r"nccl-tests version\s+(\S+)(?:.*?nccl-headers=(\d+))?(?:.*?nccl-library=(\d+))?")
STARTING_RE = re.compile(r"Collective test starting:\s*(\S+)")
CONCLUDED_RE = re.compile(r"Collective test concluded:\s*(\S+)")
NTHREAD_RE = re.compile(r"\bnThread\s+\d+|\bnGpus(?:\(perProc\))?\s+\d+\s+minBytes")
HEADER_FIELD_RE = re.compile(
    r"\b(nThread|nGpus(?:\(perProc\))?|minBytes|maxBytes|warmup iters:|iters:|agg iters:|validation:|graph:"
    r"|unalign:)\s*(\d+)"
)
STEP_RE = re.compile(r"step:\s*(\d+)\((factor|bytes)\)")
RANK_RE = re.compile(
    r"\bRank\s+(\d+)\s+(?:Group\s+(\d+)\s+)?(?:Pid\s+(\d+)\s+)?on\s+(\S+)\s+device\s+(\d+)\s+\[([^\]]*)\]\s*(.*)$"
)
RCCL_TESTS_RE = re.compile(r"rccl-tests:\s*Version\s+(\S+)")
RCCL_VERSION_RE = re.compile(r"RCCL version\s*:?\s*(\S+)")
NCCL_VERSION_RE = re.compile(r"NCCL version\s+(\d+\.\d+\.\d+\S*)")
OOB_RE = re.compile(r"Out of bounds values\s*:\s*(\d+)\s*(OK|FAILED)?")
AVG_RE = re.compile(r"Avg bus bandwidth\s*:\s*([0-9.eE+\-]+|nan|-nan|inf)\s*(OK|FAILED)?")
REDUCING_RE = re.compile(r"Reducing maxBytes to\s+(\d+)")
FAILURE_RE = re.compile(r"Test (?:(NCCL|CUDA|HIP|RCCL|MPI) )?failure\b\s*(.*)$")
CYCLE_RE = re.compile(r"#?\s*Testing\s+(\d+)\s+cycles?\b")
SEPARATOR_RE = re.compile(
    r"^\s*(?:={3,}|\*{3,}|-{3,}|~{3,})\s*([^=*~\-\s][^=*~]{0,200}?)\s*(?:={3,}|\*{3,}|-{3,}|~{3,})\s*$"
)
NODES_IN_TEXT_RE = re.compile(r"(\d+)\s*[-_ ]?\s*nodes?\b", re.IGNORECASE)
PERF_BINARY_RE = re.compile(r"\b(" + "|".join(KNOWN_COLLECTIVES) + r")_perf(?:_mpi)?\b")
RUNNING_TEST_RE = re.compile(r"\b(?:nccl|rccl)[ _-]?tests?\s+(" + "|".join(KNOWN_COLLECTIVES) + r")\b")
WORLD_SIZE_RE = re.compile(r"\bworld_size\s*[=:]\s*(\d+)")
ALGO_ENV_RE = re.compile(r"NCCL_ALGO(?:\s+set by environment to\s+|\s*=\s*)([A-Za-z,^]+)")
NNODES_INFO_RE = re.compile(r"\bnRanks\s+(\d+)\s+nNodes\s+(\d+)")
GPUS_ARG_RE = re.compile(r"(?:^|\s)-g\s+(\d+)\b")
NP_ARG_RE = re.compile(r"(?:^|\s)-(?:np|n|N)\s+(\d+)\b")
COLUMN_HEADER_RE = re.compile(r"\b(size|bytes)\b.*\bcount\b.*\b(time|cputime)\b.*\balgbw\b", re.IGNORECASE)
TIMESTAMP_DATE_RE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
TIMESTAMP_TIME_RE = re.compile(r"^\d{2}:\d{2}:\d{2}$")
DEBUG_LINE_RE = re.compile(r"\b(?:NCCL|RCCL) (?:INFO|WARN|TRACE|ABORT)\b")

# Stages of one test, in print order; seeing an earlier stage again means the next test has begun.
ST_VERSION, ST_STARTING, ST_NTHREAD, ST_RANKS, ST_HEADER, ST_ROWS, ST_FOOTER = range(7)


@dataclass
class Measurement:
    time_us: float | None
    algbw: float | None
    busbw: float | None
    wrong: str

    @property
    def wrong_value(self) -> float | None:
        return to_float(self.wrong.rstrip("*"))

    @property
    def checked(self) -> bool:
        return self.wrong.upper() != "N/A"


@dataclass
class Row:
    line: int
    size: int
    count: int
    dtype: str
    redop: str | None
    root: int | None
    oop: Measurement | None
    ip: Measurement | None
    cycle: int = 0

    def busbw_values(self) -> list[float]:
        return [m.busbw for m in (self.oop, self.ip) if m is not None and m.busbw is not None]


@dataclass
class Layout:
    groups: int = 2
    width: int = 4
    has_redop: bool | None = None
    has_root: bool | None = None
    error_column: bool = False
    single_group_placement: str = "out-of-place"


@dataclass
class Run:
    first_line: int
    last_line: int = 0
    stage: int = -1
    tool: str | None = None
    collective: str | None = None
    collective_source: str | None = None
    tests_version: str | None = None
    nccl_version: str | None = None
    header: dict[str, Any] = field(default_factory=dict)
    ranks: dict[int, tuple[str, int, str]] = field(default_factory=dict)
    layout: Layout | None = None
    rows: list[Row] = field(default_factory=list)
    cycles: int = 0
    oob: int | None = None
    oob_flag: str | None = None
    avg: float | None = None
    avg_flag: str | None = None
    failures: list[str] = field(default_factory=list)
    failure_line: int | None = None
    reduced_max_bytes: int | None = None
    concluded: bool = False
    nodes_hint: int | None = None
    nodes_source: str | None = None
    world_size_hint: int | None = None
    gpus_arg: int | None = None
    np_arg: int | None = None
    algorithm: str | None = None
    nvls_seen: bool = False
    skipped_fragments: list[int] = field(default_factory=list)
    debug_warns: list[str] = field(default_factory=list)

    def touch(self, line_no: int, stage: int | None = None) -> None:
        self.last_line = max(self.last_line, line_no)
        if stage is not None:
            self.stage = max(self.stage, stage)

    @property
    def has_content(self) -> bool:
        return bool(
            self.rows or self.ranks or self.header or self.failures or self.layout or self.avg is not None
        )


def _normalise_collective(name: str) -> str | None:
    n = name.strip().lower()
    n = re.sub(r"(_perf(_mpi)?|_test)$", "", n)
    n = n.replace("-", "_")
    aliases = {
        "allreduce": "all_reduce", "allgather": "all_gather", "reducescatter": "reduce_scatter",
        "all_to_all": "alltoall", "alltoall": "alltoall", "send_recv": "sendrecv", "bcast": "broadcast",
    }  # fmt: skip
    n = aliases.get(n, n)
    return n if n in KNOWN_COLLECTIVES else None


def _parse_measurements(tokens: list[str]) -> Measurement | None:
    time_us = to_float(tokens[0])
    algbw = to_float(tokens[1])
    busbw = to_float(tokens[2])
    wrong = tokens[3]
    if algbw is None or busbw is None:
        return None
    if time_us is None and tokens[0].upper() != "N/A":
        return None
    if wrong.upper() != "N/A" and to_float(wrong.rstrip("*")) is None:
        return None
    return Measurement(time_us, algbw, busbw, wrong)


def parse_row(line: str, line_no: int, layout: Layout | None) -> Row | None:
    """One table row, or None. Reads tokens from the end; see the module docstring."""
    if len(line) > 2000 or "NCCL" in line or "|" in line:
        return None
    tokens = line.split()
    if len(tokens) < 7:
        return None
    if len(tokens) >= 2 and TIMESTAMP_DATE_RE.match(tokens[-2]) and TIMESTAMP_TIME_RE.match(tokens[-1]):
        tokens = tokens[:-2]  # `-S 1` appends a timestamp to each row
    candidates = [(layout.groups, layout.width)] if layout else [(2, 4), (1, 4)]
    for groups, width in candidates:
        row = _row_from_tokens(tokens, groups, width, line_no, layout)
        if row is not None:
            return row
    return None


def _row_from_tokens(
    tokens: list[str], groups: int, width: int, line_no: int, layout: Layout | None
) -> Row | None:
    need = groups * width
    if len(tokens) < need + 3:
        return None
    lead, tail = tokens[:-need], tokens[-need:]
    # Launcher prefixes (`0:`, `host:`, `[host]`) in front of the size.
    drop = 0
    while drop < len(lead) and drop < 3 and to_int(lead[drop]) is None:
        drop += 1
    lead = lead[drop:]
    if not 3 <= len(lead) <= 5:
        return None
    size, count = to_int(lead[0]), to_int(lead[1])
    if size is None or count is None or size < 0 or count < 0:
        return None
    middle = lead[2:]
    dtype = middle[0]
    if not dtype[:1].isalpha() or to_float(dtype) is not None:
        return None
    redop: str | None = None
    root: int | None = None
    rest = middle[1:]
    if len(rest) == 2:
        redop, root = rest[0], to_int(rest[1])
        if root is None or not redop[:1].isalpha():
            return None
    elif len(rest) == 1:
        as_int = to_int(rest[0])
        if as_int is not None:
            root = as_int
        elif rest[0][:1].isalpha():
            redop = rest[0]
        else:
            return None
    groups_m = []
    for g in range(groups):
        m = _parse_measurements(tail[g * width : g * width + 4])
        if m is None:
            return None
        groups_m.append(m)
    if groups == 2:
        oop, ip = groups_m[0], groups_m[1]
    elif layout and layout.single_group_placement == "in-place":
        oop, ip = None, groups_m[0]
    else:
        oop, ip = groups_m[0], None
    return Row(line_no, size, count, dtype, redop.lower() if redop else None, root, oop, ip)


def _parse_column_header(line: str, previous: str) -> Layout:
    tokens = [t.lstrip("#").lower() for t in line.split()]
    tokens = [t for t in tokens if t]
    time_positions = [i for i, t in enumerate(tokens) if t in ("time", "cputime")]
    groups = max(1, len(time_positions))
    if len(time_positions) >= 2:
        width = time_positions[1] - time_positions[0]
    elif time_positions:
        width = len(tokens) - time_positions[0]
    else:
        width = 4
    layout = Layout(
        groups=min(groups, 2),
        width=width if 4 <= width <= 12 else 4,
        has_redop="redop" in tokens or "op" in tokens,
        has_root="root" in tokens,
        error_column="error" in tokens or "res" in tokens,
    )
    if groups == 1 and "in-place" in previous and "out-of-place" not in previous:
        layout.single_group_placement = "in-place"
    return layout


class _Reader:
    """Splits a log into runs (one per test / table) while walking it once."""

    def __init__(self) -> None:
        self.runs: list[Run] = []
        self.current: Run | None = None
        self.pending: dict[str, Any] = {}
        self.tool: str | None = None
        self.file_nccl_version: str | None = None
        self.previous_line = ""

    def new_run(self, line_no: int) -> Run:
        run = Run(first_line=line_no, last_line=line_no)
        for key, value in self.pending.items():
            setattr(run, key, value)
        self.pending = {}
        self.runs.append(run)
        self.current = run
        return run

    def run_for(self, line_no: int, stage: int) -> Run:
        """The run a line of `stage` belongs to, opening a new one when the stage goes backwards."""
        run = self.current
        if run is None:
            return self.new_run(line_no)
        if stage <= ST_NTHREAD and run.stage >= stage and run.has_content:
            return self.new_run(line_no)
        if stage == ST_VERSION and run.stage >= ST_VERSION:
            return self.new_run(line_no)
        if stage in (ST_RANKS, ST_HEADER) and run.stage > stage:
            return self.new_run(line_no)
        if stage == ST_ROWS and run.stage >= ST_FOOTER:
            return self.new_run(line_no)
        return run

    def hint(self, key: str, value: Any, line_no: int) -> None:
        """A hint from a command or wrapper line: it describes the run in progress if that has no
        rows yet, otherwise the next one."""
        run = self.current
        if run is not None and not run.rows and run.stage < ST_FOOTER:
            if getattr(run, key) is None:
                setattr(run, key, value)
        else:
            self.pending.setdefault(key, value)

    def feed(self, line_no: int, line: str) -> None:
        if not line.strip():
            return
        if DEBUG_LINE_RE.search(line):
            self.debug_line(line_no, line)
            return
        m = VERSION_RE.search(line)
        if m:
            run = self.run_for(line_no, ST_VERSION)
            run.tests_version = m.group(1)
            code = m.group(3) or m.group(2)
            if code and code.isdigit() and len(code) >= 4:
                value = int(code)
                run.nccl_version = f"{value // 10000}.{value // 100 % 100}.{value % 100}"
            run.touch(line_no, ST_VERSION)
            return
        m = STARTING_RE.search(line)
        if m:
            run = self.run_for(line_no, ST_STARTING)
            name = _normalise_collective(m.group(1))
            if name:
                run.collective, run.collective_source = name, "starting-line"
            run.touch(line_no, ST_STARTING)
            return
        m = CONCLUDED_RE.search(line)
        if m:
            if self.current is not None:
                self.current.concluded = True
                self.current.touch(line_no, ST_FOOTER)
            return
        if NTHREAD_RE.search(line):
            run = self.run_for(line_no, ST_NTHREAD)
            for key, value in HEADER_FIELD_RE.findall(line):
                name = key.rstrip(":").replace(" ", "_").replace("(perProc)", "")
                run.header[name] = int(value)
            step = STEP_RE.search(line)
            if step:
                run.header["step"] = int(step.group(1))
                run.header["step_kind"] = step.group(2)
            run.touch(line_no, ST_NTHREAD)
            return
        m = RCCL_TESTS_RE.search(line)
        if m:
            self.tool = "rccl-tests"
            run = self.run_for(line_no, ST_NTHREAD + 1 if self.current and self.current.stage >= 0 else 0)
            run.tool = "rccl-tests"
            run.tests_version = run.tests_version or m.group(1)
            run.touch(line_no)
            return
        m = RANK_RE.search(line)
        if m:
            run = self.run_for(line_no, ST_RANKS)
            run.ranks[int(m.group(1))] = (m.group(4), int(m.group(5)), m.group(7).strip())
            run.touch(line_no, ST_RANKS)
            return
        m = RCCL_VERSION_RE.search(line)
        if m and "RCCL version" in line:
            self.tool = "rccl-tests"
            if self.current is not None:
                self.current.tool = "rccl-tests"
                self.current.nccl_version = self.current.nccl_version or m.group(1)
            return
        m = NCCL_VERSION_RE.search(line)
        if m:
            self.file_nccl_version = self.file_nccl_version or m.group(1)
            if self.current is not None and self.current.nccl_version is None:
                self.current.nccl_version = m.group(1)
            return
        if "Errors with asterisks" in line or "librccl" in line or "HIP version" in line:
            self.tool = "rccl-tests"
            if self.current is not None:
                self.current.tool = "rccl-tests"
            return
        m = SEPARATOR_RE.match(line)
        if m:
            label = m.group(1)
            if not re.search(r"[A-Za-z0-9]", label):
                return
            target = self.current
            if target is None or target.has_content:
                target = self.new_run(line_no)
            nodes = NODES_IN_TEXT_RE.search(label)
            if nodes:
                target.nodes_hint, target.nodes_source = int(nodes.group(1)), "separator"
            target.touch(line_no)
            return
        if COLUMN_HEADER_RE.search(line):
            run = self.run_for(line_no, ST_HEADER)
            run.layout = _parse_column_header(line, self.previous_line)
            run.touch(line_no, ST_HEADER)
            return
        self.previous_line = line
        m = CYCLE_RE.search(line)
        if m and self.current is not None:
            if self.current.rows:
                self.current.cycles += 1
            self.current.touch(line_no)
            return
        m = OOB_RE.search(line)
        if m:
            run = self.current or self.new_run(line_no)
            run.oob, run.oob_flag = int(m.group(1)), m.group(2)
            run.touch(line_no, ST_FOOTER)
            return
        m = AVG_RE.search(line)
        if m:
            run = self.current or self.new_run(line_no)
            run.avg, run.avg_flag = to_float(m.group(1)), m.group(2)
            run.touch(line_no, ST_FOOTER)
            return
        m = REDUCING_RE.search(line)
        if m:
            run = self.current or self.new_run(line_no)
            run.reduced_max_bytes = int(m.group(1))
            run.touch(line_no)
            return
        m = FAILURE_RE.search(line)
        if m:
            run = self.current or self.new_run(line_no)
            if len(run.failures) < 20:
                run.failures.append(line.strip()[:300])
            if run.failure_line is None:
                run.failure_line = line_no
            run.touch(line_no)
            return
        row = parse_row(line, line_no, self.current.layout if self.current else None)
        if row is not None:
            run = self.run_for(line_no, ST_ROWS)
            if run.rows and row.size < run.rows[-1].size:
                run.cycles += 1  # `-N` repeats the sweep with no separator
            row.cycle = run.cycles
            run.rows.append(row)
            run.touch(line_no, ST_ROWS)
            return
        self.other_line(line_no, line)

    def debug_line(self, line_no: int, line: str) -> None:
        m = NCCL_VERSION_RE.search(line)
        if m:
            self.file_nccl_version = self.file_nccl_version or m.group(1)
            if self.current is not None and self.current.nccl_version is None:
                self.current.nccl_version = m.group(1)
        m = ALGO_ENV_RE.search(line)
        if m:
            self.hint("algorithm", m.group(1).lower(), line_no)
        m = NNODES_INFO_RE.search(line)
        if m:
            self.hint("nodes_hint", int(m.group(2)), line_no)
            if self.current is not None and self.current.nodes_source is None:
                self.current.nodes_source = "nccl-info"
        if "NVLS" in line and ("multicast support is available" in line or "NVLS comm" in line):
            if self.current is not None:
                self.current.nvls_seen = True
        if " WARN " in line and self.current is not None and len(self.current.debug_warns) < 5:
            self.current.debug_warns.append(f"line {line_no}: {line.strip()[:200]}")

    def other_line(self, line_no: int, line: str) -> None:
        """Command lines and wrapper lines carry the collective name, -g and the launcher size."""
        tokens = line.split()
        if len(tokens) >= 8 and to_int(tokens[-8].lstrip("-")) is None and to_float(tokens[0]) is not None:
            if self.current is not None and self.current.stage >= ST_HEADER:
                self.current.skipped_fragments.append(line_no)
        m = PERF_BINARY_RE.search(line) or RUNNING_TEST_RE.search(line)
        if m:
            name = _normalise_collective(m.group(1))
            if name:
                self.hint("collective", name, line_no)
                self.hint("collective_source", "command-line", line_no)
            g = GPUS_ARG_RE.search(line)
            if g:
                self.hint("gpus_arg", int(g.group(1)), line_no)
            np_ = NP_ARG_RE.search(line)
            if np_ and ("mpirun" in line or "srun" in line or "mpiexec" in line):
                self.hint("np_arg", int(np_.group(1)), line_no)
        m = WORLD_SIZE_RE.search(line)
        if m:
            self.hint("world_size_hint", int(m.group(1)), line_no)
        m = ALGO_ENV_RE.search(line)
        if m:
            self.hint("algorithm", m.group(1).lower(), line_no)


def count_rows(lines: list[str], limit: int = 4000) -> int:
    """How many lines parse as nccl-tests rows (used by detection for header-less excerpts)."""
    hits = 0
    for line in lines[:limit]:
        if parse_row(line, 0, None) is not None:
            hits += 1
    return hits


def _ratio(rows: list[Row]) -> float | None:
    """Median busbw/algbw over rows large enough for two-decimal rounding not to matter."""
    for floor in (5.0, 1.0, 0.1):
        ratios = []
        for row in rows:
            for m in (row.oop, row.ip):
                if m is not None and m.algbw is not None and m.busbw is not None and m.algbw >= floor:
                    ratios.append(m.busbw / m.algbw)
        if ratios:
            return median(ratios)
    return None


def _ranks_from_ratio(ratio: float) -> tuple[str, int | None]:
    if abs(ratio - 1.0) < 0.01:
        return "one", None
    if 1.0 < ratio < 1.999:
        return "all_reduce", round(2.0 / (2.0 - ratio))
    if 0.0 < ratio < 0.99:
        return "gather-family", round(1.0 / (1.0 - ratio))
    if ratio <= 0.0:
        return "zero", 1
    return "unknown", None


def _family_for(ratio: float, n: int) -> str:
    expected = {"all_reduce": 2 * (n - 1) / n, "gather-family": (n - 1) / n, "one": 1.0}
    if n == 1:
        return "zero"
    if n == 2 and abs(ratio - 1.0) < 0.02:
        return "one"  # 2(n-1)/n is 1 on two ranks: let the column clues decide
    return min(expected, key=lambda k: abs(expected[k] - ratio))


def _guess_collective(run: Run, ratio: float | None, n: int | None) -> tuple[str | None, str | None]:
    if ratio is None:
        return None, None
    family = _family_for(ratio, n) if n else _ranks_from_ratio(ratio)[0]
    redops = {r.redop for r in run.rows}
    roots = {r.root for r in run.rows if r.root is not None}
    reduction = bool(redops & REDUCTION_OPS)
    ip_unchecked = any(r.oop and r.oop.checked for r in run.rows) and all(
        r.ip is None or not r.ip.checked for r in run.rows
    )
    layout = run.layout
    if family == "all_reduce":
        return "all_reduce", "busbw/algbw ratio 2(n-1)/n"
    if family == "gather-family":
        if reduction:
            return "reduce_scatter", "busbw/algbw ratio (n-1)/n with a reduction op"
        if ip_unchecked:
            return "alltoall", "busbw/algbw ratio (n-1)/n, in-place unchecked"
        if layout and layout.has_redop and redops <= {None}:
            return "alltoall", "busbw/algbw ratio (n-1)/n, blank redop (2021 alltoall header)"
        if layout and layout.has_redop is False:
            return "all_gather", "busbw/algbw ratio (n-1)/n, no redop column (2021 all_gather header)"
        return "all_gather", "busbw/algbw ratio (n-1)/n (all_gather or alltoall: ambiguous)"
    if family == "one":
        if any(r >= 0 for r in roots):
            if reduction:
                return "reduce", "busbw/algbw ratio 1 with a root and a reduction op"
            return "broadcast", "busbw/algbw ratio 1 with a root"
        if ip_unchecked:
            return "sendrecv", "busbw/algbw ratio 1, in-place unchecked"
        if n == 2:
            return "all_reduce", "busbw/algbw ratio 1 on 2 ranks (all_reduce or sendrecv: ambiguous)"
        return "sendrecv", "busbw/algbw ratio 1 (sendrecv, broadcast or reduce: ambiguous)"
    return None, None


def _measurement_dict(m: Measurement | None) -> dict[str, Any] | None:
    if m is None:
        return None
    return {"time_us": m.time_us, "algbw_gbps": m.algbw, "busbw_gbps": m.busbw, "wrong": m.wrong}


def _summarise_run(run: Run, index: int, file_tool: str | None, file_nccl: str | None) -> dict[str, Any]:
    rows = run.rows
    warnings: list[str] = []
    ratio = _ratio(rows)
    ranks_from_lines = (max(run.ranks) + 1) if run.ranks else None
    if run.ranks and len(run.ranks) != ranks_from_lines:
        warnings.append(
            f"only {len(run.ranks)} Rank lines for rank ids up to {(ranks_from_lines or 1) - 1}"
            " (listing filtered or cut); ranks taken from the highest id"
        )
    ratio_family, ratio_n = _ranks_from_ratio(ratio) if ratio is not None else ("unknown", None)
    ranks: int | None = ranks_from_lines
    ranks_source = "rank-lines" if ranks else None
    if ranks is None and run.world_size_hint:
        ranks, ranks_source = run.world_size_hint, "wrapper world_size"
    if ranks is None and ratio_n:
        ranks, ranks_source = ratio_n, "busbw/algbw ratio"
    if ranks is None and run.gpus_arg:
        threads = run.header.get("nThread", 1) or 1
        ranks, ranks_source = run.gpus_arg * threads * (run.np_arg or 1), "command line -g"
    if ranks is None and rows and all(b == 0 for r in rows for b in r.busbw_values()):
        if any(m.algbw for r in rows for m in (r.oop, r.ip) if m is not None and m.algbw):
            ranks, ranks_source = 1, "busbw is 0 everywhere"

    collective, source = run.collective, run.collective_source
    if collective is None:
        guess, why = _guess_collective(run, ratio, ranks)
        collective, source = guess, (f"inferred: {why}" if why else None)
        if collective:
            warnings.append(f"collective not named in the log; {why}")

    # Sanity check n against the ratio for the named collective (FORMATS.md 1.6 item 11).
    consistency: list[str] = []
    if ratio is not None and ranks and ranks > 1 and collective:
        factor = {
            "all_reduce": 2 * (ranks - 1) / ranks,
            "all_gather": (ranks - 1) / ranks,
            "reduce_scatter": (ranks - 1) / ranks,
            "alltoall": (ranks - 1) / ranks,
            "alltoallv": (ranks - 1) / ranks,
            "gather": (ranks - 1) / ranks,
            "scatter": (ranks - 1) / ranks,
            "sendrecv": 1.0,
            "broadcast": 1.0,
            "reduce": 1.0,
            "hypercube": 1.0,
        }.get(collective)
        if factor and abs(ratio - factor) / factor > 0.02:
            consistency.append(
                f"busbw/algbw = {ratio:.4f} but {collective} on {ranks} ranks should give {factor:.4f}"
            )
    bad_algbw = 0
    for row in rows:
        for m in (row.oop, row.ip):
            if m is None or not m.time_us or not m.algbw or m.algbw < 1.0 or m.time_us < 10:
                continue
            expected = row.size / m.time_us / 1e3
            if abs(expected - m.algbw) / m.algbw > 0.03 and "e" not in f"{m.time_us}":
                bad_algbw += 1
    if bad_algbw:
        consistency.append(f"{bad_algbw} measurement(s) where algbw != size/time within 3%")

    hosts: list[str] = []
    for rank in sorted(run.ranks):
        host = run.ranks[rank][0]
        if host not in hosts:
            hosts.append(host)
    nodes: int | None = len(hosts) if hosts and len(run.ranks) == ranks_from_lines else None
    nodes_source = "rank-lines" if nodes else None
    if nodes is None and run.nodes_hint:
        nodes, nodes_source = run.nodes_hint, run.nodes_source
    if nodes is None and hosts and len(hosts) > 1:
        nodes, nodes_source = len(hosts), "rank-lines (partial listing: at least)"
    if nodes is None and ranks_source == "command line -g" and not run.np_arg:
        nodes, nodes_source = 1, "single process (-g, no launcher)"
    gpus_per_node = ranks // nodes if ranks and nodes and ranks % nodes == 0 else None
    gpu_names = sorted({r[2] for r in run.ranks.values() if r[2]})

    max_size = max((r.size for r in rows), default=None)
    at_max = [r for r in rows if r.size == max_size] if rows else []
    oop_at_max = [r.oop.busbw for r in at_max if r.oop and r.oop.busbw is not None]
    ip_at_max = [r.ip.busbw for r in at_max if r.ip and r.ip.busbw is not None]
    busbw_at_max = median(oop_at_max) if oop_at_max else median(ip_at_max)
    peak_row = max(rows, key=lambda r: max(r.busbw_values(), default=-1.0)) if rows else None
    peak = max(peak_row.busbw_values(), default=None) if peak_row else None

    failed = False
    reasons: list[str] = []
    if run.failures:
        failed = True
        reasons.append(run.failures[0])
    wrong_rows = [
        r.line
        for r in rows
        for m in (r.oop, r.ip)
        if m is not None
        and m.checked
        and (m.wrong_value or 0) > 0
        and not (run.layout and run.layout.error_column)
    ]
    if wrong_rows:
        failed = True
        reasons.append(f"non-zero #wrong on {len(wrong_rows)} measurement(s), first at line {wrong_rows[0]}")
    error_rows = [
        r.line
        for r in rows
        for m in (r.oop, r.ip)
        if m is not None and m.checked and (m.wrong_value or 0) > 0 and run.layout and run.layout.error_column
    ]
    if error_rows:
        warnings.append(
            f"old `error` column: non-zero max relative error on {len(error_rows)} measurement(s) "
            f"(first at line {error_rows[0]}); counts as a failure only with Out of bounds > 0"
        )
    if run.oob:
        failed = True
        reasons.append(f"Out of bounds values: {run.oob}")
    elif run.oob_flag == "FAILED":
        failed = True
        reasons.append("Out of bounds values FAILED")
    if run.avg_flag == "FAILED":
        failed = True
        reasons.append("Avg bus bandwidth FAILED (below NCCL_TESTS_MIN_BW)")
    if not rows:
        failed = True
        if not run.failures:
            reasons.append("test header without result rows (aborted or cut before the table)")
    truncated = bool(rows) and run.avg is None and run.oob is None
    if truncated:
        warnings.append("no footer (Out of bounds / Avg bus bandwidth): log cut or run killed")
    if run.reduced_max_bytes:
        warnings.append(f"maxBytes reduced to {run.reduced_max_bytes} for lack of GPU memory")
    if run.skipped_fragments:
        warnings.append(
            f"{len(run.skipped_fragments)} split row fragment(s) skipped "
            f"(first at line {run.skipped_fragments[0]})"
        )

    tool = run.tool or file_tool or "nccl-tests"
    algorithm = run.algorithm
    algo = algorithm or ""
    ring_forced = "ring" in algo and "tree" not in algo and "nvls" not in algo
    nvls_capable = any(NVLS_CAPABLE_GPU_RE.search(name) for name in gpu_names)
    suspected = False
    why_suspected = None
    if collective == "all_reduce" and not ring_forced:
        if nodes == 2 and (gpus_per_node or 2) > 1:
            suspected = True
            why_suspected = "all_reduce on 2 nodes: tree/NVLSTree inflate busbw (use NCCL_ALGO=Ring)"
        elif nodes == 1 and (nvls_capable or run.nvls_seen) and (ranks or 0) > 2:
            suspected = True
            why_suspected = "all_reduce on one NVSwitch node: NVLS can push busbw above the NVLink wire rate"
    measures_fabric: bool | None = None
    cannot_measure = None
    if ranks == 1:
        measures_fabric, cannot_measure = False, "one rank: busbw is 0 by definition"
    elif nodes == 1:
        measures_fabric, cannot_measure = False, "one node: measures NVLink/xGMI, not the inter-node fabric"
    elif nodes and nodes >= 2:
        measures_fabric = True
    if failed:
        cannot_measure = cannot_measure or "failed run"

    cycle_values: list[float] = []
    if run.cycles and max_size is not None:
        for row in at_max:
            vals = [row.oop.busbw] if row.oop and row.oop.busbw is not None else row.busbw_values()
            cycle_values.extend(vals[:1])

    dtypes = sorted({r.dtype for r in rows})
    reference = {}
    for label, size in (("1GiB", 1 << 30), ("8GiB", 8 << 30), ("16GiB", 16 << 30)):
        matches = [r for r in rows if r.size == size and r.oop and r.oop.busbw is not None]
        if matches:
            reference[label] = matches[-1].oop.busbw if matches[-1].oop else None
    summary: dict[str, Any] = {
        "index": index,
        "tool": tool,
        "collective": collective,
        "collective_source": source,
        "ranks": ranks,
        "ranks_source": ranks_source,
        "nodes": nodes,
        "nodes_source": nodes_source,
        "gpus_per_node": gpus_per_node,
        "hosts": hosts[:256],
        "gpu_names": gpu_names,
        "peak_busbw_gbps": peak,
        "peak_busbw_size_bytes": peak_row.size if peak_row and peak is not None else None,
        "busbw_at_max_size_gbps": busbw_at_max,
        "busbw_at_max_size_oop_gbps": median(oop_at_max) if oop_at_max else None,
        "busbw_at_max_size_ip_gbps": median(ip_at_max) if ip_at_max else None,
        "busbw_at_reference_sizes_gbps": reference,
        "max_size_bytes": max_size,
        "min_size_bytes": min((r.size for r in rows), default=None),
        "avg_busbw_reported": run.avg,
        "avg_busbw_flag": run.avg_flag,
        "out_of_bounds": run.oob,
        "rows": len(rows),
        "failed": failed,
        "failure_reason": "; ".join(reasons) if reasons else None,
        "failure_line": run.failure_line,
        "first_line": run.first_line,
        "last_line": run.last_line,
        "data_type": dtypes[0] if len(dtypes) == 1 else (dtypes or None),
        "redop": next((r.redop for r in rows if r.redop), None),
        "nccl_version": run.nccl_version or file_nccl,
        "tests_version": run.tests_version,
        "header": run.header,
        "requested_max_bytes": run.header.get("maxBytes"),
        "reduced_max_bytes": run.reduced_max_bytes,
        "cycles": run.cycles + 1 if rows else 0,
        "busbw_at_max_size_per_cycle_gbps": cycle_values,
        "truncated": truncated,
        "concluded": run.concluded,
        "busbw_algbw_ratio": round(ratio, 5) if ratio is not None else None,
        "algorithm_hint": algorithm,
        "nvls_or_tree_suspected": suspected,
        "nvls_or_tree_reason": why_suspected,
        "measures_fabric": measures_fabric,
        "cannot_measure_reason": cannot_measure,
        "consistency_warnings": consistency,
        "nccl_warnings": run.debug_warns,
        "warnings": warnings,
        "size_rows": [
            {
                "line": r.line,
                "cycle": r.cycle,
                "size_bytes": r.size,
                "count": r.count,
                "type": r.dtype,
                "redop": r.redop,
                "root": r.root,
                "busbw_oop": r.oop.busbw if r.oop else None,
                "busbw_ip": r.ip.busbw if r.ip else None,
                "algbw_oop": r.oop.algbw if r.oop else None,
                "algbw_ip": r.ip.algbw if r.ip else None,
                "time_oop_us": r.oop.time_us if r.oop else None,
                "time_ip_us": r.ip.time_us if r.ip else None,
                "wrong_oop": r.oop.wrong if r.oop else None,
                "wrong_ip": r.ip.wrong if r.ip else None,
            }
            for r in rows[:5000]
        ],
    }
    return summary


def parse_nccl(text: Text) -> ParseResult:
    reader = _Reader()
    for i, line in enumerate(text.lines, start=1):
        reader.feed(i, line)
    runs = [r for r in reader.runs if r.rows or r.failures or r.ranks or r.layout]
    tool = reader.tool or "nccl-tests"
    result = ParseResult(kind=tool)
    if not runs:
        result.kind = None
        result.errors.append("nccl-tests signature found but no test header, rank list or result row")
        return result
    summaries = [_summarise_run(run, i, reader.tool, reader.file_nccl_version) for i, run in enumerate(runs)]
    for s in summaries:
        name = s["collective"] or "unknown collective"
        prefix = f"run {s['index']} ({name}, lines {s['first_line']}-{s['last_line']})"
        for w in s.pop("warnings"):
            result.warnings.append(f"{prefix}: {w}")
        for w in s["consistency_warnings"]:
            result.warnings.append(f"{prefix}: {w}")
        if s["failed"]:
            result.warnings.append(f"{prefix}: failed run: {s['failure_reason']}")
        if s["nvls_or_tree_suspected"]:
            result.warnings.append(f"{prefix}: {s['nvls_or_tree_reason']}")
    if reader.tool is None and not any(r.tests_version for r in runs) and not any(r.ranks for r in runs):
        result.warnings.append(
            "no nccl-tests/rccl-tests marker (version line, rank list): reported as nccl-tests, "
            "the table format is the same for both"
        )
    result.summary = {
        "runs": summaries,
        "tool": tool,
        "collectives": [s["collective"] for s in summaries],
        "failed_runs": sum(1 for s in summaries if s["failed"]),
        "nccl_version": reader.file_nccl_version
        or next((s["nccl_version"] for s in summaries if s["nccl_version"]), None),
    }
    return result
