"""Fixtures of the request-for-quote tests: two providers with one offering each, their representatives,
a buyer with a workload that has a deadline."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from accounts.demo import demo_accounts_create
from sizing import services as sizing_services
from tests.providers.factories import OfferingFactory, PlanFactory, ProviderFactory, UserFactory


@pytest.fixture
def world(db: Any) -> dict[str, Any]:
    fast = OfferingFactory(
        slug="fast-ib",
        name="Fast IB cluster",
        provider=ProviderFactory(slug="fastcloud", name="Fast Cloud"),
        max_nodes=64,
    )
    PlanFactory(offering=fast, name="On-demand", price_usd_per_gpu_hour=Decimal("3.00"))
    slow = OfferingFactory(
        slug="slow-eth",
        name="Slow Ethernet cluster",
        provider=ProviderFactory(slug="slowcloud", name="Slow Cloud"),
        fabric="ethernet",
        nics_per_node=1,
        gbps_per_nic=100.0,
        max_nodes=64,
    )
    PlanFactory(offering=slow, name="On-demand", price_usd_per_gpu_hour=Decimal("2.00"))
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
def demo() -> dict[str, Any]:
    """The demo accounts (demo-provider represents Nebius) and two offerings, Nebius's and another's."""
    nebius = OfferingFactory(
        slug="nebius-h100",
        name="H100 InfiniBand",
        provider=ProviderFactory(slug="nebius", name="Nebius"),
        max_nodes=64,
    )
    PlanFactory(offering=nebius, name="On-demand", price_usd_per_gpu_hour=Decimal("2.95"))
    other = OfferingFactory(
        slug="other-h100",
        name="Other H100",
        provider=ProviderFactory(slug="other", name="Other Cloud"),
        max_nodes=64,
    )
    PlanFactory(offering=other, name="On-demand", price_usd_per_gpu_hour=Decimal("3.20"))
    demo_accounts_create()
    return {"nebius": nebius, "other": other}
