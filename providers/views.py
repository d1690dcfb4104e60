"""Catalog pages: browse with filters, one offering with every fact and its source, edits by reps."""

from __future__ import annotations

import contextlib
import hashlib
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.cache import cache
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.paginator import Page, Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.template.loader import get_template
from django.utils import timezone
from django.utils.functional import SimpleLazyObject
from django.utils.safestring import mark_safe
from django.utils.translation import get_language, gettext, ngettext

from portal.form_errors import add_form_errors
from providers import selectors, services
from providers.cached import ROW_CACHE_SECONDS, PageOfIds, cached_rows, cached_value, query_name, value_key
from providers.currency import Display
from providers.facts import FACTS, GROUPS, fact_label, facts_in_group
from providers.filters import FEATURE_CHOICES, OfferingFilterSet
from providers.forms import OfferingFactsEditForm
from providers.models import Offering
from providers.names import gpu_vendor, note_text, value_names
from providers.page_context import offering_page_sections

BROWSE_PAGE_SIZE = 50


def offering_browse(request: HttpRequest) -> HttpResponse:
    filters = OfferingFilterSet(request.GET, queryset=selectors.offering_browse_queryset())
    status = 200
    page_ids: list[int] = []
    page_obj = None
    if filters.is_valid():
        # A page of the catalog at a time: a full catalog of hundreds of rows is slow to render and to read.
        page_obj = _browse_page(filters)
        page_ids = list(page_obj.object_list)
    else:
        status = 400
    query = filters.data.copy()
    query.pop("page", None)
    provider_name = str(filters.data.get("provider_name", ""))[:100]
    context = {
        "form": filters.form,
        # the page's offerings, read only by whoever asks (the rows below are what the page shows)
        "offerings": SimpleLazyObject(lambda: _in_order(page_ids)),
        "rows": _browse_rows(request, page_ids),
        "page_obj": page_obj,
        "query": query.urlencode(),
        "options": cached_value(
            f"browse-options:{hashlib.sha256(provider_name.encode()).hexdigest()[:16]}",
            lambda: selectors.filter_options(provider_name=provider_name),
        ),
        "features": dict(FEATURE_CHOICES),
    }
    return render(request, "providers/browse.html", context, status=status)


def _browse_page(filters: OfferingFilterSet) -> Page[Any]:
    """The page asked for: its count and ids cached per catalog version and query (so paging a large
    catalog reads no table while it is unchanged), else paged from the filtered catalog as before."""
    number = filters.form.cleaned_data.get("page") or 1
    key = value_key(query_name("browse", filters.data))
    stored = cache.get(key)
    if stored is not None:
        with contextlib.suppress(LookupError):  # a page other than the one cached: paged again below
            return Paginator(PageOfIds(*stored), BROWSE_PAGE_SIZE).get_page(number)
    page_obj = Paginator(filters.qs, BROWSE_PAGE_SIZE).get_page(number)
    start = (page_obj.number - 1) * BROWSE_PAGE_SIZE
    stored = (page_obj.paginator.count, start, [o.pk for o in page_obj.object_list])
    cache.set(key, stored, ROW_CACHE_SECONDS)
    return Paginator(PageOfIds(*stored), BROWSE_PAGE_SIZE).get_page(number)


def _in_order(pks: list[int]) -> list[Offering]:
    """The browse page's offerings of these ids, in this order."""
    by_pk = selectors.offering_browse_queryset().in_bulk(pks)
    return [by_pk[pk] for pk in pks if pk in by_pk]


def _display_key(display: Display) -> str:
    """What a cached fragment's prices depend on: the currency, the rate (any change of a rate also makes
    a new catalog version) and the note a page shows when the asked currency could not be honoured."""
    note = hashlib.sha256(str(display.note).encode()).hexdigest()[:8] if display.note else ""
    rate = display.rate
    return f"{display.currency}:{rate.pk if rate else ''}:{rate.per_usd if rate else ''}:{note}"


def _browse_rows(request: HttpRequest, pks: list[int]) -> list[str]:
    """Each offering's table row, from the cache under the catalog version, the language and the currency
    shown (its words and its price depend on them); the rows missing rendered from their offerings."""
    display = request.currency_display  # type: ignore[attr-defined]
    row = get_template("providers/_browse_row.html")

    def build(missing: list[int]) -> dict[int, str]:
        return {o.pk: str(row.render({"o": o, "currency_display": display})) for o in _in_order(missing)}

    rows = cached_rows(f"browse:{get_language()}:{_display_key(display)}", pks, build)
    return [mark_safe(rows[pk]) for pk in pks if pk in rows]  # noqa: S308 (rendered by the template above)


def _source_titles(sources: dict[str, Any]) -> dict[str, str]:
    """A note that names a cited source by its catalog key names it by its title."""
    return {s["key"]: f"“{s['title']}”" for g in sources.values() for s in g["sources"]}


def _fact_rows(offering: Offering, sources: dict[str, Any], titles: dict[str, str]) -> list[dict[str, Any]]:
    provenance = {p.group: p for p in offering.provenance.all()}
    vendor = gpu_vendor(offering.gpu)
    groups = []
    for group, title in GROUPS.items():
        rows = []
        for fact in facts_in_group(group):
            value = offering.fact_value(fact.name)
            # `source`: the fact's own sources, date and note where the catalog gives them (else None)
            source = sources[group]["facts"].get(fact.name)
            rows.append(
                {
                    "fact": fact,
                    "label": fact_label(fact.name, vendor),
                    "value": value,
                    "published": value not in (None, [], ""),
                    "source": source,
                }
            )
        shown = provenance.get(group)
        note = note_text(shown.note, titles, vendor) if shown is not None else ""
        groups.append({"key": group, "title": title, "rows": rows, "provenance": shown, "note": note})
    return groups


def _offering_or_404(slug: str) -> Offering:
    try:
        return selectors.offering_get(slug=slug)
    except Offering.DoesNotExist as exc:
        raise Http404(f"No offering {slug!r}") from exc


def offering_detail(request: HttpRequest, slug: str) -> HttpResponse:
    try:
        offering = selectors.offering_row(slug=slug)
    except Offering.DoesNotExist as exc:
        raise Http404(f"No offering {slug!r}") from exc
    user = request.user
    can_edit = bool(getattr(user, "can_edit_offering", None) and user.can_edit_offering(offering))  # type: ignore[union-attr]
    context = {
        "offering": offering,
        "catalog_html": _offering_catalog_html(request, offering),
        "can_edit": can_edit,
        # verified claims (benchmarks) and pitfall findings (checks), registered by those apps
        **offering_page_sections(offering),
    }
    return render(request, "providers/offering.html", context)


def _offering_catalog_html(request: HttpRequest, offering: Offering) -> str:
    """The offering page's facts with their sources, its plans and its price history: from the cache under
    the catalog version, language and currency, else rendered from the offering with everything it shows."""
    display = request.currency_display  # type: ignore[attr-defined]

    def build(pks: list[int]) -> dict[int, str]:
        full = selectors.offering_get(slug=offering.slug)
        history = [
            {"plan": plan, "point": point} for plan in full.plans.all() for point in plan.history.all()
        ]
        sources = selectors.offering_sources(full)
        titles, vendor = _source_titles(sources), gpu_vendor(full.gpu)
        context = {
            "offering": full,
            "groups": _fact_rows(full, sources, titles),
            # a plan's note is the transcriber's too: shown like a group's (providers.names.note_text)
            "plans": [{"plan": p, "note": note_text(p.note, titles, vendor)} for p in full.plans.all()],
            "history": history,
            "currency_display": display,
        }
        return {offering.pk: str(get_template("providers/_offering_catalog.html").render(context))}

    rows = cached_rows(f"offering:{get_language()}:{_display_key(display)}", [offering.pk], build)
    return mark_safe(rows[offering.pk])  # noqa: S308 (rendered by the template above)


def _fact_initial(offering: Offering) -> dict[str, Any]:
    initial: dict[str, Any] = {}
    for fact in FACTS:
        value = offering.fact_value(fact.name)
        if fact.type == "bool":
            initial[fact.name] = "" if value is None else ("true" if value else "false")
        else:
            initial[fact.name] = value if value is not None else ""
    return initial


def _editable(request: HttpRequest, slug: str) -> Offering:
    offering = _offering_or_404(slug)
    if not request.user.can_edit_offering(offering):  # type: ignore[union-attr]
        raise PermissionDenied("You may edit only your own provider's offerings.")
    return offering


def _facts_post(request: HttpRequest, offering: Offering, form: OfferingFactsEditForm) -> int:
    """Validate and apply a sourced edit; the number of facts changed, or -1 with the errors on the form.
    A bad value is named even when the source or date is missing, so one submission shows every error."""
    valid = form.is_valid()
    facts = {
        n: form.cleaned_data[n]
        for n in form.changed_data
        if n in form.cleaned_data and n not in ("source_url", "as_of")
    }
    try:
        if not valid:
            services.facts_clean(facts)
            return -1
        changes = services.offering_facts_edit(
            user=request.user,
            offering=offering,
            facts=facts,
            source_url=form.cleaned_data["source_url"],
            as_of=form.cleaned_data["as_of"],
        )
    except ValidationError as exc:
        add_form_errors(form, exc, None)
        return -1
    return len(changes)


def _change_text(fact: str, value: Any, vendor: str | None) -> str:
    """A recorded fact value in words in the page's language ("not published", "yes", "InfiniBand")."""
    if value is None or value == "" or value == []:
        return gettext("not published")
    if isinstance(value, bool):
        return gettext("yes") if value else gettext("no")
    if isinstance(value, float) and value.is_integer():
        return f"{value:,.0f}"
    if isinstance(value, int | float):
        return f"{value:,}"
    return value_names(fact, value, vendor)


def _history_rows(offering: Offering, vendor: str | None) -> list[dict[str, Any]]:
    """The sourced changes with each fact by its label and its values in words, never their codes."""
    return [
        {
            "change": change,
            "label": gettext(fact_label(change.fact, vendor)),
            "old": _change_text(change.fact, change.old, vendor),
            "new": _change_text(change.fact, change.new, vendor),
        }
        for change in selectors.fact_history(offering=offering)
    ]


@login_required
def offering_facts_edit(request: HttpRequest, slug: str) -> HttpResponse:
    """The sourced edit form (also at the former /edit/ address): changed facts with the document and date
    they rest on, and the history. Refused without a source and a date."""
    offering = _editable(request, slug)
    initial = _fact_initial(offering)
    form = OfferingFactsEditForm(request.POST or None, initial=initial)
    status = 200
    if request.method == "POST":
        status = 400
        count = _facts_post(request, offering, form)
        if count >= 0:
            messages.success(
                request,
                ngettext(
                    "%(count)d fact changed, with its source and date.",
                    "%(count)d facts changed, with their source and date.",
                    count,
                )
                % {"count": count},
            )
            return redirect("providers:offering-facts", slug=offering.slug)
    age = services.fact_source_review_age_days()
    vendor = gpu_vendor(offering.gpu)
    context = {
        "offering": offering,
        "form": form,
        "source_fields": [form["source_url"], form["as_of"]],
        "fact_fields": [form[fact.name] for fact in FACTS],
        "history": _history_rows(offering, vendor),
        "review_age_days": age,
        # a group's note is the transcriber's: read as on the offering page (providers.names.note_text)
        "stale_groups": [
            {**group, "note": note_text(group["note"], None, vendor)}
            for group in selectors.stale_fact_groups(
                offering=offering, age_days=age, today=timezone.localdate()
            )
        ],
    }
    return render(request, "providers/facts_edit.html", context, status=status)
