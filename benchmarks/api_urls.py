"""API routes of the benchmarks app, mounted under /api/v1/ by portal/urls.py."""

from django.urls import path

from benchmarks import api

urlpatterns = [
    path("uploads/", api.UploadListCreateApi.as_view(), name="api-uploads"),
    path("uploads/<int:pk>/", api.UploadDetailApi.as_view(), name="api-upload"),
    path("uploads/<int:pk>/raw", api.UploadRawApi.as_view(), name="api-upload-raw"),
]
