"""The upload page's cited lines: ranges for runs of lines, a run's first and last line as its span."""

from __future__ import annotations

import pytest

from benchmarks.templatetags.verdict_words import line_text


@pytest.mark.parametrize(
    ("lines", "shown"),
    [
        ([2, 3, 4, 5], "2–5"),  # nvidia-smi topo's GPU rows (it read "2–3–4–5")
        ([3, 40], "3–40"),  # a collective run's first and last line
        ([7, 12, 19], "7, 12, 19"),  # the ports that pass
        ([1, 2, 5, 9], "1–2, 5, 9"),
        ([5], "5"),
        ([0, 0], ""),  # a run whose lines the parser did not give
        ([], ""),
        (None, ""),
    ],
)
def test_cited_lines_read_as_ranges_and_lists(lines: object, shown: str) -> None:
    assert line_text(lines) == shown


def test_a_prepend_rank_tag_glued_inside_a_line_is_dropped_only_in_a_table_row() -> None:
    # review: NCCL's `rank[cudaDev]` notation lost its first `[0]` after a Hydra tag
    from benchmarks.parsers.text import clean_line

    channel = "[0] host:1:1 [0] NCCL INFO Channel 00/02 : 0[0] -> 1[1] via P2P/IPC"
    assert clean_line(channel) == "host:1:1 [0] NCCL INFO Channel 00/02 : 0[0] -> 1[1] via P2P/IPC"
    assert clean_line("[0] arr[0] = 5") == "arr[0] = 5"
    row = "[0]      1048576        262144     float     sum      -1[0]    1626.5    0.64    1.24      0"
    assert (
        clean_line(row)
        == "     1048576        262144     float     sum      -1    1626.5    0.64    1.24      0"
    )
