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


def test_what_a_parse_leaves_is_aged_not_scanned_and_frozen_objects_stay_frozen(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    data = (FIXTURES / "nccl-one-rank.txt").read_bytes()
    gc.collect()
    parsers.parse(data)
    assert gc.get_count()[0] < 50  # the parse's objects are in the oldest generation, not the youngest
    assert gc.get_freeze_count() == 0
    kept = [[] for _ in range(10)]
    freeze, unfreeze = gc.freeze, gc.unfreeze
    freeze()
    try:
        frozen = gc.get_freeze_count()
        # a process that froze objects of its own (before forking workers) keeps them frozen: the parse
        # neither unfreezes them nor freezes its own. (Comparing freeze counts instead was flaky: a frozen
        # object the parse's caches let go of is freed and leaves the count, which is no unfreeze.)
        calls: list[str] = []
        monkeypatch.setattr(gc, "freeze", lambda: calls.append("freeze"))
        monkeypatch.setattr(gc, "unfreeze", lambda: calls.append("unfreeze"))
        parsers.parse(data)
        assert calls == []
        assert gc.get_freeze_count() > frozen // 2  # nothing thawed the frozen generation
    finally:
        monkeypatch.undo()
        unfreeze()
    assert kept
