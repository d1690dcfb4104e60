"""API tokens with a bounded lifetime (settings.API_TOKEN_LIFETIME_HOURS): an expired token is refused and
deleted, so the script asks POST /api/v1/auth/token/ for a new one."""

from __future__ import annotations

from typing import Any

from rest_framework import exceptions
from rest_framework.authentication import TokenAuthentication

from accounts import services


class ExpiringTokenAuthentication(TokenAuthentication):
    """`Authorization: Token <key>`, refused once the token is older than its lifetime."""

    def authenticate_credentials(self, key: str) -> tuple[Any, Any]:
        user, token = super().authenticate_credentials(key)
        if services.token_expired(token=token):
            services.token_revoke(user=user)
            raise exceptions.AuthenticationFailed(
                "This API token has expired; ask POST /api/v1/auth/token/ for a new one."
            )
        return user, token
