"""Validation of a whole catalog before anything is written: every problem is collected, with the provider,
offering, plan and field it is about."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal
from typing import Any

from providers.catalog.files import FORMAT, PLAN_FIELDS
from providers.catalog.report import ImportReport, Problem
from providers.catalog.values import coerce_fact, parse_date, parse_number
from providers.facts import FACTS, FACTS_BY_NAME, GROUPS, NOTE_MAX_LENGTH, PLAN_BOUNDS
from providers.models import BillingPlan, Offering, Provider, Source

# A fact's own note says what the source prints; longer text belongs in the group note.
FACT_NOTE_MAX = 2000
SLUG_RE = re.compile(r"^[a-z0-9][a-z0-9-]*$")
PROVIDER_KINDS = [k for k, _ in Provider.Kind.choices]
PLAN_KINDS = [k for k, _ in BillingPlan.Kind.choices]
GRANULARITIES = [k for k, _ in BillingPlan.Granularity.choices]
# The numbers of a plan: whole number?; their ranges are providers.facts.PLAN_BOUNDS.
PLAN_NUMBERS: dict[str, bool] = {
    "price_usd_per_gpu_hour": False,
    "term_months": True,
    "min_nodes": True,
    "cycle_days": True,
    "upfront_pct": False,
}


@dataclass
class _Validation:
    """One pass over a catalog file: the problems found so far and the slugs seen (a repeat is a problem)."""

    report: ImportReport
    gpu_keys: set[str]
    providers_seen: set[str] = field(default_factory=set)
    offerings_seen: set[str] = field(default_factory=set)

    def add(self, where: str, name: str, message: str) -> None:
        self.report.problems.append(Problem(where, name, message))


def _where(label: str, name: str, index: int, raw: dict[str, Any]) -> str:
    """How a problem names its entry: `provider acme (row 3)`, or `#2` for an entry without a name."""
    return f"{label} {name or '#' + str(index + 1)}" + (f" (row {raw['_row']})" if "_row" in raw else "")


def catalog_validate(data: dict[str, Any], report: ImportReport, gpu_keys: set[str]) -> list[dict[str, Any]]:
    """The catalog cleaned for the write; every problem found is added to `report`."""
    check = _Validation(report, gpu_keys)
    declared_format = data.get("format")
    if declared_format not in (None, FORMAT):
        check.add("file", "format", f"expected “{FORMAT}”, got “{declared_format}”")
    providers = data.get("providers")
    if not isinstance(providers, list) or not providers:
        check.add("file", "providers", "expected a non-empty list of providers")
        return []
    clean_providers: list[dict[str, Any]] = []
    for index, raw in enumerate(providers):
        if not isinstance(raw, dict):
            check.add(f"providers[{index}]", "provider", "expected a mapping")
            continue
        clean_providers.append(_validate_provider(check, raw, index))
    if check.offerings_seen:
        owned_elsewhere = Offering.objects.filter(slug__in=check.offerings_seen).exclude(
            provider__slug__in=check.providers_seen
        )
        for offering in owned_elsewhere.select_related("provider"):
            check.add(
                f"offering {offering.slug}", "slug", f"already belongs to provider {offering.provider.slug}"
            )
    return clean_providers


def _check_slug_and_name(check: _Validation, raw: dict[str, Any], where: str, seen: set[str]) -> str:
    slug = str(raw.get("slug") or "")
    if not SLUG_RE.match(slug):
        check.add(where, "slug", "required; lower-case letters, digits and hyphens")
    elif slug in seen:
        check.add(where, "slug", "appears twice in the file")
    seen.add(slug)
    if not raw.get("name"):
        check.add(where, "name", "required")
    return slug


def _check_cited(check: _Validation, where: str, name: str, cited: list[str], known_keys: set[str]) -> None:
    for key in cited:
        if key not in known_keys:
            check.add(where, name, f"source “{key}” is not in the provider's sources")


def _validate_provider(check: _Validation, raw: dict[str, Any], index: int) -> dict[str, Any]:
    where = _where("provider", str(raw.get("slug") or ""), index, raw)
    slug = _check_slug_and_name(check, raw, where, check.providers_seen)
    if raw.get("kind") not in PROVIDER_KINDS:
        check.add(where, "kind", f"“{raw.get('kind')}” is not one of {', '.join(PROVIDER_KINDS)}")
    sources = _validate_sources(check, raw.get("sources") or [], where)
    # Offerings may cite the provider's sources already in the database as well as the file's.
    known_keys = set(sources) | set(Source.objects.filter(provider__slug=slug).values_list("key", flat=True))
    defaults = (raw.get("defaults") or {}).get("groups") or {}
    offerings = []
    for offering_index, offering in enumerate(raw.get("offerings") or []):
        if not isinstance(offering, dict):
            check.add(where, f"offerings[{offering_index}]", "expected a mapping")
            continue
        offerings.append(
            _validate_offering(check, offering, offering_index, f"{where} / offering", defaults, known_keys)
        )
    return {
        "slug": slug,
        "name": str(raw.get("name") or "")[:200],
        "kind": raw.get("kind"),
        "website": str(raw.get("website") or "")[:200],
        "notes": _note(check, where, "notes", raw.get("notes")),
        **_native_name(check, where, raw),
        "sources": list(sources.values()),
        "offerings": offerings,
    }


def _native_name(check: _Validation, where: str, raw: dict[str, Any]) -> dict[str, str]:
    """The provider's name in its own language and the page of its own site that uses it (both or none)."""
    name = str(raw.get("native_name") or "").strip()
    source = str(raw.get("native_name_source") or "").strip()
    if len(name) > 200:
        check.add(where, "native_name", f"must be at most 200 characters, got {len(name):,}")
    if name and not source.startswith("https://"):
        check.add(where, "native_name_source", "give the https address of the provider's page using the name")
    if source and not name:
        check.add(where, "native_name", "a source is given but no native name")
    if len(source) > 500:
        check.add(where, "native_name_source", f"must be at most 500 characters, got {len(source):,}")
    return {"native_name": name[:200], "native_name_source": source[:500]}


def _note(check: _Validation, where: str, name: str, value: Any) -> str:
    """A free-text note, at most NOTE_MAX_LENGTH characters (a longer one is a problem, not truncated)."""
    text = str(value or "")
    if len(text) > NOTE_MAX_LENGTH:
        check.add(where, name, f"must be at most {NOTE_MAX_LENGTH:,} characters, got {len(text):,}")
        return text[:NOTE_MAX_LENGTH]
    return text


def _as_of(check: _Validation, where: str, name: str, value: Any) -> date | None:
    """An as-of date; a value that is not one is a problem (None)."""
    try:
        return parse_date(value)
    except ValueError as exc:
        check.add(where, name, str(exc))
        return None


def _validate_sources(check: _Validation, raw_sources: list[Any], where: str) -> dict[str, dict[str, Any]]:
    sources: dict[str, dict[str, Any]] = {}
    for index, source in enumerate(raw_sources):
        if not isinstance(source, dict) or not source.get("key"):
            check.add(where, f"sources[{index}].key", "required")
            continue
        key = str(source["key"])
        if key in sources:
            check.add(where, f"sources[{index}].key", f"“{key}” appears twice")
        if not source.get("title"):
            check.add(where, f"sources[{index}].title", "required")
        sources[key] = {
            "key": key,
            "title": str(source.get("title") or key)[:500],
            "url": str(source.get("url") or "")[:500],
            "date_text": str(source.get("date") or "")[:120],
            "kind": str(source.get("kind") or "")[:60],
        }
    return sources


def _validate_offering(
    check: _Validation,
    raw: dict[str, Any],
    index: int,
    label: str,
    defaults: dict[str, Any],
    known_keys: set[str],
) -> dict[str, Any]:
    where = _where(label, str(raw.get("slug") or ""), index, raw)
    slug = _check_slug_and_name(check, raw, where, check.offerings_seen)
    groups = {**defaults, **(raw.get("groups") or {})}
    facts, provenance = _validate_groups(check, groups, where, known_keys)
    fictional = raw.get("fictional") or False
    if not isinstance(fictional, bool):
        fictional = str(fictional).lower() in ("true", "yes", "1")
    return {
        "slug": slug,
        "name": str(raw.get("name") or "")[:300],
        "summary": str(raw.get("summary") or "")[:500],
        "fictional": fictional,
        "facts": facts,
        "provenance": provenance,
        "plans": _validate_plans(check, raw.get("plans") or [], f"{where} / plan", known_keys),
    }


def _validate_groups(
    check: _Validation, groups: dict[str, Any], where: str, known_keys: set[str]
) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    """Every fact (None where the file does not publish it) and the provenance of each group."""
    facts: dict[str, Any] = {fact.name: None for fact in FACTS}
    provenance: dict[str, dict[str, Any]] = {}
    for group, body in groups.items():
        if group not in GROUPS:
            check.add(where, f"groups.{group}", f"unknown group (known: {', '.join(GROUPS)})")
            continue
        if body is None:
            continue
        if not isinstance(body, dict):
            check.add(where, f"groups.{group}", "expected a mapping with facts")
            continue
        facts.update(_validate_group_facts(check, group, body.get("facts") or {}, where))
        provenance[group] = _validate_provenance(check, group, body, where, known_keys)
    return facts, provenance


def _validate_group_facts(
    check: _Validation, group: str, raw_facts: dict[str, Any], where: str
) -> dict[str, Any]:
    facts: dict[str, Any] = {}
    for name, value in raw_facts.items():
        fact = FACTS_BY_NAME.get(name)
        if fact is None or fact.group != group:
            check.add(where, f"groups.{group}.facts.{name}", "unknown fact for this group")
            continue
        try:
            facts[name] = coerce_fact(fact, value, check.gpu_keys)
        except ValueError as exc:
            check.add(where, f"groups.{group}.facts.{name}", str(exc))
    return facts


def _validate_provenance(
    check: _Validation, group: str, body: dict[str, Any], where: str, known_keys: set[str]
) -> dict[str, Any]:
    cited = [str(key) for key in (body.get("sources") or [])]
    _check_cited(check, where, f"groups.{group}.sources", cited, known_keys)
    as_of = _as_of(check, where, f"groups.{group}.as_of", body.get("as_of"))
    return {
        "sources": cited,
        "as_of": as_of,
        "note": _note(check, where, f"groups.{group}.note", body.get("note")),
        "unsure": bool(body.get("unsure")),
        "fact_sources": _validate_fact_sources(check, group, body.get("fact_sources"), where, known_keys),
    }


def _validate_fact_sources(
    check: _Validation, group: str, raw: Any, where: str, known_keys: set[str]
) -> dict[str, dict[str, Any]]:
    """Sources of single facts of the group: {fact: {sources, as_of, note}} (docs/CATALOG_FORMAT.md)."""
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        check.add(where, f"groups.{group}.fact_sources", "expected a mapping of fact name to its sources")
        return {}
    out: dict[str, dict[str, Any]] = {}
    for name, entry in raw.items():
        field_name = f"groups.{group}.fact_sources.{name}"
        fact = FACTS_BY_NAME.get(str(name))
        if fact is None or fact.group != group:
            check.add(where, field_name, "unknown fact for this group")
            continue
        if not isinstance(entry, dict) or not entry.get("sources"):
            check.add(where, field_name, "expected a mapping with a non-empty list of sources")
            continue
        cited = [str(key) for key in entry["sources"]] if isinstance(entry["sources"], list) else []
        if not cited:
            check.add(where, f"{field_name}.sources", "expected a list of source keys")
        _check_cited(check, where, f"{field_name}.sources", cited, known_keys)
        as_of = _as_of(check, where, f"{field_name}.as_of", entry.get("as_of"))
        note = str(entry.get("note") or "")
        if len(note) > FACT_NOTE_MAX:
            check.add(where, f"{field_name}.note", f"at most {FACT_NOTE_MAX} characters, got {len(note)}")
        out[str(name)] = {"sources": cited, "as_of": as_of.isoformat() if as_of else None, "note": note}
        if entry.get("unsure") not in (None, False, True):
            check.add(where, f"{field_name}.unsure", f"expected true or false, got “{entry['unsure']}”")
        if entry.get("unsure") is True:
            out[str(name)]["unsure"] = True
    return out


def _validate_plans(
    check: _Validation, raw_plans: list[Any], label: str, known_keys: set[str]
) -> list[dict[str, Any]]:
    plans = []
    names: set[str] = set()
    for index, plan in enumerate(raw_plans):
        if not isinstance(plan, dict):
            check.add(_where(label, "", index, {}), "plan", "expected a mapping")
            continue
        where = _where(label, str(plan.get("name") or ""), index, plan)
        for name in sorted(set(plan) - set(PLAN_FIELDS) - {"_row"}):
            check.add(where, name, "unknown plan field")
        plans.append(_validate_plan(check, plan, where, known_keys, names))
    return plans


def _plan_number(check: _Validation, where: str, name: str, value: Any) -> Any:
    """The plan's number `name` (None when not published), or None and a problem when it is not valid."""
    if value is None:
        return None
    try:
        number = parse_number(value, integer=PLAN_NUMBERS[name])
    except ValueError as exc:
        check.add(where, name, str(exc))
        return None
    message = PLAN_BOUNDS[name].error(float(number))
    if message:
        check.add(where, name, message)
        return None
    return number


def _validate_plan(
    check: _Validation, plan: dict[str, Any], where: str, known_keys: set[str], names: set[str]
) -> dict[str, Any]:
    out: dict[str, Any] = {}
    kind = str(plan.get("kind") or "")
    if kind not in PLAN_KINDS:
        check.add(where, "kind", f"“{plan.get('kind')}” is not one of {', '.join(PLAN_KINDS)}")
    out["kind"] = kind
    name = str(plan.get("name") or "").strip() or kind
    if name in names:
        check.add(where, "name", "two plans of this offering have the same name")
    names.add(name)
    out["name"] = name[:200]
    granularity = str(plan.get("granularity") or "hour")
    if granularity not in GRANULARITIES:
        check.add(where, "granularity", f"“{granularity}” is not one of {', '.join(GRANULARITIES)}")
    out["granularity"] = granularity
    for number_name in PLAN_NUMBERS:
        out[number_name] = _plan_number(check, where, number_name, plan.get(number_name))
    if out["price_usd_per_gpu_hour"] is not None:
        # Money is Decimal: from the text as published, not from the float the check used.
        price_text = str(plan["price_usd_per_gpu_hour"]).strip()
        out["price_usd_per_gpu_hour"] = Decimal(price_text).quantize(Decimal("0.0001"))
    out["as_of"] = _as_of(check, where, "as_of", plan.get("as_of"))
    out["region"] = str(plan.get("region") or "")[:120]
    out["note"] = _note(check, where, "note", plan.get("note"))
    out["sources"] = [str(key) for key in (plan.get("sources") or [])]
    _check_cited(check, where, "sources", out["sources"], known_keys)
    return out
