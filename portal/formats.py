"""Numbers as the buyer reads them that are not money (portal.money): shares of a whole as percentages.

Pure: no Django import. The model, the parsers and the API keep fractions (an MFU of 0.5348); pages, the
quote and its PDF write them as percentages through `percent_text` (the `percent` filter of
providers/templatetags/units.py in templates), so one figure reads the same everywhere; goodput through
`goodput_text` (the `goodput_percent` filter), to one decimal place.
"""

from __future__ import annotations

from typing import Any

from portal.money import decimal_or_none

# Goodput is close to 100% on most offerings (99.6%), where its tenths are the figure: a whole percentage
# would show 100% for a run that loses 0.4% of its wall clock (about three hours a month) to failures.
# Every page, the quote and its PDF, in every language, and the compare charts show it to this place.
GOODPUT_PLACES = 1


def goodput_text(fraction: Any) -> str:
    """A goodput fraction as every page shows it: 0.9961 -> "99.6%" (GOODPUT_PLACES)."""
    return percent_text(fraction, GOODPUT_PLACES)


def percent_text(fraction: Any, places: int = 0) -> str:
    """A fraction as a percentage: 0.5348 -> "53%" ("53.5%" at one place); "—" for no figure."""
    value = decimal_or_none(fraction)
    if value is None:
        return "—"
    return f"{value * 100:.{places}f}%"
