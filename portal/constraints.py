"""Check constraints the apps' models share, each kind of invariant written once (STYLE.md 5)."""

from __future__ import annotations

from collections.abc import Iterable

from django.db import models
from django.db.models import Q


def value_known(field: str, values: Iterable[str], *, name: str) -> models.CheckConstraint:
    """`field` holds one of `values` (its TextChoices' values): a write that bypasses the form still fails."""
    return models.CheckConstraint(condition=Q(**{f"{field}__in": list(values)}), name=name)


def positive_or_null(field: str, *, name: str) -> models.CheckConstraint:
    """`field` is greater than zero when it is given (null = not given or not published)."""
    return models.CheckConstraint(
        condition=Q(**{f"{field}__isnull": True}) | Q(**{f"{field}__gt": 0}), name=name
    )
