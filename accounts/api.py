"""POST /api/v1/auth/token/: a token for scripts, with the same failed-attempt limit as the login page."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.authtoken.models import Token
from rest_framework.authtoken.serializers import AuthTokenSerializer
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.throttling import BaseThrottle
from rest_framework.views import APIView

from accounts import ratelimit
from accounts.views import login_key, login_limit
from portal.api_errors import error_body, error_responses


class TokenOutputSerializer(serializers.Serializer[dict[str, Any]]):
    token = serializers.CharField()


class TokenApi(APIView):
    authentication_classes: list[Any] = []
    permission_classes = [AllowAny]
    throttle_classes: list[type[BaseThrottle]] = []
    serializer_class = AuthTokenSerializer

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
        token, _ = Token.objects.get_or_create(user=serializer.validated_data["user"])
        return Response({"token": token.key})
