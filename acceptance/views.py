"""Acceptance pages: the kit and bundle forms, one report, and a buyer's evidence at /benchmarks/."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render

from acceptance import kit, selectors, services
from acceptance.api import kit_response
from acceptance.forms import BundleForm, KitForm
from acceptance.models import AcceptanceRun
from accounts.throttles import upload_throttled
from benchmarks import selectors as evidence
from portal.form_errors import add_form_errors
from portal.i18n import shown

VERDICT_ICONS = {"pass": "✔", "fail": "✘", "cannot-measure": "?", "incomplete": "…"}


def _page(
    request: HttpRequest, kit_form: KitForm, bundle_form: BundleForm, status: int = 200
) -> HttpResponse:
    context = {
        "kit_form": kit_form,
        "bundle_form": bundle_form,
        "max_mib": settings.ACCEPTANCE_BUNDLE_MAX_BYTES // (1024 * 1024),
    }
    return render(request, "acceptance/start.html", context, status=status)


def start(request: HttpRequest) -> HttpResponse:
    """The kit form (GET with its fields downloads the archive) and the bundle form."""
    offering = request.GET.get("offering")
    if "nodes" in request.GET:
        form = KitForm(request.GET)
        if form.is_valid():
            data: dict[str, Any] = form.cleaned_data
            try:
                return kit_response(
                    data["offering"], data["nodes"], data["scheduler"], data["stability_hours"] or 0
                )
            except kit.KitError as exc:
                form.add_error(exc.field if exc.field in form.fields else None, shown(exc.message))
        return _page(request, form, BundleForm(initial={"offering": offering}), status=400)
    initial = {"offering": offering} if offering else {}
    return _page(request, KitForm(initial=initial), BundleForm(initial=initial))


@login_required
@upload_throttled
def bundle_new(request: HttpRequest) -> HttpResponse:
    if request.method != "POST":
        return redirect("acceptance:start")
    form = BundleForm(request.POST, request.FILES)
    if form.is_valid():
        data: dict[str, Any] = form.cleaned_data
        try:
            services.bundle_check_size(name=data["bundle"].name, size=data["bundle"].size)
            run = services.acceptance_create(
                owner=request.user,
                offering=data["offering"],
                name=str(data["bundle"].name),
                data=data["bundle"].read(),
                visibility=data["visibility"],
            )
        except ValidationError as exc:
            add_form_errors(form, exc, "bundle")
        else:
            return redirect(run.get_absolute_url())
    return _page(request, KitForm(), form, status=400)


def _get_visible(request: HttpRequest, run_id: int) -> AcceptanceRun:
    try:
        return selectors.run_get(user=request.user, run_id=run_id)
    except AcceptanceRun.DoesNotExist as exc:
        raise Http404("No such acceptance report.") from exc


def report(request: HttpRequest, run_id: int) -> HttpResponse:
    run = _get_visible(request, run_id)
    indicators = run.indicators or {}
    scaling = indicators.get("scaling_efficiency") or {}
    context = {
        "run": run,
        "run_error": selectors.error_shown(run),
        "rows": [
            {**row, "icon": VERDICT_ICONS.get(row["verdict"], "?")} for row in selectors.verdict_rows(run)
        ],
        "verdict_icon": VERDICT_ICONS.get(run.verdict or "", ""),
        "bandwidth": indicators.get("collective_bandwidth") or {},
        "bandwidth_basis": selectors.indicator_basis(indicators.get("collective_bandwidth") or {}),
        "scaling": scaling,
        "scaling_basis": selectors.indicator_basis(scaling),
        "findings": selectors.findings_shown(run),
        "files": selectors.files_shown(run),
        "stability": indicators.get("stability") or {},
        "curve": scaling.get("curve") or [],
        "curve_chart": selectors.curve_chart(scaling.get("curve") or []),
        "throughput": selectors.throughput_shown(scaling),
        "is_owner": run.owner_id == request.user.pk,
        "uploaded_again": selectors.run_uploaded_again(user=request.user, run=run)
        if run.status == AcceptanceRun.Status.FAILED
        else None,
        "pitfalls": selectors.pitfall_findings(run, shown=True)
        if run.status == AcceptanceRun.Status.DONE
        else [],
    }
    response = render(request, "acceptance/report.html", context)
    if request.headers.get("HX-Request") and run.finished:
        response["HX-Refresh"] = "true"
    return response


@login_required
def evidence_index(request: HttpRequest) -> HttpResponse:
    """A buyer's uploads and acceptance reports (staff see their own here too; /admin/ has all)."""
    uploads = evidence.upload_list(user=request.user).filter(owner_id=request.user.pk)[:200]
    runs = selectors.run_list(user=request.user, mine=True)[:100]
    return render(request, "acceptance/index.html", {"uploads": uploads, "runs": runs})
