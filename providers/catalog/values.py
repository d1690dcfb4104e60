"""One published value into its stored type, or a ValueError whose message the import shows the user."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal, InvalidOperation
from typing import Any

from portal.i18n import translated_bound_error
from providers.facts import Fact


def coerce_fact(fact: Fact, value: Any, gpu_keys: set[str]) -> Any:
    """Turn one published value into the stored type, or raise ValueError with a message for the user."""
    if value is None:
        return None
    if fact.type == "text":
        if isinstance(value, (dict, list)):
            raise ValueError("expected text")
        text = str(value)
        if fact.max_length is not None and len(text) > fact.max_length:
            raise ValueError(
                f"{fact.label} must be at most {fact.max_length:,} characters, got {len(text):,}"
            )
        return text
    if fact.type == "gpu":
        key = str(value)
        if key not in gpu_keys:
            raise ValueError(f"unknown GPU key “{key}” (known: {', '.join(sorted(gpu_keys))})")
        return key
    if fact.type == "bool":
        if isinstance(value, bool):
            return value
        text = str(value).strip().lower()
        if text in ("true", "yes", "1"):
            return True
        if text in ("false", "no", "0"):
            return False
        raise ValueError(f"expected true or false, got “{value}”")
    if fact.type == "enum":
        text = str(value).strip().lower()
        if text not in fact.choices:
            raise ValueError(f"“{value}” is not one of {', '.join(fact.choices)}")
        return text
    if fact.type == "list":
        items = value if isinstance(value, list) else [s for s in str(value).replace(",", ";").split(";")]
        cleaned = [str(item).strip().lower() for item in items if str(item).strip()]
        bad = [item for item in cleaned if item not in fact.choices]
        if bad:
            raise ValueError(f"{', '.join(bad)} not among {', '.join(fact.choices)}")
        return sorted(set(cleaned))
    number = parse_number(value, integer=fact.type == "int")
    message = fact.bound_error(float(number))
    if message and fact.bound is not None:  # in the page's language (the same English elsewhere)
        message = translated_bound_error(fact.bound, float(number)) or message
    if message:
        raise ValueError(message)
    if fact.type == "decimal":
        return Decimal(str(value)).normalize() if not isinstance(number, Decimal) else number
    return number


def parse_number(value: Any, *, integer: bool) -> Any:
    if isinstance(value, bool):
        raise ValueError(f"expected a number, got “{value}”")
    try:
        number = Decimal(str(value).strip().replace("_", ""))
    except (InvalidOperation, ValueError) as exc:
        raise ValueError(f"expected a number, got “{value}”") from exc
    if not number.is_finite():
        raise ValueError(f"expected a finite number, got “{value}”")
    if integer:
        if number != number.to_integral_value():
            raise ValueError(f"expected a whole number, got “{value}”")
        return int(number)
    return float(number)


def parse_date(value: Any) -> dt.date | None:
    if value is None or value == "":
        return None
    if isinstance(value, dt.datetime):
        return value.date()
    if isinstance(value, dt.date):
        return value
    try:
        return dt.date.fromisoformat(str(value).strip())
    except ValueError as exc:
        raise ValueError(f"expected an ISO date YYYY-MM-DD, got “{value}”") from exc


def _bound(number: float) -> str:
    """A bound as a buyer reads it: 1,000,000 rather than 1e+06."""
    return f"{int(number):,}" if float(number).is_integer() else f"{number:g}"
