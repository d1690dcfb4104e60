"""Prices in US dollars or yuan: the dated exchange rate, the currency a request shows, and conversion.

Stored prices keep their own currency (BillingPlan.price_currency and price_native_per_gpu_hour); the bill the
model computes is in US dollars, and pages convert it for display with the latest ExchangeRate, whose rate and
date are shown beside every converted figure. A currency without a recorded rate is never guessed: the page
stays in US dollars and says why.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from django.core.exceptions import ValidationError
from django.utils.translation import gettext

from portal.money import SYMBOLS, USD_MONEY, Money
from providers.models import BillingPlan, Currency, ExchangeRate

SHOWN = tuple(Currency.values)
COOKIE = "currency"


@dataclass(frozen=True)
class Display:
    """What a page shows prices in: the currency, the rate used (None for US dollars) and, when the asked
    currency could not be honoured, why."""

    currency: str
    rate: ExchangeRate | None = None
    note: str = ""

    @property
    def symbol(self) -> str:
        return SYMBOLS[Currency(self.currency)]

    @property
    def money(self) -> Money:
        """The formatter of this display (portal.money), carrying the rate, its source and date."""
        if self.rate is None:
            return USD_MONEY
        return Money(
            code=self.currency,
            per_usd=self.rate.per_usd,
            rate_as_of=self.rate.as_of.isoformat(),
            rate_source=self.rate.source_name,
            rate_source_url=self.rate.source_url,
        )

    def convert(self, amount_usd: Any) -> Decimal | None:
        """A US-dollar amount in this currency (None stays None: not published is not zero)."""
        return self.money.convert(amount_usd)


USD = Display(Currency.USD)


def latest_rate(currency: str) -> ExchangeRate | None:
    """The most recent recorded rate for a currency, or None when none is recorded."""
    return ExchangeRate.objects.filter(currency=currency).order_by("-as_of", "-pk").first()


def display_for(asked: str | None) -> Display:
    """The display for an asked currency code (from ?currency=, the cookie or the user's setting)."""
    code = (asked or Currency.USD).strip().upper()
    if code not in SHOWN:
        note = gettext("%(code)s is not offered (USD or CNY); prices are in US dollars.") % {"code": code[:8]}
        return Display(Currency.USD, note=note)
    if code == Currency.USD:
        return USD
    rate = latest_rate(code)
    if rate is None:
        note = gettext("No %(code)s exchange rate is recorded yet; prices are in US dollars.") % {
            "code": code
        }
        return Display(Currency.USD, note=note)
    return Display(code, rate)


def asked_currency(request: Any) -> str | None:
    """?currency= first, then the cookie a previous choice set, then the signed-in user's setting."""
    asked = request.GET.get("currency") or request.COOKIES.get(COOKIE)
    if asked:
        return str(asked)
    user = getattr(request, "user", None)
    return getattr(user, "currency", None) if user is not None and user.is_authenticated else None


def api_currency(params: Any) -> str | None:
    """The currency an API request asks for with `?currency=` (USD or CNY, any case); None when it asks for
    none (the buyer's setting applies: a script signed in by token has no cookie or session). A code the
    portal does not offer, or yuan while no rate is recorded, is refused naming the parameter: an API answer
    is never quietly in another currency than the one asked for."""
    asked = str(params.get("currency") or "").strip()
    if not asked:
        return None
    code = asked.upper()
    if code not in SHOWN:
        message = gettext("%(code)s is not offered: give USD or CNY") % {"code": asked[:8]}
        raise ValidationError({"currency": message})
    if code != Currency.USD and latest_rate(code) is None:
        message = gettext("no %(code)s exchange rate is recorded yet: give USD") % {"code": code}
        raise ValidationError({"currency": message})
    return code


def shown_currency(request: Any) -> str:
    """The currency code the request's pages show (CurrencyMiddleware's choice; US dollars without it)."""
    shown = getattr(request, "currency_display", None)
    return str(shown.currency) if shown is not None else Currency.USD


def usd_from(amount: Decimal, currency: str) -> tuple[Decimal, str]:
    """(the US-dollar price for an amount published in `currency`, the note naming the rate used). Refuses a
    currency with no recorded rate rather than guessing one."""
    if currency == Currency.USD:
        return amount, ""
    rate = latest_rate(currency)
    if rate is None:
        raise ValueError(
            f"no {currency} exchange rate is recorded: add one (staff admin) before pricing in {currency}"
        )
    usd = (amount / rate.per_usd).quantize(Decimal("0.0001"), rounding=ROUND_HALF_UP)
    note = (
        f"published as {amount} {currency}/GPU-hour; converted at {rate.per_usd} {currency}/USD "
        f"({rate.source_name}, {rate.as_of.isoformat()})"
    )
    return usd, note


def plan_price_set(plan: BillingPlan, amount: Decimal | None, currency: str) -> BillingPlan:
    """Set a plan's price as published: its own currency kept, the US-dollar price derived (unsaved)."""
    plan.price_currency = currency
    if amount is None:
        plan.price_native_per_gpu_hour = None
        plan.price_usd_per_gpu_hour = None
        return plan
    usd, note = usd_from(Decimal(str(amount)), currency)
    plan.price_native_per_gpu_hour = None if currency == Currency.USD else Decimal(str(amount))
    plan.price_usd_per_gpu_hour = usd
    if note and note not in plan.note:
        plan.note = f"{plan.note}; {note}" if plan.note else note
    return plan
