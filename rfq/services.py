"""Writes of requests for quote: send a request, answer it (sized on arrival), record views, turn the
winning proposal into a quote. Each write is audited in RfqEvent; mail goes out after the rows are stored."""

from __future__ import annotations

import datetime as dt
import json
from decimal import Decimal
from typing import Any

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.utils.translation import gettext_noop

from hardware.gpus import LARGEST_CLUSTER_GPUS
from hardware.messages import Msg, _, joined, listed
from portal.i18n import translated_bound_error
from portal.money import amount_text
from providers.facts import FACTS_BY_NAME, PLAN_BOUNDS, PRICE_CAP_USD_PER_GPU_HOUR
from providers.models import Offering
from providers.services import facts_clean, source_check
from quotes.models import Quote
from quotes.services import quote_create_from_proposal
from rfq import notifications, selectors
from rfq.models import Answer, PaymentTerms, RequestForQuote, RfqEvent
from rfq.proposal import answer_plan, answer_used, facts_with_answer
from sizing.models import Workload
from sizing.services import UNKNOWN_OFFERINGS, size_offering_with_findings, workload_create

# Bounds of the inputs (the API serializers and page forms show the same ones).
MAX_OFFERINGS = 20
MAX_GPUS = LARGEST_CLUSTER_GPUS
MAX_QUESTIONS = 20
MAX_QUESTION_CHARS = 2000
# A proposal's price is held to the catalog plans' bound (greater than 0, at most the cap the planner sizes):
# a price the planner cannot size would be stored and then shown as a sizing failure.
PRICE_BOUND = PLAN_BOUNDS["price_usd_per_gpu_hour"]
MAX_PRICE_USD_PER_GPU_HOUR = Decimal(PRICE_CAP_USD_PER_GPU_HOUR)
MAX_TERM_MONTHS = 120
MAX_DELIVERY_WEEKS = 104
MAX_MIN_NODES = 100_000
MAX_MESSAGE_CHARS = 5000

# The refusals of the requests and answers, as messages: the API prints their English (str of the Msg), the
# pages show them in their language (sizing.input_errors.refusal_shown); one naming the facts' keys is worded
# for a page by their labels (PAGE_REASONS).
OFFERINGS_COUNT = gettext_noop("give between 1 and %(most)s offerings, got %(got)s")
GPUS_RANGE = gettext_noop("must be between 1 and %(most)s, got %(got)s")
QUESTIONS_COUNT = gettext_noop("at most %(most)s questions, got %(got)s")
QUESTION_LENGTH = gettext_noop("each question at most %(most)s characters")
NO_WORKLOAD = gettext_noop("no such workload of yours")
TERM_RANGE = gettext_noop("must be between 1 and %(most)s (empty: no minimum term)")
DELIVERY_RANGE = gettext_noop("must be between 0 and %(most)s, got %(got)s")
PAYMENT_TERMS_KNOWN = gettext_noop("must be one of %(codes)s")
MIN_NODES_RANGE = gettext_noop("must be between 1 and %(most)s (empty: no minimum)")
FACT_TEXT = gettext_noop("text of at most %(most)s characters, no NUL")
CANNOT_SIZE = gettext_noop(
    "the planner cannot size this proposal with these values (%(given)s): check their units"
)
THE_TERMS = gettext_noop("the terms")
NOT_ASKED = gettext_noop("“%(slug)s” is not one of the offerings this request asks")
MESSAGE_LENGTH = gettext_noop("at most %(most)s characters")
NO_ANSWER = gettext_noop("no answer for “%(slug)s” in this request")
NO_PROPOSAL_FITS = gettext_noop("no answered proposal fits the workload at the GPU count asked")
# The API's message id -> the page's: the facts by the labels the answer form shows, not their keys.
PAGE_REASONS = {
    CANNOT_SIZE: gettext_noop(
        "the planner cannot size this proposal with these values (%(names)s): check their units"
    ),
}


def event_record(
    *, rfq: RequestForQuote, user: Any, action: str, offering: Offering | None = None, detail: str = ""
) -> RfqEvent:
    """Append one line to the request's audit log."""
    return RfqEvent.objects.create(
        rfq=rfq,
        user=user if getattr(user, "is_authenticated", False) else None,
        username=user.get_username() if getattr(user, "is_authenticated", False) else "",
        action=action,
        offering=offering,
        detail=detail[:500],
    )


def _mail_record(
    *, rfq: RequestForQuote, user: Any, sent: list[str], nobody: str, offering: Offering | None = None
) -> None:
    """The audit line of a notification: the addresses mailed, or why nobody was."""
    detail = "mail to " + (", ".join(sent) if sent else f"nobody ({nobody})")
    event_record(rfq=rfq, user=user, action=RfqEvent.Action.NOTIFIED, offering=offering, detail=detail)


def _check_request(offering_slugs: list[str], gpus: int, questions: list[str]) -> list[Offering]:
    errors: dict[str, Msg] = {}
    slugs = list(dict.fromkeys(offering_slugs))
    if not 1 <= len(slugs) <= MAX_OFFERINGS:
        errors["offerings"] = _(OFFERINGS_COUNT, most=MAX_OFFERINGS, got=len(slugs))
    offerings = list(Offering.objects.select_related("provider").filter(slug__in=slugs))
    missing = sorted(set(slugs) - {o.slug for o in offerings})
    if missing:
        errors["offerings"] = _(UNKNOWN_OFFERINGS, slugs=listed(missing))
    if not 1 <= gpus <= MAX_GPUS:
        errors["gpus"] = _(GPUS_RANGE, most=MAX_GPUS, got=gpus)
    if len(questions) > MAX_QUESTIONS:
        errors["questions"] = _(QUESTIONS_COUNT, most=MAX_QUESTIONS, got=len(questions))
    elif any(len(q) > MAX_QUESTION_CHARS for q in questions):
        errors["questions"] = _(QUESTION_LENGTH, most=MAX_QUESTION_CHARS)
    if errors:
        raise ValidationError(errors)
    return offerings


def _workload_for(
    *, buyer: Any, workload_id: int | None, preset: str, deadline_days: float | None
) -> Workload:
    if preset:
        return workload_create(owner=buyer, preset=preset, deadline_days=deadline_days)
    workload = Workload.objects.filter(pk=workload_id, owner=buyer).first() if workload_id else None
    if workload is None:
        raise ValidationError({"workload": _(NO_WORKLOAD)})
    return workload


def rfq_create(
    *,
    buyer: Any,
    offering_slugs: list[str],
    gpus: int,
    questions: list[str],
    workload_id: int | None = None,
    preset: str = "",
    deadline_days: float | None = None,
) -> RequestForQuote:
    """Send a request for quote on the buyer's workload (or a new one from a preset, with an optional
    deadline) and GPU count to the chosen offerings; their providers' representatives are told by mail."""
    if selectors.is_representative(buyer):
        raise PermissionDenied("Provider representatives answer requests for quote; buyers send them.")
    questions = [q.strip() for q in questions if q and q.strip()]
    offerings = _check_request(offering_slugs, gpus, questions)
    with transaction.atomic():
        workload = _workload_for(
            buyer=buyer, workload_id=workload_id, preset=preset, deadline_days=deadline_days
        )
        rfq = RequestForQuote(buyer=buyer, workload=workload, gpus=gpus, questions=questions)
        rfq.full_clean()
        rfq.save()
        rfq.offerings.set(offerings)
        event_record(
            rfq=rfq, user=buyer, action=RfqEvent.Action.CREATED, detail=f"{len(offerings)} offering(s)"
        )
    _mail_record(
        rfq=rfq,
        user=buyer,
        sent=notifications.notify_representatives(rfq),
        nobody="no representative with an e-mail address",
    )
    return rfq


def _check_answer_terms(
    *, price: Decimal, term_months: int | None, delivery_weeks: int, payment_terms: str, min_nodes: int | None
) -> None:
    errors: dict[str, str] = {}
    if (message := translated_bound_error(PRICE_BOUND, float(price))) is not None:
        errors["price_usd_per_gpu_hour"] = message
    if term_months is not None and not 1 <= term_months <= MAX_TERM_MONTHS:
        errors["term_months"] = _(TERM_RANGE, most=MAX_TERM_MONTHS)
    if not 0 <= delivery_weeks <= MAX_DELIVERY_WEEKS:
        errors["delivery_weeks"] = _(DELIVERY_RANGE, most=MAX_DELIVERY_WEEKS, got=delivery_weeks)
    if payment_terms not in PaymentTerms.values:
        errors["payment_terms"] = _(PAYMENT_TERMS_KNOWN, codes=listed(PaymentTerms.values))
    if min_nodes is not None and not 1 <= min_nodes <= MAX_MIN_NODES:
        errors["min_nodes"] = _(MIN_NODES_RANGE, most=MAX_MIN_NODES)
    if errors:
        raise ValidationError(errors)


def _answer_facts(facts: dict[str, Any]) -> dict[str, Any]:
    """The answer's facts checked with the fact bounds, as JSON (exact decimals as text)."""
    for name, value in facts.items():
        if isinstance(value, str) and ("\x00" in value or len(value) > MAX_MESSAGE_CHARS):
            raise ValidationError({f"facts.{name}": _(FACT_TEXT, most=MAX_MESSAGE_CHARS)})
    try:
        clean = facts_clean(facts)
    except ValidationError as exc:
        raise ValidationError({f"facts.{k}": v for k, v in exc.message_dict.items()}) from exc
    return {k: str(v) if isinstance(v, Decimal) else v for k, v in clean.items()}


def answer_size(*, answer: Answer) -> dict[str, Any]:
    """The planner's result for the proposal: the catalog's facts with the answer's in their place, sized at
    the request's GPU count. Run result fields plus the sizing and the bill."""
    rfq = answer.rfq
    offering = (
        Offering.objects.select_related("provider", "gpu")
        .prefetch_related("plans")
        .get(pk=answer.offering_id)
    )
    facts = facts_with_answer(offering.facts(), answer)
    values, _findings = size_offering_with_findings(
        workload=rfq.workload, facts=facts, objective=rfq.objective, gpus=rfq.gpus
    )
    sizing = values["sizing"]
    cost = values["cost_total_usd"]
    return {
        "offering": offering.slug,
        "feasible": values["feasible"],
        "layout": values["layout"],
        "gpus": values["gpus"],
        "nodes": values["nodes"],
        "train_days": values["train_days"],
        "mfu": values["mfu"],
        "goodput": values["goodput"],
        "cost_total_usd": None if cost is None else str(cost),
        "cost_low_usd": amount_text(values.get("cost_low_usd")),
        "cost_high_usd": amount_text(values.get("cost_high_usd")),
        "cost_complete": values["cost_complete"],
        "plan": values["plan_name"] or None,
        "findings": values["findings"],
        "sample": values.get("sample", False),
        "assumptions": values.get("assumptions", []),
        "pessimistic": values.get("pessimistic"),
        "infeasible_reason": None if values["feasible"] else "; ".join(sizing.get("reasons") or []) or None,
        "sizing": sizing,
        "bill": values["bill"],
    }


def _sized_or_refused(answer: Answer) -> dict[str, Any]:
    """answer_size, or a ValidationError naming `facts` when the planner cannot size the values: the fact
    bounds (providers/facts.py) give lower bounds but few upper ones, and a value far outside what the model
    covers (1e300 Gb/s, a zero failure-free time) ends in a division by zero or a non-finite result."""
    try:
        result = answer_size(answer=answer)
        json.dumps(result, allow_nan=False)
    except (ArithmeticError, ValueError) as exc:
        keys = sorted(answer.facts)
        given = ", ".join(keys) or _(THE_TERMS)
        labels = [Msg(FACTS_BY_NAME[k].label) if k in FACTS_BY_NAME else k for k in keys]
        names = joined(*labels, sep=_(", ")) if labels else _(THE_TERMS)
        raise ValidationError({"facts": _(CANNOT_SIZE, given=given, names=names)}) from exc
    return result


def _answerable_offering(*, representative: Any, rfq: RequestForQuote, offering_slug: str) -> Offering:
    offering = next((o for o in rfq.offerings.all() if o.slug == offering_slug), None)
    if offering is None:
        raise ValidationError({"offering": _(NOT_ASKED, slug=offering_slug)})
    curator = getattr(representative, "is_curator", False)
    if curator or not selectors.is_representative(representative):
        raise PermissionDenied("Only a representative of the offering's provider answers for it.")
    if representative.provider_id != offering.provider_id:
        raise PermissionDenied("You may answer only for your own provider's offerings.")
    return offering


def answer_create(
    *,
    representative: Any,
    rfq: RequestForQuote,
    offering_slug: str,
    price_usd_per_gpu_hour: Decimal,
    delivery_weeks: int,
    payment_terms: str,
    source_url: str,
    as_of: dt.date | None,
    term_months: int | None = None,
    min_nodes: int | None = None,
    facts: dict[str, Any] | None = None,
    message: str = "",
) -> Answer:
    """A representative's proposal for one addressed offering of their provider: refused without a source
    and a date or with facts outside the fact bounds; sized at once; the buyer is told by mail."""
    offering = _answerable_offering(representative=representative, rfq=rfq, offering_slug=offering_slug)
    as_of = source_check(source_url, as_of)
    _check_answer_terms(
        price=price_usd_per_gpu_hour,
        term_months=term_months,
        delivery_weeks=delivery_weeks,
        payment_terms=payment_terms,
        min_nodes=min_nodes,
    )
    if len(message) > MAX_MESSAGE_CHARS:
        raise ValidationError({"message": _(MESSAGE_LENGTH, most=MAX_MESSAGE_CHARS)})
    answer = Answer(
        rfq=rfq,
        offering=offering,
        representative=representative,
        price_usd_per_gpu_hour=price_usd_per_gpu_hour,
        term_months=term_months,
        delivery_weeks=delivery_weeks,
        payment_terms=payment_terms,
        min_nodes=min_nodes,
        facts=_answer_facts(facts or {}),
        source_url=source_url,
        as_of=as_of,
        message=message,
    )
    answer.full_clean(exclude=["result"])
    with transaction.atomic():
        answer.save()
        answer.result = _sized_or_refused(answer)
        answer.save(update_fields=["result"])
        detail = (
            f"${price_usd_per_gpu_hour}/GPU-h, {delivery_weeks} weeks, {payment_terms}; source {source_url}"
        )
        event_record(
            rfq=rfq, user=representative, action=RfqEvent.Action.ANSWERED, offering=offering, detail=detail
        )
    _mail_record(
        rfq=rfq,
        user=representative,
        offering=offering,
        sent=notifications.notify_buyer(answer),
        nobody="the buyer is not reachable by e-mail",
    )
    return answer


def rfq_view_record(*, rfq: RequestForQuote, user: Any, where: str) -> None:
    """Audit one look at a request (`where`: page or API)."""
    event_record(rfq=rfq, user=user, action=RfqEvent.Action.VIEWED, detail=where)


def rfq_quote_create(
    *, buyer: Any, rfq: RequestForQuote, offering_slug: str | None = None, currency: str | None = None
) -> Quote:
    """Turn a proposal into a quote (default: the comparison's winner), with the answer's facts, price and
    source in the quote in place of the catalog's."""
    if rfq.buyer_id != buyer.pk:
        raise PermissionDenied("Only the buyer who sent the request turns an answer into a quote.")
    rows = selectors.comparison(rfq=rfq)["results"]
    if offering_slug:
        rows = [r for r in rows if r["offering"] == offering_slug]
        if not rows:
            raise ValidationError({"offering": _(NO_ANSWER, slug=offering_slug)})
    row = next((r for r in rows if r.get("feasible")), None)
    if row is None:
        raise ValidationError({"offering": _(NO_PROPOSAL_FITS)})
    answer = Answer.objects.select_related("rfq").get(pk=row["answer_used"]["id"], rfq=rfq)
    offering = (
        Offering.objects.select_related("provider", "gpu")
        .prefetch_related("plans")
        .get(pk=answer.offering_id)
    )
    plan = answer_plan(answer)
    source = {
        "key": f"rfq-{rfq.pk}-answer-{answer.pk}",
        "title": f"Answer to request for quote #{rfq.pk}",
        "url": answer.source_url,
        "date_text": answer.as_of.isoformat(),
        "kind": "answer to a request for quote",
    }
    quote = quote_create_from_proposal(
        owner=buyer,
        offering_slug=offering.slug,
        workload=rfq.workload,
        sizing=answer.result.get("sizing") or {},
        facts=facts_with_answer(offering.facts(), answer),
        plans=[{**plan, "region": "", "as_of": answer.as_of.isoformat(), "note": "", "sources": [source]}],
        proposal={"rfq": rfq.pk, **answer_used(answer)},
        objective=rfq.objective,
        currency=currency,
    )
    event_record(rfq=rfq, user=buyer, action=RfqEvent.Action.QUOTED, offering=offering, detail=quote.number)
    return quote
