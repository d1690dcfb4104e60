"""Stage 2 of the nccl-tests parser: grouping lines into runs (one per test / table) in one pass.

A log may hold several tests one after the other, each printed in the same order (version, header,
Rank lines, column header, rows, footer). A line of an earlier stage than the run in progress has
reached means the next test has begun.
"""

from __future__ import annotations

import functools
import itertools
import re
from bisect import bisect_left
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from .blocks import (
    Ranks,
    join_block,
    lines_to_feed,
    ranks_readable,
    read_ranks,
    read_rows,
    scan_block,
)
from .reading import (
    CONCLUDED_RE,
    DEBUG_LINE_RE,
    DISABLED_TRANSPORTS,
    MSCCLPP_TEST,
    Layout,
    Row,
    is_column_header,
    is_cycle_marker,
    is_elision_note,
    is_foreign_header,
    is_mscclpp_marker,
    is_nvls_line,
    is_rccl_marker,
    is_split_row_fragment,
    is_test_concluded,
    looks_like_bare_row,
    looks_like_nccl_tests_line,
    looks_like_row,
    normalise_collective,
    parse_column_header,
    parse_row,
    read_algorithm,
    read_command_hints,
    read_disabled_transports,
    read_failure,
    read_header_fields,
    read_nccl_version,
    read_nodes_in_nccl_info,
    read_nodes_in_text,
    read_rank,
    read_rccl_library,
    read_rccl_tests_version,
    read_rccl_version,
    read_run_fields,
    read_separator,
    read_test_starting,
    read_version,
)

# Stages of one test, in print order; seeing an earlier stage again means the next test has begun.
ST_VERSION, ST_STARTING, ST_NTHREAD, ST_RANKS, ST_HEADER, ST_ROWS, ST_FOOTER = range(7)

RCCL_TESTS = "rccl-tests"


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
    ranks: dict[int, tuple[str, int, str, str]] = field(default_factory=dict)  # host, device, name, bus
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
    # The paths NCCL_P2P_DISABLE, NCCL_SHM_DISABLE, NCCL_IB_DISABLE or NCCL_NET_GDR_LEVEL turned off
    # (reading.read_disabled_transports), gathered from every hint line: a debug setting, not the cluster.
    disabled_transports: tuple[str, ...] | None = None
    nvls_seen: bool = False
    skipped_fragments: list[int] = field(default_factory=list)
    # Lines after the column header that look like rows but do not fit its columns: (how many, the first).
    unread_rows: int = 0
    unread_row_line: int | None = None
    # A wrapper's reformatted header (reading.is_foreign_header) after the rank list: its rows are unread.
    foreign_header: bool = False
    debug_warns: list[str] = field(default_factory=list)
    # Rank lines or rows taken but not stored: a run past the runs kept (MAX_RUNS), never shown.
    unread_content: bool = False
    # The last rank table (blocks.read_ranks, shared by the runs of a job's tests) put into `ranks`: the
    # summary reads its hosts and GPUs once per table when `ranks` is that table (summary._rank_facts).
    rank_table: Ranks | None = None
    # Rank lines read (several may name one rank: processes of a build without MPI all print `Rank 0`).
    rank_lines: int = 0
    # (line, label) of a publisher's note inside the run (`---- some output truncated ----`), not a boundary.
    notes: list[tuple[int, str]] = field(default_factory=list)
    # Labels of the separator lines of a run that has nothing else yet (RunAssembler.interrupted_run).
    separator_labels: list[tuple[int, str]] = field(default_factory=list)
    # (first line, last line, first label) of another tool's output pasted inside the table (`=== ROCm
    # System Management Interface ===` ... `=== End of ROCm SMI Log ===`), read across (RunAssembler.resume).
    interruptions: list[tuple[int, int, str]] = field(default_factory=list)

    def touch(self, line_no: int, stage: int | None = None) -> None:
        if line_no > self.last_line:
            self.last_line = line_no
        if stage is not None and stage > self.stage:
            self.stage = stage

    @property
    def has_content(self) -> bool:
        return bool(
            self.rows or self.ranks or self.header or self.failures or self.layout or self.avg is not None
            or self.unread_content
        )  # fmt: skip


LineHandler = Callable[[int, str], bool]
# Runs and rows kept per file (RunAssembler.full): a real log holds a few dozen runs (collectives x node
# counts x cycles) of ~30 rows; a log concatenated with itself, or rows with no header between them (`-N`
# cycles, a sweep repeated: one run), would otherwise hold every row in memory. 20,000 rows: ~18 MB.
MAX_RUNS = 500
MAX_ROWS = 20_000
# Substrings that a line taken by a reader other than a row must contain (each reader checks its own
# substring first, reading.py), in two groups. EARLY: NCCL debug lines and the readers tried before the
# Rank line's; a line with none of them can only be a Rank line, one of LATE's readers, a row or a hint.
# The regexes define the groups; `feed` runs the same tests as substring tests (has_early_trigger,
# has_late_trigger; test_nccl_blocks.py checks that they agree).
EARLY_TRIGGERS_RE = re.compile(
    r"NCCL |RCCL |nccl-tests version|Collective test starting|concluded|nThread|nGpus|rccl-tests"
)


def has_early_trigger(line: str) -> bool:
    """EARLY_TRIGGERS_RE.search(line) is not None, by substring tests (3-5x faster: no regex)."""
    return (
        "NCCL " in line or "RCCL " in line or "nccl-tests version" in line
        or "Collective test starting" in line or "concluded" in line or "nThread" in line
        or "nGpus" in line or "rccl-tests" in line
    )  # fmt: skip


def usual_layout(layout: Layout | None) -> bool:
    """No layout yet, or two groups of four columns after a type: rows read as they would be without one."""
    return layout is None or ((layout.groups, layout.width) == (2, 4) and layout.has_type)


LATE_TRIGGERS_RE = re.compile(
    "|".join(
        (
            "Rank", "Errors with asterisks", "librccl", "HIP version", "Testing", "Out of bounds", "Avg bus",
            "Reducing", "failure", r"MSCCL\+\+",
            # `lgbw` in any case, as the column header reader looks for it.
            *("".join(letters) for letters in itertools.product("lL", "gG", "bB", "wW")),
        )
    )
)  # fmt: skip
# `lgbw` in ASCII letters of any case (not every letter whose lower case is one of these).
LGBW_RE = re.compile("|".join("".join(letters) for letters in itertools.product("lL", "gG", "bB", "wW")))


def has_late_trigger(line: str) -> bool:
    """LATE_TRIGGERS_RE.search(line) is not None, by substring tests: the regex tries its 25 words at
    every character (10-15 us on a 100-character header line). Any `lgbw` of LGBW_RE lower-cases to
    `lgbw`, so `lower()` is only a first test, confirmed by LGBW_RE."""
    return (
        "Rank" in line or "Errors with asterisks" in line or "librccl" in line or "HIP version" in line
        or "Testing" in line or "Out of bounds" in line or "Avg bus" in line or "Reducing" in line
        or "failure" in line or "MSCCL++" in line
        or ("lgbw" in line.lower() and LGBW_RE.search(line) is not None)
    )  # fmt: skip


SEPARATOR_STARTS = frozenset("=*-~")

# Whether each reader of RunAssembler.test_description_handlers, in the same order, takes a line: each
# handler takes a line when its reader finds something in it, whatever the state (feed_routed relies on it).
DESCRIPTION_READERS: tuple[Callable[[str], object], ...] = (
    read_version, read_test_starting, is_test_concluded, read_header_fields, read_rccl_tests_version,
    read_rank, read_rccl_version, read_nccl_version, is_rccl_marker, read_separator, is_column_header,
    is_mscclpp_marker,
)  # fmt: skip
RANK_READER, RCCL_MARKER_READER, COLUMN_HEADER_READER, MSCCLPP_MARKER_READER = 5, 8, 10, 11
# What `feed` does with a line that no description handler takes (route_line; a handler's index otherwise):
# nothing (blank), the debug reader, only remember it as the line before (no table reader, no hint can take
# it, whatever the state), the fast path (a row, else hints), the table's readers.
BLANK, DEBUG, QUIET, FAST, TABLE = -1, -2, -3, -4, -5


# Every (groups, width) a Layout can have (parse_column_header: 1 or 2 groups of 3 to 12 columns); whether
# parse_row reads a line depends on nothing else of the layout but whether it has a type column (a row
# without a type reads its blocks as four columns or three).
LAYOUT_SHAPES = (
    *(Layout(groups=groups, width=width) for groups in (1, 2) for width in range(3, 13)),
    *(Layout(groups=groups, has_type=False) for groups in (1, 2)),
)


def never_a_row(line: str) -> bool:
    """parse_row reads no row from the line, whatever the layout (or none): the column lines of a table
    (`#  (B)  (elements)  (us)  (GB/s) ...`) need no row_line call in each test."""
    if len(line.split()) < 5:  # parse_row's own first test (a row without a type: 5 tokens)
        return True
    return parse_row(line, 0, None) is None and all(
        parse_row(line, 0, shape) is None for shape in LAYOUT_SHAPES
    )


def _takes(reader: Callable[[str], object], line: str) -> bool:
    found = reader(line)
    return found is not None and found is not False


def _route_line(line: str) -> int:
    """Where `feed` sends a line, found with the same tests in the same order: the index of the
    description handler that takes it, or BLANK, DEBUG, QUIET, FAST or TABLE. Depends on the line alone,
    so it is remembered (route_line): a log repeats the lines around its tables in every test."""
    stripped = line.lstrip()
    if not stripped:
        return BLANK
    if ("NCCL " in line or "RCCL " in line) and DEBUG_LINE_RE.search(line) is not None:
        return DEBUG
    if stripped[0] in SEPARATOR_STARTS or has_early_trigger(line):
        return next((i for i, read in enumerate(DESCRIPTION_READERS) if _takes(read, line)), TABLE)
    if "Rank" in line and _takes(read_rank, line):
        return RANK_READER
    if not has_late_trigger(line):
        quiet = (
            never_a_row(line)
            and not looks_like_row(line)
            and not looks_like_bare_row(line)
            and not is_split_row_fragment(line)
            and not read_command_hints(line)
        )
        return QUIET if quiet else FAST
    for i in (RCCL_MARKER_READER, COLUMN_HEADER_READER, MSCCLPP_MARKER_READER):
        if _takes(DESCRIPTION_READERS[i], line):
            return i
    return TABLE


# Remembered whatever the line's length (route_line is called on walked lines only, a few per test): the
# lru_cache is called directly, without a Python wrapper.
route_line = functools.lru_cache(maxsize=256)(_route_line)


# Launcher sizes: of several command lines before a table (a failed launch, then the one that ran), the last.
LATEST_HINTS = frozenset({"np_arg", "gpus_arg"})


def _merged_hint(old: Any, value: Any, key: str = "") -> Any:
    """The first value of a hint wins, but the disabled transports of several lines add up and the launcher
    sizes are the latest command's."""
    if isinstance(old, tuple) and isinstance(value, tuple):
        return tuple(label for label in DISABLED_TRANSPORTS.values() if label in old or label in value)
    if key in LATEST_HINTS:
        return value
    return value if old is None else old


def _names_a_test(label: str) -> bool:
    """A separator label that names a node count or a collective (`==== 2 nodes all_gather ====`)."""
    return read_nodes_in_text(label) is not None or any(
        normalise_collective(word) is not None for word in re.findall(r"[A-Za-z_]+", label)
    )


def _is_note_of(run: Run, label: str, nodes: int | None) -> bool:
    """Whether a separator labelled `label` is a note inside `run` rather than the start of the next test:
    the run is in progress (begun, no footer, no failure) and the label says lines were cut there, or names
    no node count while the run has no row yet."""
    if not run.has_content or run.stage >= ST_FOOTER or run.concluded or run.failures:
        return False
    return is_elision_note(label) or (nodes is None and not run.rows)


class RunAssembler:
    """Splits a log into runs (one per test / table) while walking it once."""

    def __init__(self) -> None:
        self.runs: list[Run] = []
        self.dropped_runs = 0
        self.kept_rows = self.dropped_rows = 0  # rows held in runs, rows read past MAX_ROWS and not held
        self.current: Run | None = None
        self.pending: dict[str, Any] = {}
        self.tool: str | None = None
        self.file_nccl_version: str | None = None
        # The first line like a Rank line, column header or row, read or not (summarise_log's reason if none)
        self.lookalike_line: int | None = None
        self.previous_line = ""
        # Tried in this order; the first handler that takes a line ends its walk.
        self.test_description_handlers: tuple[LineHandler, ...] = (
            self.version_line, self.starting_line, self.concluded_line, self.header_line,
            self.rccl_tests_line, self.rank_line, self.rccl_version_line, self.nccl_version_line,
            self.rccl_marker_line, self.separator_line, self.column_header_line, self.mscclpp_marker_line,
        )  # fmt: skip
        # The same walk for a line without EARLY_TRIGGERS_RE and not a separator, after its Rank reader.
        self.late_description_handlers: tuple[LineHandler, ...] = (
            self.rccl_marker_line,
            self.column_header_line,
            self.mscclpp_marker_line,
        )
        self.table_handlers: tuple[LineHandler, ...] = (
            self.cycle_line, self.run_fields_line, self.failure_line, self.row_line,
        )  # fmt: skip

    def new_run(self, line_no: int) -> Run:
        run = Run(first_line=line_no, last_line=line_no)
        for key, value in self.pending.items():
            setattr(run, key, value)
        self.pending = {}
        if not self.full:
            self.runs.append(run)
        else:  # read (its lines are consumed) but not kept: memory stays bounded
            self.dropped_runs += 1
        self.current = run
        return run

    @property
    def full(self) -> bool:  # no further run is kept (MAX_RUNS runs or MAX_ROWS rows held)
        return len(self.runs) >= MAX_RUNS or self.kept_rows >= MAX_ROWS

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

    def enter_stage(self, line_no: int, stage: int) -> Run:
        """The run a line of `stage` belongs to, moved on to that stage."""
        run = self.run_for(line_no, stage)
        run.touch(line_no, stage)
        return run

    def current_or_new_run(self, line_no: int) -> Run:
        """Footers and failures belong to the run in progress; alone they open one."""
        return self.current or self.new_run(line_no)

    def hint(self, key: str, value: Any, line_no: int) -> None:
        """A hint from a command or wrapper line: it describes the run in progress if that has no
        rows yet, otherwise the next one."""
        run = self.current
        if run is not None and not run.rows and run.stage < ST_FOOTER:
            setattr(run, key, _merged_hint(getattr(run, key), value, key))
        else:
            self.pending[key] = _merged_hint(self.pending.get(key), value, key)

    def feed(self, line_no: int, line: str) -> None:
        """Attach one line of the log to the run it belongs to (or to the file as a whole)."""
        stripped = line.lstrip()
        if not stripped:
            return
        # NCCL_DEBUG output first (the readers' walk would start with it too): most lines of a debug log.
        if ("NCCL " in line or "RCCL " in line) and DEBUG_LINE_RE.search(line) is not None:
            self.debug_line(line_no, line)
            return
        if stripped[0] in SEPARATOR_STARTS or has_early_trigger(line):
            self.feed_any(line_no, line)
            return
        # Not a debug line, and no reader before the Rank line's can take it: the same walk from there.
        if "Rank" in line and self.rank_line(line_no, line):
            return
        if not has_late_trigger(line):
            # Fast path (most lines of a big log): no reader but the row and the hints can take it.
            self.previous_line = line
            if not self.row_line(line_no, line):
                self.other_line(line_no, line)
            return
        for handle in self.late_description_handlers:
            if handle(line_no, line):
                return
        self.feed_table(line_no, line)

    def feed_routed(self, line_no: int, line: str) -> None:
        """`feed`, the line sent where route_line says (remembered for a line seen before): the lines
        around the tables are the same in every test, and their walk costs 5-10 us each."""
        route = route_line(line)
        if route >= 0:
            self.test_description_handlers[route](line_no, line)  # it takes the line
        elif route == QUIET:
            self.previous_line = line
        elif route == FAST:
            self.previous_line = line
            if not self.row_line(line_no, line):
                self.other_line(line_no, line)
        elif route == TABLE:
            self.feed_table(line_no, line)
        elif route == DEBUG:
            self.debug_line(line_no, line)

    def feed_block(self, first_line_no: int, lines: list[str]) -> None:
        """`feed` of lines first_line_no, first_line_no + 1, ...: the runs of Rank lines, the rows of the
        usual shape and the `#` lines found in one pass over the block (blocks.py) and taken as `feed`
        would take them, the debug lines `feed` would read for nothing skipped, the others fed one at
        a time (a Rank run that does not read the usual way among them)."""
        block = join_block(lines)
        if block is None:
            self.feed_lines(first_line_no, lines, range(len(lines)))
            return
        fed = lines_to_feed(block, lines)
        if isinstance(fed, range):  # no debug line skipped: fed[i] is i
            self.feed_found(first_line_no, lines, block)
            return
        at = 0  # fed[at:] are still to come
        for index, count, text, rows in scan_block(block):
            end = bisect_left(fed, index, at)
            self.feed_lines(first_line_no, lines, fed[at:end])
            at = end
            if self.take_found(first_line_no, lines, index, count, text, rows):
                at = bisect_left(fed, index + count, end)
            # else its lines are walked, with those before the next line found
        self.feed_lines(first_line_no, lines, fed[at:])

    def feed_found(self, first_line_no: int, lines: list[str], block: str) -> None:
        """feed_block when every line is to be fed (no debug line read for nothing)."""
        at = 0  # lines[at:] are still to come
        for index, count, text, rows in scan_block(block):
            self.feed_lines(first_line_no, lines, range(at, index))
            at = index + count if self.take_found(first_line_no, lines, index, count, text, rows) else index
        self.feed_lines(first_line_no, lines, range(at, len(lines)))

    def take_found(
        self, first_line_no: int, lines: list[str], index: int, count: int, text: str, rows: bool
    ) -> bool:
        """Lines index..index + count - 1, found by scan_block, taken as `feed` would take them; False
        (nothing done: the caller walks them) for a run of Rank lines that does not read the usual way or
        rows under a layout other than the usual one."""
        line_no = first_line_no + index
        if not rows:
            return self.take_ranks(line_no, line_no + count - 1, text)
        layout_run = self.interrupted_run() or self.current
        if layout_run is not None and not usual_layout(layout_run.layout):
            return False  # another layout reads the rows otherwise
        self.previous_line = lines[index + count - 1]
        self.add_scanned_rows(line_no, count, text)
        return True

    def feed_lines(self, first_line_no: int, lines: list[str], indices: Iterable[int]) -> None:
        feed = self.feed_routed
        for index in indices:
            feed(first_line_no + index, lines[index])

    def take_ranks(self, first: int, last: int, run_text: str) -> bool:
        """rank_line of lines first..last (run_text, each after a `\n`) in one step, when every one of
        them reads the usual way; False (nothing done) otherwise. A run past the runs kept (MAX_RUNS) is
        only checked: its fields are never shown."""
        run = self.current
        opens = run is None or run.stage > ST_RANKS
        ranks: Ranks | None = None
        if self.dropped_runs or (opens and self.full):
            if not ranks_readable(run_text):
                return False
        else:
            ranks = read_ranks(run_text, last - first + 1)
            if ranks is None:
                return False
        if opens:
            run = self.new_run(first)
        assert run is not None
        run.touch(last, ST_RANKS)
        run.rank_lines += last - first + 1
        if ranks is None:
            run.unread_content = True
        else:
            run.ranks.update(ranks)
            run.rank_table = ranks
        return True

    def feed_any(self, line_no: int, line: str) -> None:
        """Every reader in turn (after the debug line's, tried first by `feed`), the first that takes the
        line ends the walk."""
        for handle in self.test_description_handlers:
            if handle(line_no, line):
                return
        self.feed_table(line_no, line)

    def feed_table(self, line_no: int, line: str) -> None:
        """A line no reader of the test's description took: the table's readers, then the hints."""
        # The column header reads `in-place` from the line before it; lines taken above do not count.
        self.previous_line = line
        for handle in self.table_handlers:
            if handle(line_no, line):
                return
        self.other_line(line_no, line)

    # ---- before the table: what the test is ------------------------------------------------------

    def version_line(self, line_no: int, line: str) -> bool:
        version = read_version(line)
        if version is not None:
            run = self.enter_stage(line_no, ST_VERSION)
            run.tests_version, library_version = version
            run.nccl_version = library_version or run.nccl_version
        return version is not None

    def starting_line(self, line_no: int, line: str) -> bool:
        written = read_test_starting(line)
        if written is not None:
            run = self.enter_stage(line_no, ST_STARTING)
            name = normalise_collective(written)
            if name:
                run.collective, run.collective_source = name, "starting-line"
        return written is not None

    def concluded_line(self, line_no: int, line: str) -> bool:
        concluded = is_test_concluded(line)
        if concluded and self.current is not None:
            run = self.current
            run.concluded = True
            run.touch(line_no, ST_FOOTER)
            # `# Collective test concluded: broadcast_perf` names the test when nothing before it did.
            m = CONCLUDED_RE.search(line) if run.collective is None else None
            name = normalise_collective(m.group(1)) if m else None
            if name:
                run.collective, run.collective_source = name, "concluded-line"
        return concluded

    def header_line(self, line_no: int, line: str) -> bool:
        fields = read_header_fields(line)
        if fields is not None:
            self.enter_stage(line_no, ST_NTHREAD).header.update(fields)
        return fields is not None

    def rccl_tests_line(self, line_no: int, line: str) -> bool:
        tests_version = read_rccl_tests_version(line)
        if tests_version is None:
            return False
        self.tool = RCCL_TESTS
        # Once a test has begun this line sits with its Rank lines; before that it is the test's first line.
        run = self.run_for(line_no, ST_RANKS if self.current and self.current.stage >= 0 else ST_VERSION)
        run.tool = RCCL_TESTS
        run.tests_version = run.tests_version or tests_version
        run.nccl_version = read_rccl_library(line) or run.nccl_version
        run.touch(line_no)
        return True

    def rank_line(self, line_no: int, line: str) -> bool:
        rank = read_rank(line)
        if rank is None:
            return False
        # enter_stage(line_no, ST_RANKS), inlined: most lines of a log of many GPUs are Rank lines.
        run = self.current
        if run is None or run.stage > ST_RANKS:
            run = self.new_run(line_no)
        run.touch(line_no, ST_RANKS)
        run.ranks[rank[0]] = rank[1]
        run.rank_lines += 1
        return True

    def rccl_version_line(self, line_no: int, line: str) -> bool:
        version = read_rccl_version(line)
        if version is not None:
            self.mark_rccl()
            if self.current is not None:
                self.current.nccl_version = self.current.nccl_version or version
        return version is not None

    def nccl_version_line(self, line_no: int, line: str) -> bool:
        version = read_nccl_version(line)
        if version is not None:
            self.note_library_version(version)
        return version is not None

    def rccl_marker_line(self, line_no: int, line: str) -> bool:
        marker = is_rccl_marker(line)
        if marker:
            self.mark_rccl()
        return marker

    def separator_line(self, line_no: int, line: str) -> bool:
        """`==== 2 nodes all_reduce ====` written by wrapper scripts between tests; inside a run, a label
        that says lines were cut, or one that names no node count before the table, is a note of that run
        (a test does not end before its table, and a wrapper's label before the next test names it)."""
        label = read_separator(line)
        if not label:  # not a separator, or a rule of symbols only
            return label is not None
        target = self.current
        nodes = read_nodes_in_text(label)
        if target is not None and _is_note_of(target, label, nodes):
            target.notes.append((line_no, label))
            target.touch(line_no)
            return True
        if target is None or target.has_content:
            target = self.new_run(line_no)
        if nodes is not None:
            target.nodes_hint, target.nodes_source = nodes, "separator"
        target.separator_labels.append((line_no, label))
        target.touch(line_no)
        return True

    def interrupted_run(self) -> Run | None:
        """The run whose table another tool's output interrupted (rocm-smi pasted after a row opens with a
        `=== ROCm System Management Interface ===` banner): the current run holds only separator lines
        that name no test, and the run before it is in its rows (no footer, failure or conclusion)."""
        run = self.current
        if run is None or run.stage >= 0 or not run.separator_labels:  # on every row: the usual case first
            return None
        if len(self.runs) < 2 or self.runs[-1] is not run or run.has_content:
            return None
        if any(_names_a_test(label) for _, label in run.separator_labels):
            return None
        hints = (run.collective, run.nodes_hint, run.algorithm, run.world_size_hint, run.gpus_arg, run.np_arg)
        if any(
            hint is not None
            for hint in (*hints, run.disabled_transports, run.tests_version, run.nccl_version)
        ):
            return None
        before = self.runs[-2]
        if before.stage != ST_ROWS or not before.rows or before.concluded or before.failures:
            return None
        return before

    def resume(self, size: int) -> None:
        """A row of `size` after another tool's output continues the interrupted run when it continues
        that run's sizes; a row that starts the sizes again starts the test the separators announced."""
        before = self.interrupted_run()
        if before is None or size <= before.rows[-1].size:
            return
        run = self.runs.pop()
        before.interruptions.append((run.first_line, run.last_line, run.separator_labels[0][1]))
        before.touch(run.last_line)
        self.current = before

    def column_header_line(self, line_no: int, line: str) -> bool:
        found = is_column_header(line)
        if found:
            self.enter_stage(line_no, ST_HEADER).layout = parse_column_header(line, self.previous_line)
        return found

    def mscclpp_marker_line(self, line_no: int, line: str) -> bool:
        """`# Initializing MSCCL++`: the table that follows is MSCCL++'s test, not nccl-tests."""
        marker = is_mscclpp_marker(line)
        if marker:
            self.hint("tool", MSCCLPP_TEST, line_no)
        return marker

    # ---- the table and its footer ----------------------------------------------------------------

    def cycle_line(self, line_no: int, line: str) -> bool:
        if not is_cycle_marker(line) or self.current is None:
            return False
        if self.current.rows:
            self.current.cycles += 1
        self.current.touch(line_no)
        return True

    def run_fields_line(self, line_no: int, line: str) -> bool:
        found = read_run_fields(line)
        if found is None:
            return False
        fields, in_footer = found
        run = self.current_or_new_run(line_no)
        for name, value in fields.items():
            setattr(run, name, value)
        run.touch(line_no, ST_FOOTER if in_footer else None)
        return True

    def failure_line(self, line_no: int, line: str) -> bool:
        failure = read_failure(line)
        if failure is None:
            return False
        run = self.current_or_new_run(line_no)
        if len(run.failures) < 20:
            run.failures.append(failure)
        if run.failure_line is None:
            run.failure_line = line_no
        run.touch(line_no)
        return True

    def row_line(self, line_no: int, line: str) -> bool:
        interrupted = self.interrupted_run()
        layout_run = interrupted or self.current
        row = parse_row(line, line_no, layout_run.layout if layout_run else None)
        if row is None:
            return False
        if interrupted is not None:
            self.resume(row.size)
        self.keep_row(self.enter_stage(line_no, ST_ROWS), row)
        return True

    def keep_row(self, run: Run, row: Row) -> None:
        """Hold a row in its run (its `-N` cycle counted), or count it read and not held past MAX_ROWS."""
        if self.kept_rows >= MAX_ROWS:
            self.dropped_rows += 1
            return
        if run.rows and row.size < run.rows[-1].size:
            run.cycles += 1  # `-N` repeats the sweep with no separator
        row.cycle = run.cycles
        run.rows.append(row)
        self.kept_rows += 1

    def add_scanned_rows(self, line_no: int, count: int, rows_text: str) -> None:
        """keep_row of each row of a run scan_block found (lines line_no.. line_no + count - 1), built for
        a run kept while rows are held. Only the first can open a run: the rest find it at ST_ROWS."""
        if self.interrupted_run() is not None:  # rare: the rows are read twice (there is one at least)
            self.resume(read_rows(line_no, rows_text)[0].size)
        run = self.enter_stage(line_no, ST_ROWS)
        run.touch(line_no + count - 1)
        if self.dropped_runs:  # `run` is past the runs kept: never shown
            run.unread_content = True
        elif self.kept_rows >= MAX_ROWS:  # counted as keep_row counts them, never built
            self.dropped_rows += count
        else:
            for row in read_rows(line_no, rows_text):
                self.keep_row(run, row)

    # ---- lines that only give hints --------------------------------------------------------------

    def debug_line(self, line_no: int, line: str) -> None:
        """NCCL_DEBUG output: the library version, NCCL_ALGO, the node count, NVLS, warnings."""
        # Each reader is called only when its own first check would pass (most debug lines have none).
        version = read_nccl_version(line) if "NCCL version" in line else None
        if version is not None:
            self.note_library_version(version)
        algorithm = read_algorithm(line) if "NCCL_ALGO" in line else None
        if algorithm is not None:
            self.hint("algorithm", algorithm, line_no)
        disabled = read_disabled_transports(line) if "NCCL_" in line else None
        if disabled is not None:
            self.hint("disabled_transports", disabled, line_no)
        nodes = read_nodes_in_nccl_info(line) if "nNodes" in line else None
        if nodes is not None:
            self.hint("nodes_hint", nodes, line_no)
            if self.current is not None and self.current.nodes_source is None:
                self.current.nodes_source = "nccl-info"
        if "NVLS" in line and is_nvls_line(line) and self.current is not None:
            self.current.nvls_seen = True
        if " WARN " in line and self.current is not None and len(self.current.debug_warns) < 5:
            self.current.debug_warns.append(f"line {line_no}: {line.strip()[:200]}")

    def other_line(self, line_no: int, line: str) -> None:
        """Split row fragments are counted; command and wrapper lines give hints."""
        run = self.current
        if self.lookalike_line is None and not (run and (run.rows or run.ranks or run.layout)):
            self.lookalike_line = line_no if looks_like_nccl_tests_line(line) else None
        # a row pasted as a markdown table (`1024 | 512 | half | ...`) is a table line not read, not a
        # fragment of a row a killed job cut short
        piped = " | " in line
        if is_split_row_fragment(line) and run is not None and run.stage >= ST_HEADER and not piped:
            run.skipped_fragments.append(line_no)
        elif (
            run is not None
            and ST_HEADER <= run.stage < ST_FOOTER
            and (
                looks_like_row(line)
                or (run.foreign_header and looks_like_bare_row(line))
                or (piped and is_split_row_fragment(line))
            )
        ):
            run.unread_rows += 1
            run.unread_row_line = run.unread_row_line or line_no
        elif run is not None and run.stage < ST_HEADER and not run.rows and is_foreign_header(line):
            run.foreign_header = True  # `size time algbw busbw` after the rank list: a wrapper's table
            run.touch(line_no, ST_HEADER)
        for key, value in read_command_hints(line):
            self.hint(key, value, line_no)

    def mark_rccl(self) -> None:
        self.tool = RCCL_TESTS
        if self.current is not None:
            self.current.tool = RCCL_TESTS

    def note_library_version(self, version: str) -> None:
        """The first `NCCL version` line names the file's library; a run keeps the first it sees."""
        self.file_nccl_version = self.file_nccl_version or version
        if self.current is not None and self.current.nccl_version is None:
            self.current.nccl_version = version
