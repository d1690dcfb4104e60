"""Evidence uploads: the raw bytes (content-addressed, written once) and one row per uploaded file.

Raw bytes live in Django storage at `uploads/<sha[:2]>/<sha>` and are never modified; an Upload points at
its Blob and carries what the worker parsed out of it (DESIGN section 3 and 7).
"""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.urls import reverse
from django.utils.translation import gettext_lazy as _
from django.utils.translation import gettext_noop

from portal.constraints import positive_or_null, value_known
from portal.model_bases import Finishes, NewestFirst


class Blob(models.Model):
    """Raw bytes of one file, stored once per distinct content."""

    sha256 = models.CharField(max_length=64, unique=True)
    size_bytes = models.PositiveBigIntegerField()
    storage_name = models.CharField(max_length=200, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.CheckConstraint(condition=Q(sha256__regex=r"^[0-9a-f]{64}$"), name="blob_sha256_hex"),
        ]

    def __str__(self) -> str:
        return f"{self.sha256[:12]} ({self.size_bytes} B)"

    @staticmethod
    def storage_name_for(sha256: str) -> str:
        return f"uploads/{sha256[:2]}/{sha256}"


class Visibility(models.TextChoices):
    PRIVATE = "private", _("Private (only me)")
    PUBLIC = "public", _("Public (everyone)")


class UploadStatus(models.TextChoices):
    STORED = "stored", _("Stored, waiting for the parser")
    PARSING = "parsing", _("Parsing")
    PARSED = "parsed", _("Parsed")
    UNRECOGNISED = "unrecognised", _("Not recognised")
    FAILED = "failed", _("Failed")


FINISHED_STATUSES = (UploadStatus.PARSED, UploadStatus.UNRECOGNISED, UploadStatus.FAILED)

# An upload whose parse hit a bug: its last error keeps the English with the exception for the API and the
# team (it begins with PARSE_INTERNAL_ERROR_TEXT); beside it in `error_messages`, PARSE_INTERNAL_ERROR, the
# sentence a page shows in its language (benchmarks.selectors.errors_shown), without the exception's names.
PARSE_INTERNAL_ERROR_TEXT = "internal error while parsing"
PARSE_INTERNAL_ERROR = gettext_noop(
    "This file could not be read because of an error on our side; it has been logged for the team."
)


class Upload(Finishes, NewestFirst):
    Visibility = Visibility
    Status = UploadStatus
    finished_statuses = FINISHED_STATUSES

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="uploads")
    offering = models.ForeignKey("providers.Offering", on_delete=models.CASCADE, related_name="uploads")
    blob = models.ForeignKey(Blob, on_delete=models.PROTECT, related_name="uploads")
    # Files sent together in one submission share a batch id.
    batch = models.UUIDField(default=uuid.uuid4, db_index=True)
    original_filename = models.CharField(max_length=255)
    nodes = models.PositiveIntegerField(null=True, blank=True)
    gpus = models.PositiveIntegerField(null=True, blank=True)
    measured_on = models.DateField(null=True, blank=True)
    notes = models.CharField(max_length=5000, blank=True)  # the form and API say the same
    visibility = models.CharField(max_length=10, choices=Visibility.choices, default=Visibility.PRIVATE)
    status = models.CharField(max_length=20, choices=UploadStatus.choices, default=UploadStatus.STORED)
    kind = models.CharField(max_length=40, null=True, blank=True)
    summary = models.JSONField(default=dict, blank=True)
    warnings = models.JSONField(default=list, blank=True)
    # Beside each warning (same order) its message id and values, so the page shows it in its language;
    # empty for uploads parsed before they were stored (their warnings are shown as stored).
    warning_messages = models.JSONField(default=list, blank=True)
    # Each error's {"msgid", "params"} (None where the error is not a marked message), in order: the page
    # shows a file's "not recognised" reason in its language (portal.i18n.translated_list).
    error_messages = models.JSONField(default=list, blank=True)
    errors = models.JSONField(default=list, blank=True)
    verdicts = models.JSONField(default=list, blank=True)
    parsed_at = models.DateTimeField(null=True, blank=True)
    # When a worker last took it: a parse whose worker died is swept again after the task time limit.
    parsing_started_at = models.DateTimeField(null=True, blank=True)

    class Meta(NewestFirst.Meta):
        indexes = [models.Index(fields=["status", "created_at"])]
        constraints = [
            value_known("visibility", Visibility.values, name="upload_visibility_known"),
            value_known("status", UploadStatus.values, name="upload_status_known"),
            positive_or_null("nodes", name="upload_nodes_positive"),
            positive_or_null("gpus", name="upload_gpus_positive"),
            # The same file sent again by the same buyer for the same offering is the same evidence.
            models.UniqueConstraint(
                fields=["owner", "offering", "blob"], name="upload_once_per_owner_offering"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.original_filename} ({self.status})"

    def get_absolute_url(self) -> str:
        return reverse("benchmarks:upload", args=[self.pk])
