"""Reads of the catalog, with their joins done here (no N+1 in pages or the API)."""

from __future__ import annotations

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

from providers.models import BillingPlan, GPUModel, Offering, PricePoint, Provider

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


def offering_queryset() -> QuerySet[Offering]:
    return (
        Offering.objects.select_related("provider", "gpu")
        .prefetch_related(Prefetch("plans", queryset=BillingPlan.objects.order_by("kind", "name")))
        .annotate(
            on_demand_price=on_demand_price(),
            gbps_per_gpu_value=ExpressionWrapper(
                F("nics_per_node") * F("gbps_per_nic") * 1.0 / F("gpus_per_node"), output_field=FloatField()
            ),
        )
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
        "gpus": list(
            GPUModel.objects.filter(offerings__isnull=False).distinct().values_list("key", flat=True)
        ),
        "providers": list(providers.values_list("name", flat=True)[:PROVIDER_SUGGESTIONS]),
    }
