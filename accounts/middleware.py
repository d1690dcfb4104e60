"""Per-user upload limit, on both ways in (the upload page and POST /api/v1/uploads/)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render

from accounts import ratelimit
from portal.api_errors import error_body

# URL names (as resolved, namespace included) whose POSTs count as uploads.
UPLOAD_URL_NAMES = {"benchmarks:upload-new", "api-uploads"}


def upload_limit() -> ratelimit.Limit:
    return ratelimit.Limit(
        scope="upload",
        max_hits=settings.RATE_LIMIT_UPLOADS,
        window_seconds=settings.RATE_LIMIT_UPLOADS_WINDOW_SECONDS,
    )


def _user_key(pk: Any, date_joined: Any) -> str:
    # With date_joined, a re-created account (or a test database's reused id) starts from zero.
    return f"user:{pk}:{date_joined.timestamp() if date_joined else ''}"


class UploadRateLimitMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_view(
        self, request: HttpRequest, view_func: Any, view_args: Any, view_kwargs: Any
    ) -> HttpResponse | None:
        match = request.resolver_match
        if request.method != "POST" or match is None or match.view_name not in UPLOAD_URL_NAMES:
            return None
        # Token-authenticated API calls are only known after DRF authenticates; count them by token.
        user = getattr(request, "user", None)
        if user is not None and user.is_authenticated:
            key = _user_key(user.pk, user.date_joined)
        elif request.headers.get("Authorization", "").startswith("Token "):
            from rest_framework.authtoken.models import Token

            token = request.headers["Authorization"][6:].strip()
            owner = Token.objects.filter(key=token).values("user_id", "user__date_joined").first()
            if owner is None:
                return None  # a bad token: refused by the view (401)
            key = _user_key(owner["user_id"], owner["user__date_joined"])
        else:
            return None  # anonymous: refused by the view itself (302 to log in / 401)
        limit = upload_limit()
        if ratelimit.record(limit, key) <= limit.max_hits:
            return None
        retry_after = ratelimit.blocked_for(limit, key) or 1
        minutes = max(1, round(retry_after / 60))
        message = (
            f"Upload limit reached: at most {limit.max_hits} uploads per "
            f"{limit.window_seconds // 60} minutes. Try again in about {minutes} minutes."
        )
        response: HttpResponse
        if match.view_name.startswith("api-"):
            response = JsonResponse(error_body(message, retry_after_seconds=retry_after), status=429)
        else:
            response = render(request, "accounts/rate_limited.html", {"message": message}, status=429)
        response["Retry-After"] = str(retry_after)
        return response
