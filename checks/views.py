"""The buyer's checklist page: /checks/checklist/?offering=<slug>."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext

from checks import display, selectors
from checks.checklist import checklist
from checks.models import CONTEXT_CLAIMS
from providers.models import Offering
from providers.names import gpu_vendor
from providers.page_context import offering_page_sections


def checklist_page(request: HttpRequest) -> HttpResponse:
    slug = (request.GET.get("offering") or "").strip()[:80]
    search = (request.GET.get("q") or "").strip()[:80]
    context: dict[str, object] = {
        "offerings": selectors.offering_choices(search=search, chosen=slug),
        "slug": slug,
        "search": search,
        "choices_limit": selectors.CHOICES_LIMIT,
    }
    if not slug:
        return render(request, "checks/checklist.html", context)
    try:
        offering = selectors.offering_for_checklist(slug=slug)
    except Offering.DoesNotExist:
        context["error"] = gettext("No offering with the slug “%(slug)s”. Choose one from the list.") % {
            "slug": slug
        }
        return render(request, "checks/checklist.html", context, status=404)
    findings = list(selectors.finding_list(offering=offering, context=CONTEXT_CLAIMS))
    evidence = selectors.evidence_for_offering(offering)
    answers = checklist(
        offering.facts(),
        [{"code": f.code, "severity": f.severity, "title": f.shown_title} for f in findings],
        evidence,
        sourced_groups=selectors.sourced_groups(offering),
    )
    titles = {f.code: f.shown_title for f in findings}
    context.update(
        {
            "offering": offering,
            "answers": [
                display.checklist_view(offering.slug, a, titles, gpu_vendor(offering.gpu)) for a in answers
            ],
            "findings": [display.finding_view(f) for f in findings],
            # Sections the apps above add (acceptance verdicts among them); the catalog's registry.
            "acceptance_runs": offering_page_sections(offering).get("acceptance_runs", []),
        }
    )
    return render(request, "checks/checklist.html", context)
