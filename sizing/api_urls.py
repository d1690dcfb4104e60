"""API routes of the sizing app, mounted under /api/v1/ by portal/urls.py."""

from django.urls import path

from sizing import api

urlpatterns = [
    path("workloads/", api.WorkloadListCreateApi.as_view(), name="api-workloads"),
    path("runs/", api.RunCreateApi.as_view(), name="api-runs"),
    path("runs/<int:run_id>/", api.RunDetailApi.as_view(), name="api-run"),
]
