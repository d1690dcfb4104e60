"""CSRF on every form, upload size limits, rate limits, and the one error body of the API."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from rest_framework.test import APIClient

from tests.security.conftest import NCCL_LOG, World

pytestmark = pytest.mark.django_db


@pytest.fixture
def world(world_of_the_module: World) -> World:
    """One World for the module; each test starts from it as built (see module_rows)."""
    return world_of_the_module


def _csrf_client(world: World, role: str | None) -> Client:
    client = Client(enforce_csrf_checks=True)
    if role is not None:
        client.force_login(world.users[role])
    return client


@pytest.mark.parametrize(
    ("form", "role", "url", "data"),
    [
        ("login", None, "/accounts/login/", {"username": "buyer", "password": "pw-for-tests"}),
        ("upload", "buyer", "/benchmarks/upload/", {"offering": "own-h100", "visibility": "private"}),
        ("plan", "buyer", "/plan/", {"preset": "13b"}),
        ("edit", "own_rep", "/offerings/own-h100/edit/", {"max_nodes": "64"}),
    ],
)
def test_a_form_post_without_the_csrf_token_is_refused(
    world: World, form: str, role: str | None, url: str, data: dict[str, Any]
) -> None:
    response = _csrf_client(world, role).post(url, data)
    assert response.status_code == 403, form
    assert b"CSRF" in response.content


def test_the_session_api_needs_the_csrf_token_too(world: World) -> None:
    client = APIClient(enforce_csrf_checks=True)
    client.force_login(world.users["own_rep"])
    response = client.patch("/api/v1/offerings/own-h100/", {"max_nodes": 64}, format="json")
    assert response.status_code == 403 and "CSRF" in response.json()["message"]


def test_an_oversize_upload_is_refused_with_413_and_a_message(world: World, settings: Any) -> None:
    settings.UPLOAD_MAX_BYTES = 1024
    big = SimpleUploadedFile("big.txt", b"x" * 4096, "text/plain")
    response = world.api("buyer").post(
        "/api/v1/uploads/", {"offering": "own-h100", "file": big}, format="multipart"
    )
    assert response.status_code == 413
    assert "limit" in response.json()["message"] and set(response.json()) == {"message", "extra"}
    page = world.pages("buyer").post(
        "/benchmarks/upload/",
        {"offering": "own-h100", "visibility": "private", "file": SimpleUploadedFile("big.txt", b"x" * 4096)},
    )
    assert page.status_code == 400 and b"the limit is" in page.content
    # the page in Chinese says it in Chinese (it was English), binary files and the API likewise
    zh = {"HTTP_ACCEPT_LANGUAGE": "zh-hans"}
    page = world.pages("buyer").post(
        "/benchmarks/upload/",
        {"offering": "own-h100", "visibility": "private", "file": SimpleUploadedFile("big.txt", b"x" * 4096)},
        **zh,
    )
    assert page.status_code == 400
    assert "big.txt 大小为 4.0 KiB；每个文件的上限为 1.0 KiB" in page.content.decode()
    assert "the limit is" not in page.content.decode()
    binary = SimpleUploadedFile("core.bin", b"\x7fELF\x00\x00\x01" * 10, "application/octet-stream")
    response = world.api("buyer").post(
        "/api/v1/uploads/", {"offering": "own-h100", "file": binary}, format="multipart", **zh
    )
    assert "core.bin 看起来是二进制文件" in response.json()["message"], response.json()


def test_a_binary_upload_is_refused(world: World) -> None:
    binary = SimpleUploadedFile("core.bin", b"\x7fELF\x00\x00\x01" * 100, "application/octet-stream")
    response = world.api("buyer").post(
        "/api/v1/uploads/", {"offering": "own-h100", "file": binary}, format="multipart"
    )
    assert response.status_code == 400 and "binary" in response.json()["message"]


def test_failed_logins_are_limited_per_user_name_with_a_clear_429_page(world: World, settings: Any) -> None:
    settings.RATE_LIMIT_LOGIN_FAILURES = 3
    client = Client()
    for _ in range(3):
        response = client.post("/accounts/login/", {"username": "buyer", "password": "wrong"})
        assert response.status_code == 200
    response = client.post("/accounts/login/", {"username": "buyer", "password": "pw-for-tests"})
    assert response.status_code == 429
    assert b"Too many failed log-in attempts" in response.content and int(response["Retry-After"]) > 0
    # Another user name from the same address is not locked out.
    assert (
        client.post("/accounts/login/", {"username": "staff", "password": "pw-for-tests"}).status_code == 302
    )


def test_the_token_endpoint_shares_the_login_limit(world: World, settings: Any) -> None:
    settings.RATE_LIMIT_LOGIN_FAILURES = 2
    client = APIClient()
    assert (
        client.post("/api/v1/auth/token/", {"username": "buyer", "password": "pw-for-tests"}).status_code
        == 200
    )
    for _ in range(2):
        assert client.post("/api/v1/auth/token/", {"username": "buyer", "password": "no"}).status_code == 400
    refused = client.post("/api/v1/auth/token/", {"username": "buyer", "password": "pw-for-tests"})
    assert refused.status_code == 429 and set(refused.json()) == {"message", "extra"}


def test_uploads_are_limited_per_user_on_the_api_and_the_page(world: World, settings: Any) -> None:
    settings.RATE_LIMIT_UPLOADS = 2
    api = world.api("other_buyer")
    for i in range(2):
        content = NCCL_LOG + f"\n# copy {i}\n".encode()
        response = api.post(
            "/api/v1/uploads/",
            {"offering": "own-h100", "file": SimpleUploadedFile(f"{i}.txt", content)},
            format="multipart",
        )
        assert response.status_code in (200, 201), response.content
    refused = api.post(
        "/api/v1/uploads/",
        {"offering": "own-h100", "file": SimpleUploadedFile("3.txt", b"x")},
        format="multipart",
    )
    assert refused.status_code == 429
    assert "Upload limit reached" in refused.json()["message"] and refused["Retry-After"]
    page = world.pages("other_buyer").post("/benchmarks/upload/", {"offering": "own-h100"})
    assert page.status_code == 429 and b"Upload limit reached" in page.content
    # Someone else still may upload.
    other = world.api("buyer").post(
        "/api/v1/uploads/",
        {"offering": "own-h100", "file": SimpleUploadedFile("y.txt", b"x")},
        format="multipart",
    )
    assert other.status_code != 429


@pytest.mark.parametrize(
    ("method", "url", "status"),
    [
        ("get", "/api/v1/no-such-thing/", 404),
        ("get", "/api/v1/offerings/no-such-offering/", 404),
        ("delete", "/api/v1/findings/", 405),
        ("get", "/api/v1/workloads/", 401),
        ("post", "/api/v1/uploads/", 401),
        ("get", "/api/v1/offerings/?min_price=abc", 400),
    ],
)
def test_every_api_error_has_the_one_body(db: Any, method: str, url: str, status: int) -> None:
    response = getattr(Client(), method)(url)
    assert response.status_code == status
    assert response["Content-Type"].startswith("application/json")
    body = response.json()
    assert set(body) == {"message", "extra"} and isinstance(body["message"], str)


def test_an_unhandled_error_in_the_api_is_a_500_without_a_traceback(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    from checks import selectors

    def boom(**kwargs: Any) -> Any:
        raise RuntimeError("secret internals: /etc/passwd")

    monkeypatch.setattr(selectors, "finding_list", boom)
    client = Client(raise_request_exception=False)
    response = client.get("/api/v1/findings/")
    assert response.status_code == 500
    assert response.json()["message"].startswith("Internal server error")
    assert b"secret internals" not in response.content and b"Traceback" not in response.content


def test_the_api_docs_are_served_from_vendored_assets(db: Any) -> None:
    page = Client().get("/api/docs/")
    assert page.status_code == 200
    html = page.content.decode()
    assert "/static/drf_spectacular_sidecar/swagger-ui-dist/" in html
    assert "cdn." not in html and "unpkg" not in html and "jsdelivr" not in html


def test_more_files_than_the_per_request_limit_is_a_400_naming_the_limit(world: World, settings: Any) -> None:
    """Issue 20 item 5: 101 files gave a 500 TooManyFilesSent."""
    files = [SimpleUploadedFile(f"{i}.txt", NCCL_LOG + f"\n# {i}\n".encode()) for i in range(101)]
    response = world.api("buyer").post(
        "/api/v1/uploads/", {"offering": "own-h100", "file": files}, format="multipart"
    )
    assert response.status_code == 400, response.content
    body = response.json()
    limit = settings.UPLOAD_MAX_FILES_PER_REQUEST
    assert (
        body["message"]
        == f"file: at most {limit} files per upload; 101 were sent. Send them in several uploads."
    )
    page_files = [SimpleUploadedFile(f"{i}.txt", b"x") for i in range(limit + 1)]
    page = world.pages("buyer").post("/benchmarks/upload/", {"offering": "own-h100", "file": page_files})
    assert page.status_code == 400 and f"at most {limit} files per upload".encode() in page.content


def test_beyond_djangos_own_file_cap_the_api_still_answers_400(world: World, settings: Any) -> None:
    settings.DATA_UPLOAD_MAX_NUMBER_FILES = 3
    files = [SimpleUploadedFile(f"{i}.txt", b"x") for i in range(5)]
    response = world.api("buyer").post(
        "/api/v1/uploads/", {"offering": "own-h100", "file": files}, format="multipart"
    )
    assert response.status_code == 400, response.content
    assert "files per upload" in response.json()["message"]


def test_uploads_are_limited_in_files_and_bytes_per_window(world: World, settings: Any) -> None:
    settings.RATE_LIMIT_UPLOAD_FILES = 3
    settings.RATE_LIMIT_UPLOAD_BYTES = 10 * 1024 * 1024
    api = world.api("other_buyer")

    def post(*contents: bytes) -> Any:
        files = [SimpleUploadedFile(f"{i}.txt", c) for i, c in enumerate(contents)]
        return api.post("/api/v1/uploads/", {"offering": "own-h100", "file": files}, format="multipart")

    assert post(NCCL_LOG + b"\n# a\n", NCCL_LOG + b"\n# b\n").status_code == 201
    refused = post(NCCL_LOG + b"\n# c\n", NCCL_LOG + b"\n# d\n")  # 4 files in the window
    assert refused.status_code == 429
    assert refused.json()["message"].startswith("Upload limit reached: at most 3 files per 10 minutes.")
    assert refused["Retry-After"]
    assert post(NCCL_LOG + b"\n# e\n").status_code == 201  # the refused files were not counted
    settings.RATE_LIMIT_UPLOAD_FILES = 100
    settings.RATE_LIMIT_UPLOAD_BYTES = 1024
    too_much = post(b"y" * 2048)
    assert too_much.status_code == 429 and "at most 0 MiB" not in too_much.json()["message"]


def test_uploaded_files_spool_to_disk_above_a_small_size() -> None:
    from django.conf import settings

    assert settings.FILE_UPLOAD_MAX_MEMORY_SIZE <= 256 * 1024
    assert settings.DATA_UPLOAD_MAX_NUMBER_FILES > settings.UPLOAD_MAX_FILES_PER_REQUEST


def test_the_files_of_one_request_are_limited_in_total_size(world: World, settings: Any) -> None:
    settings.UPLOAD_MAX_REQUEST_BYTES = 3000
    files = [SimpleUploadedFile(f"{i}.txt", b"z" * 2000) for i in range(2)]
    response = world.api("buyer").post(
        "/api/v1/uploads/", {"offering": "own-h100", "file": files}, format="multipart"
    )
    assert response.status_code == 413, response.content
    assert response.json()["message"].startswith(
        "the files of one upload total 3.9 KiB; the limit is 2.9 KiB"
    )
