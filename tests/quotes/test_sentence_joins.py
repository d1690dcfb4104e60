"""The quote's exchange-rate note is two sentences in a row: a space between them in English, none after
"。" in Chinese (the `sentences` tag)."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest
from django.test import Client
from django.utils import translation

from providers.models import Currency, ExchangeRate
from quotes.services import quote_create_for_offering
from sizing.services import workload_create
from tests.pages import page_in
from tests.providers.factories import UserFactory
from tests.quotes.conftest import make_offering

pytestmark = pytest.mark.django_db


def _fx_note(page: str) -> str:
    return page.split('id="quote-fx">')[1].split("</p>")[0]


@pytest.mark.parametrize(
    ("language", "joint"),
    [("en", "2026-11-30). The bill is computed"), ("zh-hans", "2026-11-30）。账单以美元计算")],
)
def test_the_exchange_rate_note_joins_its_two_sentences_in_the_quotes_language(
    client: Client, language: str, joint: str
) -> None:
    ExchangeRate.objects.all().delete()
    ExchangeRate.objects.create(
        currency=Currency.CNY,
        per_usd=Decimal("7.2000"),
        as_of=date(2026, 11, 30),
        source_name="Test central parity",
        source_url="https://example.org/rate",
    )
    buyer = UserFactory(currency="CNY")
    offering = make_offering()
    workload = workload_create(owner=buyer, preset="13b", train_tokens=3e11)
    with translation.override(language):
        quote = quote_create_for_offering(owner=buyer, offering_slug=offering.slug, workload_id=workload.pk)
    note = _fx_note(page_in(client, buyer, f"/quotes/{quote.pk}/", language))
    assert joint in note and "。 " not in note, note
