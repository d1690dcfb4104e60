"""Reads of the acceptance app.

A run is seen by its owner and staff; a public run by everyone (its verdicts show on the offering page):
the uploads' rule, benchmarks.selectors.evidence_visible_q.
"""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from django.utils.translation import gettext, gettext_noop, ngettext

from acceptance.models import INTERNAL_ERROR, INTERNAL_ERROR_TEXT, AcceptanceRun
from acceptance.report import indicator_rows
from benchmarks.selectors import evidence_visible_q
from hardware.messages import Msg
from hardware.numbers import figure_text
from portal.chart_style import plotly_text
from portal.i18n import shown, translated, translated_text
from providers.models import Offering


def run_list(*, user: Any, offering_slug: str | None = None, mine: bool = False) -> QuerySet[AcceptanceRun]:
    """Runs `user` may see (only their own with `mine`), newest first."""
    qs = AcceptanceRun.objects.select_related("owner", "offering__provider")
    if mine:
        if user is None or not user.is_authenticated:
            return qs.none()
        qs = qs.filter(owner=user)
    else:
        qs = qs.filter(evidence_visible_q(user=user))
    if offering_slug:
        qs = qs.filter(offering__slug=offering_slug)
    return qs.order_by("-created_at", "-id")


def run_get(*, user: Any, run_id: int) -> AcceptanceRun:
    """One run `user` may see; AcceptanceRun.DoesNotExist otherwise."""
    return run_list(user=user).get(pk=run_id)


def verdict_rows(run: AcceptanceRun) -> list[dict[str, Any]]:
    """Measured beside claimed, one row per indicator (acceptance.report.indicator_rows), in the active
    language, for the pages."""
    return [{key: shown(cell) for key, cell in row.items()} for row in indicator_rows(run.indicators or {})]


def frozen_rows(run: AcceptanceRun) -> list[dict[str, Any]]:
    """The same rows as a quote freezes them: English, with each cell's message id and values beside it
    (`messages`), so the quote shows them in its reader's language."""
    return [
        {
            **{key: str(cell) if isinstance(cell, Msg) else cell for key, cell in row.items()},
            "messages": {key: cell.as_json() for key, cell in row.items() if isinstance(cell, Msg)},
        }
        for row in indicator_rows(run.indicators or {})
    ]


# A training probe's metrics (acceptance.report.TRAINING_METRICS) as a reader names them: a figure with its
# unit, and the unit alone where the scaling basis names the metric.
THROUGHPUT_WORDS = {
    "tokens_per_s_per_gpu": (gettext_noop("%(value)s tokens/s per GPU"), "tokens/s"),
    "tflops_per_gpu": (gettext_noop("%(value)s TFLOP/s per GPU"), "TFLOP/s"),
}


def indicator_basis(indicator: dict[str, Any]) -> str:
    """What an indicator was judged on, in the active language (by the message stored beside it; a run from
    before they were stored, by its English), a training probe's metric by its unit, not its key."""
    message = indicator.get("basis_message")
    params = message.get("params") if isinstance(message, dict) else None
    if isinstance(message, dict) and isinstance(params, dict) and params.get("metric") in THROUGHPUT_WORDS:
        message = {**message, "params": {**params, "metric": THROUGHPUT_WORDS[params["metric"]][1]}}
    return translated(message, translated_text(indicator.get("basis")))


def throughput_shown(scaling: dict[str, Any]) -> str:
    """The training probe's median throughput per GPU at each node count, in the active language ("1 node:
    3,210.5 tokens/s per GPU; 2 nodes: ..."); "" without one."""
    points = []
    for point in scaling.get("throughput_curve") or []:
        nodes = point.get("nodes")
        rates = [
            gettext(THROUGHPUT_WORDS[key][0]) % {"value": figure_text(value, 2)}
            for key, value in point.items()
            if key in THROUGHPUT_WORDS and isinstance(value, int | float)
        ]
        if isinstance(nodes, int) and rates:
            sentence = ngettext("%(nodes)s node: %(rate)s", "%(nodes)s nodes: %(rate)s", nodes)
            points.append(sentence % {"nodes": f"{nodes:,}", "rate": gettext(", ").join(rates)})
    return gettext("; ").join(points)


def curve_chart(curve: list[dict[str, Any]]) -> dict[str, Any]:
    """The scaling curve as the report page's chart draws it, its words in the active language: each node
    count's busbw with its hover text ("2 nodes: 350.8 GB/s"), the trace's name and the axes' titles."""
    points = [
        p for p in curve if isinstance(p.get("nodes"), int) and isinstance(p.get("busbw_gbps"), int | float)
    ]
    return {
        "x": [p["nodes"] for p in points],
        "y": [p["busbw_gbps"] for p in points],
        "hover": [
            plotly_text(
                ngettext("%(nodes)s node: %(busbw)s GB/s", "%(nodes)s nodes: %(busbw)s GB/s", p["nodes"])
                % {"nodes": f"{p['nodes']:,}", "busbw": figure_text(p["busbw_gbps"], 1)}
            )
            for p in points
        ],
        "name": plotly_text(gettext("busbw at the largest message size")),
        "x_title": plotly_text(gettext("nodes")),
        "y_title": plotly_text(gettext("busbw (GB/s)")),
    }


def error_shown(run: AcceptanceRun) -> str:
    """Why the run failed, in the active language: a bug (its English names the exception) by today's
    sentence, whatever was stored beside it (a run stored before the message was, or with an earlier
    wording); else by the message stored beside its English, or as stored."""
    if run.error.startswith(INTERNAL_ERROR_TEXT + ":"):
        return gettext(INTERNAL_ERROR)
    return translated(run.error_message, run.error)


def run_uploaded_again(*, user: Any, run: AcceptanceRun) -> AcceptanceRun | None:
    """The newest later run of the same bundle (same owner, offering and bytes) that `user` may see: where a
    failed run's report sends its reader."""
    later = run_list(user=user).filter(
        owner_id=run.owner_id, offering_id=run.offering_id, bundle_id=run.bundle_id, pk__gt=run.pk
    )
    return later.order_by("-pk").first()


def files_shown(run: AcceptanceRun) -> list[dict[str, Any]]:
    """The bundle's files, a skipped one's reason as `skipped` in the active language (by the message stored
    beside its English; a run from before they were stored, by its English)."""
    return [
        {**f, "skipped": translated(f.get("skipped_message"), translated_text(f["skipped"]))}
        if f.get("skipped")
        else f
        for f in run.files or []
    ]


def findings_shown(run: AcceptanceRun) -> list[dict[str, Any]]:
    """The run's findings, each with `shown`: its sentence in the active language (as indicator_basis)."""
    findings = run.findings or []
    return [{**f, "shown": translated(f.get("message"), translated_text(f.get("text")))} for f in findings]


def public_runs_for(offering: Offering, limit: int = 5) -> list[AcceptanceRun]:
    return list(
        AcceptanceRun.objects.filter(
            offering=offering, visibility=AcceptanceRun.Visibility.PUBLIC, status=AcceptanceRun.Status.DONE
        )
        .select_related("owner")
        .order_by("-finished_at", "-id")[:limit]
    )


def offering_page_acceptance(offering: Offering) -> dict[str, Any]:
    """The offering page's acceptance section: public runs, dated, each indicator measured beside claimed
    (registered in AcceptanceConfig.ready)."""
    return {
        "acceptance_runs": [
            {"run": run, "rows": verdict_rows(run), "date": run.finished_at}
            for run in public_runs_for(offering)
        ]
    }


def quote_section(*, owner: Any, offering: Offering, limit: int = 3) -> list[dict[str, Any]]:
    """The acceptance tests a quote freezes: the buyer's own and public finished runs of the offering,
    newest first, as plain JSON (date, verdict, measured beside claimed, findings)."""
    runs = (
        run_list(user=owner, offering_slug=offering.slug)
        .filter(status=AcceptanceRun.Status.DONE)
        .order_by("-finished_at", "-id")[:limit]
    )
    return [
        {
            "id": run.pk,
            "date": run.finished_at.date().isoformat() if run.finished_at else None,
            "verdict": run.verdict,
            "bundle": run.bundle_name,
            "rows": frozen_rows(run),
            "findings": [str(f.get("text")) for f in run.findings or []][:12],
            # beside each finding its message id and values, so the quote shows it in the reader's language
            "finding_messages": [f.get("message") for f in run.findings or []][:12],
        }
        for run in runs
    ]


def pitfall_findings(run: AcceptanceRun, *, shown: bool = False) -> list[dict[str, Any]]:
    """The pitfall findings that cite one of this run's uploads (public ones in the offering's findings,
    private ones in the owner's own), most severe first; `shown`: titles in the page's language."""
    from checks.models import CONTEXT_CLAIMS, context_for_private_evidence
    from checks.selectors import finding_list

    upload_ids = {f.get("upload") for f in run.files or [] if f.get("upload")}
    if not upload_ids:
        return []
    contexts = [CONTEXT_CLAIMS, context_for_private_evidence(run.owner_id)]
    out = []
    for finding in finding_list(user=run.owner, offering=run.offering).filter(context__in=contexts):
        cited = [ref for ref in finding.evidence or [] if ref.get("upload_id") in upload_ids]
        if cited:
            out.append(
                {
                    "code": finding.code,
                    "severity": finding.severity,
                    "title": finding.shown_title if shown else finding.title,
                    "files": sorted({str(ref.get("file")) for ref in cited}),
                }
            )
    return out


def compare_blocks(offerings: list[Offering], per_offering: int = 2) -> list[dict[str, Any]]:
    """For the compare page, in one query: each offering with public finished runs, its latest runs."""
    by_offering: dict[int, list[AcceptanceRun]] = {}
    runs = AcceptanceRun.objects.filter(
        offering__in=[o.pk for o in offerings],
        visibility=AcceptanceRun.Visibility.PUBLIC,
        status=AcceptanceRun.Status.DONE,
    ).order_by("-finished_at", "-id")
    for run in runs:
        bucket = by_offering.setdefault(run.offering_id, [])
        if len(bucket) < per_offering:
            bucket.append(run)
    return [
        {
            "offering": o,
            "acceptance_runs": [
                {"run": r, "rows": verdict_rows(r), "date": r.finished_at} for r in by_offering[o.pk]
            ],
        }
        for o in offerings
        if o.pk in by_offering
    ]
