"""A bill's data quantity (inter-node traffic, egress, storage) in TB/PB/EB, its exact GB kept beside it."""

from __future__ import annotations

import html
import re
from decimal import Decimal
from typing import Any

import pytest
from django.test import Client
from django.utils import translation

from portal.formats import data_quantity
from portal.i18n import data_quantity_shown
from providers.models import Offering
from quotes import services
from quotes.display import quote_view
from quotes.models import Quote
from sizing import services as sizing_services
from tests.quotes.helpers import pdf_bytes, pdf_text


@pytest.mark.parametrize(
    ("quantity", "unit", "figure", "shown_unit", "exact"),
    [
        ("23695312500", "GB", "23.7", "EB", "23,695,312,500"),
        ("1500", "GB-month", "1.5", "TB-month", "1,500"),
        ("123456", "GB", "123", "TB", "123,456"),
        ("999", "GB", "999", "", ""),
        # the unit is picked after rounding: never "1,000 TB"
        ("999600", "GB", "1", "PB", "999,600"),
        ("999400", "GB", "999", "TB", "999,400"),
        ("999999999", "GB", "1", "EB", "999,999,999"),
        ("12.5", "GPU-hour", "12.5", "", ""),
        ("2000000", "GPU-hour", "2,000,000", "", ""),  # only data changes unit
    ],
)
def test_a_data_quantity_is_written_in_the_largest_unit_that_reads(
    quantity: str, unit: str, figure: str, shown_unit: str, exact: str
) -> None:
    assert tuple(data_quantity(Decimal(quantity), unit)) == (figure, shown_unit, exact)


def test_a_data_unit_that_is_a_word_is_translated_and_the_symbols_stay() -> None:
    with translation.override("zh-hans"):
        assert data_quantity_shown("1500", "GB-month") == ("1.5 TB·月", "1,500 GB·月")
        assert data_quantity_shown("23695312500", "GB") == ("23.7 EB", "23,695,312,500 GB")


@pytest.fixture
def traffic_quote(db: Any, buyer: Any, offering: Offering) -> Quote:
    """A 405B run over a cluster that bills its inter-node traffic: petabytes between the nodes."""
    Offering.objects.filter(pk=offering.pk).update(max_nodes=512, traffic_price_usd_per_gb=Decimal("0.01"))
    workload = sizing_services.workload_create(
        owner=buyer, preset="llama3-405b", train_tokens=1e13, deadline_days=3000
    )
    return services.quote_create_for_offering(
        owner=buyer, offering_slug=offering.slug, workload_id=workload.pk
    )


def _traffic_row(quote: Quote) -> dict[str, str]:
    rows = quote_view(quote.snapshot)["bill_rows"]
    return next(r for r in rows if r["item"] == "Inter-node traffic")


def test_the_quote_shows_inter_node_traffic_in_a_unit_and_its_exact_gb_under_it_and_in_the_pdf(
    traffic_quote: Quote, buyer: Any
) -> None:
    line = next(ln for ln in traffic_quote.snapshot["bill"]["lines"] if ln["item"] == "traffic")
    assert Decimal(line["quantity"]) >= 1000 and line["unit"] == "GB"
    row = _traffic_row(traffic_quote)
    assert re.fullmatch(r"[\d.]+ (TB|PB|EB)", row["quantity"]), row
    assert row["quantity_exact"] == f"{Decimal(line['quantity']):,.2f}".rstrip("0").rstrip(".") + " GB"
    client = Client()
    client.force_login(buyer)
    for language in ("en", "zh-hans"):
        page = html.unescape(
            client.get(f"/quotes/{traffic_quote.pk}/", HTTP_ACCEPT_LANGUAGE=language).content.decode()
        )
        assert f'title="{row["quantity_exact"]}"' in page and f">{row['quantity']}<" in page, language
        # printed, not only on hover (a phone has none): the unit column says GB, the unit of the price
        assert f'<span class="exact">{row["quantity_exact"]}</span>' in page, language
    services.quote_pdf_render(quote_id=traffic_quote.pk)
    traffic_quote.refresh_from_db()
    text = pdf_text(pdf_bytes(traffic_quote))
    assert row["quantity"] in text and row["quantity_exact"] in text
