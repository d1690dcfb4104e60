"""Numbers as the buyer reads them that are not money (portal.money): shares of a whole as percentages.

Pure: no Django import. The model, the parsers and the API keep fractions (an MFU of 0.5348); pages, the
quote and its PDF write them as percentages through `percent_text` (the `percent` filter of
providers/templatetags/units.py in templates), so one figure reads the same everywhere; goodput through
`goodput_text` (the `goodput_percent` filter), to one decimal place; training days through `days_text` (the
`days` filter; hardware.numbers, where the pitfall rules reach it too). A bill's data quantity (its GB of
inter-node traffic or egress, its GB-months of storage) in the unit a reader expects (`data_quantity`).
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any, NamedTuple

from hardware.numbers import about_days_text as about_days_text  # re-exported, as days_text
from hardware.numbers import days_text as days_text  # re-exported: pages and the quote take it from here
from hardware.numbers import days_value as days_value
from hardware.numbers import figure_text
from portal.money import decimal_or_none

# Goodput is close to 100% on most offerings (99.6%), where its tenths are the figure: a whole percentage
# would show 100% for a run that loses 0.4% of its wall clock (about three hours a month) to failures.
# Every page, the quote and its PDF, in every language, and the compare charts show it to this place.
GOODPUT_PLACES = 1


def figure(value: Any, places: int = 2) -> str:
    """A figure as the result page, the quote and its PDF show it, in every language: thousands separators, at
    most `places` decimals, no trailing zeros (5681.9 -> "5,681.9", 0.0 -> "0"); "—" for no figure."""
    d = decimal_or_none(value)
    return "—" if d is None else figure_text(d, places)


def goodput_text(fraction: Any) -> str:
    """A goodput fraction as every page shows it: 0.9961 -> "99.6%" (GOODPUT_PLACES)."""
    return percent_text(fraction, GOODPUT_PLACES)


def percent_text(fraction: Any, places: int = 0) -> str:
    """A fraction as a percentage: 0.5348 -> "53%" ("53.5%" at one place); "—" for no figure."""
    value = decimal_or_none(fraction)
    if value is None:
        return "—"
    return f"{value * 100:.{places}f}%"


# The bill prices data by the (decimal) GB: from a thousand GB on, a quantity is shown in the largest of these
# units that leaves a figure of at least 1 (23,695,312,500 GB of inter-node traffic is "23.7 EB").
DATA_UNITS = (("EB", Decimal(10**9)), ("PB", Decimal(10**6)), ("TB", Decimal(10**3)))
# The bill's units that are an amount of data (sizing.bill.UNIT_IDS), and what follows the data unit
DATA_UNIT_SUFFIXES = {"GB": "", "GB-month": "-month"}


class DataQuantity(NamedTuple):
    """A bill quantity as shown: `figure` and, for data, the `unit` it is written in ("23.7", "EB"; a word
    such as "TB-month" is a message id the page translates), and `exact`, the figure in the bill's own unit
    ("23,695,312,500") for a title or the PDF ("" when `figure` is already that)."""

    figure: str
    unit: str
    exact: str


def data_quantity(quantity: Any, unit: str) -> DataQuantity:
    """A bill line's quantity: data from 1,000 GB (or GB-months) on in TB, PB or EB to three significant
    figures, with the exact count of GB beside it; any other quantity to two places, as before."""
    value = decimal_or_none(quantity)
    if value is None:
        return DataQuantity("—", "", "")
    exact = figure_text(value, 2)
    if unit in DATA_UNIT_SUFFIXES:
        # the unit is picked after rounding to three figures: 999,600 GB is "1 PB", not "1,000 TB"
        rounded = Decimal(format(value, ".3g"))
        for name, scale in DATA_UNITS:
            if abs(rounded) >= scale:
                scaled = rounded / scale
                places = 0 if abs(scaled) >= 100 else 1 if abs(scaled) >= 10 else 2
                return DataQuantity(figure_text(scaled, places), name + DATA_UNIT_SUFFIXES[unit], exact)
    return DataQuantity(exact, "", "")
