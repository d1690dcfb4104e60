"""The API list's rows as JSON already rendered: each offering's row is rendered once per catalog version
(providers.cached) and the list's body is spliced from them, byte for byte what rendering the whole page
would give, without decoding and encoding a megabyte of JSON on every request (docs/PERFORMANCE.md)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from rest_framework.renderers import JSONRenderer


class RenderedRows(list[bytes]):
    """Rows already rendered by `RowsJSONRenderer` in its default (compact, unindented) form."""


class RowsJSONRenderer(JSONRenderer):
    """DRF's JSON renderer (same media type and options) that splices `RenderedRows` into the answer; any
    other form asked for (an indent, the browsable page) renders them from their values as before."""

    def render(
        self,
        data: Any,
        accepted_media_type: str | None = None,
        renderer_context: Mapping[str, Any] | None = None,
    ) -> bytes:
        rows = data.get("results") if isinstance(data, dict) else data
        if not isinstance(rows, RenderedRows):
            return super().render(data, accepted_media_type, renderer_context)
        if self.get_indent(accepted_media_type or "", renderer_context or {}) is not None or not self.compact:
            values = [json.loads(row) for row in rows]
            shown = {**data, "results": values} if isinstance(data, dict) else values
            return super().render(shown, accepted_media_type, renderer_context)
        body = b"[" + b",".join(rows) + b"]"
        if not isinstance(data, dict):
            return body
        envelope = super().render({**data, "results": []}, accepted_media_type, renderer_context)
        if not envelope.endswith(b'"results":[]}'):  # results is the paginator's last key
            raise ValueError("the list's rows are not the last member of its answer")
        return envelope[:-3] + body + b"}"

    def row(self, value: Any) -> bytes:
        """One row in the form `render` splices."""
        return super().render(value)
