"""Check constraints the apps' models share, each kind of invariant written once (STYLE.md 5)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Q
from django.utils.deconstruct import deconstructible

from hardware.numbers import bound_operand
from portal.i18n import translated_bound_error
from providers.facts import Bound


def value_known(field: str, values: Iterable[str], *, name: str) -> models.CheckConstraint:
    """`field` holds one of `values` (its TextChoices' values): a write that bypasses the form still fails."""
    return models.CheckConstraint(condition=Q(**{f"{field}__in": list(values)}), name=name)


def positive_or_null(field: str, *, name: str) -> models.CheckConstraint:
    """`field` is greater than zero when it is given (null = not given or not published)."""
    return models.CheckConstraint(
        condition=Q(**{f"{field}__isnull": True}) | Q(**{f"{field}__gt": 0}), name=name
    )


def _range_condition(field: str, bound: Bound) -> Q:
    cond = Q(**{f"{field}__gt": 0}) if bound.strictly_positive else Q()
    if bound.minimum is not None:
        cond &= Q(**{f"{field}__gte": bound.minimum})
    if bound.maximum is not None:
        cond &= Q(**{f"{field}__lte": bound.maximum})
    return cond


def in_range(field: str, bound: Bound, *, name: str, nullable: bool = True) -> models.CheckConstraint:
    """`field` is inside `bound` (or null, for a `nullable` field); a write that bypasses forms and API fails
    with the same message."""
    condition = _range_condition(field, bound)
    return models.CheckConstraint(
        condition=Q(**{f"{field}__isnull": True}) | condition if nullable else condition,
        name=name,
        violation_error_message=f"{bound.label} must be {bound.range_text()}",
    )


@deconstructible
class RangeValidator:
    """The model-field validator of a bound: the message names the field and the allowed range."""

    def __init__(
        self,
        label: str,
        minimum: float | None = None,
        maximum: float | None = None,
        unit: str = "",
        strictly_positive: bool = False,
    ) -> None:
        self.bound = Bound(label, minimum, maximum, unit, strictly_positive)

    @classmethod
    def of(cls, bound: Bound) -> RangeValidator:
        return cls(bound.label, bound.minimum, bound.maximum, bound.unit, bound.strictly_positive)

    def __call__(self, value: Any) -> None:
        if value is None:
            return
        message = translated_bound_error(self.bound, bound_operand(value))
        if message:
            raise ValidationError(message, code="out_of_range")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, RangeValidator) and other.bound == self.bound

    def __hash__(self) -> int:
        return hash(self.bound)


def range_validators(bound: Bound | None) -> list[RangeValidator]:
    """The validators argument of a bounded model field (none when the field has no bound)."""
    return [RangeValidator.of(bound)] if bound is not None else []
