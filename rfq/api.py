"""/api/v1/rfqs/ (DESIGN section 8, requests for quote): validate, call a service or selector, serialize."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from portal.api_errors import error_responses
from portal.constraints import range_validators
from providers.currency import api_currency
from quotes.api import CURRENCY_PARAMETER, QuoteSerializer, quote_json
from rfq import selectors, services
from rfq.models import Answer, PaymentTerms, RequestForQuote
from rfq.proposal import answer_used

MAX_ID = 2**63 - 1


class RfqInputSerializer(serializers.Serializer[Any]):
    workload = serializers.IntegerField(min_value=1, max_value=MAX_ID)
    offerings = serializers.ListField(
        child=serializers.SlugField(max_length=80), min_length=1, max_length=services.MAX_OFFERINGS
    )
    gpus = serializers.IntegerField(min_value=1, max_value=services.MAX_GPUS)
    questions = serializers.ListField(
        child=serializers.CharField(max_length=services.MAX_QUESTION_CHARS, allow_blank=True),
        max_length=services.MAX_QUESTIONS,
        required=False,
        default=list,
    )


class AnswerInputSerializer(serializers.Serializer[Any]):
    offering = serializers.SlugField(max_length=80)
    price_usd_per_gpu_hour = serializers.DecimalField(
        max_digits=12,
        decimal_places=4,
        validators=range_validators(services.PRICE_BOUND),
        help_text=services.PRICE_BOUND.range_text(),
    )
    term_months = serializers.IntegerField(
        min_value=1, max_value=services.MAX_TERM_MONTHS, required=False, allow_null=True, default=None
    )
    delivery_weeks = serializers.IntegerField(min_value=0, max_value=services.MAX_DELIVERY_WEEKS)
    payment_terms = serializers.ChoiceField(choices=PaymentTerms.values)
    min_nodes = serializers.IntegerField(
        min_value=1, max_value=services.MAX_MIN_NODES, required=False, allow_null=True, default=None
    )
    facts = serializers.DictField(required=False, default=dict, help_text="facts in place of the catalog's")
    source_url = serializers.URLField(
        max_length=500, error_messages={"required": "give the address of the document these values come from"}
    )
    as_of = serializers.DateField(
        error_messages={"required": "give the date the source states these values (YYYY-MM-DD)"}
    )
    message = serializers.CharField(
        required=False, allow_blank=True, default="", max_length=services.MAX_MESSAGE_CHARS
    )


class RfqCreatedSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()


class AnswerCreatedSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    offering = serializers.CharField()


class RfqQuoteInputSerializer(serializers.Serializer[Any]):
    offering = serializers.SlugField(max_length=80, required=False, help_text="default: the winner")


# Schema only: the shapes answer_json, rfq_json and selectors.comparison produce.
class AnswerSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    offering = serializers.CharField()
    provider = serializers.CharField()
    representative = serializers.CharField(allow_null=True)
    price_usd_per_gpu_hour = serializers.CharField()
    term_months = serializers.IntegerField(allow_null=True)
    delivery_weeks = serializers.IntegerField()
    payment_terms = serializers.ChoiceField(choices=PaymentTerms.values)
    min_nodes = serializers.IntegerField(allow_null=True)
    facts = serializers.DictField()
    source_url = serializers.URLField()
    as_of = serializers.DateField()
    answered_at = serializers.DateTimeField()
    message = serializers.CharField()


class ComparisonSerializer(serializers.Serializer[Any]):
    status = serializers.CharField(
        help_text="waiting (no answer yet), partial (some offerings unanswered), done"
    )
    results = serializers.ListField(
        child=serializers.DictField(),
        help_text="ranked run result fields of each answered proposal, with answer_used, delivery_weeks, "
        "ready_in_days, deadline_days and deadline_met",
    )
    unanswered = serializers.ListField(child=serializers.CharField())


class RfqSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    buyer = serializers.CharField()
    workload = serializers.IntegerField()
    workload_name = serializers.CharField()
    gpus = serializers.IntegerField()
    offerings = serializers.ListField(child=serializers.CharField())
    questions = serializers.ListField(child=serializers.CharField())
    created_at = serializers.DateTimeField()
    answered = serializers.ListField(child=serializers.CharField())


class RfqDetailSerializer(RfqSerializer):
    answers = AnswerSerializer(many=True)
    comparison = ComparisonSerializer(allow_null=True, help_text="null for a provider representative")


def answer_json(answer: Answer) -> dict[str, Any]:
    return {
        **answer_used(answer),
        "offering": answer.offering.slug,
        "provider": answer.offering.provider.name,
        "message": answer.message,
    }


def rfq_json(rfq: RequestForQuote, user: Any, *, full: bool) -> dict[str, Any]:
    offerings = selectors.offerings_for(user=user, rfq=rfq)
    answers = selectors.answers_for(user=user, rfq=rfq)
    out: dict[str, Any] = {
        "id": rfq.pk,
        "buyer": rfq.buyer.get_username(),
        "workload": rfq.workload_id,
        "workload_name": rfq.workload.name,
        "gpus": rfq.gpus,
        "offerings": [o.slug for o in offerings],
        "questions": rfq.questions,
        "created_at": rfq.created_at.isoformat(),
        "answered": sorted({a.offering.slug for a in answers}),
    }
    if full:
        out["answers"] = [answer_json(a) for a in answers]
        # A representative never sees the other providers' prices: the comparison is the buyer's.
        representative = selectors.is_representative(user) and not getattr(user, "is_curator", False)
        out["comparison"] = None if representative else selectors.comparison(rfq=rfq)
    return out


class RfqListCreateApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="v1_rfqs_list", responses={200: RfqSerializer(many=True), **error_responses(401)}
    )
    def get(self, request: Request) -> Response:
        """A buyer's own requests; a representative's, those addressed to their provider."""
        rfqs = selectors.rfq_list(user=request.user)[:200]
        return Response([rfq_json(r, request.user, full=False) for r in rfqs])

    @extend_schema(
        request=RfqInputSerializer, responses={201: RfqCreatedSerializer, **error_responses(400, 401, 403)}
    )
    def post(self, request: Request) -> Response:
        serializer = RfqInputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        rfq = services.rfq_create(
            buyer=request.user,
            workload_id=data["workload"],
            offering_slugs=data["offerings"],
            gpus=data["gpus"],
            questions=data["questions"],
        )
        return Response({"id": rfq.pk}, status=status.HTTP_201_CREATED)


class RfqDetailApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(responses={200: RfqDetailSerializer, **error_responses(401, 404)})
    def get(self, request: Request, rfq_id: int) -> Response:
        """The request, its answers, and the comparison (a planner run over the answered proposals)."""
        rfq = selectors.rfq_get(user=request.user, rfq_id=rfq_id)
        services.rfq_view_record(rfq=rfq, user=request.user, where="API")
        return Response(rfq_json(rfq, request.user, full=True))


def _rfq_and_input(
    request: Request, rfq_id: int, serializer_class: type[serializers.Serializer[Any]]
) -> tuple[Any, dict[str, Any]]:
    """The request for quote this user may see (404 otherwise), and the body `serializer_class` accepted."""
    rfq = selectors.rfq_get(user=request.user, rfq_id=rfq_id)
    serializer = serializer_class(data=request.data)
    serializer.is_valid(raise_exception=True)
    return rfq, dict(serializer.validated_data)


class AnswerCreateApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        request=AnswerInputSerializer,
        responses={201: AnswerCreatedSerializer, **error_responses(400, 401, 403, 404)},
    )
    def post(self, request: Request, rfq_id: int) -> Response:
        """A representative's proposal for one addressed offering of their provider (with source and date)."""
        rfq, data = _rfq_and_input(request, rfq_id, AnswerInputSerializer)
        answer = services.answer_create(
            representative=request.user, rfq=rfq, offering_slug=data.pop("offering"), **data
        )
        return Response({"id": answer.pk, "offering": answer.offering.slug}, status=status.HTTP_201_CREATED)


class RfqQuoteApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        request=RfqQuoteInputSerializer,
        parameters=[CURRENCY_PARAMETER],
        responses={201: QuoteSerializer, **error_responses(400, 401, 403, 404)},
    )
    def post(self, request: Request, rfq_id: int) -> Response:
        """Turn the winning proposal (or the named offering's) into a quote (PDF: /api/v1/quotes/<id>/pdf)."""
        rfq, data = _rfq_and_input(request, rfq_id, RfqQuoteInputSerializer)
        currency = api_currency(request.query_params)
        quote = services.rfq_quote_create(
            buyer=request.user, rfq=rfq, offering_slug=data.get("offering"), currency=currency
        )
        return Response(quote_json(quote, request), status=status.HTTP_201_CREATED)
