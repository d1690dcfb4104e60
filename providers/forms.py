"""Forms validate the shape of what users send: catalog filters and offering edits."""

from __future__ import annotations

from typing import Any

from django import forms

from providers.facts import ACCELERATOR_STACKS, FABRICS, FACTS, SCHEDULERS

FT_FEATURES = {
    "health_checks": "Health checks",
    "auto_bad_node_detection": "Automatic bad-node detection",
    "auto_replacement": "Automatic replacement",
    "auto_checkpoint_restart": "Automatic checkpoint/restart",
    "spare_node_pool": "Spare-node pool",
    "topology_aware_placement": "Topology-aware placement",
}
SORTS = {
    "provider": ("provider__name", "name"),
    "name": ("name",),
    "price": ("on_demand_price", "provider__name"),
    "-price": ("-on_demand_price", "provider__name"),
    "gbps_per_gpu": ("gbps_per_gpu_value", "provider__name"),
    "-gbps_per_gpu": ("-gbps_per_gpu_value", "provider__name"),
    "updated": ("-updated_at",),
}


def _choices(values: tuple[str, ...]) -> list[tuple[str, str]]:
    return [("", "any"), *((v, v) for v in values)]


class OfferingFilterForm(forms.Form):
    q = forms.CharField(required=False, max_length=100, label="Search")
    provider = forms.SlugField(required=False, max_length=60)
    gpu = forms.CharField(required=False, max_length=40, label="GPU")
    fabric = forms.ChoiceField(required=False, choices=_choices(FABRICS))
    min_gbps_per_gpu = forms.FloatField(required=False, min_value=0, label="Min Gb/s per GPU")
    scheduler = forms.ChoiceField(required=False, choices=_choices(SCHEDULERS))
    stack = forms.ChoiceField(required=False, choices=_choices(ACCELERATOR_STACKS), label="Accelerator stack")
    feature = forms.MultipleChoiceField(required=False, choices=list(FT_FEATURES.items()), label="Must have")
    min_price = forms.DecimalField(
        required=False, min_value=0, max_digits=10, decimal_places=4, label="Min $/GPU-h"
    )
    max_price = forms.DecimalField(
        required=False, min_value=0, max_digits=10, decimal_places=4, label="Max $/GPU-h"
    )
    include_fictional = forms.BooleanField(required=False, initial=True, label="Include sample offerings")
    sort = forms.ChoiceField(required=False, choices=[("", "provider"), *((k, k) for k in SORTS)])
    page = forms.IntegerField(required=False, min_value=1)

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        lo, hi = data.get("min_price"), data.get("max_price")
        if lo is not None and hi is not None and lo > hi:
            self.add_error("max_price", "must not be below the minimum price")
        return data


class OfferingEditForm(forms.Form):
    """Edit of the scalar facts; every field optional, empty = not published."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for fact in FACTS:
            label = f"{fact.label} ({fact.unit})" if fact.unit else fact.label
            if fact.type == "bool":
                self.fields[fact.name] = forms.NullBooleanField(
                    required=False,
                    label=label,
                    widget=forms.Select(choices=[("", "not published"), ("true", "yes"), ("false", "no")]),
                )
            elif fact.type in ("enum",):
                self.fields[fact.name] = forms.ChoiceField(
                    required=False,
                    label=label,
                    choices=[("", "not published"), *((c, c) for c in fact.choices)],
                )
            elif fact.type == "list":
                self.fields[fact.name] = forms.MultipleChoiceField(
                    required=False,
                    label=label,
                    choices=[(c, c) for c in fact.choices],
                    widget=forms.CheckboxSelectMultiple,
                )
            elif fact.type in ("text",):
                self.fields[fact.name] = forms.CharField(required=False, label=label)
            else:
                self.fields[fact.name] = forms.CharField(required=False, label=label)
