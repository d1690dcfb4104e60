"""Admin: requests, answers and the audit log (read-only: who saw and answered what, when)."""

from __future__ import annotations

from django.contrib import admin

from providers.admin import ReadOnlyAdmin
from rfq.models import Answer, RequestForQuote, RfqEvent


@admin.register(RequestForQuote)
class RequestForQuoteAdmin(ReadOnlyAdmin):
    list_display = ("id", "buyer", "workload", "gpus", "created_at")
    search_fields = ("buyer__username",)


@admin.register(Answer)
class AnswerAdmin(ReadOnlyAdmin):
    list_display = (
        "id",
        "rfq",
        "offering",
        "representative",
        "price_usd_per_gpu_hour",
        "delivery_weeks",
        "as_of",
    )
    list_filter = ("payment_terms",)
    exclude = ("result",)


@admin.register(RfqEvent)
class RfqEventAdmin(ReadOnlyAdmin):
    list_display = ("at", "username", "action", "rfq", "offering", "detail")
    list_filter = ("action",)
    search_fields = ("username", "detail", "offering__slug")
