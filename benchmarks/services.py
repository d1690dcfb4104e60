"""Writes of the benchmarks app: store uploaded evidence, parse it on the worker, re-enqueue the stuck.

Order matters (DESIGN section 9, reliability): the raw bytes are written and committed before anything
else happens; parsing is enqueued only on commit, and an upload whose enqueue failed stays `stored` until
`upload_sweep_stored` picks it up.
"""

from __future__ import annotations

import hashlib
import logging
import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, timedelta
from functools import partial
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext

from benchmarks.models import FINISHED_STATUSES, PARSE_INTERNAL_ERROR, PARSE_INTERNAL_ERROR_TEXT, Blob, Upload
from benchmarks.parsers.text import text_encoding
from benchmarks.signals import upload_parsed
from hardware.messages import Msg, messages_of
from portal.task_pool import enqueue
from portal.worker_rows import WorkStates, claim, stuck_ids
from providers.models import Offering

logger = logging.getLogger(__name__)
UPLOAD_STATES = WorkStates(
    Upload.Status.STORED, Upload.Status.PARSING, "parsing_started_at", FINISHED_STATUSES
)

# How much of the file decides "binary": NUL bytes there never occur in a text log or report.
BINARY_SNIFF_BYTES = 8 * 1024
SWEEP_AFTER = timedelta(minutes=1)


class UploadTooLarge(ValidationError):
    """A file above settings.UPLOAD_MAX_BYTES (the API answers 413)."""


@dataclass(frozen=True)
class IncomingFile:
    name: str
    data: bytes


@dataclass(frozen=True)
class UploadOutcome:
    upload: Upload
    duplicate: bool


def _human_bytes(n: int) -> str:
    if n < 1024:
        return f"{n} B"
    size = n / 1024
    for unit in ("KiB", "MiB"):
        if size < 1024:
            return f"{size:.1f} {unit}"
        size /= 1024
    return f"{size:.1f} GiB"


def upload_check_size(*, name: str, size: int) -> None:
    """Raise UploadTooLarge when `size` is above the limit; callers check before reading the bytes."""
    limit = settings.UPLOAD_MAX_BYTES
    if size > limit:
        raise UploadTooLarge(
            gettext(
                "%(name)s is %(size)s; the limit is %(limit)s per file. "
                "Upload the relevant part of the log (the result table and its header)."
            )
            % {"name": name, "size": _human_bytes(size), "limit": _human_bytes(limit)},
            code="too_large",
        )


def looks_binary(data: bytes) -> bool:
    """Whether an upload's head holds NUL bytes, UTF-16 text aside (Windows PowerShell's `>` writes UTF-16
    with a byte-order mark; the parsers decode it, text.text_encoding)."""
    head = data[:BINARY_SNIFF_BYTES]
    return b"\x00" in head and text_encoding(head) == "utf-8"


# The magic bytes of the compressed files a log may arrive in (`gzip nccl.log`, a zip from a laptop): named in
# the refusal, with what to do instead.
COMPRESSED_MAGIC = (
    (b"\x1f\x8b", "gzip"),
    (b"PK\x03\x04", "zip"),
    (b"\xfd7zXZ\x00", "xz"),
    (b"BZh", "bzip2"),
    (b"\x28\xb5\x2f\xfd", "zstd"),
    (b"7z\xbc\xaf\x27\x1c", "7z"),
)


def compressed_format(data: bytes) -> str | None:
    """The compression format an upload starts with (COMPRESSED_MAGIC), or None."""
    return next((name for magic, name in COMPRESSED_MAGIC if data.startswith(magic)), None)


def upload_check_content(*, file: IncomingFile) -> None:
    """Raise ValidationError when the file is too large, empty, compressed, or not text."""
    upload_check_size(name=file.name, size=len(file.data))
    if not file.data:
        raise ValidationError(gettext("%(name)s is empty.") % {"name": file.name}, code="empty")
    packed = compressed_format(file.data)
    if packed is not None:
        raise ValidationError(
            gettext(
                "%(name)s is a compressed file (%(format)s). Upload the logs inside it, or upload the "
                "archive on the acceptance-test page, which reads a tar.gz, tar or zip of logs."
            )
            % {"name": file.name, "format": packed},
            code="compressed",
        )
    if looks_binary(file.data):
        raise ValidationError(
            gettext(
                "%(name)s looks binary (it contains NUL bytes); upload the text log or report "
                "(for example the output of nccl-tests, ibstat or nvidia-smi saved as .txt)."
            )
            % {"name": file.name},
            code="binary",
        )


def incoming_files(*, uploaded: Iterable[Any]) -> list[IncomingFile]:
    """Read Django UploadedFiles into memory, refusing one above the limit before reading it, and a
    request with more than UPLOAD_MAX_FILES_PER_REQUEST files before reading any."""
    uploaded = list(uploaded)
    limit = settings.UPLOAD_MAX_FILES_PER_REQUEST
    if len(uploaded) > limit:
        raise ValidationError(
            {
                "file": [
                    gettext(
                        "at most %(limit)s files per upload; %(sent)s were sent. "
                        "Send them in several uploads."
                    )
                    % {"limit": limit, "sent": len(uploaded)}
                ]
            },
            code="too_many_files",
        )
    total = sum(int(file.size or 0) for file in uploaded)
    if total > settings.UPLOAD_MAX_REQUEST_BYTES:
        # The files are read into memory below: this bounds what one request can hold.
        raise UploadTooLarge(
            gettext(
                "the files of one upload total %(total)s; the limit is %(limit)s per upload. "
                "Send them in several uploads."
            )
            % {"total": _human_bytes(total), "limit": _human_bytes(settings.UPLOAD_MAX_REQUEST_BYTES)},
            code="too_large",
        )
    out = []
    for file in uploaded:
        name = str(file.name or "upload.txt")
        upload_check_size(name=name, size=int(file.size or 0))
        out.append(IncomingFile(name=name, data=file.read()))
    return out


def blob_store(*, data: bytes) -> Blob:
    """The Blob holding exactly `data`: written to storage once, committed in its own transaction."""
    sha = hashlib.sha256(data).hexdigest()
    existing = Blob.objects.filter(sha256=sha).first()
    if existing is not None:
        return existing
    name = Blob.storage_name_for(sha)
    # Content-addressed: a file already at this name holds these very bytes, so it is never rewritten.
    if not default_storage.exists(name):
        saved = default_storage.save(name, ContentFile(data))
        if saved != name:  # another writer won the race; keep the single canonical copy
            default_storage.delete(saved)
    try:
        with transaction.atomic():
            return Blob.objects.create(sha256=sha, size_bytes=len(data), storage_name=name)
    except IntegrityError:
        return Blob.objects.get(sha256=sha)


def blob_read(*, blob: Blob) -> bytes:
    with default_storage.open(blob.storage_name, "rb") as handle:
        data: bytes = handle.read()
    return data


def _enqueue_parse(upload_id: int) -> None:
    from benchmarks.tasks import parse_upload_task

    enqueue(parse_upload_task, upload_id, "parsing of upload")  # broker down: stays `stored`, swept later


def upload_create(
    *,
    owner: Any,
    offering: Offering,
    files: Iterable[IncomingFile],
    nodes: int | None = None,
    gpus: int | None = None,
    measured_on: date | None = None,
    notes: str = "",
    visibility: str = Upload.Visibility.PRIVATE,
) -> list[UploadOutcome]:
    """Store each file (raw bytes first), then one Upload per file sharing a batch id; parse on commit.

    A file this owner already uploaded for this offering is not stored twice: its existing Upload comes
    back with `duplicate=True`. Every file is checked before any is stored, so a refused file stores nothing.
    """
    files = list(files)
    if not files:
        raise ValidationError({"file": [gettext("Choose at least one file.")]})
    for file in files:
        upload_check_content(file=file)
    batch = uuid.uuid4()
    outcomes: list[UploadOutcome] = []
    for file in files:
        blob = blob_store(data=file.data)
        with transaction.atomic():
            existing = Upload.objects.filter(owner=owner, offering=offering, blob=blob).first()
            if existing is not None:
                outcomes.append(UploadOutcome(existing, duplicate=True))
                continue
            upload = Upload(
                owner=owner,
                offering=offering,
                blob=blob,
                batch=batch,
                original_filename=(file.name or "upload.txt")[-255:],
                nodes=nodes,
                gpus=gpus,
                measured_on=measured_on,
                notes=notes,
                visibility=visibility,
            )
            upload.full_clean(exclude=["blob", "owner", "offering"])
            try:
                with transaction.atomic():
                    upload.save()
            except IntegrityError:  # the same file sent twice at the same moment
                outcomes.append(
                    UploadOutcome(Upload.objects.get(owner=owner, offering=offering, blob=blob), True)
                )
                continue
            transaction.on_commit(partial(_enqueue_parse, upload.pk))
        outcomes.append(UploadOutcome(upload, duplicate=False))
    return outcomes


def upload_parse(*, upload_id: int) -> Upload:
    """Parse a stored upload and compare it with the offering's claims; a finished upload is left as is."""
    from benchmarks.compare import compare
    from benchmarks.parsers import parse_file

    upload = claim(Upload, upload_id, UPLOAD_STATES)
    if upload.status in FINISHED_STATUSES:
        return upload
    upload = Upload.objects.select_related("blob", "offering__provider", "offering__gpu").get(pk=upload_id)
    fields = ["status", "kind", "summary", "warnings", "warning_messages", "errors", "error_messages"]
    fields += ["verdicts", "parsed_at"]
    storage_name = upload.blob.storage_name
    try:
        # Streamed from storage: the parser reads the file line by line, never all of it at once.
        result = parse_file(
            lambda: default_storage.open(storage_name, "rb"), upload.original_filename
        ).as_dict()
        upload.kind = result["kind"]
        upload.summary = result["summary"]
        upload.warnings = result["warnings"]
        upload.warning_messages = messages_of(result["warnings"])
        upload.errors = result["errors"]
        upload.error_messages = messages_of(result["errors"])
        if result["kind"] in (None, "unknown"):
            upload.status = Upload.Status.UNRECOGNISED
            upload.verdicts = []
        else:
            item = {
                "upload_id": upload.pk,
                "filename": upload.original_filename,
                **result,
                "nodes": upload.nodes,
                "gpus": upload.gpus,
            }
            upload.verdicts = compare(upload.offering.facts(), item)
            upload.status = Upload.Status.PARSED
    except Exception as exc:  # a parser or comparison bug: record it on the row instead of retrying forever
        logger.exception("parsing upload %s failed", upload_id)
        _record_internal_error(upload, exc)
    upload.parsed_at = timezone.now()
    with transaction.atomic():
        # Another delivery of the same task may have finished first; the first finished result stands.
        current = Upload.objects.select_for_update().get(pk=upload_id)
        if current.status in FINISHED_STATUSES:
            return current
        upload.save(update_fields=fields)
    if upload.status == Upload.Status.PARSED:
        # A parsed upload is evidence the offering's findings read: the checks app listens. Derived data:
        # a failing receiver is logged and must not undo the finished parse.
        for receiver, error in upload_parsed.send_robust(
            sender=Upload, upload_id=upload.pk, offering_id=upload.offering_id
        ):
            if isinstance(error, Exception):
                logger.error("%s failed after parsing upload %s: %r", receiver, upload.pk, error)
    return upload


def _record_internal_error(upload: Upload, exc: Exception) -> None:
    """The upload failed on a bug: the API's English error naming the exception, as before, and beside it
    (in `error_messages`, kept in step with `errors`) the sentence a page shows."""
    earlier = list(upload.errors or [])
    messages = list(upload.error_messages or [])
    if len(messages) != len(earlier):
        messages = [None] * len(earlier)
    upload.status = Upload.Status.FAILED
    upload.errors = [*earlier, f"{PARSE_INTERNAL_ERROR_TEXT}: {type(exc).__name__}: {exc}"]
    upload.error_messages = [*messages, Msg(PARSE_INTERNAL_ERROR).as_json()]


def upload_sweep_stored(
    *, older_than: timedelta = SWEEP_AFTER, stalled_after: timedelta | None = None
) -> int:
    """Enqueue parsing again for uploads still `stored` after `older_than` (their enqueue was lost) and for
    uploads `parsing` for longer than the task time limit (their worker died and the message was lost,
    e.g. Redis restarted without persistence). Parsing is idempotent, so a second delivery is harmless."""
    ids = stuck_ids(Upload, UPLOAD_STATES, older_than=older_than, stalled_after=stalled_after)
    for upload_id in ids:
        _enqueue_parse(upload_id)
    return len(ids)
