"""The whole catalog in the import format (importing an export changes nothing)."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import yaml

from providers.catalog.files import FORMAT
from providers.facts import GROUPS, facts_in_group
from providers.models import Offering, Provenance, Provider


def catalog_export() -> dict[str, Any]:
    """The whole catalog in the import format (import(export()) changes nothing)."""
    providers = Provider.objects.prefetch_related(
        "sources",
        "offerings__gpu",
        "offerings__provenance__sources",
        "offerings__plans__sources",
    ).order_by("slug")
    return {"format": FORMAT, "providers": [_export_provider(provider) for provider in providers]}


def _export_provider(provider: Provider) -> dict[str, Any]:
    return {
        "slug": provider.slug,
        "name": provider.name,
        "kind": provider.kind,
        "website": provider.website or None,
        "notes": provider.notes,
        **(
            {"native_name": provider.native_name, "native_name_source": provider.native_name_source}
            if provider.native_name
            else {}
        ),
        "sources": [
            {
                "key": source.key,
                "title": source.title,
                "url": source.url or None,
                "date": source.date_text or None,
                "kind": source.kind,
            }
            for source in provider.sources.all()
        ],
        "offerings": [
            _export_offering(offering)
            for offering in sorted(provider.offerings.all(), key=lambda offering: offering.slug)
        ],
    }


def _export_offering(offering: Offering) -> dict[str, Any]:
    provenance = {row.group: row for row in offering.provenance.all()}
    groups: dict[str, Any] = {}
    for group in GROUPS:
        facts = {}
        for fact in facts_in_group(group):
            value = offering.fact_value(fact.name)
            if isinstance(value, Decimal):
                value = float(value)
            if value is not None and value != []:
                facts[fact.name] = value
        group_provenance = provenance.get(group)
        if facts or group_provenance is not None:
            groups[group] = {"facts": facts, **_export_provenance(group_provenance)}
    return {
        "slug": offering.slug,
        "name": offering.name,
        "fictional": offering.fictional,
        "summary": offering.summary,
        "groups": groups,
        "plans": [
            {
                **plan.as_dict(),
                "region": plan.region,
                "as_of": plan.as_of.isoformat() if plan.as_of else None,
                "sources": sorted(source.key for source in plan.sources.all()),
                "note": plan.note,
            }
            for plan in offering.plans.all()
        ],
    }


def _export_provenance(provenance: Provenance | None) -> dict[str, Any]:
    if provenance is None:
        return {}
    return {
        "sources": sorted(source.key for source in provenance.sources.all()),
        "as_of": provenance.as_of.isoformat() if provenance.as_of else None,
        "note": provenance.note,
        "unsure": provenance.unsure,
        **({"fact_sources": provenance.fact_sources} if provenance.fact_sources else {}),
    }


def catalog_export_yaml() -> str:
    return yaml.safe_dump(catalog_export(), sort_keys=False, allow_unicode=True, width=110)
