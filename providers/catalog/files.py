"""Reading catalog files: YAML as it is, CSV rows (one per plan) regrouped into the YAML structure."""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any

import yaml

from providers.catalog.report import CatalogError, ImportReport, Problem
from providers.facts import FACTS, GROUPS, facts_in_group
from providers.models import BILLING_PLAN_FIELDS

FORMAT = "clusterscout-catalog/1"
# The keys of a plan in a catalog file: its fields and the keys of the sources it cites.
PLAN_FIELDS = (*BILLING_PLAN_FIELDS, "sources")


def read_catalog_file(path: str | Path) -> dict[str, Any]:
    """Read a YAML or CSV catalog file into the YAML structure (CSV rows are regrouped)."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError as exc:
        raise CatalogError(ImportReport(problems=[Problem(str(path), "file", "no such file")])) from exc
    except UnicodeDecodeError as exc:
        raise CatalogError(ImportReport(problems=[Problem(str(path), "file", "not UTF-8 text")])) from exc
    suffix = path.suffix.lower()
    if suffix in (".yaml", ".yml"):
        return parse_yaml(text)
    if suffix == ".csv":
        return parse_csv(text)
    raise CatalogError(
        ImportReport(problems=[Problem(str(path), "file", "expected a .yaml, .yml or .csv file")])
    )


def parse_yaml(text: str) -> dict[str, Any]:
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}" if mark is not None else "file"
        raise CatalogError(
            ImportReport(problems=[Problem(where, "yaml", f"not valid YAML ({exc})")])
        ) from exc
    if not isinstance(data, dict):
        raise CatalogError(
            ImportReport(problems=[Problem("file", "format", "expected a mapping with 'providers'")])
        )
    return data


def _csv_columns() -> set[str]:
    """Every column a catalog CSV may have (docs/CATALOG_FORMAT.md)."""
    return {
        "provider_slug",
        "provider_name",
        "provider_kind",
        "provider_sources",
        "offering_slug",
        "offering_name",
        "offering_summary",
        "fictional",
        *(fact.name for fact in FACTS),
        *(f"{group}_sources" for group in GROUPS),
        *(f"{group}_as_of" for group in GROUPS),
        *(f"{group}_note" for group in GROUPS),
        *(f"plan_{name}" for name in PLAN_FIELDS),
    }


def parse_csv(text: str) -> dict[str, Any]:
    """Regroup CSV rows (one per plan) into the YAML structure; cells stay strings and are coerced later."""
    reader = csv.DictReader(io.StringIO(text))
    if not reader.fieldnames or "offering_slug" not in reader.fieldnames:
        raise CatalogError(
            ImportReport(
                problems=[Problem("header", "offering_slug", "the CSV header must name offering_slug")]
            )
        )
    known = _csv_columns()
    problems = [Problem("header", name, "unknown column") for name in reader.fieldnames if name not in known]
    if problems:
        raise CatalogError(ImportReport(problems=problems))
    providers: dict[str, dict[str, Any]] = {}
    offerings: dict[str, dict[str, Any]] = {}
    for row_number, raw_row in enumerate(reader, start=2):
        row = {k: (v.strip() if isinstance(v, str) else v) for k, v in raw_row.items() if k is not None}
        provider = _csv_provider(row, row_number, providers)
        offering = offerings.get(row.get("offering_slug") or "")
        if offering is None:
            # The first row of an offering carries its facts; the next rows only add plans.
            offering = _csv_offering(row, row_number)
            offerings[offering["slug"]] = offering
            provider["offerings"].append(offering)
        if row.get("plan_kind") or row.get("plan_name"):
            offering["plans"].append(_csv_plan(row, row_number))
    return {"format": FORMAT, "providers": list(providers.values())}


def _csv_provider(
    row: dict[str, Any], row_number: int, providers: dict[str, dict[str, Any]]
) -> dict[str, Any]:
    """The row's provider (created at its first row), with the sources this row adds."""
    slug = row.get("provider_slug") or ""
    provider = providers.setdefault(
        slug,
        {
            "slug": slug,
            "name": row.get("provider_name") or slug,
            "kind": row.get("provider_kind") or "",
            "sources": [],
            "offerings": [],
            "_row": row_number,
        },
    )
    # provider_sources: `key|title|url` entries separated by `;`
    for spec in filter(None, (row.get("provider_sources") or "").split(";")):
        parts = [part.strip() for part in spec.split("|")]
        key = parts[0]
        if key and all(source["key"] != key for source in provider["sources"]):
            provider["sources"].append(
                {
                    "key": key,
                    "title": parts[1] if len(parts) > 1 else key,
                    "url": parts[2] if len(parts) > 2 else None,
                }
            )
    return provider


def _csv_offering(row: dict[str, Any], row_number: int) -> dict[str, Any]:
    groups: dict[str, Any] = {}
    for group in GROUPS:
        facts = {f.name: _csv_cell(row.get(f.name)) for f in facts_in_group(group) if f.name in row}
        facts = {name: value for name, value in facts.items() if value is not None}
        sources = _csv_list(row.get(f"{group}_sources"))
        as_of = _csv_cell(row.get(f"{group}_as_of"))
        note = _csv_cell(row.get(f"{group}_note"))
        if facts or sources or as_of or note:
            groups[group] = {"facts": facts, "sources": sources, "as_of": as_of, "note": note or ""}
    slug = row.get("offering_slug") or ""
    return {
        "slug": slug,
        "name": row.get("offering_name") or slug,
        "summary": row.get("offering_summary") or "",
        "fictional": _csv_cell(row.get("fictional")) or False,
        "groups": groups,
        "plans": [],
        "_row": row_number,
    }


def _csv_plan(row: dict[str, Any], row_number: int) -> dict[str, Any]:
    plan = {name: _csv_cell(row.get(f"plan_{name}")) for name in PLAN_FIELDS}
    plan["sources"] = _csv_list(row.get("plan_sources"))
    plan["_row"] = row_number
    return plan


def _csv_list(value: Any) -> list[str]:
    """A cell of `;`-separated keys."""
    return [item for item in (value or "").split(";") if item]


def _csv_cell(value: Any) -> Any:
    if value is None:
        return None
    value = str(value).strip()
    if value == "" or value.lower() in ("null", "none", "not published"):
        return None
    return value
