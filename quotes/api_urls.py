"""API routes of the quotes app, mounted under /api/v1/ by portal/urls.py."""

from django.urls import path  # noqa: F401

urlpatterns: list = []
