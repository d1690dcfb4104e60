"""A parse runs without cyclic garbage collection and leaves the collector as it found it."""

from __future__ import annotations

import gc

import pytest

import benchmarks.parsers as parsers
from benchmarks.parsers.result import ParseResult

from ._shared import FIXTURES


def test_the_collector_is_off_during_a_parse_and_back_on_after(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[bool] = []

    def parser(_text: object) -> ParseResult:
        seen.append(gc.isenabled())
        return ParseResult(kind="nccl-tests")

    monkeypatch.setattr(parsers, "_parser_for", lambda kind: parser)
    assert gc.isenabled()
    parsers.parse((FIXTURES / "nccl-one-rank.txt").read_bytes())
    assert seen == [False]
    assert gc.isenabled()


def test_a_failing_parser_and_a_collector_already_off_are_left_as_they_were(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def broken(_text: object) -> ParseResult:
        raise RuntimeError("boom")

    monkeypatch.setattr(parsers, "_parser_for", lambda kind: broken)
    data = (FIXTURES / "nccl-one-rank.txt").read_bytes()
    assert "RuntimeError: boom" in parsers.parse(data).errors[0]
    assert gc.isenabled()
    gc.disable()
    try:
        parsers.parse(data)
        assert not gc.isenabled()
    finally:
        gc.enable()
