"""Read-only JSON catalog: /api/v1/providers/ and /api/v1/offerings/ (DESIGN section 8)."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from rest_framework import exceptions, serializers, viewsets
from rest_framework.request import Request

from providers import selectors
from providers.facts import FACTS
from providers.forms import OfferingFilterForm
from providers.models import BillingPlan, Offering, PricePoint, Provider


class ProviderSerializer(serializers.ModelSerializer[Provider]):
    offerings: Any = serializers.SlugRelatedField(many=True, read_only=True, slug_field="slug")

    class Meta:
        model = Provider
        fields = ["slug", "name", "kind", "website", "notes", "offerings"]


class PricePointSerializer(serializers.ModelSerializer[PricePoint]):
    class Meta:
        model = PricePoint
        fields = ["price_usd_per_gpu_hour", "as_of", "recorded_at", "note"]


class PlanSerializer(serializers.ModelSerializer[BillingPlan]):
    history = PricePointSerializer(many=True, read_only=True)

    class Meta:
        model = BillingPlan
        fields = [
            "kind",
            "name",
            "price_usd_per_gpu_hour",
            "term_months",
            "min_nodes",
            "granularity",
            "cycle_days",
            "upfront_pct",
            "region",
            "as_of",
            "note",
            "history",
        ]


class OfferingSerializer(serializers.ModelSerializer[Offering]):
    provider: Any = serializers.SlugRelatedField(read_only=True, slug_field="slug")
    provider_name = serializers.CharField(source="provider.name", read_only=True)
    gpu: Any = serializers.SlugRelatedField(read_only=True, slug_field="key", allow_null=True)
    schedulers = serializers.ListField(child=serializers.CharField(), source="scheduler_list", read_only=True)
    gbps_per_gpu = serializers.FloatField(read_only=True, allow_null=True)
    on_demand_price_usd_per_gpu_hour = serializers.DecimalField(
        source="on_demand_price", max_digits=12, decimal_places=4, read_only=True, allow_null=True
    )
    plans = PlanSerializer(many=True, read_only=True)
    url = serializers.CharField(source="get_absolute_url", read_only=True)

    class Meta:
        model = Offering
        fields = [
            "slug",
            "name",
            "provider",
            "provider_name",
            "fictional",
            "summary",
            "url",
            *[f.name for f in FACTS],
            "gbps_per_gpu",
            "on_demand_price_usd_per_gpu_hour",
            "plans",
            "updated_at",
        ]


class ProviderViewSet(viewsets.ReadOnlyModelViewSet[Provider]):
    serializer_class = ProviderSerializer
    lookup_field = "slug"

    def get_queryset(self) -> QuerySet[Provider]:
        qs = Provider.objects.prefetch_related("offerings").order_by("name")
        slug = self.request.query_params.get("slug")
        return qs.filter(slug=slug) if slug else qs


class OfferingViewSet(viewsets.ReadOnlyModelViewSet[Offering]):
    """Offerings with filters: slug, provider, gpu, fabric, min_gbps_per_gpu, scheduler, stack, feature,
    min_price, max_price, include_fictional, sort."""

    serializer_class = OfferingSerializer
    lookup_field = "slug"

    def get_queryset(self) -> QuerySet[Offering]:
        request: Request = self.request
        if self.action != "list":
            return selectors.offering_queryset().prefetch_related("plans__history")
        params = request.query_params.copy()
        params.setdefault("include_fictional", "true")
        form = OfferingFilterForm(params)
        if not form.is_valid():
            raise exceptions.ValidationError({k: [str(e) for e in v] for k, v in form.errors.items()})
        data: dict[str, Any] = form.cleaned_data
        qs = selectors.offering_list(filters=data).prefetch_related("plans__history")
        slug = request.query_params.get("slug")
        if slug:
            qs = qs.filter(slug__in=[s for s in slug.split(",") if s])
        return qs
