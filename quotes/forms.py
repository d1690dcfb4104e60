from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _


class QuoteCreateForm(forms.Form):
    """Either a planner result (run + offering) or an offering, a workload and optionally a plan."""

    # Labelled once, as the pages name what they send (hidden inputs): an error names its field by this label.
    run = forms.IntegerField(label=_("Planner run"), required=False, min_value=1, max_value=2**63 - 1)
    offering = forms.SlugField(label=_("Offering"), max_length=80)
    workload = forms.IntegerField(label=_("Workload"), required=False, min_value=1, max_value=2**63 - 1)
    plan = forms.CharField(label=_("Billing plan"), required=False, max_length=200)

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if not data.get("run") and not data.get("workload"):
            raise forms.ValidationError(_("give a run (with its offering) or a workload and an offering"))
        return data
