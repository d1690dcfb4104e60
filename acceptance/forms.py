"""The kit request and the bundle upload forms (shape only; the kit and the service check limits)."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from acceptance import kit
from benchmarks.models import Visibility
from providers.models import Offering


def _offerings() -> forms.ModelChoiceField:
    return forms.ModelChoiceField(
        queryset=Offering.objects.select_related("provider", "gpu").order_by("provider__name", "name"),
        to_field_name="slug",
        label=_("Offering"),
        empty_label=_("Choose the offering you trial"),
    )


class KitForm(forms.Form):
    offering = _offerings()
    nodes = forms.IntegerField(
        min_value=1,
        max_value=kit.MAX_NODES,
        initial=8,
        label=_("Nodes"),
        help_text=_("nodes of the trial (1 to the offering's size)"),
    )
    scheduler = forms.ChoiceField(
        choices=[(s, s.capitalize()) for s in kit.SCHEDULERS], initial="slurm", label=_("Scheduler")
    )
    stability_hours = forms.IntegerField(
        min_value=0,
        max_value=kit.MAX_STABILITY_HOURS,
        initial=0,
        required=False,
        label=_("Stability hours"),
        help_text=_("hours of the stability loop (0 leaves it out; 24 is the usual acceptance)"),
    )


class BundleForm(forms.Form):
    bundle = forms.FileField(
        label=_("Bundle"), help_text=_("the archive pack.sh made (tar.gz or zip), or any archive of logs")
    )
    offering = _offerings()
    visibility = forms.ChoiceField(
        choices=Visibility.choices, initial=Visibility.PRIVATE, label=_("Visibility")
    )
