"""The one result type every parser returns."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class ParseResult:
    """What `parse_benchmark --json` prints: kind, summary, warnings, errors (DESIGN section 7).

    `kind` is None when the content was not recognised; `errors` then says why.
    """

    kind: str | None
    summary: dict[str, Any] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    @property
    def recognised(self) -> bool:
        return self.kind is not None

    def as_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "summary": self.summary,
            "warnings": list(self.warnings),
            "errors": list(self.errors),
        }
