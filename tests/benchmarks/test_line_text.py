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
