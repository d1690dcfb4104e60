"""The one result type every parser returns."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from hardware.messages import _


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

    def note_skipped(self, runs: int, dropped_runs: int, rows: int, dropped_rows: int) -> None:
        """Warn of what a parser read and did not hold to keep its memory bounded: runs past the runs it
        keeps, result rows past the rows it keeps (each parser's MAX_RUNS / MAX_ROWS)."""
        if dropped_runs:
            self.warnings.append(
                _(
                    "only the first %(read)s runs were read; %(dropped)s more runs in the file were skipped "
                    "(split the log to read them)",
                    read=runs,
                    dropped=dropped_runs,
                )
            )
        if dropped_rows:
            self.warnings.append(
                _(
                    "only the first %(read)s result rows were read; %(dropped)s more rows in the file were "
                    "skipped (split the log to read them)",
                    read=rows,
                    dropped=dropped_rows,
                )
            )
