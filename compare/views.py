"""The compare page (/compare/?offerings=a,b&workload=...) and its sizing-progress fragment.

Figures come from stored rows only: when the workload's results are missing, a planner run is started
(compare.services) and the page polls it instead of sizing in the request.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils.http import urlencode

from acceptance.selectors import compare_blocks
from compare import charts, selectors, services
from sizing.models import PlanRun, RunStatus


def _errors(exc: ValidationError) -> list[dict[str, str]]:
    if hasattr(exc, "error_dict"):
        return [{"param": field, "message": m} for field, msgs in exc.message_dict.items() for m in msgs]
    return [{"param": "", "message": m} for m in exc.messages]


def _picker_context(request: HttpRequest, *, chosen: list[str], workload: str) -> dict[str, Any]:
    return {
        "picker": selectors.offering_picker_list(),
        "chosen": chosen,
        "workload_choices": selectors.workload_choices(user=request.user),
        "workload_value": workload,
        "min_offerings": selectors.MIN_OFFERINGS,
        "max_offerings": selectors.MAX_OFFERINGS,
    }


def compare_page(request: HttpRequest) -> HttpResponse:
    raw_offerings = request.GET.getlist("offerings")
    raw_workload = request.GET.get("workload", "")
    if not raw_offerings and "workload" not in request.GET:
        return render(request, "compare/pick.html", _picker_context(request, chosen=[], workload=""))
    try:
        slugs = selectors.parse_offering_slugs(raw_offerings)
        offerings = selectors.offering_compare_list(slugs=slugs)
        ref = selectors.workload_resolve(user=request.user, value=raw_workload)
    except ValidationError as exc:
        chosen = [s for v in raw_offerings for s in v.split(",") if s.strip()]
        context = _picker_context(request, chosen=chosen, workload=raw_workload)
        context["errors"] = _errors(exc)
        return render(request, "compare/pick.html", context, status=400)

    ids = [o.pk for o in offerings]
    uploads = selectors.public_uploads(offering_ids=ids)
    panels = [charts.interconnect_panel(offerings, uploads)]
    busbw = charts.busbw_panel(offerings, uploads)
    if busbw:
        panels.append(busbw)
    panels += [charts.usable_panel(offerings, {}), charts.fault_tolerance_panel(offerings)]
    workload_panels: list[dict[str, Any]] = []
    run: PlanRun | None = None
    if ref is not None:
        run = services.compare_run_ensure(user=request.user, ref=ref, offerings=offerings)
        if run.status == RunStatus.DONE:
            results = selectors.run_results_by_offering(run=run, offering_ids=ids)
            label = ref.label
            panels[-2] = charts.usable_panel(offerings, results)
            workload_panels = [
                charts.cost_panel(offerings, results, label),
                charts.cost_per_token_panel(offerings, results, label),
                charts.cost_time_panel(offerings, results, label),
                charts.goodput_panel(offerings, results, label),
            ]
    history = charts.price_history_panel(offerings, selectors.price_points(offering_ids=ids))
    tail = [charts.findings_panel(offerings, selectors.catalog_findings(offering_ids=ids))]
    if history:
        tail.insert(0, history)
    # The address of DESIGN section 8, commas unescaped, whatever form the request came in.
    share_url = f"{reverse('compare:page')}?offerings={','.join(slugs)}"
    if ref is not None:
        share_url += "&" + urlencode({"workload": ref.value})
    context = {
        "offerings": offerings,
        "slugs": ",".join(slugs),
        "share_url": share_url,
        "ref": ref,
        "run": run,
        "panels": panels,
        "workload_panels": workload_panels,
        "tail_panels": tail,
        "workload_choices": selectors.workload_choices(user=request.user),
        "workload_value": ref.value if ref else "",
        # Public acceptance tests, measured beside claimed (failures red), one block per offering.
        "acceptance": compare_blocks(list(offerings)),
    }
    return render(request, "compare/page.html", context)


def sizing_status(request: HttpRequest, run_id: int) -> HttpResponse:
    """The progress fragment the compare page polls; reloads the page once the run is over."""
    run = PlanRun.objects.select_related("owner").filter(pk=run_id).first()
    visible = run is not None and (
        run.owner.get_username() == services.CATALOG_USERNAME
        or (request.user.is_authenticated and run.owner_id == request.user.pk)
    )
    if run is None or not visible:
        raise Http404("no such sizing run")
    response = render(request, "compare/_sizing.html", {"run": run})
    if run.finished and request.headers.get("HX-Request"):
        response["HX-Refresh"] = "true"
    return response
