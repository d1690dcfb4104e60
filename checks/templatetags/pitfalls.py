"""`{{ code|pitfall_name }}`: a pitfall shown in words where a buyer reads it, never as its rule code."""

from __future__ import annotations

from django import template
from django.utils.translation import gettext

from checks.rules import pitfall_name as _pitfall_name

register = template.Library()


@register.filter
def pitfall_name(code: str) -> str:
    """The pitfall's name in the page's language."""
    return gettext(_pitfall_name(str(code)))
