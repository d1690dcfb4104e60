"""Request-for-quote pages: the buyer's requests and the representative's inbox, a new request, one request
(answers side by side and the comparison for the buyer; the answer form for a representative)."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext, gettext_lazy
from django.views.decorators.http import require_POST

from portal.form_errors import add_form_errors
from portal.money import shown_in
from providers.currency import shown_currency
from providers.facts import FACTS
from providers.names import gpu_vendor, value_names
from providers.selectors import offering_queryset
from rfq import selectors, services
from rfq.forms import AnswerForm, RfqForm
from sizing.input_errors import refusal_shown
from sizing.models import Workload, shown_reason


def _refusal_shown(exc: ValidationError) -> ValidationError:
    """A service's refusal as the page shows it: in the page's language and words, an answered fact's error
    on its field of the answer form (`facts.<name>` -> `fact_<name>`), whose label names it."""
    if hasattr(exc, "error_dict"):
        fields = {
            f"fact_{name.removeprefix('facts.')}" if name.startswith("facts.") else name: errors
            for name, errors in exc.error_dict.items()
        }
        exc = ValidationError(fields)
    return refusal_shown(exc, services.PAGE_REASONS)


@login_required
def rfq_list(request: HttpRequest) -> HttpResponse:
    rfqs = list(selectors.rfq_list(user=request.user)[:200])
    rows = []
    for rfq in rfqs:
        offerings = selectors.offerings_for(user=request.user, rfq=rfq)
        answered = {a.offering_id for a in selectors.answers_for(user=request.user, rfq=rfq)}
        rows.append({"rfq": rfq, "offerings": offerings, "answered": answered})
    context = {"rows": rows, "representative": selectors.is_representative(request.user)}
    return render(request, "rfq/list.html", context)


@login_required
def rfq_new(request: HttpRequest) -> HttpResponse:
    if selectors.is_representative(request.user):
        raise PermissionDenied("Provider representatives answer requests for quote; buyers send them.")
    workloads = list(Workload.objects.filter(owner_id=request.user.pk).order_by("-created_at")[:100])
    offerings = list(offering_queryset().order_by("provider__name", "name"))
    form = RfqForm(request.POST or None, workloads=workloads, offerings=offerings)
    status = 200
    if request.method == "POST":
        status = 400
        if form.is_valid():
            try:
                rfq = services.rfq_create(buyer=request.user, **form.service_kwargs())
            except ValidationError as exc:
                add_form_errors(form, _refusal_shown(exc), None)
            else:
                messages.success(
                    request, gettext("Request sent; the providers' representatives were told by e-mail.")
                )
                return redirect(rfq.get_absolute_url())
    return render(request, "rfq/new.html", {"form": form}, status=status)


def _side_by_side(rfq: Any, answers: dict[int, Any]) -> list[dict[str, Any]]:
    """Rows of the side-by-side table: one per term and per fact any answer gives, one cell per offering."""
    offerings = list(rfq.offerings.select_related("gpu"))
    terms = [
        (gettext_lazy("Price per GPU-hour"), "price_usd_per_gpu_hour"),
        (gettext_lazy("Term (months)"), "term_months"),
        (gettext_lazy("Delivery (weeks)"), "delivery_weeks"),
        (gettext_lazy("Payment terms"), "payment_terms"),
        (gettext_lazy("Minimum nodes"), "min_nodes"),
        (gettext_lazy("Source"), "source_url"),
        (gettext_lazy("As of"), "as_of"),
    ]
    rows = [
        {"label": label, "key": key, "cells": [getattr(answers.get(o.pk), key, None) for o in offerings]}
        for label, key in terms
    ]
    given = {name for a in answers.values() for name in (a.facts or {})}
    for fact in FACTS:
        if fact.name in given:
            cells = [
                (answers[o.pk].facts or {}).get(fact.name) if o.pk in answers else None for o in offerings
            ]
            if fact.type in ("enum", "list"):  # codes by their names, a mesh by the offering GPU's link
                cells = [
                    None if v is None else value_names(fact.name, v, gpu_vendor(o.gpu))
                    for v, o in zip(cells, offerings, strict=True)
                ]
            rows.append({"label": gettext(fact.label), "key": "fact", "cells": cells})
    return rows


@login_required
def rfq_detail(request: HttpRequest, rfq_id: int) -> HttpResponse:
    rfq = selectors.rfq_get(user=request.user, rfq_id=rfq_id)
    services.rfq_view_record(rfq=rfq, user=request.user, where="page")
    representative = selectors.is_representative(request.user) and not getattr(
        request.user, "is_curator", False
    )
    context: dict[str, Any] = {
        "rfq": rfq,
        "representative": representative,
        "offerings": selectors.offerings_for(user=request.user, rfq=rfq),
        "answers": selectors.answers_for(user=request.user, rfq=rfq),
        "is_buyer": rfq.buyer_id == request.user.pk,
    }
    if not representative:
        latest = selectors.latest_answers(rfq=rfq)
        context["all_offerings"] = list(rfq.offerings.select_related("provider"))
        context["side_by_side"] = _side_by_side(rfq, latest)
        context["comparison"] = comparison = selectors.comparison(rfq=rfq, latest=latest)
        # why a proposal cannot run the job, in the page's language (the API keeps the English text)
        slugs = {o.pk: o.slug for o in context["all_offerings"]}
        results = {slugs.get(pk): answer.result or {} for pk, answer in latest.items()}
        for row in comparison["results"]:
            result = results.get(row["offering"], {})
            row["shown_reason"] = shown_reason(row.get("infeasible_reason"), result.get("sizing"))
        # the offerings still to answer by their names (the API lists their slugs)
        waiting = set(comparison["unanswered"])
        context["unanswered_names"] = [o.shown_title for o in context["all_offerings"] if o.slug in waiting]
        context["events"] = (
            selectors.rfq_events(rfq=rfq) if getattr(request.user, "is_curator", False) else None
        )
    return render(request, "rfq/detail.html", context)


@login_required
def answer_new(request: HttpRequest, rfq_id: int, slug: str) -> HttpResponse:
    rfq = selectors.rfq_get(user=request.user, rfq_id=rfq_id)
    offering = next((o for o in selectors.offerings_for(user=request.user, rfq=rfq) if o.slug == slug), None)
    if offering is None or not selectors.is_representative(request.user):
        raise PermissionDenied("You may answer only for your own provider's offerings.")
    form = AnswerForm(request.POST or None, offering=offering)
    status = 200
    if request.method == "POST":
        status = 400
        # the price's bound is written in the page's currency (portal.i18n.money_bound)
        with shown_in(request.currency_display.money):  # type: ignore[attr-defined]
            valid = form.is_valid()
        if valid:
            try:
                services.answer_create(
                    representative=request.user, rfq=rfq, offering_slug=slug, **form.service_kwargs()
                )
            except ValidationError as exc:
                add_form_errors(form, _refusal_shown(exc), None)
            else:
                messages.success(
                    request,
                    gettext("Answer for %(offering)s sent; the buyer was told by e-mail.")
                    % {"offering": offering.name},
                )
                return redirect(rfq.get_absolute_url())
    context = {"rfq": rfq, "offering": offering, "form": form}
    return render(request, "rfq/answer.html", context, status=status)


@login_required
@require_POST
def rfq_quote(request: HttpRequest, rfq_id: int) -> HttpResponse:
    rfq = selectors.rfq_get(user=request.user, rfq_id=rfq_id)
    try:
        quote = services.rfq_quote_create(
            buyer=request.user,
            rfq=rfq,
            offering_slug=request.POST.get("offering") or None,
            currency=shown_currency(request),
        )
    except ValidationError as exc:
        why = gettext("; ").join(" ".join(errors) for errors in _refusal_shown(exc).message_dict.values())
        messages.error(request, gettext("Could not create the quote: %(why)s") % {"why": why})
        return redirect(rfq.get_absolute_url())
    return redirect(quote.get_absolute_url())
