"""API routes of the acceptance app, mounted under /api/v1/ by portal/urls.py."""

from django.urls import path

from acceptance import api

urlpatterns = [
    path("acceptance/kit/", api.KitApi.as_view(), name="api-acceptance-kit"),
    path("acceptance/", api.AcceptanceListCreateApi.as_view(), name="api-acceptance"),
    path("acceptance/<int:pk>/", api.AcceptanceDetailApi.as_view(), name="api-acceptance-run"),
]
