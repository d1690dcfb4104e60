"""The catalog's filters, declared once: the browse page and GET /api/v1/offerings/ use OfferingFilterSet.

Every filter names its plain Django form field (portal.filters.FormFieldFilter), so the values accepted
and the error messages are those of the form the page and the API shared before.
"""

from __future__ import annotations

from typing import Any

import django_filters
from django import forms
from django.db.models import Q, QuerySet
from django.http import QueryDict
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from portal.filters import FormFieldFilter, unchanged
from providers import selectors
from providers.facts import FACTS_BY_NAME, choice_name, facts_in_group
from providers.models import Offering

# What a buyer can require ("Must have"): every fault-tolerance feature of the registry, and topology-aware
# placement; labelled as the offering page labels them.
FEATURE_FACTS = [
    *(fact.name for fact in facts_in_group("fault_tolerance") if fact.type == "bool"),
    "topology_aware_placement",
]
FEATURE_CHOICES = [(name, _(FACTS_BY_NAME[name].label)) for name in FEATURE_FACTS]

# The sort keys, in the page's language (the keys themselves are what the address and the API take).
SORT_LABELS = {
    "provider": pgettext_lazy("sort", "provider"),
    "name": pgettext_lazy("sort", "name"),
    "price": pgettext_lazy("sort", "price, lowest first"),
    "-price": pgettext_lazy("sort", "price, highest first"),
    "gbps_per_gpu": pgettext_lazy("sort", "network bandwidth per GPU, lowest first"),
    "-gbps_per_gpu": pgettext_lazy("sort", "network bandwidth per GPU, highest first"),
    "updated": pgettext_lazy("sort", "recently updated"),
}


def _any_of(fact_name: str) -> list[tuple[str, Any]]:
    """The choices of a code filter: "any", then each code of the fact by its name (CHOICE_NAMES, translated
    when shown)."""
    return [
        ("", _("any")),
        *((code, _(choice_name(fact_name, code))) for code in FACTS_BY_NAME[fact_name].choices),
    ]


def _on_demand_price_bound(lookup_expr: str, *, label: str) -> FormFieldFilter:
    return FormFieldFilter(
        forms.DecimalField,
        min_value=0,
        max_digits=10,
        decimal_places=4,
        label=label,
        field_name="on_demand_price",
        lookup_expr=lookup_expr,
    )


class OfferingFilterForm(forms.Form):
    """The check across fields; the fields themselves come from OfferingFilterSet."""

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        lowest, highest = data.get("min_price"), data.get("max_price")
        if lowest is not None and highest is not None and lowest > highest:
            self.add_error("max_price", _("must not be below the minimum price"))
        return data


class OfferingFilterSet(django_filters.FilterSet):
    q = FormFieldFilter(forms.CharField, max_length=100, label="Search", method="filter_search")
    provider = FormFieldFilter(
        forms.SlugField, max_length=60, label=_("Provider"), field_name="provider__slug"
    )
    # The browse page's provider box: a part of the provider's name (a list of a thousand names is no filter).
    provider_name = FormFieldFilter(
        forms.CharField,
        max_length=100,
        label="Provider",
        field_name="provider__name",
        lookup_expr="icontains",
    )
    gpu = FormFieldFilter(forms.CharField, max_length=40, label="GPU", field_name="gpu__key")
    fabric = FormFieldFilter(forms.ChoiceField, choices=_any_of("fabric"), field_name="fabric")
    min_gbps_per_gpu = FormFieldFilter(
        forms.FloatField,
        min_value=0,
        label="Min Gb/s per GPU",
        field_name="gbps_per_gpu_value",
        lookup_expr="gte",
    )
    scheduler = FormFieldFilter(
        forms.ChoiceField,
        choices=_any_of("schedulers"),
        label=_("Scheduler"),
        field_name="schedulers",
        lookup_expr="contains",
    )
    stack = FormFieldFilter(
        forms.ChoiceField,
        choices=_any_of("accelerator_stack"),
        label=FACTS_BY_NAME["accelerator_stack"].label,
        field_name="accelerator_stack",
    )
    feature = FormFieldFilter(
        forms.MultipleChoiceField, choices=FEATURE_CHOICES, label="Must have", method="filter_features"
    )
    min_price = _on_demand_price_bound("gte", label="Min $/GPU-h")
    max_price = _on_demand_price_bound("lte", label="Max $/GPU-h")
    include_fictional = FormFieldFilter(
        forms.BooleanField, initial=True, label="Include fictional samples", method="filter_fictional"
    )
    # Validated here; applied by filter_queryset, because the list is sorted even when no sort is asked for.
    sort = FormFieldFilter(
        forms.ChoiceField,
        choices=[
            ("", SORT_LABELS["provider"]),
            *((k, SORT_LABELS.get(k, k)) for k, _k in selectors.SORT_CHOICES),
        ],
        label="Sort",
        method=unchanged,
    )
    # The browse page's page number, validated with the filters (a bad one is a 400 naming `page`) and
    # used by the page's paginator; the API pages with limit/offset.
    page = FormFieldFilter(forms.IntegerField, min_value=1, label="Page", method=unchanged)

    # The browse form's hidden field that says it was submitted: an unticked checkbox sends nothing, so a
    # missing include_fictional then means "leave the samples out" rather than the default.
    submitted_marker: str | None = "filtered"

    class Meta:
        model = Offering
        fields: list[str] = []
        form = OfferingFilterForm

    def __init__(self, data: QueryDict | None = None, *args: Any, **kwargs: Any) -> None:
        # Sample offerings are listed unless asked otherwise.
        submitted = self.submitted_marker is not None and data is not None and data.get(self.submitted_marker)
        if data is not None and "include_fictional" not in data and not submitted:
            data = data.copy()
            data["include_fictional"] = "on"
        super().__init__(data, *args, **kwargs)

    def filter_queryset(self, queryset: QuerySet[Offering]) -> QuerySet[Offering]:
        filtered = super().filter_queryset(queryset)
        return selectors.offering_order(filtered, sort=self.form.cleaned_data.get("sort") or "provider")

    def filter_search(self, queryset: QuerySet[Offering], name: str, value: str) -> QuerySet[Offering]:
        return queryset.filter(
            Q(name__icontains=value) | Q(provider__name__icontains=value) | Q(summary__icontains=value)
        )

    def filter_features(
        self, queryset: QuerySet[Offering], name: str, value: list[str]
    ) -> QuerySet[Offering]:
        for feature in value:
            queryset = queryset.filter(**{feature: True})
        return queryset

    def filter_fictional(self, queryset: QuerySet[Offering], name: str, value: bool) -> QuerySet[Offering]:
        return queryset if value else queryset.filter(fictional=False)


class OfferingApiFilterSet(OfferingFilterSet):
    """The API's filters: the page's, plus `slug` (comma-separated offering slugs)."""

    slug = FormFieldFilter(forms.CharField, strip=False, method="filter_slugs")
    # Scripts leave the samples out with include_fictional=false; the page's marker means nothing here.
    submitted_marker = None

    def filter_slugs(self, queryset: QuerySet[Offering], name: str, value: str) -> QuerySet[Offering]:
        return queryset.filter(slug__in=[slug for slug in value.split(",") if slug])
