"""The whole API schema fuzzed in-process: no 500s, and every answer is one the schema documents."""

from __future__ import annotations

import os
from typing import Any

import pytest
import schemathesis
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from hypothesis import HealthCheck, settings
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient
from schemathesis.checks import (
    content_type_conformance,
    not_a_server_error,
    response_schema_conformance,
    status_code_conformance,
)

from portal.wsgi import application
from tests.conftest import FAST_HASHERS
from tests.providers.factories import OfferingFactory, PlanFactory, UserFactory

# Schemathesis' generated cases are items pytest-xdist collects but never runs (nor reports): `make test`
# runs this module in one process after the others (the marker), and the first test fails under xdist.
pytestmark = pytest.mark.one_process

schema = schemathesis.openapi.from_wsgi("/api/schema/", application)
# What the API promises: no 500, and only documented status codes, content types and bodies. Business
# rejections of schema-valid input (a wrong password, an unknown offering slug) are fine.
CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]


def test_the_fuzzer_runs_outside_pytest_xdist() -> None:
    assert "PYTEST_XDIST_WORKER" not in os.environ, "run tests/security/test_schemathesis.py with -p no:xdist"


@pytest.fixture(autouse=True)
def _keep_the_test_connection_open() -> Any:
    """The WSGI handler closes the database connection at every request start and end (CONN_MAX_AGE=0);
    inside a test that would close the connection holding the test's transaction (PostgreSQL). Django's
    own test client disconnects the same handler for the same reason."""
    _detach_connection_closing()
    yield
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


def _detach_connection_closing() -> None:
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)


@pytest.fixture
def buyer_token(db: Any, settings: Any) -> str:
    settings.PASSWORD_HASHERS = FAST_HASHERS
    offering = OfferingFactory(slug="fuzz-h100")
    PlanFactory(offering=offering)
    user = UserFactory(username="fuzz-buyer")
    return Token.objects.create(user=user).key


@pytest.mark.django_db(transaction=False)
@schema.parametrize()
@settings(
    max_examples=15,
    deadline=None,
    suppress_health_check=list(HealthCheck),
    derandomize=True,
)
def test_the_api_answers_every_request_as_documented(case: Any, buyer_token: str, tmp_path: Any) -> None:
    from django.conf import settings as django_settings

    django_settings.MEDIA_ROOT = str(tmp_path)
    case.call_and_validate(headers={"Authorization": f"Token {buyer_token}"}, checks=CHECKS)


@pytest.mark.django_db(transaction=False)
def test_the_quotes_api_answers_as_documented_for_a_real_quote(buyer_token: str, tmp_path: Any) -> None:
    """The fuzzer's buyer owns no quote, so it sees 404s: here every documented success of the quotes API
    (a paginated list, the quote, a 202 while the PDF renders, the PDF, share and revoke), validated."""
    from django.conf import settings as django_settings
    from django.core.files.base import ContentFile
    from django.core.files.storage import default_storage

    from quotes import services
    from sizing import services as sizing_services

    django_settings.MEDIA_ROOT = str(tmp_path)
    user = Token.objects.get(key=buyer_token).user
    workload = sizing_services.workload_create(owner=user, preset="13b")
    quote = services.quote_create_for_offering(owner=user, offering_slug="fuzz-h100", workload_id=workload.pk)
    headers = {"Authorization": f"Token {buyer_token}"}

    def call(path: str, method: str, status: int, **params: Any) -> Any:
        case = schema[path][method].Case(path_parameters=params or None)
        response = case.call_and_validate(headers=headers, checks=CHECKS)
        assert response.status_code == status, (method, path, response.status_code)
        return response

    call("/api/v1/quotes/", "GET", 200)
    call("/api/v1/quotes/{quote_id}/", "GET", 200, quote_id=quote.pk)
    call("/api/v1/quotes/{quote_id}/pdf", "GET", 202, quote_id=quote.pk)  # no worker in this test
    default_storage.save(services.pdf_names(quote)[0], ContentFile(b"%PDF-1.7\n%%EOF\n"))
    call("/api/v1/quotes/{quote_id}/pdf", "GET", 200, quote_id=quote.pk)
    # A client asking for the PDF by type gets it (or the 202 status), never a 406.
    pdf = APIClient(HTTP_AUTHORIZATION=f"Token {buyer_token}").get(
        f"/api/v1/quotes/{quote.pk}/pdf", HTTP_ACCEPT="application/pdf"
    )
    assert pdf.status_code == 200 and pdf["Content-Type"] == "application/pdf"
    _detach_connection_closing()  # Django's test client reattached it when its request ended
    call("/api/v1/quotes/{quote_id}/share", "POST", 201, quote_id=quote.pk)
    call("/api/v1/quotes/{quote_id}/share", "DELETE", 204, quote_id=quote.pk)
    call("/api/v1/quotes/{quote_id}/", "GET", 404, quote_id=quote.pk + 1000)
