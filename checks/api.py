"""GET /api/v1/findings/: the stored pitfall findings, read-only and public (DESIGN section 8)."""

from __future__ import annotations

from typing import Any

from rest_framework import exceptions, serializers
from rest_framework.generics import ListAPIView
from rest_framework.permissions import AllowAny

from checks import selectors
from checks.forms import FindingFilterForm
from checks.models import Finding


class FindingSerializer(serializers.ModelSerializer[Finding]):
    offering: Any = serializers.SlugRelatedField(read_only=True, slug_field="slug")

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


class FindingListApi(ListAPIView[Finding]):
    """Findings, most severe first; filters `offering` (slug), `severity`, `code`, `context`.

    A plain list, not paginated: the contract is "list of findings", and there are at most a dozen codes
    per offering and context."""

    serializer_class = FindingSerializer
    permission_classes = [AllowAny]
    pagination_class = None

    def get_queryset(self) -> Any:
        form = FindingFilterForm(self.request.query_params)
        if not form.is_valid():
            raise exceptions.ValidationError({k: [str(e) for e in v] for k, v in form.errors.items()})
        return selectors.finding_list(**form.cleaned_data)
