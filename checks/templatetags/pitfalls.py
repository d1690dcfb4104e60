"""`{{ code|pitfall_name }}`: a pitfall shown in words where a buyer reads it, never as its rule code."""

from __future__ import annotations

from django import template

from checks.rules import pitfall_name as _pitfall_name

register = template.Library()


@register.filter
def pitfall_name(code: str) -> str:
    return _pitfall_name(str(code))
