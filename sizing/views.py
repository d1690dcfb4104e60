"""Pages of the planner: /plan/ (new workload and run), /plan/<run>/ (progress and ranking), one result."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.db import transaction
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.html import format_html
from django.utils.translation import gettext
from django.views.decorators.http import require_POST

from portal.form_errors import add_form_errors
from portal.i18n import data_quantity_shown, shown, translated, translated_list, translated_text
from portal.money import shown_in
from providers.names import gpu_vendor
from sizing import selectors, services
from sizing.bill import LINE_ITEM_LABELS, compute_unpriced
from sizing.engine.accuracy import accuracy_sentence
from sizing.engine.unpublished import fact_value_text, fact_words
from sizing.engine_words import page_worded_list
from sizing.filters import RunResultFilterSet
from sizing.forms import PlanForm
from sizing.input_errors import refusal_shown
from sizing.models import Objective
from sizing.presets import preset_label
from sizing.run_errors import run_error_shown
from sizing.summary import (
    ITERATION_LABELS,
    MEMORY_LABELS,
    head_facts,
    labelled,
    layer_detail_facts,
    pessimistic_sentence,
    result_sentence,
    tokens_text,
    winner_sentence,
)


def _add_errors(form: PlanForm, exc: ValidationError) -> None:
    add_form_errors(form, refusal_shown(exc), None)


@login_required
def plan_new(request: HttpRequest) -> HttpResponse:
    form = PlanForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            with transaction.atomic():
                workload = services.workload_create(
                    owner=request.user, name=data["name"], preset=data["preset"], **form.workload_fields()
                )
                run = services.plan_run_create(
                    owner=request.user,
                    workload=workload,
                    offering_slugs=data["offerings"] or None,
                    objective=data["objective"],
                    gpus=data["gpus"],
                    include_samples=data["include_samples"],
                )
            return redirect(run.get_absolute_url())
        except ValidationError as exc:
            _add_errors(form, exc)
    # the link follows the lead sentence as the page's language writes sentences in a row (`sentences`)
    words = gettext("Your workloads and runs")
    workloads = format_html('<a href="{}">{}</a>', reverse("sizing:workloads"), words)
    return render(request, "sizing/plan.html", {"form": form, "workloads_link": workloads})


@login_required
def workload_list(request: HttpRequest) -> HttpResponse:
    return render(
        request,
        "sizing/workloads.html",
        {
            "workloads": [
                {
                    "workload": w,
                    # by their names and in words, never their codes or a raw float (14800000000000.0)
                    "preset_label": preset_label(w.preset),
                    "tokens_text": tokens_text(w.train_tokens),
                    "params_text": tokens_text(w.params),
                    "head_facts": [
                        *head_facts(w),
                        *layer_detail_facts(w),
                        *filter(None, [w.optimizer_shown]),
                    ],
                    # a parameter count alone: the shape the sizing takes for it (derived, or the published
                    # model's its name and count are), which the stored fields do not say
                    "sized_as": services.workload_sized_as(w) if w.layers is None else None,
                }
                for w in selectors.workload_list(owner=request.user)
            ],
            "runs": selectors.run_list(owner=request.user)[:50],
        },
    )


def _run_context(request: HttpRequest, run_id: int) -> dict[str, Any]:
    run = selectors.run_get(owner=request.user, run_id=run_id)
    return {"run": run, "workload": run.workload, "run_error": run_error_shown(run.error, run.error_message)}


@login_required
def run_detail(request: HttpRequest, run_id: int) -> HttpResponse:
    context = _run_context(request, run_id)
    run = context["run"]
    filters = RunResultFilterSet(request.GET or None, run=run)
    # An invalid filter filters nothing (the form names it); the stored results are re-ranked, never re-run.
    valid = filters.is_valid()
    objective = (filters.form.cleaned_data.get("objective") if valid else None) or run.objective
    results = selectors.run_results(run=run, objective=objective, results=filters.qs if valid else None)
    # The recommendation is the winner of the whole run under the chosen objective; filters only narrow
    # the table below it.
    ranked = selectors.run_results(run=run, objective=objective) if filters.narrows else results
    winner = ranked[0] if ranked else None
    context.update(
        filtered=filters.narrows,
        view_form=filters.form,
        objective=objective,
        tokens_text=tokens_text(run.workload.train_tokens),
        objective_label=Objective(objective).label,
        results=selectors.attach_pitfalls(run=run, results=results),
        summary=_summary(request, run.workload.name, winner) if winner and run.finished else "",
        winner=winner,
    )
    return render(request, "sizing/run.html", context)


def _in_page_currency(request: HttpRequest, sentence: Callable[..., str], *args: Any) -> str:
    """A sentence built in Python, its figures in the page's currency (and language)."""
    with shown_in(request.currency_display.money):  # type: ignore[attr-defined]
        return sentence(*args)


def _summary(request: HttpRequest, workload_name: str, result: Any, *, winner: bool = True) -> str:
    """The headline sentence in the page's language and currency: the run's recommendation, or (`winner`
    False) one offering's own result."""
    return _in_page_currency(request, winner_sentence if winner else result_sentence, workload_name, result)


@login_required
def run_progress(request: HttpRequest, run_id: int) -> HttpResponse:
    context = _run_context(request, run_id)
    response = render(request, "sizing/_progress.html", context)
    if context["run"].finished and request.headers.get("HX-Request"):
        # The ranking is on the full page: reload it once the run is over (and stop polling).
        response["HX-Refresh"] = "true"
    return response


@login_required
def result_detail(request: HttpRequest, run_id: int, slug: str) -> HttpResponse:
    context = _run_context(request, run_id)
    result = selectors.result_get(run=context["run"], offering_slug=slug)
    selectors.attach_pitfalls(run=context["run"], results=[result])
    sizing, bill = result.sizing or {}, result.bill or {}
    lines = bill.get("lines", [])
    notes = translated_list([ln.get("note") or "" for ln in lines], bill.get("line_note_messages"))
    context.update(
        result=result,
        sizing=sizing,
        bill=bill,
        no_price=compute_unpriced(bill),
        bill_lines=[
            {
                **ln,
                "label": gettext(LINE_ITEM_LABELS.get(ln["item"], ln["item"])),
                "note": note,
                "shown_quantity": data_quantity_shown(ln.get("quantity"), str(ln.get("unit") or "")),
            }
            for ln, note in zip(lines, notes, strict=True)
        ],
        unknown_fees=[
            {
                **fee,
                "label": gettext(LINE_ITEM_LABELS.get(fee["item"], fee["item"])),
                "basis": translated_text(fee.get("basis")),
            }
            for fee in bill.get("unknown_fees") or []
        ],
        memory=labelled(sizing.get("memory_gib_per_gpu") or {}, MEMORY_LABELS),
        breakdown=labelled(sizing.get("iteration_breakdown_s") or {}, ITERATION_LABELS),
        goodput=sizing.get("goodput") or {},
        goodput_note=translated(
            sizing.get("restart_message"), str((sizing.get("goodput") or {}).get("restart") or "")
        ),
        bill_assumptions=translated_list(bill.get("assumptions"), bill.get("assumption_messages")),
        summary=_summary(request, context["workload"].name, result, winner=False),
        accuracy=shown(accuracy_sentence(sizing.get("accuracy"))),
        explanation=translated_list(
            sizing.get("explanation"), page_worded_list(sizing.get("explanation_messages"))
        ),
        sizing_assumptions=translated_list(
            sizing.get("assumptions"), page_worded_list(sizing.get("assumption_messages"))
        ),
        assumptions=[
            {
                **a,
                "label": translated_text(fact_words(a.get("fact"), gpu_vendor(result.offering.gpu))),
                "value": translated_text(
                    fact_value_text(a.get("fact"), a.get("assumed"), gpu_vendor(result.offering.gpu))
                ),
                "basis": translated_text(a.get("basis")),
            }
            for a in result.assumptions
        ],
        pessimistic=_in_page_currency(request, pessimistic_sentence, result),
    )
    return render(request, "sizing/result.html", context)


@login_required
@require_POST
def run_retry(request: HttpRequest, run_id: int) -> HttpResponse:
    """Queue a failed run again (its stored results are kept); back to its page, which shows the progress."""
    run = selectors.run_get(owner=request.user, run_id=run_id, for_write=True)
    services.plan_run_retry(owner=request.user, run_id=run.pk)
    return redirect(run.get_absolute_url())
