from __future__ import annotations

from django import forms

from checks.models import Severity
from providers.models import Offering


class FindingFilterForm(forms.Form):
    """Filters of GET /api/v1/findings/: offering (slug), severity, code, context."""

    offering = forms.SlugField(required=False)
    severity = forms.ChoiceField(choices=[("", "any"), *Severity.choices], required=False)
    code = forms.SlugField(required=False, max_length=64)
    context = forms.CharField(required=False, max_length=64)

    def clean_offering(self) -> Offering | None:
        slug = self.cleaned_data.get("offering")
        if not slug:
            return None
        offering = Offering.objects.filter(slug=slug).first()
        if offering is None:
            raise forms.ValidationError(f"no offering with slug {slug!r}")
        return offering
