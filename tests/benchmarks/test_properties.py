"""Robustness: arbitrary, binary, huge or empty input never crashes and ends recognised or clearly not."""

from __future__ import annotations

import time

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from benchmarks.parsers import KINDS, parse

from ._shared import FIXTURES

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
FRAGMENTS = [
    line
    for path in sorted(FIXTURES.glob("*.txt"))
    for line in path.read_text(errors="replace").splitlines()
    if line.strip()
]


def _check(data: bytes | str) -> None:
    result = parse(data)
    d = result.as_dict()
    assert set(d) == {"kind", "summary", "warnings", "errors"}
    if d["kind"] is None:
        assert d["errors"], "an unrecognised result must say why"
    else:
        assert d["kind"] in KINDS


@SETTINGS
@given(st.binary(max_size=4096))
def test_arbitrary_bytes(data: bytes) -> None:
    _check(data)


@SETTINGS
@given(st.text(max_size=2000))
def test_arbitrary_text(data: str) -> None:
    _check(data)


@SETTINGS
@given(st.lists(st.sampled_from(FRAGMENTS), max_size=60), st.sampled_from(["\n", "\r\n"]))
def test_shuffled_lines_of_real_formats(lines: list[str], newline: str) -> None:
    _check(newline.join(lines))


@SETTINGS
@given(st.lists(st.sampled_from(FRAGMENTS), min_size=1, max_size=30), st.integers(0, 200))
def test_truncated_inputs(lines: list[str], cut: int) -> None:
    _check("\n".join(lines)[: max(0, len("\n".join(lines)) - cut)])


def test_empty_and_blank_files() -> None:
    for data in (b"", b"\n\n\n", "   \t  \n"):
        result = parse(data)
        assert result.kind is None and "empty" in result.errors[0]


def test_binary_file_is_not_recognised() -> None:
    result = parse(bytes(range(256)) * 64)
    assert result.kind is None and "binary" in result.errors[0]


def test_huge_single_line_is_fast() -> None:
    start = time.perf_counter()
    for data in (b"9" * 2_000_000, b"- " * 1_000_000, b"=" * 500_000 + b" 2-node " + b"=" * 500_000):
        _check(data)
    assert time.perf_counter() - start < 5


def test_many_lines_are_linear() -> None:
    row = "  1048576  262144  float  sum  -1  93.25  11.24  21.08  0  82.98  12.64  23.69  0\n"
    start = time.process_time()  # CPU time: a busy machine must not fail the test
    result = parse(row * 50_000)
    assert result.kind == "nccl-tests"
    assert time.process_time() - start < 10
