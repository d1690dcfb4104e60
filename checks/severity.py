"""How bad a finding is: the one definition of the severities, their order, word and icon.

Pure Python (no Django): the rules use it directly; checks/models.py builds the database choices and the
check constraint from it, checks/display.py the icon and word a page shows. Severity is never shown by
colour alone (colour-blind safe, docs/CHECKS.md), hence an icon and a word for each.
"""

from __future__ import annotations

from enum import StrEnum


class Severity(StrEnum):
    """A finding's severity, declared most severe first (the declaration order is the rank)."""

    CRITICAL = "critical"
    WARNING = "warning"
    INFO = "info"

    @property
    def rank(self) -> int:
        """0 for the most severe; sorting by rank puts critical findings first."""
        return SEVERITY_RANK[self]

    @property
    def word(self) -> str:
        """Shown next to the icon, and the label of the database choice."""
        return self.value.capitalize()

    @property
    def icon(self) -> str:
        return _ICONS[self]


_ICONS = {Severity.CRITICAL: "✖", Severity.WARNING: "▲", Severity.INFO: "ℹ"}

# Most severe first, for sorting findings in the rules, the selectors and the pages.
SEVERITY_RANK: dict[Severity, int] = {level: rank for rank, level in enumerate(Severity)}
SEVERITIES: tuple[str, ...] = tuple(level.value for level in Severity)
