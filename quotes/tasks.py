"""Thin Celery task of the quotes app (queue `pdf` through CELERY_TASK_ROUTES "quotes.*")."""

from __future__ import annotations

from typing import Any

from celery import shared_task
from django.db import OperationalError

from quotes import services


@shared_task(name="quotes.render_pdf", bind=True, max_retries=3, default_retry_delay=5)
def render_pdf_task(self: Any, quote_id: int) -> str | None:
    """Render the quote's PDF unless this version is already stored (idempotent)."""
    try:
        return services.quote_pdf_render(quote_id=quote_id)
    except OperationalError as exc:  # the database went away for a moment: transient
        raise self.retry(exc=exc) from exc
