"""Issue 20 items 4 and 9: the login lockout counts look-alike user names together (NFKC, case-folded) per
client address; API tokens expire and can be revoked (API and account page); the share page shows no email."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.test import Client
from django.utils import timezone
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from accounts.ratelimit import normalised_identity
from tests.security.conftest import World

PASSWORD = "pw-for-tests"


def test_look_alike_user_names_normalise_to_one_identity() -> None:
    plain = normalised_identity("buyer")
    for variant in ("BUYER", "Buyer", "ｂｕｙｅｒ", "ＢＵＹＥＲ", " buyer ", "bu\u0079er"):
        assert normalised_identity(variant) == plain, variant
    assert normalised_identity("straße") == normalised_identity("STRASSE")
    assert normalised_identity("buyer2") != plain


def test_fullwidth_and_case_variants_share_the_login_counter(world: World, settings: Any) -> None:
    settings.RATE_LIMIT_LOGIN_FAILURES = 3
    client = Client(REMOTE_ADDR="10.0.0.7")
    for variant in ("ｂｕｙｅｒ", "BUYER", "Buyer"):
        assert client.post("/accounts/login/", {"username": variant, "password": "wrong"}).status_code == 200
    locked = client.post("/accounts/login/", {"username": "buyer", "password": PASSWORD})
    assert locked.status_code == 429
    # The token endpoint shares the counter, under yet another variant.
    api = APIClient(REMOTE_ADDR="10.0.0.7")
    assert (
        api.post("/api/v1/auth/token/", {"username": "ＢＵＹＥＲ", "password": PASSWORD}).status_code == 429
    )
    # The counter is per client address as well: another address may still log in.
    other = Client(REMOTE_ADDR="10.0.0.8")
    assert other.post("/accounts/login/", {"username": "buyer", "password": PASSWORD}).status_code == 302


def _token(username: str = "buyer") -> str:
    response = APIClient().post("/api/v1/auth/token/", {"username": username, "password": PASSWORD})
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["expires_at"]
    return str(body["token"])


def _api(key: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client


def test_an_expired_token_is_refused_and_a_new_one_is_issued(world: World, settings: Any) -> None:
    settings.API_TOKEN_LIFETIME_HOURS = 2
    key = _token()
    assert _api(key).get("/api/v1/workloads/").status_code == 200
    Token.objects.filter(key=key).update(created=timezone.now() - timedelta(hours=3))
    refused = _api(key).get("/api/v1/workloads/")
    assert refused.status_code == 401 and "expired" in refused.json()["message"]
    fresh = _token()
    assert fresh != key and _api(fresh).get("/api/v1/workloads/").status_code == 200


def test_delete_revokes_the_token(world: World) -> None:
    key = _token()
    assert _api(key).delete("/api/v1/auth/token/").status_code == 204
    assert _api(key).get("/api/v1/workloads/").status_code == 401
    assert not Token.objects.filter(key=key).exists()
    assert APIClient().delete("/api/v1/auth/token/").status_code == 401


def test_the_account_page_shows_the_token_and_revokes_it(world: World) -> None:
    key = _token()
    client = Client()
    client.force_login(world.users["buyer"])
    page = client.get("/accounts/account/")
    assert page.status_code == 200 and b"Revoke the API token" in page.content
    assert key.encode() not in page.content  # the page never shows the secret itself
    assert client.get("/accounts/account/token/revoke/").status_code == 405
    response = client.post("/accounts/account/token/revoke/", follow=True)
    assert response.status_code == 200 and b"revoked" in response.content
    assert _api(key).get("/api/v1/workloads/").status_code == 401
    assert Client().get("/accounts/account/").status_code == 302  # anonymous: to the log-in page


def test_the_share_page_shows_no_email(world: World) -> None:
    buyer = world.users["buyer"]
    buyer.email = "buyer-secret@example.com"
    buyer.save()
    from quotes import services as quote_services

    quote = quote_services.quote_create_for_offering(
        owner=buyer, offering_slug=world.offering.slug, workload_id=world.workload.pk
    )
    quote_services.quote_share(quote=quote)
    quote.refresh_from_db()
    shared = Client().get(f"/quotes/shared/{quote.share_token}/")
    assert shared.status_code == 200 and b"buyer-secret@example.com" not in shared.content
    owner = Client()
    owner.force_login(buyer)
    assert b"buyer-secret@example.com" in owner.get(f"/quotes/{quote.pk}/").content
