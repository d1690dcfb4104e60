"""Ranges of the numbers an offering and a call may give the engine, the same the portal holds them to.

The portal's forms, API and database keep every offering fact inside its range (providers.facts.FACTS);
an offering given to the engine directly (`size --offering FILE`, `sizing.engine.evaluate`) is held to the
same ranges here, so that a typing error (a NaN, an infinite or negative failure rate, a 10^300 Gb/s NIC)
is refused naming the field and its range instead of turning into NaN days or an infinite bandwidth.
"""

from __future__ import annotations

import math
from typing import Any

from hardware.messages import Msg, UnitWord, _
from hardware.numbers import FLOAT_MAX, is_finite, number_text, value_text
from providers.facts import FACTS_BY_NAME, PRICE_CAP_USD_PER_GPU_HOUR, UNIT_WORDS, Bound

from .errors import InputError

# The offering facts the engine reads, by the name it reads them under. `nodes` (the contract's cluster
# size) is bounded as the catalog's `max_nodes`; the headline price as a plan's price, where 0 stays allowed
# (the engine has always read 0 as "no price to bill").
OFFERING_BOUNDS: dict[str, Bound] = {
    name: bound
    for name, fact in FACTS_BY_NAME.items()
    if fact.type in ("int", "float", "decimal") and (bound := fact.bound) is not None
}
OFFERING_BOUNDS["nodes"] = OFFERING_BOUNDS["max_nodes"]
OFFERING_BOUNDS["price_usd_per_gpu_hour"] = Bound(
    "Price per GPU-hour", 0, PRICE_CAP_USD_PER_GPU_HOUR, "$", source="about 10x the highest published price"
)

# The largest job the engine sizes, in GPUs (a layout's tp*pp*dp*cp, --gpus, each layout integer): the
# portal's bound on a run's GPUs (sizing.services.MAX_RUN_GPUS, compare.sized.GPUS_MAX). Beyond it a layout
# of 4e30 GPUs was answered with goodput 0.0 and 1e82 expected failures.
GPUS_MAX = 131_072
# Alternatives a search lists at most (`size --top`): each is a full evaluation to report.
TOP_MAX = 100
# A deadline of more than ten years is a typing error (sizing.models.WORKLOAD_BOUNDS, deadline_days).
DEADLINE_DAYS_MAX = 3650


def _range_error(bound: Bound, got: str) -> Msg:
    """ "must be between 1 and 1,600 Gb/s, got 1e+300" as a translatable sentence."""
    high = number_text(bound.maximum) if bound.maximum is not None else ""
    # a unit that is a word is translated after the value; a symbol (GB/s, %) stays as it is; dollars go
    # before the figure, as money is written everywhere ("at most $200")
    unit: str = UnitWord(bound.unit) if bound.unit in UNIT_WORDS else bound.unit
    money = unit == "$"
    if money:
        unit, high = "", f"${high}"
    if bound.strictly_positive:
        if unit:
            return _(
                "must be greater than 0 and at most %(high)s %(unit)s, got %(got)s",
                high=high,
                unit=unit,
                got=got,
            )
        return _("must be greater than 0 and at most %(high)s, got %(got)s", high=high, got=got)
    low = ("$" if money else "") + number_text(bound.minimum if bound.minimum is not None else 0)
    if unit:
        return _(
            "must be between %(low)s and %(high)s %(unit)s, got %(got)s",
            low=low,
            high=high,
            unit=unit,
            got=got,
        )
    return _("must be between %(low)s and %(high)s, got %(got)s", low=low, high=high, got=got)


def check_float_range(field: str, value: Any, bound: Bound | None = None) -> None:
    """An integer no float holds (a JSON number of 400 digits) refused naming `field` and the range of `bound`
    (none given: the range of a float), before a check or a computation calls float() on it and raises
    OverflowError; any other value is left to the caller's checks."""
    if isinstance(value, int) and not isinstance(value, bool) and not is_finite(value):
        got = value_text(value)
        if bound is not None:
            raise InputError(field, _range_error(bound, got))
        high = number_text(FLOAT_MAX)
        raise InputError(
            field, _("must be between %(low)s and %(high)s, got %(got)s", low=f"-{high}", high=high, got=got)
        )


def check_number(field: str, value: Any, bound: Bound, *, integer: bool = False) -> float:
    """`value` as a number inside `bound`, else InputError naming `field` and the range."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InputError(field, _("must be a number, got %(got)s", got=value_text(value)))
    check_float_range(field, value, bound)
    if not math.isfinite(value):
        raise InputError(field, _("must be a finite number, got %(got)s", got=value))
    if integer and float(value) != int(value):
        raise InputError(field, _("must be an integer, got %(got)s", got=value_text(value)))
    if bound.error(float(value)) is not None:
        raise InputError(field, _range_error(bound, number_text(float(value))))
    return float(value)


def check_offering_numbers(facts: dict[str, Any]) -> None:
    """Every bounded number the offering gives is a finite number inside its range (None: not given)."""
    for key, bound in OFFERING_BOUNDS.items():
        value = facts.get(key)
        if value is not None:
            fact = FACTS_BY_NAME.get(key)
            check_number(f"offering.{key}", value, bound, integer=fact is not None and fact.type == "int")


def check_top(top: Any) -> None:
    """How many alternatives a search lists: an integer from 0 to TOP_MAX."""
    bound = Bound("Alternatives", 0, TOP_MAX)
    check_number("top", top, bound, integer=True)


def check_deadline(field: str, days: Any) -> None:
    """A deadline in days: greater than 0 and at most DEADLINE_DAYS_MAX (None: no deadline)."""
    if days is not None:
        bound = Bound("Deadline", None, DEADLINE_DAYS_MAX, "days", strictly_positive=True)
        check_number(field, days, bound)


def chosen(value: Any, allowed: tuple[str, ...]) -> str | None:
    """`value` as one of `allowed` (the engine's lowercase names), read without regard to case, surrounding
    blanks or how the words are joined (`InfiniBand`, `BF16`, `Fat_Tree`, `rail optimized`, `all-to-all`);
    None when it names none of them. The answer then carries the engine's name."""
    if not isinstance(value, str):
        return None
    if value in allowed:
        return value

    def bare(text: str) -> str:
        return "".join(c for c in text.strip().lower() if c not in "-_ ")

    wanted = bare(value)
    return next((name for name in allowed if bare(name) == wanted), None) if wanted else None
