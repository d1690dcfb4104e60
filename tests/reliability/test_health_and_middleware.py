"""Fast tests (no services) of /healthz, the 503 middleware and the task-failure log line."""

from __future__ import annotations

import json
import logging
import time
from typing import Any

import pytest
from django.db import OperationalError
from django.http import HttpRequest, HttpResponse
from django.test import Client, RequestFactory

from portal import celery_signals, health
from portal.middleware import DatabaseUnavailableMiddleware


def failing_view(request: HttpRequest) -> HttpResponse:
    raise OperationalError("connection refused")


def test_a_database_error_in_a_page_is_the_503_page() -> None:
    request = RequestFactory().get("/offerings/")
    middleware = DatabaseUnavailableMiddleware(failing_view)
    response = middleware.process_exception(request, OperationalError("connection refused"))
    assert response is not None and response.status_code == 503
    assert "Temporarily unavailable" in response.content.decode()
    assert response["Retry-After"] == "30"


def test_a_database_error_in_the_api_is_json_with_a_message() -> None:
    request = RequestFactory().get("/api/v1/offerings/")
    response = DatabaseUnavailableMiddleware(failing_view)(request)
    assert response.status_code == 503
    assert response["Content-Type"].startswith("application/json")
    assert "database" in json.loads(response.content)["message"]


def test_other_errors_are_left_alone() -> None:
    request = RequestFactory().get("/offerings/")
    assert DatabaseUnavailableMiddleware(failing_view).process_exception(request, ValueError("bug")) is None


@pytest.mark.django_db
def test_healthz_is_ok_in_the_embedded_mode(client: Client, settings: Any) -> None:
    settings.CELERY_BROKER_URL = ""
    body = client.get("/healthz").json()
    assert body["status"] == "ok"
    assert body["checks"] == {"database": "ok", "broker": "in-process", "workers": "in-process"}


@pytest.mark.django_db
def test_healthz_is_degraded_not_down_when_the_broker_does_not_answer(client: Client, settings: Any) -> None:
    settings.CELERY_BROKER_URL = "redis://127.0.0.1:1/0"  # nothing listens on port 1
    started = time.monotonic()
    response = client.get("/healthz")
    assert time.monotonic() - started < 3
    assert response.status_code == 200
    assert response.json()["status"] == "degraded"
    assert response.json()["checks"]["broker"] == "error"


def test_healthz_is_503_when_the_database_is_down(client: Client, monkeypatch: Any, settings: Any) -> None:
    settings.CELERY_BROKER_URL = ""
    monkeypatch.setattr(health, "check_database", lambda: {"status": "error", "error": "OperationalError"})
    response = client.get("/healthz")
    assert response.status_code == 503
    assert response.json()["status"] == "unavailable"


def test_a_failed_task_is_one_key_value_log_line(caplog: pytest.LogCaptureFixture) -> None:
    class Task:
        name = "benchmarks.parse_upload"

    with caplog.at_level(logging.ERROR, logger="portal.tasks"):
        celery_signals.log_task_failure(
            sender=Task(), task_id="abc-123", exception=ValueError("bad\nlog"), args=(12,), kwargs={}
        )
    (line,) = [r.getMessage() for r in caplog.records]
    assert line.startswith("task_failure task=benchmarks.parse_upload id=abc-123 args=(12,)")
    assert "exception=ValueError" in line and "\n" not in line
