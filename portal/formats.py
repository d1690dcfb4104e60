"""Numbers as the buyer reads them that are not money (portal.money): shares of a whole as percentages.

Pure: no Django import. The model, the parsers and the API keep fractions (an MFU of 0.5348); pages, the
quote and its PDF write them as percentages through `percent_text` (the `percent` filter of
providers/templatetags/units.py in templates), so one figure reads the same everywhere.
"""

from __future__ import annotations

from typing import Any

from portal.money import decimal_or_none


def percent_text(fraction: Any, places: int = 0) -> str:
    """A fraction as a percentage: 0.5348 -> "53%" ("53.5%" at one place); "—" for no figure."""
    value = decimal_or_none(fraction)
    if value is None:
        return "—"
    return f"{value * 100:.{places}f}%"
