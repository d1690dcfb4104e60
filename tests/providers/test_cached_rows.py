"""The browse page's rows and the API list's rows are cached under the catalog version: every way the catalog
is written (admin, import, sourced edit, price change, plain saves and source links) shows on the very
next request, the cached answer is the same as the one built, and neither page's queries grow with the
catalog."""

from __future__ import annotations

import datetime as dt
import re
from decimal import Decimal
from typing import Any

import pytest
from django.test import Client
from django.utils import translation

from providers import services
from providers.cached import catalog_version
from providers.catalog import catalog_import
from providers.models import Offering, Provenance, Source
from tests.providers.factories import (
    GPUModelFactory,
    OfferingFactory,
    PlanFactory,
    UserFactory,
    small_catalog,
)

pytestmark = pytest.mark.django_db


def api_row(client: Client, slug: str) -> dict[str, Any]:
    rows = client.get("/api/v1/offerings/?include_fictional=true").json()["results"]
    return next(row for row in rows if row["slug"] == slug)


def browse(client: Client) -> str:
    return client.get("/offerings/?include_fictional=on").content.decode()


@pytest.fixture
def offering() -> Offering:
    plan = PlanFactory(price_usd_per_gpu_hour=Decimal("3.50"))
    return plan.offering


def detail(client: Client, offering: Offering) -> str:
    return client.get(f"/offerings/{offering.slug}/").content.decode()


def warm(client: Client, offering: Offering) -> None:
    """The three pages read once, so that the next read would come from the cache if nothing bumped it."""
    assert api_row(client, offering.slug)["name"] == offering.name
    assert offering.name in browse(client)
    assert offering.name in detail(client, offering)


def test_a_sourced_edit_shows_at_once(client: Client, offering: Offering) -> None:
    warm(client, offering)
    staff = UserFactory(is_staff=True)
    services.offering_facts_edit(
        user=staff,
        offering=offering,
        facts={"gbps_per_nic": 200.0},
        source_url="https://example.com/spec",
        as_of=dt.date(2026, 11, 1),
    )
    assert api_row(client, offering.slug)["gbps_per_nic"] == 200.0
    assert "8 × 200" in browse(client)
    assert "https://example.com/spec" in detail(client, offering)  # the group's new source


def test_a_price_change_shows_at_once(client: Client, offering: Offering) -> None:
    warm(client, offering)
    plan = offering.plans.get()
    staff = UserFactory(is_staff=True)
    services.plan_price_change(
        user=staff, plan=plan, price_usd_per_gpu_hour=Decimal("1.25"), as_of=None, note=""
    )
    row = api_row(client, offering.slug)
    assert row["on_demand_price_usd_per_gpu_hour"] == "1.2500"
    assert [p["price_usd_per_gpu_hour"] for p in row["plans"][0]["history"]][-1] == "1.2500"
    assert "$1.25" in browse(client)
    assert "$1.250" in detail(client, offering)


def test_a_plain_save_of_the_provider_shows_at_once(client: Client, offering: Offering) -> None:
    """What the shell or any code does with the models (no service, no catalog signal)."""
    warm(client, offering)
    offering.provider.name = "Renamed Cloud"
    offering.provider.save()
    assert api_row(client, offering.slug)["provider_name"] == "Renamed Cloud"
    assert "Renamed Cloud" in browse(client)


def titles(client: Client, offering: Offering) -> list[str]:
    return [s["title"] for s in api_row(client, offering.slug)["sources"]["network"]["sources"]]


def test_a_source_and_its_link_show_at_once(client: Client, offering: Offering) -> None:
    source = Source.objects.create(provider=offering.provider, key="spec", title="Spec sheet")
    group = Provenance.objects.create(offering=offering, group="network")
    warm(client, offering)
    group.sources.add(source)  # a link only (m2m): no row of either table is saved
    assert titles(client, offering) == ["Spec sheet"]
    source.title = "Spec sheet, v2"
    source.save()
    assert titles(client, offering) == ["Spec sheet, v2"]
    group.sources.clear()
    assert titles(client, offering) == []


def test_a_deleted_offering_leaves_at_once(client: Client, offering: Offering) -> None:
    other = OfferingFactory(name="Stays")
    warm(client, offering)
    offering.delete()
    slugs = [row["slug"] for row in client.get("/api/v1/offerings/").json()["results"]]
    assert slugs == [other.slug]
    assert offering.name not in browse(client)


def test_an_import_shows_at_once(client: Client) -> None:
    GPUModelFactory()
    data = small_catalog()
    catalog_import(data=data)
    offering = Offering.objects.get(slug="acme-h100")
    warm(client, offering)
    data["providers"][0]["offerings"][0]["name"] = "Acme HGX H100, renamed"
    data["providers"][0]["offerings"][0]["plans"][0]["price_usd_per_gpu_hour"] = 2.49
    catalog_import(data=data)
    row = api_row(client, "acme-h100")
    assert row["name"] == "Acme HGX H100, renamed" and row["on_demand_price_usd_per_gpu_hour"] == "2.4900"
    page = browse(client)
    assert "Acme HGX H100, renamed" in page and "$2.49" in page


def _admin_form(client: Client, url: str, form_id: str = "offering_form") -> dict[str, Any]:
    """The values an admin change form submits as rendered (inputs, checked boxes, selected options)."""
    html = client.get(url).content.decode()
    start = html.index(f'id="{form_id}"')
    form = html[start : html.index("</form>", start)]
    data: dict[str, Any] = {}
    for tag in re.findall(r"<input[^>]*>", form):
        name = re.search(r'name="([^"]+)"', tag)
        kind = re.search(r'type="([^"]+)"', tag)
        if name is None or (kind and kind.group(1) in ("submit", "checkbox") and " checked" not in tag):
            continue
        value = re.search(r'value="([^"]*)"', tag)
        data[name.group(1)] = value.group(1) if value else ""
    for name, attrs, body in re.findall(r'<select name="([^"]+)"([^>]*)>(.*?)</select>', form, re.S):
        chosen = re.findall(r'<option value="([^"]*)"[^>]*selected', body)
        data[name] = chosen if " multiple" in attrs else (chosen[0] if chosen else "")
    for name, body in re.findall(r'<textarea name="([^"]+)"[^>]*>(.*?)</textarea>', form, re.S):
        data[name] = body.strip()
    return data


def test_an_admin_edit_shows_at_once(client: Client, admin_client: Client, offering: Offering) -> None:
    warm(client, offering)
    url = f"/admin/providers/offering/{offering.pk}/change/"
    data = _admin_form(admin_client, url)
    data["name"] = "Edited in the admin"
    response = admin_client.post(url, data)
    assert response.status_code == 302, re.findall(r"errorlist.{0,300}", response.content.decode())
    assert api_row(client, offering.slug)["name"] == "Edited in the admin"
    assert "Edited in the admin" in browse(client)
    plan = offering.plans.get()
    url = f"/admin/providers/billingplan/{plan.pk}/change/"
    data = _admin_form(admin_client, url, "billingplan_form")
    data["price_usd_per_gpu_hour"] = "4.75"
    response = admin_client.post(url, data)
    assert response.status_code == 302, re.findall(r"errorlist.{0,300}", response.content.decode())
    assert "$4.750" in detail(client, offering) and "$4.75" in browse(client)


def test_the_cached_answer_is_the_built_one(client: Client) -> None:
    for i in range(12):
        PlanFactory(offering=OfferingFactory(name=f"Row {i:02d}"), price_usd_per_gpu_hour=Decimal(f"{i}.5"))
    version = catalog_version()
    paths = ["/api/v1/offerings/?limit=5&offset=3&sort=-price", "/offerings/?sort=price&page=1"]
    built = [client.get(path).content for path in paths]
    cached = [client.get(path).content for path in paths]
    assert catalog_version() == version  # nothing bumped it: the second answers came from the cache
    # the browse page's CSRF-free rows and the API's JSON are the same bytes
    assert cached[0] == built[0]
    assert cached[1].split(b'<table class="grid"')[1] == built[1].split(b'<table class="grid"')[1]


def test_rows_are_cached_per_language_and_currency(client: Client) -> None:
    offering = OfferingFactory(provider__name="Alibaba Cloud", provider__native_name="阿里云")
    PlanFactory(offering=offering, price_usd_per_gpu_hour=Decimal("2.00"))
    assert "阿里云" not in browse(client)
    with translation.override("zh-hans"):
        chinese = client.get("/offerings/", HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "阿里云 · Alibaba Cloud" in chinese
    assert "阿里云" not in browse(client)


def test_neither_list_queries_more_for_a_larger_catalog(
    client: Client, django_assert_max_num_queries: Any
) -> None:
    for i in range(150):
        PlanFactory(offering=OfferingFactory(name=f"Bulk {i:03d}"))
    for _ in range(2):  # built, then from the cache
        with django_assert_max_num_queries(10):
            assert len(client.get("/api/v1/offerings/").json()["results"]) == 100
        with django_assert_max_num_queries(8):
            assert client.get("/offerings/").status_code == 200


def test_the_spliced_list_answers_every_form_as_before(client: Client) -> None:
    for i in range(3):
        PlanFactory(offering=OfferingFactory(name=f"Row {i}"))
    client.get("/api/v1/offerings/")  # the rows are now cached
    compact = client.get("/api/v1/offerings/")
    indented = client.get("/api/v1/offerings/", HTTP_ACCEPT="application/json; indent=2")
    assert compact["Content-Type"] == "application/json" and compact.content.startswith(b'{"count":3,')
    assert b'\n  "count": 3,' in indented.content
    assert indented.json() == compact.json() and len(compact.json()["results"]) == 3
    browsable = client.get("/api/v1/offerings/?format=api")
    assert browsable.status_code == 200 and "Row 2" in browsable.content.decode()


def test_the_offering_page_queries_the_same_for_many_plans_and_prices(
    client: Client, django_assert_max_num_queries: Any, offering: Offering
) -> None:
    staff = UserFactory(is_staff=True)
    for i in range(12):
        plan = PlanFactory(offering=offering, name=f"Plan {i}")
        for cents in range(5):
            services.plan_price_change(
                user=staff,
                plan=plan,
                price_usd_per_gpu_hour=Decimal(f"2.{i:02d}{cents}"),
                as_of=None,
                note="",
            )
    for _ in range(2):  # built, then from the cache
        with django_assert_max_num_queries(12):
            page = detail(client, offering)
        assert "Plan 11" in page and "$2.114" in page


def test_a_transaction_of_many_writes_bumps_once_more_on_commit(
    django_capture_on_commit_callbacks: Any,
) -> None:
    from django.db import transaction

    from providers.cached import catalog_version_bump

    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        with transaction.atomic():
            for i in range(5):
                PlanFactory(offering=OfferingFactory(name=f"Imported {i}"))
            during = catalog_version()
    assert [c for c in callbacks if c is catalog_version_bump] == [catalog_version_bump]
    callbacks[callbacks.index(catalog_version_bump)]()  # the commit
    assert catalog_version() != during
