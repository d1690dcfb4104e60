"""A quote names its provider and offering with the page's colon: the name kept beside the snapshot in the
quote's own language ("Provider: Offering", "Provider：Offering" for a quote issued in Chinese), the list of
quotes in the reader's language from the snapshot's names, whatever language the quote was issued in."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from django.utils import translation

from quotes import selectors, services
from quotes.models import Quote
from tests.quotes.conftest import make_offering

pytestmark = pytest.mark.django_db


def _issue(buyer: Any, offering: Any, workload: Any, language: str) -> Quote:
    with translation.override(language):
        return services.quote_create_for_offering(
            owner=buyer, offering_slug=offering.slug, workload_id=workload.pk
        )


def test_the_stored_name_is_written_with_the_colon_of_the_quotes_language(
    buyer: Any, offering: Any, workload: Any
) -> None:
    english = _issue(buyer, offering, workload, "en")
    chinese = _issue(buyer, offering, workload, "zh-hans")
    assert english.offering_name == "Acme GPU Cloud: H100 SXM cluster"
    assert chinese.language == "zh-hans"
    assert chinese.offering_name == "Acme GPU Cloud：H100 SXM cluster"


def test_a_quote_issued_in_chinese_names_the_provider_natively_in_its_stored_name(
    buyer: Any, workload: Any
) -> None:
    offering = make_offering(provider_name="Alibaba Cloud", slug="ali-h100")
    offering.provider.native_name = "阿里云"
    offering.provider.save(update_fields=["native_name"])
    assert (
        _issue(buyer, offering, workload, "zh-hans").offering_name
        == "阿里云 · Alibaba Cloud：H100 SXM cluster"
    )
    assert _issue(buyer, offering, workload, "en").offering_name == "Alibaba Cloud: H100 SXM cluster"


def test_the_list_names_the_offering_in_the_readers_language(buyer: Any, workload: Any) -> None:
    offering = make_offering(provider_name="Alibaba Cloud", slug="ali-h100")
    offering.provider.native_name = "阿里云"
    offering.provider.save(update_fields=["native_name"])
    _issue(buyer, offering, workload, "en")
    _issue(buyer, offering, workload, "zh-hans")
    client = Client()
    client.force_login(buyer)
    chinese = client.get("/quotes/", HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert chinese.count("<td>阿里云 · Alibaba Cloud：H100 SXM cluster</td>") == 2, chinese
    assert "Alibaba Cloud: H100" not in chinese
    english = client.get("/quotes/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert english.count("<td>Alibaba Cloud: H100 SXM cluster</td>") == 2, english
    assert "：" not in english and "阿里云" not in english


def test_the_list_reads_the_names_without_loading_the_snapshot(buyer: Any, quote: Quote) -> None:
    [listed] = selectors.quote_list(owner=buyer)
    assert "snapshot" in listed.get_deferred_fields()
    with translation.override("zh-hans"):
        assert listed.shown_offering_name == "Acme GPU Cloud：H100 SXM cluster"
    assert listed.shown_offering_name == "Acme GPU Cloud: H100 SXM cluster"


def test_a_quote_without_the_snapshots_names_shows_its_stored_name(quote: Quote) -> None:
    loaded = Quote.objects.get(pk=quote.pk)  # not through quote_list: no names read from the snapshot
    with translation.override("zh-hans"):
        assert loaded.shown_offering_name == quote.offering_name == "Acme GPU Cloud: H100 SXM cluster"
