from __future__ import annotations

from django import forms

from providers.models import Offering


class FindingFilterForm(forms.Form):
    """Turns the `offering` slug of checks.filters.FindingFilterSet into the offering, or names it unknown."""

    def clean_offering(self) -> Offering | None:
        slug = self.cleaned_data.get("offering")
        if not slug:
            return None
        offering = Offering.objects.filter(slug=slug).first()
        if offering is None:
            raise forms.ValidationError(f"no offering with slug “{slug}”")
        return offering
