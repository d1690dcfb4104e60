"""A buyer and a representative through a request for quote in a real browser (Debian's chromium)."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from django.utils import timezone

from quotes.models import Quote
from rfq.models import Answer, RequestForQuote

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _login(page: Any, base: str, name: str, next_path: str) -> None:
    page.goto(f"{base}/accounts/login/?next={next_path}")
    page.fill("input[name=username]", name)
    page.fill("input[name=password]", name)
    page.click("button[type=submit]")
    page.wait_for_url(f"**{next_path}")


def _logout(page: Any) -> None:
    page.click(".who button")
    page.wait_for_load_state()


def test_a_buyer_and_a_representative_through_a_request_for_quote(
    live_server: Any, page: Any, artifacts: Path, demo: dict[str, Any]
) -> None:
    demo["other"].name = "Other <b>H100</b>"
    demo["other"].save(update_fields=["name"])
    base = live_server.url

    # the buyer asks two offerings for a quote
    _login(page, base, "demo-buyer", "/rfqs/")
    page.click("#new-rfq")
    page.wait_for_url("**/rfqs/new/")
    page.select_option("select[name=workload]", "p:13b")
    page.fill("input[name=deadline_days]", "90")  # the 13B preset on 64 H100 takes about 60 days
    page.fill("input[name=gpus]", "64")
    page.select_option("select[name=offerings]", ["nebius-h100", "other-h100"])
    page.fill("textarea[name=questions]", "Is the fabric rail-optimized?\nWhen can you deliver?")
    page.screenshot(path=str(artifacts / "rfq-new.png"), full_page=True)
    page.click("#rfq-form button[type=submit]")
    page.wait_for_selector("#questions")
    rfq = RequestForQuote.objects.get()
    assert "When can you deliver?" in page.text_content("#questions")
    _logout(page)

    # the representative answers from the inbox; a missing source is refused on the page
    _login(page, base, "demo-provider", "/rfqs/")
    assert "H100 InfiniBand" in page.text_content("#rfqs")
    page.click(f"a[href='/rfqs/{rfq.pk}/']")
    page.click("#to-answer a.button")
    page.wait_for_url(f"**/rfqs/{rfq.pk}/answer/nebius-h100/")
    page.fill("input[name=price_usd_per_gpu_hour]", "2.10")
    page.fill("input[name=delivery_weeks]", "3")
    page.select_option("select[name=payment_terms]", "net-30")
    page.fill("input[name=fact_usable_gpu_guarantee_pct]", "97")
    page.fill("textarea[name=message]", "Rail-optimized, yes.")
    page.click("#answer-form button[type=submit]")
    # the browser itself refuses an answer without its source (the server's refusal: test_pages, test_api)
    assert page.eval_on_selector("input[name=source_url]", "e => e.validity.valueMissing")
    assert page.url.endswith(f"/rfqs/{rfq.pk}/answer/nebius-h100/")
    assert not Answer.objects.exists()
    page.fill("input[name=source_url]", "https://nebius.example/offer.pdf")
    page.fill("input[name=as_of]", timezone.localdate().isoformat())
    page.screenshot(path=str(artifacts / "rfq-answer.png"), full_page=True)
    page.click("#answer-form button[type=submit]")
    page.wait_for_selector("#your-answers table")
    assert Answer.objects.get().price_usd_per_gpu_hour == Decimal("2.1")
    _logout(page)

    # the buyer sees the answers side by side and the comparison, and makes a quote of the winner
    _login(page, base, "demo-buyer", f"/rfqs/{rfq.pk}/")
    assert "$2.10" in page.text_content("#side-by-side")
    assert "Other <b>H100</b>" in page.text_content("#side-by-side")  # text, not markup
    row = page.text_content("#comparison-table tbody tr")
    assert "H100 InfiniBand" in row and ("met" in row or "missed" in row)
    page.screenshot(path=str(artifacts / "rfq-comparison.png"), full_page=True)
    page.click("#quote-form button")
    page.wait_for_url("**/quotes/*/")
    quote = Quote.objects.get()
    assert quote.number in page.text_content("h1")
    assert quote.snapshot["proposal"]["source_url"] == "https://nebius.example/offer.pdf"
