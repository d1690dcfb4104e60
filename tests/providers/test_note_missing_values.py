"""A transcriber's note that records a value left empty ("-> max_nodes null", "(left null)") reads as a
sentence on the offering page and in the quote, in English and Simplified Chinese: never "null", "None" or
an ASCII "->". Every note of the shipped demo catalog is checked, so a new shape fails here."""

from __future__ import annotations

import datetime as dt
import re
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
import yaml
from django.test import Client
from django.utils import translation

from providers.models import Provenance
from providers.names import note_text
from tests.providers.factories import OfferingFactory, PlanFactory

ROOT = Path(__file__).resolve().parents[2]
ARTEFACT = re.compile(r"->|\bnull\b|\bNone\b")
CODE_AFTER_ARROW = re.compile(r"→ (?:nvswitch|nvlink-mesh|clos|roce|rail-optimized|infiniband)\b")


def _notes(node: Any) -> list[str]:
    if isinstance(node, dict):
        found = [v for k, v in node.items() if k in ("note", "notes", "fees_note") and isinstance(v, str)]
        return found + [n for v in node.values() for n in _notes(v)]
    if isinstance(node, list):
        return [n for v in node for n in _notes(v)]
    return []


@pytest.mark.parametrize(
    ("note", "english", "chinese"),
    [
        (
            "Open-ended upper bound -> max_nodes null.",
            "Open-ended upper bound, so Maximum nodes in one fabric is left blank.",
            "Open-ended upper bound，因此单一网络内最多节点数留空.",
        ),
        ("No single price -> null", "No single price, so it is left blank", "No single price，因此留空"),
        ("bare metal not stated -> left null", "bare metal not stated, so it is left blank", None),
        (
            "an open-ended size, so max_nodes stays null.",
            "an open-ended size, so Maximum nodes in one fabric is left blank.",
            None,
        ),
        ("(under a month, so term_months null)", "(under a month, so Term is left blank)", None),
        ("Left null: the figures conflict", "Left blank: the figures conflict", "留空: the figures conflict"),
        ("the accelerator stack is left null.", "the accelerator stack is left blank.", None),
        ("AWS figure unsure (null)", "AWS figure unsure (left blank)", "AWS figure unsure (留空)"),
        ("egress: null in the source catalog.", "egress: left blank in the source catalog.", None),
        ("'Non-blocking' -> 1.0.", "'Non-blocking' → 1.0.", "'Non-blocking' → 1.0."),
        # what an arrow records a phrase as: a fact's code, or a fact's name, read by its name
        (
            "'NVLink + NVSwitch Gen3' -> nvswitch (both directions)",
            "'NVLink + NVSwitch Gen3' → full-mesh (NVSwitch) (both directions)",
            "'NVLink + NVSwitch Gen3' → 全互联（NVSwitch） (both directions)",
        ),
        ("three-tier Clos -> clos, 1.0.", "three-tier Clos → Clos, 1.0.", None),
        ("'exclusive' -> dedicated.", "'exclusive' → dedicated.", "'exclusive' → 独占."),
        ("a claim -> exclusivity left null", "a claim → Exclusivity left blank", None),
        # a code two facts share stays as written
        ("a plugin -> other", "a plugin → other", None),
    ],
)
def test_a_value_left_empty_reads_as_words(note: str, english: str, chinese: str | None) -> None:
    with translation.override("en"):
        assert note_text(note) == english
    if chinese is not None:
        with translation.override("zh-hans"):
            assert note_text(note) == chinese


def test_no_note_of_the_demo_catalog_shows_an_artefact() -> None:
    catalog = yaml.safe_load((ROOT / "providers/demo/catalog.yaml").read_text())
    notes = _notes(catalog)
    assert len(notes) > 100 and sum(bool(ARTEFACT.search(n)) for n in notes) > 40
    for language in ("en", "zh-hans"):
        with translation.override(language):
            left = [shown for note in notes if ARTEFACT.search(shown := note_text(note))]
        assert left == [], (language, left[:5])
        # and no arrow points at a catalog code a buyer does not read ("→ nvswitch")
        with translation.override(language):
            coded = [shown for note in notes if CODE_AFTER_ARROW.search(shown := note_text(note))]
        assert coded == [], (language, coded[:5])


@pytest.mark.django_db
def test_the_offering_page_shows_group_and_plan_notes_in_words() -> None:
    offering = OfferingFactory(slug="notes-h100")
    Provenance.objects.create(
        offering=offering,
        group="network",
        as_of=dt.date(2026, 11, 1),
        note="Cluster size '16 to 2,000+ GPUs'. Open-ended upper bound -> max_nodes null.",
    )
    PlanFactory(
        offering=offering,
        name="Reserved",
        kind="reserved",
        price_usd_per_gpu_hour=Decimal("2.00"),
        note="deeper discounts at 181+ days (under a month, so term_months null); No single price -> null",
    )
    client = Client()
    english = client.get("/offerings/notes-h100/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Open-ended upper bound, so Maximum nodes in one fabric is left blank." in english
    assert "so Term is left blank" in english and "No single price, so it is left blank" in english
    chinese = client.get("/offerings/notes-h100/", HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "因此单一网络内最多节点数留空" in chinese
    for page in (english, chinese):
        assert not re.search(r"-&gt;|->|\bnull\b", page[page.index('class="factgroups"') :])
