"""/api/v1/quotes/ (DESIGN section 8): validate, call a service or selector, serialize."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.core.files.storage import default_storage
from django.http import FileResponse
from django.urls import reverse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import generics, serializers, status
from rest_framework.negotiation import BaseContentNegotiation
from rest_framework.parsers import BaseParser
from rest_framework.permissions import IsAuthenticated
from rest_framework.renderers import BaseRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from portal.api_errors import error_responses
from portal.money import amount_text
from providers.currency import api_currency
from quotes import selectors, services
from quotes.display import quote_money
from quotes.models import PdfStatus, Quote

MAX_ID = 2**63 - 1


class QuoteInputSerializer(serializers.Serializer[Any]):
    run = serializers.IntegerField(required=False, min_value=1, max_value=MAX_ID)
    offering = serializers.SlugField(max_length=80)
    workload = serializers.IntegerField(required=False, min_value=1, max_value=MAX_ID)
    plan = serializers.CharField(required=False, allow_blank=True, max_length=200, default="")

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if not attrs.get("run") and not attrs.get("workload"):
            raise serializers.ValidationError(
                {"run": "give a run (and its offering) or a workload and an offering"}
            )
        return attrs


def quote_json(quote: Quote, request: Request, *, full: bool = False) -> dict[str, Any]:
    # The currency the quote was issued in, with the rate it froze (None: US dollars, nothing converted).
    money = quote_money(quote.snapshot or {})
    out: dict[str, Any] = {
        "id": quote.pk,
        "number": quote.number,
        "issued_on": quote.issued_on.isoformat(),
        "valid_until": quote.valid_until.isoformat(),
        "offering": (quote.snapshot or {}).get("offering", {}).get("slug") if full else None,
        "offering_name": quote.offering_name,
        "plan": quote.plan_name,
        "total_usd": str(quote.total_usd) if quote.total_usd is not None else None,
        "complete": quote.complete,
        "currency": money.code,
        "total": amount_text(money.convert(quote.total_usd)),
        "fx": money.as_dict() if money.converted else None,
        "url": request.build_absolute_uri(quote.get_absolute_url()),
        "pdf": request.build_absolute_uri(reverse("api-quote-pdf", args=[quote.pk])),
        "shared": bool(quote.share_token),
    }
    if not full:
        out.pop("offering")
        return out
    snap = quote.snapshot or {}
    out.update(
        {
            "buyer": snap.get("buyer"),
            "workload": snap.get("workload"),
            "layout": snap.get("layout_text"),
            "sizing": snap.get("sizing"),
            "bill": snap.get("bill"),
            "findings": snap.get("findings"),
            "open_questions": snap.get("open_questions"),
            "facts": snap.get("facts"),
            "provenance": snap.get("provenance"),
            "plans": snap.get("plans"),
            "pdf_status": quote.pdf_status,
        }
    )
    return out


# --- Schema only: the shapes quote_json and the views produce -----------------------------------------

CURRENCY_PARAMETER = OpenApiParameter(
    "currency",
    str,
    description="USD or CNY: the currency the quote is issued in (default: your setting); yuan at the latest "
    "recorded rate, which the quote keeps",
    required=False,
)
PDF_STATUS_HELP = "one of " + ", ".join(PdfStatus.values)


class FxSerializer(serializers.Serializer[Any]):
    currency = serializers.CharField()
    per_usd = serializers.CharField(help_text="units of the currency per US dollar")
    as_of = serializers.CharField(help_text="the rate's date")
    source_name = serializers.CharField()
    source_url = serializers.CharField()


class QuoteSerializer(serializers.Serializer[Any]):
    """One quote as the list and the create answer show it."""

    id = serializers.IntegerField()
    number = serializers.CharField()
    issued_on = serializers.DateField()
    valid_until = serializers.DateField()
    offering_name = serializers.CharField()
    plan = serializers.CharField(allow_blank=True)
    total_usd = serializers.DecimalField(
        max_digits=18, decimal_places=2, allow_null=True, coerce_to_string=True
    )
    complete = serializers.BooleanField()
    currency = serializers.CharField(
        help_text="USD or CNY: the currency the quote was issued in (`?currency=` when it was created, else "
        "the buyer's setting); a quote keeps it"
    )
    total = serializers.DecimalField(
        max_digits=18,
        decimal_places=2,
        allow_null=True,
        coerce_to_string=True,
        help_text="total_usd in the quote's currency, at the rate in `fx`",
    )
    fx = FxSerializer(allow_null=True, help_text="the rate a quote in yuan was issued at; null in US dollars")
    url = serializers.URLField(help_text="the quote's page")
    pdf = serializers.URLField(help_text="GET it for the PDF (202 while it renders)")
    shared = serializers.BooleanField(help_text="whether a read-only link is live")


class QuoteDetailSerializer(QuoteSerializer):
    """One quote with the frozen snapshot it shows."""

    offering = serializers.CharField(allow_null=True, help_text="slug of the offering when quoted")
    buyer = serializers.DictField(allow_null=True)
    workload = serializers.DictField(allow_null=True)
    layout = serializers.CharField(allow_null=True, help_text="TP×PP×DP as buyers read it")
    sizing = serializers.DictField(allow_null=True)
    bill = serializers.DictField(allow_null=True)
    findings = serializers.ListField(child=serializers.DictField(), allow_null=True)
    open_questions = serializers.DictField(allow_null=True)
    facts = serializers.DictField(allow_null=True)
    provenance = serializers.ListField(child=serializers.DictField(), allow_null=True)
    plans = serializers.ListField(child=serializers.DictField(), allow_null=True)
    pdf_status = serializers.CharField(help_text=PDF_STATUS_HELP)


class QuotePdfStatusSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    status = serializers.CharField(help_text=PDF_STATUS_HELP)
    error = serializers.CharField(allow_null=True, help_text="why the last rendering failed, if it did")


class QuoteShareSerializer(serializers.Serializer[Any]):
    url = serializers.URLField(help_text="the read-only page; anyone with it can read the quote")
    token = serializers.CharField()


# --- Views --------------------------------------------------------------------------------------------


class QuoteListCreateApi(generics.GenericAPIView[Quote]):
    """GET: the quotes you may read (yours; every quote for staff), newest first, paginated like every
    list of the API (`limit`, `offset`). POST: issue a quote from a run's result or for a workload."""

    permission_classes = [IsAuthenticated]
    serializer_class = QuoteSerializer

    def get_queryset(self) -> Any:
        return selectors.quote_list(owner=self.request.user)

    @extend_schema(
        operation_id="quotes_list",
        responses={200: QuoteSerializer(many=True), **error_responses(400, 401)},
    )
    def get(self, request: Request) -> Response:
        page = self.paginate_queryset(self.get_queryset())
        assert page is not None  # LimitOffsetPagination always pages
        return self.get_paginated_response([quote_json(q, request) for q in page])

    @extend_schema(
        operation_id="quotes_create",
        request=QuoteInputSerializer,
        parameters=[CURRENCY_PARAMETER],
        responses={201: QuoteSerializer, **error_responses(400, 401)},
    )
    def post(self, request: Request) -> Response:
        serializer = QuoteInputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        currency = api_currency(request.query_params)
        quote = services.quote_create_from_input(
            owner=request.user, data=dict(serializer.validated_data), currency=currency
        )
        return Response(quote_json(quote, request), status=status.HTTP_201_CREATED)


class QuoteDetailApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="quotes_retrieve",
        responses={200: QuoteDetailSerializer, **error_responses(401, 404)},
    )
    def get(self, request: Request, quote_id: int) -> Response:
        quote = selectors.quote_get(owner=request.user, quote_id=quote_id)
        return Response(quote_json(quote, request, full=True))


class AnyAccept(BaseContentNegotiation):
    """The PDF endpoint answers a PDF or a JSON status whatever the client accepts (`Accept:
    application/pdf` must not turn the 202 into a 406)."""

    def select_parser(self, request: Request, parsers: Iterable[BaseParser]) -> BaseParser | None:
        return next(iter(parsers), None)

    def select_renderer(
        self, request: Request, renderers: Iterable[BaseRenderer], format_suffix: str | None = None
    ) -> tuple[BaseRenderer, str]:
        renderer = next(iter(renderers))
        return renderer, str(renderer.media_type)


class QuotePdfApi(APIView):
    """The PDF when it is ready; 202 with the rendering status while the worker renders it."""

    permission_classes = [IsAuthenticated]
    content_negotiation_class = AnyAccept

    @extend_schema(
        operation_id="quotes_pdf",
        responses={
            (200, "application/pdf"): OpenApiResponse(OpenApiTypes.BINARY, description="The quote's PDF."),
            202: OpenApiResponse(
                QuotePdfStatusSerializer,
                description="Still rendering: poll this address again in a few seconds.",
            ),
            **error_responses(401, 404),
        },
    )
    def get(self, request: Request, quote_id: int) -> Any:
        quote = selectors.quote_get(owner=request.user, quote_id=quote_id)
        name = services.quote_pdf_request(quote=quote)
        if name is not None:
            return FileResponse(
                default_storage.open(name, "rb"),
                content_type="application/pdf",
                as_attachment=True,
                filename=f"{quote.number}.pdf",
            )
        return Response(
            {"id": quote.pk, "status": quote.pdf_status, "error": quote.pdf_error or None},
            status=status.HTTP_202_ACCEPTED,
        )


class QuoteShareApi(APIView):
    """POST: create (or replace) the quote's read-only link. DELETE: revoke it (the link answers 404).
    Only the quote's owner: staff read every quote but get 403 here."""

    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="quotes_share_create",
        request=None,
        responses={201: QuoteShareSerializer, **error_responses(400, 401, 403, 404)},
    )
    def post(self, request: Request, quote_id: int) -> Response:
        quote = selectors.quote_get(owner=request.user, quote_id=quote_id, for_write=True)
        quote = services.quote_share(quote=quote)
        url = request.build_absolute_uri(reverse("quotes:shared", args=[quote.share_token]))
        return Response({"url": url, "token": quote.share_token}, status=status.HTTP_201_CREATED)

    @extend_schema(
        operation_id="quotes_share_revoke",
        request=None,
        responses={
            204: OpenApiResponse(description="Revoked (also when there was no link)."),
            **error_responses(401, 403, 404),
        },
    )
    def delete(self, request: Request, quote_id: int) -> Response:
        quote = selectors.quote_get(owner=request.user, quote_id=quote_id, for_write=True)
        services.quote_unshare(quote=quote)
        return Response(status=status.HTTP_204_NO_CONTENT)
