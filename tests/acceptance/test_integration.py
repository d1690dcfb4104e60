"""A real worker reads a bundle sent through the API (PostgreSQL + Redis + Celery, queue `parse`)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from acceptance.models import AcceptanceRun
from tests.acceptance.test_bundles import AAC11, mi325x_roce_offering, targz
from tests.benchmarks._shared import require_shared
from tests.providers.factories import UserFactory

pytestmark = [pytest.mark.integration]


@pytest.fixture(autouse=True)
def _media(settings: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The worker is another process: it must read the bundle's blob from the same media directory.
    media = tmp_path / "media"
    settings.MEDIA_ROOT = str(media)
    monkeypatch.setenv("DJANGO_MEDIA_ROOT", str(media))


def test_a_real_worker_reads_a_bundle_from_the_api(celery_worker: Any) -> None:
    offering = mi325x_roce_offering()
    user = UserFactory()
    token, _ = Token.objects.get_or_create(user=user)
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    data = targz({"results/nccl/aac11.txt": (require_shared() / AAC11).read_bytes()})
    response = api.post(
        "/api/v1/acceptance/",
        {"bundle": SimpleUploadedFile("r.tar.gz", data), "offering": offering.slug},
        format="multipart",
    )
    assert response.status_code == 201, response.content
    run_id = response.json()["id"]
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not AcceptanceRun.objects.get(pk=run_id).finished:
        time.sleep(0.3)
    body = api.get(f"/api/v1/acceptance/{run_id}/").json()
    assert body["status"] == "done", body
    assert body["indicators"]["collective_bandwidth"]["busbw_gbps"] == 350.84
    assert body["verdict"] == "incomplete"
