"""API routes of the checks app, mounted under /api/v1/ by portal/urls.py."""

from __future__ import annotations

from django.urls import path

from checks.api import FindingListApi

urlpatterns = [
    path("findings/", FindingListApi.as_view(), name="findings-list"),
]
