"""An upload whose parse hits a bug: the API keeps the English that names the exception, a page shows a
sentence in its own language (never the exception's names), uploads stored before the message was included."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.test import Client

from benchmarks import compare as verdicts
from benchmarks.models import Upload
from tests.benchmarks.test_warning_messages import _upload
from tests.pages import page_in

pytestmark = pytest.mark.django_db
FIXTURE = Path(__file__).parent / "fixtures" / "nccl-inplace-only-wrong.txt"
ENGLISH = "This file could not be read because of an error on our side"
CHINESE = "由于我们这边的错误，无法读取此文件"


def _broken(*args: Any) -> Any:
    raise KeyError("busbw_oop")


@pytest.fixture
def failed(monkeypatch: pytest.MonkeyPatch, settings: Any, tmp_path: Path) -> Upload:
    settings.MEDIA_ROOT = str(tmp_path / "media")
    monkeypatch.setattr(verdicts, "compare", _broken)  # after the parse: the parser's own errors are kept
    return _upload(FIXTURE)


def test_a_bug_keeps_its_english_for_the_api_and_stores_the_pages_message(
    client: Client, failed: Upload
) -> None:
    assert failed.status == Upload.Status.FAILED
    assert failed.errors[-1] == "internal error while parsing: KeyError: 'busbw_oop'"
    assert len(failed.error_messages) == len(failed.errors)
    assert failed.error_messages[-1]["msgid"].startswith(ENGLISH)
    client.force_login(failed.owner)
    client.cookies["django_language"] = "zh-hans"
    body = client.get(f"/api/v1/uploads/{failed.pk}/").json()
    assert body["errors"] == failed.errors  # the API as before, whatever the language
    assert "error_messages" not in body


def _page(client: Client, upload: Upload, language: str) -> str:
    return page_in(client, upload.owner, f"/benchmarks/{upload.pk}/", language)


@pytest.mark.parametrize("stored_before_the_message", [False, True])
@pytest.mark.parametrize(
    ("language", "sentence", "other"), [("zh-hans", CHINESE, ENGLISH), ("en", ENGLISH, CHINESE)]
)
def test_the_page_shows_the_bug_in_its_language_without_the_exception(
    client: Client, failed: Upload, stored_before_the_message: bool, language: str, sentence: str, other: str
) -> None:
    if stored_before_the_message:  # a row from before the messages: none stored at all
        Upload.objects.filter(pk=failed.pk).update(error_messages=[])
        failed.refresh_from_db()
    page = _page(client, failed, language)
    assert sentence in page and other not in page
    assert "internal error" not in page and "KeyError" not in page and "busbw_oop" not in page


def test_another_error_stored_without_a_message_is_shown_as_stored(client: Client, failed: Upload) -> None:
    Upload.objects.filter(pk=failed.pk).update(errors=["the log ends before its table."], error_messages=[])
    failed.refresh_from_db()
    assert "the log ends before its table." in _page(client, failed, "en")
