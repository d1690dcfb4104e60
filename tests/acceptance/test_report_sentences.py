"""Sentences in a row on the acceptance report: a space between them on an English page, none after "。" on
a Chinese one (portal.i18n.sentences_joined); the stability counts pluralised, never "(s)"."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.test import Client
from django.utils import translation

from acceptance.models import AcceptanceRun
from portal.i18n import sentences_joined
from tests.acceptance.test_bundles import process, targz
from tests.pages import page_in
from tests.providers.factories import OfferingFactory, UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _media(settings: Any, tmp_path: Path) -> None:
    settings.MEDIA_ROOT = str(tmp_path / "media")


def test_sentences_are_joined_by_a_space_in_english_and_by_nothing_in_chinese() -> None:
    with translation.override("en"):
        assert sentences_joined(["One.", "", "Two.", "Three."]) == "One. Two. Three."
    with translation.override("zh-hans"):
        assert sentences_joined(["一。", None, "二。", "三。"]) == "一。二。三。"
        assert sentences_joined([]) == ""


def _paragraph(page: str, element_id: str) -> str:
    return page.split(f'id="{element_id}">')[1].split("</p>")[0]


def _run_with_stability(stability: dict[str, Any]) -> AcceptanceRun:
    run = process(OfferingFactory(), targz({"results/notes.txt": b"hello\n"}), owner=UserFactory())
    run.indicators = {**(run.indicators or {}), "stability": stability}
    run.save(update_fields=["indicators"])
    return run


def test_a_stability_that_cannot_be_measured_joins_its_two_sentences_in_the_pages_way(client: Client) -> None:
    run = _run_with_stability({"what_to_run": "Run the kit's stability loop."})
    assert run.status == "done"
    url = f"/benchmarks/acceptance/{run.pk}/"
    chinese = _paragraph(page_in(client, run.owner, url, "zh-hans"), "stability")
    assert chinese.startswith("无法从此归档测得。") and "。 " not in chinese, chinese
    english = _paragraph(page_in(client, run.owner, url, "en"), "stability")
    assert english == "Cannot be measured from this bundle. Run the kit&#x27;s stability loop.", english


@pytest.mark.parametrize(
    ("counts", "en", "zh"),
    [
        (
            {"iterations": 1, "interruptions": 1, "xid_events": 1, "hours": 24.0},
            "1 pass over 24.0 h; drift 3.5%; 1 interruption; 1 Xid or GPU-lost event.",
            "1 轮，历时 24.0 小时；漂移 3.5%；1 次中断；1 次 Xid 或 GPU 丢失事件。",
        ),
        (
            {"iterations": 12, "interruptions": 0, "xid_events": 2, "hours": None},
            "12 passes; drift 3.5%; 0 interruptions; 2 Xid or GPU-lost events.",
            "12 轮；漂移 3.5%；0 次中断；2 次 Xid 或 GPU 丢失事件。",
        ),
    ],
)
def test_the_stability_counts_are_pluralised_in_both_languages(
    client: Client, counts: dict[str, Any], en: str, zh: str
) -> None:
    run = _run_with_stability({"drift_pct": 3.5, **counts})
    url = f"/benchmarks/acceptance/{run.pk}/"
    assert _paragraph(page_in(client, run.owner, url, "en"), "stability") == en
    assert _paragraph(page_in(client, run.owner, url, "zh-hans"), "stability") == zh


def test_the_heading_names_the_offering_as_every_page_does(client: Client) -> None:
    run = process(OfferingFactory(), targz({"results/notes.txt": b"hello\n"}), owner=UserFactory())
    url = f"/benchmarks/acceptance/{run.pk}/"
    provider, name = run.offering.provider.shown_name, run.offering.name
    english = page_in(client, run.owner, url, "en").split("<h1>")[1].split("</h1>")[0]
    assert english == f"Acceptance report: {provider}: {name}", english
    chinese = page_in(client, run.owner, url, "zh-hans").split("<h1>")[1].split("</h1>")[0]
    assert chinese == f"验收报告：{provider}：{name}", chinese
