"""Writes of the acceptance app: store a bundle, read it on the worker, and keep the report on the row.

The bundle's bytes are stored (a benchmarks Blob) and the row committed before anything is enqueued; the
task (`acceptance.process`, queue `parse`) reads the archive, makes one benchmarks Upload per recognised
file (parsed by the existing parsers; each parse raises the offering's findings through
`benchmarks.signals.upload_parsed`), and computes the report. Re-running a finished run changes nothing.
"""

from __future__ import annotations

import logging
from datetime import timedelta
from functools import partial
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext

from acceptance import bundle as bundle_reader
from acceptance.models import FINISHED, INTERNAL_ERROR, INTERNAL_ERROR_TEXT, AcceptanceRun
from acceptance.report import STABILITY_MARKER, build_report
from benchmarks import services as uploads
from benchmarks.models import Upload, Visibility
from benchmarks.parsers import detect_kind
from benchmarks.selectors import upload_item
from hardware.messages import Msg, _, joined
from portal.i18n import shown
from portal.task_pool import enqueue
from portal.worker_rows import WorkStates, claim, stuck_ids
from providers.models import Offering

logger = logging.getLogger(__name__)
RUN_STATES = WorkStates(AcceptanceRun.Status.QUEUED, AcceptanceRun.Status.RUNNING, "started_at", FINISHED)

STEPS_MARKER = "# clusterscout-acceptance steps v1"
SNIFF = 4096


def bundle_limits() -> bundle_reader.Limits:
    return bundle_reader.Limits(max_member_bytes=settings.UPLOAD_MAX_BYTES)


def bundle_check_size(*, name: str, size: int) -> None:
    """Raise ValidationError (field `bundle`) above settings.ACCEPTANCE_BUNDLE_MAX_BYTES; before reading."""
    limit = settings.ACCEPTANCE_BUNDLE_MAX_BYTES
    if size > limit:
        mib = 1024 * 1024
        message = gettext("%(name)s is %(size)s MiB; the limit is %(limit)s MiB.") % {
            "name": name,
            "size": f"{size / mib:.1f}",
            "limit": f"{limit / mib:.0f}",
        }
        raise ValidationError({"bundle": [message]})


def bundle_check(*, name: str, data: bytes) -> bundle_reader.Bundle:
    """Raise ValidationError (field `bundle`) when the archive is too large or cannot be read safely."""
    bundle_check_size(name=name, size=len(data))
    try:
        return bundle_reader.read_bundle(data, bundle_limits())
    except bundle_reader.BundleError as exc:
        raise ValidationError({"bundle": [shown(exc.args[0])]}) from exc  # in the request's language


def _enqueue(run_id: int) -> None:
    from acceptance.tasks import process_bundle_task

    enqueue(process_bundle_task, run_id, "acceptance run")  # broker down: stays `queued`, swept later


def acceptance_create(
    *, owner: Any, offering: Offering, name: str, data: bytes, visibility: str = Visibility.PRIVATE
) -> AcceptanceRun:
    """Check the archive, store its bytes, create the run; processing is enqueued on commit. Every upload is a
    new run read afresh: the same bundle sent again after a failure is read again, the failed run kept."""
    if visibility not in Visibility.values:
        raise ValidationError({"visibility": [f"visibility must be one of {', '.join(Visibility.values)}."]})
    bundle_check(name=name, data=data)
    blob = uploads.blob_store(data=data)
    with transaction.atomic():
        run = AcceptanceRun.objects.create(
            owner=owner,
            offering=offering,
            bundle=blob,
            bundle_name=(name or "bundle.tar.gz")[-255:],
            visibility=visibility,
        )
        transaction.on_commit(partial(_enqueue, run.pk))
    return run


def _classify(
    members: list[bundle_reader.Member],
) -> tuple[list[Any], list[dict[str, Any]], list[Any], list[Any]]:
    """Recognised files (to upload), every file's row, and the kit's own stability timelines and step logs."""
    to_upload, rows, timelines, steps = [], [], [], []
    for member in members:
        head = member.data[:SNIFF].decode("utf-8", "replace")
        if STABILITY_MARKER in head:
            timelines.append((member.name, member.data.decode("utf-8", "replace")))
        kind = None
        if member.data.strip() and not uploads.looks_binary(member.data):
            kind = detect_kind(member.data).kind
        row: dict[str, Any] = {"name": member.name, "kind": kind, "upload": None}
        if kind is None and STABILITY_MARKER in head:
            row["kind"] = "acceptance-timeline"
        elif kind is None and head.startswith(STEPS_MARKER):
            row["kind"] = "acceptance-steps"
            steps.append((member.name, member.data.decode("utf-8", "replace")))
        rows.append(row)
        if kind is not None:
            to_upload.append(uploads.IncomingFile(name=member.name, data=member.data))
    return to_upload, rows, timelines, steps


def _store_uploads(run: AcceptanceRun, files: list[Any], rows: list[dict[str, Any]]) -> list[Upload]:
    if not files:
        return []
    outcomes = uploads.upload_create(
        owner=run.owner, offering=run.offering, files=files, visibility=run.visibility
    )
    by_name: dict[str, int] = {}
    for incoming, outcome in zip(files, outcomes, strict=True):
        by_name[incoming.name] = outcome.upload.pk
    for row in rows:
        row["upload"] = by_name.get(row["name"])
    run.batch = outcomes[0].upload.batch
    parsed = []
    for upload_id in dict.fromkeys(by_name.values()):
        parsed.append(uploads.upload_parse(upload_id=upload_id))
    return parsed


def _item(upload: Upload, name: str) -> dict[str, Any]:
    return {**upload_item(upload), "filename": name, "verdicts": upload.verdicts or []}


def acceptance_process(*, run_id: int) -> AcceptanceRun:
    """Read the bundle, parse its files as uploads, compute the report; a finished run is left as is."""
    run = claim(AcceptanceRun, run_id, RUN_STATES)
    if run.status in FINISHED:
        return run
    run = AcceptanceRun.objects.select_related("bundle", "offering__provider", "offering__gpu", "owner").get(
        pk=run_id
    )
    try:
        _process(run)
        run.status = AcceptanceRun.Status.DONE
    except (ValidationError, bundle_reader.BundleError) as exc:
        run.status = AcceptanceRun.Status.FAILED
        run.error = "; ".join(getattr(exc, "messages", None) or [str(exc)])  # the API's, as before
        run.error_message = _failure_message(exc)
    except Exception as exc:  # a bug: recorded on the row instead of retried forever
        logger.exception("acceptance run %s failed", run_id)
        run.status = AcceptanceRun.Status.FAILED
        run.error = f"{INTERNAL_ERROR_TEXT}: {type(exc).__name__}: {exc}"  # the API's, as before
        run.error_message = Msg(INTERNAL_ERROR).as_json()
    run.finished_at = timezone.now()
    run.save(
        update_fields=[
            "status",
            "files",
            "indicators",
            "measured",
            "verdict",
            "findings",
            "error",
            "error_message",
            "batch",
            "finished_at",
        ]
    )
    return run


def _failure_message(exc: ValidationError | bundle_reader.BundleError) -> dict[str, Any] | None:
    """Why the bundle was refused as a message beside the English `error` ({"msgid", "params"}): the reader's
    reason, or a ValidationError's messages joined as `error` joins them; None where one part is plain text
    (the page shows the English as stored)."""
    if isinstance(exc, bundle_reader.BundleError):
        parts = list(exc.args[:1])
    else:
        errors = exc.error_dict.values() if hasattr(exc, "error_dict") else [exc.error_list]
        parts = [error.message for each in errors for error in each]
    if not parts or not all(isinstance(part, Msg) for part in parts):
        return None
    return (parts[0] if len(parts) == 1 else joined(*parts, sep=_("; "))).as_json()


def _process(run: AcceptanceRun) -> None:
    data = uploads.blob_read(blob=run.bundle)
    content = bundle_reader.read_bundle(data, bundle_limits())
    files, rows, timelines, steps = _classify(content.members)
    parsed = {u.pk: u for u in _store_uploads(run, files, rows)}
    items = []
    for row in rows:
        upload = parsed.get(row["upload"]) if row["upload"] else None
        if upload is not None and upload.status == Upload.Status.PARSED:
            items.append(_item(upload, row["name"]))
            row["kind"] = upload.kind
    for name, why in content.skipped:
        # the API's English reason, and beside it the message a page shows (acceptance.selectors.files_shown)
        rows.append({"name": name, "kind": None, "upload": None, "skipped": str(why), **_skip_message(why)})
    report = build_report(run.offering.facts(), items, timelines, steps)
    run.files = rows
    run.indicators = report["indicators"]
    run.verdict = report["verdict"]
    run.findings = report["finding_details"]
    run.measured = report["measured"]


def _skip_message(why: str) -> dict[str, Any]:
    return {"skipped_message": why.as_json()} if isinstance(why, Msg) else {}


def acceptance_sweep(*, older_than: timedelta = timedelta(minutes=1)) -> int:
    """Enqueue again runs still `queued` (their enqueue was lost) or `running` past the task time limit."""
    ids = stuck_ids(AcceptanceRun, RUN_STATES, older_than=older_than)
    for run_id in ids:
        _enqueue(run_id)
    return len(ids)
