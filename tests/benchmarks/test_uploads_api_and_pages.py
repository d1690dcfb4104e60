"""Uploads over the API and the pages: shapes, limits, and who may see what."""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import zipfile
from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from benchmarks.models import Blob, Upload
from tests.providers.factories import OfferingFactory, ProviderFactory, UserFactory

pytestmark = pytest.mark.django_db
FIXTURES = Path(__file__).parent / "fixtures" / "uploads"
NCCL_1NODE = (FIXTURES / "nccl-allreduce-1node.txt").read_bytes()


@pytest.fixture(autouse=True)
def _media(settings: Any, tmp_path: Path) -> None:
    settings.MEDIA_ROOT = str(tmp_path / "media")


@pytest.fixture
def offering() -> Any:
    return OfferingFactory(slug="trial-h100", provider=ProviderFactory(slug="acme", name="Acme"))


def _api(user: Any = None) -> APIClient:
    client = APIClient()
    if user is not None:
        token, _ = Token.objects.get_or_create(user=user)
        client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    return client


def _post(client: APIClient, offering: Any, *files: tuple[str, bytes], **fields: Any) -> Any:
    data: dict[str, Any] = {"offering": offering.slug, **fields}
    data["file"] = [SimpleUploadedFile(name, content, "text/plain") for name, content in files]
    return client.post("/api/v1/uploads/", data, format="multipart")


def _upload(client: APIClient, offering: Any, name: str, content: bytes, **fields: Any) -> dict[str, Any]:
    with TestCaseHooks.on_commit():
        response = _post(client, offering, (name, content), **fields)
    assert response.status_code == 201, response.content
    return dict(response.json())


class TestCaseHooks:
    @staticmethod
    def on_commit() -> Any:
        from django.test import TestCase

        return TestCase.captureOnCommitCallbacks(execute=True)


def test_post_returns_the_documented_shape_and_parses(offering: Any) -> None:
    body = _upload(_api(UserFactory()), offering, "allreduce.txt", NCCL_1NODE, nodes=1, visibility="public")
    for key in ("id", "status", "kind", "summary", "duplicate", "sha256", "verdicts", "url", "uploads"):
        assert key in body
    upload = Upload.objects.get(pk=body["id"])
    assert upload.visibility == "public" and upload.nodes == 1
    # The response may be taken before the parser ran on a real worker; the detail shows the outcome.
    detail = _api().get(f"/api/v1/uploads/{body['id']}/").json()
    assert detail["status"] == "parsed" and detail["kind"] == "nccl-tests"
    assert detail["summary"]["runs"][0]["collective"] == "all_reduce"
    assert detail["url"] == f"/benchmarks/{body['id']}/"


def test_posting_the_same_file_again_returns_the_existing_upload(offering: Any) -> None:
    client = _api(UserFactory())
    first = _upload(client, offering, "a.txt", NCCL_1NODE)
    response = _post(client, offering, ("b.txt", NCCL_1NODE))
    assert response.status_code == 200
    assert response.json()["duplicate"] is True and response.json()["id"] == first["id"]
    assert Upload.objects.count() == 1


def test_several_files_in_one_post_share_a_batch(offering: Any) -> None:
    with TestCaseHooks.on_commit():
        response = _post(_api(UserFactory()), offering, ("a.txt", NCCL_1NODE), ("b.txt", b"hello\n"))
    assert response.status_code == 201
    uploads = response.json()["uploads"]
    assert len(uploads) == 2 and uploads[0]["batch"] == uploads[1]["batch"]


def test_a_too_large_file_gets_413_and_nothing_is_stored(offering: Any, settings: Any) -> None:
    settings.UPLOAD_MAX_BYTES = 100
    response = _post(_api(UserFactory()), offering, ("big.txt", b"x" * 101))
    assert response.status_code == 413
    assert "limit" in response.json()["message"] and response.json()["extra"] == {}
    assert Upload.objects.count() == 0 and Blob.objects.count() == 0


def test_a_binary_file_gets_400_with_a_message(offering: Any) -> None:
    response = _post(_api(UserFactory()), offering, ("x.bin", b"\x00\x01\x02binary"))
    assert response.status_code == 400
    assert "binary" in response.json()["message"]
    assert Upload.objects.count() == 0


@pytest.mark.parametrize(
    ("name", "pack", "format_name"),
    [
        ("nccl.log.gz", lambda data: gzip.compress(data), "gzip"),
        ("logs.zip", lambda data: _zip(data), "zip"),
        ("nccl.log.xz", lambda data: lzma.compress(data), "xz"),
        ("nccl.log.bz2", lambda data: bz2.compress(data), "bzip2"),
    ],
)
def test_a_compressed_log_is_refused_saying_what_it_is_and_where_archives_go(
    offering: Any, name: str, pack: Any, format_name: str
) -> None:
    data = pack(b"#  Rank  0 Group  0 Pid 1 on node device 0 [0x1b] NVIDIA H100 80GB HBM3\n" * 40)
    response = _post(_api(UserFactory()), offering, (name, data))
    assert response.status_code == 400
    message = response.json()["message"]
    assert f"{name} is a compressed file ({format_name})" in message and "acceptance-test page" in message
    zh = APIClient()
    token, _ = Token.objects.get_or_create(user=UserFactory())
    zh.credentials(HTTP_AUTHORIZATION=f"Token {token.key}", HTTP_ACCEPT_LANGUAGE="zh-hans")
    message_zh = _post(zh, offering, (name, data)).json()["message"]
    assert f"{name} 是压缩文件（{format_name}）" in message_zh and "验收测试页面" in message_zh
    assert Upload.objects.count() == 0 and Blob.objects.count() == 0


def _zip(data: bytes) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("nccl.log", data)
    return buffer.getvalue()


def test_bad_input_is_named_per_field(offering: Any) -> None:
    client = _api(UserFactory())
    response = client.post("/api/v1/uploads/", {"offering": "nope"}, format="multipart")
    assert response.status_code == 400
    assert set(response.json()["extra"]["fields"]) >= {"file", "offering"}
    response = _post(client, offering, ("a.txt", NCCL_1NODE), nodes=0)
    assert response.status_code == 400 and "nodes" in response.json()["extra"]["fields"]


def test_anonymous_users_cannot_upload(offering: Any) -> None:
    response = _post(_api(), offering, ("a.txt", NCCL_1NODE))
    assert response.status_code in (401, 403)
    assert "message" in response.json()


@pytest.fixture
def matrix(offering: Any) -> dict[str, Any]:
    owner = UserFactory(username="owner")
    private = _upload(_api(owner), offering, "private.txt", NCCL_1NODE)
    public = _upload(_api(owner), offering, "public.txt", NCCL_1NODE + b"\n", visibility="public")
    return {
        "owner": owner,
        "private": private["id"],
        "public": public["id"],
        "buyer": UserFactory(username="other-buyer"),
        "rep": UserFactory(username="rep", role="provider", provider=offering.provider),
        "staff": UserFactory(username="staff", role="staff"),
    }


@pytest.mark.parametrize(
    ("who", "sees_private"),
    [("owner", True), ("staff", True), ("buyer", False), ("rep", False), ("anonymous", False)],
)
def test_visibility_matrix_in_the_api(matrix: dict[str, Any], who: str, sees_private: bool) -> None:
    client = _api(None if who == "anonymous" else matrix[who])
    listed = {u["id"] for u in client.get("/api/v1/uploads/").json()["results"]}
    assert matrix["public"] in listed
    assert (matrix["private"] in listed) is sees_private
    for upload_id, visible in ((matrix["public"], True), (matrix["private"], sees_private)):
        detail = client.get(f"/api/v1/uploads/{upload_id}/")
        raw = client.get(f"/api/v1/uploads/{upload_id}/raw")
        assert detail.status_code == (200 if visible else 404)
        assert raw.status_code == (200 if visible else 404)
        if not visible:
            assert set(detail.json()) == {"message", "extra"}


@pytest.mark.parametrize(("who", "sees_private"), [("owner", True), ("buyer", False), ("anonymous", False)])
def test_visibility_matrix_in_the_pages(matrix: dict[str, Any], who: str, sees_private: bool) -> None:
    client = Client()
    if who != "anonymous":
        client.force_login(matrix[who])
    assert client.get(f"/benchmarks/{matrix['public']}/").status_code == 200
    assert client.get(f"/benchmarks/{matrix['private']}/").status_code == (200 if sees_private else 404)
    assert client.get(f"/benchmarks/{matrix['private']}/status/").status_code == (
        200 if sees_private else 404
    )


def test_raw_download_returns_the_original_bytes(matrix: dict[str, Any]) -> None:
    response = _api(matrix["owner"]).get(f"/api/v1/uploads/{matrix['private']}/raw")
    assert b"".join(response.streaming_content) == NCCL_1NODE
    assert 'filename="private.txt"' in response["Content-Disposition"]


def test_the_list_filters_by_offering(matrix: dict[str, Any]) -> None:
    OfferingFactory(slug="other")
    client = _api(matrix["owner"])
    assert client.get("/api/v1/uploads/?offering=trial-h100").json()["count"] == 2
    assert client.get("/api/v1/uploads/?offering=other").json()["count"] == 0


def test_the_upload_page_requires_login() -> None:
    response = Client().get("/benchmarks/upload/")
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]


def test_the_upload_page_stores_and_redirects_to_the_result(offering: Any) -> None:
    client = Client(enforce_csrf_checks=True)
    client.force_login(UserFactory())
    page = client.get("/benchmarks/upload/")
    assert b"multiple" in page.content and b"csrfmiddlewaretoken" in page.content
    token = page.cookies["csrftoken"].value
    with TestCaseHooks.on_commit():
        response = client.post(
            "/benchmarks/upload/",
            {
                "csrfmiddlewaretoken": token,
                "file": [SimpleUploadedFile("allreduce.txt", NCCL_1NODE)],
                "offering": offering.slug,
                "nodes": "1",
                "visibility": "private",
            },
        )
    upload = Upload.objects.get()
    assert response.status_code == 302 and response["Location"] == f"/benchmarks/{upload.pk}/"
    result = client.get(response["Location"])
    html = result.content.decode()
    assert "nccl-tests" in html and "Claims checked" in html
    assert 'id="busbw-data"' in html and "vendor/plotly.min.js" in html
    assert "every 1s" not in html  # finished: no polling


def test_the_upload_page_names_errors_per_field(offering: Any, settings: Any) -> None:
    settings.UPLOAD_MAX_BYTES = 100
    client = Client()
    client.force_login(UserFactory())
    response = client.post(
        "/benchmarks/upload/",
        {"file": [SimpleUploadedFile("big.txt", b"x" * 200)], "offering": offering.slug, "nodes": "0"},
    )
    assert response.status_code == 400
    errors = response.context["form"].errors
    assert "nodes" in errors
    response = client.post(
        "/benchmarks/upload/",
        {
            "file": [SimpleUploadedFile("big.txt", b"x" * 200)],
            "offering": offering.slug,
            "visibility": "public",
        },
    )
    assert response.status_code == 400
    assert "limit" in response.context["form"].errors["file"][0]
    assert Upload.objects.count() == 0


def test_several_files_on_the_page_lead_to_the_batch_page(offering: Any) -> None:
    client = Client()
    client.force_login(UserFactory())
    with TestCaseHooks.on_commit():
        response = client.post(
            "/benchmarks/upload/",
            {
                "file": [SimpleUploadedFile("a.txt", NCCL_1NODE), SimpleUploadedFile("b.txt", b"hello\n")],
                "offering": offering.slug,
                "visibility": "private",
            },
        )
    assert response.status_code == 302 and "/benchmarks/batch/" in response["Location"]
    html = client.get(response["Location"]).content.decode()
    assert "a.txt" in html and "b.txt" in html and "Not recognised" in html


def test_a_page_still_parsing_polls_its_status_fragment(matrix: dict[str, Any]) -> None:
    Upload.objects.filter(pk=matrix["private"]).update(status="stored")
    client = Client()
    client.force_login(matrix["owner"])
    html = client.get(f"/benchmarks/{matrix['private']}/").content.decode()
    assert 'hx-trigger="every 1s"' in html and f"/benchmarks/{matrix['private']}/status/" in html
    fragment = client.get(f"/benchmarks/{matrix['private']}/status/", HTTP_HX_REQUEST="true")
    assert "HX-Refresh" not in fragment
    Upload.objects.filter(pk=matrix["private"]).update(status="parsed")
    fragment = client.get(f"/benchmarks/{matrix['private']}/status/", HTTP_HX_REQUEST="true")
    assert fragment["HX-Refresh"] == "true" and "every 1s" not in fragment.content.decode()


def test_the_offering_page_shows_verified_claims_by_whom_and_when(offering: Any) -> None:
    a100 = OfferingFactory(slug="trial-a100", gpu__key="A100-SXM-40GB", gpu__nvlink_gbytes_per_s=300.0)
    page = Client().get(f"/offerings/{a100.slug}/").content.decode()
    assert "No public evidence backs these claims yet" in page
    uploader = UserFactory(username="trial-engineer")
    _upload(
        _api(uploader),
        a100,
        "allreduce.txt",
        NCCL_1NODE,
        nodes=1,
        visibility="public",
        measured_on="2026-11-30",
    )
    page = Client().get(f"/offerings/{a100.slug}/").content.decode()
    section = page[page.index('id="verified"') : page.index('class="factgroups"')]
    assert "intra-node bandwidth" in section and "trial-engineer" in section and "2026-11-30" in section
    # a private upload verifies nothing in public
    _upload(_api(uploader), offering, "private.txt", NCCL_1NODE, nodes=1, visibility="private")
    assert "trial-engineer" not in Client().get(f"/offerings/{offering.slug}/").content.decode()


def test_a_training_log_is_named_by_its_framework_on_the_page_and_by_its_code_in_the_api(
    offering: Any,
) -> None:
    """The upload page says what a file was recognised as in words ("Megatron-LM training log", translated)
    and which lines the figures come from; the API keeps the kind code."""
    log = (FIXTURES.parent / "megatron-stall-skipped.txt").read_bytes()
    user = UserFactory()
    body = _upload(_api(user), offering, "train.log", log, visibility="public")
    detail = _api().get(f"/api/v1/uploads/{body['id']}/").json()
    assert detail["kind"] == "megatron" and detail["summary"]["source_format"] == "megatron"
    client = Client()
    client.force_login(user)
    page = client.get(f"/benchmarks/{body['id']}/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert '<strong id="kind">Megatron-LM training log</strong>' in page
    assert "Megatron-LM iteration lines" in page
    chinese = client.get(f"/benchmarks/{body['id']}/", HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert '<strong id="kind">Megatron-LM 训练日志</strong>' in chinese


def test_a_run_that_cannot_be_judged_shows_no_expected_value_not_not_published(offering: Any) -> None:
    # The A100 log under this H100 offering is not judged against its links: its expected cell was "not
    # published", which the footer defines as "no public source states it" (a claim the offering does publish)
    owner = UserFactory(username="viewer")
    body = _upload(_api(owner), offering, "a100.txt", NCCL_1NODE)
    client = Client()
    client.force_login(owner)
    html = client.get(f"/benchmarks/{body['id']}/").content.decode()
    rows = [r for r in html.split("<tr") if "all_reduce busbw" in r]
    assert rows and ("cannot-measure" in rows[0] or "cannot be judged" in rows[0])
    assert "not published" not in rows[0] and ">—</td>" in rows[0]
