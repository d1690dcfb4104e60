"""A bundle whose reading hits a bug: the API keeps the English that names the exception, a page shows a
sentence in its own language (never the exception's names), runs stored before the message was included."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.test import Client

from acceptance import services
from acceptance.models import AcceptanceRun
from tests.acceptance.test_bundles import process, targz
from tests.pages import page_in
from tests.providers.factories import OfferingFactory, UserFactory

pytestmark = pytest.mark.django_db
ENGLISH = "This bundle could not be read because of an error on our side"
CHINESE = "由于我们这边的错误，无法读取此结果包"


@pytest.fixture(autouse=True)
def _media(settings: Any, tmp_path: Path) -> None:
    settings.MEDIA_ROOT = str(tmp_path / "media")


@pytest.fixture
def failed(monkeypatch: pytest.MonkeyPatch) -> AcceptanceRun:
    def broken(*args: Any) -> Any:
        raise KeyError("collective_bandwidth")

    monkeypatch.setattr(services, "build_report", broken)
    return process(OfferingFactory(), targz({"results/notes.txt": b"hello\n"}), owner=UserFactory())


def _report(client: Client, run: AcceptanceRun, language: str) -> str:
    return page_in(client, run.owner, f"/benchmarks/acceptance/{run.pk}/", language)


def test_a_bug_keeps_its_english_for_the_api_and_stores_the_pages_message(
    client: Client, failed: AcceptanceRun
) -> None:
    assert failed.status == AcceptanceRun.Status.FAILED
    assert failed.error == "internal error while reading the bundle: KeyError: 'collective_bandwidth'"
    assert failed.error_message and failed.error_message["msgid"].startswith(ENGLISH)
    client.force_login(failed.owner)
    client.cookies["django_language"] = "zh-hans"
    body = client.get(f"/api/v1/acceptance/{failed.pk}/").json()
    assert body["error"] == failed.error  # the API as before, whatever the language


def test_the_report_shows_the_bug_in_chinese_on_a_chinese_page(client: Client, failed: AcceptanceRun) -> None:
    page = _report(client, failed, "zh-hans")
    assert CHINESE in page
    assert "internal error" not in page and "KeyError" not in page and "collective_bandwidth" not in page


def test_the_report_shows_the_bug_in_words_on_an_english_page(client: Client, failed: AcceptanceRun) -> None:
    page = _report(client, failed, "en")
    assert ENGLISH in page and CHINESE not in page
    assert "KeyError" not in page and "collective_bandwidth" not in page


def test_a_bug_stored_before_the_message_reads_in_chinese_too(client: Client, failed: AcceptanceRun) -> None:
    AcceptanceRun.objects.filter(pk=failed.pk).update(error_message=None)  # a row from before
    failed.refresh_from_db()
    assert CHINESE in _report(client, failed, "zh-hans")
    assert ENGLISH in _report(client, failed, "en")


def test_another_failure_stored_without_a_message_is_shown_as_stored(
    client: Client, failed: AcceptanceRun
) -> None:
    AcceptanceRun.objects.filter(pk=failed.pk).update(error="the file is empty.", error_message=None)
    failed.refresh_from_db()
    assert "the file is empty." in _report(client, failed, "en")
