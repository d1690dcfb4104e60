"""The quote in a real browser: create it from the planner result, read it, download its PDF."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from quotes.models import Quote
from sizing import services as sizing_services
from tests.providers.factories import UserFactory
from tests.quotes.conftest import make_offering

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_create_a_quote_from_a_result_read_it_and_download_the_pdf(
    live_server: Any, page: Any, artifacts: Path
) -> None:
    buyer = UserFactory(username="buyer", password="buyer-pw")
    offering = make_offering(provider_name="<script>alert(1)</script>")
    workload = sizing_services.workload_create(owner=buyer, preset="13b", train_tokens=3e11)
    run = sizing_services.plan_run_create(owner=buyer, workload=workload, offering_slugs=[offering.slug])
    page.goto(f"{live_server.url}/accounts/login/?next=/plan/{run.pk}/{offering.slug}/")
    page.fill("input[name=username]", "buyer")
    page.fill("input[name=password]", "buyer-pw")
    page.click("button[type=submit]")
    page.wait_for_url(f"**/plan/{run.pk}/{offering.slug}/")
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.click("#create-quote button")
    quote = Quote.objects.get()
    page.wait_for_url(f"**/quotes/{quote.pk}/")
    page.wait_for_selector("#chart-cost-by-item .main-svg")
    assert quote.number in page.text_content("h1")
    assert "<script>alert(1)</script>" in page.text_content("#summary")
    assert dialogs == []
    page.screenshot(path=str(artifacts / "quote-page.png"), full_page=True)
    with page.expect_download() as download:
        page.click("#download-pdf")
    path = download.value.path()
    assert Path(path).read_bytes().startswith(b"%PDF")
    assert download.value.suggested_filename == f"{quote.number}.pdf"
