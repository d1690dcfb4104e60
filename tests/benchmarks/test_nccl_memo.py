"""The nccl-tests readers that remember their answers (reading.memoised, issue 21) answer as when read
afresh, whatever the caller does with an answer and whatever the line before a column header says."""

from __future__ import annotations

import pytest

from benchmarks.parsers.nccl import reading

HEADER = "# nThread 1 nGpus 8 minBytes 8 maxBytes 128M step: 2(factor) warmup iters: 5 iters: 20"
COLUMNS_ONE_GROUP = "#       size    count   type   redop   root   time   algbw   busbw  #wrong"


def test_a_changed_answer_does_not_change_the_next_one() -> None:
    fields = reading.read_header_fields(HEADER)
    assert fields is not None and fields["nGpus"] == 8
    fields["nGpus"] = 99
    assert reading.read_header_fields(HEADER) == {**fields, "nGpus": 8}
    found = reading.read_run_fields("# Out of bounds values : 3 FAILED")
    assert found == ({"oob": 3, "oob_flag": "FAILED"}, True)
    found[0]["oob"] = 0
    assert reading.read_run_fields("# Out of bounds values : 3 FAILED") == (
        {"oob": 3, "oob_flag": "FAILED"},
        True,
    )
    hints = reading.read_command_hints("mpirun -np 16 ./all_reduce_perf -g 1")
    hints.clear()
    assert reading.read_command_hints("mpirun -np 16 ./all_reduce_perf -g 1") != []


@pytest.mark.parametrize(
    "previous",
    ["#            in-place", "#   out-of-place", "#   out-of-place    in-place", "#", "", "x in-place y"],
)
def test_a_remembered_layout_is_read_with_the_line_before(previous: str) -> None:
    for _ in range(2):  # once read, once remembered
        layout = reading.parse_column_header(COLUMNS_ONE_GROUP, previous)
        assert layout == reading._column_layout(COLUMNS_ONE_GROUP, previous)
        layout.single_group_placement = "changed"
    assert reading.parse_column_header(COLUMNS_ONE_GROUP, "# in-place").single_group_placement == "in-place"


@pytest.mark.parametrize("length", [reading.MEMO_LINE_CHARS, reading.MEMO_LINE_CHARS + 1])
def test_long_lines_are_read_the_same(length: int) -> None:
    line = ("# nccl-tests version 2.17.8 nccl-headers=22902 nccl-library=22902 ").ljust(length, "x")
    assert reading.read_version(line) == ("2.17.8", "2.29.2")
    header = HEADER.ljust(length)
    assert reading.read_header_fields(header) == reading.read_header_fields(HEADER)
