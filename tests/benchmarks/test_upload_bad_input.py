"""Upload input a buyer can get wrong: GPU and node counts beyond any cluster, no file, a repeated file (in
both languages)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from benchmarks.models import Upload
from hardware.gpus import LARGEST_CLUSTER_GPUS
from tests.providers.factories import OfferingFactory, ProviderFactory, UserFactory

pytestmark = pytest.mark.django_db
NCCL_1NODE = (Path(__file__).parent / "fixtures" / "uploads" / "nccl-allreduce-1node.txt").read_bytes()


@pytest.fixture(autouse=True)
def _media(settings: Any, tmp_path: Path) -> None:
    settings.MEDIA_ROOT = str(tmp_path / "media")


@pytest.fixture
def offering() -> Any:
    return OfferingFactory(slug="trial-h100", provider=ProviderFactory(slug="acme", name="Acme"))


def _page_post(client: Client, offering: Any, files: list[Any], **fields: str) -> Any:
    data = {"file": files, "offering": offering.slug, "visibility": "private", **fields}
    return client.post("/benchmarks/upload/", data)


@pytest.mark.parametrize("field", ["nodes", "gpus"])
@pytest.mark.parametrize("value", ["3000000000", "99999999999999999999"])
def test_the_page_refuses_more_gpus_or_nodes_than_any_cluster_has(
    offering: Any, field: str, value: str
) -> None:
    client = Client()
    client.force_login(UserFactory())
    response = _page_post(client, offering, [SimpleUploadedFile("a.txt", NCCL_1NODE)], **{field: value})
    assert response.status_code == 400
    error = response.context["form"].errors[field][0]
    assert f"{LARGEST_CLUSTER_GPUS}" in error.replace(",", "")
    assert "9223372036854775807" not in response.content.decode()
    assert Upload.objects.count() == 0


@pytest.mark.parametrize("field", ["nodes", "gpus"])
def test_the_api_refuses_more_gpus_or_nodes_than_any_cluster_has(offering: Any, field: str) -> None:
    client = APIClient()
    token, _ = Token.objects.get_or_create(user=UserFactory())
    client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    data = {"offering": offering.slug, "file": [SimpleUploadedFile("a.txt", NCCL_1NODE)]}
    data[field] = 3_000_000_000
    response = client.post("/api/v1/uploads/", data, format="multipart")
    assert response.status_code == 400, response.content
    assert field in response.json()["extra"]["fields"]
    assert Upload.objects.count() == 0


def test_the_largest_cluster_is_still_accepted(offering: Any) -> None:
    client = Client()
    client.force_login(UserFactory())
    response = _page_post(
        client, offering, [SimpleUploadedFile("a.txt", NCCL_1NODE)], gpus=str(LARGEST_CLUSTER_GPUS)
    )
    assert response.status_code == 302
    assert Upload.objects.get().gpus == LARGEST_CLUSTER_GPUS


def test_no_file_is_named_in_chinese_on_a_chinese_page(offering: Any) -> None:
    client = Client(HTTP_ACCEPT_LANGUAGE="zh-hans")
    client.force_login(UserFactory())
    response = _page_post(client, offering, [])
    assert response.status_code == 400
    assert response.context["form"].errors["file"] == ["请至少选择一个文件。"]


def test_a_repeated_file_is_announced_in_the_pages_language(offering: Any) -> None:
    client = Client(HTTP_ACCEPT_LANGUAGE="zh-hans")
    client.force_login(UserFactory())
    first = _page_post(client, offering, [SimpleUploadedFile("a.txt", NCCL_1NODE)])
    again = _page_post(client, offering, [SimpleUploadedFile("a.txt", NCCL_1NODE)])
    assert first.status_code == again.status_code == 302
    html = client.get(again["Location"]).content.decode()
    assert "a.txt 已为此产品上传过；现显示先前的上传。" in html
    assert "was already uploaded" not in html


def test_no_file_is_named_beside_a_missing_offering(offering: Any) -> None:
    """With no file and no offering chosen only the offering was named; the file came up on the next try."""
    client = Client()
    client.force_login(UserFactory())
    response = client.post("/benchmarks/upload/", {"visibility": "private"})
    assert response.status_code == 400
    errors = response.context["form"].errors
    assert errors["file"] == ["Choose at least one file."] and "offering" in errors
