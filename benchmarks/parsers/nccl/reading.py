"""Stage 1 of the nccl-tests parser: what one line says, read on its own.

Every function here looks at a single line (a version banner, the `nThread` header, a Rank line, a
table row, a footer, a failure, a command line) and returns what it holds, or None when the line is
not of its kind. Which run a line belongs to is decided in assembly.py. Each pattern sits just above
the function that reads it.
"""

from __future__ import annotations

import copy
import functools
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from ..text import to_float, to_int

T = TypeVar("T")
# Lines up to this long are remembered by the memoised readers (those around the tables are short).
MEMO_LINE_CHARS = 200


def memoised(reader: Callable[[str], T]) -> Callable[[str], T]:
    """A pure reader of one line that keeps its last 256 answers (issue 21: parser speed). A log repeats
    most of the lines around its tables word for word in every test (the version banner, the nThread
    header, the column headers, `Reducing maxBytes`), and their regexes cost 5-30 us a line. Only for
    readers whose answer depends on the line alone and is never changed by its caller (a dict or list
    answer is copied by the public reader)."""
    remembered = functools.lru_cache(maxsize=256)(reader)

    @functools.wraps(reader)
    def read(line: str) -> T:
        return remembered(line) if len(line) <= MEMO_LINE_CHARS else reader(line)

    return read


def first_group_reader(marker: str, pattern: re.Pattern[str]) -> Callable[[str], str | None]:
    """A reader of `pattern`'s first group on a line that holds `marker`, None on any other line. The
    substring is checked first (cheap, in C) so that most lines cost no regex at all."""

    def read(line: str) -> str | None:
        if marker not in line:
            return None
        m = pattern.search(line)
        return m.group(1) if m else None

    return read


KNOWN_COLLECTIVES = (
    "all_reduce", "all_gather", "reduce_scatter", "alltoallv", "alltoall", "sendrecv", "broadcast",
    "reduce", "gather", "scatter", "hypercube",
)  # fmt: skip
COLLECTIVE_ALIASES = {
    "allreduce": "all_reduce", "allgather": "all_gather", "reducescatter": "reduce_scatter",
    "all_to_all": "alltoall", "alltoall": "alltoall", "send_recv": "sendrecv", "bcast": "broadcast",
}  # fmt: skip


@memoised
def normalise_collective(name: str) -> str | None:
    """`AllReduce`, `all_reduce_perf`, `alltoall_test` -> the nccl-tests name; None when unknown."""
    collective = re.sub(r"(_perf(_mpi)?|_test)$", "", name.strip().lower()).replace("-", "_")
    collective = COLLECTIVE_ALIASES.get(collective, collective)
    return collective if collective in KNOWN_COLLECTIVES else None


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
    # The header names a `type` column, as every nccl-tests and rccl-tests release does. MSCCL++'s own
    # test (mscclpp-test, microsoft/mscclpp test/mscclpp-test/common.cc, BaseTestEngine::runTest) prints
    # `size count time algbw busbw #wrong` twice: its rows hold no type, redop or root.
    has_type: bool = True
    # The line above the header names the two blocks in their order: nccl-tests prints `out-of-place
    # in-place`, mscclpp-test `in-place out-of-place`.
    in_place_first: bool = False


# ---- the result table ------------------------------------------------------------------------


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


TIMESTAMP_DATE_RE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
TIMESTAMP_TIME_RE = re.compile(r"^\d{2}:\d{2}:\d{2}$")


def parse_row(line: str, line_no: int, layout: Layout | None) -> Row | None:
    """One table row, or None. Reads tokens from the end; see the package docstring."""
    if len(line) > 2000 or "NCCL" in line or "|" in line:
        return None
    tokens = line.split()
    if layout is not None and not layout.has_type:
        return _typeless_row(line, tokens, line_no, layout)
    if len(tokens) < 6:  # size count type time algbw busbw: a 3-wide block, no redop (_row_from_tokens)
        return None
    # The regexes only when the lengths fit (`2024-05-01 12:00:00`): most rows have no timestamp.
    if (
        len(tokens[-2]) == 10
        and len(tokens[-1]) == 8
        and TIMESTAMP_DATE_RE.match(tokens[-2])
        and TIMESTAMP_TIME_RE.match(tokens[-1])
    ):
        tokens = tokens[:-2]  # `-S 1` appends a timestamp to each row
    candidates = [(layout.groups, layout.width)] if layout else [(2, 4), (1, 4)]
    if layout is not None and layout.width == 3:
        # A header trimmed of `#wrong` over rows that kept it (its author cut the header, not the rows).
        candidates.append((layout.groups, 4))
    for groups, width in candidates:
        row = _row_from_tokens(tokens, groups, width, line_no, layout)
        if row is not None:
            return row
    return None


def _drop_launcher_tokens(lead: list[str]) -> list[str]:
    """Launcher prefixes (`0:`, `host:`, `[host]`) in front of the size: up to three tokens."""
    drop = 0
    while drop < len(lead) and drop < 3 and to_int(lead[drop]) is None:
        drop += 1
    return lead[drop:]


def _redop_and_root(rest: list[str]) -> tuple[str | None, int | None] | None:
    """What follows the type: `redop root`, `redop`, `root` or nothing; None when it is neither."""
    if len(rest) == 2:
        redop, root = rest[0], to_int(rest[1])
        if root is None or not redop[:1].isalpha():
            return None
        return redop, root
    if len(rest) == 1:
        as_int = to_int(rest[0])
        if as_int is not None:
            return None, as_int
        if rest[0][:1].isalpha():
            return rest[0], None
        return None
    return None, None


def _measurement_groups(
    tail: list[str], groups: int, width: int, layout: Layout | None
) -> tuple[Measurement | None, Measurement | None] | None:
    """The out-of-place and in-place measurements from the last `groups * width` tokens."""
    found = []
    for g in range(groups):
        # A block of 3 (`time algbw busbw`: a header trimmed of `#wrong`) is read as not checked.
        m = _parse_measurements(_with_wrong(tail[g * width : g * width + min(width, 4)]))
        if m is None:
            return None
        found.append(m)
    if groups == 2:
        return (found[1], found[0]) if layout and layout.in_place_first else (found[0], found[1])
    if layout and layout.single_group_placement == "in-place":
        return None, found[0]
    return found[0], None


def _row_from_tokens(
    tokens: list[str], groups: int, width: int, line_no: int, layout: Layout | None
) -> Row | None:
    need = groups * width
    if len(tokens) < need + 3:
        return None
    lead = _drop_launcher_tokens(tokens[:-need])
    if not 3 <= len(lead) <= 5:
        return None
    size, count = to_int(lead[0]), to_int(lead[1])
    if size is None or count is None or size < 0 or count < 0:
        return None
    dtype = lead[2]
    if not dtype[:1].isalpha() or to_float(dtype) is not None:
        return None
    redop_root = _redop_and_root(lead[3:])
    if redop_root is None:
        return None
    measurements = _measurement_groups(tokens[-need:], groups, width, layout)
    if measurements is None:
        return None
    redop, root = redop_root
    if width == 3 and root is not None and layout is not None and not layout.has_root:
        return None  # a time printed as an integer (`18927`) before a row's last 4 tokens: not a root
    oop, ip = measurements
    return Row(line_no, size, count, dtype, redop.lower() if redop else None, root, oop, ip)


# mscclpp-test prints a row of an out-of-place-only test (alltoall, sendrecv) in the second block by
# putting 33 blanks where the first block's numbers would be (common.cc, BaseTestEngine::runTest); no
# other gap of its rows is wider than 13.
SKIPPED_BLOCK_GAP_RE = re.compile(r"\S[ \t]{30,}\S")


def _typeless_row(line: str, tokens: list[str], line_no: int, layout: Layout) -> Row | None:
    """A row under a header without a type column (mscclpp-test): size, count, then the header's blocks of
    `time algbw busbw #wrong`, or of `time algbw busbw` when the tool checked nothing (mscclpp-test `-c 0`
    leaves #wrong out). A row holding one block is read for the block it stands in: the first, unless a
    blank the width of a block stands before it."""
    lead = _drop_launcher_tokens(tokens[: len(tokens) - 3])
    size = to_int(lead[0]) if len(lead) >= 2 else None
    count = to_int(lead[1]) if size is not None else None
    if size is None or count is None or size < 0 or count < 0:
        return None
    tail = tokens[len(tokens) - 3 - len(lead) + 2 :]  # after the launcher tokens, the size and the count
    for groups in sorted({layout.groups, 1}, reverse=True):
        for step in (4, 3):  # with #wrong, then without (unchecked)
            if len(tail) != groups * step:
                continue
            found = [_parse_measurements(_with_wrong(tail[g * step : (g + 1) * step])) for g in range(groups)]
            if not all(found):
                return None
            if groups == 2:
                first, second = found
            elif layout.groups == 2 and SKIPPED_BLOCK_GAP_RE.search(line):
                first, second = None, found[0]
            else:
                first, second = found[0], None
            ip, oop = (first, second) if layout.in_place_first else (second, first)
            if layout.groups == 1 and layout.single_group_placement == "in-place":
                ip, oop = first, None
            return Row(line_no, size, count, "", None, None, oop, ip)
    return None


def _with_wrong(tokens: list[str]) -> list[str]:
    """A block's tokens with a #wrong, `N/A` (not checked) when the row has none."""
    return tokens if len(tokens) >= 4 else [*tokens, "N/A"]


def count_rows(lines: list[str], limit: int = 4000) -> int:
    """How many lines parse as nccl-tests rows (used by detection for header-less excerpts)."""
    hits = 0
    for line in lines[:limit]:
        if parse_row(line, 0, None) is not None:
            hits += 1
    return hits


def parse_column_header(line: str, previous: str) -> Layout:
    """The table layout from the `size count type ... time algbw busbw #wrong` line (a copy of the one
    remembered for the same line and the same placement words in the line before)."""
    if len(line) > MEMO_LINE_CHARS:
        return _column_layout(line, previous)
    # copy.copy: the same new Layout as dataclasses.replace with no change, 4x faster (no field walk)
    return copy.copy(_remembered_layout(line, _placement_words(previous)))


@functools.lru_cache(maxsize=256)
def _remembered_layout(line: str, placements: str) -> Layout:
    """_column_layout reads the line before only for its placement words."""
    return _column_layout(line, placements)


def _placement_words(previous: str) -> str:
    """`in-place` and `out-of-place` as the line before the header names them, in their order."""
    at = {word: previous.find(word) for word in ("in-place", "out-of-place")}
    return " ".join(sorted((word for word in at if at[word] >= 0), key=at.__getitem__))


def _column_layout(line: str, previous: str) -> Layout:
    """parse_column_header, read afresh."""
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
    has_type = "type" in tokens
    placements = _placement_words(previous)
    layout = Layout(
        groups=min(groups, 2),
        # 3: `time algbw busbw` without `#wrong` (a header trimmed by its author), read as unchecked.
        width=width if 3 <= width <= 12 else 4,
        # Without a type column the header tells nothing of the op (no nccl-tests release prints one).
        has_redop=("redop" in tokens or "op" in tokens) if has_type else None,
        has_root="root" in tokens,
        error_column="error" in tokens or "res" in tokens,
        has_type=has_type,
        in_place_first=placements == "in-place out-of-place",
    )
    if groups == 1 and placements == "in-place":
        layout.single_group_placement = "in-place"
    return layout


# Each word is looked for once, from the first place the previous one occurs (atomic groups): the
# first occurrence leaves the most text for the rest, so nothing is lost, and the search is linear
# (three greedy `.*` backtracked in O(n^4) on `size count time ` repeated: 24 s on 3 KB; issue 20).
COLUMN_HEADER_RE = re.compile(
    r"^(?>.*?\b(size|bytes)\b)(?>.*?\bcount\b)(?>.*?\b(time|cputime)\b).*?\balgbw\b", re.IGNORECASE
)


@memoised
def is_column_header(line: str) -> bool:
    return "lgbw" in line.lower() and COLUMN_HEADER_RE.search(line) is not None


# ---- the lines around the table --------------------------------------------------------------


VERSION_RE = re.compile(r"nccl-tests version\s+(\S+)(?:.*?nccl-headers=(\d+))?(?:.*?nccl-library=(\d+))?")
# rccl-tests 2.17 prints the same codes as `rccl-headers=22803 rccl-library=22707` on its version line.
RCCL_LIBRARY_RE = re.compile(r"\brccl-library=(\d++)")
RCCL_HEADERS_RE = re.compile(r"\brccl-headers=(\d++)")


def code_version(code: str | None) -> str | None:
    """A library version code (NCCL_VERSION_CODE, which RCCL shares) as a version: 22105 -> 2.21.5."""
    if code and code.isdigit() and len(code) >= 4:
        value = int(code)
        return f"{value // 10000}.{value // 100 % 100}.{value % 100}"
    return None


@memoised
def read_version(line: str) -> tuple[str, str | None] | None:
    """`nccl-tests version X ... nccl-library=22105`: the tests version and the library as 2.21.5."""
    # Every reader first checks a substring (cheap, in C) so that most lines cost no regex at all.
    if "nccl-tests version" not in line:
        return None
    m = VERSION_RE.search(line)
    if not m:
        return None
    return m.group(1), code_version(m.group(3) or m.group(2))


def read_rccl_library(line: str) -> str | None:
    """The library of an rccl-tests version line (`rccl-library=22707`, else `rccl-headers=`) as 2.27.7."""
    if "ccl-" not in line:
        return None
    m = RCCL_LIBRARY_RE.search(line) or RCCL_HEADERS_RE.search(line)
    return code_version(m.group(1)) if m else None


STARTING_RE = re.compile(r"Collective test starting:\s*(\S+)")


# The collective as written on a `Collective test starting:` line.
read_test_starting = memoised(first_group_reader("Collective test starting", STARTING_RE))


CONCLUDED_RE = re.compile(r"Collective test concluded:\s*(\S+)")


def is_test_concluded(line: str) -> bool:
    return "concluded" in line and CONCLUDED_RE.search(line) is not None


NTHREAD_RE = re.compile(r"\bnThread\s+\d+|\bnGpus(?:\(perProc\))?\s+\d+\s+minBytes")
HEADER_FIELD_RE = re.compile(
    r"\b(nThread|nGpus(?:\(perProc\))?|minBytes|maxBytes|warmup iters:|iters:|agg iters:|validation:|graph:"
    r"|unalign:)\s*(\d+)"
)
STEP_RE = re.compile(r"step:\s*(\d+)\((factor|bytes)\)")


def read_header_fields(line: str) -> dict[str, Any] | None:
    """The `nThread 1 nGpus 1 minBytes ...` header as {nThread: 1, nGpus: 1, minBytes: ...}."""
    fields = _header_fields(line)
    return None if fields is None else dict(fields)


@memoised
def _header_fields(line: str) -> dict[str, Any] | None:
    if ("nThread" not in line and "nGpus" not in line) or not NTHREAD_RE.search(line):
        return None
    fields: dict[str, Any] = {}
    for key, value in HEADER_FIELD_RE.findall(line):
        name = key.rstrip(":").replace(" ", "_").replace("(perProc)", "")
        fields[name] = int(value)
    step = STEP_RE.search(line)
    if step:
        fields["step"] = int(step.group(1))
        fields["step_kind"] = step.group(2)
    return fields


# `rccl-tests: Version develop:<hash>`; newer builds `# rccl-tests version 2.x.y (<hash>) ...` or
# `rccl-tests: version: ...`.
RCCL_TESTS_RE = re.compile(r"rccl-tests:?\s*+[Vv]ersion\s*+:?\s*+([^\s(]++)")


read_rccl_tests_version = first_group_reader("rccl-tests", RCCL_TESTS_RE)


RANK_RE = re.compile(
    r"\bRank\s+(\d+)\s+(?:Group\s+(\d+)\s+)?(?:Pid\s+(\d+)\s+)?on\s+(\S+)\s+device\s+(\d+)\s+\[([^\]]*)\]\s*(.*)$"
)


def read_rank(line: str) -> tuple[int, tuple[str, int, str, str]] | None:
    """`Rank 3 Group 0 Pid 12 on host device 3 [0x..] NVIDIA H100`: rank -> (host, device, GPU name, bus
    id)."""
    if "Rank" not in line or "device" not in line:
        return None
    m = RANK_RE.search(line)
    if not m:
        return None
    rank, host, device, bus, name = m.group(1, 4, 5, 6, 7)
    return int(rank), (host, int(device), name.strip(), bus.strip())


RCCL_VERSION_RE = re.compile(r"RCCL version\s*:?\s*(\S+)")


read_rccl_version = first_group_reader("RCCL version", RCCL_VERSION_RE)


# `NCCL version 2.22.3+cuda12.2` (NCCL_DEBUG=INFO/VERSION); a patched nccl-tests prints the code,
# `NCCL version: 22602` (fixtures/real/nccl-tests/v100-sxm2-4gpu-g4-c0-patched-build-tid-line-...txt).
NCCL_VERSION_RE = re.compile(r"NCCL version:?\s+(\d+\.\d+\.\d+\S*|\d{5}\b)")


_read_nccl_version = first_group_reader("NCCL version", NCCL_VERSION_RE)


def read_nccl_version(line: str) -> str | None:
    """The library an `NCCL version` line names, a version code read as its version."""
    version = _read_nccl_version(line)
    return code_version(version) if version is not None and version.isdigit() else version


def is_rccl_marker(line: str) -> bool:
    return "Errors with asterisks" in line or "librccl" in line or "HIP version" in line


SEPARATOR_RE = re.compile(
    r"^\s*(?:={3,}|\*{3,}|-{3,}|~{3,})\s*([^=*~\-\s][^=*~]{0,200}?)\s*(?:={3,}|\*{3,}|-{3,}|~{3,})\s*$"
)


def read_separator(line: str) -> str | None:
    """The label of a `==== label ====` line ('' for a rule of symbols only); None for other lines."""
    if line.lstrip()[:1] not in ("=", "*", "-", "~"):
        return None
    m = SEPARATOR_RE.match(line)
    if not m:
        return None
    label = m.group(1)
    return label if re.search(r"[A-Za-z0-9]", label) else ""


# Words of a publisher's note that lines were left out (`------ some output truncated ------` between the
# Rank lines and the table of an AWS EFA guide's all_reduce): such a label marks a cut, not the next test.
ELISION_NOTE_RE = re.compile(
    r"\b(?:truncat|omit|snip|elid|skip|remov|trim|clip|cut\b)|\.\.\.|…", re.IGNORECASE
)


def is_elision_note(label: str) -> bool:
    """A separator label that says lines were left out here (`some output truncated`, `snip`, `...`)."""
    return ELISION_NOTE_RE.search(label) is not None


NODES_IN_TEXT_RE = re.compile(r"(?<!\d)(\d++)\s*+[-_]?\s*+nodes?\b", re.IGNORECASE)


def read_nodes_in_text(text: str) -> int | None:
    """`2 nodes`, `2-node`, `16_nodes` in a separator label."""
    m = NODES_IN_TEXT_RE.search(text)
    return int(m.group(1)) if m else None


CYCLE_RE = re.compile(r"Testing\s++(\d++)\s++cycles?\b")


def is_cycle_marker(line: str) -> bool:
    """`# Testing 5 cycles` between the repeats of `-N`."""
    return "Testing" in line and CYCLE_RE.search(line) is not None


OOB_RE = re.compile(r"Out of bounds values\s*:\s*(\d+)\s*(OK|FAILED)?")
AVG_RE = re.compile(r"Avg bus bandwidth\s*:\s*([0-9.eE+\-]+|nan|-nan|inf)\s*(OK|FAILED)?")
REDUCING_RE = re.compile(r"Reducing maxBytes to\s+(\d+)")


def read_run_fields(line: str) -> tuple[dict[str, Any], bool] | None:
    """Lines that state one fact about the run in progress (_run_fields); the dict is a copy."""
    found = _run_fields(line)
    return None if found is None else (dict(found[0]), found[1])


@memoised
def _run_fields(line: str) -> tuple[dict[str, Any], bool] | None:
    """Lines that state one fact about the run in progress, as the `Run` fields they set, and
    whether the line is part of the footer: `Out of bounds values`, `Avg bus bandwidth`,
    `Reducing maxBytes to N` (printed when GPU memory is short)."""
    if "Out of bounds" not in line and "Avg bus" not in line and "Reducing" not in line:
        return None
    out_of_bounds = OOB_RE.search(line)
    if out_of_bounds:
        return {"oob": int(out_of_bounds.group(1)), "oob_flag": out_of_bounds.group(2)}, True
    avg_busbw = AVG_RE.search(line)
    if avg_busbw:
        return {"avg": to_float(avg_busbw.group(1)), "avg_flag": avg_busbw.group(2)}, True
    reducing = REDUCING_RE.search(line)
    if reducing:
        return {"reduced_max_bytes": int(reducing.group(1))}, False
    return None


FAILURE_RE = re.compile(r"Test (?:(NCCL|CUDA|HIP|RCCL|MPI) )?failure\b\s*(.*)$")


def read_failure(line: str) -> str | None:
    """A `Test NCCL failure ...` line, trimmed for the report."""
    return line.strip()[:300] if "failure" in line and FAILURE_RE.search(line) else None


# ---- NCCL debug output and command lines -----------------------------------------------------


DEBUG_LINE_RE = re.compile(r"\b(?:NCCL|RCCL) (?:INFO|WARN|TRACE|ABORT)\b")


def is_debug_line(line: str) -> bool:
    """An `NCCL INFO` / `NCCL WARN` line of NCCL_DEBUG output."""
    return ("NCCL " in line or "RCCL " in line) and DEBUG_LINE_RE.search(line) is not None


# The value: a list (`Ring`, `^Tree,NVLS`) or, from NCCL 2.24, lists per collective (`"ring;allreduce:tree"`),
# quoted or not.
ALGO_ENV_RE = re.compile(r"NCCL_ALGO(?:\s+set by environment to\s+|\s*=\s*)[\"']?([A-Za-z,^:;_]+)")


def read_algorithm(line: str) -> str | None:
    """NCCL_ALGO from the environment echo or the command line, lower case."""
    if "NCCL_ALGO" not in line:
        return None
    m = ALGO_ENV_RE.search(line)
    return m.group(1).lower() if m else None


def algorithms_for(hint: str | None, collective: str | None) -> tuple[set[str], bool]:
    """NCCL_ALGO's algorithm names (lower case) for `collective` and whether the list excludes them
    (`^name,...`). NCCL 2.24+ also takes a list per collective, `ring,tree;allreduce:tree;broadcast:ring` (the
    list without a name applies to every collective not named): the collective's list when named, else the
    unnamed one, else none (no constraint)."""
    lists: dict[str | None, str] = {}
    for part in str(hint or "").strip().strip("\"'").lower().split(";"):
        function, sep, algorithms = part.partition(":")
        if sep:
            lists[function.strip().replace("_", "")] = algorithms.strip()
        elif part.strip():
            lists[None] = part.strip()
    chosen = lists.get(str(collective or "").replace("_", ""), lists.get(None, ""))
    return {name.strip() for name in chosen.lstrip("^").split(",") if name.strip()}, chosen.startswith("^")


def ring_forced(hint: str | None, collective: str | None) -> bool:
    """Whether NCCL_ALGO leaves `collective` only Ring: Ring alone, or a list excluding Tree, NVLS and
    NVLSTree (the tree-shaped algorithms)."""
    names, excluded = algorithms_for(hint, collective)
    if excluded:
        return {"tree", "nvls", "nvlstree"} <= names
    return names == {"ring"}


# Debug settings that route NCCL's traffic off NVLink/RDMA (through the host or the NICs): the NCCL INFO
# echo (`NCCL_P2P_DISABLE set by environment to 1`) or an assignment on a command/env line
# (`-x NCCL_SHM_DISABLE=1`).
TRANSPORT_ENV_RE = re.compile(
    r"\bNCCL_(P2P_DISABLE|SHM_DISABLE|IB_DISABLE|NET_GDR_LEVEL)(?:[ \t]{1,4}set by environment to[ \t]{1,4}"
    r"|[ \t]{0,4}=[ \t]{0,4})[\"']?([A-Za-z0-9]{1,8})"
)
# Each variable's path, in the order a run lists them; NCCL_NET_GDR_LEVEL=0 or LOC: no GPUDirect RDMA.
DISABLED_TRANSPORTS = {"P2P_DISABLE": "p2p", "SHM_DISABLE": "shm", "IB_DISABLE": "ib", "NET_GDR_LEVEL": "gdr"}


def read_disabled_transports(line: str) -> tuple[str, ...] | None:
    """The paths a line disables (`p2p`, `shm`, `ib`, `gdr`), in DISABLED_TRANSPORTS' order; None when it
    disables none (`NCCL_P2P_DISABLE=0` included). The last setting of a variable on the line counts."""
    if "_DISABLE" not in line and "GDR_LEVEL" not in line:
        return None
    values = {m.group(1): m.group(2).upper() for m in TRANSPORT_ENV_RE.finditer(line)}
    off = {name for name, value in values.items() if _turns_off(name, value)}
    return tuple(label for name, label in DISABLED_TRANSPORTS.items() if name in off) or None


def _turns_off(name: str, value: str) -> bool:
    return value in ("0", "LOC") if name == "NET_GDR_LEVEL" else value.isdigit() and int(value) != 0


NNODES_INFO_RE = re.compile(r"\bnRanks\s+(\d+)\s+nNodes\s+(\d+)")


def read_nodes_in_nccl_info(line: str) -> int | None:
    if "nNodes" not in line:
        return None
    m = NNODES_INFO_RE.search(line)
    return int(m.group(2)) if m else None


def is_nvls_line(line: str) -> bool:
    return "NVLS" in line and ("multicast support is available" in line or "NVLS comm" in line)


@memoised
def is_split_row_fragment(line: str) -> bool:
    """A row whose end wrapped onto the next line: starts with a number, is not a full row."""
    tokens = line.split()
    return len(tokens) >= 8 and to_int(tokens[-8].lstrip("-")) is None and to_float(tokens[0]) is not None


PERF_BINARY_RE = re.compile(r"\b(" + "|".join(KNOWN_COLLECTIVES) + r")_perf(?:_mpi)?\b")
RUNNING_TEST_RE = re.compile(r"\b(?:nccl|rccl)[ _-]?tests?\s+(" + "|".join(KNOWN_COLLECTIVES) + r")\b")
# A wrapper script's `-t <collective>` (`run_nccl_tests.sh -t all_gather -b 1K ...`): nccl-tests' own `-t` is
# a thread count, so a collective name after it is the wrapper's; read on lines naming nccl only.
TEST_ARG_RE = re.compile(r"(?:^|\s)-t\s++(" + "|".join(KNOWN_COLLECTIVES) + r")\b")
WORLD_SIZE_RE = re.compile(r"\bworld_size\s*[=:]\s*(\d+)")
GPUS_ARG_RE = re.compile(r"(?:^|\s)-g\s+(\d+)\b")
# The launcher's process count, read only before the test binary (after it, nccl-tests' own `-n` is the
# iteration count and `-N` the cycle count): mpirun/mpiexec `-np`/`--np`/`-n`, srun `-n`/`--ntasks` (never
# `-N`: srun's node count, Open MPI's processes per node).
NP_ARG_RE = re.compile(r"(?:^|\s)(?:--?np|-n|--ntasks)(?:\s+|=)(\d+)\b")


NAME_LINE_LEADS = ("running", "testing", "test", "collective", "benchmark", "op")


def read_collective_name_line(line: str) -> str | None:
    """A line that only names the collective, as wrapper scripts print before each test: `AllReduce`,
    `# all_gather`, `Running: reduce_scatter_perf`, `==> alltoall`. Never a table row or an NCCL table
    (`AllReduce | 1 2 1 | ...` has more than the name)."""
    tokens = line.strip().strip("#=-*~>:[]() \t").split()
    if not 1 <= len(tokens) <= 2:
        return None
    if len(tokens) == 2 and tokens[0].lower().rstrip(":") not in NAME_LINE_LEADS:
        return None
    return normalise_collective(tokens[-1].strip(":,."))


def read_command_hints(line: str) -> list[tuple[str, Any]]:
    """The hints of a command or wrapper line (_command_hints); the list is a copy."""
    return list(_command_hints(line))


@memoised
def _command_hints(line: str) -> list[tuple[str, Any]]:
    """Command lines and wrapper lines carry the collective name, -g and the launcher size."""
    named = read_collective_name_line(line) if len(line) < 120 else None
    if named is not None:
        return [("collective", named), ("collective_source", "name-line")]
    disabled = read_disabled_transports(line) if "NCCL_" in line else None
    hints: list[tuple[str, Any]] = [("disabled_transports", disabled)] if disabled else []
    if "_perf" not in line and "test" not in line and "world_size" not in line and "NCCL_ALGO" not in line:
        return hints
    m = (
        PERF_BINARY_RE.search(line)
        or RUNNING_TEST_RE.search(line)
        or (TEST_ARG_RE.search(line) if "nccl" in line.lower() else None)
    )
    if m:
        name = normalise_collective(m.group(1))
        if name:
            hints += [("collective", name), ("collective_source", "command-line")]
        gpus = GPUS_ARG_RE.search(line, m.start())
        if gpus:
            hints.append(("gpus_arg", int(gpus.group(1))))
        launcher = line[: m.start()]
        processes = NP_ARG_RE.search(launcher)
        if processes and ("mpirun" in launcher or "srun" in launcher or "mpiexec" in launcher):
            hints.append(("np_arg", int(processes.group(1))))
    world_size = WORLD_SIZE_RE.search(line)
    if world_size:
        hints.append(("world_size_hint", int(world_size.group(1))))
    algorithm = read_algorithm(line)
    if algorithm is not None:
        hints.append(("algorithm", algorithm))
    return hints


# ---- other tools printing the same table -----------------------------------------------------

# MSCCL++'s test prints these two lines before its table (microsoft/mscclpp test/mscclpp-test/common.cc,
# main and BaseTestEngine::runTest); its busbw factors are nccl-tests' (2(n-1)/n for allreduce, (n-1)/n for
# allgather and alltoall, 1 for sendrecv: the getBw of each *_test.cu).
MSCCLPP_MARKER_RE = re.compile(r"^\s*+#\s*+(?:Initializing|Setting up the connection in) MSCCL\+\+\s*+$")
MSCCLPP_TEST = "mscclpp-test"


def is_mscclpp_marker(line: str) -> bool:
    return "MSCCL++" in line and MSCCLPP_MARKER_RE.match(line) is not None


@memoised
def looks_like_row(line: str) -> bool:
    """A line that starts (after launcher tokens) with two integers and holds two more numbers: a table row
    of some layout, whether or not the header above it lets parse_row read it."""
    tokens = line.split()
    if len(tokens) < 4 or len(tokens) > 40:
        return False
    lead = _drop_launcher_tokens(tokens)
    if len(lead) < 4 or to_int(lead[0]) is None or to_int(lead[1]) is None:
        return False
    return sum(to_float(token) is not None for token in lead[2:]) >= 2


# What nccl-tests' own lines look like once a wrapper or the log's author rewrote them (nothing of them is
# read): a column header without the count column (`#  size  time  algbw  busbw`), a row of a size and
# figures (`1048576  11.32  92.67  92.67`), a Rank line without its bus id.
RANK_LIKE_START_RE = re.compile(r"\bRank\s++\d++\s")


@memoised
def is_foreign_header(line: str) -> bool:
    """A `size ... algbw busbw` header that is_column_header does not take (no count column)."""
    if "lgbw" not in line.lower():
        return False
    words = {word.lstrip("#").lower() for word in line.split()}
    return {"size", "algbw", "busbw"} <= words and not is_column_header(line)


def looks_like_bare_row(line: str) -> bool:
    """A size (an integer) then at least two more numbers and nothing else: a row of a reformatted table."""
    tokens = line.split()
    if not 3 <= len(tokens) <= 40 or not tokens[0][:1].isdigit() or to_int(tokens[0]) is None:
        return False
    return all(to_float(token) is not None for token in tokens[1:])


def looks_like_nccl_tests_line(line: str) -> bool:
    """A Rank line, a column header or a row, in nccl-tests' format or not."""
    start = RANK_LIKE_START_RE.search(line) if "Rank" in line else None
    if start is not None and _on_host_device(line[start.end() :].split()):
        return True
    return (
        is_foreign_header(line) or is_column_header(line) or looks_like_row(line) or looks_like_bare_row(line)
    )


def _on_host_device(words: list[str]) -> bool:
    """`... on <host> device <N>` from the first `on` (after the first `Rank N`: once, linear)."""
    at = words.index("on") if "on" in words else -1
    return 0 <= at < len(words) - 3 and words[at + 2] == "device" and words[at + 3][:1].isdigit()
