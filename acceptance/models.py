"""Acceptance runs: one bundle of trial-cluster logs, the uploads made from its files, and the report.

The bundle's raw bytes are a benchmarks Blob (content-addressed, written once); every recognised file in it
becomes a benchmarks Upload in one batch, and the report (three indicators, verdict, findings) is computed
from their parsed results.
"""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.urls import reverse
from django.utils.translation import gettext_lazy as _
from django.utils.translation import gettext_noop

from benchmarks.models import Visibility
from portal.constraints import value_known
from portal.model_bases import BackgroundJob, Finishes


class AcceptanceStatus(models.TextChoices):
    QUEUED = "queued", _("Queued")
    RUNNING = "running", _("Reading the bundle")
    DONE = "done", _("Done")
    FAILED = "failed", _("Failed")


class AcceptanceVerdict(models.TextChoices):
    PASS = "pass", "Pass"
    FAIL = "fail", "Fail"
    INCOMPLETE = "incomplete", "Incomplete"


FINISHED = (AcceptanceStatus.DONE, AcceptanceStatus.FAILED)

# A bundle whose reading hit a bug: the row's `error` keeps the English with the exception for the API and
# the team (it begins with INTERNAL_ERROR_TEXT); `error_message` holds INTERNAL_ERROR, the sentence a page
# shows in its language (acceptance.selectors.error_shown), without the exception's names. Its advice holds:
# every upload makes a new run, read afresh (acceptance_create), and the failed one, kept as it is, links to
# the newest run of the same bundle (acceptance.selectors.run_uploaded_again).
INTERNAL_ERROR_TEXT = "internal error while reading the bundle"
INTERNAL_ERROR = gettext_noop(
    "This bundle could not be read because of an error on our side; it has been logged for the team. "
    "Upload the same file again later: it is read afresh as a new report, and this one links to it."
)


class AcceptanceRun(Finishes, BackgroundJob):
    Status = AcceptanceStatus
    finished_statuses = FINISHED
    Verdict = AcceptanceVerdict
    Visibility = Visibility

    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="acceptance_runs"
    )
    offering = models.ForeignKey(
        "providers.Offering", on_delete=models.CASCADE, related_name="acceptance_runs"
    )
    bundle = models.ForeignKey("benchmarks.Blob", on_delete=models.PROTECT, related_name="+")
    bundle_name = models.CharField(max_length=255)
    # The uploads made from the bundle's files share this batch id.
    batch = models.UUIDField(default=uuid.uuid4, db_index=True)
    # Public: the verdicts show on the offering page and the files' uploads are public evidence.
    visibility = models.CharField(max_length=10, choices=Visibility.choices, default=Visibility.PRIVATE)
    status = models.CharField(max_length=10, choices=AcceptanceStatus.choices, default="queued")
    # [{"name", "kind", "upload"}] per file in the bundle (kind and upload null when not recognised); a file
    # skipped while the bundle was read adds "skipped" (the English reason, the API's) and "skipped_message".
    files = models.JSONField(default=list, blank=True)
    # {"collective_bandwidth": {...}, "scaling_efficiency": {...}, "stability": {...}}
    indicators = models.JSONField(default=dict, blank=True)
    # Nodes, GPUs and GPUs per node the logs show (ranks, host names, device listings).
    measured = models.JSONField(default=dict, blank=True)
    verdict = models.CharField(max_length=10, choices=AcceptanceVerdict.choices, null=True, blank=True)
    findings = models.JSONField(default=list, blank=True)
    # Why the run failed as a message ({"msgid", "params"}) beside the English `error`; null for a run that
    # did not fail on a bug, or failed before the messages were stored.
    error_message = models.JSONField(null=True, blank=True)

    class Meta(BackgroundJob.Meta):
        indexes = [models.Index(fields=["status", "created_at"])]
        constraints = [
            value_known("status", AcceptanceStatus.values, name="acceptance_status_known"),
            value_known("visibility", Visibility.values, name="acceptance_visibility_known"),
            models.CheckConstraint(
                condition=Q(verdict__isnull=True) | Q(verdict__in=AcceptanceVerdict.values),
                name="acceptance_verdict_known",
            ),
        ]

    def __str__(self) -> str:
        return f"acceptance {self.pk} {self.bundle_name} ({self.status})"

    def get_absolute_url(self) -> str:
        return reverse("acceptance:report", args=[self.pk])
