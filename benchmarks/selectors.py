"""Reads of the benchmarks app, with the visibility rule in one place.

Who sees an upload: its owner and staff always; everyone (anonymous too) when it is public. A provider
representative sees the public evidence about its offerings like everyone else, and not the private
uploads: a buyer's private trial results stay between the buyer and the portal.
"""

from __future__ import annotations

import uuid
from typing import Any

from django.db.models import Q, QuerySet
from django.utils.translation import gettext, ngettext

from accounts.selectors import is_curator
from benchmarks.models import PARSE_INTERNAL_ERROR, PARSE_INTERNAL_ERROR_TEXT, Upload, Visibility
from portal.i18n import translated, translated_list, translated_text
from providers.models import Offering

NCCL_KINDS = ("nccl-tests", "rccl-tests", "hccl-test")


def evidence_visible_q(*, user: Any) -> Q:
    """The uploads, or acceptance runs, `user` may see: public ones and their own; every one for staff."""
    if is_curator(user):
        return Q()
    visible = Q(visibility=Visibility.PUBLIC)
    if user is not None and user.is_authenticated:
        visible |= Q(owner=user)
    return visible


def upload_list(*, user: Any, offering_slug: str | None = None) -> QuerySet[Upload]:
    """Uploads `user` may see, newest first, optionally for one offering."""
    qs = Upload.objects.filter(evidence_visible_q(user=user)).select_related(
        "owner", "offering__provider", "blob"
    )
    if offering_slug:
        qs = qs.filter(offering__slug=offering_slug)
    return qs.order_by("-created_at", "-id")


def upload_get(*, user: Any, upload_id: int) -> Upload:
    """One upload `user` may see; Upload.DoesNotExist otherwise (an invisible upload does not exist)."""
    return upload_list(user=user).get(pk=upload_id)


def batch_list(*, user: Any, batch: uuid.UUID) -> list[Upload]:
    return list(upload_list(user=user).filter(batch=batch).order_by("id"))


def errors_shown(upload: Upload) -> list[str]:
    """The upload's errors in the active language, by the messages stored beside them; a bug recorded before
    the messages were (its English names the exception) by the same sentence; other errors as stored."""
    texts = [str(text) for text in upload.errors or []]
    stored = upload.error_messages if len(upload.error_messages or []) == len(texts) else [None] * len(texts)
    internal = {"msgid": PARSE_INTERNAL_ERROR}
    messages = [
        message or (internal if text.startswith(PARSE_INTERNAL_ERROR_TEXT + ":") else None)
        for text, message in zip(texts, stored, strict=True)
    ]
    return translated_list(texts, messages)


def upload_item(upload: Upload) -> dict[str, Any]:
    """The parsed evidence item of docs/FACTS.md for a parsed upload."""
    return {
        "upload_id": upload.pk,
        "filename": upload.original_filename,
        "kind": upload.kind,
        "summary": upload.summary,
        "warnings": upload.warnings,
        "errors": upload.errors,
        "nodes": upload.nodes,
        "gpus": upload.gpus,
    }


def offering_scaling(*, user: Any, offering_id: int) -> list[dict[str, Any]]:
    """Scaling efficiency across the parsed uploads `user` may see for one offering (several node counts)."""
    from benchmarks.scaling import scaling

    uploads = upload_list(user=user).filter(offering_id=offering_id, status=Upload.Status.PARSED)
    gpu = Offering.objects.filter(pk=offering_id).values_list("gpu__key", flat=True).first()
    return scaling([upload_item(u) for u in uploads], gpu)


CLAIM_TEXTS = ("claim", "detail")  # the verdict texts shown in the page's language


def verdict_texts(verdict: dict[str, Any]) -> dict[str, str]:
    """A verdict's claim and detail in the active language, by the message ids stored beside them (a verdict
    stored before they were, by its English text)."""
    stored = verdict.get("messages") or {}
    shown = {key: translated(stored.get(key), translated_text(verdict.get(key))) for key in CLAIM_TEXTS}
    for key in ("expected", "measured"):
        value = verdict.get(key)
        if isinstance(value, bool):  # a condition that holds or not (a full NVLink mesh): yes or no
            shown[key] = gettext("yes") if value else gettext("no")
        elif isinstance(value, str):  # a condition or a result in words, not a figure
            shown[key] = translated(stored.get(key), value)
    return shown


def verified_claims(offering: Offering) -> list[dict[str, Any]]:
    """Passing verdicts from public, parsed evidence about `offering`, with who uploaded it and when."""
    uploads = (
        Upload.objects.filter(
            offering=offering, visibility=Upload.Visibility.PUBLIC, status=Upload.Status.PARSED
        )
        .select_related("owner")
        .order_by("-created_at", "-id")
    )
    out = []
    for upload in uploads:
        for verdict in upload.verdicts or []:
            if verdict.get("verdict") != "pass":
                continue
            out.append(
                {
                    **verdict,
                    **verdict_texts(verdict),
                    "upload_id": upload.pk,
                    "uploader": upload.owner.get_username(),
                    "measured_on": upload.measured_on,
                    "uploaded_at": upload.created_at,
                }
            )
    return out


def _run_expected(verdicts: list[dict[str, Any]], run: dict[str, Any]) -> float | None:
    lines = [run.get("first_line"), run.get("last_line")]
    for verdict in verdicts:
        if verdict.get("lines") == lines and isinstance(verdict.get("expected"), int | float):
            return float(verdict["expected"])
    return None


def upload_busbw_chart(upload: Upload) -> list[dict[str, Any]]:
    """Per collective run: busbw (GB/s) against message size, and the expected busbw from the verdicts."""
    if upload.kind not in NCCL_KINDS:
        return []
    series = []
    for run in (upload.summary or {}).get("runs", []):
        # a run that sweeps several data types (`-d all`) is drawn for the type its figures and verdicts
        # use (nccl/figures.py): one type's sizes, not every type's joined into one zig-zag line
        pick = next((s for s in run.get("data_type_sweeps") or [] if s.get("headline")), None)
        headline = pick["data_type"] if pick else None
        points = [
            (
                row["size_bytes"],
                row.get("busbw_oop") if row.get("busbw_oop") is not None else row.get("busbw_ip"),
            )
            for row in run.get("size_rows") or []
            if row.get("size_bytes")
            and (row.get("busbw_oop") is not None or row.get("busbw_ip") is not None)
            and (pick is None or (row.get("type"), row.get("redop")) == (pick["data_type"], pick["redop"]))
        ]
        if not points:
            continue
        ranks = run.get("ranks") or "?"
        nodes = run.get("nodes")
        if nodes:
            where = ngettext(
                "%(ranks)s ranks, %(nodes)s node", "%(ranks)s ranks, %(nodes)s nodes", int(nodes)
            ) % {"ranks": ranks, "nodes": nodes}
        else:
            where = gettext("%(ranks)s ranks") % {"ranks": ranks}
        name = run.get("collective") or gettext("unknown")
        series.append(
            {
                "name": f"{name} {headline} ({where})" if headline else f"{name} ({where})",
                "sizes": [p[0] for p in points],
                "busbw": [p[1] for p in points],
                "expected": _run_expected(upload.verdicts or [], run),
                "lines": [run.get("first_line"), run.get("last_line")],
            }
        )
    return series


def offering_page_verified_claims(offering: Offering) -> dict[str, Any]:
    """The offering page's section of verified claims (registered in BenchmarksConfig.ready)."""
    return {"verified": verified_claims(offering)}
