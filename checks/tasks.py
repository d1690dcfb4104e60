"""Thin Celery tasks of the checks app (routed to the `sizing` queue by the "checks." name prefix)."""

from __future__ import annotations

from celery import shared_task
from django.db import OperationalError

from checks import services
from providers.models import Offering


@shared_task(
    name="checks.findings_refresh",
    autoretry_for=(OperationalError,),  # transient: database restart or lock timeout
    retry_backoff=True,
    max_retries=3,
)
def findings_refresh_task(offering_id: int) -> int:
    """Re-run the pitfall rules for one offering; returns the number of findings (idempotent)."""
    offering = (
        Offering.objects.select_related("provider", "gpu").prefetch_related("plans").filter(pk=offering_id)
    ).first()
    if offering is None:  # deleted since the change was committed: nothing to check
        return 0
    return len(services.findings_refresh(offering=offering))
