"""API routes of the quotes app, mounted under /api/v1/ by portal/urls.py."""

from django.urls import path

from quotes import api

urlpatterns = [
    path("quotes/", api.QuoteListCreateApi.as_view(), name="api-quotes"),
    path("quotes/<int:quote_id>/", api.QuoteDetailApi.as_view(), name="api-quote"),
    path("quotes/<int:quote_id>/pdf", api.QuotePdfApi.as_view(), name="api-quote-pdf"),
    path("quotes/<int:quote_id>/share", api.QuoteShareApi.as_view(), name="api-quote-share"),
]
