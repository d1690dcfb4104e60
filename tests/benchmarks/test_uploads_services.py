"""Storing evidence: raw bytes first and once, duplicates recognised, limits enforced, parsing idempotent."""

from __future__ import annotations

import hashlib
from datetime import timedelta
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from django.core.exceptions import ValidationError
from django.core.files.storage import default_storage
from django.test import TestCase
from django.utils import timezone

from benchmarks import selectors, services
from benchmarks.models import Blob, Upload
from benchmarks.services import IncomingFile
from tests.providers.factories import GPUModelFactory, OfferingFactory, UserFactory

pytestmark = pytest.mark.django_db
FIXTURES = Path(__file__).parent / "fixtures" / "uploads"
NCCL_1NODE = (FIXTURES / "nccl-allreduce-1node.txt").read_bytes()


@pytest.fixture(autouse=True)
def _media(settings: Any, tmp_path: Path) -> None:
    settings.MEDIA_ROOT = str(tmp_path / "media")


def _create(
    owner: Any, offering: Any, *files: tuple[str, bytes], **kwargs: Any
) -> list[services.UploadOutcome]:
    """Create uploads and run what was deferred to commit (the enqueue), as a real request would."""
    with TestCase.captureOnCommitCallbacks(execute=True):
        return services.upload_create(
            owner=owner, offering=offering, files=[IncomingFile(n, d) for n, d in files], **kwargs
        )


def test_it_stores_the_raw_bytes_once_at_a_content_addressed_path(
    django_capture_on_commit_callbacks: Any,
) -> None:
    owner, offering = UserFactory(), OfferingFactory()
    with django_capture_on_commit_callbacks(execute=False):
        [outcome] = _create(owner, offering, ("log.txt", NCCL_1NODE))
    sha = hashlib.sha256(NCCL_1NODE).hexdigest()
    blob = outcome.upload.blob
    assert blob.sha256 == sha and blob.size_bytes == len(NCCL_1NODE)
    assert blob.storage_name == f"uploads/{sha[:2]}/{sha}"
    with default_storage.open(blob.storage_name, "rb") as handle:
        assert handle.read() == NCCL_1NODE
    assert outcome.upload.status == Upload.Status.STORED
    # Another buyer sending the same bytes shares the blob: one file on disk, two uploads.
    with django_capture_on_commit_callbacks(execute=False):
        [other] = _create(UserFactory(), offering, ("copy.txt", NCCL_1NODE))
    assert other.upload.blob_id == blob.pk and not other.duplicate
    assert Blob.objects.count() == 1
    assert default_storage.listdir(f"uploads/{sha[:2]}")[1] == [sha]


def test_the_same_file_twice_is_recognised_as_a_duplicate() -> None:
    owner, offering = UserFactory(), OfferingFactory()
    [first] = _create(owner, offering, ("a.txt", NCCL_1NODE))
    [again] = _create(owner, offering, ("renamed.txt", NCCL_1NODE))
    assert again.duplicate and again.upload.pk == first.upload.pk
    assert Upload.objects.count() == 1
    # For another offering it is new evidence.
    [elsewhere] = _create(owner, OfferingFactory(), ("a.txt", NCCL_1NODE))
    assert not elsewhere.duplicate


def test_several_files_share_a_batch() -> None:
    outcomes = _create(UserFactory(), OfferingFactory(), ("a.txt", NCCL_1NODE), ("b.txt", b"hello\nworld\n"))
    assert len({o.upload.batch for o in outcomes}) == 1
    statuses = [Upload.objects.get(pk=o.upload.pk).status for o in outcomes]
    assert statuses == ["parsed", "unrecognised"]


def test_a_too_large_file_is_refused_and_nothing_is_stored(settings: Any) -> None:
    settings.UPLOAD_MAX_BYTES = 1000
    with pytest.raises(services.UploadTooLarge, match="limit"):
        _create(UserFactory(), OfferingFactory(), ("small.txt", b"ok\n"), ("big.txt", b"x" * 1001))
    assert Blob.objects.count() == 0 and Upload.objects.count() == 0
    assert not default_storage.exists("uploads")


def test_a_binary_file_is_refused_and_nothing_is_stored() -> None:
    with pytest.raises(ValidationError, match="looks binary"):
        _create(UserFactory(), OfferingFactory(), ("core.bin", b"\x7fELF\x02\x01\x00\x00" + b"\x00" * 64))
    assert Blob.objects.count() == 0 and Upload.objects.count() == 0


def test_a_utf16_log_from_windows_powershell_is_text_and_parsed_as_its_utf8_twin() -> None:
    # PowerShell 5.1's `>` writes UTF-16 LE with a byte-order mark: NUL bytes, but text
    a100 = GPUModelFactory(key="A100-SXM-40GB", name="NVIDIA A100 SXM 40GB", nvlink_gbytes_per_s=300.0)
    offering = OfferingFactory(gpu=a100)
    utf16 = NCCL_1NODE.decode("utf-8").replace("\n", "\r\n").encode("utf-16")
    assert utf16.startswith(b"\xff\xfe") and b"\x00" in utf16
    [twin] = _create(UserFactory(), offering, ("log.txt", NCCL_1NODE), nodes=1)
    [wide] = _create(UserFactory(), offering, ("log.txt", utf16), nodes=1)
    parsed, expected = Upload.objects.get(pk=wide.upload.pk), Upload.objects.get(pk=twin.upload.pk)
    assert parsed.status == "parsed" and parsed.kind == "nccl-tests"
    assert parsed.summary == expected.summary and parsed.verdicts == expected.verdicts


def test_text_the_parser_cannot_read_is_stored_and_marked_unrecognised() -> None:
    [outcome] = _create(UserFactory(), OfferingFactory(), ("notes.txt", b"just some notes\n"))
    upload = Upload.objects.get(pk=outcome.upload.pk)
    assert upload.status == "unrecognised" and upload.kind is None
    assert upload.errors and "not recognised" in upload.errors[0]


def test_parsing_stores_kind_summary_and_verdicts() -> None:
    # the log ran on A100-SXM4-40GB: judged against an A100 40GB offering's NVLink; under an H100 offering its
    # GPU model fails and its bandwidth is not judged (benchmarks.compare._other_gpus)
    a100 = GPUModelFactory(key="A100-SXM-40GB", name="NVIDIA A100 SXM 40GB", nvlink_gbytes_per_s=300.0)
    [outcome] = _create(UserFactory(), OfferingFactory(gpu=a100), ("log.txt", NCCL_1NODE), nodes=1)
    upload = Upload.objects.get(pk=outcome.upload.pk)
    assert upload.status == "parsed" and upload.kind == "nccl-tests"
    assert upload.summary["runs"][0]["collective"] == "all_reduce"
    assert upload.verdicts and upload.verdicts[0]["claim"].startswith("intra-node")
    [other] = _create(UserFactory(), OfferingFactory(), ("log.txt", NCCL_1NODE), nodes=1)
    verdicts = Upload.objects.get(pk=other.upload.pk).verdicts
    assert [(v["claim"], v["verdict"]) for v in verdicts][:2] == [
        ("GPU model", "fail"),
        ("all_reduce busbw", "cannot-measure"),
    ]
    assert upload.parsed_at is not None


def test_the_parse_task_is_idempotent(django_capture_on_commit_callbacks: Any) -> None:
    from benchmarks.tasks import parse_upload_task

    with django_capture_on_commit_callbacks(execute=False):
        [outcome] = _create(UserFactory(), OfferingFactory(), ("log.txt", NCCL_1NODE))
    assert parse_upload_task.delay(outcome.upload.pk).get() == "parsed"
    first = Upload.objects.get(pk=outcome.upload.pk)
    with mock.patch("benchmarks.parsers.parse") as parse:
        assert parse_upload_task.delay(outcome.upload.pk).get() == "parsed"
    parse.assert_not_called()
    again = Upload.objects.get(pk=outcome.upload.pk)
    assert (again.parsed_at, again.summary, again.verdicts) == (
        first.parsed_at,
        first.summary,
        first.verdicts,
    )


def test_an_unexpected_parser_error_marks_the_upload_failed() -> None:
    with mock.patch("benchmarks.parsers.parse_file", side_effect=RuntimeError("boom")):
        [outcome] = _create(UserFactory(), OfferingFactory(), ("log.txt", NCCL_1NODE))
    upload = Upload.objects.get(pk=outcome.upload.pk)
    assert upload.status == "failed"
    assert "RuntimeError: boom" in upload.errors[-1]


def test_findings_are_refreshed_after_a_successful_parse_when_the_checks_app_offers_it() -> None:
    offering = OfferingFactory()
    with mock.patch("checks.services.findings_refresh_for") as refresh:
        _create(UserFactory(), offering, ("log.txt", NCCL_1NODE))
        _create(UserFactory(), offering, ("notes.txt", b"not a log\n"))
    refresh.assert_called_once_with([offering.pk])


def test_parsing_works_without_a_findings_refresh() -> None:
    # A failing listener (the checks app's refresh) is logged; the parse it follows stands.
    with mock.patch("checks.services.findings_refresh_for", side_effect=RuntimeError("checks down")):
        [outcome] = _create(UserFactory(), OfferingFactory(), ("log.txt", NCCL_1NODE))
    assert Upload.objects.get(pk=outcome.upload.pk).status == "parsed"


def test_a_broken_broker_leaves_the_upload_stored_and_the_sweeper_enqueues_it_later() -> None:
    with mock.patch("benchmarks.tasks.parse_upload_task.delay", side_effect=OSError("broker down")):
        [outcome] = _create(UserFactory(), OfferingFactory(), ("log.txt", NCCL_1NODE))
    upload = Upload.objects.get(pk=outcome.upload.pk)
    assert upload.status == "stored"
    # Not yet a minute old: left alone.
    assert services.upload_sweep_stored() == 0
    Upload.objects.filter(pk=upload.pk).update(created_at=timezone.now() - timedelta(minutes=2))
    from benchmarks.tasks import sweep_stored_task

    assert sweep_stored_task.delay().get() == 1
    assert Upload.objects.get(pk=upload.pk).status == "parsed"
    assert services.upload_sweep_stored() == 0


def test_a_parse_whose_worker_died_is_swept_after_the_time_limit(settings: Any) -> None:
    with mock.patch("benchmarks.tasks.parse_upload_task.delay", side_effect=OSError("broker down")):
        [outcome] = _create(UserFactory(), OfferingFactory(), ("log.txt", NCCL_1NODE))
    # A worker took it, then died, and the broker lost the message (Redis restarted without persistence).
    Upload.objects.filter(pk=outcome.upload.pk).update(status="parsing", parsing_started_at=timezone.now())
    assert services.upload_sweep_stored() == 0  # still within the task time limit: maybe still running
    stalled = timezone.now() - timedelta(seconds=settings.CELERY_TASK_TIME_LIMIT + 120)
    Upload.objects.filter(pk=outcome.upload.pk).update(parsing_started_at=stalled)
    assert services.upload_sweep_stored() == 1
    upload = Upload.objects.get(pk=outcome.upload.pk)
    assert upload.status == "parsed" and upload.kind == "nccl-tests"
    assert Upload.objects.count() == 1


def test_verified_claims_lists_passing_verdicts_of_public_evidence_with_uploader() -> None:
    # The fixture is 8x A100-SXM4-40GB on one node: 235 GB/s against 300 x 0.8 expected passes.
    offering = OfferingFactory(gpu=GPUModelFactory(key="A100-SXM-40GB", nvlink_gbytes_per_s=300.0))
    owner = UserFactory(username="alice")
    _create(owner, offering, ("log.txt", NCCL_1NODE), visibility="public")
    _create(UserFactory(), offering, ("private.txt", NCCL_1NODE + b"\n"))
    claims = selectors.verified_claims(offering)
    assert claims and all(c["verdict"] == "pass" for c in claims)
    assert {c["uploader"] for c in claims} == {"alice"}
    assert {c["file"] for c in claims} == {"log.txt"}
