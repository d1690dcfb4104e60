"""Reads of the catalog, with their joins done here (no N+1 in pages or the API)."""

from __future__ import annotations

from typing import Any

from django.db.models import (
    ExpressionWrapper,
    F,
    FloatField,
    Min,
    Prefetch,
    Q,
    QuerySet,
)

from providers.forms import SORTS
from providers.models import BillingPlan, Offering, PricePoint, Provider


def offering_queryset() -> QuerySet[Offering]:
    return (
        Offering.objects.select_related("provider", "gpu")
        .prefetch_related(Prefetch("plans", queryset=BillingPlan.objects.order_by("kind", "name")))
        .annotate(
            on_demand_price=Min(
                "plans__price_usd_per_gpu_hour",
                filter=Q(plans__kind=BillingPlan.Kind.ON_DEMAND),
            ),
            gbps_per_gpu_value=ExpressionWrapper(
                F("nics_per_node") * F("gbps_per_nic") * 1.0 / F("gpus_per_node"), output_field=FloatField()
            ),
        )
    )


def offering_list(*, filters: dict[str, Any] | None = None) -> QuerySet[Offering]:
    """Offerings matching the (already validated) filters of OfferingFilterForm, sorted."""
    filters = filters or {}
    qs = offering_queryset()
    if filters.get("q"):
        q = filters["q"]
        qs = qs.filter(Q(name__icontains=q) | Q(provider__name__icontains=q) | Q(summary__icontains=q))
    if filters.get("provider"):
        qs = qs.filter(provider__slug=filters["provider"])
    if filters.get("gpu"):
        qs = qs.filter(gpu__key=filters["gpu"])
    if filters.get("fabric"):
        qs = qs.filter(fabric=filters["fabric"])
    if filters.get("min_gbps_per_gpu") is not None:
        qs = qs.filter(**{"gbps_per_gpu_value__gte": filters["min_gbps_per_gpu"]})
    if filters.get("scheduler"):
        qs = qs.filter(schedulers__contains=filters["scheduler"])
    if filters.get("stack"):
        qs = qs.filter(accelerator_stack=filters["stack"])
    for feature in filters.get("feature") or []:
        qs = qs.filter(**{feature: True})
    if filters.get("min_price") is not None:
        qs = qs.filter(**{"on_demand_price__gte": filters["min_price"]})
    if filters.get("max_price") is not None:
        qs = qs.filter(**{"on_demand_price__lte": filters["max_price"]})
    if filters.get("include_fictional") is False:
        qs = qs.filter(fictional=False)
    order = SORTS.get(filters.get("sort") or "provider", SORTS["provider"])
    ordered = []
    for key in order:
        name = key.lstrip("-")
        if name in ("on_demand_price", "gbps_per_gpu_value"):
            # unpublished values sort last whatever the direction
            ordered.append(
                F(name).desc(nulls_last=True) if key.startswith("-") else F(name).asc(nulls_last=True)
            )
        else:
            ordered.append(F(name).desc() if key.startswith("-") else F(name).asc())
    return qs.order_by(*ordered)


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


def filter_options() -> dict[str, Any]:
    from providers.models import GPUModel

    return {
        "gpus": list(
            GPUModel.objects.filter(offerings__isnull=False).distinct().values_list("key", flat=True)
        ),
        "providers": list(Provider.objects.order_by("name").values_list("slug", "name")),
    }
