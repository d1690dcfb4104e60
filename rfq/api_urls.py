"""API routes of requests for quote, mounted under /api/v1/ by portal/urls.py."""

from django.urls import path

from rfq import api

urlpatterns = [
    path("rfqs/", api.RfqListCreateApi.as_view(), name="api-rfqs"),
    path("rfqs/<int:rfq_id>/", api.RfqDetailApi.as_view(), name="api-rfq"),
    path("rfqs/<int:rfq_id>/answers/", api.AnswerCreateApi.as_view(), name="api-rfq-answers"),
    path("rfqs/<int:rfq_id>/quote/", api.RfqQuoteApi.as_view(), name="api-rfq-quote"),
]
