"""Charts, tables and the checklist name an offering and a fact's value with the page's colon: ": " in
English, "：" in Chinese (the catalog's "a provider and its offering", as Offering.shown_title)."""

from __future__ import annotations

from types import SimpleNamespace

from django.utils import translation

from checks.display import checklist_view
from compare.charts.common import offering_labels, row_head


def _offering(pk: int) -> SimpleNamespace:
    provider = SimpleNamespace(shown_name="Good Cloud", name="Good Cloud")
    return SimpleNamespace(pk=pk, provider=provider, name="H100 cluster", slug=f"h{pk}", fictional=False)


def test_a_chart_row_and_axis_label_use_the_pages_colon() -> None:
    offering = _offering(1)
    assert row_head(offering) == "Good Cloud: H100 cluster"
    with translation.override("zh-hans"):
        assert row_head(offering) == "Good Cloud：H100 cluster"
        assert "Good Cloud：H100 cluster" in next(iter(offering_labels([offering]).values()))


def test_a_checklist_fact_reference_uses_the_pages_colon() -> None:
    item = {
        "key": "fabric",
        "status": "answered",
        "answer": "",
        "refs": [{"fact": "fabric", "value": "infiniband"}],
    }
    assert ": InfiniBand" in checklist_view("good", item, None, None)["refs"][0]["text"]
    with translation.override("zh-hans"):
        text = checklist_view("good", item, None, None)["refs"][0]["text"]
    assert "：InfiniBand" in text and ": " not in text, text
