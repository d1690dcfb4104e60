"""The request-for-quote pages name an offering as the other pages do (Offering.shown_title: "Provider:
Offering", "Provider：Offering" on a Chinese page), a fictional sample in the page's language, and list the
offerings still to answer with the page's separator."""

from __future__ import annotations

from typing import Any

import pytest
from django.utils import translation

from rfq.forms import RfqForm
from rfq.models import RequestForQuote
from tests.providers.factories import OfferingFactory, ProviderFactory
from tests.rfq.conftest import priced_offering
from tests.rfq.test_pages import _answer_post, _login

pytestmark = pytest.mark.django_db


def test_the_forms_offerings_are_named_with_the_pages_colon_and_a_translated_sample_mark() -> None:
    sample = OfferingFactory(
        slug="teach", name="Teaching cluster", fictional=True, provider=ProviderFactory(name="Acme GPU")
    )
    with translation.override("zh-hans"):
        chinese = dict(RfqForm(workloads=[], offerings=[sample]).fields["offerings"].choices)  # type: ignore[attr-defined]
    assert chinese == {"teach": "Acme GPU：Teaching cluster（虚构示例）"}
    with translation.override("en"):
        english = dict(RfqForm(workloads=[], offerings=[sample]).fields["offerings"].choices)  # type: ignore[attr-defined]
    assert english == {"teach": "Acme GPU: Teaching cluster (fictional sample)"}


def test_the_comparison_and_the_offerings_still_to_answer_use_the_pages_punctuation(
    demo: dict[str, Any],
) -> None:
    third = priced_offering("third-h100", "Third H100", ("third", "Third Cloud"), "3.40")
    third.provider.native_name = "第三云"
    third.provider.save(update_fields=["native_name"])
    buyer = _login("demo-buyer")
    sent = buyer.post(
        "/rfqs/new/",
        {
            "workload": "p:13b",
            "deadline_days": "90",
            "gpus": "64",
            "offerings": ["nebius-h100", "other-h100", "third-h100"],
        },
    )
    assert sent.status_code == 302, sent.content.decode()[:2000]
    rfq = RequestForQuote.objects.get()
    answered = _login("demo-provider").post(f"/rfqs/{rfq.pk}/answer/nebius-h100/", _answer_post())
    assert answered.status_code == 302

    chinese = buyer.get(f"/rfqs/{rfq.pk}/", HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "<td>Nebius：H100 InfiniBand</td>" in chinese
    assert "Other Cloud：Other H100；第三云 · Third Cloud：Third H100" in chinese, chinese
    assert "Nebius: " not in chinese and "Other H100; " not in chinese
    english = buyer.get(f"/rfqs/{rfq.pk}/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "<td>Nebius: H100 InfiniBand</td>" in english
    assert "Other Cloud: Other H100; Third Cloud: Third H100" in english


def test_the_api_names_the_offering_in_english_under_the_same_key(demo: dict[str, Any]) -> None:
    buyer = _login("demo-buyer")
    buyer.post(
        "/rfqs/new/",
        {"workload": "p:13b", "deadline_days": "90", "gpus": "64", "offerings": ["nebius-h100"]},
    )
    rfq = RequestForQuote.objects.get()
    _login("demo-provider").post(f"/rfqs/{rfq.pk}/answer/nebius-h100/", _answer_post())
    body = buyer.get(f"/api/v1/rfqs/{rfq.pk}/").json()
    [row] = body["comparison"]["results"]
    assert row["offering_name"] == "Nebius: H100 InfiniBand"
