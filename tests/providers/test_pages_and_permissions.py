from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from django.core.exceptions import PermissionDenied
from django.test import Client

from providers.services import offering_update, plan_price_change
from tests.providers.factories import OfferingFactory, PlanFactory, ProviderFactory, UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def two_providers() -> dict[str, object]:
    mine = OfferingFactory(name="Mine", provider=ProviderFactory(slug="mine"))
    theirs = OfferingFactory(name="Theirs", provider=ProviderFactory(slug="theirs"), fabric="ethernet")
    rep = UserFactory(username="rep", role="provider", provider=mine.provider)
    buyer = UserFactory(username="buyer")
    staff = UserFactory(username="staff", role="staff")
    return {"mine": mine, "theirs": theirs, "rep": rep, "buyer": buyer, "staff": staff}


def test_a_representative_edits_only_their_own_provider(two_providers: dict) -> None:
    rep = two_providers["rep"]
    offering_update(user=rep, offering=two_providers["mine"], facts={"gbps_per_nic": 200})
    two_providers["mine"].refresh_from_db()
    assert two_providers["mine"].gbps_per_nic == 200
    with pytest.raises(PermissionDenied):
        offering_update(user=rep, offering=two_providers["theirs"], facts={"gbps_per_nic": 1})
    with pytest.raises(PermissionDenied):
        plan_price_change(
            user=rep,
            plan=PlanFactory(offering=two_providers["theirs"]),
            price_usd_per_gpu_hour=Decimal("0.01"),
            as_of=None,
        )


def test_buyers_cannot_edit_and_staff_can(two_providers: dict) -> None:
    with pytest.raises(PermissionDenied):
        offering_update(
            user=two_providers["buyer"], offering=two_providers["mine"], facts={"gbps_per_nic": 1}
        )
    offering_update(user=two_providers["staff"], offering=two_providers["theirs"], facts={"fabric": "roce"})


def test_the_edit_page_refuses_another_providers_offering(client: Client, two_providers: dict) -> None:
    client.force_login(two_providers["rep"])
    assert client.get(f"/offerings/{two_providers['theirs'].slug}/edit/").status_code == 403
    assert (
        client.post(f"/offerings/{two_providers['theirs'].slug}/edit/", {"gbps_per_nic": "1"}).status_code
        == 403
    )
    assert client.get(f"/offerings/{two_providers['mine'].slug}/edit/").status_code == 200


def test_the_edit_page_names_a_bad_field_and_writes_nothing(client: Client, two_providers: dict) -> None:
    client.force_login(two_providers["rep"])
    mine = two_providers["mine"]
    response = client.post(f"/offerings/{mine.slug}/edit/", {"gbps_per_nic": "-3", "gpus_per_node": "4"})
    assert response.status_code == 400
    assert b"gbps_per_nic" in response.content
    assert b"Speed per NIC must be between 1 and 1,600 Gb/s" in response.content
    mine.refresh_from_db()
    assert mine.gpus_per_node == 8


def test_anonymous_edit_goes_to_login(client: Client, two_providers: dict) -> None:
    response = client.get(f"/offerings/{two_providers['mine'].slug}/edit/")
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]


def test_browse_filters_and_bad_parameters(client: Client, two_providers: dict) -> None:
    page = client.get("/offerings/?filtered=1&include_fictional=on&fabric=ethernet")
    assert page.status_code == 200
    assert b"Theirs" in page.content and b"Mine" not in page.content
    bad = client.get("/offerings/?min_gbps_per_gpu=lots&fabric=wifi")
    assert bad.status_code == 400
    assert b"min_gbps_per_gpu" in bad.content and b"fabric" in bad.content


def test_the_offering_page_shows_not_published_and_sources(client: Client) -> None:
    offering = OfferingFactory(egress_price_usd_per_gb=None)
    PlanFactory(offering=offering, price_usd_per_gpu_hour=None, name="Contact sales")
    body = client.get(f"/offerings/{offering.slug}/").content.decode()
    assert "not published" in body and "Contact sales" in body
    assert client.get("/offerings/no-such-thing/").status_code == 404


def test_provider_text_is_escaped(client: Client) -> None:
    offering = OfferingFactory(name="<script>alert(1)</script>", summary="<img src=x onerror=alert(2)>")
    body = client.get(f"/offerings/{offering.slug}/").content.decode()
    assert "<script>alert(1)</script>" not in body and "&lt;script&gt;" in body
    assert "<img src=x" not in body


def test_the_api_lists_and_filters(client: Client, two_providers: dict) -> None:
    data = client.get("/api/v1/offerings/?fabric=ethernet").json()
    assert [o["slug"] for o in data["results"]] == [two_providers["theirs"].slug]
    one = client.get(f"/api/v1/offerings/?slug={two_providers['mine'].slug}").json()
    assert one["count"] == 1 and one["results"][0]["gbps_per_gpu"] == 400
    bad = client.get("/api/v1/offerings/?min_gbps_per_gpu=x")
    assert bad.status_code == 400 and bad.json()["message"].startswith("min_gbps_per_gpu")
    assert client.get("/api/v1/providers/").json()["count"] == 2
    assert client.get(f"/api/v1/offerings/{two_providers['mine'].slug}/").status_code == 200
    assert client.get("/api/v1/offerings/nope/").json()["message"]


def test_the_api_catalog_is_read_only(client: Client, two_providers: dict) -> None:
    client.force_login(two_providers["staff"])
    response = client.post("/api/v1/offerings/", {"slug": "x"}, content_type="application/json")
    assert response.status_code == 405


def test_healthz(client: Client) -> None:
    response = client.get("/healthz")
    assert response.status_code == 200 and response.json()["checks"]["database"] == "ok"


def test_login_and_logout(client: Client, two_providers: dict) -> None:
    response = client.post("/accounts/login/", {"username": "buyer", "password": "pw-for-tests"})
    assert response.status_code == 302
    assert "buyer" in client.get("/").content.decode()
    assert client.post("/accounts/login/", {"username": "buyer", "password": "wrong"}).status_code == 200


def test_browse_pages_through_a_large_catalog(client: Client, django_assert_max_num_queries: Any) -> None:
    for i in range(120):
        OfferingFactory(name=f"Bulk {i:03d}")
    with django_assert_max_num_queries(12):
        first = client.get("/offerings/?sort=name")
    body = first.content.decode()
    assert first.status_code == 200 and "120 offerings" in body and "showing 1–50" in body
    assert body.count('name="offerings"') == 50 and "page 1 of 3" in body
    last = client.get("/offerings/?sort=name&page=3").content.decode()
    assert "showing 101–120" in last and "Bulk 119" in last
    bad = client.get("/offerings/?page=zero")
    assert bad.status_code == 400 and "page" in bad.content.decode()


def test_the_provider_filter_searches_names_and_suggests_only_a_few(client: Any) -> None:
    from providers.selectors import PROVIDER_SUGGESTIONS

    for i in range(PROVIDER_SUGGESTIONS + 5):
        OfferingFactory(provider=ProviderFactory(name=f"Cloud number {i:03d}"))
    OfferingFactory(name="Only Lambda", provider=ProviderFactory(name="Lambda Labs"))
    page = client.get("/offerings/").content.decode()
    assert page.count('<option value="Cloud number') == PROVIDER_SUGGESTIONS  # never every provider
    assert '<select name="provider"' not in page
    found = client.get("/offerings/?provider_name=lambda")
    assert [o.name for o in found.context["offerings"]] == ["Only Lambda"]
    assert '<option value="Lambda Labs">' in found.content.decode()
    too_long = client.get("/offerings/?provider_name=" + "x" * 101)
    assert too_long.status_code == 400 and "provider_name" in too_long.content.decode()


def test_a_bad_filter_is_named_by_its_label_in_the_pages_language(client: Any) -> None:
    response = client.get("/offerings/?max_price=abc&sort=zzz&page=-1", HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert response.status_code == 400
    errors = response.content.decode().split('role="alert"')[1].split("</div>")[0]
    assert "每 GPU 小时价格上限（美元）: " in errors and "排序: " in errors and "页码: " in errors
    for code in ("max_price", "sort:", "page:", "<code>"):
        assert code not in errors, code
