"""`{{ fact.unit|unit_word }}`, `{{ code|code_word }}`, `{{ o.fabric|fabric_word }}`,
`{{ o.intra_node|intra_node_word }}`, `{{ plan.kind|plan_kind }}`: catalog units, codes and the names of
fabrics and intra-node interconnects (hardware's one table of each) in the page's language."""

from __future__ import annotations

from typing import Any

from django import template
from django.utils.translation import gettext

from hardware import INTRA_NODE_NAMES, fabric_name
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
def fabric_word(code: Any) -> str:
    """A fabric code by its name (InfiniBand, RoCE, EFA, "TCP Ethernet (no RDMA)"), translated."""
    return gettext(str(fabric_name(code))) if code else ""


@register.filter
def intra_node_word(code: Any) -> str:
    """An intra-node interconnect code by its name ("full-mesh (NVSwitch)", "PCIe-only"), translated."""
    return gettext(str(INTRA_NODE_NAMES.get(code, code))) if code else ""


@register.filter
def plan_kind(code: Any) -> str:
    """A billing plan's kind code (on-demand, reserved, cluster-cycle, spot) as its label in the page's
    language; an unknown code as it is."""
    return str(PLAN_KIND_LABELS.get(code, code)) if code else ""
