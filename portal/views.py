"""Site-wide pages: the catalog overview (health is portal/health.py)."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from compare import charts
from compare import selectors as compare_selectors


def home(request: HttpRequest) -> HttpResponse:
    """Catalog-wide charts from the catalog and the stored findings only (a fixed number of queries)."""
    rows = compare_selectors.overview_offerings()
    panels = [
        charts.overview_fabric_panel(rows),
        charts.overview_price_panel(rows),
        charts.overview_features_panel(rows),
        charts.overview_findings_panel(compare_selectors.overview_finding_counts()),
    ]
    context = {
        "offering_count": len(rows),
        "provider_count": compare_selectors.provider_count(),
        "panels": panels,
    }
    return render(request, "home.html", context)
