"""Counts in the log readers' warnings, the verdicts' details, the findings, the bill and the acceptance
report are words that follow the count ("1 line was cut", "3 lines were cut"), never "(s)", and each form
has its Chinese in the compiled catalog."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from django.utils import translation
from django.utils.translation import ngettext

from benchmarks.parsers import parse
from benchmarks.parsers.text import MAX_LINE_CHARS
from portal.i18n import translated
from tests.benchmarks._shared import FIXTURES

ROOT = Path(__file__).resolve().parents[2]
BENCHMARKS = ROOT / "benchmarks"
VERDICTS = [
    BENCHMARKS / name
    for name in ("compare.py", "compare_dmesg.py", "compare_fabric.py", "internode.py", "verdicts.py")
]
OTHERS = [
    *(ROOT / "acceptance").glob("*.py"),
    *(ROOT / "checks" / "rules").glob("*.py"),
    ROOT / "sizing" / "bill.py",
]
SOURCES = sorted([*(BENCHMARKS / "parsers").rglob("*.py"), *VERDICTS, *OTHERS])


def _marked(path: Path) -> list[tuple[str, ast.Call]]:
    calls = []
    for node in ast.walk(ast.parse(path.read_text())):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in ("_", "ngettext")
        ):
            if node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
                calls.append((node.func.id, node))
    return calls


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_sentence_writes_a_count_as_s_in_brackets(path: Path) -> None:
    left = [call.args[0].value for _kind, call in _marked(path) if "(s)" in call.args[0].value]
    assert not left, left


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_plural_has_its_chinese_in_the_catalog(path: Path) -> None:
    plurals = [call for kind, call in _marked(path) if kind == "ngettext" and len(call.args) >= 2]
    with translation.override("zh-hans"):
        missing = [
            call.args[0].value
            for call in plurals
            if isinstance(call.args[1], ast.Constant)
            and ngettext(call.args[0].value, call.args[1].value, 1) == call.args[0].value
        ]
    assert not missing, missing


@pytest.mark.parametrize(("lines", "english"), [(1, "1 line longer than"), (2, "2 lines longer than")])
def test_a_cut_line_warning_counts_in_words_in_both_languages(lines: int, english: str) -> None:
    log = (FIXTURES / "nccl-one-rank.txt").read_bytes()
    result = parse(b"".join(b"x" * (MAX_LINE_CHARS + 10) + b"\n" for _ in range(lines)) + log)
    [warning] = [w for w in result.warnings if "characters" in w]
    assert warning.startswith(english) and "(s)" not in warning
    with translation.override("zh-hans"):
        assert translated(warning.as_json(), "") != str(warning)
