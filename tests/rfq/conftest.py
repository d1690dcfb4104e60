"""Fixtures of the request-for-quote tests: two providers with one offering each, their representatives,
a buyer with a workload that has a deadline."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from accounts.demo import demo_accounts_create
from sizing import services as sizing_services
from tests.providers.factories import OfferingFactory, PlanFactory, ProviderFactory, UserFactory


def priced_offering(slug: str, name: str, provider: tuple[str, str], price: str, **facts: Any) -> Any:
    """An offering of 64 nodes of a new provider (slug, name) with one on-demand price."""
    offering = OfferingFactory(
        slug=slug,
        name=name,
        provider=ProviderFactory(slug=provider[0], name=provider[1]),
        max_nodes=64,
        **facts,
    )
    PlanFactory(offering=offering, name="On-demand", price_usd_per_gpu_hour=Decimal(price))
    return offering


@pytest.fixture
def world(db: Any) -> dict[str, Any]:
    fast = priced_offering("fast-ib", "Fast IB cluster", ("fastcloud", "Fast Cloud"), "3.00")
    slow = priced_offering(
        "slow-eth",
        "Slow Ethernet cluster",
        ("slowcloud", "Slow Cloud"),
        "2.00",
        fabric="ethernet",
        nics_per_node=1,
        gbps_per_nic=100.0,
    )
    buyer = UserFactory(username="buyer", email="buyer@example.com")
    workload = sizing_services.workload_create(owner=buyer, preset="13b", train_tokens=3e11, deadline_days=60)
    return {
        "fast": fast,
        "slow": slow,
        "buyer": buyer,
        "other_buyer": UserFactory(username="other-buyer", email="other@example.com"),
        "fast_rep": UserFactory(
            username="fast-rep", role="provider", provider=fast.provider, email="rep@fast.example"
        ),
        "slow_rep": UserFactory(
            username="slow-rep", role="provider", provider=slow.provider, email="rep@slow.example"
        ),
        "staff": UserFactory(username="staff", role="staff", is_staff=True, is_superuser=True),
        "workload": workload,
    }


@pytest.fixture
def yuan_at_7(db: Any) -> None:
    """A recorded rate of 7 yuan per US dollar (newer than the seeded one): $2.10 shows as ¥14.70."""
    from providers.models import Currency, ExchangeRate

    ExchangeRate.objects.create(
        currency=Currency.CNY,
        per_usd="7.0000",
        as_of="2026-11-30",
        source_name="CFETS",
        source_url="https://www.chinamoney.com.cn/",
    )


@pytest.fixture
def demo() -> dict[str, Any]:
    """The demo accounts (demo-provider represents Nebius) and two offerings, Nebius's and another's."""
    nebius = priced_offering("nebius-h100", "H100 InfiniBand", ("nebius", "Nebius"), "2.95")
    other = priced_offering("other-h100", "Other H100", ("other", "Other Cloud"), "3.20")
    demo_accounts_create()
    return {"nebius": nebius, "other": other}
