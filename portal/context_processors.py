from __future__ import annotations

from typing import Any

from django.conf import settings
from django.http import HttpRequest


def site(request: HttpRequest) -> dict[str, Any]:
    return {
        "DEMO_MODE": settings.DEMO_MODE,
        "currency_display": getattr(request, "currency_display", None),
    }
