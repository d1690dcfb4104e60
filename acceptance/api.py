"""Acceptance over REST: the kit (`GET /api/v1/acceptance/kit/`), bundles and their reports."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError as DjangoValidationError
from django.db.models import QuerySet
from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_view
from rest_framework import exceptions, generics, serializers, status
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from acceptance import kit, selectors, services
from acceptance.models import AcceptanceRun
from benchmarks.api import EvidenceListCreateApi, evidence_list_schema
from benchmarks.models import Visibility
from portal.api_errors import error_responses
from portal.api_fields import SlugRelatedField, rows_without
from portal.form_errors import messages_by_field
from providers.models import Offering


class AcceptanceOutputSerializer(serializers.ModelSerializer[AcceptanceRun]):
    offering: Any = serializers.SlugRelatedField(read_only=True, slug_field="slug")
    findings = serializers.SerializerMethodField(help_text="one sentence per finding, naming file and line")
    finding_details = serializers.JSONField(source="findings", read_only=True)
    url = serializers.CharField(source="get_absolute_url", read_only=True)
    status = serializers.CharField(read_only=True, help_text="queued, running, done or failed")
    verdict = serializers.CharField(read_only=True, allow_null=True, help_text="pass, fail or incomplete")
    visibility = serializers.CharField(read_only=True, help_text="private or public")
    pitfall_findings = serializers.SerializerMethodField(
        help_text="pitfall findings (code, severity, title, files) that cite this bundle's uploads"
    )

    class Meta:
        model = AcceptanceRun
        fields = [
            "id",
            "status",
            "offering",
            "bundle_name",
            "visibility",
            "files",
            "indicators",
            "measured",
            "verdict",
            "findings",
            "finding_details",
            "pitfall_findings",
            "error",
            "created_at",
            "finished_at",
            "url",
        ]
        read_only_fields = fields

    def to_representation(self, instance: AcceptanceRun) -> dict[str, Any]:
        """The run as before: each file without the message stored beside a skipped file's English reason."""
        data = dict(super().to_representation(instance))
        data["files"] = rows_without(data.get("files"), "skipped_message")
        return data

    def get_findings(self, obj: AcceptanceRun) -> list[str]:
        return [str(f.get("text")) for f in obj.findings or []]

    def get_pitfall_findings(self, obj: AcceptanceRun) -> list[dict[str, Any]]:
        return selectors.pitfall_findings(obj) if obj.status == AcceptanceRun.Status.DONE else []


class AcceptanceInputSerializer(serializers.Serializer[dict[str, Any]]):
    bundle = serializers.FileField(
        help_text="tar.gz, tar or zip of the kit's results folder (or any logs), or one log compressed with "
        "gzip, xz or bzip2"
    )
    offering = SlugRelatedField(slug_field="slug", queryset=Offering.objects.all())
    visibility = serializers.ChoiceField(choices=Visibility.choices, default=Visibility.PRIVATE)


class KitQuerySerializer(serializers.Serializer[dict[str, Any]]):
    offering = SlugRelatedField(
        slug_field="slug", queryset=Offering.objects.select_related("provider", "gpu")
    )
    nodes = serializers.IntegerField(help_text=f"1 to the offering's node count (at most {kit.MAX_NODES})")
    scheduler = serializers.ChoiceField(choices=kit.SCHEDULERS)
    stability_hours = serializers.IntegerField(
        required=False, default=0, help_text=f"0 (no stability loop) to {kit.MAX_STABILITY_HOURS}"
    )


def kit_response(offering: Offering, nodes: int, scheduler: str, stability_hours: int) -> HttpResponse:
    """The kit archive as a download; kit.KitError when the request is out of range."""
    facts = offering.facts()
    data = kit.build_kit(facts, nodes, scheduler, stability_hours)
    response = HttpResponse(data, content_type="application/gzip")
    filename = f"{kit.kit_name(facts, nodes, scheduler)}.tar.gz"
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


class KitApi(APIView):
    """The acceptance kit for an offering, a node count and a scheduler, as a tar.gz."""

    permission_classes = [AllowAny]

    @extend_schema(
        operation_id="acceptance_kit_retrieve",
        parameters=[KitQuerySerializer],
        responses={
            (200, "application/gzip"): OpenApiResponse(OpenApiTypes.BINARY, description="the kit (tar.gz)"),
            (400, "application/json"): error_responses(400)[400],
        },
    )
    def get(self, request: Request) -> HttpResponse:
        query = KitQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        data = query.validated_data
        try:
            return kit_response(data["offering"], data["nodes"], data["scheduler"], data["stability_hours"])
        except kit.KitError as exc:
            raise exceptions.ValidationError({exc.field: [exc.message]}) from exc


@extend_schema_view(
    get=evidence_list_schema(AcceptanceOutputSerializer),
    post=extend_schema(
        request={"multipart/form-data": AcceptanceInputSerializer},
        responses={
            201: OpenApiResponse(AcceptanceOutputSerializer, description="Stored; read on the worker."),
            **error_responses(400, 401, 429),
        },
    ),
)
class AcceptanceListCreateApi(EvidenceListCreateApi[AcceptanceRun]):
    """GET: acceptance runs you may see. POST (multipart `bundle`, `offering`): read a bundle of logs."""

    serializer_class = AcceptanceOutputSerializer
    input_serializer = AcceptanceInputSerializer

    def get_permissions(self) -> list[Any]:
        return [IsAuthenticated()] if self.request.method == "POST" else [AllowAny()]

    def visible(self, user: Any, offering_slug: str | None) -> QuerySet[AcceptanceRun]:
        return selectors.run_list(user=user, offering_slug=offering_slug)

    def create(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        data = self.validated_input(request)
        upload = data["bundle"]
        try:
            services.bundle_check_size(name=str(upload.name), size=int(upload.size or 0))
            run = services.acceptance_create(
                owner=request.user,
                offering=data["offering"],
                name=str(upload.name or "bundle.tar.gz"),
                data=upload.read(),
                visibility=data["visibility"],
            )
        except DjangoValidationError as exc:
            raise exceptions.ValidationError(messages_by_field(exc, "bundle")) from exc
        run.refresh_from_db()  # processed in-process already in embedded mode
        return Response(AcceptanceOutputSerializer(run).data, status=status.HTTP_201_CREATED)


@extend_schema_view(get=extend_schema(responses={200: AcceptanceOutputSerializer, **error_responses(404)}))
class AcceptanceDetailApi(generics.RetrieveAPIView[AcceptanceRun]):
    serializer_class = AcceptanceOutputSerializer
    permission_classes = [AllowAny]

    def get_queryset(self) -> QuerySet[AcceptanceRun]:
        return selectors.run_list(user=self.request.user)
