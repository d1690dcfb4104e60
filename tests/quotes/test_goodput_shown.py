"""Goodput as a buyer reads it: one figure, to one decimal place (portal.formats.goodput_text), on the result
page, the run's ranking, the quote, its PDF and the compare chart, in English and Chinese. The quote showed
"99.6%" while the result and run pages showed "100%" for the same run."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client
from django.utils import translation

from portal.formats import goodput_text
from quotes import services
from quotes.display import quote_view
from sizing import services as sizing_services
from sizing.models import PlanResult
from tests.quotes.helpers import pdf_bytes, pdf_text

pytestmark = pytest.mark.django_db


@pytest.fixture
def result(buyer: Any, offering: Any, workload: Any, django_capture_on_commit_callbacks: Any) -> PlanResult:
    with django_capture_on_commit_callbacks(execute=True):
        run = sizing_services.plan_run_create(owner=buyer, workload=workload, offering_slugs=[offering.slug])
    found = PlanResult.objects.get(run=run, offering=offering)
    assert found.goodput is not None and 0 < found.goodput <= 1
    return found


def test_goodput_text_keeps_the_tenths() -> None:
    assert goodput_text(0.9961) == "99.6%"
    assert goodput_text(0.99) == "99.0%"
    assert goodput_text(None) == "—"


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_every_page_and_the_pdf_show_the_runs_goodput_alike(
    buyer: Any, offering: Any, result: PlanResult, language: str
) -> None:
    shown = goodput_text(result.goodput)
    assert re.fullmatch(r"\d+\.\d%", shown)
    client = Client()
    client.force_login(buyer)
    accept = {"HTTP_ACCEPT_LANGUAGE": language}
    page = client.get(f"/plan/{result.run_id}/{offering.slug}/", **accept).content.decode()
    row = re.search(r"<th>[^<]*</th><td[^>]*>([^<]*%)</td></tr>\s*</tbody>", page)
    assert f'<td class="num">{shown}</td>' in page, row
    ranking = client.get(f"/plan/{result.run_id}/", **accept).content.decode()
    cell = re.search(r'data-label="[^"]*">([^<]*)</td>\s*</tr>', ranking)
    assert re.search(rf'data-label="[^"]*">{re.escape(shown)}</td>', ranking), cell
    with translation.override(language):
        quote = services.quote_create_from_result(
            owner=buyer, run_id=result.run_id, offering_slug=offering.slug
        )
        view = quote_view(quote.snapshot)
    assert shown in dict(view["headline"]).values()
    assert shown in [v for _, v in view["goodput"]]
    quote_page = client.get(f"/quotes/{quote.pk}/", **accept).content.decode()
    assert f">{shown}<" in quote_page
    services.quote_pdf_render(quote_id=quote.pk)
    quote.refresh_from_db()
    assert shown in pdf_text(pdf_bytes(quote))
