"""The bound of an answer's price (and of every bound in US dollars) reads as money is written on the
portal's pages: "$200", never "200 $"; a page that shows yuan gives the bound in yuan with the dollar figure
the field is entered in beside it."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from django.utils import translation

from portal.i18n import translated_bound_error
from portal.money import Money, shown_in
from providers.facts import FACTS_BY_NAME, PLAN_BOUNDS
from tests.rfq.test_api import _answer, _send
from tests.rfq.test_pages import _answer_post, _login
from tests.rfq.test_pages import _send as _send_page

PRICE = PLAN_BOUNDS["price_usd_per_gpu_hour"]


def test_the_english_texts_put_the_dollar_sign_first() -> None:
    assert PRICE.range_text() == "greater than 0 and at most $200"
    assert PRICE.error(250) == "Price per GPU-hour must be greater than 0 and at most $200, got 250"
    setup = FACTS_BY_NAME["setup_fee_usd"]
    assert setup.range_text() == "between $0 and $100,000,000"
    with translation.override("en"):
        assert translated_bound_error(PRICE, 250.0) == PRICE.error(250)


def test_the_bound_is_written_by_the_pages_money_formatter() -> None:
    yuan = Money(code="CNY", per_usd=Decimal("7.0"), rate_as_of="2026-11-30", rate_source="CFETS")
    with translation.override("zh-hans"):
        dollars = translated_bound_error(PRICE, 250.0)
        with shown_in(yuan):
            converted = translated_bound_error(PRICE, 250.0)
    assert dollars is not None and "$200" in dollars and "200 $" not in dollars
    assert converted is not None and "¥1,400（$200）" in converted, converted
    with translation.override("en"), shown_in(yuan):
        assert "at most ¥1,400 ($200), got 250" in (translated_bound_error(PRICE, 250.0) or "")


@pytest.mark.django_db
def test_the_api_refuses_a_price_over_the_bound_in_dollars(world: dict[str, Any]) -> None:
    rfq_id = _send(world).json()["id"]
    refused = _answer(world, rfq_id, price_usd_per_gpu_hour="250")
    assert refused.status_code == 400
    assert refused.json()["message"] == (
        "price_usd_per_gpu_hour: Price per GPU-hour must be greater than 0 and at most $200, got 250"
    )


@pytest.mark.django_db
def test_the_answer_page_writes_the_bound_in_the_pages_currency(
    demo: dict[str, Any], yuan_at_7: None
) -> None:
    rfq = _send_page(_login("demo-buyer"))
    rep = _login("demo-provider")
    url = f"/rfqs/{rfq.pk}/answer/nebius-h100/"
    english = rep.post(url, _answer_post(price_usd_per_gpu_hour="250"), HTTP_ACCEPT_LANGUAGE="en")
    assert english.status_code == 400
    page = english.content.decode()
    assert "greater than 0 and at most $200, got 250" in page and "200 $" not in page
    chinese = rep.post(
        f"{url}?currency=CNY", _answer_post(price_usd_per_gpu_hour="250"), HTTP_ACCEPT_LANGUAGE="zh-hans"
    ).content.decode()
    assert "不超过 ¥1,400（$200）" in chinese and "200 $" not in chinese
