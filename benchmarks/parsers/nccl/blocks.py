"""The hot line kinds of a block of lines found in one pass (issue 21: parser speed).

A big nccl-tests log is mostly `#  Rank N Group G Pid P on host device D [bus] name` lines (one per GPU
and test) and table rows, or, written with NCCL_DEBUG=INFO, `NCCL INFO` lines. Instead of routing each
line through the readers one at a time (reading.py, assembly.py), the assembler joins a block of lines
(`join_block`) and `scan_block` finds its runs of Rank lines and its runs of rows with one multi-line
regex (`finditer`, which jumps from line end to line end on its leading `\\n`), while `lines_to_feed`
drops the debug lines the walk would read for nothing, with tests that run in C over the whole block.
Each pattern is stricter than its reader: a line it takes is one the walk would give to that same
reader with the same result, and any other line (a Rank line with a launcher prefix, a row of an unusual
type, a line with a trigger of an earlier reader) is left to the walk.
tests/benchmarks/test_nccl_blocks.py checks this against the walk on real, odd and altered lines.
"""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Iterator, Sequence
from itertools import compress, repeat
from operator import not_

from ..text import JoinedLines
from .reading import Measurement, Row

# reading.RANK_RE for a line that starts with `#` (the only thing before `Rank`) and is printed the
# usual way (blanks are spaces, Group and Pid present): RANK_RE's leftmost match on such a line starts at
# the same `Rank`, each `\s+` takes the same spaces, and the groups are read_rank's (rank, host,
# device, name before `strip`). A line of another form does not match and is read by the walk.
# Every repeat is possessive (`++`, `*+`: nothing is given back, which `re` runs ~30% faster): what
# follows each one is a character it cannot take, so a backtracking match would end it at the same place.
RANK_LINE = (
    r"[ \t]*+#[ \t]*+Rank ++([0-9]++) ++Group ++[0-9]++ ++Pid ++[0-9]++ ++on ++(\S++) ++device ++([0-9]++)"
    r" ++\[([^\]\n]*+)\] *+([^\n]*+)"
)
# The data types and reduction ops nccl-tests and rccl-tests print; none of these words holds a
# substring any reader before the row's looks for (test_nccl_blocks.py checks it).
ROW_TYPES = (
    "int8", "uint8", "int32", "uint32", "int64", "uint64", "half", "float", "double", "bfloat16",
    "f8e4m3", "f8e5m2", "fp8_e4m3", "fp8_e5m2",
)  # fmt: skip
ROW_OPS = ("sum", "prod", "max", "min", "avg", "mulsum", "none")
_NUMBER = r"([0-9]++(?:\.[0-9]++)?)"
_GROUP = rf"[ \t]++{_NUMBER}[ \t]++{_NUMBER}[ \t]++{_NUMBER}[ \t]++([0-9]++|N/A)"
# A row of the usual layout: size count type redop root, then two groups of time algbw busbw #wrong.
ROW_LINE = (
    rf"[ \t]*+([0-9]++)[ \t]++([0-9]++)[ \t]++({'|'.join(ROW_TYPES)})[ \t]++({'|'.join(ROW_OPS)})[ \t]++"
    rf"(-?[0-9]++){_GROUP}{_GROUP}[ \t]*+$"
)
# Each match starts at the `\n` before its line (the block starts with one), so `re` looks for `\n`
# and tries the line patterns only at line starts. Two kinds: a run of consecutive lines that start
# with `# Rank` (group 1; their fields are then read with RANK_FIELDS_RE) and a run of consecutive rows
# of the usual shape (group 2; their fields read with ROW_FIELDS_RE). Every other line (a lone `#`, the
# lines around the tables) is walked (RunAssembler.feed_routed).
_RANK_START = r"[ \t]*+#[ \t]*+Rank\b[^\n]*+"
_ROW_CHECK = re.sub(r"\((?!\?)", "(?:", ROW_LINE)  # ROW_LINE without its groups
BLOCK_RE = re.compile(
    rf"\n(?:({_RANK_START}(?:\n{_RANK_START})*)|({_ROW_CHECK}(?:\n{_ROW_CHECK})*+))", re.MULTILINE
)
ROW_FIELDS_RE = re.compile(rf"\n{ROW_LINE}", re.MULTILINE)
RANK_FIELDS_RE = re.compile(rf"\n{RANK_LINE}", re.MULTILINE)
# What a line routed to the Rank reader must not contain (assembly.EARLY_TRIGGERS_RE, widened: NCCL /
# RCCL debug lines, nccl-tests / rccl-tests versions, the test's start and end, the nThread header).
RANK_BLOCKERS = ("CCL ", "ccl-tests", "Collective test starting", "concluded", "nThread", "nGpus")
# parse_row reads no line longer than this.
MAX_ROW_CHARS = 2000

Ranks = dict[int, tuple[str, int, str, str]]
# The groups of ROW_LINE: size, count, type, redop, root, then two groups of time, algbw, busbw, #wrong.
RowFields = tuple[str, ...]
# (index of the first line, number of lines, their text (each line after a `\n`), whether they are rows):
# a run of `# Rank` lines (read by read_ranks or checked by ranks_readable) or a run of rows (read by
# read_rows, for a run kept).
Found = tuple[int, int, str, bool]
# RANK_LINE without its groups, repeated: a whole run of Rank lines that all read the usual way.
_RANK_LINE_CHECK = re.sub(r"\((?!\?)", "(?:", RANK_LINE)
RANK_RUN_RE = re.compile(rf"(?:\n{_RANK_LINE_CHECK})+")


def make_row(line_no: int, g: RowFields) -> Row:
    """The row `parse_row` reads (without a layout, or with the usual one) from ROW_LINE's groups."""
    return Row(
        line_no,
        int(g[0]),
        int(g[1]),
        g[2],
        g[3].lower(),
        int(g[4]),
        Measurement(float(g[5]), float(g[6]), float(g[7]), g[8]),
        Measurement(float(g[9]), float(g[10]), float(g[11]), g[12]),
    )


def read_rows(first_line_no: int, rows_text: str) -> list[Row]:
    """make_row of each line of a run of rows found by scan_block (each line after a `\n`)."""
    return list(map(make_row, itertools.count(first_line_no), ROW_FIELDS_RE.findall(rows_text)))


def _blocked(text: str) -> bool:
    """Any of RANK_BLOCKERS in `text`. Each is looked for only when one of its letters that the fixed words
    of a Rank line (`Rank`, `Group`, `Pid`, `on`, `device`) do not hold is there: a test for one character
    runs as `memchr`, 10-40x faster than a search for a word, and a run of the usual Rank lines (hosts like
    `cnode3-002`, names like `NVIDIA H100 80GB HBM3`) holds none of `C`, `l`, `T`, `s`."""
    return (
        ("C" in text and ("CCL " in text or "Collective test starting" in text))
        or ("l" in text and ("ccl-tests" in text or "concluded" in text))
        or ("T" in text and "nThread" in text)
        or ("s" in text and "nGpus" in text)
    )


def read_ranks(run_text: str, lines: int) -> Ranks | None:
    """read_rank of each line of a run of `# Rank` lines, as {rank: (host, device, name, bus)} in the order
    of the lines; None unless every line reads the usual way. The dict is shared: never change it."""
    if _blocked(run_text):
        return None
    fields = RANK_FIELDS_RE.findall(run_text)
    if len(fields) != lines:
        return None
    return _ranks_of(tuple(fields))


@functools.lru_cache(maxsize=16)
def _ranks_of(fields: tuple[tuple[str, ...], ...]) -> Ranks:
    """The ranks of RANK_FIELDS_RE's groups, remembered: a log prints the same Rank lines for every test of
    a job but for their Pids, which are not read (80 ranks: ~10 us to build, a few us to hash the key)."""
    ranks, hosts, devices, buses, names = zip(*fields, strict=True)
    about = zip(hosts, map(int, devices), map(str.strip, names), map(str.strip, buses), strict=True)
    return dict(zip(map(int, ranks), about, strict=True))


def ranks_readable(run_text: str) -> bool:
    """read_ranks(run_text, lines) is not None, without reading the fields (a run past the runs kept):
    every line matches RANK_LINE (each match ends at its line's end, so one match per line)."""
    return not _blocked(run_text) and RANK_RUN_RE.fullmatch(run_text) is not None


def join_block(lines: list[str]) -> str | None:
    """The lines, each after a `\n`; None when a line holds a `\n` (a file with CR line ends)."""
    if isinstance(lines, JoinedLines):
        return lines.joined  # as the stream joined them (and no line holds a `\n`)
    block = "\n" + "\n".join(lines)
    return block if block.count("\n") == len(lines) else None


# A line with this is an NCCL debug line (assembly.DEBUG_LINE_RE matches at `NCCL`, between blanks).
DEBUG_INFO = " NCCL INFO "
# What RunAssembler.debug_line reads a debug line for (`_DISABLE`, `GDR_LEVEL`: read_disabled_transports);
# a debug line with none of them changes nothing.
# NVLS: is_nvls_line needs one of its two phrases besides `NVLS` (most NVLS lines of a debug log have
# neither: `NVLS Head`, `Connected NVLS tree`, chunk sizes).
DEBUG_READS = (
    "NCCL version", "NCCL_ALGO", "nNodes", "multicast support is available", "NVLS comm", " WARN ",
    "_DISABLE", "GDR_LEVEL",
)  # fmt: skip


def lines_to_feed(block: str, lines: list[str]) -> Sequence[int]:
    """The indices of the lines `feed` has to see, in order: all but the debug lines it would read for
    nothing (most lines of a log written with NCCL_DEBUG=INFO). The tests over every line run in C."""
    if "F" not in block or DEBUG_INFO not in block:  # one letter first: a memchr, 10x faster
        return range(len(lines))
    fed = list(map(not_, map(str.__contains__, lines, repeat(DEBUG_INFO))))
    for line in _lines_holding(block, DEBUG_READS):
        fed[line] = True
    return list(compress(range(len(lines)), fed))


def _lines_holding(block: str, needles: tuple[str, ...]) -> Iterator[int]:
    """The index of each line of `block` (each line after a `\n`) that holds one of `needles`, in order (a
    line may come more than once): substring searches over the block, then the line ends before each hit
    counted once in all (not a list of every line's start, which cost more for a few hundred hits)."""
    hits = []
    find = block.find
    for needle in needles:
        at = find(needle)
        while at >= 0:
            hits.append(at)
            end = find("\n", at)  # the next line: one hit per line is enough
            at = find(needle, end) if end >= 0 else -1
    hits.sort()
    ends, previous = 0, 0  # the `\n`s in block[:previous]
    for at in hits:
        ends += block.count("\n", previous, at)
        previous = at
        yield ends - 1  # the block starts with the `\n` of line 0


def scan_block(block: str) -> list[Found]:
    """What BLOCK_RE finds in `block` (join_block of the lines), in order: each run of Rank lines and each
    run of rows of the usual shape, as its text (each line after a `\n`). The fields are read when the
    assembler knows the run they go to: not at all for a run past the runs kept. A run of rows with a
    line longer than parse_row reads is left to the walk."""
    found: list[Found] = []
    index, previous = 0, 0  # the line at `previous` (0 or a match's end) in the block is index
    count = block.count
    for m in BLOCK_RE.finditer(block):
        start, end = m.span()
        index += count("\n", previous, start)  # lines between the last match and this one
        previous = end
        text = block[start:end]
        lines = text.count("\n")
        index += lines  # the line this match ends on (the next match starts after it)
        rows = m.group(1) is None
        if rows and end - start > MAX_ROW_CHARS + 1 and max(map(len, text.split("\n"))) > MAX_ROW_CHARS:
            continue
        found.append((index - lines, lines, text, rows))
    return found
