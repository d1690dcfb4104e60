"""Issue 20 items 2, 3 and 6: every fact and workload field is bounded, the same in the model, the database,
the forms, the API and the catalog import, with a message naming the field and the allowed range; free text
is bounded in length everywhere."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.test import Client
from rest_framework.test import APIClient

from providers.catalog import coerce_fact
from providers.facts import FACTS, FACTS_BY_NAME, NOTE_MAX_LENGTH, PLAN_BOUNDS
from providers.models import BillingPlan, Offering
from sizing import bill
from sizing.models import WORKLOAD_BOUNDS, Workload
from tests.providers.factories import OfferingFactory, PlanFactory, ProviderFactory, UserFactory

pytestmark = pytest.mark.django_db
GUARANTEE = "Usable-GPU guarantee must be between 50 and 100 %"


@pytest.fixture
def rep_and_offering() -> tuple[Any, Offering]:
    offering = OfferingFactory(slug="bounded", provider=ProviderFactory(slug="bounded-cloud"))
    rep = UserFactory(username="bounded-rep", role="provider", provider=offering.provider)
    return rep, offering


def api_for(user: Any) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def test_every_number_fact_has_a_range_and_every_text_fact_a_length() -> None:
    for fact in FACTS:
        if fact.type in ("int", "float", "decimal"):
            assert fact.bound is not None and fact.maximum is not None, fact.name
            assert fact.bound_source, fact.name
        if fact.type == "text":
            assert fact.max_length, fact.name
    for name, bound in WORKLOAD_BOUNDS.items():
        assert bound.maximum is not None and bound.source, name


@pytest.mark.parametrize("value", [0, -5, 49.9, 100.01, float("nan")])
def test_a_usable_gpu_guarantee_outside_50_to_100_is_refused_by_the_api(
    rep_and_offering: tuple[Any, Offering], value: float
) -> None:
    rep, offering = rep_and_offering
    body = {"usable_gpu_guarantee_pct": value if value == value else "NaN"}
    response = api_for(rep).patch(f"/api/v1/offerings/{offering.slug}/", body, format="json")
    assert response.status_code == 400, response.content
    text = response.content.decode()
    assert "usable_gpu_guarantee_pct" in text
    if value == value:
        assert GUARANTEE in text
    offering.refresh_from_db()
    assert offering.usable_gpu_guarantee_pct is None


def test_the_edit_page_and_the_import_refuse_a_zero_guarantee(
    client: Client, rep_and_offering: tuple[Any, Offering]
) -> None:
    rep, offering = rep_and_offering
    client.force_login(rep)
    response = client.post(f"/offerings/{offering.slug}/edit/", {"usable_gpu_guarantee_pct": "0"})
    assert response.status_code == 400 and GUARANTEE.encode() in response.content
    with pytest.raises(ValueError, match=GUARANTEE):
        coerce_fact(FACTS_BY_NAME["usable_gpu_guarantee_pct"], 0, set())
    offering.refresh_from_db()
    assert offering.usable_gpu_guarantee_pct is None


def test_the_model_and_the_database_refuse_what_bypasses_the_forms(
    rep_and_offering: tuple[Any, Offering],
) -> None:
    _, offering = rep_and_offering
    offering.usable_gpu_guarantee_pct = 0
    with pytest.raises(ValidationError, match=GUARANTEE):
        offering.full_clean()
    with pytest.raises(IntegrityError), transaction.atomic():
        Offering.objects.filter(pk=offering.pk).update(gpus_per_node=10_000)
    with pytest.raises(IntegrityError), transaction.atomic():
        Offering.objects.filter(pk=offering.pk).update(usable_gpu_guarantee_pct=0)
    plan = PlanFactory(offering=offering)
    with pytest.raises(IntegrityError), transaction.atomic():
        BillingPlan.objects.filter(pk=plan.pk).update(price_usd_per_gpu_hour=Decimal("0"))


@pytest.mark.parametrize(
    ("fact", "value", "message"),
    [
        ("gpus_per_node", 73, "GPUs per node must be between 1 and 72, got 73"),
        ("nics_per_node", 0, "GPU-fabric NICs per node must be between 1 and 32, got 0"),
        ("gbps_per_nic", 3200, "Speed per NIC must be between 1 and 1,600 Gb/s, got 3,200"),
        ("failure_rate_per_gpu_hour", 1, "Failure rate must be greater than 0 and at most 0.01"),
        ("setup_fee_usd", 1e20, "Setup fee must be between $0 and $100,000,000"),
    ],
)
def test_each_fact_message_names_the_field_and_the_range(
    rep_and_offering: tuple[Any, Offering], fact: str, value: float, message: str
) -> None:
    rep, offering = rep_and_offering
    response = api_for(rep).patch(f"/api/v1/offerings/{offering.slug}/", {fact: value}, format="json")
    assert response.status_code == 400 and message in response.content.decode(), response.content


@pytest.mark.parametrize("price", ["0", "-1", "200.01"])
def test_a_price_per_gpu_hour_must_be_above_zero_and_under_the_cap(
    rep_and_offering: tuple[Any, Offering], price: str
) -> None:
    rep, offering = rep_and_offering
    plan = PlanFactory(offering=offering)
    response = api_for(rep).post(
        f"/api/v1/offerings/{offering.slug}/plans/{plan.pk}/price/",
        {"price_usd_per_gpu_hour": price},
        format="json",
    )
    assert response.status_code == 400
    assert PLAN_BOUNDS["price_usd_per_gpu_hour"].range_text() in response.content.decode()
    plan.refresh_from_db()
    assert plan.price_usd_per_gpu_hour == Decimal("3.50")


def test_the_bill_never_divides_by_a_zero_guarantee() -> None:
    """A stored zero from before the bounds is read as no guarantee: no spares, no division."""
    spares, note = bill.spare_nodes({"usable_gpu_guarantee_pct": 0}, 16)
    assert spares == 0 and "not a guarantee" in note
    item = bill._spares_line(
        {"usable_gpu_guarantee_pct": 0}, 3, note, 128, 8, Decimal("100"), Decimal("2.00")
    )
    assert item["_spare_nodes"] == 3  # whole spares billed, the run-longer alternative skipped


@pytest.mark.parametrize(
    ("body", "field", "message"),
    [
        (
            {"layers": 1_000_000_000, "hidden": 4096, "heads": 32},
            "layers",
            "Layers must be between 1 and 1,280",
        ),
        ({"preset": "13b", "hidden": 1_000_000_000}, "hidden", "Hidden size must be between 1 and 262,144"),
        ({"preset": "13b", "train_tokens": 1e40}, "train_tokens", "Training tokens must be between"),
        (
            {"preset": "13b", "budget_usd": "99999999999999.99"},
            "budget_usd",
            "Budget must be greater than 0 and at most 100,000,000,000 USD",
        ),
        ({"preset": "13b", "deadline_days": 0}, "deadline_days", "Deadline must be greater than 0"),
        (
            {"preset": "13b", "moe": {"experts": 10**9, "top_k": 2}},
            "moe_experts",
            "MoE experts must be between",
        ),
    ],
)
def test_absurd_workloads_are_refused_by_the_api_with_the_field_and_range(
    body: dict[str, Any], field: str, message: str
) -> None:
    user = UserFactory()
    response = api_for(user).post("/api/v1/workloads/", body, format="json")
    assert response.status_code == 400, response.content
    text = response.content.decode()
    assert field in text and message in text, text
    assert not Workload.objects.filter(owner=user).exists()


def test_absurd_workloads_are_refused_by_the_planner_form(client: Client) -> None:
    OfferingFactory()
    client.force_login(UserFactory())
    response = client.post(
        "/plan/", {"preset": "13b", "layers": "1000000000", "budget_usd": "99999999999999.99"}
    )
    assert response.status_code in (200, 400)
    assert b"Layers must be between 1 and 1,280" in response.content
    assert not Workload.objects.exists()


def test_the_database_refuses_an_absurd_workload_written_directly() -> None:
    with pytest.raises(IntegrityError), transaction.atomic():
        Workload.objects.create(owner=UserFactory(), name="x", layers=2_000_000_000, hidden=8, heads=1)


def test_a_four_megabyte_note_is_refused_with_a_clear_message(rep_and_offering: tuple[Any, Offering]) -> None:
    rep, offering = rep_and_offering
    note = "x" * 4_800_000
    response = api_for(rep).patch(f"/api/v1/offerings/{offering.slug}/", {"fees_note": note}, format="json")
    assert response.status_code == 400
    assert "fees_note" in response.content.decode()
    assert "2000" in response.content.decode().replace(",", "")
    with pytest.raises(ValueError, match="Fee notes must be at most 2,000 characters, got 4,800,000"):
        coerce_fact(FACTS_BY_NAME["fees_note"], note, set())
    offering.fees_note = note
    with pytest.raises(ValidationError):
        offering.full_clean()
    assert NOTE_MAX_LENGTH == 2000
