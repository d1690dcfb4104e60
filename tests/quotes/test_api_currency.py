"""`?currency=` on the quote API: a quote issued through the API is in the asked currency (else the buyer's
setting), its JSON says which currency and at which rate, and an unknown code is a 400 naming the parameter.
The US-dollar fields keep their names and values (DESIGN section 8: add fields, never rename)."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from rest_framework.test import APIClient

from providers.currency import latest_rate
from providers.models import Currency, ExchangeRate
from quotes.models import Quote

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _yuan_rate(db: Any) -> None:
    """A migration seeds the first CFETS rate; a transactional test elsewhere may have flushed it."""
    ExchangeRate.objects.get_or_create(
        currency=Currency.CNY,
        as_of="2024-12-31",
        defaults={
            "per_usd": "7.1884",
            "source_name": "CFETS",
            "source_url": "https://www.chinamoney.com.cn/",
        },
    )


def _api(user: Any) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def _body(offering: Any, workload: Any) -> dict[str, Any]:
    return {"offering": offering.slug, "workload": workload.pk}


def test_a_quote_asked_in_yuan_is_issued_and_answered_in_yuan(
    buyer: Any, offering: Any, workload: Any
) -> None:
    rate = latest_rate(Currency.CNY)
    assert rate is not None
    created = _api(buyer).post("/api/v1/quotes/?currency=CNY", _body(offering, workload), format="json")
    assert created.status_code == 201, created.json()
    body = created.json()
    quote = Quote.objects.get(pk=body["id"])
    assert quote.snapshot["fx"]["currency"] == "CNY"
    assert body["currency"] == "CNY"
    assert body["total_usd"] == str(quote.total_usd)  # the dollar field unchanged
    assert Decimal(body["total"]) == (quote.total_usd * rate.per_usd).quantize(Decimal("0.01"))
    assert body["fx"]["per_usd"] == str(rate.per_usd) and body["fx"]["as_of"] == rate.as_of.isoformat()
    detail = _api(buyer).get(f"/api/v1/quotes/{quote.pk}/").json()
    assert (detail["currency"], detail["total"], detail["fx"]) == ("CNY", body["total"], body["fx"])
    listed = _api(buyer).get("/api/v1/quotes/").json()["results"][0]
    assert listed["currency"] == "CNY" and listed["total"] == body["total"]


def test_a_quote_in_dollars_says_so(buyer: Any, offering: Any, workload: Any) -> None:
    body = _api(buyer).post("/api/v1/quotes/?currency=usd", _body(offering, workload), format="json").json()
    assert body["currency"] == "USD" and body["total"] == body["total_usd"] and body["fx"] is None


def test_without_the_parameter_the_buyers_setting_is_used(buyer: Any, offering: Any, workload: Any) -> None:
    """A script authenticates by token: the buyer's yuan setting applies, not a dollar default."""
    buyer.currency = Currency.CNY
    buyer.save(update_fields=["currency"])
    body = _api(buyer).post("/api/v1/quotes/", _body(offering, workload), format="json").json()
    assert body["currency"] == "CNY"
    asked = _api(buyer).post("/api/v1/quotes/?currency=USD", _body(offering, workload), format="json").json()
    assert asked["currency"] == "USD"


@pytest.mark.parametrize("code", ["XYZ", "EUR", "yuan"])
def test_an_unknown_currency_is_a_400_naming_the_parameter(
    buyer: Any, offering: Any, workload: Any, code: str
) -> None:
    response = _api(buyer).post(f"/api/v1/quotes/?currency={code}", _body(offering, workload), format="json")
    assert response.status_code == 400
    body = response.json()
    assert set(body) == {"message", "extra"} and body["message"].startswith("currency: ")
    assert "USD" in body["message"] and "CNY" in body["message"]
    assert set(body["extra"]["fields"]) == {"currency"}
    assert not Quote.objects.exists()


def test_yuan_without_a_recorded_rate_is_refused_not_issued_in_dollars(
    buyer: Any, offering: Any, workload: Any
) -> None:
    ExchangeRate.objects.all().delete()
    response = _api(buyer).post("/api/v1/quotes/?currency=CNY", _body(offering, workload), format="json")
    assert response.status_code == 400 and response.json()["message"].startswith("currency: ")
    assert not Quote.objects.exists()
