"""Sections an app above the catalog adds to the offering page (findings, verified claims).

The catalog cannot import those apps (arrows point down), so each registers a function from its
AppConfig.ready(); the offering page merges what they return into its template context.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from providers.models import Offering

OfferingSection = Callable[[Offering], dict[str, Any]]

_SECTIONS: list[OfferingSection] = []


def offering_page_section(section: OfferingSection) -> OfferingSection:
    """Register `section(offering) -> context entries` for the offering page (idempotent)."""
    if section not in _SECTIONS:
        _SECTIONS.append(section)
    return section


def offering_page_sections(offering: Offering) -> dict[str, Any]:
    context: dict[str, Any] = {}
    for section in _SECTIONS:
        context.update(section(offering))
    return context
