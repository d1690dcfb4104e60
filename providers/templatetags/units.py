"""`{{ fact.unit|unit_word }}`: a fact's unit in the page's language (portal.i18n.unit_word)."""

from __future__ import annotations

from typing import Any

from django import template

from portal.i18n import unit_word as _unit_word

register = template.Library()


@register.filter
def unit_word(unit: Any) -> str:
    return _unit_word(unit)
