"""Issue 19: an upload's parser warnings and summary in the page's language; API and CLI keep English."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from django.test import Client, TestCase
from django.utils import translation
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from benchmarks import services
from benchmarks.models import Upload
from benchmarks.parsers import parse
from benchmarks.selectors import verdict_texts
from benchmarks.services import IncomingFile
from benchmarks.summary_labels import SUMMARY_LABELS
from hardware.messages import Msg
from tests.providers.factories import OfferingFactory, UserFactory

from .verdict_words import english_left

FIXTURES = Path(__file__).parent / "fixtures"
ZH = {"HTTP_ACCEPT_LANGUAGE": "zh-hans"}
EN = {"HTTP_ACCEPT_LANGUAGE": "en"}
FAILED_RUN = FIXTURES / "nccl-inplace-only-wrong.txt"
ENGLISH_WARNING = (
    "run 0 (reduce_scatter, lines 1-20): failed run: non-zero #wrong on 1 measurement, first at line 15; "
    "Out of bounds values: 1"
)


def _upload(path: Path) -> Upload:
    owner = UserFactory()
    with TestCase.captureOnCommitCallbacks(execute=True):
        [outcome] = services.upload_create(
            owner=owner, offering=OfferingFactory(), files=[IncomingFile(path.name, path.read_bytes())]
        )
    outcome.upload.refresh_from_db()
    return outcome.upload


def _page(upload: Upload, language: dict[str, str]) -> str:
    client = Client()
    client.force_login(upload.owner)
    return client.get(f"/benchmarks/{upload.pk}/", **language).content.decode()


def test_every_warning_the_parsers_give_on_the_fixtures_is_a_message_with_its_english_text() -> None:
    paths = [p for p in sorted(FIXTURES.rglob("*")) if p.is_file() and p.suffix not in (".md", ".json")]
    warnings = [w for p in paths for w in parse(p.read_bytes(), p.name).warnings]
    assert len(warnings) > 50
    assert all(isinstance(w, Msg) for w in warnings)
    failed = parse(FAILED_RUN.read_bytes()).warnings
    assert failed == [ENGLISH_WARNING]
    assert json.loads(json.dumps(parse(FAILED_RUN.read_bytes()).as_dict()))["warnings"] == [ENGLISH_WARNING]


def test_every_verdict_on_the_fixtures_says_its_words_in_messages_a_page_can_translate() -> None:
    paths = [p for p in sorted(FIXTURES.rglob("*")) if p.is_file() and p.suffix not in (".md", ".json")]
    checked, english = english_left(paths)
    assert checked > 100
    assert english == []


def test_every_summary_key_of_the_fixtures_has_a_label() -> None:
    paths = [p for p in sorted(FIXTURES.rglob("*")) if p.is_file() and p.suffix not in (".md", ".json")]
    keys = {
        key
        for p in paths
        for key, value in parse(p.read_bytes()).summary.items()
        if not isinstance(value, dict)
        and not (isinstance(value, list) and value and isinstance(value[0], dict))
    }
    assert len(keys) > 90
    assert keys - set(SUMMARY_LABELS) == set()


@pytest.mark.django_db
def test_the_warnings_and_the_failed_run_show_in_chinese_and_stay_english_in_the_api(
    settings: Any, tmp_path: Path
) -> None:
    settings.MEDIA_ROOT = str(tmp_path / "media")
    upload = _upload(FAILED_RUN)
    assert upload.warnings == [ENGLISH_WARNING]
    assert upload.warning_messages[0]["msgid"].startswith("run %(index)s")
    zh = _page(upload, ZH)
    shown = "运行 0（reduce_scatter，第 1-20 行）：运行失败：1 个测量值的 #wrong 不为零，首次出现在第 15 行"
    assert shown in zh
    assert "失败的运行" in zh and "Failed runs" not in zh  # the summary label
    assert ENGLISH_WARNING not in zh
    assert ENGLISH_WARNING in _page(upload, EN)
    token, _ = Token.objects.get_or_create(user=upload.owner)
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    body = api.get(f"/api/v1/uploads/{upload.pk}/", **ZH).json()
    assert body["warnings"] == [ENGLISH_WARNING] and "warning_messages" not in body
    assert body["summary"]["runs"][0]["failure_reason"].startswith("non-zero #wrong on 1 measurement")


@pytest.mark.django_db
def test_a_warning_stored_before_the_messages_is_shown_as_stored(settings: Any, tmp_path: Path) -> None:
    settings.MEDIA_ROOT = str(tmp_path / "media")
    upload = _upload(FAILED_RUN)
    Upload.objects.filter(pk=upload.pk).update(warning_messages=[], warnings=["an old English warning"])
    zh = _page(upload, ZH)
    assert "an old English warning" in zh
    # the failed run's reason in the runs table has no message left either: shown as stored
    assert "non-zero #wrong on 1 measurement" in zh


@pytest.mark.django_db
def test_summary_values_in_the_parsers_words_are_translated(settings: Any, tmp_path: Path) -> None:
    settings.MEDIA_ROOT = str(tmp_path / "media")
    upload = _upload(FIXTURES / "perftest-write-lat.txt")
    zh = _page(upload, ZH)
    assert '<th scope="row">双向</th><td>否</td>' in zh  # bidirectional: False
    assert "False" not in zh and "bidirectional" not in zh
    en = _page(upload, EN)
    assert '<th scope="row">Bidirectional</th><td>no</td>' in en


def test_a_verdict_that_a_condition_holds_or_not_reads_yes_or_no_in_the_page_language() -> None:
    verdict = {"claim": "full NVLink mesh", "expected": True, "measured": False, "verdict": "fail"}
    with translation.override("zh-hans"):
        chinese = verdict_texts(verdict)
    with translation.override("en"):
        english = verdict_texts(verdict)
    assert (chinese["expected"], chinese["measured"]) == ("是", "否")
    assert (english["expected"], english["measured"]) == ("yes", "no")
    assert verdict_texts({"expected": 4, "measured": 3.5}) == {"claim": "", "detail": ""}


@pytest.mark.django_db
def test_a_perftest_file_of_several_tests_lists_each_on_the_page() -> None:
    """The warning points at a line the page shows, "Tests in the file": each test with its figure."""
    path = FIXTURES / "real" / "perftest" / "cx7-ndr-dac-send-bw-mib-send-lat-read-write-gbits-four-tests.txt"
    upload = _upload(path)
    page = _page(upload, EN)
    assert "Tests in the file" in page and "“Tests in the file”" in page
    for test in ("ib_send_bw:", "ib_send_lat:", "ib_read_bw:", "ib_write_bw:"):
        assert test in page, test
    assert "µs typical latency" in page and "Gb/s average" in page
    assert "in `tests`" not in page


@pytest.mark.django_db
def test_a_file_not_recognised_says_why_in_the_page_language_and_in_english_elsewhere() -> None:
    # Huawei's npu-smi table (fixtures/real/unsupported/vendor-smi/): refused, naming the tool
    path = (
        FIXTURES
        / "real/unsupported/vendor-smi/vllm-ascend-issue-npu-smi-2307-8x-910b2-table-no-processes.txt"
    )
    upload = _upload(path)
    assert upload.status == Upload.Status.UNRECOGNISED
    english = upload.errors[0]
    assert english.startswith(f"{path.name}: not recognised: output of another vendor's device tool")
    assert upload.error_messages[0]["msgid"] == "%(label)snot recognised: %(reason)s"
    chinese = _page(upload, ZH)
    assert "无法识别：这是其他厂商设备工具" in chinese and "hccl_test" in chinese
    assert "another vendor" not in chinese
    assert "another vendor&#x27;s device tool" in _page(upload, EN)
    # the CLI and the API keep the English text (a str)
    assert parse(path.read_bytes(), path.name).errors == [english]
