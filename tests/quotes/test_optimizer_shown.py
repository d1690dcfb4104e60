"""A quote names the optimizer-state convention its workload stated (the memory and the layout it prices were
sized under it), by the planner's short name with its bytes per parameter, on the page and in the PDF, in the
quote's language; a workload that stated none gets no such row (the sizing took the GPU's default and says so
among its assumptions)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client
from django.utils import translation

from quotes import services
from sizing import services as sizing_services
from tests.quotes.helpers import pdf_bytes, pdf_text

pytestmark = pytest.mark.django_db

SHOWN = {
    "en": ("Optimizer", "Muon, bf16 gradients · 12 bytes per parameter"),
    "zh-hans": ("优化器", "Muon，bf16 梯度 · 每个参数 12 字节"),
}


@pytest.mark.parametrize("language", sorted(SHOWN))
def test_a_stated_optimizer_is_on_the_quote_page_and_its_pdf(
    buyer: Any, offering: Any, language: str
) -> None:
    workload = sizing_services.workload_create(
        owner=buyer, preset="13b", train_tokens=3e11, optimizer="muon-bf16-grads"
    )
    with translation.override(language):
        quote = services.quote_create_for_offering(
            owner=buyer, offering_slug=offering.slug, workload_id=workload.pk
        )
    assert quote.snapshot["workload"]["optimizer"] == "muon-bf16-grads"
    label, words = SHOWN[language]
    client = Client()
    client.force_login(buyer)
    page = client.get(f"/quotes/{quote.pk}/", HTTP_ACCEPT_LANGUAGE=language).content.decode()
    assert f'<th>{label}</th><td class="wrap">{words}</td>' in page
    services.quote_pdf_render(quote_id=quote.pk)
    quote.refresh_from_db()
    # the PDF's text as extracted breaks lines and may drop the middle dot: compared without either
    assert _bare(words) in _bare(pdf_text(pdf_bytes(quote)))


def _bare(text: str) -> str:
    return re.sub(r"[\s·]+", "", text)


def test_a_quote_whose_workload_stated_none_has_no_optimizer_row(buyer: Any, quote: Any) -> None:
    assert quote.snapshot["workload"]["optimizer"] is None
    client = Client()
    client.force_login(buyer)
    page = client.get(f"/quotes/{quote.pk}/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "<th>Optimizer</th>" not in page and "bytes per parameter</td>" not in page
    # the default the sizing took is among its assumptions
    assert "optimizer-state convention not given" in page
