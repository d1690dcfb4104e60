"""The nccl-tests parser reads a block of lines at a time (Rank runs, rows, lone `#` and quiet NCCL INFO
lines found in one pass: benchmarks/parsers/nccl/blocks.py). Everything here compares that with the walk
it replaces, `RunAssembler.feed` line by line, on lines chosen so that a fast path taking a line the
walk reads otherwise (or reading it otherwise) changes the output."""

from __future__ import annotations

import random
import re

import pytest

from benchmarks.parsers import parse, parse_file, text
from benchmarks.parsers.nccl import parse_nccl, summarise_log
from benchmarks.parsers.nccl.assembly import (
    EARLY_TRIGGERS_RE,
    LATE_TRIGGERS_RE,
    RunAssembler,
    has_early_trigger,
    has_late_trigger,
)
from benchmarks.parsers.nccl.blocks import ROW_OPS, ROW_TYPES, join_block, lines_to_feed
from benchmarks.parsers.text import Text

from ._shared import FIXTURES, shared_dir

RANK = "#  Rank {r:2d} Group  0 Pid {pid:6d} on {host} device {d:2d} [0000:{d:02x}:00] NVIDIA H100 80GB HBM3"
ROW = "   {size:>10d} {count:>10d} float sum -1  {t:7.2f} {a:6.2f} {b:6.2f}  0  {t:7.2f} {a:6.2f} {b:6.2f}  0"
HEADER = [
    "# nccl-tests version 2.17.8 nccl-headers=22902 nccl-library=22902",
    "# Collective test starting: all_reduce_perf",
    "# nThread 1 nGpus 1 minBytes 8 maxBytes 1024 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1",
    "#",
    "# Using devices",
]
COLUMNS = [
    "#",
    "#                                     out-of-place                 in-place",
    "#   size    count  type  redop  root  time  algbw  busbw  #wrong  time  algbw  busbw  #wrong",
    "#    (B)  (elements)                  (us)  (GB/s) (GB/s)         (us)  (GB/s) (GB/s)",
]
FOOTER = [
    "# Out of bounds values : 0 OK",
    "# Avg bus bandwidth    : 1.5 ",
    "#",
    "# Collective test concluded: all_reduce_perf",
    "",
]


def _test(ranks: list[str], rows: list[str]) -> list[str]:
    return [*HEADER, *ranks, *COLUMNS, *rows, *FOOTER]


def _usual_ranks(hosts: int = 2, gpus: int = 4) -> list[str]:
    return [
        RANK.format(r=h * gpus + d, pid=1000 + h * gpus + d, host=f"node-{h}", d=d)
        for h in range(hosts)
        for d in range(gpus)
    ]


def _usual_rows(n: int = 8) -> list[str]:
    return [ROW.format(size=8 << i, count=2 << i, t=10.0 + i, a=0.5 * i, b=0.9 * i) for i in range(n)]


def walked(lines: list[str]) -> dict[str, object]:
    """What the parser gave before blocks: every line through `feed`, one at a time."""
    assembler = RunAssembler()
    for line_no, line in enumerate(lines, start=1):
        assembler.feed(line_no, line)
    result = summarise_log(assembler.runs, assembler.tool, assembler.file_nccl_version)
    return result.as_dict()


def assert_same(lines: list[str]) -> dict[str, object]:
    by_blocks = parse_nccl(Text(lines=lines)).as_dict()
    assert by_blocks == walked(lines)
    return by_blocks


def test_the_usual_log_goes_through_the_fast_paths() -> None:
    from benchmarks.parsers.nccl.blocks import scan_block

    lines = _test(_usual_ranks(), _usual_rows()) * 3
    block = join_block(lines)
    assert block is not None
    found = scan_block(block)
    assert sum(count for _, count, _, rows in found if not rows) == 3 * 8  # every Rank line
    assert sum(count for _, count, _, rows in found if rows) == 3 * 8  # every row
    assert len(found) == 3 * 2  # one run of Rank lines and one of rows per test
    result = assert_same(lines)
    run = result["summary"]["runs"][0]  # type: ignore[index]
    assert (run["ranks"], run["nodes"], run["hosts"]) == (8, 2, ["node-0", "node-1"])
    assert run["rows"] == 8


# Rank lines the walk reads otherwise than the usual way (or not at all); each must leave the fast path.
ODD_RANK_LINES = [
    "#  Rank  3 Group  0 Pid   1003 on node-0 device  3 [0000:03:00] NVIDIA Collective test starting: x",
    "#  Rank  3 Group  0 Pid   1003 on node-0 device  3 [0000:03:00] NVIDIA H100 test concluded",
    "#  Rank  3 Group  0 Pid   1003 on node-0 device  3 [0000:03:00] NCCL INFO NVLS comm 0x1",
    "#  Rank  3 Group  0 Pid   1003 on nccl-tests version device  3 [0000:03:00] NVIDIA H100",
    "#  Rank  3 Group  0 Pid   1003 on nThread device  3 [0000:03:00] NVIDIA H100",
    "#  Rank  3 Group  0 Pid   1003 on host device  3 [0000:03:00] nGpus 4 minBytes 8",
    "#  Rank  3 Pid   1003 on node-0 device  3 [0000:03:00] NVIDIA H100",  # no Group
    "#  Rank  3 Group  0 on node-0 device  3 [0000:03:00] NVIDIA H100",  # no Pid
    "#\tRank\t3\tGroup\t0\tPid\t1003\ton\tnode-0\tdevice\t3\t[0000:03:00]\tNVIDIA H100",
    "#  Rank  3 Group  0 Pid   1003 on node-0 device  3\x0b[0000:03:00]\x0bNVIDIA H100",
    "#  Rank  3 Group  0 Pid   1003 on node-0 device  3 [0000:03:00]\u3000NVIDIA\u3000H100\u3000",
    "#  Rank  \u0663 Group  0 Pid   1003 on node-0 device  3 [0000:03:00] NVIDIA H100",  # Arabic-Indic 3
    "#  Rank  3 Group  0 Pid   1003 on node]0 device  3 [0000:03:00] NVIDIA H100",
    "#  Rank  3 Group  0 Pid   1003 on node-0 device  3 [0000:03:00 NVIDIA H100",  # no `]`
    "#  Rank  3 Group  0 Pid   1003 on node-0 device  3 [0000:03:00]]] NVIDIA ] H100  ",
    "#  Rank  3 Group  0 Pid   1003 on node-0 device  3 []",
    "#  Ranks 3 Group  0 Pid   1003 on node-0 device  3 [0000:03:00] NVIDIA H100",
    "#Rank 3 Group 0 Pid 1003 on node-0 device 3 [0000:03:00] NVIDIA H100",
    "   #  Rank  3 Group  0 Pid   1003 on node-0 device  3 [0000:03:00] NVIDIA H100",
    "0: #  Rank  3 Group  0 Pid   1003 on node-0 device  3 [0000:03:00] NVIDIA H100",
    "#  Rank  3 Group  0 Pid   1003 on node-0 device  3 [0000:03:00] NVIDIA H100 Rank 9 on x device 1 [y] z",
    "#  Rank x Group  0 Pid   1003 on node-0 device  3 [0000:03:00] NVIDIA H100 Rank 9 on x device 1 [y] z",
    "#  Rank  3 Group  0 Pid   1003 on node-0 device  3 [0000:03:00] NVIDIA H100 | 1 2 3 4",
]


@pytest.mark.parametrize("odd", ODD_RANK_LINES)
def test_an_unusual_rank_line_in_a_run_is_read_as_the_walk_reads_it(odd: str) -> None:
    ranks = _usual_ranks()
    for where in (0, 3, len(ranks)):
        assert_same(_test([*ranks[:where], odd, *ranks[where:]], _usual_rows()) * 2)


# Rows the fast pattern must not take (or must read as parse_row does).
ODD_ROWS = [
    "    8    2  float  NCCL  -1  10.00  0.00  0.00  0  10.00  0.00  0.00  0",
    "    8    2  float  concluded  -1  10.00  0.00  0.00  0  10.00  0.00  0.00  0",
    "    8    2  float  sum  -1  N/A  0.00  0.00  0  10.00  0.00  0.00  N/A",
    "    8    2  float  sum  -1  10.00  0.00  0.00  3*  10.00  0.00  0.00  0",
    "    8    2  float  sum      10.00  0.00  0.00  0  10.00  0.00  0.00  0",
    "    8    2  FLOAT  SUM  -1  10.00  0.00  0.00  0  10.00  0.00  0.00  0",
    "    8    2  float  sum  -1  1e+01  0.00  0.00  0  10.00  0.00  0.00  0",
    "    8    2  float  sum  -1  10.00  0.00  0.00  0  10.00  0.00  0.00  0  2024-05-01 12:00:00",
    "    8    2  float  sum  -1  10.00  0.00  0.00  0",
    "    8    2  float  sum  -1  10.00  0.00  0.00  0  10.00  0.00  0.00  0 | x",
    "    8    2  float  sum  -1  10.00  0.00  0.00  0  10.00  0.00  0.00  0" + " " * 2000,
    "    8    2  float  sum  -1  10.00  0.00  0.00  0  10.00  0.00  0.00  0" + " " * 1920,
    "    \u0668    2  float  sum  -1  10.00  0.00  0.00  0  10.00  0.00  0.00  0",
    "    8\t2\tfloat\tsum\t-1\t10.00\t0.00\t0.00\t0\t10.00\t0.00\t0.00\t0",
    "    8    2  float  sum  -1  10.00  0.00  0.00  0  10.00  0.00  0.00  0\x0b",
    "    8    2  float  sum  -1  10.00  0.00  0.00  0  10.00  0.00  0.00  0  ",
    "    4    2  float  sum  -1  10.00  0.00  0.00  0  10.00  0.00  0.00  0",
]


@pytest.mark.parametrize("odd", ODD_ROWS)
def test_an_unusual_row_is_read_as_the_walk_reads_it(odd: str) -> None:
    rows = _usual_rows()
    for where in (0, 4, len(rows)):
        assert_same(_test(_usual_ranks(), [*rows[:where], odd, *rows[where:]]))


def test_rows_under_another_layout_are_read_with_it() -> None:
    """After a header of one group (in-place only) the same row tokens read otherwise: not the fast path."""
    one_group = "#       size         count      type   redop    root     time   algbw   busbw  #wrong"
    lines = _test(_usual_ranks(), _usual_rows())
    lines[lines.index(COLUMNS[2])] = one_group
    result = assert_same(lines)
    assert result["summary"]["runs"][0]["rows"] == 0  # type: ignore[index]


def test_every_row_type_and_op_word_holds_no_trigger_of_an_earlier_reader() -> None:
    from benchmarks.parsers.nccl.assembly import LATE_TRIGGERS_RE

    for word in (*ROW_TYPES, *ROW_OPS):
        assert not has_early_trigger(f" {word} "), word
        assert LATE_TRIGGERS_RE.search(f" {word} ") is None, word
        assert "NCCL" not in word and "|" not in word and "Rank" not in word


QUIET = "node-0:25:25 [0] NCCL INFO Channel 00/32 : 0 1 2 3"


@pytest.mark.parametrize(
    ("line", "fed"),
    [
        ("node-0:25:25 [0] NCCL INFO NCCL version 2.22.3+cuda12.2", True),
        ("node-0:25:25 [0] NCCL INFO NCCL_ALGO set by environment to Tree", True),
        ("node-0:25:25 [0] NCCL INFO comm 0x1 rank 0 nRanks 16 nNodes 2 localRanks 8", True),
        ("node-0:25:25 [0] NCCL INFO NVLS multicast support is available on dev 0", True),
        ("node-0:25:25 [0] NCCL INFO NVLS comm 0x55f3 headRank 0 nHeads 4", True),
        ("node-0:25:25 [0] NCCL INFO multicast support is available on dev 0", True),  # no NVLS: fed anyway
        ("node-0:25:25 [0] NCCL INFO NVLS Head  0:  0  8", False),
        ("node-0:25:25 [0] NCCL INFO Connected NVLS tree", False),
        ("node-0:25:25 [0] NCCL INFO misc/socket.cc:50 NCCL WARN Net : Connection closed", True),
        ("node-0:25:25 [0] NCCL INFO", True),  # no blank after INFO: left to the walk
        ("node-0:25:25 [0] RCCL INFO Channel 00/32", True),
        ("node-0:25:25 [0] NCCL INFO Channel 00/32 : 0 1 2 3 ", False),
        ("  NCCL INFO Connected all rings", False),
    ],
)
def test_only_the_debug_lines_read_for_nothing_are_skipped(line: str, fed: bool) -> None:
    ranks, rows = _usual_ranks(), _usual_rows()
    lines = [QUIET, *HEADER, QUIET, line, QUIET, *ranks, QUIET, line, *COLUMNS, *rows, line, *FOOTER]
    block = join_block(lines)
    assert block is not None
    kept = [lines[i] for i in lines_to_feed(block, lines)]
    assert QUIET not in kept
    assert kept.count(line) == (3 if fed else 0)
    assert len(kept) == len(lines) - 4 - (0 if fed else 3)
    assert_same(lines)


def test_the_trigger_tests_are_the_regexes() -> None:
    lines = [*HEADER, *COLUMNS, *FOOTER, *_usual_ranks(), *_usual_rows(), *ODD_RANK_LINES, *ODD_ROWS, QUIET]
    lines += ["rccl-tests: Version develop:abc", "x RCCL WARN y", "NCCL", "nccl-tests", "Collective test"]
    lines += ["# Testing 5 cycles", "Errors with asterisks", "librccl.so", "HIP version 6", "Test failure"]
    lines += ["algbw", "ALGBW", "alGbW", "al gbw", "\u212agbw", "\u0130lgbw", "lg\u212abw", "Lgb", "gbw"]
    lines += ["x\u0130LGBW", "\u0131gbw", "#  Rnk", "Avg  bus", "Out of bounds values : 0 OK"]
    for line in lines:
        assert has_early_trigger(line) == (EARLY_TRIGGERS_RE.search(line) is not None), line
        assert has_late_trigger(line) == (LATE_TRIGGERS_RE.search(line) is not None), line


def _mutate(line: str, rng: random.Random) -> str:
    """One random edit of the kinds that make a line leave (or wrongly stay on) a fast path."""
    blanks = [" ", "  ", "\t", "\x0b", "\u3000", ""]
    words = ["Rank", "NCCL ", "]", "[", "#", "concluded", "nGpus", "0", "-1", "N/A", "float", "|", "x"]
    spans = [m.span() for m in re.finditer(r"\s+|\S+", line)]
    start, end = spans[rng.randrange(len(spans))]
    choice = rng.randrange(3)
    if choice == 0:
        return line[:start] + rng.choice(blanks) + line[end:]
    if choice == 1:
        return line[:start] + rng.choice(words) + line[end:]
    return line[:start] + line[end:]


def test_randomly_altered_logs_read_the_same_as_the_walk() -> None:
    rng = random.Random(21)
    base = _test(_usual_ranks(), _usual_rows()) * 2
    for _ in range(300):
        lines = list(base)
        for _ in range(rng.randrange(1, 6)):
            at = rng.randrange(len(lines))
            if lines[at].strip():
                lines[at] = _mutate(lines[at], rng)
        assert_same(lines)


def _assembled(lines: list[str], by_blocks: bool) -> tuple[dict[str, object], int, str | None, str | None]:
    """Everything a parse keeps of an assembler: the runs shown, how many were skipped, the file's tool
    and library version."""
    assembler = RunAssembler()
    if by_blocks:
        assembler.feed_block(1, lines)
    else:
        for line_no, line in enumerate(lines, start=1):
            assembler.feed(line_no, line)
    shown = summarise_log(assembler.runs, assembler.tool, assembler.file_nccl_version).as_dict()
    return shown, assembler.dropped_runs, assembler.tool, assembler.file_nccl_version


PAST_THE_CAP = [
    *ODD_RANK_LINES,
    *ODD_ROWS,
    "# Errors with asterisks indicate errors that have exceeded the maximum threshold.",
    "node-0:25:25 [0] NCCL INFO NCCL version 2.22.3+cuda12.2",
    "#       size         count      type   redop    root     time   algbw   busbw #wrong",
    "# Out of bounds values : 0 OK",
    "#  Rank  0 Group  0 Pid   1000 on node-0 device  0 [0000:00:00] NVIDIA H100 80GB HBM3",
]


@pytest.mark.parametrize("odd", PAST_THE_CAP)
def test_runs_past_the_runs_kept_are_counted_as_the_walk_counts_them(monkeypatch, odd: str) -> None:  # type: ignore[no-untyped-def]
    """Past MAX_RUNS the Rank runs are only checked and the rows not built (blocks.ranks_readable,
    RunAssembler.add_scanned_rows): an odd line among them must still open, close and count runs, and
    set the file's tool and library version, as the walk does."""
    from benchmarks.parsers.nccl import assembly

    monkeypatch.setattr(assembly, "MAX_RUNS", 3)
    ranks, rows = _usual_ranks(), _usual_rows()
    for where in range(2, 6):  # the odd line in the third (last kept) run or in one past it
        tests = [_test(ranks, rows) for _ in range(7)]
        tests[where] = _test([*ranks[:3], odd, *ranks[3:]], [*rows[:4], odd, *rows[4:]])
        lines = [line for test in tests for line in test]
        walk = _assembled(lines, by_blocks=False)
        assert walk[1] > 0
        assert _assembled(lines, by_blocks=True) == walk


def test_the_shared_corpus_and_fixtures_read_the_same_as_the_walk() -> None:
    paths = sorted(FIXTURES.glob("nccl-*.txt")) + sorted((FIXTURES / "uploads").glob("nccl-*.txt"))
    shared = shared_dir()
    if shared is not None:
        paths += sorted((shared / "benchlogs" / "nccl-tests").glob("*.txt"))
        paths += sorted((shared / "benchlogs" / "rccl-tests").glob("*.txt"))
    assert len(paths) >= 5
    for path in paths:
        decoded = text.decode(path.read_bytes())
        assert isinstance(decoded.lines, list)
        assert parse_nccl(decoded).as_dict() == walked(decoded.lines), path.name


# ---- reading a stored file a chunk at a time -------------------------------------------------------


@pytest.mark.parametrize("chunk", [7, 64, 1000, 1 << 20])
@pytest.mark.parametrize(
    "variant",
    ["lf", "crlf", "cr", "no-final-newline", "blank-lines-and-odd-blanks", "utf8-across-chunks"],
)
def test_streamed_blocks_are_the_lines_of_the_whole_file(
    tmp_path, monkeypatch, chunk: int, variant: str
) -> None:  # type: ignore[no-untyped-def]
    """A line split across a chunk boundary, CRLF, CR-only, a last line without its newline, odd
    blanks and a multi-byte character cut by a chunk: the blocks, joined, are the lines `decode` gives,
    and the streamed parse is the parse in memory."""
    monkeypatch.setattr(text, "CHUNK_BYTES", chunk)
    lines = _test(_usual_ranks(), _usual_rows()) * 2
    if variant == "blank-lines-and-odd-blanks":
        lines = [line.replace("  ", " \t\x0b") if i % 3 else "" for i, line in enumerate(lines)]
    if variant == "utf8-across-chunks":
        lines = [line.replace("NVIDIA", "NVIDIA\u00e9\u4e2d\U0001f680") for line in lines]
    data = "\n".join(lines) + "\n"
    if variant == "crlf":
        data = data.replace("\n", "\r\n")
    elif variant == "cr":
        data = data.replace("\n", "\r")
    elif variant == "no-final-newline":
        data = data.rstrip("\n")
    raw = data.encode()
    path = tmp_path / "log.txt"
    path.write_bytes(raw)
    stream = text.decode_file(lambda: path.open("rb")).lines
    assert isinstance(stream, text.LineStream)
    blocks = list(stream.blocks())
    assert len(blocks) > 1 or chunk == 1 << 20
    assert [line for block in blocks for line in block] == text.decode(raw).lines
    in_memory = parse(raw).as_dict()
    assert parse_file(lambda: path.open("rb")).as_dict() == in_memory
    decoded = text.decode(raw)
    assert isinstance(decoded.lines, list)
    assert parse_nccl(decoded).as_dict() == walked(decoded.lines)
    if variant != "blank-lines-and-odd-blanks":
        assert in_memory["summary"]["runs"][0]["ranks"] == 8  # type: ignore[index]


def test_line_blocks_of_a_list_cover_it_in_order() -> None:
    lines = [str(i) for i in range(text.BLOCK_LINES * 2 + 5)]
    blocks = list(text.line_blocks(lines))
    assert [len(b) for b in blocks] == [text.BLOCK_LINES, text.BLOCK_LINES, 5]
    assert [line for block in blocks for line in block] == lines


def test_a_block_with_a_newline_inside_a_line_is_fed_line_by_line() -> None:
    """CR-only files split on CR, so a line may hold `\\n`: no block pass (its line numbers would slip)."""
    lines = _test(_usual_ranks(), _usual_rows())
    lines[2] = lines[2] + "\n" + _usual_ranks()[0]
    assert join_block(lines) is None
    assert_same(lines)


def _backtracking(pattern: str) -> re.Pattern[str]:
    """The same pattern with every possessive repeat (`++`, `*+`) made an ordinary greedy one."""
    return re.compile(pattern.replace("++", "+").replace("*+", "*"), re.MULTILINE)


def test_the_possessive_patterns_match_as_backtracking_ones() -> None:
    """blocks.py's patterns give nothing back (faster in `re`); on real, odd and randomly altered lines
    they find the same spans and groups as the ordinary patterns they were written from."""
    from benchmarks.parsers.nccl import blocks

    rng = random.Random(7)
    base = [*_usual_ranks(), *_usual_rows(), *ODD_RANK_LINES, *ODD_ROWS, "#", "  #  ", QUIET]
    alphabet = " \t#[]\n0123456789.-RankGroupPidondevice/N/Afloatsum\x0b"
    plain_block, plain_fields = (
        _backtracking(blocks.BLOCK_RE.pattern),
        _backtracking(blocks.RANK_FIELDS_RE.pattern),
    )
    plain_run = _backtracking(blocks.RANK_RUN_RE.pattern)
    plain_rows = _backtracking(blocks.ROW_FIELDS_RE.pattern)
    for _ in range(20_000):
        lines = []
        for _ in range(rng.randrange(1, 5)):
            chars = list(rng.choice(base))
            for _ in range(rng.randrange(0, 4)):
                chars.insert(rng.randrange(len(chars) + 1), rng.choice(alphabet))
                del chars[rng.randrange(len(chars))]
            lines.append("".join(chars))
        block = "\n" + "\n".join(lines)
        assert [(m.span(), m.groups()) for m in blocks.BLOCK_RE.finditer(block)] == [
            (m.span(), m.groups()) for m in plain_block.finditer(block)
        ], block
        assert blocks.RANK_FIELDS_RE.findall(block) == plain_fields.findall(block), block
        assert blocks.ROW_FIELDS_RE.findall(block) == plain_rows.findall(block), block
        assert (blocks.RANK_RUN_RE.fullmatch(block) is None) == (plain_run.fullmatch(block) is None), block


def test_the_blocker_test_is_a_search_for_each_blocker() -> None:
    """blocks._blocked looks for a blocker only when one of its letters is there: the same answer as
    looking for every one, on Rank runs with blockers put anywhere (split across fields too)."""
    from benchmarks.parsers.nccl.blocks import RANK_BLOCKERS, _blocked

    rng = random.Random(3)
    run = "\n" + "\n".join(_usual_ranks())
    pieces = [*RANK_BLOCKERS, "C", "l", "T", "s", "CCL", "ccl", "nGpu", "Thread", " ", "\n", "x"]
    assert not _blocked(run)
    for _ in range(3000):
        chars = list(run)
        for _ in range(rng.randrange(1, 4)):
            at = rng.randrange(len(chars) + 1)
            chars[at:at] = rng.choice(pieces)
        text = "".join(chars)
        assert _blocked(text) == any(blocker in text for blocker in RANK_BLOCKERS), text


def test_each_line_is_routed_where_the_walk_sends_it() -> None:
    """RunAssembler.feed_routed (route_line, remembered per line) against `feed`, line by line, on every
    line of the fixtures and the corpus and on odd lines, each fed to both after the same lines."""
    paths = sorted(FIXTURES.glob("nccl-*.txt")) + sorted((FIXTURES / "uploads").glob("nccl-*.txt"))
    shared = shared_dir()
    if shared is not None:
        paths += sorted((shared / "benchlogs" / "nccl-tests").glob("*.txt"))
    odd = [*ODD_RANK_LINES, *ODD_ROWS, *PAST_THE_CAP, QUIET, "#", "  ", "# Using devices", "== 2 nodes =="]
    for lines in [text.decode(path.read_bytes()).lines for path in paths] + [odd * 2]:
        assert isinstance(lines, list)
        walk, routed = RunAssembler(), RunAssembler()
        for line_no, line in enumerate(lines, start=1):
            walk.feed(line_no, line)
            routed.feed_routed(line_no, line)
        assert routed.runs == walk.runs
        assert (routed.pending, routed.tool, routed.file_nccl_version, routed.previous_line) == (
            walk.pending,
            walk.tool,
            walk.file_nccl_version,
            walk.previous_line,
        )


def test_a_line_never_a_row_is_read_as_no_row_under_any_layout() -> None:
    """route_line sends a line that no layout reads as a row (assembly.never_a_row) past the row reader:
    checked against parse_row under every layout a column header gives, on rows, columns and odd lines."""
    from benchmarks.parsers.nccl.assembly import never_a_row
    from benchmarks.parsers.nccl.reading import parse_column_header, parse_row

    headers = [
        COLUMNS[2],
        "#  size count type time algbw busbw #wrong",
        "#  size count type redop root time algbw busbw error time algbw busbw error",
        "#  size count type time algbw busbw #wrong res time algbw busbw #wrong res extra x",
        "# bytes count time algbw busbw time algbw busbw time algbw busbw",
    ]
    layouts = [parse_column_header(h, p) for h in headers for p in ("", "in-place", "out-of-place")]
    rows = [
        *_usual_rows(3),
        *ODD_ROWS,
        "   8  2  float  sum  -1  1.0  2.0  3.0  0",
        "   8  2  float  1.0  2.0  3.0  0",
    ]
    lines = [*rows, *COLUMNS, *HEADER, *FOOTER, "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17"]
    assert any(never_a_row(line) for line in lines) and not all(never_a_row(line) for line in lines)
    for line in lines:
        if never_a_row(line):
            assert all(parse_row(line, 0, layout) is None for layout in [None, *layouts]), line


def test_a_text_with_no_line_to_cut_is_told_without_splitting_it() -> None:
    """text._may_hold_long_line (one `find` per 4,096 characters) is True for every text with a line over
    MAX_LINE_CHARS, wherever it starts; the stream then splits and cuts as before."""
    from benchmarks.parsers.text import MAX_LINE_CHARS, _may_hold_long_line

    rng = random.Random(5)
    for _ in range(400):
        lengths = [rng.choice([0, 1, 80, 4095, 4096, 4097, 8191, 8192, 8193, 8194, 12000]) for _ in range(6)]
        lines = ["x" * n for n in lengths]
        for sep in ("\n", "\r"):
            joined = sep.join(lines)
            if max(map(len, joined.split(sep))) > MAX_LINE_CHARS:
                assert _may_hold_long_line(joined, sep), lengths
    assert not _may_hold_long_line("\n".join(["y" * 100] * 1000), "\n")


@pytest.mark.parametrize("chunk", [64, 5000, 1 << 20])
@pytest.mark.parametrize("sep", ["\n", "\r\n", "\r"])
def test_streamed_long_and_tagged_lines_are_cut_and_cleaned_as_in_memory(
    tmp_path, monkeypatch, chunk: int, sep: str
) -> None:  # type: ignore[no-untyped-def]
    """Lines over MAX_LINE_CHARS (cut before cleaning) among lines with MPI tags and ANSI escapes: the
    stream, which splits a chunk once, gives the lines and the count of cut lines `decode` gives."""
    monkeypatch.setattr(text, "CHUNK_BYTES", chunk)
    tag, long_line = "[1,0]<stdout>:", "[1,2]<stdout>:" + "x" * 9000 + "\x1b[0m" + "[1,3]<stderr>:"
    lines = [tag + line for line in _test(_usual_ranks(), _usual_rows())]
    lines[3:3] = [long_line, "y" * 8192, "z" * 8193, "\x1b[1m" + "w" * 8190 + tag]
    raw = (sep.join(lines) + sep).encode()
    path = tmp_path / "log.txt"
    path.write_bytes(raw)
    stream = text.decode_file(lambda: path.open("rb")).lines
    assert isinstance(stream, text.LineStream)
    decoded = text.decode(raw)
    assert list(stream) == decoded.lines
    assert stream.truncated_lines == decoded.truncated_lines >= 2
    assert parse_file(lambda: path.open("rb")).as_dict() == parse(raw).as_dict()


def test_rank_facts_are_read_once_per_shared_table_and_only_for_runs_that_hold_it() -> None:
    """summary._rank_facts: runs filled from one shared rank table share its facts; a run whose ranks
    changed after the table was put in (a walked Rank line) has its own."""
    from benchmarks.parsers.nccl.summary import _facts_of, _rank_facts

    lines = _test(_usual_ranks(), _usual_rows()) * 3
    assembler = RunAssembler()
    assembler.feed_block(1, lines)
    first, second, third = assembler.runs
    assert first.rank_table is not None and first.rank_table is second.rank_table is third.rank_table
    assert _rank_facts(first) is _rank_facts(second)
    third.ranks[8] = ("node-2", 0, "NVIDIA H200", "0000:00:00")
    assert _rank_facts(third) == _facts_of(third.ranks) != _rank_facts(first)
    assert _rank_facts(third).hosts == ("node-0", "node-1", "node-2")


def test_the_lines_holding_a_debug_read_are_found_by_position() -> None:
    """blocks._lines_holding (hits found in the block, their lines counted from the line ends before
    them) gives the lines a test of each line gives, on blocks with words at line starts and ends."""
    from benchmarks.parsers.nccl.blocks import DEBUG_READS, _lines_holding

    rng = random.Random(11)
    pieces = [*DEBUG_READS, QUIET, "x", "", " ", "NCCL", "nNode"]
    for _ in range(500):
        lines = [
            "".join(rng.choice(pieces) for _ in range(rng.randrange(0, 4)))
            for _ in range(rng.randrange(1, 30))
        ]
        block = join_block(lines)
        assert block is not None
        expected = [i for i, line in enumerate(lines) if any(needle in line for needle in DEBUG_READS)]
        assert sorted(set(_lines_holding(block, DEBUG_READS))) == expected, lines
