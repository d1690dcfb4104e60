"""The request-for-quote flow in Simplified Chinese, in a real browser: a buyer asks, a representative
answers, the buyer sees the comparison; every page shows its labels in Chinese."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.utils import timezone

from rfq.models import Answer, RequestForQuote
from tests.rfq.test_browser import _login, _logout

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_buyer_and_a_representative_through_a_request_for_quote_in_chinese(
    live_server: Any, page: Any, artifacts: Path, demo: dict[str, Any]
) -> None:
    base = live_server.url
    host = base.split("//", 1)[1].split(":")[0]
    page.context.add_cookies([{"name": "django_language", "value": "zh-hans", "domain": host, "path": "/"}])

    _login(page, base, "demo-buyer", "/rfqs/")
    assert page.text_content("h1") == "您的询价"
    assert "询价" in page.text_content("nav")
    page.click("#new-rfq")
    page.wait_for_url("**/rfqs/new/")
    assert page.text_content("h1") == "向供应商询价"
    form = page.text_content("#rfq-form")
    assert "要询价的产品" in form and "问题（每行一个）" in form and "Offerings to ask" not in form
    page.select_option("select[name=workload]", "p:13b")
    page.fill("input[name=deadline_days]", "90")  # the 13B preset on 64 H100 takes about 60 days
    page.fill("input[name=gpus]", "64")
    page.select_option("select[name=offerings]", ["nebius-h100"])
    page.fill("textarea[name=questions]", "网络是否为轨道优化（rail-optimized）？")
    page.screenshot(path=str(artifacts / "rfq-zh-new.png"), full_page=True)
    page.click("#rfq-form button[type=submit]")
    page.wait_for_selector("#questions")
    rfq = RequestForQuote.objects.get()
    assert page.text_content("h1") == f"询价 #{rfq.pk}"
    _logout(page)

    _login(page, base, "demo-provider", "/rfqs/")
    page.click(f"a[href='/rfqs/{rfq.pk}/']")
    assert "此询价中您的产品" in page.text_content("#to-answer")
    page.click("#to-answer a.button")
    page.wait_for_url(f"**/rfqs/{rfq.pk}/answer/nebius-h100/")
    assert page.text_content("h1").startswith("为 ")
    page.fill("input[name=price_usd_per_gpu_hour]", "2.10")
    page.fill("input[name=delivery_weeks]", "3")
    page.select_option("select[name=payment_terms]", "net-30")
    page.fill("input[name=source_url]", "https://nebius.example/offer.pdf")
    page.fill("input[name=as_of]", timezone.localdate().isoformat())
    page.screenshot(path=str(artifacts / "rfq-zh-answer.png"), full_page=True)
    page.click("#answer-form button[type=submit]")
    page.wait_for_selector("#your-answers table")
    assert Answer.objects.count() == 1
    _logout(page)

    _login(page, base, "demo-buyer", f"/rfqs/{rfq.pk}/")
    body = page.text_content("main")
    assert "答复并排对比" in body and "比较：规划器对已答复方案的测算" in body
    assert "Answers side by side" not in body
    page.screenshot(path=str(artifacts / "rfq-zh-comparison.png"), full_page=True)
