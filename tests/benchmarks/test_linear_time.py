"""Every parser runs in linear time on any line (issue 20 item 1).

CPU time (`time.process_time`), not wall time, so a busy machine does not fail the test; the bounds are
hundreds of times above what a linear pass costs and far below what the old backtracking cost (seconds).
"""

from __future__ import annotations

import importlib
import pkgutil
import re
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import benchmarks.parsers as parsers_pkg
from benchmarks.parsers import KINDS, _parser_for, detect_kind, parse
from benchmarks.parsers.text import MAX_LINE_CHARS, decode

# CPU seconds allowed per KB of input for a whole parse (detection included). A linear pass costs
# about 1 ms per KB; the reported line cost 14 s for 2 KB.
SECONDS_PER_KB = 0.05


def _cpu(fn, *args):  # type: ignore[no-untyped-def]
    start = time.process_time()
    result = fn(*args)
    return result, time.process_time() - start


def _all_patterns() -> dict[str, re.Pattern[str]]:
    found: dict[str, re.Pattern[str]] = {}
    names = [m.name for m in pkgutil.walk_packages(parsers_pkg.__path__, "benchmarks.parsers.")]
    for name in names:
        module = importlib.import_module(name)
        for key, value in vars(module).items():
            values = value.values() if isinstance(value, dict) else [value]
            for item in values:
                if isinstance(item, re.Pattern):
                    found[f"{name}.{key}:{item.pattern[:30]}"] = item
    return found


# The reported lines (issue 20 item 1) and the other super-linear cases the audit found.
REPORTED = {
    "nvidia-smi GPU row of spaces": "| 0 " + " " * 2000 + "x",
    "nvidia-smi -L name of spaces": "GPU 0: " + " " * 2000 + "x",
    "dcgmi table row of spaces": "| " + " | " * 700,
    "nccl column-header words repeated": "size count time " * 130,
    "digits before a unit": "1" * 2000 + " GB",
    "node count digits": "==== " + "1" * 2000 + " ====",
    "dcgmi section title then spaces": "|---- a" + " " * 2000 + "x",
}


def test_the_reported_lines_parse_in_linear_time() -> None:
    for label, line in REPORTED.items():
        for data in (line, "\n".join([line] * 4)):
            _, seconds = _cpu(parse, data)
            assert seconds < SECONDS_PER_KB * max(1, len(data) / 1024), (label, seconds)


ADVERSARIAL_UNITS = [
    " ", "\t", "1", "a", "|", ":", ".", "1 ", "a ", "| ", " | ", "1.", "0:", "=", "-", "size count time "
]  # fmt: skip
PREFIXES = [
    "", "| 0 ", "|---- a", "GPU 0: ", "GPU0 ", "Link 0: ", "step: 1 loss: ", "link a/1 ", "state: ", "NVRM: "
]  # fmt: skip


def test_every_parser_regex_is_linear_on_long_runs() -> None:
    """Each pattern on a maximal line (8 KB) of one repeated unit after a prefix that starts a match."""
    slow = []
    for name, pattern in _all_patterns().items():
        for prefix in PREFIXES:
            for unit in ADVERSARIAL_UNITS:
                line = (prefix + unit * (MAX_LINE_CHARS // len(unit)))[:MAX_LINE_CHARS] + "\x00"
                start = time.process_time()
                pattern.search(line)
                pattern.match(line)
                seconds = time.process_time() - start
                if seconds > 0.05:
                    slow.append((name, prefix, unit, round(seconds, 3)))
    assert not slow, slow


SETTINGS = settings(
    max_examples=40, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)
# Lines built from the pieces that make regexes backtrack: runs of spaces, digits, separators, and the
# words the signatures look for.
PIECES = st.sampled_from(
    [" ", "  ", "\t", "0", "1", "12", ".", ":", "|", "/", "-", "=", "x", "GB/s", "On", "MiB", "W", "X",
     "Gbps", "node", "size", "count", "time", "algbw", "step:", "loss:", "GPU", "Link", "NVRM:", "Xid",
     "(UUID:", "GPU-", "iteration", "Rank", "on", "device", "state", "---", "[", "]"]
)  # fmt: skip
LINES = st.lists(PIECES, min_size=1, max_size=400).map("".join)


@SETTINGS
@given(st.lists(LINES, min_size=1, max_size=6), st.integers(1, 8))
def test_random_and_adversarial_lines_parse_in_bounded_time_per_kb(lines: list[str], repeat: int) -> None:
    data = "\n".join(line * repeat for line in lines)
    _, seconds = _cpu(parse, data)
    assert seconds < SECONDS_PER_KB * max(1, len(data) / 1024) + 0.05, seconds


@SETTINGS
@given(st.lists(LINES, min_size=1, max_size=6), st.integers(1, 4))
def test_every_parser_takes_bounded_time_per_kb_on_any_lines(lines: list[str], repeat: int) -> None:
    """Each parser called directly (not only the one detection picks)."""
    data = "\n".join(line * repeat for line in lines)
    text = decode(data)
    for kind in KINDS:
        if kind == "rccl-tests":
            continue  # one parser with nccl-tests
        _, seconds = _cpu(_parser_for(kind), text)
        assert seconds < SECONDS_PER_KB * max(1, len(data) / 1024) + 0.05, (kind, seconds)


@SETTINGS
@given(st.text(min_size=1, max_size=3000))
def test_random_text_is_detected_in_bounded_time(data: str) -> None:
    _, seconds = _cpu(detect_kind, data)
    assert seconds < SECONDS_PER_KB * max(1, len(data) / 1024) + 0.05, seconds


def test_a_streamed_file_parses_exactly_like_the_same_bytes_in_memory(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """parse_file (what the worker runs) and parse (bytes) agree on every fixture, CRLF and CR included."""
    from benchmarks.parsers import parse_file

    from ._shared import FIXTURES

    for fixture in sorted(FIXTURES.glob("*.txt")):
        data = fixture.read_bytes()
        for variant in (data, data.replace(b"\n", b"\r\n"), b"\xef\xbb\xbf" + data):
            path = tmp_path / "upload.txt"
            path.write_bytes(variant)
            assert parse_file(lambda p=path: p.open("rb")).as_dict() == parse(variant).as_dict(), fixture.name


def test_streaming_reads_in_chunks_and_cuts_a_huge_line_without_holding_it(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from benchmarks.parsers import parse_file, text

    monkeypatch.setattr(text, "CHUNK_BYTES", 1000)
    path = tmp_path / "big.txt"
    from ._shared import FIXTURES

    log = (FIXTURES / "nccl-one-rank.txt").read_bytes()
    path.write_bytes(b"x" * 50_000 + b"\n" + log)
    result = parse_file(lambda: path.open("rb"))
    assert result.kind == "nccl-tests"
    assert result.as_dict() == parse(path.read_bytes()).as_dict()
    assert "1 line longer than 8192 characters was cut" in result.warnings


def test_a_log_of_thousands_of_runs_keeps_a_bounded_number_and_says_so() -> None:
    from benchmarks.parsers.nccl.assembly import MAX_RUNS

    from ._shared import FIXTURES

    log = (FIXTURES / "nccl-one-rank.txt").read_text()
    result = parse((log + "\n") * (MAX_RUNS + 20))
    assert result.kind == "nccl-tests"
    assert len(result.summary["runs"]) == MAX_RUNS
    assert any(f"only the first {MAX_RUNS} runs were read" in w for w in result.warnings)


def test_rows_with_no_header_between_them_keep_a_bounded_number_and_say_so(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    # A sweep's rows pasted without their header and repeated (or `-N` cycles) are one run: every row was
    # held, 734 MiB for 100 MB of them (docs/PERFORMANCE.md). Past MAX_ROWS rows are read and not held, no
    # further run is kept, and the warning says how many were left.
    from benchmarks.parsers.nccl import assembly

    monkeypatch.setattr(assembly, "MAX_ROWS", 50)
    sweep = [
        f"{size:>12} {size // 4:>12}  float  sum  -1  100.0  1.00  1.00  0  100.0  1.00  1.00  0"
        for size in (1 << 20, 1 << 21, 1 << 22, 1 << 23)
    ]
    result = parse(("\n".join(sweep) + "\n") * 20 + "\n".join(["# nThread 1 nGpus 1", *sweep]))
    assert result.kind == "nccl-tests"
    runs = result.summary["runs"]
    assert [r["rows"] for r in runs] == [50]  # the header's run after the cap is not kept
    assert runs[0]["cycles"] == 13  # 50 rows of a 4-size sweep: 12 restarts held
    assert "only the first 50 result rows were read; 30 more rows in the file were skipped" in " ".join(
        result.warnings
    )
    assert any("only the first 1 runs were read; 1 more runs" in w for w in result.warnings)


def test_an_hccl_test_log_repeated_keeps_a_bounded_number_of_runs_and_rows(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    # One hccl_test table repeated was held run by run (723 MiB for 50 MB, a warning per run); past
    # MAX_RUNS runs and MAX_ROWS rows the lines are read and counted, and the no-busbw warning comes once.
    from benchmarks.parsers import hccl

    monkeypatch.setattr(hccl, "MAX_RUNS", 3)
    monkeypatch.setattr(hccl, "MAX_ROWS", 5)
    table = "data_size(Bytes): | aveg_time(us): | alg_bandwidth(GB/s): | check_result:\n" + "".join(
        f"{size} | 1000.00 | 2.0 | success\n" for size in (1024, 2048)
    )
    result = parse(table * 10)
    assert result.kind == "hccl-test"
    assert [r["rows"] for r in result.summary["runs"]] == [2, 2, 1]
    warnings = " ".join(result.warnings)
    assert "only the first 3 runs were read; 7 more runs in the file were skipped" in warnings
    assert "only the first 5 result rows were read; 1 more rows in the file were skipped" in warnings
    assert sum("busbw not derived" in w for w in result.warnings) == 1


def test_a_perftest_log_of_endless_rows_or_many_tests_keeps_a_bounded_number(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    # `--run_infinitely` prints a row a second (164 MiB held for 100 MB of them); past MAX_ROWS rows, and in
    # tests past MAX_BLOCKS, rows are read and counted, not held; the tests held keep their own figures.
    from benchmarks.parsers import perftest

    monkeypatch.setattr(perftest, "MAX_ROWS", 6)
    monkeypatch.setattr(perftest, "MAX_BLOCKS", 2)
    rule = "-" * 87

    def test(banner: str, gbps: str) -> str:
        rows = "".join(
            f" 65536      882805           0.00               {gbps}                0.176554\n"
            for _ in range(4)
        )
        return (
            f"{rule}\n                    {banner}\n Link type       : Ethernet\n{rule}\n"
            " #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]    MsgRate[Mpps]\n"
            f"{rows}{rule}\n"
        )

    result = parse(
        test("RDMA_Write BW Test", "92.57")
        + test("Send BW Test", "80.00")
        + test("RDMA_Read BW Test", "70.0")
    )
    assert result.kind == "perftest"
    tests = result.summary["tests"]
    assert [t["test"] for t in tests] == ["ib_write_bw", "ib_send_bw"]  # the third test is not held
    warnings = " ".join(result.warnings)
    assert "only the first 6 result rows were read; 6 more rows in the file were skipped" in warnings
    assert "only the first 2 runs were read; 1 more runs in the file were skipped" in warnings  # review


@pytest.mark.parametrize("streamed", [False, True])
def test_a_device_report_is_read_to_a_bounded_number_of_lines_and_says_so(  # type: ignore[no-untyped-def]
    monkeypatch, tmp_path, streamed: bool
) -> None:
    # A report of one node's ports or GPUs concatenated with itself grew its summary and memory with the file
    # (ibdev2netdev to 50 MB: 353 MiB; dcgmi nvlink: 76,040 GPUs, 460 MiB); past MAX_REPORT_LINES the lines
    # are counted, not read, and the ports read so far are the answer, streamed or in memory.
    from benchmarks.parsers import parse_file

    monkeypatch.setattr(parsers_pkg, "MAX_REPORT_LINES", 5)
    data = "".join(f"mlx5_{i} port 1 ==> ib{i} (Up)\n" for i in range(8)).encode()
    path = tmp_path / "report.txt"
    path.write_bytes(data)
    result = parse_file(lambda: path.open("rb")) if streamed else parse(data)
    assert result.kind == "ibdev2netdev"
    assert [p["device"] for p in result.summary["ports"]] == [f"mlx5_{i}" for i in range(5)]
    assert "only the first 5 lines were read; 3 more lines in the file were skipped" in " ".join(
        result.warnings
    )
