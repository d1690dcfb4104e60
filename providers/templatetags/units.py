"""`{{ fact.unit|unit_word }}`, `{{ value|fact_value:"fabric" }}`, `{{ source.kind|source_kind }}`,
`{{ plan.kind|plan_kind }}`: catalog units, the names of enum and list facts' codes (one table,
providers.facts.CHOICE_NAMES, whose fabric and interconnect names are hardware's) and of source kinds, in the
page's language."""

from __future__ import annotations

from typing import Any

from django import template
from django.utils.translation import gettext

from portal.formats import about_days_text, days_text, goodput_text, percent_text
from portal.formats import figure as figure_shown
from portal.i18n import unit_word as _unit_word
from providers.facts import NO_PLAN_NAME, source_kind_name
from providers.models import PlanKind
from providers.names import intra_node_shown, value_names

register = template.Library()
# The kinds' lazy labels, built once (not per plan row): each is translated when shown.
PLAN_KIND_LABELS = dict(PlanKind.choices)


@register.filter
def unit_word(unit: Any) -> str:
    return _unit_word(unit)


@register.filter
def percent(fraction: Any) -> str:
    """A fraction the model keeps (MFU) as the percentage every page shows: 0.5348 -> "53%" (goodput:
    goodput_percent)."""
    return percent_text(fraction)


@register.filter
def goodput_percent(fraction: Any) -> str:
    """A goodput fraction as every page, the quote and its PDF show it: 0.9961 -> "99.6%"."""
    return goodput_text(fraction)


@register.filter
def figure(value: Any, places: Any = 2) -> str:
    """A figure with thousands separators and at most `places` decimals, as the quote shows it, the same in
    every language (Django's intcomma groups in English only): 5681.9 -> "5,681.9"."""
    return figure_shown(value, int(places))


@register.filter
def about_days(value: Any) -> str:
    """An end of a days range as the result page's accuracy sentence writes it: 33.46 -> "33", 4.25 ->
    "4.3"."""
    return about_days_text(value)


@register.filter
def days(value: Any) -> str:
    """Training days as every page, the pitfalls and the quote show them: 272.45 -> "272.5"."""
    return days_text(value)


@register.filter
def fact_value(value: Any, fact_name: str) -> str:
    """An enum or list fact's value by its names in the page's language ("InfiniBand", "full-mesh
    (NVSwitch)", "Slurm, Kubernetes"), the GPU by its name; a list is joined with ", ", a code without a name
    shown as it is."""
    return value_names(fact_name, value)


@register.filter
def intra_node_of(offering: Any) -> str:
    """The offering's intra-node interconnect by its name, a direct mesh named by its GPU's link ("full-mesh
    (Infinity Fabric)" on an AMD node)."""
    return intra_node_shown(offering)


@register.filter
def source_kind(kind: Any) -> str:
    """A source's kind ("official", "third-party code") in the page's language."""
    return gettext(source_kind_name(str(kind))) if kind else ""


@register.filter
def plan_kind(code: Any) -> str:
    """A billing plan's kind code (on-demand, reserved, cluster-cycle, spot) as its label in the page's
    language; "—" for the bill's stand-in when no plan is published (kind "none", sizing.bill); an unknown
    code as it is."""
    if code == "none":
        return "—"
    return str(PLAN_KIND_LABELS.get(code, code)) if code else ""


@register.filter
def plan_name(name: Any) -> str:
    """A plan's name as published; the bill's stand-in for an offering without a plan (sizing.bill
    .NO_PLAN_NAME) in the page's language."""
    return gettext(NO_PLAN_NAME) if name == NO_PLAN_NAME else str(name or "")
