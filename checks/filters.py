"""The filters of the findings list (GET /api/v1/findings/), declared once as a FilterSet."""

from __future__ import annotations

import django_filters
from django import forms

from checks.forms import FindingFilterForm
from checks.models import Finding, Severity
from portal.filters import FormFieldFilter


class FindingFilterSet(django_filters.FilterSet):
    """offering (slug), severity, code, context; the visibility rule is the selector's (finding_list)."""

    offering = FormFieldFilter(forms.SlugField)
    severity = FormFieldFilter(forms.ChoiceField, choices=[("", "any"), *Severity.choices])
    code = FormFieldFilter(forms.SlugField, max_length=64)
    context = FormFieldFilter(forms.CharField, max_length=64)

    class Meta:
        model = Finding
        fields: list[str] = []
        form = FindingFilterForm
