"""Every code a page can show has a name: each enum and list fact's choices, and the kind of every source the
shipped catalog and the reference data cite."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from providers.facts import CHOICE_NAMES, FACTS, SOURCE_KIND_NAMES, choice_name, source_kind_name

ROOT = Path(__file__).resolve().parents[2]


def test_every_enum_and_list_code_has_a_name() -> None:
    named = [fact for fact in FACTS if fact.type in ("enum", "list")]
    assert {fact.name for fact in named} == set(CHOICE_NAMES)
    for fact in named:
        for code in fact.choices:
            assert code in CHOICE_NAMES[fact.name], (fact.name, code)
    assert choice_name("payment_terms", "net-30") == "Net 30 days"
    assert choice_name("schedulers", "not-a-code") == "not-a-code"


def _source_kinds(path: Path) -> set[str]:
    kinds: set[str] = set()

    def walk(node: object) -> None:
        if isinstance(node, dict):
            if {"title", "kind"} <= node.keys() and isinstance(node["kind"], str):
                kinds.add(node["kind"])
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(yaml.safe_load(path.read_text()))
    return kinds


def test_every_source_kind_the_catalogs_cite_has_a_name() -> None:
    files = sorted((ROOT / "providers").rglob("*.yaml"))
    shared = ROOT.parent / "shared" / "data"
    files += sorted(shared.glob("*.yaml")) if shared.is_dir() else []
    kinds = set().union(*(_source_kinds(f) for f in files))
    if not kinds:
        pytest.fail("no catalog file with sources was found")
    assert kinds - set(SOURCE_KIND_NAMES) == set()
    assert source_kind_name("third_party_code") == "third-party code"
    assert source_kind_name("some_new_kind") == "some new kind"
