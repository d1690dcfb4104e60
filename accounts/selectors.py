"""Reads of the accounts app."""

from __future__ import annotations

from typing import Any

from rest_framework.authtoken.models import Token


def token_get(*, user: Any) -> Token | None:
    """The user's API token (live or expired), or None."""
    return Token.objects.filter(user=user).first()
