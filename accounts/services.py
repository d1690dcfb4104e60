"""Writes of the accounts app: API tokens (issue with a bounded lifetime, revoke)."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from rest_framework.authtoken.models import Token


def token_lifetime() -> timedelta:
    return timedelta(hours=settings.API_TOKEN_LIFETIME_HOURS)


def token_expires_at(*, token: Token) -> datetime:
    created: datetime = token.created
    return created + token_lifetime()


def token_expired(*, token: Token) -> bool:
    return timezone.now() >= token_expires_at(token=token)


@transaction.atomic
def token_issue(*, user: Any) -> Token:
    """The user's live token, or a new one when there is none or it has expired."""
    token = Token.objects.select_for_update().filter(user=user).first()
    if token is not None and token_expired(token=token):
        token.delete()
        token = None
    if token is None:
        token = Token.objects.create(user=user)
    return token


def token_revoke(*, user: Any) -> bool:
    """Delete the user's API token; True when there was one. Scripts using it get 401 from now on."""
    deleted, _ = Token.objects.filter(user=user).delete()
    return bool(deleted)
