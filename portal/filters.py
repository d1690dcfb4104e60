"""What the apps' FilterSets (django-filter) share."""

from __future__ import annotations

from typing import Any

import django_filters
from django import forms


class FormFieldFilter(django_filters.Filter):
    """A filter whose form field is exactly `field_class(**kwargs)`, not required.

    The filters replaced hand-written forms; naming the plain Django field keeps the values they accept
    and the error messages they give exactly as the forms had them."""

    def __init__(self, field_class: type[forms.Field], *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.field_class = field_class


def unchanged(queryset: Any, name: str, value: Any) -> Any:
    """The `method` of a filter that is only validated here and used elsewhere (a sort, a page number)."""
    return queryset
