"""Reads of the catalog, with their joins done here (no N+1 in pages or the API)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.db.models import (
    ExpressionWrapper,
    F,
    FloatField,
    OuterRef,
    Prefetch,
    QuerySet,
    Subquery,
)

from providers.facts import GROUPS
from providers.models import BillingPlan, FactChange, GPUModel, Offering, PricePoint, Provider, Source

# The orders of the catalog list: `sort` value -> order_by keys (on_demand_price and gbps_per_gpu_value are
# annotations of offering_queryset).
SORTS = {
    "provider": ("provider__name", "name"),
    "name": ("name",),
    "price": ("on_demand_price", "provider__name"),
    "-price": ("-on_demand_price", "provider__name"),
    "gbps_per_gpu": ("gbps_per_gpu_value", "provider__name"),
    "-gbps_per_gpu": ("-gbps_per_gpu_value", "provider__name"),
    "updated": ("-updated_at",),
}
SORT_CHOICES = [(key, key) for key in SORTS]


def on_demand_price() -> Subquery:
    """The offering's cheapest published on-demand price per GPU-hour, as a correlated subquery: unlike a
    Min() over the joined plans it needs no GROUP BY over the whole catalog, so counting and paging a
    filtered catalog of thousands stays cheap (PostgreSQL evaluates it for the rows of the page only)."""
    return Subquery(
        BillingPlan.objects.filter(
            offering=OuterRef("pk"), kind=BillingPlan.Kind.ON_DEMAND, price_usd_per_gpu_hour__isnull=False
        )
        .order_by("price_usd_per_gpu_hour")
        .values("price_usd_per_gpu_hour")[:1]
    )


def _offering_rows() -> QuerySet[Offering]:
    """Offerings with provider, GPU and the two annotations the list orders and filters by."""
    return Offering.objects.select_related("provider", "gpu").annotate(
        on_demand_price=on_demand_price(),
        gbps_per_gpu_value=ExpressionWrapper(
            F("nics_per_node") * F("gbps_per_nic") * 1.0 / F("gpus_per_node"), output_field=FloatField()
        ),
    )


def offering_queryset() -> QuerySet[Offering]:
    return _offering_rows().prefetch_related(
        Prefetch("plans", queryset=BillingPlan.objects.order_by("kind", "name"))
    )


def offering_browse_queryset() -> QuerySet[Offering]:
    """The browse page's rows: it shows the on-demand price (an annotation), never the plans."""
    return _offering_rows()


def offering_api_queryset() -> QuerySet[Offering]:
    """The API's offerings with their plans, the plans' price history (oldest first), the fact groups and
    their sources, prefetched into lists (`plans_shown`, `history_shown`, `provenance_shown`,
    `sources_shown`): a prefetch into a manager's cache builds a queryset per object, which at 100
    offerings a page cost more than the queries (docs/PERFORMANCE.md)."""
    return _offering_rows().prefetch_related(
        Prefetch("plans", queryset=BillingPlan.objects.order_by("kind", "name"), to_attr="plan_rows"),
        Prefetch(
            "plan_rows__history",
            queryset=PricePoint.objects.order_by("recorded_at", "id"),
            to_attr="history_rows",
        ),
        Prefetch("provenance", to_attr="provenance_rows"),
        Prefetch("provenance_rows__sources", to_attr="source_rows"),
    )


def offering_order(queryset: QuerySet[Offering], *, sort: str) -> QuerySet[Offering]:
    """`queryset` in the order `sort` (a key of SORTS) names."""
    ordered = []
    for key in SORTS.get(sort, SORTS["provider"]):
        name = key.lstrip("-")
        if name in ("on_demand_price", "gbps_per_gpu_value"):
            # unpublished values sort last whatever the direction
            ordered.append(
                F(name).desc(nulls_last=True) if key.startswith("-") else F(name).asc(nulls_last=True)
            )
        else:
            ordered.append(F(name).desc() if key.startswith("-") else F(name).asc())
    return queryset.order_by(*ordered)


def offering_row(*, slug: str) -> Offering:
    """One offering with its provider and GPU, nothing prefetched (its page's catalog part is cached)."""
    return _offering_rows().get(slug=slug)


def offering_get(*, slug: str) -> Offering:
    return (
        offering_queryset()
        .prefetch_related(
            "provenance__sources",
            "plans__sources",
            Prefetch("plans__history", queryset=PricePoint.objects.order_by("recorded_at", "id")),
        )
        .get(slug=slug)
    )


def provider_list() -> QuerySet[Provider]:
    return Provider.objects.order_by("name")


PROVIDER_SUGGESTIONS = 30


def filter_options(*, provider_name: str = "") -> dict[str, Any]:
    """The GPUs the browse page offers in its menu, and up to PROVIDER_SUGGESTIONS provider names for its
    provider box (those containing what was typed; a catalog of a thousand providers is never listed)."""
    providers = Provider.objects.order_by("name")
    if provider_name:
        providers = providers.filter(name__icontains=provider_name)
    return {
        # (key, name): the menu sends the key and shows the GPU's name, never the table's key
        "gpus": list(
            GPUModel.objects.filter(offerings__isnull=False)
            .distinct()
            .order_by("name")
            .values_list("key", "name")
        ),
        "providers": list(providers.values_list("name", flat=True)[:PROVIDER_SUGGESTIONS]),
    }


def _source_dict(source: Source) -> dict[str, Any]:
    return {
        "key": source.key,
        "title": source.title,
        "url": source.url or None,
        "date": source.date_text or None,
        "kind": source.kind or None,
    }


def offering_sources(offering: Offering) -> dict[str, dict[str, Any]]:
    """Every fact group of the offering with the sources it cites and its as-of date (empty sources and
    null date: nothing published in that group), and the sources of single facts where the catalog gives
    them. Reads `provenance__sources` as prefetched (lists or managers)."""
    provenance = {row.group: row for row in offering.provenance_shown}
    out: dict[str, dict[str, Any]] = {}
    for group, label in GROUPS.items():
        row = provenance.get(group)
        cited = {source.key: source for source in row.sources_shown} if row is not None else {}
        # fact_sources is written by the import (validated); an admin edit may leave other shapes: skip them
        stored = row.fact_sources if row is not None and isinstance(row.fact_sources, dict) else {}
        facts = {
            fact: {
                "sources": [_source_dict(cited[key]) for key in entry.get("sources") or [] if key in cited],
                "as_of": entry.get("as_of"),
                "note": entry.get("note") or "",
                "unsure": entry.get("unsure") is True,
            }
            for fact, entry in stored.items()
            if isinstance(entry, dict)
        }
        out[group] = {
            "label": label,
            "sources": [_source_dict(source) for source in cited.values()],
            "as_of": row.as_of.isoformat() if row is not None and row.as_of else None,
            "unsure": row.unsure if row is not None else False,
            "note": row.note if row is not None else "",
            "facts": facts,
        }
    return out


def fact_history(*, offering: Offering, limit: int = 200) -> list[FactChange]:
    """The offering's sourced fact changes, newest first."""
    return list(offering.fact_changes.select_related("user").order_by("-recorded_at", "-id")[:limit])


def stale_fact_groups(*, offering: Offering, age_days: int, today: dt.date) -> list[dict[str, Any]]:
    """The fact groups whose sources and notes are dated more than `age_days` before `today` (or carry no
    date at all): what a representative or curator should review."""
    out = []
    for provenance in offering.provenance.all():
        if provenance.as_of is None or (today - provenance.as_of).days > age_days:
            out.append(
                {
                    "group": provenance.group,
                    "label": GROUPS.get(provenance.group, provenance.group),
                    "as_of": provenance.as_of,
                    "note": provenance.note,
                }
            )
    return out
