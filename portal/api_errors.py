"""One error body for the whole API: {"message": str, "extra": {...}} (STYLE.md convention 4).

DRF errors go through `exception_handler`; anything DRF does not handle (a bug) becomes a 500 with the same
body and no traceback. Requests under /api/ that never reach a DRF view (an unknown address, a crash in
middleware) get the same body from `json_page_not_found` / `json_server_error`, wired in portal/urls.py.
"""

from __future__ import annotations

import logging
from typing import Any

from django.conf import settings
from django.core.exceptions import PermissionDenied, RequestDataTooBig, TooManyFieldsSent, TooManyFilesSent
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import InterfaceError, OperationalError
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.views import defaults
from drf_spectacular.utils import OpenApiResponse
from rest_framework import exceptions, serializers
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler
from rest_framework.views import set_rollback

logger = logging.getLogger(__name__)
API_PREFIX = "/api/"


class ErrorSerializer(serializers.Serializer[dict[str, Any]]):
    """The body of every API error."""

    message = serializers.CharField(help_text="what went wrong, in one sentence a person can act on")
    extra = serializers.DictField(help_text="details, e.g. `fields` with the errors of each input field")


ERROR_DESCRIPTIONS = {
    400: "Invalid input; `extra.fields` names each bad field.",
    401: "Not authenticated: log in or send `Authorization: Token <token>`.",
    403: "Authenticated but not allowed to do this.",
    404: "No such object, or not one you may see.",
    405: "Method not allowed here.",
    413: "File too large.",
    429: "Too many requests; `extra.retry_after_seconds` says when to try again.",
}


def error_responses(*codes: int) -> dict[int, OpenApiResponse]:
    """The documented error responses of an operation, for @extend_schema(responses=...)."""
    return {code: OpenApiResponse(ErrorSerializer, description=ERROR_DESCRIPTIONS[code]) for code in codes}


def error_body(message: str, **extra: Any) -> dict[str, Any]:
    return {"message": message, "extra": extra}


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    if isinstance(exc, (OperationalError, InterfaceError)):
        # The database is down: portal.middleware answers 503 with Retry-After, for the API and pages alike.
        return None
    if isinstance(exc, TooManyFilesSent):
        # Above Django's own cap (DATA_UPLOAD_MAX_NUMBER_FILES): still the clear 400, not a 500.
        limit = settings.UPLOAD_MAX_FILES_PER_REQUEST
        exc = exceptions.ValidationError({"file": [f"at most {limit} files per upload; far more were sent."]})
    elif isinstance(exc, (RequestDataTooBig, TooManyFieldsSent)):
        exc = exceptions.ValidationError({"non_field_errors": [f"The request is too large: {exc}"]})
    elif isinstance(exc, DjangoValidationError):
        exc = exceptions.ValidationError(exc.message_dict if hasattr(exc, "error_dict") else exc.messages)
    elif isinstance(exc, Http404):
        exc = exceptions.NotFound()
    elif isinstance(exc, PermissionDenied):
        exc = exceptions.PermissionDenied(str(exc) or None)
    response = drf_exception_handler(exc, context)
    if response is None:
        # A bug, not bad input: log it with its traceback, answer without one.
        view = context.get("view")
        logger.exception("Unhandled error in API view %s", type(view).__name__ if view else "?", exc_info=exc)
        set_rollback()
        return Response(error_body("Internal server error. The error has been logged."), status=500)
    data = response.data
    if isinstance(exc, exceptions.ValidationError):
        fields = data if isinstance(data, dict) else {"non_field_errors": data}
        first = _first_error(fields)
        message = "Invalid input."
        if first is not None:
            name, text = first
            message = f"{name}: {text}" if name and name != "non_field_errors" else text
        response.data = error_body(message, fields=fields)
    elif isinstance(exc, exceptions.Throttled):
        response.data = error_body(str(exc.detail), retry_after_seconds=getattr(exc, "wait", None))
    else:
        detail = data.get("detail") if isinstance(data, dict) else data
        response.data = error_body(str(detail))
    return response


def _first_error(errors: Any, name: str = "") -> tuple[str, str] | None:
    """The first error message of a (possibly nested) DRF error structure and where it is: a list item's
    error is named `field[1]`, a nested field's `field.key`; never the structure's Python repr."""
    if isinstance(errors, dict):
        for key, value in errors.items():
            if key == "non_field_errors":  # DRF's name for an object's own errors: the object is the place
                where = name
            elif name and str(key).isdigit():
                where = f"{name}[{key}]"
            else:
                where = f"{name}.{key}" if name else str(key)
            found = _first_error(value, where)
            if found is not None:
                return found
        return None
    if isinstance(errors, list):
        if errors and all(isinstance(e, str) for e in errors):
            return name, str(errors[0])
        for index, value in enumerate(errors):  # a list of objects (many=True): each item is named
            found = _first_error(value, f"{name}[{index}]")
            if found is not None:
                return found
        return None
    return name, str(errors)


def json_page_not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    """handler404: JSON under /api/, the normal 404 page elsewhere."""
    if request.path.startswith(API_PREFIX):
        return JsonResponse(error_body("Not found."), status=404)
    return defaults.page_not_found(request, exception)


def json_server_error(request: HttpRequest) -> HttpResponse:
    """handler500: JSON under /api/, the normal 500 page elsewhere. Never a traceback."""
    if request.path.startswith(API_PREFIX):
        return JsonResponse(error_body("Internal server error. The error has been logged."), status=500)
    return defaults.server_error(request)
