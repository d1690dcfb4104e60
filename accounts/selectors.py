"""Reads of the accounts app."""

from __future__ import annotations

from typing import Any

from rest_framework.authtoken.models import Token


def is_curator(user: Any) -> bool:
    """Staff, who curate (and read) everything; False for anonymous visitors and for no user at all."""
    return bool(user is not None and user.is_authenticated and getattr(user, "is_curator", False))


def token_get(*, user: Any) -> Token | None:
    """The user's API token (live or expired), or None."""
    return Token.objects.filter(user=user).first()
