"""Money as the buyer reads it: the one formatter of amounts for pages, charts, the API and the quote PDF.

Pure: no Django import. Every figure the model computes is in US dollars; `Money` says what it is shown in
(US dollars, or yuan at a dated rate: providers.currency picks the rate). Nothing stored is converted: a
figure is converted only as it is written out.

`shown_in(money)` makes a Money the active one while a page, a chart or a quote is drawn (like Django's
`translation.override` for the language), so the helpers deep in the quote's and the compare page's
tables print the buyer's currency without every function taking it as an argument.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from hardware.numbers import decimal_or_none as decimal_or_none  # re-exported: pages, charts, the quote

SYMBOLS = {"USD": "$", "CNY": "¥"}


def grouped(value: Decimal, places: int | None) -> str:
    """`1234567.891` -> "1,234,567.89" at `places` decimals (None: every digit, no trailing zeros)."""
    if places is None:
        return f"{value.normalize():,f}"
    return f"{value:,.{places}f}"


def symbol_text(symbol: str, value: Decimal, places: int | None) -> str:
    """`symbol` before the grouped figure: ("¥", 14.4, 3) -> "¥14.400"."""
    return symbol + grouped(value, places)


def amount_text(value: Any, places: int = 2) -> str | None:
    """A money figure as the API writes it: plain decimal text at two decimals ("1234.50"), None kept."""
    number = decimal_or_none(value)
    return None if number is None else f"{number:.{places}f}"


@dataclass(frozen=True)
class Money:
    """What US-dollar amounts are shown in: the currency code, its symbol and units per US dollar (None:
    US dollars, nothing converted), with the rate's source and date for the note beside the figures."""

    code: str = "USD"
    per_usd: Decimal | None = None
    rate_as_of: str = ""
    rate_source: str = ""
    rate_source_url: str = ""

    @property
    def symbol(self) -> str:
        return SYMBOLS.get(self.code, self.code + " ")

    @property
    def converted(self) -> bool:
        return self.per_usd is not None

    def convert(self, amount_usd: Any) -> Decimal | None:
        """A US-dollar amount in this currency (None stays None: not published is not zero)."""
        value = decimal_or_none(amount_usd)
        if value is None or self.per_usd is None:
            return value
        return value * self.per_usd

    def chart_value(self, amount_usd: Any) -> float | None:
        """A US-dollar amount in this currency as a chart coordinate."""
        value = self.convert(amount_usd)
        return None if value is None else float(value)

    def text(self, amount_usd: Any, places: int | None = 2, missing: str = "not published") -> str:
        """`$1,234,567.89` (or `¥8,888,888.81` in yuan), or `missing` for an amount nobody published.
        places=None keeps every digit of a unit price (storage is priced in fractions of a cent), with at
        least two decimals."""
        value = self.convert(amount_usd)
        if value is None:
            return missing
        if places is None and self.converted and value:
            # A converted unit price: the rate's product has digits nobody published ("¥0.46868368"); four
            # decimals, or three significant digits below a cent.
            value = value.quantize(Decimal(1).scaleb(min(-4, value.adjusted() - 2)))
            if "." in str(value):
                value = Decimal(str(value).rstrip("0").rstrip(".") or "0")
        if places is None and value == value.quantize(Decimal("0.01")):
            places = 2
        return symbol_text(self.symbol, value, places)

    def as_dict(self) -> dict[str, str]:
        """The JSON a quote's snapshot keeps (the rate frozen with the quote)."""
        return {
            "currency": self.code,
            "per_usd": "" if self.per_usd is None else str(self.per_usd),
            "as_of": self.rate_as_of,
            "source_name": self.rate_source,
            "source_url": self.rate_source_url,
        }

    @classmethod
    def from_dict(cls, data: Any) -> Money:
        """The Money a snapshot's "fx" names; US dollars when it names none or something unreadable."""
        if not isinstance(data, dict):
            return USD_MONEY
        rate = decimal_or_none(data.get("per_usd"))
        code = str(data.get("currency") or "USD")
        if rate is None or rate <= 0 or code not in SYMBOLS or code == "USD":
            return USD_MONEY
        return cls(
            code=code,
            per_usd=rate,
            rate_as_of=str(data.get("as_of") or ""),
            rate_source=str(data.get("source_name") or ""),
            rate_source_url=str(data.get("source_url") or ""),
        )


USD_MONEY = Money()
_ACTIVE: ContextVar[Money] = ContextVar("money_shown", default=USD_MONEY)


def active() -> Money:
    """The Money figures are being written in now (US dollars unless inside `shown_in`)."""
    return _ACTIVE.get()


@contextmanager
def shown_in(money: Money) -> Iterator[Money]:
    token = _ACTIVE.set(money)
    try:
        yield money
    finally:
        _ACTIVE.reset(token)
