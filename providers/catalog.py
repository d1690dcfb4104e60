"""Catalog files: read YAML/CSV into one normalised structure, validate every field, write all-or-nothing.

The format is docs/CATALOG_FORMAT.md. Validation collects every problem (with its provider, offering, plan
and field) before anything is written; the write happens in one transaction, so a failure at any point
leaves the database as it was.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import re
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

import yaml
from django.db import IntegrityError, transaction

from providers.facts import FACTS, FACTS_BY_NAME, GROUPS, Fact, facts_in_group
from providers.models import (
    BILLING_PLAN_FIELDS,
    BillingPlan,
    GPUModel,
    Offering,
    PricePoint,
    Provenance,
    Provider,
    Source,
)

FORMAT = "clusterscout-catalog/1"
SLUG_RE = re.compile(r"^[a-z0-9][a-z0-9-]*$")
# The keys of a plan in a catalog file: its fields and the keys of the sources it cites.
PLAN_FIELDS = (*BILLING_PLAN_FIELDS, "sources")
PROVIDER_KINDS = [k for k, _ in Provider.Kind.choices]
PLAN_KINDS = [k for k, _ in BillingPlan.Kind.choices]
GRANULARITIES = [k for k, _ in BillingPlan.Granularity.choices]


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


# --- reading files ------------------------------------------------------------------------------------


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


def _csv_fact_columns() -> list[str]:
    return [fact.name for fact in FACTS]


def parse_csv(text: str) -> dict[str, Any]:
    """Regroup CSV rows (one per plan) into the YAML structure; cells stay strings and are coerced later."""
    reader = csv.DictReader(io.StringIO(text))
    if not reader.fieldnames or "offering_slug" not in reader.fieldnames:
        raise CatalogError(
            ImportReport(
                problems=[Problem("header", "offering_slug", "the CSV header must name offering_slug")]
            )
        )
    known = {
        "provider_slug",
        "provider_name",
        "provider_kind",
        "provider_sources",
        "offering_slug",
        "offering_name",
        "offering_summary",
        "fictional",
        *_csv_fact_columns(),
        *(f"{g}_sources" for g in GROUPS),
        *(f"{g}_as_of" for g in GROUPS),
        *(f"{g}_note" for g in GROUPS),
        *(f"plan_{f}" for f in PLAN_FIELDS),
    }
    problems = [Problem("header", name, "unknown column") for name in reader.fieldnames if name not in known]
    if problems:
        raise CatalogError(ImportReport(problems=problems))
    providers: dict[str, dict[str, Any]] = {}
    offerings: dict[str, dict[str, Any]] = {}
    for row_number, row in enumerate(reader, start=2):
        row = {k: (v.strip() if isinstance(v, str) else v) for k, v in row.items() if k is not None}
        pslug = row.get("provider_slug") or ""
        provider = providers.setdefault(
            pslug,
            {
                "slug": pslug,
                "name": row.get("provider_name") or pslug,
                "kind": row.get("provider_kind") or "",
                "sources": [],
                "offerings": [],
                "_row": row_number,
            },
        )
        for spec in filter(None, (row.get("provider_sources") or "").split(";")):
            parts = [p.strip() for p in spec.split("|")]
            key = parts[0]
            if key and all(s["key"] != key for s in provider["sources"]):
                provider["sources"].append(
                    {
                        "key": key,
                        "title": parts[1] if len(parts) > 1 else key,
                        "url": parts[2] if len(parts) > 2 else None,
                    }
                )
        oslug = row.get("offering_slug") or ""
        offering = offerings.get(oslug)
        if offering is None:
            groups: dict[str, Any] = {}
            for group in GROUPS:
                facts = {f.name: _csv_cell(row.get(f.name)) for f in facts_in_group(group) if f.name in row}
                facts = {k: v for k, v in facts.items() if v is not None}
                sources = [s for s in (row.get(f"{group}_sources") or "").split(";") if s]
                as_of = _csv_cell(row.get(f"{group}_as_of"))
                note = _csv_cell(row.get(f"{group}_note"))
                if facts or sources or as_of or note:
                    groups[group] = {"facts": facts, "sources": sources, "as_of": as_of, "note": note or ""}
            offering = {
                "slug": oslug,
                "name": row.get("offering_name") or oslug,
                "summary": row.get("offering_summary") or "",
                "fictional": _csv_cell(row.get("fictional")) or False,
                "groups": groups,
                "plans": [],
                "_row": row_number,
            }
            offerings[oslug] = offering
            provider["offerings"].append(offering)
        if row.get("plan_kind") or row.get("plan_name"):
            plan = {f: _csv_cell(row.get(f"plan_{f}")) for f in PLAN_FIELDS}
            plan["sources"] = [s for s in (row.get("plan_sources") or "").split(";") if s]
            plan["_row"] = row_number
            offering["plans"].append(plan)
    return {"format": FORMAT, "providers": list(providers.values())}


def _csv_cell(value: Any) -> Any:
    if value is None:
        return None
    value = str(value).strip()
    if value == "" or value.lower() in ("null", "none", "not published"):
        return None
    return value


# --- validating values --------------------------------------------------------------------------------


def coerce_fact(fact: Fact, value: Any, gpu_keys: set[str]) -> Any:
    """Turn one published value into the stored type, or raise ValueError with a message for the user."""
    if value is None:
        return None
    if fact.type == "text":
        if isinstance(value, (dict, list)):
            raise ValueError("expected text")
        return str(value)
    if fact.type == "gpu":
        key = str(value)
        if key not in gpu_keys:
            raise ValueError(f"unknown GPU key {key!r} (known: {', '.join(sorted(gpu_keys))})")
        return key
    if fact.type == "bool":
        if isinstance(value, bool):
            return value
        text = str(value).strip().lower()
        if text in ("true", "yes", "1"):
            return True
        if text in ("false", "no", "0"):
            return False
        raise ValueError(f"expected true or false, got {value!r}")
    if fact.type == "enum":
        text = str(value).strip().lower()
        if text not in fact.choices:
            raise ValueError(f"{value!r} is not one of {', '.join(fact.choices)}")
        return text
    if fact.type == "list":
        items = value if isinstance(value, list) else [s for s in str(value).replace(",", ";").split(";")]
        cleaned = [str(item).strip().lower() for item in items if str(item).strip()]
        bad = [item for item in cleaned if item not in fact.choices]
        if bad:
            raise ValueError(f"{', '.join(bad)} not among {', '.join(fact.choices)}")
        return sorted(set(cleaned))
    number = _number(value, integer=fact.type == "int")
    if fact.strictly_positive and number <= 0:
        raise ValueError(f"must be greater than 0, got {value}")
    if fact.minimum is not None and number < fact.minimum:
        raise ValueError(f"must be at least {fact.minimum:g}, got {value}")
    if fact.maximum is not None and number > fact.maximum:
        raise ValueError(f"must be at most {fact.maximum:g}, got {value}")
    if fact.type == "decimal":
        return Decimal(str(value)).normalize() if not isinstance(number, Decimal) else number
    return number


def _number(value: Any, *, integer: bool) -> Any:
    if isinstance(value, bool):
        raise ValueError(f"expected a number, got {value!r}")
    try:
        number = Decimal(str(value).strip().replace("_", ""))
    except (InvalidOperation, ValueError) as exc:
        raise ValueError(f"expected a number, got {value!r}") from exc
    if not number.is_finite():
        raise ValueError(f"expected a finite number, got {value!r}")
    if integer:
        if number != number.to_integral_value():
            raise ValueError(f"expected a whole number, got {value!r}")
        return int(number)
    return float(number)


def _date(value: Any) -> dt.date | None:
    if value is None or value == "":
        return None
    if isinstance(value, dt.datetime):
        return value.date()
    if isinstance(value, dt.date):
        return value
    try:
        return dt.date.fromisoformat(str(value).strip())
    except ValueError as exc:
        raise ValueError(f"expected an ISO date YYYY-MM-DD, got {value!r}") from exc


# --- the import ---------------------------------------------------------------------------------------


def catalog_import(*, data: dict[str, Any], dry_run: bool = False) -> ImportReport:
    """Validate the whole catalog, then write it in one transaction (rolled back on a dry run).

    Raises CatalogError naming every bad provider, offering, plan and field; nothing is written then.
    """
    report = ImportReport(dry_run=dry_run)
    gpu_keys = set(GPUModel.objects.values_list("key", flat=True))
    clean = _validate(data, report, gpu_keys)
    if report.problems:
        raise CatalogError(report)
    try:
        with transaction.atomic():
            _write(clean, report)
            if dry_run:
                transaction.set_rollback(True)
    except IntegrityError as exc:  # a constraint the validation missed: still all-or-nothing
        report.problems.append(Problem("database", "constraint", str(exc)))
        raise CatalogError(report) from exc
    return report


def _validate(data: dict[str, Any], report: ImportReport, gpu_keys: set[str]) -> list[dict[str, Any]]:
    add = report.problems.append
    fmt = data.get("format")
    if fmt not in (None, FORMAT):
        add(Problem("file", "format", f"expected {FORMAT!r}, got {fmt!r}"))
    providers = data.get("providers")
    if not isinstance(providers, list) or not providers:
        add(Problem("file", "providers", "expected a non-empty list of providers"))
        return []
    clean_providers: list[dict[str, Any]] = []
    seen_providers: set[str] = set()
    seen_offerings: set[str] = set()
    for pi, raw in enumerate(providers):
        if not isinstance(raw, dict):
            add(Problem(f"providers[{pi}]", "provider", "expected a mapping"))
            continue
        slug = str(raw.get("slug") or "")
        where = f"provider {slug or '#' + str(pi + 1)}" + (f" (row {raw['_row']})" if "_row" in raw else "")
        if not SLUG_RE.match(slug):
            add(Problem(where, "slug", "required; lower-case letters, digits and hyphens"))
        elif slug in seen_providers:
            add(Problem(where, "slug", "appears twice in the file"))
        seen_providers.add(slug)
        if not raw.get("name"):
            add(Problem(where, "name", "required"))
        if raw.get("kind") not in PROVIDER_KINDS:
            add(Problem(where, "kind", f"{raw.get('kind')!r} is not one of {', '.join(PROVIDER_KINDS)}"))
        sources: dict[str, dict[str, Any]] = {}
        for si, src in enumerate(raw.get("sources") or []):
            if not isinstance(src, dict) or not src.get("key"):
                add(Problem(where, f"sources[{si}].key", "required"))
                continue
            key = str(src["key"])
            if key in sources:
                add(Problem(where, f"sources[{si}].key", f"{key!r} appears twice"))
            if not src.get("title"):
                add(Problem(where, f"sources[{si}].title", "required"))
            sources[key] = {
                "key": key,
                "title": str(src.get("title") or key)[:500],
                "url": str(src.get("url") or "")[:500],
                "date_text": str(src.get("date") or "")[:120],
                "kind": str(src.get("kind") or "")[:60],
            }
        existing_keys = set(Source.objects.filter(provider__slug=slug).values_list("key", flat=True))
        known_keys = set(sources) | existing_keys
        defaults = (raw.get("defaults") or {}).get("groups") or {}
        clean_offerings = []
        for oi, off in enumerate(raw.get("offerings") or []):
            if not isinstance(off, dict):
                add(Problem(where, f"offerings[{oi}]", "expected a mapping"))
                continue
            oslug = str(off.get("slug") or "")
            owhere = f"{where} / offering {oslug or '#' + str(oi + 1)}" + (
                f" (row {off['_row']})" if "_row" in off else ""
            )
            if not SLUG_RE.match(oslug):
                add(Problem(owhere, "slug", "required; lower-case letters, digits and hyphens"))
            elif oslug in seen_offerings:
                add(Problem(owhere, "slug", "appears twice in the file"))
            seen_offerings.add(oslug)
            if not off.get("name"):
                add(Problem(owhere, "name", "required"))
            groups_raw = {**defaults, **(off.get("groups") or {})}
            facts: dict[str, Any] = {f.name: None for f in FACTS}
            provenance: dict[str, dict[str, Any]] = {}
            for group, body in groups_raw.items():
                if group not in GROUPS:
                    add(Problem(owhere, f"groups.{group}", f"unknown group (known: {', '.join(GROUPS)})"))
                    continue
                if body is None:
                    continue
                if not isinstance(body, dict):
                    add(Problem(owhere, f"groups.{group}", "expected a mapping with facts"))
                    continue
                for name, value in (body.get("facts") or {}).items():
                    fact = FACTS_BY_NAME.get(name)
                    if fact is None or fact.group != group:
                        add(Problem(owhere, f"groups.{group}.facts.{name}", "unknown fact for this group"))
                        continue
                    try:
                        facts[name] = coerce_fact(fact, value, gpu_keys)
                    except ValueError as exc:
                        add(Problem(owhere, f"groups.{group}.facts.{name}", str(exc)))
                cited = [str(s) for s in (body.get("sources") or [])]
                for key in cited:
                    if key not in known_keys:
                        add(
                            Problem(
                                owhere,
                                f"groups.{group}.sources",
                                f"source {key!r} is not in the provider's sources",
                            )
                        )
                try:
                    as_of = _date(body.get("as_of"))
                except ValueError as exc:
                    add(Problem(owhere, f"groups.{group}.as_of", str(exc)))
                    as_of = None
                provenance[group] = {
                    "sources": cited,
                    "as_of": as_of,
                    "note": str(body.get("note") or ""),
                    "unsure": bool(body.get("unsure")),
                }
            plans = []
            plan_names: set[str] = set()
            for pli, plan in enumerate(off.get("plans") or []):
                pwhere = f"{owhere} / plan {plan.get('name') or '#' + str(pli + 1)}" + (
                    f" (row {plan['_row']})" if isinstance(plan, dict) and "_row" in plan else ""
                )
                if not isinstance(plan, dict):
                    add(Problem(pwhere, "plan", "expected a mapping"))
                    continue
                unknown = set(plan) - set(PLAN_FIELDS) - {"_row"}
                for name in sorted(unknown):
                    add(Problem(pwhere, name, "unknown plan field"))
                plans.append(_validate_plan(plan, pwhere, add, known_keys, plan_names))
            fictional = off.get("fictional") or False
            if not isinstance(fictional, bool):
                fictional = str(fictional).lower() in ("true", "yes", "1")
            clean_offerings.append(
                {
                    "slug": oslug,
                    "name": str(off.get("name") or "")[:300],
                    "summary": str(off.get("summary") or "")[:500],
                    "fictional": fictional,
                    "facts": facts,
                    "provenance": provenance,
                    "plans": plans,
                }
            )
        clean_providers.append(
            {
                "slug": slug,
                "name": str(raw.get("name") or "")[:200],
                "kind": raw.get("kind"),
                "website": str(raw.get("website") or "")[:200],
                "notes": str(raw.get("notes") or ""),
                "sources": list(sources.values()),
                "offerings": clean_offerings,
            }
        )
    if seen_offerings:
        owned_elsewhere = Offering.objects.filter(slug__in=seen_offerings).exclude(
            provider__slug__in=seen_providers
        )
        for off in owned_elsewhere.select_related("provider"):
            add(Problem(f"offering {off.slug}", "slug", f"already belongs to provider {off.provider.slug}"))
    return clean_providers


def _validate_plan(
    plan: dict[str, Any], where: str, add: Any, known_keys: set[str], names: set[str]
) -> dict[str, Any]:
    out: dict[str, Any] = {}
    kind = str(plan.get("kind") or "")
    if kind not in PLAN_KINDS:
        add(Problem(where, "kind", f"{plan.get('kind')!r} is not one of {', '.join(PLAN_KINDS)}"))
    out["kind"] = kind
    name = str(plan.get("name") or "").strip() or kind
    if name in names:
        add(Problem(where, "name", "two plans of this offering have the same name"))
    names.add(name)
    out["name"] = name[:200]
    granularity = str(plan.get("granularity") or "hour")
    if granularity not in GRANULARITIES:
        add(Problem(where, "granularity", f"{granularity!r} is not one of {', '.join(GRANULARITIES)}"))
    out["granularity"] = granularity
    price = plan.get("price_usd_per_gpu_hour")
    out["price_usd_per_gpu_hour"] = None
    if price is not None:
        try:
            number = _number(price, integer=False)
            if number < 0:
                raise ValueError(f"must not be negative, got {price}")
            out["price_usd_per_gpu_hour"] = Decimal(str(price).strip()).quantize(Decimal("0.0001"))
        except ValueError as exc:
            add(Problem(where, "price_usd_per_gpu_hour", str(exc)))
    for name_ in ("term_months", "min_nodes", "cycle_days"):
        value = plan.get(name_)
        out[name_] = None
        if value is not None:
            try:
                number = _number(value, integer=True)
                if number <= 0:
                    raise ValueError(f"must be greater than 0, got {value}")
                out[name_] = number
            except ValueError as exc:
                add(Problem(where, name_, str(exc)))
    upfront = plan.get("upfront_pct")
    out["upfront_pct"] = None
    if upfront is not None:
        try:
            number = _number(upfront, integer=False)
            if not 0 <= number <= 100:
                raise ValueError(f"must be between 0 and 100, got {upfront}")
            out["upfront_pct"] = number
        except ValueError as exc:
            add(Problem(where, "upfront_pct", str(exc)))
    try:
        out["as_of"] = _date(plan.get("as_of"))
    except ValueError as exc:
        add(Problem(where, "as_of", str(exc)))
        out["as_of"] = None
    out["region"] = str(plan.get("region") or "")[:120]
    out["note"] = str(plan.get("note") or "")
    out["sources"] = [str(s) for s in (plan.get("sources") or [])]
    for key in out["sources"]:
        if key not in known_keys:
            add(Problem(where, "sources", f"source {key!r} is not in the provider's sources"))
    return out


def _write(providers: list[dict[str, Any]], report: ImportReport) -> None:
    gpus = {g.key: g for g in GPUModel.objects.all()}
    for p in providers:
        provider, created = Provider.objects.update_or_create(
            slug=p["slug"],
            defaults={"name": p["name"], "kind": p["kind"], "website": p["website"], "notes": p["notes"]},
        )
        report.bump("providers created" if created else "providers updated")
        sources: dict[str, Source] = {s.key: s for s in provider.sources.all()}
        for s in p["sources"]:
            obj, _ = Source.objects.update_or_create(
                provider=provider,
                key=s["key"],
                defaults={k: s[k] for k in ("title", "url", "date_text", "kind")},
            )
            sources[obj.key] = obj
        for o in p["offerings"]:
            values: dict[str, Any] = {}
            for name, value in o["facts"].items():
                if name == "gpu":
                    values["gpu"] = gpus[value] if value else None
                elif name == "schedulers":
                    values["schedulers"] = ",".join(value or [])
                else:
                    values[name] = value
            offering, created = Offering.objects.update_or_create(
                slug=o["slug"],
                defaults={
                    "provider": provider,
                    "name": o["name"],
                    "summary": o["summary"],
                    "fictional": o["fictional"],
                    **values,
                },
            )
            report.bump("offerings created" if created else "offerings updated")
            offering.provenance.exclude(group__in=list(o["provenance"])).delete()
            for group, prov in o["provenance"].items():
                row, _ = Provenance.objects.update_or_create(
                    offering=offering,
                    group=group,
                    defaults={"as_of": prov["as_of"], "note": prov["note"], "unsure": prov["unsure"]},
                )
                row.sources.set([sources[k] for k in prov["sources"]])
            for plan in o["plans"]:
                _write_plan(offering, plan, sources, report)


def _write_plan(
    offering: Offering, plan: dict[str, Any], sources: dict[str, Source], report: ImportReport
) -> None:
    fields = {k: plan[k] for k in plan if k not in ("name", "sources")}
    existing = BillingPlan.objects.filter(offering=offering, name=plan["name"]).first()
    if existing is None:
        obj = BillingPlan.objects.create(offering=offering, name=plan["name"], **fields)
        report.bump("plans created")
        price_changed = True
    else:
        price_changed = existing.price_usd_per_gpu_hour != plan["price_usd_per_gpu_hour"]
        for key, value in fields.items():
            setattr(existing, key, value)
        existing.save()
        obj = existing
        report.bump("plans updated")
    obj.sources.set([sources[k] for k in plan["sources"]])
    if price_changed:
        PricePoint.objects.create(
            plan=obj,
            price_usd_per_gpu_hour=plan["price_usd_per_gpu_hour"],
            as_of=plan["as_of"],
            note=plan["note"][:500],
        )
        report.bump("price points appended")


# --- export -------------------------------------------------------------------------------------------


def catalog_export() -> dict[str, Any]:
    """The whole catalog in the import format (import(export()) changes nothing)."""
    out: list[dict[str, Any]] = []
    providers = Provider.objects.prefetch_related(
        "sources",
        "offerings__gpu",
        "offerings__provenance__sources",
        "offerings__plans__sources",
    ).order_by("slug")
    for provider in providers:
        offerings = []
        for offering in sorted(provider.offerings.all(), key=lambda o: o.slug):
            prov = {p.group: p for p in offering.provenance.all()}
            groups: dict[str, Any] = {}
            for group in GROUPS:
                facts = {}
                for fact in facts_in_group(group):
                    value = offering.fact_value(fact.name)
                    if isinstance(value, Decimal):
                        value = float(value)
                    if value is not None and value != []:
                        facts[fact.name] = value
                p = prov.get(group)
                if facts or p is not None:
                    body: dict[str, Any] = {"facts": facts}
                    if p is not None:
                        body.update(
                            sources=sorted(s.key for s in p.sources.all()),
                            as_of=p.as_of.isoformat() if p.as_of else None,
                            note=p.note,
                            unsure=p.unsure,
                        )
                    groups[group] = body
            plans = []
            for plan in offering.plans.all():
                plans.append(
                    {
                        **plan.as_dict(),
                        "region": plan.region,
                        "as_of": plan.as_of.isoformat() if plan.as_of else None,
                        "sources": sorted(s.key for s in plan.sources.all()),
                        "note": plan.note,
                    }
                )
            offerings.append(
                {
                    "slug": offering.slug,
                    "name": offering.name,
                    "fictional": offering.fictional,
                    "summary": offering.summary,
                    "groups": groups,
                    "plans": plans,
                }
            )
        out.append(
            {
                "slug": provider.slug,
                "name": provider.name,
                "kind": provider.kind,
                "website": provider.website or None,
                "notes": provider.notes,
                "sources": [
                    {
                        "key": s.key,
                        "title": s.title,
                        "url": s.url or None,
                        "date": s.date_text or None,
                        "kind": s.kind,
                    }
                    for s in provider.sources.all()
                ],
                "offerings": offerings,
            }
        )
    return {"format": FORMAT, "providers": out}


def catalog_export_yaml() -> str:
    return yaml.safe_dump(catalog_export(), sort_keys=False, allow_unicode=True, width=110)
