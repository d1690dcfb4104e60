"""Catalog pages: browse with filters, one offering with every fact and its source, edits by reps."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render

from providers import selectors, services
from providers.facts import FACTS, GROUPS, facts_in_group
from providers.filters import FEATURE_CHOICES, OfferingFilterSet
from providers.forms import OfferingEditForm
from providers.models import Offering
from providers.page_context import offering_page_sections

BROWSE_PAGE_SIZE = 50


def offering_browse(request: HttpRequest) -> HttpResponse:
    filters = OfferingFilterSet(request.GET, queryset=selectors.offering_queryset())
    status = 200
    offerings: Any = []
    page_obj = None
    if filters.is_valid():
        # A page of the catalog at a time: a full catalog of hundreds of rows is slow to render and to read.
        paginator = Paginator(filters.qs, BROWSE_PAGE_SIZE)
        page_obj = paginator.get_page(filters.form.cleaned_data.get("page") or 1)
        offerings = page_obj.object_list
    else:
        status = 400
    query = filters.data.copy()
    query.pop("page", None)
    context = {
        "form": filters.form,
        "offerings": offerings,
        "page_obj": page_obj,
        "query": query.urlencode(),
        "options": selectors.filter_options(provider_name=str(filters.data.get("provider_name", ""))[:100]),
        "features": dict(FEATURE_CHOICES),
    }
    return render(request, "providers/browse.html", context, status=status)


def _fact_rows(offering: Offering) -> list[dict[str, Any]]:
    provenance = {p.group: p for p in offering.provenance.all()}
    groups = []
    for group, title in GROUPS.items():
        rows = []
        for fact in facts_in_group(group):
            value = offering.fact_value(fact.name)
            rows.append({"fact": fact, "value": value, "published": value not in (None, [], "")})
        groups.append({"key": group, "title": title, "rows": rows, "provenance": provenance.get(group)})
    return groups


def offering_detail(request: HttpRequest, slug: str) -> HttpResponse:
    try:
        offering = selectors.offering_get(slug=slug)
    except Offering.DoesNotExist as exc:
        raise Http404(f"No offering {slug!r}") from exc
    user = request.user
    can_edit = bool(getattr(user, "can_edit_offering", None) and user.can_edit_offering(offering))  # type: ignore[union-attr]
    history = []
    for plan in offering.plans.all():
        for point in plan.history.all():
            history.append({"plan": plan, "point": point})
    context = {
        "offering": offering,
        "groups": _fact_rows(offering),
        "plans": list(offering.plans.all()),
        "history": history,
        "can_edit": can_edit,
        # verified claims (benchmarks) and pitfall findings (checks), registered by those apps
        **offering_page_sections(offering),
    }
    return render(request, "providers/offering.html", context)


@login_required
def offering_edit(request: HttpRequest, slug: str) -> HttpResponse:
    try:
        offering = selectors.offering_get(slug=slug)
    except Offering.DoesNotExist as exc:
        raise Http404(f"No offering {slug!r}") from exc
    if not request.user.can_edit_offering(offering):  # type: ignore[union-attr]
        raise PermissionDenied("You may edit only your own provider's offerings.")
    initial = {}
    for fact in FACTS:
        value = offering.fact_value(fact.name)
        if fact.type == "bool":
            initial[fact.name] = "" if value is None else ("true" if value else "false")
        else:
            initial[fact.name] = value if value is not None else ""
    if request.method == "POST":
        form = OfferingEditForm(request.POST, initial=initial)
        if form.is_valid():
            changed = {name: form.cleaned_data[name] for name in form.changed_data}
            try:
                services.offering_update(user=request.user, offering=offering, facts=changed)
            except ValidationError as exc:
                for field, messages in exc.message_dict.items():
                    form.add_error(field if field in form.fields else None, messages)
            else:
                return redirect(offering.get_absolute_url())
        return render(request, "providers/edit.html", {"offering": offering, "form": form}, status=400)
    form = OfferingEditForm(initial=initial)
    return render(request, "providers/edit.html", {"offering": offering, "form": form})
