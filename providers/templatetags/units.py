"""`{{ fact.unit|unit_word }}`, `{{ code|code_word }}`, `{{ plan.kind|plan_kind }}`: catalog units and
codes in the page's language."""

from __future__ import annotations

from typing import Any

from django import template

from portal.i18n import unit_word as _unit_word
from providers.filters import CODE_LABELS
from providers.models import PlanKind

register = template.Library()
# The kinds' lazy labels, built once (not per plan row): each is translated when shown.
PLAN_KIND_LABELS = dict(PlanKind.choices)


@register.filter
def unit_word(unit: Any) -> str:
    return _unit_word(unit)


@register.filter
def code_word(code: Any) -> str:
    """A fabric, scheduler or stack code as the filters show it: names as they are, the plain words among
    them (ethernet, other, proprietary) in the page's language; a list is joined with ", "."""
    if isinstance(code, list | tuple):
        return ", ".join(str(CODE_LABELS.get(c, c)) for c in code)
    return str(CODE_LABELS.get(code, code)) if code else ""


@register.filter
def plan_kind(code: Any) -> str:
    """A billing plan's kind code (on-demand, reserved, cluster-cycle, spot) as its label in the page's
    language; an unknown code as it is."""
    return str(PLAN_KIND_LABELS.get(code, code)) if code else ""
