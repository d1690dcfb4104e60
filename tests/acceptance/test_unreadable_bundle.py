"""A bundle that turns out unreadable while it is processed (the check on upload passed, or the limits
changed since): the API keeps the reader's English, the report shows the same reason in its own language."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.core.exceptions import ValidationError
from django.test import Client
from django.utils import translation

from acceptance import services
from acceptance.models import AcceptanceRun
from benchmarks import services as uploads
from hardware.messages import Msg
from portal.i18n import translated
from tests.pages import page_in
from tests.providers.factories import OfferingFactory, UserFactory

pytestmark = pytest.mark.django_db
ENGLISH = "not a readable tar.gz, tar or zip archive; pack the results folder with pack.sh"
CHINESE = "不是可读取的 tar.gz、tar 或 zip 归档"


@pytest.fixture
def failed(settings: Any, tmp_path: Path) -> AcceptanceRun:
    settings.MEDIA_ROOT = str(tmp_path / "media")
    run = AcceptanceRun.objects.create(
        owner=UserFactory(),
        offering=OfferingFactory(),
        bundle=uploads.blob_store(data=b"these are not the bytes of an archive\n" * 8),
        bundle_name="results.tar.gz",
    )
    return services.acceptance_process(run_id=run.pk)


def test_the_api_keeps_the_readers_english_and_the_message_is_stored_beside_it(
    client: Client, failed: AcceptanceRun
) -> None:
    assert failed.status == AcceptanceRun.Status.FAILED
    assert failed.error.startswith(ENGLISH)
    assert failed.error_message and failed.error_message["msgid"].startswith(ENGLISH)
    client.force_login(failed.owner)
    client.cookies["django_language"] = "zh-hans"
    assert client.get(f"/api/v1/acceptance/{failed.pk}/").json()["error"] == failed.error


@pytest.mark.parametrize(
    ("language", "sentence", "other"), [("zh-hans", CHINESE, ENGLISH), ("en", ENGLISH, CHINESE)]
)
def test_the_report_gives_the_reason_in_the_pages_language(
    client: Client, failed: AcceptanceRun, language: str, sentence: str, other: str
) -> None:
    page = page_in(client, failed.owner, f"/benchmarks/acceptance/{failed.pk}/", language)
    assert sentence in page and other not in page


def test_a_validation_errors_messages_are_joined_as_its_english_and_plain_text_is_left_as_stored() -> None:
    empty, binary = Msg("%(name)s is empty.", name="a.txt"), Msg("%(name)s looks binary.", name="b.bin")
    exc = ValidationError({"file": [empty, binary]})
    message = services._failure_message(exc)
    assert message is not None
    assert Msg.from_json(message) == "; ".join(exc.messages)  # the same English as the run's `error`
    with translation.override("zh-hans"):
        assert translated(message, "").count("；") == 1  # joined as Chinese joins them
    assert services._failure_message(ValidationError("a.txt is empty.")) is None
