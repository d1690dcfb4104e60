"""DRF input fields that close gaps in DRF's own, used by the API serializers (each says which gap), and
`rows_without`, for an output field that keeps its shape while the rows stored beside it grow a key."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from rest_framework import serializers

from hardware.numbers import is_finite
from portal.constraints import RangeValidator
from sizing.engine.bounds import chosen


class FloatField(serializers.FloatField):
    """DRF's FloatField, refusing JSON `true`/`false`: DRF reads them as 1.0 and 0.0 (`float(True)`), so a
    boolean sent by mistake became a number in silence. Its integer and decimal fields already refuse them.
    An integer no float holds (JSON's 400-digit numbers) is refused by the field's range, where DRF's
    float() raised OverflowError, a 500."""

    def to_internal_value(self, data: Any) -> float:
        if isinstance(data, bool):
            self.fail("invalid")
        if isinstance(data, int) and not is_finite(data):
            self.run_validators(data)  # the range's message, naming the field
            self.fail("invalid")
        return super().to_internal_value(data)


class NameChoiceField(serializers.ChoiceField):
    """DRF's ChoiceField, reading a name written in another case or joined otherwise (`BF16`, `SwiGLU`,
    `YaRN`) as the choice it names, as the `size` command does (sizing.engine.bounds.chosen): DRF compares
    exactly, so `"precision": "BF16"` was refused as not a valid choice."""

    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, str) and data not in self.choices:
            data = chosen(data, tuple(str(choice) for choice in self.choices)) or data
        return super().to_internal_value(data)


class RangeCheckedDecimalField(serializers.DecimalField):
    """DRF's DecimalField, checking the field's range (its RangeValidator) before DRF rounds the value.

    Without a digit limit (`max_digits=None`, so that the range, not a digit count, is what a user is
    told), DRF rounds any value to `decimal_places`: a value such as 1e308 needs more digits than the
    decimal context holds and raised decimal.InvalidOperation, a 500. The range check first answers the
    400 naming the field and its range."""

    def validate_precision(self, value: Decimal) -> Decimal:
        for validator in self.validators:
            if isinstance(validator, RangeValidator):
                validator(value)
        return super().validate_precision(value)


class SlugRelatedField(serializers.SlugRelatedField):  # type: ignore[type-arg]
    """DRF's SlugRelatedField, refusing a null character before the lookup: PostgreSQL refuses one in any
    text it is given (a DataError, which DRF does not catch: a 500). Answers DRF's own "does not exist"."""

    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, str) and "\x00" in data:
            self.fail("does_not_exist", slug_name=self.slug_field, value=data.replace("\x00", "\\x00"))
        return super().to_internal_value(data)


def rows_without(rows: Any, key: str) -> list[Any]:
    """A stored list of rows (dicts) as the API gave it before the rows held `key`: the key left out of each
    (a page's message stored beside an English text); anything that is not a dict as it is."""
    return [
        {k: v for k, v in row.items() if k != key} if isinstance(row, dict) else row for row in rows or []
    ]
