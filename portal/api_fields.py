"""DRF input fields that close gaps in DRF's own, used by the API serializers (each says which gap)."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers


class SlugRelatedField(serializers.SlugRelatedField):  # type: ignore[type-arg]
    """DRF's SlugRelatedField, refusing a null character before the lookup: PostgreSQL refuses one in any
    text it is given (a DataError, which DRF does not catch: a 500). Answers DRF's own "does not exist"."""

    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, str) and "\x00" in data:
            self.fail("does_not_exist", slug_name=self.slug_field, value=data.replace("\x00", "\\x00"))
        return super().to_internal_value(data)
