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


def test_what_a_parse_leaves_is_aged_not_scanned_and_frozen_objects_stay_frozen() -> None:
    data = (FIXTURES / "nccl-one-rank.txt").read_bytes()
    gc.collect()
    parsers.parse(data)
    assert gc.get_count()[0] < 50  # the parse's objects are in the oldest generation, not the youngest
    assert gc.get_freeze_count() == 0
    kept = [[] for _ in range(10)]
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        parsers.parse(data)
        assert gc.get_freeze_count() == frozen
    finally:
        gc.unfreeze()
    assert kept
