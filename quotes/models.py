"""Quotes: a frozen offer made from a sizing result, private to its owner, with a cached PDF.

Everything a quote shows lives in `snapshot` (the offering's facts, sources and prices, the bill, the
findings and the open questions as they were when it was issued), so catalog edits never change it.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from portal.constraints import value_known
from portal.model_bases import NewestFirst
from providers.names import offering_title, provider_shown_name


class PdfStatus(models.TextChoices):
    NONE = "none", _("Not rendered")
    RENDERING = "rendering", _("Rendering")
    READY = "ready", _("Ready")
    FAILED = "failed", _("Failed")


class Quote(NewestFirst):
    PdfStatus = PdfStatus

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="quotes")
    number = models.CharField(max_length=32, unique=True)
    issued_on = models.DateField()
    valid_until = models.DateField()
    # Links back for navigation only; the quote itself reads nothing but `snapshot`.
    offering = models.ForeignKey(
        "providers.Offering", null=True, blank=True, on_delete=models.SET_NULL, related_name="quotes"
    )
    run = models.ForeignKey(
        "sizing.PlanRun", null=True, blank=True, on_delete=models.SET_NULL, related_name="quotes"
    )
    workload = models.ForeignKey(
        "sizing.Workload", null=True, blank=True, on_delete=models.SET_NULL, related_name="quotes"
    )
    offering_name = models.CharField(max_length=600)
    plan_name = models.CharField(max_length=200, blank=True)
    # The language the quote was issued in (the page's, settings.LANGUAGES): its PDF is written in it.
    language = models.CharField(max_length=10, default="en")
    total_usd = models.DecimalField(max_digits=18, decimal_places=2, null=True, blank=True)
    complete = models.BooleanField(default=False)
    snapshot = models.JSONField()
    # sha256 of the snapshot and the renderer version: the key of the cached PDF.
    version = models.CharField(max_length=64)
    share_token = models.CharField(max_length=64, null=True, blank=True, unique=True)
    shared_at = models.DateTimeField(null=True, blank=True)
    pdf_status = models.CharField(max_length=10, choices=PdfStatus.choices, default=PdfStatus.NONE)
    pdf_name = models.CharField(max_length=300, blank=True)
    pdf_has_charts = models.BooleanField(null=True, blank=True)
    pdf_error = models.TextField(blank=True)
    pdf_requested_at = models.DateTimeField(null=True, blank=True)

    class Meta(NewestFirst.Meta):
        constraints = [
            value_known("pdf_status", PdfStatus.values, name="quote_pdf_status_known"),
            models.CheckConstraint(
                condition=Q(valid_until__gte=models.F("issued_on")), name="quote_validity"
            ),
            models.CheckConstraint(condition=~Q(number=""), name="quote_number_not_empty"),
        ]

    def __str__(self) -> str:
        return self.number

    def get_absolute_url(self) -> str:
        return reverse("quotes:detail", args=[self.pk])

    @property
    def shown_offering_name(self) -> str:
        """The provider and the offering as the reader's page names them (the page's colon; on a Chinese page
        the provider's native name too), from the names the snapshot keeps (selectors.quote_list reads them);
        else `offering_name`, stored in the quote's own language when it was issued."""
        provider = getattr(self, "snapshot_provider", None)
        offering = getattr(self, "snapshot_offering", None)
        if not provider or not offering:
            return self.offering_name
        native_name = getattr(self, "snapshot_provider_native_name", None)
        return offering_title(provider_shown_name(provider, native_name), offering)
