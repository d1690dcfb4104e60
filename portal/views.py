"""Site-wide pages: the overview and the health endpoint."""

from __future__ import annotations

from django.db import connection
from django.db.models import Count
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render

from providers.models import Offering, Provider


def home(request: HttpRequest) -> HttpResponse:
    by_fabric = Offering.objects.values("fabric").annotate(n=Count("id")).order_by("-n", "fabric")
    context = {
        "offering_count": Offering.objects.count(),
        "provider_count": Provider.objects.count(),
        "by_fabric": by_fabric,
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
