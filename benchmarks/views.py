"""Evidence pages: upload form, one upload (status, then results and charts), a batch of files."""

from __future__ import annotations

import json
import uuid
from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext, gettext_noop

from accounts.throttles import upload_throttled
from benchmarks import selectors, services
from benchmarks.forms import UploadForm
from benchmarks.models import Upload
from benchmarks.scaling import SCALING_PASS
from benchmarks.summary_labels import summary_label, summary_value
from portal.form_errors import add_form_errors
from portal.i18n import translated, translated_list

VERDICT_WORDS = {  # English message ids, shown in the page's language
    "pass": ("✔", gettext_noop("meets the claim")),
    "warn": ("⚠", gettext_noop("below the claim")),
    "fail": ("✘", gettext_noop("contradicts the claim")),
    "cannot-measure": ("?", gettext_noop("cannot be judged from this file")),
}


@login_required
@upload_throttled
def upload_new(request: HttpRequest) -> HttpResponse:
    if request.method != "POST":
        initial = {"offering": request.GET.get("offering")} if request.GET.get("offering") else {}
        return render(request, "benchmarks/upload_form.html", _form_context(UploadForm(initial=initial)))
    form = UploadForm(request.POST, request.FILES)
    if form.is_valid():
        data: dict[str, Any] = form.cleaned_data
        try:
            files = services.incoming_files(uploaded=data["file"])
            outcomes = services.upload_create(
                owner=request.user,
                offering=data["offering"],
                files=files,
                nodes=data["nodes"],
                gpus=data["gpus"],
                measured_on=data["measured_on"],
                notes=data["notes"],
                visibility=data["visibility"],
            )
        except ValidationError as exc:
            add_form_errors(form, exc, "file")
        else:
            for outcome in outcomes:
                if outcome.duplicate:
                    notice = gettext(
                        "%(name)s was already uploaded for this offering; showing the earlier upload."
                    )
                    messages.info(request, notice % {"name": outcome.upload.original_filename})
            if len(outcomes) == 1:
                return redirect(outcomes[0].upload.get_absolute_url())
            return redirect(reverse("benchmarks:batch", args=[outcomes[0].upload.batch]))
    return render(request, "benchmarks/upload_form.html", _form_context(form), status=400)


def _form_context(form: UploadForm) -> dict[str, Any]:
    return {"form": form, "max_bytes": settings.UPLOAD_MAX_BYTES}


def _get_visible(request: HttpRequest, upload_id: int) -> Upload:
    try:
        return selectors.upload_get(user=request.user, upload_id=upload_id)
    except Upload.DoesNotExist as exc:
        raise Http404("No such upload.") from exc


def _verdict_rows(upload: Upload) -> list[dict[str, Any]]:
    rows = []
    for verdict in upload.verdicts or []:
        icon, words = VERDICT_WORDS.get(verdict.get("verdict", ""), ("?", verdict.get("verdict", "")))
        shown = selectors.verdict_texts(verdict)
        rows.append({**verdict, **shown, "icon": icon, "words": gettext(words) if words else ""})
    return rows


def _tally(upload: Upload) -> list[dict[str, Any]]:
    """How many verdicts of each kind, in the order a buyer reads them (problems first)."""
    counts: dict[str, int] = {}
    for verdict in upload.verdicts or []:
        counts[verdict.get("verdict", "")] = counts.get(verdict.get("verdict", ""), 0) + 1
    order = ["fail", "warn", "pass", "cannot-measure"]
    return [
        {
            "verdict": key,
            "count": counts[key],
            "icon": VERDICT_WORDS[key][0],
            "words": gettext(VERDICT_WORDS[key][1]),
        }
        for key in order
        if counts.get(key)
    ]


def _summary_rows(upload: Upload) -> tuple[list[tuple[str, Any]], list[dict[str, Any]]]:
    """Scalar summary entries as (label, value) in the page's language and the collective runs."""
    summary = upload.summary or {}
    shown = [
        key
        for key, value in summary.items()
        if not isinstance(value, dict)
        and not (isinstance(value, list) and value and isinstance(value[0], dict))
    ]
    scalars = [(summary_label(key), summary_value(summary[key], key)) for key in shown]
    per_host = summary.get("gpus_per_host")
    if isinstance(per_host, dict):  # several hosts' GPUs: each host's count, after the file's
        at = shown.index("gpus") + 1 if "gpus" in shown else len(scalars)
        scalars.insert(at, (summary_label("gpus_per_host"), summary_value(per_host, "gpus_per_host")))
    if isinstance(summary.get("tests"), list):  # a perftest file holding several tests: one line each
        scalars.append((summary_label("tests"), _perftest_tests(summary["tests"])))
    return scalars, _runs_shown(upload, list(summary.get("runs", [])))


def _perftest_tests(tests: list[Any]) -> str:
    """Each test of a perftest file with its headline figure ("ib_send_bw: 390.549 Gb/s average")."""
    parts = []
    for test in tests:
        if not isinstance(test, dict):
            continue
        if test.get("latency_typical_usec") is not None:
            figure = gettext("%(value)s µs typical latency") % {"value": test["latency_typical_usec"]}
        elif test.get("average_gbps") is not None:
            figure = gettext("%(value)s Gb/s average") % {"value": test["average_gbps"]}
        else:
            figure = gettext("no result rows")
        parts.append(f"{test.get('test') or '?'}{gettext(': ')}{figure}")
    return gettext("; ").join(parts) or "—"


def _runs_shown(upload: Upload, runs: list[Any]) -> list[Any]:
    """The runs with each failure reason in the page's language: the parser's run warning "run N (...):
    failed run: <reason>" carries the reason's message (as stored beside the warnings); a run without one
    keeps its reason as stored."""
    reasons: dict[str, Any] = {}
    for message in upload.warning_messages or []:
        params = (message.get("params") or {}) if isinstance(message, dict) else {}
        inner = params.get("warning")
        if "index" in params and isinstance(inner, dict) and "reason" in (inner.get("params") or {}):
            reasons[str(params["index"])] = inner["params"]["reason"]
    return [
        {
            **run,
            "failure_reason": translated(reasons.get(str(run.get("index"))), run.get("failure_reason") or ""),
        }
        if isinstance(run, dict) and run.get("failure_reason")
        else run
        for run in runs
    ]


def _scaling_row(row: dict[str, Any]) -> dict[str, Any]:
    """A scaling row as the page shows it: its verdict's icon; its detail, what it measures and its pass mark
    in the page's language (each built from the message beside the English text)."""
    messages = row.get("messages") or {}
    english = {"detail": row.get("detail"), "series": row.get("series") or row.get("claim")}
    english["threshold"] = row.get("threshold") or row.get("expected")
    shown = {key: translated(messages.get(key), str(text or "")) for key, text in english.items()}
    return {**row, **shown, "icon": VERDICT_WORDS[row["verdict"]][0]}


def upload_detail(request: HttpRequest, upload_id: int) -> HttpResponse:
    upload = _get_visible(request, upload_id)
    context: dict[str, Any] = {
        "upload": upload,
        "is_owner": upload.owner_id == request.user.pk,
        "errors": selectors.errors_shown(upload),
    }
    if upload.finished:
        scalars, runs = _summary_rows(upload)
        scaling = selectors.offering_scaling(user=request.user, offering_id=upload.offering_id)
        context.update(
            {
                "scalars": scalars,
                "warnings": translated_list(upload.warnings, upload.warning_messages),
                "runs": runs,
                "verdicts": _verdict_rows(upload),
                "tally": _tally(upload),
                "busbw_chart": selectors.upload_busbw_chart(upload),
                "scaling": [_scaling_row(s) for s in scaling],
                # the pass mark the rows are judged by (benchmarks.scaling), in the note and on the chart
                "scaling_pass": SCALING_PASS,
                "scaling_pass_js": json.dumps(SCALING_PASS),
            }
        )
    return render(request, "benchmarks/upload_detail.html", context)


def upload_status(request: HttpRequest, upload_id: int) -> HttpResponse:
    """The htmx fragment polled while parsing; once finished it asks htmx to reload the whole page."""
    upload = _get_visible(request, upload_id)
    response = render(request, "benchmarks/_status.html", {"upload": upload})
    if upload.finished:
        response["HX-Refresh"] = "true"
    return response


def batch_detail(request: HttpRequest, batch: uuid.UUID) -> HttpResponse:
    uploads = selectors.batch_list(user=request.user, batch=batch)
    if not uploads:
        raise Http404("No such batch.")
    finished = all(u.finished for u in uploads)
    template = "benchmarks/_batch_rows.html" if request.headers.get("HX-Request") else "benchmarks/batch.html"
    response = render(request, template, {"uploads": uploads, "batch": batch, "finished": finished})
    if request.headers.get("HX-Request") and finished:
        response["HX-Refresh"] = "true"
    return response
