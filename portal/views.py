"""Site-wide pages: the catalog overview (health is portal/health.py)."""

from __future__ import annotations

from typing import Any

from django.core.cache import cache
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import get_language

from compare import charts
from compare import selectors as compare_selectors
from portal.money import shown_in
from providers.cached import catalog_version

# The overview is the same for everybody: built once per catalog version (any offering edit makes a new
# one), and at most this old, so that findings refreshed by the worker after an edit show within a minute.
OVERVIEW_CACHE_SECONDS = 60


def _overview() -> dict[str, Any]:
    rows = compare_selectors.overview_offerings()
    return {
        "offering_count": len(rows),
        "provider_count": compare_selectors.provider_count(),
        "panels": [
            charts.overview_fabric_panel(rows),
            charts.overview_price_panel(rows),
            charts.overview_features_panel(rows),
            charts.overview_findings_panel(compare_selectors.overview_finding_counts()),
        ],
    }


def home(request: HttpRequest) -> HttpResponse:
    """Catalog-wide charts from the catalog and the stored findings only (a fixed number of queries, and
    none while the cached overview of the current catalog version is fresh)."""
    money = request.currency_display.money  # type: ignore[attr-defined]
    # one cached overview per language and currency (the charts' words and prices differ)
    key = (
        f"overview:{catalog_version()}:{get_language()}:{money.code}:{money.per_usd or ''}:{money.rate_as_of}"
    )
    context = cache.get(key)
    if context is None:
        with shown_in(money):
            context = _overview()
        cache.set(key, context, OVERVIEW_CACHE_SECONDS)
    return render(request, "home.html", context)
