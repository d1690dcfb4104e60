"""The compare page (/compare/?offerings=a,b&workload=...&gpus=N) and the sizing-progress fragment.

A GET only reads: the workload figures size every compared offering at the GPU count the buyer picked
(compare.sized), cached under the catalog version, so no planner run is ever created by viewing a page.
Fictional samples are left out unless `include_samples` is ticked, and are labelled wherever shown.
"""

from __future__ import annotations

from typing import Any

from django.core.cache import cache
from django.core.exceptions import ValidationError
from django.http import Http404, HttpRequest, HttpResponse, QueryDict
from django.shortcuts import render
from django.template.loader import get_template
from django.urls import reverse
from django.utils.http import urlencode
from django.utils.safestring import mark_safe
from django.utils.translation import get_language, gettext_noop
from django.utils.translation import gettext as _

from acceptance.selectors import compare_blocks
from compare import charts, selectors, services, sized
from portal.money import Money, shown_in
from sizing.models import DEFAULT_DEADLINE_DAYS, PlanRun
from sizing.run_errors import run_error_shown

# The address's parameters as the picker form names them (an error names the field, never its code).
PARAM_LABELS = {
    "offerings": gettext_noop("Offerings"),
    "workload": gettext_noop("Workload"),
    "gpus": gettext_noop("GPU count"),
}
GPUS_RANGE = gettext_noop("a whole number of GPUs from %(min)s to %(max)s")


def _errors(exc: ValidationError) -> list[dict[str, str]]:
    if hasattr(exc, "error_dict"):
        return [
            {"param": field, "label": _(PARAM_LABELS.get(field, field)), "message": m}
            for field, msgs in exc.message_dict.items()
            for m in msgs
        ]
    return [{"param": "", "label": "", "message": m} for m in exc.messages]


def _include_samples(query: QueryDict) -> bool:
    return query.get("include_samples", "") in ("1", "true", "on", "yes")


def _picker_context(request: HttpRequest, *, chosen: list[str], workload: str) -> dict[str, Any]:
    samples = _include_samples(request.GET)
    search = request.GET.get("q", "").strip()[:80]
    return {
        "picker": selectors.offering_picker_list(chosen=chosen, include_samples=samples, search=search),
        "picker_limit": selectors.PICKER_LIMIT,
        "search": search,
        "chosen": chosen,
        "include_samples": samples,
        "workload_choices": selectors.workload_choices(user=request.user),
        "workload_value": workload,
        "gpus_value": request.GET.get("gpus", "")[:12],
        "min_offerings": selectors.MIN_OFFERINGS,
        "max_offerings": selectors.MAX_OFFERINGS,
    }


def _parse(request: HttpRequest) -> tuple[list[str], list[Any], Any, int | None, list[Any]]:
    """(slugs, offerings shown, workload ref, GPU count, samples left out); ValidationError naming the
    parameter."""
    slugs = selectors.parse_offering_slugs(request.GET.getlist("offerings"))
    offerings = selectors.offering_compare_list(slugs=slugs)
    left_out: list[Any] = []
    if not _include_samples(request.GET):
        left_out = [o for o in offerings if o.fictional]
        offerings = [o for o in offerings if not o.fictional]
        if left_out and len(offerings) < selectors.MIN_OFFERINGS:
            raise ValidationError(
                {
                    "offerings": _(
                        "%(n)s of the offerings are fictional samples: tick “include fictional samples” to "
                        "compare them, or pick at least %(min)s real offerings"
                    )
                    % {"n": len(left_out), "min": selectors.MIN_OFFERINGS}
                }
            )
    ref = selectors.workload_resolve(user=request.user, value=request.GET.get("workload", ""))
    try:
        gpus = sized.check_gpus(request.GET.get("gpus", ""))
    except ValueError as exc:
        words = _(GPUS_RANGE) % {"min": sized.GPUS_MIN, "max": f"{sized.GPUS_MAX:,}"}
        raise ValidationError({"gpus": words}) from exc
    return slugs, offerings, ref, gpus, left_out


def _workload_panels(offerings: list[Any], ref: Any, gpus: int) -> tuple[list[dict], dict[int, Any]]:
    workload = selectors.workload_for(ref)
    results = sized.compared_results(offerings=offerings, workload=workload, gpus=gpus)
    label = _("%(workload)s on %(gpus)s GPUs") % {"workload": ref.label, "gpus": f"{gpus:,}"}
    panels = [
        charts.cost_panel(offerings, results, label),
        charts.cost_per_token_panel(offerings, results, label),
        charts.cost_time_panel(offerings, results, label),
        charts.goodput_panel(offerings, results, label),
    ]
    return panels, results


def _share_url(slugs: list[str], ref: Any, gpus: int | None, samples: bool) -> str:
    # The address of the API contract, commas unescaped, whatever form the request came in.
    url = f"{reverse('compare:page')}?offerings={','.join(slugs)}"
    extra: dict[str, Any] = {}
    if ref is not None:
        extra["workload"] = ref.value
        if gpus:
            extra["gpus"] = gpus
    if samples:
        extra["include_samples"] = 1
    return url + ("&" + urlencode(extra) if extra else "")


# Panels are built once per catalog version and comparison, and kept at most this long (findings refreshed
# by the worker after an edit, and new public evidence, show within a minute).
PANELS_CACHE_SECONDS = 60


def _panels(offerings: list[Any], ref: Any, gpus: int | None) -> tuple[list[dict], list[dict], list[dict]]:
    """The claim and evidence panels, the workload panels (with a workload) and the tail panels."""
    ids = [o.pk for o in offerings]
    uploads = selectors.public_uploads(offering_ids=ids)
    panels = [charts.interconnect_panel(offerings, uploads)]
    busbw = charts.busbw_panel(offerings, uploads)
    if busbw:
        panels.append(busbw)
    panels += [charts.usable_panel(offerings, {}), charts.fault_tolerance_panel(offerings)]
    workload_panels: list[dict[str, Any]] = []
    if ref is not None and gpus:
        workload_panels, results = _workload_panels(offerings, ref, gpus)
        panels[-2] = charts.usable_panel(offerings, results)
    history = charts.price_history_panel(offerings, selectors.price_points(offering_ids=ids))
    tail = [charts.findings_panel(offerings, selectors.catalog_findings(offering_ids=ids))]
    if history:
        tail.insert(0, history)
    return panels, workload_panels, tail


def _cached_panels(
    offerings: list[Any], ref: Any, gpus: int | None, money: Money
) -> tuple[list[dict], list[dict], list[dict], list[str]]:
    """The panels in the active language and in `money`'s currency (both part of the cache key), and the
    HTML of each of the three lists."""
    workload = "" if ref is None else sized.workload_key(selectors.workload_for(ref))
    ids = ".".join(str(o.pk) for o in offerings)
    shown = f"{get_language()}:{money.code}:{money.per_usd or ''}:{money.rate_as_of}"
    key = f"compare:panels-html:{sized.catalog_version()}:{ids}:{workload}:{gpus or ''}:{shown}"
    cached = cache.get(key)
    if cached is None:
        with shown_in(money):
            cached = _panels(offerings, ref, gpus)
        # each list of panels also rendered (the page's costliest part), in this language
        cached = (*cached, [_panels_html(panels) for panels in cached])
        cache.set(key, cached, PANELS_CACHE_SECONDS)
    return cached


def _panels_html(panels: list[dict]) -> str:
    panel = get_template("compare/_panel.html")
    return mark_safe("".join(panel.render({"p": p}) for p in panels))  # noqa: S308 (rendered above)


def compare_page(request: HttpRequest) -> HttpResponse:
    raw_offerings = request.GET.getlist("offerings")
    raw_workload = request.GET.get("workload", "")
    if not raw_offerings and "workload" not in request.GET:
        return render(request, "compare/pick.html", _picker_context(request, chosen=[], workload=""))
    try:
        slugs, offerings, ref, gpus, left_out = _parse(request)
    except ValidationError as exc:
        chosen = [s for v in raw_offerings for s in v.split(",") if s.strip()]
        context = _picker_context(request, chosen=chosen, workload=raw_workload)
        context["errors"] = _errors(exc)
        return render(request, "compare/pick.html", context, status=400)

    if ref is not None:
        gpus = gpus or sized.suggested_gpus(selectors.workload_for(ref))
    money = request.currency_display.money  # type: ignore[attr-defined]
    panels, workload_panels, tail, html = _cached_panels(offerings, ref, gpus, money)
    samples = _include_samples(request.GET)
    context = {
        "offerings": offerings,
        "left_out": left_out,
        "include_samples": samples,
        "slugs": ",".join(slugs),
        "share_url": _share_url(slugs, ref, gpus, samples),
        "ref": ref,
        "gpus": gpus,
        "gpus_value": gpus or "",
        "gpus_min": sized.GPUS_MIN,
        "gpus_max": sized.GPUS_MAX,
        "default_deadline_days": DEFAULT_DEADLINE_DAYS,
        "panels": panels,
        "workload_panels": workload_panels,
        "tail_panels": tail,
        "panels_html": html[0],
        "workload_panels_html": html[1],
        "tail_panels_html": html[2],
        "workload_choices": selectors.workload_choices(user=request.user),
        "workload_value": ref.value if ref else "",
        # Public acceptance tests, measured beside claimed (failures red), one block per offering.
        "acceptance": compare_blocks(list(offerings)),
    }
    return render(request, "compare/page.html", context)


def sizing_status(request: HttpRequest, run_id: int) -> HttpResponse:
    """The progress fragment of a planner run (kept at its address; the compare page no longer polls)."""
    run = PlanRun.objects.select_related("owner").filter(pk=run_id).first()
    visible = run is not None and (
        run.owner.get_username() == services.CATALOG_USERNAME
        or (request.user.is_authenticated and run.owner_id == request.user.pk)
    )
    if run is None or not visible:
        raise Http404("no such sizing run")
    run_error = run_error_shown(run.error, run.error_message)
    response = render(request, "compare/_sizing.html", {"run": run, "run_error": run_error})
    if run.finished and request.headers.get("HX-Request"):
        response["HX-Refresh"] = "true"
    return response
