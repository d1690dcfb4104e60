from __future__ import annotations

from decimal import Decimal

import pytest
from django.db import IntegrityError, transaction

from accounts.models import User
from providers.models import BillingPlan, PricePoint
from tests.providers.factories import OfferingFactory, PlanFactory, ProviderFactory

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("gpus_per_node", 0),
        ("nics_per_node", 0),
        ("gbps_per_nic", 0.0),
        ("gbps_per_nic", -100.0),
        ("usable_gpu_guarantee_pct", 101.0),
        ("usable_gpu_guarantee_pct", -1.0),
        ("uptime_sla_pct", 100.5),
        ("fabric", "carrier-pigeon"),
        ("intra_node", "telepathy"),
        ("topology", "spaghetti"),
        ("oversubscription", 0.5),
        ("storage_price_usd_per_gb_month", Decimal("-0.01")),
    ],
)
def test_the_database_refuses_impossible_facts(field: str, value: object) -> None:
    offering = OfferingFactory()
    setattr(offering, field, value)
    with pytest.raises(IntegrityError), transaction.atomic():
        offering.save()


def test_not_published_is_distinct_from_zero() -> None:
    offering = OfferingFactory(egress_price_usd_per_gb=None, traffic_price_usd_per_gb=Decimal("0"))
    facts = offering.facts()
    assert facts["egress_price_usd_per_gb"] is None
    assert facts["traffic_price_usd_per_gb"] == 0.0


def test_facts_dict_has_every_documented_key() -> None:
    offering = OfferingFactory()
    PlanFactory(offering=offering, price_usd_per_gpu_hour=Decimal("4.00"), name="a")
    PlanFactory(offering=offering, price_usd_per_gpu_hour=Decimal("3.00"), name="b")
    PlanFactory(offering=offering, kind="spot", price_usd_per_gpu_hour=Decimal("1.00"), name="c")
    facts = offering.facts()
    for key in (
        "gpu",
        "gpus_per_node",
        "intra_node",
        "fabric",
        "nics_per_node",
        "gbps_per_nic",
        "topology",
        "nodes",
        "billing_plans",
        "price_usd_per_gpu_hour",
        "schedulers",
    ):
        assert key in facts
    assert facts["gpu"] == "H100-SXM-80GB"
    assert facts["price_usd_per_gpu_hour"] == 3.0  # cheapest on-demand, spot excluded
    assert len(facts["billing_plans"]) == 3


def test_price_history_is_append_only() -> None:
    plan = PlanFactory()
    point = PricePoint.objects.create(plan=plan, price_usd_per_gpu_hour=Decimal("3.5"))
    point.price_usd_per_gpu_hour = Decimal("1")
    with pytest.raises(PermissionError):
        point.save()
    with pytest.raises(PermissionError):
        point.delete()
    with pytest.raises(PermissionError):
        PricePoint.objects.filter(plan=plan).update(price_usd_per_gpu_hour=Decimal("2"))
    with pytest.raises(PermissionError):
        PricePoint.objects.filter(plan=plan).delete()


def test_a_cycle_plan_may_leave_its_length_unpublished() -> None:
    plan = BillingPlan.objects.create(
        offering=OfferingFactory(), kind="cluster-cycle", name="cycle", granularity="cycle"
    )
    assert plan.cycle_days is None
    with pytest.raises(IntegrityError), transaction.atomic():
        BillingPlan.objects.create(offering=plan.offering, kind="cluster-cycle", name="c2", cycle_days=0)


def test_a_representative_must_belong_to_a_provider() -> None:
    with pytest.raises(IntegrityError), transaction.atomic():
        User.objects.create(username="rep", role="provider", provider=None)
    with pytest.raises(IntegrityError), transaction.atomic():
        User.objects.create(username="buyer", role="buyer", provider=ProviderFactory())
