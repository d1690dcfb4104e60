"""Writes of the quotes app: issue a quote (freezing everything it shows), share links, the cached PDF."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import secrets
from datetime import timedelta
from decimal import Decimal
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.db import IntegrityError, transaction
from django.utils import timezone, translation
from django.utils.translation import gettext_noop

from acceptance.selectors import quote_section as acceptance_quote_section
from checks.checklist import checklist, messages_by_key
from checks.rules import run_rules
from checks.selectors import evidence_for_offering
from hardware.messages import Msg, _, joined, messages_of
from portal.money import Money
from portal.task_pool import enqueue
from providers.currency import display_for
from providers.facts import FACTS, GROUPS
from providers.models import Offering
from quotes.models import PdfStatus, Quote
from sizing import bill as bill_module
from sizing.models import PlanResult, PlanRun, Workload, layout_text
from sizing.services import NO_SUCH_WORKLOAD, WORKLOAD_FIELDS, size_offering

VALIDITY_DAYS = getattr(settings, "QUOTES_VALIDITY_DAYS", 30)
# A PDF still "rendering" after this long lost its worker: the next request enqueues it again.
RENDER_STALE_S = getattr(settings, "QUOTES_RENDER_STALE_S", settings.CELERY_TASK_TIME_LIMIT + 60)
# Bumped whenever the PDF template or renderer changes what a PDF looks like (new cache key).
RENDERER_VERSION = "2"
# Free-text labels that restate another fact; their absence is not a question for the provider.
LABEL_FACTS = {
    "gpu_label",
    "fabric_label",
    "scheduler_label",
    "fees_note",
    "sla_text",
    "regions",
    "compliance",
}

# The refusals of issuing a quote, as messages: the API prints their English (str of the Msg), the pages
# show them in their language (sizing.input_errors.refusal_shown). Values as sent are quoted, “x”.
NO_OFFERING = gettext_noop("no offering with the slug “%(slug)s”")
NOTHING_TO_QUOTE = gettext_noop("nothing to quote: %(reasons)s")
DOES_NOT_FIT = gettext_noop("the workload does not fit this offering")
NO_PLAN = gettext_noop("the offering has no billing plan named “%(plan)s”")
NO_SUCH_RUN = gettext_noop("no such run")
NO_RESULT = gettext_noop("run %(run)s has no result for “%(slug)s”")
RUN_OR_WORKLOAD = gettext_noop("give a run, or a workload with the offering")
NO_SHARE_LINK = gettext_noop("could not create a share link, try again")


def _json(value: Any) -> Any:
    """Plain JSON: Decimals as exact strings, dates as ISO."""
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, dt.date | dt.datetime):
        return value.isoformat()
    if isinstance(value, dict):
        return {str(k): _json(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_json(v) for v in value]
    return value


def _source_dict(source: Any) -> dict[str, Any]:
    return {
        "key": source.key,
        "title": source.title,
        "url": source.url,
        "date_text": source.date_text,
        "kind": source.kind,
    }


def _offering_for_quote(slug: str) -> Offering:
    offering = (
        Offering.objects.select_related("provider", "gpu")
        .prefetch_related("plans__sources", "provenance__sources")
        .filter(slug=slug)
        .first()
    )
    if offering is None:
        raise ValidationError({"offering": _(NO_OFFERING, slug=slug)})
    return offering


def _sizing_reasons(sizing: dict[str, Any]) -> Msg:
    """Why the engine could not size the offering: its reasons joined by "; " (the English the API always
    printed), each a message where the sizing stored one beside it (`reason_messages`)."""
    reasons = [str(r) for r in sizing.get("reasons") or []]
    if not reasons:
        return _(DOES_NOT_FIT)
    stored = sizing.get("reason_messages")
    messages = stored if isinstance(stored, list) and len(stored) == len(reasons) else [None] * len(reasons)
    return joined(*(Msg.from_json(m, r) for r, m in zip(reasons, messages, strict=True)), sep=_("; "))


def _plan_bill(
    facts: dict[str, Any], sizing: dict[str, Any], workload: dict[str, Any], plan_name: str | None
) -> dict[str, Any]:
    """The full bill (sizing.bill), under the named plan when one is given instead of the cheapest."""
    if sizing.get("feasible") is False or not sizing.get("gpus") or sizing.get("train_days") is None:
        raise ValidationError({"offering": _(NOTHING_TO_QUOTE, reasons=_sizing_reasons(sizing))})
    full = bill_module.full_bill(facts, sizing, workload)
    if plan_name and plan_name != full["plan"]["name"]:
        plans = [p for p in facts.get("billing_plans") or [] if p.get("name") == plan_name]
        if not plans:
            raise ValidationError({"plan": _(NO_PLAN, plan=plan_name)})
        job, notes = bill_module.job_from_sizing(sizing, facts, workload)
        chosen = bill_module.plan_bill(facts, plans[0], job)
        full.update(chosen)
        full["assumptions"] = list(dict.fromkeys(notes + chosen["assumptions"]))
        full["plans"] = [{**p, "chosen": p["name"] == plan_name} for p in full["plans"]]
    return bill_module.to_json(full)


def _open_questions(
    facts: dict[str, Any], bill: dict[str, Any], answers: list[dict[str, Any]]
) -> dict[str, Any]:
    """What the buyer still has to ask the provider: unpublished facts and prices, unknown checklist items."""
    missing = []
    for fact in FACTS:
        if fact.name in LABEL_FACTS:
            continue
        value = facts.get("nodes") if fact.name == "max_nodes" else facts.get(fact.name)
        if value is None or value == []:
            missing.append(
                {"fact": fact.name, "label": fact.label, "group": GROUPS[fact.group], "unit": fact.unit}
            )
    unpriced_plans = [
        p["name"] for p in facts.get("billing_plans") or [] if p.get("price_usd_per_gpu_hour") is None
    ]
    lines = [
        {"item": ln["item"], "note": ln.get("note") or ""}
        for ln in bill.get("lines") or []
        if not ln.get("published", True)
    ]
    questions = [
        {"key": a["key"], "question": a["question"], "why": a["why"], "answer": a["answer"]}
        for a in answers
        if a["status"] == "unknown"
    ]
    return {"facts": missing, "plans": unpriced_plans, "bill_lines": lines, "checklist": questions}


def _workload_dict(workload: Workload) -> dict[str, Any]:
    out: dict[str, Any] = {"id": workload.pk, "name": workload.name, "preset": workload.preset}
    out.update({name: _json(getattr(workload, name)) for name in WORKLOAD_FIELDS})
    return out


def _findings(
    facts: dict[str, Any],
    workload: dict[str, Any],
    sizing: dict[str, Any],
    evidence: Any,
    bill: dict[str, Any],
) -> list[dict[str, Any]]:
    """The findings as the quote keeps them, with their titles' message ids for the quote's language."""
    found = run_rules(facts, workload=workload, sizing=sizing, evidence=evidence, bill=bill)
    return [{**f.as_dict(), "messages": f.messages()} for f in found]


def _bill_messages(bill: dict[str, Any]) -> dict[str, Any]:
    """The message ids of the bill's assumptions and line notes, for the quote's language (the quote API
    shows the bill, not these)."""
    return {
        "bill_assumption_messages": messages_of(bill.get("assumptions") or []),
        "bill_line_note_messages": messages_of(ln.get("note") for ln in bill.get("lines") or []),
    }


def quote_snapshot(
    *,
    owner: Any,
    offering: Offering,
    workload: Workload,
    sizing: dict[str, Any],
    plan_name: str | None,
    objective: str,
    run_id: int | None,
    facts: dict[str, Any] | None = None,
    plans: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """Everything the quote shows, as plain JSON, from the catalog and the sizing as they are now; `facts`
    and `plans` given (a provider's answer to a request for quote) stand in for the catalog's."""
    facts = offering.facts() if facts is None else facts
    rules_workload = workload.to_rules_dict()
    bill = _plan_bill(facts, sizing, rules_workload, plan_name)
    evidence = evidence_for_offering(offering)
    findings = _findings(facts, rules_workload, sizing, evidence, bill)
    answers = checklist(facts, findings, evidence)
    provenance = [
        {
            "group": p.group,
            "label": GROUPS.get(p.group, p.group),
            "as_of": _json(p.as_of),
            "note": p.note,
            "unsure": p.unsure,
            "sources": [_source_dict(s) for s in p.sources.all()],
        }
        for p in sorted(offering.provenance.all(), key=lambda p: list(GROUPS).index(p.group))
    ]
    plans = (
        plans
        if plans is not None
        else [
            {
                **plan.as_dict(),
                "price_usd_per_gpu_hour": _json(plan.price_usd_per_gpu_hour),
                "region": plan.region,
                "as_of": _json(plan.as_of),
                "note": plan.note,
                "sources": [_source_dict(s) for s in plan.sources.all()],
            }
            for plan in offering.plans.all()
        ]
    )
    return _json(
        {
            "buyer": {
                "username": owner.get_username(),
                "name": owner.get_full_name() if hasattr(owner, "get_full_name") else "",
                "email": getattr(owner, "email", "") or "",
            },
            "offering": {
                "slug": offering.slug,
                "name": offering.name,
                "provider": offering.provider.name,
                "provider_native_name": offering.provider.native_name,
                "provider_website": offering.provider.website,
                "fictional": offering.fictional,
                "summary": offering.summary,
            },
            "facts": facts,
            "provenance": provenance,
            "plans": plans,
            "plan": bill["plan"],
            "workload": _workload_dict(workload),
            "objective": objective,
            "run": run_id,
            "sizing": sizing,
            "layout_text": layout_text(sizing.get("layout")),
            "bill": bill,
            "findings": findings,
            "checklist": [{**a, "messages": messages_by_key(a)} for a in answers],
            **_bill_messages(bill),
            "open_questions": _open_questions(facts, bill, answers),
            "acceptance": acceptance_quote_section(owner=owner, offering=offering),
        }
    )


def _version(snapshot: dict[str, Any]) -> str:
    text = json.dumps(snapshot, sort_keys=True, separators=(",", ":")) + "|renderer=" + RENDERER_VERSION
    return hashlib.sha256(text.encode()).hexdigest()


def quote_language() -> str:
    """The active language (the request's, set by LocaleMiddleware) if the portal offers it, else English."""
    active = translation.get_language() or settings.LANGUAGE_CODE
    offered = {code for code, _ in settings.LANGUAGES}
    return active if active in offered else settings.LANGUAGE_CODE


def quote_money(*, owner: Any, currency: str | None) -> Money:
    """The currency a quote is issued in: the one asked (the page's), else the buyer's setting; yuan only
    with a recorded rate, which the quote keeps (the rate, its source and date) so it never changes."""
    return display_for(currency or getattr(owner, "currency", None)).money


def _save_quote(
    *,
    owner: Any,
    offering: Offering,
    workload: Workload,
    run: PlanRun | None,
    snapshot: dict[str, Any],
    currency: str | None = None,
) -> Quote:
    today = timezone.localdate()
    money = quote_money(owner=owner, currency=currency)
    if money.converted:
        snapshot = {**snapshot, "fx": money.as_dict()}
    bill = snapshot["bill"]
    total = bill.get("total_usd")
    language = quote_language()
    # The name kept beside the snapshot is written in the quote's own language, as its PDF is (the list page
    # names the offering in the reader's language from the snapshot's parts: Quote.shown_offering_name).
    with translation.override(language):
        offering_name = offering.shown_title
    with transaction.atomic():
        quote = Quote(
            owner=owner,
            number=f"pending-{secrets.token_hex(8)}",
            issued_on=today,
            valid_until=today + timedelta(days=VALIDITY_DAYS),
            offering=offering,
            run=run,
            workload=workload,
            offering_name=offering_name[:600],
            plan_name=(bill["plan"].get("name") or "")[:200],
            language=language,
            total_usd=Decimal(total) if total is not None else None,
            complete=bool(bill.get("complete")),
            snapshot={},
            version="",
        )
        quote.full_clean(exclude=["snapshot", "version"])
        quote.save()
        # The number is the row id: unique without a counter table, readable on the phone.
        quote.number = f"CS-{today.year}-{quote.pk:06d}"
        snapshot = {
            **snapshot,
            "number": quote.number,
            "issued_on": today.isoformat(),
            "valid_until": quote.valid_until.isoformat(),
        }
        quote.snapshot = snapshot
        quote.version = _version(snapshot)
        quote.save(update_fields=["number", "snapshot", "version"])
    return quote


def quote_create_from_result(
    *, owner: Any, run_id: int, offering_slug: str, plan_name: str | None = None, currency: str | None = None
) -> Quote:
    """Issue a quote from one result of the owner's planner run (ValidationError naming the bad field)."""
    run = PlanRun.objects.select_related("workload").filter(pk=run_id, owner=owner).first()
    if run is None:
        raise ValidationError({"run": _(NO_SUCH_RUN)})
    result = PlanResult.objects.filter(run=run, offering__slug=offering_slug).first()
    if result is None:
        raise ValidationError({"offering": _(NO_RESULT, run=run_id, slug=offering_slug)})
    offering = _offering_for_quote(offering_slug)
    # The bill is recomputed from the run's sizing with today's prices, so the quote's prices, sources and
    # bill agree with each other even when the catalog changed after the run.
    snapshot = quote_snapshot(
        owner=owner,
        offering=offering,
        workload=run.workload,
        sizing=result.sizing or {},
        plan_name=plan_name,
        objective=run.objective,
        run_id=run.pk,
    )
    return _save_quote(
        owner=owner, offering=offering, workload=run.workload, run=run, snapshot=snapshot, currency=currency
    )


def _issue_without_run(
    owner: Any,
    offering: Offering,
    workload: Workload,
    sizing: dict[str, Any],
    objective: str,
    *,
    plan_name: str | None = None,
    facts: dict[str, Any] | None = None,
    plans: list[dict[str, Any]] | None = None,
    proposal: dict[str, Any] | None = None,
    currency: str | None = None,
) -> Quote:
    """A quote sized outside a planner run; a provider's answer (`facts`, `plans`, `proposal`) stands in
    for the catalog and is kept in the snapshot."""
    snapshot = quote_snapshot(
        owner=owner,
        offering=offering,
        workload=workload,
        sizing=sizing,
        plan_name=plan_name,
        objective=objective,
        run_id=None,
        facts=facts,
        plans=plans,
    )
    if proposal is not None:
        snapshot["proposal"] = _json(proposal)
    return _save_quote(
        owner=owner, offering=offering, workload=workload, run=None, snapshot=snapshot, currency=currency
    )


def quote_create_for_offering(
    *,
    owner: Any,
    offering_slug: str,
    workload_id: int,
    plan_name: str | None = None,
    objective: str = "cheapest",
    currency: str | None = None,
) -> Quote:
    """Issue a quote for an offering, the owner's workload and a billing plan, sized now by the engine."""
    workload = Workload.objects.filter(pk=workload_id, owner=owner).first()
    if workload is None:
        raise ValidationError({"workload": _(NO_SUCH_WORKLOAD)})
    offering = _offering_for_quote(offering_slug)
    sizing = size_offering(workload=workload, facts=offering.facts(), objective=objective)["sizing"]
    return _issue_without_run(
        owner, offering, workload, sizing, objective, plan_name=plan_name, currency=currency
    )


def quote_create_from_proposal(
    *,
    owner: Any,
    offering_slug: str,
    workload: Workload,
    sizing: dict[str, Any],
    facts: dict[str, Any],
    plans: list[dict[str, Any]],
    proposal: dict[str, Any],
    objective: str = "cheapest",
    currency: str | None = None,
) -> Quote:
    """Issue a quote from a provider's answer to a request for quote (the rfq app): the answer's facts and
    plan in place of the catalog's, the answer itself kept in the snapshot as `proposal`."""
    if workload.owner_id != owner.pk:
        raise ValidationError({"workload": _(NO_SUCH_WORKLOAD)})
    offering = _offering_for_quote(offering_slug)
    return _issue_without_run(
        owner,
        offering,
        workload,
        sizing,
        objective,
        facts=facts,
        plans=plans,
        proposal=proposal,
        currency=currency,
    )


def quote_create_from_input(*, owner: Any, data: dict[str, Any], currency: str | None = None) -> Quote:
    """quote_create from the validated input of the page form or the API (fields offering, run, workload,
    plan; an empty plan means the cheapest), in the asked currency (else the owner's setting)."""
    return quote_create(
        owner=owner,
        offering_slug=data["offering"],
        run_id=data.get("run"),
        workload_id=data.get("workload"),
        plan_name=data.get("plan") or None,
        currency=currency,
    )


def quote_create(
    *,
    owner: Any,
    offering_slug: str,
    run_id: int | None,
    workload_id: int | None,
    plan_name: str | None,
    currency: str | None = None,
) -> Quote:
    """Issue a quote from a run's result when a run is given, else from the offering and a workload."""
    if run_id:
        return quote_create_from_result(
            owner=owner, run_id=run_id, offering_slug=offering_slug, plan_name=plan_name, currency=currency
        )
    if workload_id is None:
        raise ValidationError({"workload": _(RUN_OR_WORKLOAD)})
    return quote_create_for_offering(
        owner=owner,
        offering_slug=offering_slug,
        workload_id=workload_id,
        plan_name=plan_name,
        currency=currency,
    )


def quote_share(*, quote: Quote) -> Quote:
    """Give the quote a new unguessable read-only link (replaces any earlier one)."""
    for _attempt in range(3):
        quote.share_token = secrets.token_urlsafe(32)
        quote.shared_at = timezone.now()
        try:
            with transaction.atomic():
                quote.save(update_fields=["share_token", "shared_at"])
            return quote
        except IntegrityError:  # a 256-bit collision: astronomically unlikely, but never a 500
            continue
    raise ValidationError(_(NO_SHARE_LINK))


def quote_unshare(*, quote: Quote) -> Quote:
    """Revoke the read-only link: it answers 404 from now on."""
    quote.share_token = None
    quote.shared_at = None
    quote.save(update_fields=["share_token", "shared_at"])
    return quote


# --- PDF --------------------------------------------------------------------------------------------


def pdf_names(quote: Quote) -> tuple[str, str]:
    """Storage names of the full PDF and of the tables-only fallback of this quote version."""
    base = f"quotes/{quote.pk}/{quote.version[:32]}"
    return f"{base}.pdf", f"{base}-tables.pdf"


def quote_pdf_ready(*, quote: Quote) -> str | None:
    """The storage name of the quote's rendered PDF, or None while it has none."""
    full, tables = pdf_names(quote)
    if default_storage.exists(full):
        return full
    if default_storage.exists(tables):
        return tables
    return None


def _enqueue_render(quote_id: int) -> None:
    from quotes.tasks import render_pdf_task

    # Broker down: the quote stays "rendering" and the next request after the grace retries.
    enqueue(render_pdf_task, quote_id, "the PDF of quote")


def quote_pdf_request(*, quote: Quote) -> str | None:
    """The PDF's storage name if it is ready; otherwise enqueue its rendering (once) and return None."""
    name = quote_pdf_ready(quote=quote)
    if name is not None:
        return name
    now = timezone.now()
    stale = now - timedelta(seconds=RENDER_STALE_S)
    claimed = (
        Quote.objects.filter(pk=quote.pk)
        .exclude(pdf_status=PdfStatus.RENDERING, pdf_requested_at__gt=stale)
        .update(pdf_status=PdfStatus.RENDERING, pdf_requested_at=now, pdf_error="")
    )
    if claimed:
        transaction.on_commit(lambda: _enqueue_render(quote.pk))
    quote.refresh_from_db(fields=["pdf_status", "pdf_name", "pdf_error", "pdf_has_charts"])
    # Without a broker the task ran in-process just now.
    return quote_pdf_ready(quote=quote)


def quote_pdf_render(*, quote_id: int) -> str | None:
    """Render the quote's PDF unless this version is already stored; idempotent. Returns its storage name."""
    from quotes import pdf

    quote = Quote.objects.filter(pk=quote_id).first()
    if quote is None:
        return None
    full, tables = pdf_names(quote)
    existing = quote_pdf_ready(quote=quote)
    if existing == full or (existing == tables and not pdf.charts_possible()):
        _mark_ready(quote, existing, has_charts=existing == full)
        return existing
    try:
        data, has_charts = pdf.render_quote_pdf(quote)
    except Exception as exc:
        Quote.objects.filter(pk=quote.pk).update(pdf_status=PdfStatus.FAILED, pdf_error=str(exc)[:2000])
        raise
    name = full if has_charts else tables
    if not default_storage.exists(name):
        name = default_storage.save(name, ContentFile(data))
    _mark_ready(quote, name, has_charts=has_charts)
    return name


def _mark_ready(quote: Quote, name: str, *, has_charts: bool) -> None:
    Quote.objects.filter(pk=quote.pk).update(
        pdf_status=PdfStatus.READY, pdf_name=name, pdf_has_charts=has_charts, pdf_error=""
    )
