"""The catalog over REST: /api/v1/providers/ and /api/v1/offerings/ (DESIGN section 8).

Everyone reads. Provider representatives change their own provider's offerings (PATCH the facts, POST a
new plan price); staff change any. Writes go through providers.services, which checks the permission
again: an API view cannot grant what the service refuses.
"""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from typing import Any

from django.core.cache import cache
from django.core.exceptions import PermissionDenied
from django.db.models import QuerySet
from django.utils import timezone
from django.utils.translation import get_language, gettext
from django_filters.rest_framework import DjangoFilterBackend
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_field, extend_schema_view
from rest_framework import exceptions, mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.renderers import BrowsableAPIRenderer
from rest_framework.request import Request
from rest_framework.response import Response

from portal.api_errors import error_responses
from portal.api_fields import FloatField, RangeCheckedDecimalField
from portal.constraints import range_validators
from providers import selectors, services
from providers.api_rows import RenderedRows, RowsJSONRenderer
from providers.cached import ROW_CACHE_SECONDS, PageOfIds, cached_rows, query_name, value_key
from providers.facts import FACTS, NOTE_MAX_LENGTH, PLAN_BOUNDS, Fact
from providers.filters import OfferingApiFilterSet
from providers.models import BILLING_PLAN_FIELDS, BillingPlan, FactChange, Offering, PricePoint, Provider

# What a slug may hold in an address, as the pages' `<slug:slug>` (DRF's default takes anything but `/` and
# `.`, so `/api/v1/offerings/%00/` reached PostgreSQL, which refuses a null character: a 500, not a 404).
SLUG_PATTERN = r"[-a-zA-Z0-9_]+"


class ProviderSerializer(serializers.ModelSerializer[Provider]):
    offerings: Any = serializers.SlugRelatedField(many=True, read_only=True, slug_field="slug")

    class Meta:
        model = Provider
        fields = [
            "slug",
            "name",
            "native_name",
            "native_name_source",
            "kind",
            "website",
            "notes",
            "offerings",
        ]


class PricePointSerializer(serializers.ModelSerializer[PricePoint]):
    class Meta:
        model = PricePoint
        fields = ["price_usd_per_gpu_hour", "as_of", "recorded_at", "note"]


class PlanSerializer(serializers.ModelSerializer[BillingPlan]):
    history = PricePointSerializer(many=True, read_only=True, source="history_shown")

    class Meta:
        model = BillingPlan
        fields = ["id", *BILLING_PLAN_FIELDS, "history"]


class OfferingSerializer(serializers.ModelSerializer[Offering]):
    provider: Any = serializers.SlugRelatedField(read_only=True, slug_field="slug")
    provider_name = serializers.CharField(source="provider.name", read_only=True)
    provider_native_name = serializers.CharField(
        source="provider.native_name",
        read_only=True,
        help_text="the provider's name in its own language (e.g. 阿里云); empty when it publishes no other",
    )
    gpu: Any = serializers.SlugRelatedField(read_only=True, slug_field="key", allow_null=True)
    schedulers = serializers.ListField(child=serializers.CharField(), source="scheduler_list", read_only=True)
    gbps_per_gpu = serializers.FloatField(read_only=True, allow_null=True)
    on_demand_price_usd_per_gpu_hour = serializers.DecimalField(
        source="on_demand_price", max_digits=12, decimal_places=4, read_only=True, allow_null=True
    )
    plans = PlanSerializer(many=True, read_only=True, source="plans_shown")
    url = serializers.CharField(source="get_absolute_url", read_only=True)
    sources = serializers.SerializerMethodField(
        help_text="Per fact group: the sources cited (title, address, date as published), the as-of date, "
        "whether the group is unsure, and the sources of single facts where narrower. A group without "
        "sources has nothing published."
    )

    class Meta:
        model = Offering
        fields = [
            "slug",
            "name",
            "provider",
            "provider_name",
            "provider_native_name",
            "fictional",
            "summary",
            "url",
            *[f.name for f in FACTS],
            "gbps_per_gpu",
            "on_demand_price_usd_per_gpu_hour",
            "plans",
            "sources",
            "updated_at",
        ]

    @extend_schema_field(OpenApiTypes.OBJECT)
    def get_sources(self, offering: Offering) -> dict[str, Any]:
        return selectors.offering_sources(offering)


def _fact_field(fact: Fact) -> serializers.Field[Any, Any, Any, Any]:
    """The input field of one fact; null means "not published" (DESIGN section 4)."""
    help_text = f"{fact.label}; {fact.range_text()}" if fact.bound is not None else fact.label
    common: dict[str, Any] = {"required": False, "allow_null": True, "help_text": help_text}
    if fact.type == "bool":
        return serializers.BooleanField(**common)
    if fact.type in ("int", "float", "decimal"):
        common["validators"] = range_validators(fact.bound)
    if fact.type == "int":
        return serializers.IntegerField(**common)
    if fact.type == "float":
        return FloatField(**common)
    if fact.type == "decimal":
        # No digit limit here: the range check names the field and its range instead (before rounding).
        return RangeCheckedDecimalField(max_digits=None, decimal_places=6, **common)
    if fact.type == "enum":
        return serializers.ChoiceField(choices=list(fact.choices), **common)
    if fact.type == "list":
        return serializers.ListField(child=serializers.ChoiceField(choices=list(fact.choices)), **common)
    return serializers.CharField(allow_blank=True, max_length=fact.max_length or NOTE_MAX_LENGTH, **common)


class OfferingUpdateSerializer(serializers.Serializer[dict[str, Any]]):
    """The facts to change; facts left out keep their value."""

    def get_fields(self) -> dict[str, serializers.Field[Any, Any, Any, Any]]:
        return {fact.name: _fact_field(fact) for fact in FACTS}


class OfferingFactsEditSerializer(OfferingUpdateSerializer):
    """A sourced edit: the facts to change, the document they come from and the date it states them."""

    def get_fields(self) -> dict[str, serializers.Field[Any, Any, Any, Any]]:
        fields = super().get_fields()
        fields["source_url"] = serializers.URLField(
            max_length=500,
            help_text="the document the new values come from",
            error_messages={"required": gettext("give the address of the document these values come from")},
        )
        fields["as_of"] = serializers.DateField(
            help_text="the date the source states the values (YYYY-MM-DD)",
            error_messages={"required": gettext("give the date the source states these values (YYYY-MM-DD)")},
        )
        return fields


class FactChangeSerializer(serializers.ModelSerializer[FactChange]):
    class Meta:
        model = FactChange
        fields = ["fact", "old", "new", "source_url", "as_of", "username", "recorded_at", "needs_review"]


class FactsEditResultSerializer(serializers.Serializer[dict[str, Any]]):
    """Schema only: what a sourced edit answers."""

    changes = FactChangeSerializer(many=True, help_text="the values changed by this edit (old and new)")
    history = FactChangeSerializer(many=True, help_text="the offering's sourced changes, newest first")
    review_age_days = serializers.IntegerField()
    stale_groups = serializers.ListField(child=serializers.DictField(), help_text="groups to review")
    offering = OfferingSerializer()


class PriceChangeSerializer(serializers.Serializer[dict[str, Any]]):
    price_usd_per_gpu_hour = serializers.DecimalField(
        max_digits=12,
        decimal_places=4,
        allow_null=True,
        validators=range_validators(PLAN_BOUNDS["price_usd_per_gpu_hour"]),
        help_text=f"{PLAN_BOUNDS['price_usd_per_gpu_hour'].range_text()}; null: price withdrawn",
    )
    as_of = serializers.DateField(required=False, allow_null=True)
    note = serializers.CharField(
        required=False, allow_blank=True, max_length=services.PRICE_NOTE_MAX_LENGTH, default=""
    )


class PriceHistorySerializer(serializers.ModelSerializer[PricePoint]):
    plan = serializers.IntegerField(source="plan_id", read_only=True)
    plan_name = serializers.CharField(source="plan.name", read_only=True)
    plan_kind = serializers.CharField(source="plan.kind", read_only=True)

    class Meta:
        model = PricePoint
        fields = ["plan", "plan_name", "plan_kind", "price_usd_per_gpu_hour", "as_of", "recorded_at", "note"]


@extend_schema_view(
    list=extend_schema(
        parameters=[OpenApiParameter("slug", str, description="only the provider with this slug")],
        responses={200: ProviderSerializer(many=True), **error_responses(400)},
    ),
    retrieve=extend_schema(responses={200: ProviderSerializer, **error_responses(404)}),
)
class ProviderViewSet(viewsets.ReadOnlyModelViewSet[Provider]):
    serializer_class = ProviderSerializer
    lookup_field = "slug"
    lookup_value_regex = SLUG_PATTERN

    def get_queryset(self) -> QuerySet[Provider]:
        qs = Provider.objects.prefetch_related("offerings").order_by("name")
        slug = self.request.query_params.get("slug")
        return qs.filter(slug=slug) if slug else qs


Ids = list[int]  # (inside the viewset, `list` is its list action)

_FILTERS = [
    OpenApiParameter("slug", str, description="comma-separated offering slugs"),
    OpenApiParameter("q", str, description="search in names and summaries"),
    OpenApiParameter("provider", str, description="provider slug"),
    OpenApiParameter("gpu", str, description="GPU key, e.g. H100-SXM-80GB"),
    OpenApiParameter("fabric", str),
    OpenApiParameter("min_gbps_per_gpu", float),
    OpenApiParameter("scheduler", str),
    OpenApiParameter("stack", str, description="accelerator stack"),
    OpenApiParameter("feature", str, many=True, description="fault-tolerance features that must be present"),
    OpenApiParameter("min_price", float, description="minimum on-demand $/GPU-hour"),
    OpenApiParameter("max_price", float, description="maximum on-demand $/GPU-hour"),
    OpenApiParameter("include_fictional", bool, description="include the labelled sample offerings"),
    OpenApiParameter("sort", str),
    # The browse page's page number: validated like the other filters, but the API pages with limit/offset.
    OpenApiParameter("page", exclude=True),
]


@extend_schema_view(
    list=extend_schema(
        parameters=_FILTERS, responses={200: OfferingSerializer(many=True), **error_responses(400)}
    ),
    retrieve=extend_schema(responses={200: OfferingSerializer, **error_responses(404)}),
    partial_update=extend_schema(
        request=OfferingFactsEditSerializer,
        responses={200: OfferingSerializer, **error_responses(400, 401, 403, 404)},
        description="Change facts of an offering (its provider's representatives and staff only), as the "
        "facts/ address does: refused without source_url and as_of, old values kept in the history; answers "
        "the offering.",
    ),
)
class OfferingViewSet(mixins.UpdateModelMixin, viewsets.ReadOnlyModelViewSet[Offering]):
    """Offerings with filters: slug, provider, gpu, fabric, min_gbps_per_gpu, scheduler, stack, feature,
    min_price, max_price, include_fictional, sort."""

    serializer_class = OfferingSerializer
    lookup_field = "slug"
    lookup_value_regex = SLUG_PATTERN
    filter_backends = [DjangoFilterBackend]
    filterset_class = OfferingApiFilterSet
    # DRF's defaults, the JSON one able to splice the list's cached rows
    renderer_classes = [RowsJSONRenderer, BrowsableAPIRenderer]
    # PATCH only: a full PUT of every fact is never what a representative means.
    http_method_names = ["get", "post", "patch", "head", "options"]

    def get_serializer_class(self) -> type[serializers.BaseSerializer[Any]]:
        if self.action in ("partial_update", "facts_edit"):
            return OfferingFactsEditSerializer
        if self.action == "price_change":
            return PriceChangeSerializer
        if self.action == "prices":
            return PriceHistorySerializer
        return OfferingSerializer

    def _editable_offering(self) -> Offering:
        offering = self.get_object()
        if not self.request.user.can_edit_offering(offering):  # type: ignore[union-attr]
            raise PermissionDenied(gettext("You may edit only your own provider's offerings."))
        return offering

    def _sourced_edit(self, request: Request) -> tuple[Offering, list[FactChange]]:
        """Both PATCH addresses: refused without source_url and as_of (400 naming the missing field);
        values checked with the fact bounds; old values kept in the history."""
        offering = self._editable_offering()
        serializer = OfferingFactsEditSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = dict(serializer.validated_data)
        source_url, as_of = data.pop("source_url"), data.pop("as_of")
        changes = services.offering_facts_edit(
            user=request.user, offering=offering, facts=data, source_url=source_url, as_of=as_of
        )
        return selectors.offering_get(slug=offering.slug), changes

    def partial_update(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        offering, _changes = self._sourced_edit(request)
        return Response(OfferingSerializer(offering).data)

    def update(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return self.partial_update(request, *args, **kwargs)

    @extend_schema(
        request=OfferingFactsEditSerializer,
        responses={200: FactsEditResultSerializer, **error_responses(400, 401, 403, 404)},
        description=(
            "A sourced change of the offering's facts (its provider's representatives and staff): refused "
            "without source_url and as_of; values checked with the fact bounds; old values kept in history."
        ),
    )
    @action(detail=True, methods=["patch"], url_path="facts")
    def facts_edit(self, request: Request, slug: str) -> Response:
        offering, changes = self._sourced_edit(request)
        age = services.fact_source_review_age_days()
        stale = selectors.stale_fact_groups(offering=offering, age_days=age, today=timezone.localdate())
        body = {
            "changes": FactChangeSerializer(changes, many=True).data,
            "history": FactChangeSerializer(selectors.fact_history(offering=offering), many=True).data,
            "review_age_days": age,
            "stale_groups": [{**g, "as_of": g["as_of"].isoformat() if g["as_of"] else None} for g in stale],
            "offering": OfferingSerializer(offering).data,
        }
        return Response(body)

    @extend_schema(
        request=PriceChangeSerializer,
        responses={201: PriceHistorySerializer, **error_responses(400, 401, 403, 404)},
        description="Set a plan's current price; the change is appended to its history.",
    )
    @action(detail=True, methods=["post"], url_path=r"plans/(?P<plan_id>[0-9]+)/price")
    def price_change(self, request: Request, slug: str, plan_id: str) -> Response:
        offering = self._editable_offering()
        plan = offering.plans.filter(pk=int(plan_id)).first()
        if plan is None:
            raise exceptions.NotFound(gettext("No such plan for this offering."))
        serializer = PriceChangeSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        point = services.plan_price_change(
            user=request.user,
            plan=plan,
            price_usd_per_gpu_hour=data["price_usd_per_gpu_hour"],
            as_of=data.get("as_of"),
            note=data.get("note") or "",
        )
        return Response(PriceHistorySerializer(point).data, status=status.HTTP_201_CREATED)

    @extend_schema(
        parameters=[OpenApiParameter("plan", OpenApiTypes.INT, description="only this plan's history")],
        responses={200: PriceHistorySerializer(many=True), **error_responses(400, 404)},
        description="Every recorded price of the offering's plans, oldest first (append-only history).",
    )
    @action(detail=True, methods=["get"], pagination_class=None, filter_backends=[])
    def prices(self, request: Request, slug: str) -> Response:
        offering = self.get_object()
        points = PricePoint.objects.filter(plan__offering=offering).select_related("plan")
        plan = request.query_params.get("plan")
        if plan:
            if not plan.isdigit():
                raise exceptions.ValidationError({"plan": ["must be a plan id"]})
            points = points.filter(plan_id=int(plan))
        return Response(PriceHistorySerializer(points.order_by("recorded_at", "id"), many=True).data)

    def list(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        # (A comment, not a docstring: the schema would take a docstring as the list's description.)
        # The page's offerings are found and counted without their plans and sources; each one's row is
        # read as rendered JSON from the cache under the catalog version (and language), and only those
        # missing are fetched with everything they show, serialized and rendered (docs/PERFORMANCE.md).
        # The page's count and ids are cached per catalog version and query too: paging and counting read
        # no table while the catalog is unchanged.
        key = value_key(query_name("api-offerings", request.query_params))
        pks = self._cached_page(cache.get(key))
        if pks is None:
            queryset = self.filter_queryset(self.get_queryset()).prefetch_related(None)
            pks = [offering.pk for offering in self.paginate_queryset(queryset) or []]
            paged: Any = self.paginator
            cache.set(key, (paged.count, paged.offset, pks), ROW_CACHE_SECONDS)
        rows = cached_rows(f"api-offering:{get_language()}", pks, self._rows)
        return self.get_paginated_response(RenderedRows(rows[pk] for pk in pks))

    def _cached_page(self, stored: tuple[int, int, Ids] | None) -> Ids | None:
        """The ids of the page asked for when the cached page is that one (the paginator then knows the
        count and the offset, for the links), else None."""
        if stored is None:
            return None
        try:
            return builtins.list(self.paginate_queryset(PageOfIds(*stored)) or [])  # type: ignore[arg-type]
        except LookupError:
            return None

    def _rows(self, pks: Sequence[int]) -> dict[int, bytes]:
        """The rows of these offerings rendered as JSON (what is cached)."""
        offerings = selectors.offering_api_queryset().filter(pk__in=pks)
        serialized = self.get_serializer(offerings, many=True).data
        renderer = RowsJSONRenderer()
        return {offering.pk: renderer.row(row) for offering, row in zip(offerings, serialized, strict=True)}

    def get_queryset(self) -> QuerySet[Offering]:
        return selectors.offering_api_queryset()

    def filter_queryset(self, queryset: QuerySet[Offering, Any]) -> QuerySet[Offering, Any]:
        # The query parameters filter the list; an offering's own address ignores them.
        if self.action != "list":
            return queryset
        return super().filter_queryset(queryset)
