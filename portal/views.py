"""Site-wide pages: the overview and the health endpoint."""

from __future__ import annotations

from django.db import connection
from django.http import HttpRequest, HttpResponse, JsonResponse
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


def healthz(request: HttpRequest) -> JsonResponse:
    """Liveness for operators: the database answers (503 otherwise). Details grow with the worker checks."""
    checks: dict[str, str] = {}
    status = 200
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
        checks["database"] = "ok"
    except Exception as exc:  # noqa: BLE001 - any database failure means "not healthy"
        checks["database"] = f"error: {exc.__class__.__name__}"
        status = 503
    return JsonResponse({"status": "ok" if status == 200 else "unavailable", "checks": checks}, status=status)
