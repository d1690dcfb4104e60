"""Django admin for the whole catalog. Representatives see and change only their own provider's rows."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest

from providers.models import (
    BILLING_PLAN_FIELDS,
    BillingPlan,
    ExchangeRate,
    FactChange,
    GPUModel,
    Offering,
    PricePoint,
    Provenance,
    Provider,
    Source,
)


class OwnProviderMixin:
    provider_path = "provider"

    def get_queryset(self, request: HttpRequest) -> QuerySet[Any]:
        qs = super().get_queryset(request)  # type: ignore[misc]
        user = request.user
        if getattr(user, "is_curator", False):
            return qs
        return qs.filter(**{f"{self.provider_path}_id": getattr(user, "provider_id", None)})


@admin.register(GPUModel)
class GPUModelAdmin(admin.ModelAdmin[GPUModel]):
    list_display = ("key", "name", "bf16_tflops", "fp8_tflops", "hbm_gb", "nvlink_gbytes_per_s")


class SourceInline(admin.TabularInline[Source, Provider]):
    model = Source
    extra = 0


@admin.register(Provider)
class ProviderAdmin(admin.ModelAdmin[Provider]):
    list_display = ("name", "slug", "kind")
    search_fields = ("name", "slug")
    inlines = [SourceInline]


class ProvenanceInline(admin.StackedInline[Provenance, Offering]):
    model = Provenance
    extra = 0
    filter_horizontal = ("sources",)


class PlanInline(admin.TabularInline[BillingPlan, Offering]):
    model = BillingPlan
    extra = 0
    fields = BILLING_PLAN_FIELDS


@admin.register(Offering)
class OfferingAdmin(OwnProviderMixin, admin.ModelAdmin[Offering]):
    list_display = (
        "name",
        "provider",
        "gpu",
        "gpus_per_node",
        "fabric",
        "nics_per_node",
        "gbps_per_nic",
        "fictional",
    )
    list_filter = ("provider", "fabric", "intra_node", "fictional")
    search_fields = ("name", "slug", "provider__name")
    inlines = [ProvenanceInline, PlanInline]


@admin.register(BillingPlan)
class BillingPlanAdmin(OwnProviderMixin, admin.ModelAdmin[BillingPlan]):
    provider_path = "offering__provider"
    list_display = ("offering", "name", "kind", "price_usd_per_gpu_hour", "term_months", "as_of")
    list_filter = ("kind",)


@admin.register(PricePoint)
class PricePointAdmin(admin.ModelAdmin[PricePoint]):
    """Read-only: the price history is append-only."""

    list_display = ("plan", "price_usd_per_gpu_hour", "as_of", "recorded_at")

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(ExchangeRate)
class ExchangeRateAdmin(admin.ModelAdmin[ExchangeRate]):
    """Staff record a new dated rate (with its source) rather than edit an old one: pages use the latest."""

    list_display = ("currency", "per_usd", "as_of", "source_name", "recorded_at")
    list_filter = ("currency",)


class ReadOnlyAdmin(admin.ModelAdmin[Any]):
    """An admin that shows rows and never adds, changes or deletes one (histories, audit logs)."""

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(FactChange)
class FactChangeAdmin(OwnProviderMixin, ReadOnlyAdmin):
    """The fact history is append-only. Filter on `needs_review` for edits with old sources."""

    provider_path = "offering__provider"
    list_display = ("offering", "fact", "old", "new", "as_of", "username", "recorded_at", "needs_review")
    list_filter = ("needs_review", "fact")
    search_fields = ("offering__slug", "fact", "username", "source_url")
