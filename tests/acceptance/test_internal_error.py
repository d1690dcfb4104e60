"""A bundle whose reading hits a bug: the API keeps the English that names the exception, a page shows a
sentence in its own language (never the exception's names), runs stored before the message was included."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client, TestCase

from acceptance import services
from acceptance.models import INTERNAL_ERROR, AcceptanceRun
from acceptance.report import build_report
from tests.acceptance.test_bundles import process, targz
from tests.pages import page_in
from tests.providers.factories import OfferingFactory, UserFactory

pytestmark = pytest.mark.django_db
ENGLISH = "This bundle could not be read because of an error on our side"
CHINESE = "由于我们这边的错误，无法读取此结果包"
AGAIN = ("Upload the same file again later: it is read afresh as a new report", "请稍后重新上传同一文件")
BUNDLE = {"results/notes.txt": b"hello\n"}


@pytest.fixture(autouse=True)
def _media(settings: Any, tmp_path: Path) -> None:
    settings.MEDIA_ROOT = str(tmp_path / "media")


@pytest.fixture
def failed(monkeypatch: pytest.MonkeyPatch) -> AcceptanceRun:
    def broken(*args: Any) -> Any:
        raise KeyError("collective_bandwidth")

    monkeypatch.setattr(services, "build_report", broken)
    return process(OfferingFactory(), targz(BUNDLE), owner=UserFactory())


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


def _upload_again(client: Client, failed: AcceptanceRun) -> Any:
    """The bundle form posted with the failed run's bundle, its processing run as the worker would."""
    client.force_login(failed.owner)
    sent = {"offering": failed.offering.slug, "visibility": "private", "bundle": targz(BUNDLE)}
    sent["bundle"] = SimpleUploadedFile("b.tar.gz", sent["bundle"])
    with TestCase.captureOnCommitCallbacks(execute=True):
        return client.post("/benchmarks/acceptance/bundle/", sent)


def test_the_advice_says_a_new_upload_is_read_afresh(client: Client, failed: AcceptanceRun) -> None:
    assert AGAIN[0] in _report(client, failed, "en")
    assert AGAIN[1] in _report(client, failed, "zh-hans")


def test_the_same_bundle_uploaded_again_is_read_afresh_and_the_failed_run_links_to_it(
    client: Client, failed: AcceptanceRun, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(services, "build_report", build_report)  # the bug is fixed
    response = _upload_again(client, failed)
    again = AcceptanceRun.objects.exclude(pk=failed.pk).get()
    assert response.status_code == 302 and response["Location"] == again.get_absolute_url()
    assert again.status == AcceptanceRun.Status.DONE and again.bundle_id == failed.bundle_id
    kept = AcceptanceRun.objects.get(pk=failed.pk)  # the failed run stays as it was, its error with it
    assert (kept.status, kept.error) == (AcceptanceRun.Status.FAILED, failed.error)
    link = f'href="{again.get_absolute_url()}"'
    english, chinese = _report(client, failed, "en"), _report(client, failed, "zh-hans")
    assert link in english and "This bundle was uploaded again" in english
    assert link in chinese and "此结果包已重新上传" in chinese
    assert 'id="uploaded-again"' not in _report(client, again, "en")


def test_another_users_upload_of_the_same_bytes_is_not_linked(client: Client, failed: AcceptanceRun) -> None:
    # public, so the viewer may see it: only the owner filter keeps it from being linked
    process(failed.offering, targz(BUNDLE), owner=UserFactory(), visibility="public")
    assert 'id="uploaded-again"' not in _report(client, failed, "en")


def test_a_bug_stored_with_the_earlier_wording_reads_as_today(client: Client, failed: AcceptanceRun) -> None:
    earlier = (
        "This bundle could not be read because of an error on our side; it has been logged for the team. "
        "Upload the bundle again later."
    )
    AcceptanceRun.objects.filter(pk=failed.pk).update(error_message={"msgid": earlier, "params": {}})
    assert AGAIN[1] in _report(client, failed, "zh-hans") and earlier not in _report(client, failed, "en")
    assert INTERNAL_ERROR.startswith(ENGLISH)
