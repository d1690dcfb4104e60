"""Forms validate the shape of what users send: offering edits (catalog filters: providers/filters.py)."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.text import format_lazy
from django.utils.translation import gettext_lazy as _

from providers.facts import FACTS, Fact, choice_name


def _named_choices(fact: Fact) -> list[tuple[str, Any]]:
    """An enum or list fact's codes with their names, translated when shown ("net-30" -> "Net 30 days")."""
    return [(code, _(choice_name(fact.name, code))) for code in fact.choices]


def _edit_field(fact: Fact) -> forms.Field:
    """The input of one fact; empty = not published. Numbers and text arrive as text and are coerced by
    the service, which names a bad value."""
    label = format_lazy("{} ({})", _(fact.label), _(fact.unit)) if fact.unit else _(fact.label)
    if fact.type == "bool":
        return forms.NullBooleanField(
            required=False,
            label=label,
            widget=forms.Select(choices=[("", _("not published")), ("true", _("yes")), ("false", _("no"))]),
        )
    if fact.type == "enum":
        return forms.ChoiceField(
            required=False, label=label, choices=[("", _("not published")), *_named_choices(fact)]
        )
    if fact.type == "list":
        return forms.MultipleChoiceField(
            required=False,
            label=label,
            choices=_named_choices(fact),
            widget=forms.CheckboxSelectMultiple,
        )
    if fact.type == "text":
        return forms.CharField(required=False, label=label, max_length=fact.max_length)
    # A number: the service coerces it and names a value outside the range; the hint says the range.
    help_text = f"{fact.range_text()}" if fact.bound is not None else ""
    return forms.CharField(required=False, label=label, max_length=40, help_text=help_text)


class OfferingEditForm(forms.Form):
    """Edit of the scalar facts; every field optional, empty = not published."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for fact in FACTS:
            self.fields[fact.name] = _edit_field(fact)


class OfferingFactsEditForm(OfferingEditForm):
    """A sourced edit: the facts (only the changed ones are sent), the document and its date (required)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["source_url"] = forms.URLField(
            assume_scheme="https",
            max_length=500,
            label=_("Source (address of the document the new values come from)"),
            error_messages={"required": _("Give the address of the document these values come from.")},
        )
        self.fields["as_of"] = forms.DateField(
            label=_("Date the source states these values"),
            widget=forms.DateInput(attrs={"type": "date"}),
            error_messages={"required": _("Give the date the source states these values.")},
        )
