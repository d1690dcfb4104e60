"""/api/v1/quotes/ (DESIGN section 8): validate, call a service or selector, serialize."""

from __future__ import annotations

from typing import Any

from django.core.files.storage import default_storage
from django.http import FileResponse
from django.urls import reverse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from quotes import selectors, services
from quotes.models import Quote

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


ERRORS = {
    400: OpenApiResponse(OpenApiTypes.OBJECT, description='{"message", "extra"}'),
    404: OpenApiResponse(OpenApiTypes.OBJECT, description='{"message", "extra"}'),
}


class QuoteListCreateApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(operation_id="quotes_list", responses={200: OpenApiTypes.OBJECT})
    def get(self, request: Request) -> Response:
        return Response([quote_json(q, request) for q in selectors.quote_list(owner=request.user)])

    @extend_schema(
        operation_id="quotes_create",
        request=QuoteInputSerializer,
        responses={201: OpenApiResponse(OpenApiTypes.OBJECT, description='{"id", "number", ...}'), **ERRORS},
    )
    def post(self, request: Request) -> Response:
        serializer = QuoteInputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        if data.get("run"):
            quote = services.quote_create_from_result(
                owner=request.user,
                run_id=data["run"],
                offering_slug=data["offering"],
                plan_name=data["plan"] or None,
            )
        else:
            quote = services.quote_create_for_offering(
                owner=request.user,
                offering_slug=data["offering"],
                workload_id=data["workload"],
                plan_name=data["plan"] or None,
            )
        return Response(quote_json(quote, request), status=status.HTTP_201_CREATED)


class QuoteDetailApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(operation_id="quotes_retrieve", responses={200: OpenApiTypes.OBJECT, 404: ERRORS[404]})
    def get(self, request: Request, quote_id: int) -> Response:
        quote = selectors.quote_get(owner=request.user, quote_id=quote_id)
        return Response(quote_json(quote, request, full=True))


class QuotePdfApi(APIView):
    """The PDF when it is ready; 202 with the rendering status while the worker renders it."""

    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="quotes_pdf",
        responses={
            (200, "application/pdf"): OpenApiTypes.BINARY,
            202: OpenApiResponse(OpenApiTypes.OBJECT, description='{"id", "status"} while rendering'),
            404: ERRORS[404],
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
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="quotes_share_create",
        request=None,
        responses={
            201: OpenApiResponse(OpenApiTypes.OBJECT, description='{"url", "token"}'),
            404: ERRORS[404],
        },
    )
    def post(self, request: Request, quote_id: int) -> Response:
        quote = services.quote_share(quote=selectors.quote_get(owner=request.user, quote_id=quote_id))
        url = request.build_absolute_uri(reverse("quotes:shared", args=[quote.share_token]))
        return Response({"url": url, "token": quote.share_token}, status=status.HTTP_201_CREATED)

    @extend_schema(operation_id="quotes_share_revoke", request=None, responses={204: None, 404: ERRORS[404]})
    def delete(self, request: Request, quote_id: int) -> Response:
        services.quote_unshare(quote=selectors.quote_get(owner=request.user, quote_id=quote_id))
        return Response(status=status.HTTP_204_NO_CONTENT)
