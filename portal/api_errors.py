"""One error body for the whole API: {"message": str, "extra": {...}} (STYLE.md convention 4)."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import PermissionDenied
from django.core.exceptions import ValidationError as DjangoValidationError
from django.http import Http404
from rest_framework import exceptions
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    if isinstance(exc, DjangoValidationError):
        exc = exceptions.ValidationError(exc.message_dict if hasattr(exc, "error_dict") else exc.messages)
    elif isinstance(exc, Http404):
        exc = exceptions.NotFound()
    elif isinstance(exc, PermissionDenied):
        exc = exceptions.PermissionDenied(str(exc) or None)
    response = drf_exception_handler(exc, context)
    if response is None:
        return None
    data = response.data
    if isinstance(exc, exceptions.ValidationError):
        fields = data if isinstance(data, dict) else {"non_field_errors": data}
        first = next(iter(fields.items()), None)
        message = "Invalid input."
        if first is not None:
            name, errors = first
            text = errors[0] if isinstance(errors, list) and errors else errors
            message = f"{name}: {text}" if name != "non_field_errors" else str(text)
        response.data = {"message": message, "extra": {"fields": fields}}
    else:
        detail = data.get("detail") if isinstance(data, dict) else data
        response.data = {"message": str(detail), "extra": {}}
    return response
