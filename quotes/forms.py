from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _


class QuoteCreateForm(forms.Form):
    """Either a planner result (run + offering) or an offering, a workload and optionally a plan."""

    run = forms.IntegerField(required=False, min_value=1, max_value=2**63 - 1)
    offering = forms.SlugField(max_length=80)
    workload = forms.IntegerField(required=False, min_value=1, max_value=2**63 - 1)
    plan = forms.CharField(required=False, max_length=200)

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if not data.get("run") and not data.get("workload"):
            raise forms.ValidationError(_("give a run (with its offering) or a workload and an offering"))
        return data
