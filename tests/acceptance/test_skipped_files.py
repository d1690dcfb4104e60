"""Why a file of a bundle was skipped: the API keeps the English reason, a page shows it in its own language
(runs stored before the message was included, by their English)."""

from __future__ import annotations

import io
import tarfile
from pathlib import Path
from typing import Any

import pytest
from django.test import Client

from acceptance.models import AcceptanceRun
from tests.acceptance.test_bundles import process
from tests.pages import page_in
from tests.providers.factories import OfferingFactory, UserFactory

pytestmark = pytest.mark.django_db
LIMIT = 1000  # bytes per file, so a small bundle holds a file over it
# (name, the English reason, the Chinese)
SKIPPED = [
    ("../escape.txt", "unsafe path (absolute or '..'): not read", "路径不安全（绝对路径或含“..”）：未读取"),
    ("results/inner.tar.gz", "an archive inside the bundle: unpack it into the folder", "结果包内的归档"),
    ("results/big.log", "0 MiB is above the 0 MiB limit per file", "0 MiB，超过每个文件 0 MiB 的上限"),
    ("results/passwd", "a link or device, not a file: not read", "链接或设备，不是文件：未读取"),
]


@pytest.fixture(autouse=True)
def _media(settings: Any, tmp_path: Path) -> None:
    settings.MEDIA_ROOT = str(tmp_path / "media")
    settings.UPLOAD_MAX_BYTES = LIMIT


def _bundle() -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        link = tarfile.TarInfo("results/passwd")
        link.type, link.linkname = tarfile.SYMTYPE, "/etc/passwd"
        archive.addfile(link)
        files = {
            "../escape.txt": b"x\n",
            "results/inner.tar.gz": b"x\n",
            "results/big.log": b"x" * (LIMIT + 1),
            "results/notes.txt": b"hello\n",
        }
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


@pytest.fixture
def run() -> AcceptanceRun:
    return process(OfferingFactory(), _bundle(), owner=UserFactory())


def _files_table(client: Client, run: AcceptanceRun, language: str) -> str:
    page = page_in(client, run.owner, f"/benchmarks/acceptance/{run.pk}/", language)
    return page.split('id="files"')[1].split("</section>")[0]


def test_a_chinese_page_gives_each_skipped_files_reason_in_chinese(
    client: Client, run: AcceptanceRun
) -> None:
    assert run.status == AcceptanceRun.Status.DONE
    table = _files_table(client, run, "zh-hans")
    assert [chinese for _name, _english, chinese in SKIPPED if chinese not in table] == []
    assert "not read" not in table and "unpack it" not in table and "limit per file" not in table


def test_an_english_page_and_the_api_keep_the_english_reasons(client: Client, run: AcceptanceRun) -> None:
    table = _files_table(client, run, "en").replace("&#x27;", "'")
    assert [english for _name, english, _chinese in SKIPPED if english not in table] == []
    client.cookies["django_language"] = "zh-hans"
    files = client.get(f"/api/v1/acceptance/{run.pk}/").json()["files"]
    skipped = {f["name"]: f["skipped"] for f in files if f.get("skipped")}
    assert skipped == {name: english for name, english, _chinese in SKIPPED}
    assert not any("skipped_message" in f for f in files)  # the API answers as before


def test_a_run_stored_before_the_messages_reads_its_fixed_reasons_in_chinese(
    client: Client, run: AcceptanceRun
) -> None:
    files = [{k: v for k, v in f.items() if k != "skipped_message"} for f in run.files]
    AcceptanceRun.objects.filter(pk=run.pk).update(files=files)
    table = _files_table(client, run, "zh-hans")
    assert "链接或设备，不是文件：未读取" in table and "结果包内的归档" in table
    assert "0 MiB is above the 0 MiB limit per file" in table  # a reason with values: as stored
