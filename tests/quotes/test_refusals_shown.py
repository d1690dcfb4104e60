"""A refused quote on a page: in the page's language, its field named by the label, never by its code; the
API keeps the English refusal and its shape."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from rest_framework.test import APIClient

from providers.models import Offering
from quotes import services
from quotes.models import Quote
from tests.providers.factories import UserFactory

pytestmark = pytest.mark.django_db


def page_client(user: Any, language: str) -> Client:
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    client.force_login(user)
    return client


def flash(client: Client, data: dict[str, Any]) -> str:
    response = client.post("/quotes/new/", {**data, "next": "/quotes/"}, follow=True)
    assert not Quote.objects.exists()
    return str(response.content.decode())


def test_a_refusal_is_in_chinese_on_a_chinese_page_and_names_the_field_by_its_label(
    buyer: Any, offering: Offering, workload: Any
) -> None:
    page = flash(page_client(buyer, "zh-hans"), {"run": 999999, "offering": offering.slug})
    assert "无法生成报价单：规划运行：没有这个规划运行" in page
    assert "no such run" not in page and "run:" not in page
    other = page_client(UserFactory(username="other-buyer"), "zh-hans")
    page = flash(other, {"workload": workload.pk, "offering": offering.slug})
    assert "工作负载：没有这个工作负载" in page and "workload:" not in page


def test_nothing_to_quote_gives_the_engines_reasons_in_the_pages_language(
    buyer: Any, offering: Offering, workload: Any
) -> None:
    # A published maximum of one node cannot hold the 13B workload's model states: nothing fits.
    Offering.objects.filter(pk=offering.pk).update(max_nodes=1, gpus_per_node=1)
    data = {"workload": workload.pk, "offering": offering.slug}
    chinese = flash(page_client(buyer, "zh-hans"), data)
    assert "产品：无可报价：" in chinese and "nothing to quote" not in chinese and "offering:" not in chinese
    assert "; " not in chinese.split("无可报价：")[1].split("<")[0]  # the reasons joined by "；"
    english = flash(page_client(buyer, "en"), data)
    assert "Could not create the quote: Offering: nothing to quote: " in english


def test_the_api_keeps_the_english_refusal_and_its_shape(
    buyer: Any, offering: Offering, workload: Any
) -> None:
    client = APIClient(HTTP_ACCEPT_LANGUAGE="zh-hans")
    client.force_authenticate(buyer)
    response = client.post("/api/v1/quotes/", {"run": 999999, "offering": offering.slug}, format="json")
    assert response.status_code == 400
    assert response.json() == {"message": "run: no such run", "extra": {"fields": {"run": ["no such run"]}}}
    Offering.objects.filter(pk=offering.pk).update(max_nodes=1, gpus_per_node=1)
    data = {"workload": workload.pk, "offering": offering.slug}
    response = client.post("/api/v1/quotes/", data, format="json")
    (reason,) = response.json()["extra"]["fields"]["offering"]
    assert reason.startswith("nothing to quote: ") and response.json()["message"] == f"offering: {reason}"


def test_a_chinese_quote_joins_its_lists_with_chinese_punctuation(
    buyer: Any, offering: Offering, workload: Any
) -> None:
    """The unpublished fees read "计算, 故障与重启开销" and a bill line's note "未公布; 32 块 GPU": English
    separators on a Chinese page."""
    offering.plans.update(price_usd_per_gpu_hour=None)
    quote = services.quote_create_for_offering(
        owner=buyer, offering_slug=offering.slug, workload_id=workload.pk
    )
    page = page_client(buyer, "zh-hans").get(f"/quotes/{quote.pk}/").content.decode()
    fees = page.split('id="quote-unknown-fees"')[1].split("</div>")[0]
    assert "计算、" in fees and ", " not in fees
    bill = page.split('id="bill"')[1].split("</table>")[0]
    assert "未公布；" in bill and "未公布; " not in bill
    english = page_client(buyer, "en").get(f"/quotes/{quote.pk}/").content.decode()
    assert "Compute, " in english.split('id="quote-unknown-fees"')[1] and "not published; " in english
