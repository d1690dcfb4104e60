"""The acceptance report's chart and header in the page's language: the scaling chart's name, axis titles
and hover text come translated from the view (no English in its script), and the offering is named
"Provider：Offering" with the full-width colon on a Chinese page."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from django.test import Client

from acceptance.models import AcceptanceRun
from tests.acceptance.test_bundles import process, targz
from tests.pages import page_in
from tests.providers.factories import OfferingFactory, ProviderFactory, UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _media(settings: Any, tmp_path: Path) -> None:
    settings.MEDIA_ROOT = str(tmp_path / "media")


@pytest.fixture
def run() -> AcceptanceRun:
    offering = OfferingFactory(provider=ProviderFactory(name="Acme Cloud"), name="H100 pods")
    done = process(offering, targz({"results/notes.txt": b"hello\n"}), owner=UserFactory())
    curve = [{"nodes": 1, "busbw_gbps": 360.0}, {"nodes": 2, "busbw_gbps": 350.84}]
    done.indicators = {**(done.indicators or {}), "scaling_efficiency": {"curve": curve}}
    done.save(update_fields=["indicators"])
    return done


def _chart(page: str) -> dict[str, Any]:
    found = re.search(r'<script id="curve-data" type="application/json">(.*?)</script>', page, re.S)
    assert found, "the chart's data"
    return json.loads(found.group(1))


def _script(page: str) -> str:
    """The script that draws the chart, from its call of Plotly on."""
    return page.split('Plotly.newPlot("curve-chart"')[1].split("</script>")[0]


@pytest.mark.parametrize(
    ("language", "words"),
    [
        (
            "en",
            {
                "hover": ["1 node: 360 GB/s", "2 nodes: 350.8 GB/s"],
                "name": "busbw at the largest message size",
                "x_title": "nodes",
                "y_title": "busbw (GB/s)",
            },
        ),
        (
            "zh-hans",
            {
                "hover": ["1 个节点：360 GB/s", "2 个节点：350.8 GB/s"],
                "name": "最大消息时的 busbw",
                "x_title": "节点数",
                "y_title": "busbw（GB/s）",
            },
        ),
    ],
)
def test_the_scaling_charts_words_come_in_the_pages_language(
    client: Client, run: AcceptanceRun, language: str, words: dict[str, Any]
) -> None:
    page = page_in(client, run.owner, f"/benchmarks/acceptance/{run.pk}/", language)
    chart = _chart(page)
    assert chart == {"x": [1, 2], "y": [360.0, 350.84], **words}
    script = _script(page)
    assert "nodes" not in script and "busbw" not in script and "GB/s" not in script, script


@pytest.mark.parametrize(
    ("language", "title"), [("en", "Acme Cloud: H100 pods"), ("zh-hans", "Acme Cloud：H100 pods")]
)
def test_the_report_names_the_offering_with_the_pages_colon(
    client: Client, run: AcceptanceRun, language: str, title: str
) -> None:
    page = page_in(client, run.owner, f"/benchmarks/acceptance/{run.pk}/", language)
    assert f'<a href="{run.offering.get_absolute_url()}">{title}</a>' in page
    index = page_in(client, run.owner, "/benchmarks/", language)
    assert f">{title}</a>" in index
