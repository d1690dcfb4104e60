"""A real `celery worker` (queue pdf) renders a quote's PDF: PostgreSQL + Redis, shared media storage.

Run with DATABASE_URL=postgres://... CELERY_BROKER_URL=redis://...; skips outside CI without them."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from quotes import services
from quotes.models import Quote
from sizing import services as sizing_services
from tests.providers.factories import UserFactory
from tests.quotes.conftest import make_offering
from tests.quotes.helpers import pdf_bytes, pdf_text

pytestmark = [pytest.mark.integration]


@pytest.fixture
def shared_media(settings: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The worker process and the test read the same media directory (requested before celery_worker)."""
    media = tmp_path / "shared-media"
    media.mkdir()
    monkeypatch.setenv("DJANGO_MEDIA_ROOT", str(media))
    settings.MEDIA_ROOT = media
    return media


def test_a_real_worker_renders_the_pdf_on_the_pdf_queue(shared_media: Path, celery_worker: Any) -> None:
    buyer = UserFactory(username="integration-buyer")
    offering = make_offering(slug="integration-h100")
    workload = sizing_services.workload_create(owner=buyer, preset="13b", train_tokens=3e11)
    quote = services.quote_create_for_offering(
        owner=buyer, offering_slug=offering.slug, workload_id=workload.pk
    )
    # Outside a transaction the enqueue happens at once; the worker renders while we poll.
    assert services.quote_pdf_request(quote=quote) is None
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        quote.refresh_from_db()
        if quote.pdf_status in (Quote.PdfStatus.READY, Quote.PdfStatus.FAILED):
            break
        time.sleep(0.5)
    assert quote.pdf_status == Quote.PdfStatus.READY, quote.pdf_error
    assert (shared_media / quote.pdf_name).is_file() and quote.pdf_has_charts is True
    data = pdf_bytes(quote)
    assert quote.number in pdf_text(data)
    # Asking again serves the stored file: nothing is rendered twice.
    assert services.quote_pdf_request(quote=quote) == quote.pdf_name
