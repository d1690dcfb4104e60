"""Numbers in sentences as a reader writes them, the same in every language: 1,600; 0.01; and a figure too
large or too small for its digits to be read at a glance in powers of ten, "1 × 10²⁰" (never Python's
"1e+20", nor 21 digits). Pure: the engine's messages, the catalog's bounds and the pages share it."""

from __future__ import annotations

import math
import sys
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from typing import Any

# Past these a figure is written as a power of ten: 10^15 (a quadrillion) has 16 digits; below 10^-4 a
# decimal needs more zeros than figures.
LARGEST_IN_DIGITS = 1e15
SMALLEST_IN_DIGITS = 1e-4
_SUPERSCRIPT = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")
# The largest number a float holds (about 1.8 x 10^308). JSON has integers of any length (Python's json reads
# a 400-digit one as an int), and float(), math.isfinite and numpy raise OverflowError past it.
FLOAT_MAX = sys.float_info.max


# Training days are shown to one place, rounded half up from the figure the model gives (272.45 -> "272.5"),
# as Django's floatformat rounds: the planner's table, the result page, the summary sentence, the deadline
# pitfall, the quote and its PDF and the compare table all write a day count through `days_text`, so one
# answer never reads 272.5 days in one place and 272.4 in another.
DAYS_PLACES = 1


def decimal_or_none(value: Any) -> Decimal | None:
    """A Decimal from a number or its text; None for None, "" and anything that is not a number (a bool,
    text that is no number, inf, nan). portal.money reads money through it, `days_value` day counts."""
    if value is None or value == "" or isinstance(value, bool):
        return None
    try:
        number = Decimal(str(value))
    except InvalidOperation:
        return None
    return number if number.is_finite() else None


def days_value(days: Any) -> Decimal | None:
    """The day count `days_text` writes, as a Decimal (so a sum or difference with the shown figure is exact);
    None for no figure (decimal_or_none)."""
    value = decimal_or_none(days)
    return None if value is None else value.quantize(Decimal(1).scaleb(-DAYS_PLACES), rounding=ROUND_HALF_UP)


def days_text(days: Any) -> str:
    """A number of days as every page, pitfall and quote shows it: 272.45 -> "272.5", 1234.5 -> "1,234.5";
    "—" for no figure."""
    value = days_value(days)
    return "—" if value is None else f"{value:,.{DAYS_PLACES}f}"


def about_days_text(days: Any) -> str:
    """The ends of a days range ("about 27 to 33 days"), as the result page's sentence and the run page's
    range under each answer's days both write them: whole days from 10 up, one place from 1, two significant
    figures below, each rounded half up from the figure given (33.46 -> "33", 4.25 -> "4.3"); "—" for none."""
    value = decimal_or_none(days)
    if value is None:
        return "—"
    tenths = value.quantize(Decimal("0.1"), rounding=ROUND_HALF_UP)
    if tenths >= 10:  # 9.96 is "10", not "10.0"
        return f"{value.quantize(Decimal(1), rounding=ROUND_HALF_UP):,}"
    if value >= 1:
        return f"{tenths}"
    if value == 0:
        return "0"
    # two significant figures: the place of the second one
    place = Decimal(1).scaleb(value.adjusted() - 1)
    return f"{value.quantize(place, rounding=ROUND_HALF_UP).normalize():f}"


def is_finite(value: float) -> bool:
    """Whether a number is one a float holds: not inf, nan, nor an integer past FLOAT_MAX (math.isfinite
    raises OverflowError on such an integer instead of answering)."""
    if isinstance(value, int):
        return -FLOAT_MAX <= value <= FLOAT_MAX
    return math.isfinite(value)


def is_nan_or_infinite(value: Any) -> bool:
    """inf or nan; an integer, however long, is neither (math.isfinite raises OverflowError on one past
    FLOAT_MAX)."""
    return not isinstance(value, int) and not math.isfinite(value)


def bound_operand(value: Any) -> float:
    """A value to hold to a bound: an integer as it is, exact however long (float() of one past FLOAT_MAX
    raises OverflowError), anything else as a float (TypeError or ValueError when it is no number)."""
    return value if isinstance(value, int) else float(value)


def figure_text(value: Any, places: int) -> str:
    """Thousands separators, at most `places` decimals, no trailing zeros ("1,234.5", "1,000")."""
    text = f"{value:,.{places}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def power_of_ten_text(value: float, figures: int = 3) -> str:
    """ "1 × 10²⁰", "2.5 × 10⁻⁵": at most `figures` significant figures, no trailing zeros."""
    # through Decimal: exact for a float, and an integer too large for a float (10**400) still has a form
    mantissa, exponent = format(Decimal(value), f".{figures - 1}e").split("e")
    if "." in mantissa:
        mantissa = mantissa.rstrip("0").rstrip(".")
    return f"{mantissa} × 10{str(int(exponent)).translate(_SUPERSCRIPT)}"


def number_text(value: float) -> str:
    """A number in a sentence: whole numbers with thousands separators, decimals to six places without
    trailing zeros (more where six would change the value), powers of ten outside [10^-4, 10^15); "inf" and
    "nan" as they are."""
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    magnitude = abs(value)
    if magnitude >= LARGEST_IN_DIGITS or 0 < magnitude < SMALLEST_IN_DIGITS:
        return power_of_ten_text(value)
    if float(value).is_integer():
        return f"{int(value):,}"
    text = figure_text(value, 6)
    if float(text.replace(",", "")) != float(value):
        # six places would round it (1.0000001 -> "1", a refused share then reads as inside its range)
        text = f"{value:,.15g}"
    return text


def value_text(value: Any) -> str:
    """A value an input gave, quoted in a refusal ("got ..."): a number as number_text writes it, anything
    else (a string, a list, true/false) as Python writes it, so the reader sees what was sent."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return number_text(value)
    return repr(value)
