"""Reads of requests for quote: who sees which request and which answers, and the comparison.

A buyer sees their own requests and every answer to them; a provider representative sees only the requests
addressed to their provider and only their provider's answers (never a competitor's price); staff see all.
"""

from __future__ import annotations

from decimal import Decimal
from types import SimpleNamespace
from typing import Any

from django.db.models import Prefetch, QuerySet
from django.http import Http404

from rfq.models import Answer, RequestForQuote, RfqEvent
from rfq.proposal import answer_used
from sizing.ranking import rank_key


def is_representative(user: Any) -> bool:
    return bool(getattr(user, "role", None) == "provider" and getattr(user, "provider_id", None))


def rfq_queryset() -> QuerySet[RequestForQuote]:
    return RequestForQuote.objects.select_related("buyer", "workload").prefetch_related(
        "offerings__provider",
        Prefetch(
            "answers",
            queryset=Answer.objects.select_related("offering__provider", "representative").order_by(
                "-created_at", "-id"
            ),
        ),
    )


def rfq_list(*, user: Any) -> QuerySet[RequestForQuote]:
    """The requests `user` may see, newest first."""
    qs = rfq_queryset()
    if not getattr(user, "is_authenticated", False):
        return qs.none()
    if getattr(user, "is_curator", False):
        return qs
    if is_representative(user):
        return qs.filter(offerings__provider_id=user.provider_id).distinct()
    return qs.filter(buyer=user)


def rfq_get(*, user: Any, rfq_id: int) -> RequestForQuote:
    """One request `user` may see (Http404 otherwise: one addressed elsewhere does not exist for them)."""
    rfq = rfq_list(user=user).filter(pk=rfq_id).first()
    if rfq is None:
        raise Http404("No such request for quote.")
    return rfq


def offerings_for(*, user: Any, rfq: RequestForQuote) -> list[Any]:
    """The addressed offerings `user` deals with: all for the buyer and staff, their provider's for a rep."""
    offerings = list(rfq.offerings.all())
    if is_representative(user) and not getattr(user, "is_curator", False):
        return [o for o in offerings if o.provider_id == user.provider_id]
    return offerings


def answers_for(*, user: Any, rfq: RequestForQuote) -> list[Answer]:
    """Every answer `user` may see, newest first."""
    visible = {o.pk for o in offerings_for(user=user, rfq=rfq)}
    return [a for a in rfq.answers.all() if a.offering_id in visible]


def latest_answers(*, rfq: RequestForQuote) -> dict[int, Answer]:
    """The answer in force per offering: the latest one (earlier answers stay for the audit)."""
    latest: dict[int, Answer] = {}
    for answer in rfq.answers.all():  # newest first
        latest.setdefault(answer.offering_id, answer)
    return latest


def _deadline(rfq: RequestForQuote, ready_in_days: float | None) -> tuple[float | None, bool | None]:
    deadline = rfq.workload.deadline_days
    if deadline is None or ready_in_days is None:
        return deadline, None
    return deadline, ready_in_days <= deadline


def comparison_row(rfq: RequestForQuote, answer: Answer) -> dict[str, Any]:
    """One comparison row: the run result fields of the answer's sizing, the answer used and the deadline
    (delivery plus training, against the workload's deadline)."""
    result = answer.result or {}
    row = {key: value for key, value in result.items() if key not in ("sizing", "bill")}
    train_days = result.get("train_days")
    ready = None if train_days is None else round(answer.delivery_weeks * 7 + float(train_days), 1)
    deadline, met = _deadline(rfq, ready)
    row.update(
        offering=answer.offering.slug,
        offering_name=answer.offering.shown_title,  # the request's language (English: "Provider: Offering")
        delivery_weeks=answer.delivery_weeks,
        ready_in_days=ready,
        deadline_days=deadline,
        deadline_met=met,
        answer_used=answer_used(answer),
    )
    return row


def _rank(rfq: RequestForQuote, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Order by the planner's ranking, with "days" the days until the trained model (delivery + training)."""

    def key(position: int) -> tuple[Any, ...]:
        row = rows[position]
        cost = row.get("cost_total_usd")
        shim = SimpleNamespace(
            feasible=bool(row.get("feasible")),
            cost_total_usd=None if cost is None else Decimal(str(cost)),
            cost_complete=bool(row.get("cost_complete")),
            train_days=row.get("ready_in_days"),
            offering_id=row["offering"],
        )
        return rank_key(
            shim, rfq.objective, deadline_days=rfq.workload.deadline_days, budget_usd=rfq.workload.budget_usd
        )

    ordered = [rows[i] for i in sorted(range(len(rows)), key=key)]
    for position, row in enumerate(ordered, start=1):
        row["rank"] = position
    return ordered


def comparison(*, rfq: RequestForQuote, latest: dict[int, Answer] | None = None) -> dict[str, Any]:
    """The planner run over the answered proposals: `status` (waiting: no answer yet; partial: some
    addressed offerings not answered; done: all answered) and the ranked `results`. `latest`: the answers in
    force (latest_answers) when the caller has them already."""
    if latest is None:
        latest = latest_answers(rfq=rfq)
    addressed = {o.pk for o in rfq.offerings.all()}
    rows = _rank(rfq, [comparison_row(rfq, answer) for answer in latest.values()])
    if not latest:
        status = "waiting"
    elif addressed - set(latest):
        status = "partial"
    else:
        status = "done"
    unanswered = sorted(o.slug for o in rfq.offerings.all() if o.pk not in latest)
    return {"status": status, "results": rows, "unanswered": unanswered}


def rfq_events(*, rfq: RequestForQuote) -> QuerySet[RfqEvent]:
    return rfq.events.select_related("user", "offering").order_by("at", "id")
