"""MFU as a buyer reads it: one percentage format on every page that shows it (the run's ranking, the
result page, the quote and its PDF, an upload's summary), never the raw fraction the model and the API keep
(the API's value is unchanged)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client
from rest_framework.test import APIClient

from benchmarks.models import Blob, Upload
from portal.formats import percent_text
from quotes import services
from quotes.display import quote_view
from sizing import services as sizing_services
from sizing.models import PlanResult

pytestmark = pytest.mark.django_db


def _login(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def result(buyer: Any, offering: Any, workload: Any, django_capture_on_commit_callbacks: Any) -> PlanResult:
    with django_capture_on_commit_callbacks(execute=True):
        run = sizing_services.plan_run_create(owner=buyer, workload=workload, offering_slugs=[offering.slug])
    found = PlanResult.objects.get(run=run, offering=offering)
    assert found.mfu is not None and 0 < found.mfu < 1
    return found


def test_percent_text_is_the_one_format() -> None:
    assert percent_text(0.5348) == "53%"
    assert percent_text(0.5351, 1) == "53.5%"
    assert percent_text(1) == "100%"
    assert percent_text(None) == "—" and percent_text("") == "—" and percent_text("x") == "—"


def test_every_page_shows_the_runs_mfu_as_the_same_percentage(
    buyer: Any, offering: Any, result: PlanResult
) -> None:
    shown = percent_text(result.mfu)
    raw = str(result.mfu)
    client = _login(buyer)
    page = client.get(f"/plan/{result.run_id}/{offering.slug}/").content.decode()
    row = re.search(r"<th>MFU</th><td[^>]*>([^<]*)</td>", page)
    assert row is not None and row.group(1).strip() == shown, row
    assert raw not in page
    goodput = re.search(r"<th>goodput</th><td[^>]*>([^<]*)</td>", page)
    assert goodput is not None and goodput.group(1).strip().endswith("%"), goodput
    chinese = client.get(f"/plan/{result.run_id}/{offering.slug}/", HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert f">{shown}<" in chinese.content.decode() and raw not in chinese.content.decode()
    ranking = client.get(f"/plan/{result.run_id}/").content.decode()
    cell = re.search(r'data-label="MFU">([^<]*)</td>', ranking)
    assert cell is not None and cell.group(1).strip() == shown
    quote = services.quote_create_from_result(owner=buyer, run_id=result.run_id, offering_slug=offering.slug)
    at_a_glance = dict(quote_view(quote.snapshot)["headline"])
    assert at_a_glance["MFU"] == shown
    # the API keeps the fraction
    api = APIClient()
    api.force_authenticate(buyer)
    rows = api.get(f"/api/v1/runs/{result.run_id}/").json()["results"]
    assert rows[0]["mfu"] == result.mfu


def test_an_uploads_summary_shows_mfu_as_a_percentage(buyer: Any, offering: Any) -> None:
    blob = Blob.objects.create(sha256="a" * 64, size_bytes=10, storage_name="blobs/mfu-test")
    upload = Upload.objects.create(
        owner=buyer,
        offering=offering,
        blob=blob,
        original_filename="train.log",
        status="parsed",
        kind="torchtitan",
        summary={"median_tokens_per_s_per_gpu": 3100.5, "mfu": 0.5348},
    )
    page = _login(buyer).get(f"/benchmarks/{upload.pk}/").content.decode()
    summary = page[page.index('id="summary"') :]
    assert "<td>53%</td>" in summary and "0.5348" not in summary
    assert "3100.5" in summary  # other figures as the parser gave them
