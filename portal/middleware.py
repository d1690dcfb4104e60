"""Database outages answer 503, not 500: a clear page for people, `{"message"}` JSON for the API.

When PostgreSQL is down or restarting, every view fails with django.db.OperationalError (or InterfaceError
on a connection that died under it). That is not a bug of the request, so the user gets "temporarily
unavailable, retry in a minute" with `Retry-After`, and operators get one warning line instead of a
traceback per request. Nothing was half-written: each service writes inside a transaction.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from django.db import InterfaceError, OperationalError, connection
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.template import loader
from django.utils.functional import SimpleLazyObject
from django.utils.translation import gettext

from providers import currency

logger = logging.getLogger(__name__)

DATABASE_ERRORS = (OperationalError, InterfaceError)
RETRY_AFTER_S = "30"
UNAVAILABLE_MESSAGE = "The database cannot be reached right now; nothing was written. Retry in a minute."


def database_unavailable_response(request: HttpRequest, exc: BaseException) -> HttpResponse:
    """The 503 answer for `request` (JSON under /api/, templates/503.html elsewhere)."""
    logger.warning(
        "database unavailable path=%s method=%s error=%s: %s",
        request.path,
        request.method,
        type(exc).__name__,
        str(exc).strip().splitlines()[0] if str(exc).strip() else "",
    )
    response: HttpResponse
    if request.path.startswith("/api/"):
        response = JsonResponse({"message": UNAVAILABLE_MESSAGE, "extra": {}}, status=503)
    else:
        # Rendered without the request: context processors (the lazy user, the site) would query the
        # database that is down.
        response = HttpResponse(loader.render_to_string("503.html"), status=503)
    response["Retry-After"] = RETRY_AFTER_S
    return response


def database_failed_this_request() -> bool:
    """True when this request's database connection failed to open or broke (not a bad query).

    Django sets `errors_occurred` for every database error except IntegrityError and DataError; a
    connection that never opened, or no longer answers, tells an outage from a bug in a query. Deciding
    from this request's own connection rather than a new probe avoids calling a 500 "fine" because the
    server came back a millisecond later."""
    if not connection.errors_occurred:
        return False
    return connection.connection is None or not connection.is_usable()


class DatabaseUnavailableMiddleware:
    """Turn OperationalError/InterfaceError raised by a view into a 503 (see the module docstring)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        try:
            response = self.get_response(request)
        except DATABASE_ERRORS as exc:  # raised by a middleware below this one (e.g. a session save)
            return database_unavailable_response(request, exc)
        if response.status_code == 500 and database_failed_this_request():
            # A database error raised in a middleware below this one, or caught by the API's exception
            # handler (which answers every unexpected exception with a JSON 500), never reaches
            # process_exception: it was an outage all the same.
            return database_unavailable_response(request, OperationalError("database connection failed"))
        return response

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if isinstance(exception, DATABASE_ERRORS):
            return database_unavailable_response(request, exception)
        return None


class CurrencyMiddleware:
    """The currency a page shows prices in (providers.currency): `?currency=USD|CNY` chooses it and keeps the
    choice in a cookie (no database write), else the signed-in user's setting, else US dollars. The rate is
    looked up only when a page shows a price."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        asked = currency.asked_currency(request)
        request.currency_display = SimpleLazyObject(lambda: currency.display_for(asked))  # type: ignore[attr-defined]
        response = self.get_response(request)
        chosen = request.GET.get("currency", "").strip().upper()
        if chosen in currency.SHOWN:
            response.set_cookie(currency.COOKIE, chosen, max_age=365 * 24 * 3600, samesite="Lax")
        return response


class NullCharacterMiddleware:
    """Refuse a query string holding a null character (U+0000, `%00`) with a 400 naming the parameter.

    No parameter of the portal can mean one, and PostgreSQL refuses it in any text it is given: a filter
    such as `?offering=%00` or `?q=%00` reached the database and answered 500. Checked once here for every
    page and API address, before any view reads the parameters. (Form and JSON fields are checked by their
    fields: Django's and DRF's text fields refuse a null character.)"""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        bad = next((key for key, values in request.GET.lists() if "\x00" in key + "".join(values)), None)
        if bad is None:
            return self.get_response(request)
        name = bad.replace("\x00", "\\x00")
        message = gettext("a null character (U+0000) is not allowed in a parameter")
        if request.path.startswith("/api/"):
            body = {"message": f"{name}: {message}", "extra": {"fields": {name: [message]}}}
            return JsonResponse(body, status=400)
        return render(request, "400.html", {"parameter": name, "message": message}, status=400)
