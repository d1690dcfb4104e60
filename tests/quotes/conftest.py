"""Fixtures of the quotes tests: a well-described offering with sources and prices, a buyer, a quote."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from providers.models import Provenance, Source
from quotes import services
from quotes.models import Quote
from sizing import services as sizing_services
from tests.providers.factories import OfferingFactory, PlanFactory, ProviderFactory, UserFactory


@pytest.fixture(autouse=True)
def _media(settings: Any, tmp_path: Path) -> None:
    settings.MEDIA_ROOT = tmp_path / "media"


def make_offering(
    *,
    provider_name: str = "Acme GPU Cloud",
    name: str = "H100 SXM cluster",
    slug: str = "acme-h100",
    note: str = "",
) -> Any:
    provider = ProviderFactory(name=provider_name, slug=f"p-{slug}", notes=note)
    offering = OfferingFactory(
        provider=provider,
        slug=slug,
        name=name,
        max_nodes=64,
        oversubscription=1.0,
        auto_bad_node_detection=True,
        auto_replacement=True,
        replacement_time_min=30,
        storage_price_usd_per_gb_month=Decimal("0.08"),
        egress_price_usd_per_gb=Decimal("0"),
        fees_note=note or None,
    )
    src = Source.objects.create(
        provider=provider,
        key=f"{slug}-pricing",
        title=f"{provider_name} pricing page {note}",
        url="https://example.com/pricing",
        date_text="2026-11",
    )
    hw = Source.objects.create(
        provider=provider,
        key=f"{slug}-hw",
        title="Hardware datasheet",
        url="https://example.com/hw",
        date_text="2026-10",
    )
    for group, source in (("hardware", hw), ("network", hw), ("fees", src)):
        prov = Provenance.objects.create(
            offering=offering, group=group, as_of=dt.date(2026, 11, 1), note=note
        )
        prov.sources.add(source)
    od = PlanFactory(
        offering=offering,
        kind="on-demand",
        name="On-demand",
        price_usd_per_gpu_hour=Decimal("2.49"),
        granularity="hour",
        as_of=dt.date(2026, 11, 1),
        note=note,
    )
    od.sources.add(src)
    reserved = PlanFactory(
        offering=offering,
        kind="reserved",
        name="Reserved 1 month",
        term_months=1,
        price_usd_per_gpu_hour=Decimal("2.10"),
        granularity="hour",
        as_of=dt.date(2026, 11, 1),
    )
    reserved.sources.add(src)
    return offering


@pytest.fixture
def buyer() -> Any:
    return UserFactory(username="buyer-one", email="buyer@example.com", first_name="Bea", last_name="Buyer")


@pytest.fixture
def offering(db: Any) -> Any:
    return make_offering()


@pytest.fixture
def workload(buyer: Any) -> Any:
    return sizing_services.workload_create(owner=buyer, preset="13b", train_tokens=3e11)


@pytest.fixture
def quote(buyer: Any, offering: Any, workload: Any) -> Quote:
    return services.quote_create_for_offering(
        owner=buyer, offering_slug=offering.slug, workload_id=workload.pk
    )
