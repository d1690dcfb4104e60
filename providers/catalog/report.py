"""What an import found: a Problem per bad field, the report of the whole import, the error carrying it."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Problem:
    where: str
    field: str
    message: str

    def __str__(self) -> str:
        return f"{self.where}: {self.field}: {self.message}"


@dataclass
class ImportReport:
    dry_run: bool = False
    problems: list[Problem] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.problems

    def bump(self, key: str, n: int = 1) -> None:
        self.counts[key] = self.counts.get(key, 0) + n

    def summary(self) -> str:
        if self.problems:
            lines = [f"Import refused: {len(self.problems)} problem(s); nothing was written."]
            lines += [f"  - {p}" for p in self.problems]
            return "\n".join(lines)
        head = "Dry run: the file is valid; nothing was written." if self.dry_run else "Import done."
        body = ", ".join(f"{k}: {v}" for k, v in sorted(self.counts.items())) or "no changes"
        return f"{head} {body}"


class CatalogError(Exception):
    """The file cannot be imported; `report.problems` names every bad row and field."""

    def __init__(self, report: ImportReport) -> None:
        super().__init__(report.summary())
        self.report = report
