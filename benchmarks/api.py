"""Evidence uploads over REST: /api/v1/uploads/ (DESIGN section 8)."""

from __future__ import annotations

from typing import Any, TypeVar

from django.core.exceptions import ValidationError as DjangoValidationError
from django.core.files.storage import default_storage
from django.db import models
from django.db.models import QuerySet
from django.http import FileResponse, Http404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema, extend_schema_view
from rest_framework import exceptions, generics, serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.throttles import UploadThrottled
from benchmarks import selectors, services
from benchmarks.models import Upload
from hardware.gpus import LARGEST_CLUSTER_GPUS
from portal.api_errors import error_responses
from portal.api_fields import SlugRelatedField, rows_without
from portal.form_errors import messages_by_field
from providers.models import Offering

_Row = TypeVar("_Row", bound=models.Model)


class PayloadTooLarge(exceptions.APIException):
    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_detail = "File too large."
    default_code = "too_large"


class UploadOutputSerializer(serializers.ModelSerializer[Upload]):
    offering: Any = serializers.SlugRelatedField(read_only=True, slug_field="slug")
    owner = serializers.CharField(source="owner.get_username", read_only=True)
    sha256 = serializers.CharField(source="blob.sha256", read_only=True)
    size_bytes = serializers.IntegerField(source="blob.size_bytes", read_only=True)
    url = serializers.CharField(source="get_absolute_url", read_only=True)
    raw_url = serializers.SerializerMethodField()

    class Meta:
        model = Upload
        fields = [
            "id",
            "status",
            "kind",
            "summary",
            "warnings",
            "errors",
            "verdicts",
            "offering",
            "owner",
            "original_filename",
            "sha256",
            "size_bytes",
            "batch",
            "nodes",
            "gpus",
            "measured_on",
            "notes",
            "visibility",
            "parsed_at",
            "created_at",
            "url",
            "raw_url",
        ]
        read_only_fields = fields

    def to_representation(self, instance: Upload) -> dict[str, Any]:
        """The upload as before: each verdict without the message ids stored beside its English texts."""
        data = dict(super().to_representation(instance))
        data["verdicts"] = rows_without(data.get("verdicts"), "messages")
        return data

    def get_raw_url(self, obj: Upload) -> str:
        return f"/api/v1/uploads/{obj.pk}/raw"


class UploadInputSerializer(serializers.Serializer[dict[str, Any]]):
    file = serializers.FileField(help_text="the log or report; send several `file` parts for several files")
    offering = SlugRelatedField(slug_field="slug", queryset=Offering.objects.all())
    nodes = serializers.IntegerField(
        min_value=1, max_value=LARGEST_CLUSTER_GPUS, required=False, allow_null=True
    )
    gpus = serializers.IntegerField(
        min_value=1, max_value=LARGEST_CLUSTER_GPUS, required=False, allow_null=True
    )
    measured_on = serializers.DateField(required=False, allow_null=True)
    notes = serializers.CharField(required=False, allow_blank=True, max_length=5000, default="")
    visibility = serializers.ChoiceField(choices=Upload.Visibility.choices, default=Upload.Visibility.PRIVATE)


class UploadCreatedSerializer(UploadOutputSerializer):
    """The first file's upload at the top level, as when one file is sent; every file's in `uploads`."""

    duplicate = serializers.BooleanField(
        help_text="true: the same bytes were already uploaded for this offering"
    )
    uploads = serializers.ListField(child=serializers.DictField(), help_text="one item per file sent")

    class Meta(UploadOutputSerializer.Meta):
        fields = [*UploadOutputSerializer.Meta.fields, "duplicate", "uploads"]
        read_only_fields = fields


def _output(upload: Upload, duplicate: bool) -> dict[str, Any]:
    return {**UploadOutputSerializer(upload).data, "duplicate": duplicate}


class EvidenceListCreateApi(UploadThrottled, generics.ListCreateAPIView[_Row]):
    """What the upload and acceptance APIs share: GET lists the rows the user may see (`?offering=<slug>`,
    through `visible`), POST takes a multipart body checked by `input_serializer`."""

    input_serializer: type[serializers.Serializer[Any]]

    def visible(self, user: Any, offering_slug: str | None) -> QuerySet[_Row]:
        raise NotImplementedError

    def get_queryset(self) -> QuerySet[_Row]:
        return self.visible(self.request.user, self.request.query_params.get("offering"))

    def validated_input(self, request: Request) -> dict[str, Any]:
        serializer = self.input_serializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        return dict(serializer.validated_data)


def evidence_list_schema(output_serializer: type[serializers.BaseSerializer[Any]]) -> Any:
    """The schema of an EvidenceListCreateApi's GET: its rows as `output_serializer` shows them, filtered
    by `?offering=<slug>`."""
    return extend_schema(
        parameters=[OpenApiParameter("offering", str, description="offering slug")],
        responses={200: output_serializer(many=True), **error_responses(400)},
    )


@extend_schema_view(
    get=evidence_list_schema(UploadOutputSerializer),
    post=extend_schema(
        request={"multipart/form-data": UploadInputSerializer},
        responses={
            201: OpenApiResponse(
                UploadCreatedSerializer, description="Stored (and parsed in embedded mode)."
            ),
            200: OpenApiResponse(UploadCreatedSerializer, description="Every file was a duplicate."),
            **error_responses(400, 401, 413, 429),
        },
    ),
)
class UploadListCreateApi(EvidenceListCreateApi[Upload]):
    """GET: uploads you may see (`?offering=<slug>`). POST (multipart): store and parse evidence files."""

    serializer_class = UploadOutputSerializer
    input_serializer = UploadInputSerializer

    def get_serializer_class(self) -> type[serializers.BaseSerializer[Any]]:
        if self.request is not None and self.request.method == "POST":
            return UploadInputSerializer
        return UploadOutputSerializer

    def visible(self, user: Any, offering_slug: str | None) -> QuerySet[Upload]:
        return selectors.upload_list(user=user, offering_slug=offering_slug)

    def create(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        data = self.validated_input(request)
        try:
            files = services.incoming_files(uploaded=request.FILES.getlist("file"))
            outcomes = services.upload_create(
                owner=request.user,
                offering=data["offering"],
                files=files,
                nodes=data.get("nodes"),
                gpus=data.get("gpus"),
                measured_on=data.get("measured_on"),
                notes=data.get("notes") or "",
                visibility=data["visibility"],
            )
        except services.UploadTooLarge as exc:
            raise PayloadTooLarge(exc.messages[0]) from exc
        except DjangoValidationError as exc:
            raise exceptions.ValidationError(messages_by_field(exc, "file")) from exc
        # The rows may have been parsed in-process already (embedded mode): answer with the latest state.
        fresh = {
            u.pk: u
            for u in Upload.objects.select_related("offering", "owner", "blob").filter(
                pk__in=[o.upload.pk for o in outcomes]
            )
        }
        items = [_output(fresh[o.upload.pk], o.duplicate) for o in outcomes]
        body = {**items[0], "uploads": items}
        created = any(not o.duplicate for o in outcomes)
        return Response(body, status=status.HTTP_201_CREATED if created else status.HTTP_200_OK)


@extend_schema_view(get=extend_schema(responses={200: UploadOutputSerializer, **error_responses(404)}))
class UploadDetailApi(generics.RetrieveAPIView[Upload]):
    serializer_class = UploadOutputSerializer

    def get_queryset(self) -> QuerySet[Upload]:
        return selectors.upload_list(user=self.request.user)


class UploadRawApi(APIView):
    """The original bytes, exactly as uploaded (same visibility rule as the upload itself)."""

    @extend_schema(
        operation_id="uploads_raw_retrieve",
        responses={
            (200, "text/plain"): OpenApiResponse(OpenApiTypes.BINARY, description="the original bytes"),
            (404, "application/json"): error_responses(404)[404],
        },
    )
    def get(self, request: Request, pk: int) -> FileResponse:
        try:
            upload = selectors.upload_get(user=request.user, upload_id=pk)
        except Upload.DoesNotExist as exc:
            raise Http404("No such upload.") from exc
        handle = default_storage.open(upload.blob.storage_name, "rb")
        response = FileResponse(
            handle,
            as_attachment=True,
            filename=upload.original_filename,
            content_type="text/plain; charset=utf-8",
        )
        response["X-Content-SHA256"] = upload.blob.sha256
        return response
