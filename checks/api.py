"""GET /api/v1/findings/: the stored pitfall findings, read-only and public (DESIGN section 8)."""

from __future__ import annotations

from typing import Any

from django_filters.rest_framework import DjangoFilterBackend
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view
from rest_framework import serializers
from rest_framework.generics import ListAPIView
from rest_framework.permissions import AllowAny

from checks import selectors
from checks.filters import FindingFilterSet
from checks.models import Finding
from portal.api_errors import error_responses


class FindingSerializer(serializers.ModelSerializer[Finding]):
    offering: Any = serializers.SlugRelatedField(read_only=True, slug_field="slug")
    title = serializers.CharField(
        source="shown_title", read_only=True, help_text="in the request's language (Accept-Language)"
    )
    advice = serializers.CharField(
        source="shown_advice", read_only=True, help_text="in the request's language (Accept-Language)"
    )

    class Meta:
        model = Finding
        fields = [
            "offering",
            "code",
            "severity",
            "title",
            "evidence",
            "advice",
            "impact",
            "context",
            "updated_at",
        ]


@extend_schema_view(
    get=extend_schema(
        parameters=[
            OpenApiParameter("offering", str, description="offering slug"),
            OpenApiParameter("severity", str),
            OpenApiParameter("code", str),
            OpenApiParameter(
                "context",
                str,
                description='"claims", or "run:<id>" for the findings of one of your sizing runs',
            ),
        ],
        responses={200: FindingSerializer(many=True), **error_responses(400)},
    )
)
class FindingListApi(ListAPIView[Finding]):
    """Findings, most severe first; filters `offering` (slug), `severity`, `code`, `context`.

    Everyone sees the public findings of the offerings' published facts (context "claims"); the findings
    of a sizing run (context "run:<id>") only its owner and staff.

    A plain list, not paginated: the contract is "list of findings", and there are at most a dozen codes
    per offering and context."""

    serializer_class = FindingSerializer
    permission_classes = [AllowAny]
    pagination_class = None
    filter_backends = [DjangoFilterBackend]
    filterset_class = FindingFilterSet

    def get_queryset(self) -> Any:
        return selectors.finding_list(user=self.request.user)
