"""The API's pagination: DRF's limit/offset, with bounds and a clear refusal.

DRF's own LimitOffsetPagination takes any whole number as `limit`, so `?limit=10**30` reached PostgreSQL as
a LIMIT beyond its 64-bit range (a 500), and it quietly replaces a `limit` or `offset` it cannot read
(`abc`, `-1`, `1.5`) with the default. Here each must be a whole number, or the request is refused with a
400 naming the parameter (the API's error body, portal.api_errors). A `limit` above MAX_LIMIT gets MAX_LIMIT
rows, as DRF's `max_limit` documents (a client paging with a larger limit follows `next`); an offset past
PostgreSQL's range is refused.
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext
from rest_framework import exceptions
from rest_framework.pagination import LimitOffsetPagination
from rest_framework.request import Request

# The most rows one page may ask for (the default page is settings.REST_FRAMEWORK["PAGE_SIZE"], 100).
MAX_LIMIT = 1000
# PostgreSQL's OFFSET is a 64-bit integer; an offset past the last row answers an empty page anyway.
MAX_OFFSET = 2**63 - 1


def _whole_number(request: Request, name: str, minimum: int, maximum: int, clamp: bool = False) -> int | None:
    """The query parameter `name` as a whole number from minimum to maximum (above it: the maximum when
    `clamp`); None when it is absent or empty; a 400 naming it otherwise."""
    raw = request.query_params.get(name, "").strip()
    if not raw:
        return None
    value = int(raw) if raw.isascii() and raw.isdigit() and len(raw) <= 40 else None
    if clamp and value is not None and value > maximum:
        return maximum
    if value is None or not minimum <= value <= maximum:
        message = gettext("must be a whole number from %(minimum)s to %(maximum)s") % {
            "minimum": f"{minimum:,}",
            "maximum": f"{maximum:,}",
        }
        raise exceptions.ValidationError({name: [message]})
    return value


class BoundedLimitOffsetPagination(LimitOffsetPagination):
    """`limit` from 1 (above MAX_LIMIT: MAX_LIMIT rows), `offset` from 0; anything else is a 400 naming the
    parameter."""

    max_limit = MAX_LIMIT

    def get_limit(self, request: Request) -> Any:
        limit = _whole_number(request, self.limit_query_param, 1, MAX_LIMIT, clamp=True)
        return self.default_limit if limit is None else limit

    def get_offset(self, request: Request) -> int:
        offset = _whole_number(request, self.offset_query_param, 0, MAX_OFFSET)
        return offset or 0

    def get_schema_operation_parameters(self, view: Any) -> list[dict[str, Any]]:
        """DRF's description of the two parameters, with their ranges (a larger `limit` is served at
        MAX_LIMIT rows, so it has no maximum, only the description says so)."""
        parameters: list[dict[str, Any]] = super().get_schema_operation_parameters(view)
        for parameter in parameters:
            if parameter["name"] == self.limit_query_param:
                parameter["schema"] = {**parameter["schema"], "minimum": 1}
                parameter["description"] = (
                    f"{parameter.get('description') or ''} At most {MAX_LIMIT:,} rows per page; "
                    f"a larger limit gets {MAX_LIMIT:,}."
                ).strip()
            else:
                parameter["schema"] = {**parameter["schema"], "minimum": 0, "maximum": MAX_OFFSET}
        return parameters
