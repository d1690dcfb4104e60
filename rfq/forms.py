"""Shape of what the request-for-quote pages send; the bounds are the services' (rfq.services)."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from portal.constraints import range_validators
from providers.facts import FACTS
from providers.forms import _edit_field
from providers.names import value_names
from rfq import services
from rfq.models import PaymentTerms
from sizing.presets import preset_label
from sizing.services import known_presets


class RfqForm(forms.Form):
    """Pick a workload (one of yours or a preset), a GPU count, the offerings to ask, the questions."""

    workload = forms.ChoiceField(label=_("Workload"))
    deadline_days = forms.FloatField(
        label=_("Deadline (days, for a preset)"), required=False, min_value=1, max_value=3650
    )
    gpus = forms.IntegerField(label=_("GPUs"), min_value=1, max_value=services.MAX_GPUS, initial=1024)
    offerings = forms.MultipleChoiceField(
        label=_("Offerings to ask"), widget=forms.SelectMultiple(attrs={"size": 12})
    )
    questions = forms.CharField(
        label=_("Questions (one per line)"),
        required=False,
        widget=forms.Textarea(attrs={"rows": 5}),
        max_length=services.MAX_QUESTIONS * services.MAX_QUESTION_CHARS,
    )

    def __init__(self, *args: Any, workloads: list[Any], offerings: list[Any], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["workload"].choices = [  # type: ignore[attr-defined]
            (_("Your workloads"), [(f"w:{w.pk}", f"{w.name} (#{w.pk})") for w in workloads]),
            (_("A preset"), [(f"p:{name}", preset_label(name)) for name in known_presets()]),
        ]
        self.fields["offerings"].choices = [  # type: ignore[attr-defined]
            (o.slug, o.shown_choice) for o in offerings
        ]

    def service_kwargs(self) -> dict[str, Any]:
        """The cleaned form as rfq.services.rfq_create's arguments."""
        data = self.cleaned_data
        kind, _, value = data["workload"].partition(":")
        return {
            "workload_id": int(value) if kind == "w" else None,
            "preset": value if kind == "p" else "",
            "deadline_days": data.get("deadline_days") if kind == "p" else None,
            "offering_slugs": data["offerings"],
            "gpus": data["gpus"],
            "questions": (data.get("questions") or "").splitlines(),
        }


def _shown(fact_name: str, value: Any) -> str:
    """The catalog's value in the field's hint, in the page's language (codes by their names)."""
    if isinstance(value, bool):
        return str(_("yes") if value else _("no"))
    return value_names(fact_name, value)[:60]


class AnswerForm(forms.Form):
    """A proposal for one offering: terms, the facts that differ from the catalog, a source and a date."""

    price_usd_per_gpu_hour = forms.DecimalField(
        label=_("Price ($ per GPU-hour)"),
        validators=range_validators(services.PRICE_BOUND),
        decimal_places=4,
        # the browser's own check of the bound (greater than 0 is checked by the server)
        widget=forms.NumberInput(
            attrs={"min": "0", "max": str(services.MAX_PRICE_USD_PER_GPU_HOUR), "step": "0.0001"}
        ),
    )
    term_months = forms.IntegerField(
        label=_("Term (months, empty: none)"), required=False, min_value=1, max_value=services.MAX_TERM_MONTHS
    )
    delivery_weeks = forms.IntegerField(
        label=_("Delivery (weeks)"), min_value=0, max_value=services.MAX_DELIVERY_WEEKS
    )
    payment_terms = forms.ChoiceField(choices=PaymentTerms.choices)
    min_nodes = forms.IntegerField(
        label=_("Minimum nodes (empty: none)"), required=False, min_value=1, max_value=services.MAX_MIN_NODES
    )
    source_url = forms.URLField(
        assume_scheme="https",
        label=_("Source (address of the offer document)"),
        max_length=500,
        error_messages={"required": _("Give the address of the document these values come from.")},
    )
    as_of = forms.DateField(
        label=_("Date of the source"),
        widget=forms.DateInput(attrs={"type": "date"}),
        error_messages={"required": _("Give the date the source states these values.")},
    )
    message = forms.CharField(
        label=_("Answers to the buyer's questions"),
        required=False,
        widget=forms.Textarea(attrs={"rows": 5}),
        max_length=services.MAX_MESSAGE_CHARS,
    )

    def __init__(self, *args: Any, offering: Any = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for fact in FACTS:
            field = _edit_field(fact)
            # Empty keeps the catalog's value, which the field shows (placeholder or the empty choice).
            current = offering.fact_value(fact.name) if offering is not None else None
            shown = _("not published") if current in (None, "", []) else _shown(fact.name, current)
            if isinstance(field.widget, forms.Select):
                choices = [c for c in field.widget.choices if c[0] != ""]
                field.widget.choices = [("", _("as in the catalog: %(value)s") % {"value": shown}), *choices]
                if isinstance(field, forms.ChoiceField):
                    field.choices = field.widget.choices
            elif not isinstance(field.widget, forms.CheckboxSelectMultiple):
                field.widget.attrs["placeholder"] = _("catalog: %(value)s") % {"value": shown}
            self.fields[f"fact_{fact.name}"] = field

    def fact_fields(self) -> list[Any]:
        return [self[f"fact_{fact.name}"] for fact in FACTS]

    def term_fields(self) -> list[Any]:
        return [self[name] for name in self.fields if not name.startswith("fact_")]

    def service_kwargs(self) -> dict[str, Any]:
        """The cleaned form as rfq.services.answer_create's arguments (facts: only those filled in)."""
        data = self.cleaned_data
        facts = {}
        for fact in FACTS:
            value = data.get(f"fact_{fact.name}")
            if value not in (None, "", []):
                facts[fact.name] = value
        out = {name: data.get(name) for name in self.fields if not name.startswith("fact_")}
        out["message"] = out.get("message") or ""
        out["facts"] = facts
        return out
