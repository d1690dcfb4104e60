"""POST /api/v1/auth/token/: a token for scripts, with the same failed-attempt limit as the login page;
DELETE revokes it. Tokens expire after settings.API_TOKEN_LIFETIME_HOURS (accounts/authentication.py)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.authtoken.serializers import AuthTokenSerializer
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.throttling import BaseThrottle
from rest_framework.views import APIView

from accounts import ratelimit, services
from accounts.views import login_key, login_limit
from portal.api_errors import error_body, error_responses


class TokenOutputSerializer(serializers.Serializer[dict[str, Any]]):
    token = serializers.CharField()
    expires_at = serializers.DateTimeField(help_text="after this the token is refused; ask for a new one")


class TokenApi(APIView):
    """POST needs no authentication (it is the log-in); DELETE is authenticated by the token it revokes
    (or the session)."""

    permission_classes = [AllowAny]
    throttle_classes: list[type[BaseThrottle]] = []
    serializer_class = AuthTokenSerializer
    _revoking = False

    def dispatch(self, request: Any, *args: Any, **kwargs: Any) -> Any:
        self._revoking = request.method == "DELETE"
        return super().dispatch(request, *args, **kwargs)

    def get_authenticators(self) -> list[Any]:
        return super().get_authenticators() if self._revoking else []

    def get_permissions(self) -> list[Any]:
        return [IsAuthenticated()] if self._revoking else [AllowAny()]

    @extend_schema(
        operation_id="auth_token_destroy",
        request=None,
        responses={204: OpenApiResponse(description="The token is revoked."), **error_responses(401)},
    )
    def delete(self, request: Request) -> Response:
        services.token_revoke(user=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)

    @extend_schema(
        operation_id="auth_token_create",
        request=AuthTokenSerializer,
        responses={
            200: OpenApiResponse(
                TokenOutputSerializer, description="Send it as `Authorization: Token <token>`."
            ),
            **error_responses(400, 429),
        },
    )
    def post(self, request: Request) -> Response:
        username = str(request.data.get("username", "")) if hasattr(request.data, "get") else ""
        key = login_key(request, username)
        retry_after = ratelimit.blocked_for(login_limit(), key)
        if retry_after:
            body = error_body(
                "Too many failed attempts for this user name; try again later.",
                retry_after_seconds=retry_after,
            )
            return Response(
                body, status=status.HTTP_429_TOO_MANY_REQUESTS, headers={"Retry-After": str(retry_after)}
            )
        serializer = AuthTokenSerializer(data=request.data, context={"request": request})
        if not serializer.is_valid():
            ratelimit.record(login_limit(), key)
            serializer.is_valid(raise_exception=True)
        token = services.token_issue(user=serializer.validated_data["user"])
        return Response({"token": token.key, "expires_at": services.token_expires_at(token=token)})
