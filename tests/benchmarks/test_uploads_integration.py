"""A real worker parses uploads sent through the API and the page (PostgreSQL + Redis + Celery)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from benchmarks.models import Upload
from tests.providers.factories import OfferingFactory, UserFactory

pytestmark = [pytest.mark.integration]
FIXTURES = Path(__file__).parent / "fixtures" / "uploads"


@pytest.fixture(autouse=True)
def _media(settings: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The worker is another process: it must read the blobs from the same media directory.
    media = tmp_path / "media"
    settings.MEDIA_ROOT = str(media)
    monkeypatch.setenv("DJANGO_MEDIA_ROOT", str(media))


def _wait_finished(upload_id: int, timeout: float = 30) -> Upload:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        upload = Upload.objects.get(pk=upload_id)
        if upload.finished:
            return upload
        time.sleep(0.2)
    raise AssertionError(
        f"upload {upload_id} still {Upload.objects.get(pk=upload_id).status} after {timeout}s"
    )


def test_a_real_worker_parses_uploads_from_the_api_and_the_page(celery_worker: Any) -> None:
    offering = OfferingFactory()
    user = UserFactory()
    token, _ = Token.objects.get_or_create(user=user)
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    data = (FIXTURES / "nccl-10node-1gpu.txt").read_bytes()
    response = api.post(
        "/api/v1/uploads/",
        {"file": SimpleUploadedFile("10node.txt", data), "offering": offering.slug},
        format="multipart",
    )
    assert response.status_code == 201, response.content
    upload = _wait_finished(response.json()["id"])
    assert (upload.status, upload.kind) == ("parsed", "nccl-tests")
    assert any(v["verdict"] == "pass" for v in upload.verdicts)

    page = Client()
    page.force_login(user)
    response = page.post(
        "/benchmarks/upload/",
        {
            "file": [SimpleUploadedFile("1node.txt", (FIXTURES / "nccl-allreduce-1node.txt").read_bytes())],
            "offering": offering.slug,
            "visibility": "private",
        },
    )
    assert response.status_code == 302
    upload_id = int(response["Location"].strip("/").split("/")[-1])
    upload = _wait_finished(upload_id)
    assert (upload.status, upload.kind) == ("parsed", "nccl-tests")
    assert "Claims checked" in page.get(response["Location"]).content.decode()
    assert celery_worker.poll() is None
