"""The upload limit as a DRF throttle (scope "uploads"), for both ways in: the upload API lists
UploadThrottle in its throttle_classes, the upload page's view is wrapped in `upload_throttled`.

Both count on one per-user counter in accounts.ratelimit: a fixed window on Django's cache that lets
requests through when the cache is down (Redis restarting), so an outage never blocks evidence uploads.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import wraps
from typing import Any, NoReturn

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from rest_framework.exceptions import Throttled
from rest_framework.parsers import BaseParser, FormParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.throttling import BaseThrottle
from rest_framework.views import APIView

from accounts import ratelimit
from accounts.views import rate_limited_page


def upload_limit() -> ratelimit.Limit:
    # Read at each request, so a changed setting applies without a restart of the limiter.
    return ratelimit.Limit(
        scope=UploadThrottle.scope,
        max_hits=settings.RATE_LIMIT_UPLOADS,
        window_seconds=settings.RATE_LIMIT_UPLOADS_WINDOW_SECONDS,
    )


def upload_volume_limits() -> tuple[ratelimit.Limit, ratelimit.Limit]:
    """Files and bytes per user in the same window as the requests."""
    window = settings.RATE_LIMIT_UPLOADS_WINDOW_SECONDS
    return (
        ratelimit.Limit(
            scope="upload-files", max_hits=settings.RATE_LIMIT_UPLOAD_FILES, window_seconds=window
        ),
        ratelimit.Limit(
            scope="upload-bytes", max_hits=settings.RATE_LIMIT_UPLOAD_BYTES, window_seconds=window
        ),
    )


def _mib(n: int) -> str:
    return f"{n / (1024 * 1024):.0f} MiB" if n >= 1024 * 1024 else f"{n / 1024:.1f} KiB"


def upload_limit_message(retry_after: int, what: str = "uploads") -> str:
    limit = upload_limit()
    files, volume = upload_volume_limits()
    minutes = max(1, round(retry_after / 60))
    allowed = {
        "uploads": f"at most {limit.max_hits} uploads",
        "files": f"at most {files.max_hits} files",
        "bytes": f"at most {_mib(volume.max_hits)} of files",
    }[what]
    return (
        f"Upload limit reached: {allowed} per {limit.window_seconds // 60} minutes. "
        f"Try again in about {minutes} minutes."
    )


class UploadLimitReached(Throttled):
    """The API's 429: the same sentence as the page, `retry_after_seconds` and a Retry-After header."""

    def __init__(self, retry_after: int, what: str = "uploads") -> None:
        super().__init__(detail=upload_limit_message(retry_after, what))
        self.wait = retry_after


class UploadThrottle(BaseThrottle):
    """At most RATE_LIMIT_UPLOADS uploads (POSTs), RATE_LIMIT_UPLOAD_FILES files and
    RATE_LIMIT_UPLOAD_BYTES bytes per user in RATE_LIMIT_UPLOADS_WINDOW_SECONDS."""

    scope = "uploads"

    def __init__(self) -> None:
        self.retry_after = 0
        self.exceeded = "uploads"

    @staticmethod
    def user_key(user: Any) -> str:
        # With date_joined, a re-created account (or a test database's reused id) starts from zero.
        return f"user:{user.pk}:{user.date_joined.timestamp() if user.date_joined else ''}"

    def allow_upload(self, *, user: Any, method: str | None, file_sizes: list[int] | None = None) -> bool:
        """Count the request (and its files and bytes) if it is an upload; False (and `wait()`,
        `exceeded` set) when over a limit. A refused request's files and bytes are not counted."""
        # Anonymous uploads are refused by the view itself (a redirect to log in, or a 401).
        if method != "POST" or user is None or not user.is_authenticated:
            return True
        limit = upload_limit()
        key = self.user_key(user)
        if ratelimit.record(limit, key) > limit.max_hits:
            self.retry_after = ratelimit.blocked_for(limit, key) or 1
            return False
        sizes = file_sizes or []
        if len(sizes) > settings.UPLOAD_MAX_FILES_PER_REQUEST:
            return True  # refused by the view with a 400 naming the per-request limit; nothing stored
        files, volume = upload_volume_limits()
        for what, volume_limit, amount in (("files", files, len(sizes)), ("bytes", volume, sum(sizes))):
            if amount and ratelimit.blocked_for(volume_limit, key, amount):
                self.exceeded = what
                self.retry_after = ratelimit.blocked_for(volume_limit, key, amount)
                return False
        for volume_limit, amount in ((files, len(sizes)), (volume, sum(sizes))):
            if amount:
                ratelimit.record(volume_limit, key, amount)
        return True

    def allow_request(self, request: Request, view: APIView) -> bool:
        sizes = [int(f.size or 0) for f in request.FILES.getlist("file")] if request.method == "POST" else []
        if self.allow_upload(user=request.user, method=request.method, file_sizes=sizes):
            return True
        raise UploadLimitReached(self.retry_after, self.exceeded)  # the message names what ran out

    def wait(self) -> int:
        return self.retry_after


class UploadThrottled:
    """For an API view that takes uploads: multipart bodies, the upload throttle, and the 429 that says
    when to try again."""

    parser_classes: Sequence[type[BaseParser]] = [MultiPartParser, FormParser]
    throttle_classes: Sequence[type[BaseThrottle]] = [UploadThrottle]

    def throttled(self, request: Request, wait: float | None) -> NoReturn:
        raise UploadLimitReached(int(wait or 1))


def upload_throttled(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """The page's way in to UploadThrottle: over the limit, the rate-limited page (429)."""

    @wraps(view)
    def throttled_view(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        throttle = UploadThrottle()
        sizes = [int(f.size or 0) for f in request.FILES.getlist("file")] if request.method == "POST" else []
        if not throttle.allow_upload(
            user=getattr(request, "user", None), method=request.method, file_sizes=sizes
        ):
            return rate_limited_page(
                request,
                message=upload_limit_message(throttle.wait(), throttle.exceeded),
                retry_after=throttle.wait(),
            )
        return view(request, *args, **kwargs)

    return throttled_view
