"""The database holds an answer's price to the bound the form, the API and the service hold
(providers.facts.PLAN_BOUNDS["price_usd_per_gpu_hour"]: greater than 0, at most the cap): a raw ORM save
outside it fails on PostgreSQL and SQLite alike, and the migration that replaced the old "not negative"
check keeps every row: with an answer outside the bound stored, it stops and names it (nothing dropped)."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Any

import pytest
from django.db import IntegrityError, connection, transaction
from django.db.migrations.executor import MigrationExecutor

from providers.facts import PLAN_BOUNDS, PRICE_CAP_USD_PER_GPU_HOUR
from rfq.models import Answer, RequestForQuote
from sizing import services as sizing_services
from tests.providers.factories import OfferingFactory, UserFactory

CAP = Decimal(PRICE_CAP_USD_PER_GPU_HOUR)
BEFORE = [("rfq", "0001_initial")]
AFTER = [("rfq", "0002_answer_price_in_plan_range")]


def _request() -> tuple[RequestForQuote, Any]:
    buyer = UserFactory(username="constraint-buyer")
    offering = OfferingFactory()
    workload = sizing_services.workload_create(owner=buyer, preset="13b", train_tokens=3e11)
    rfq = RequestForQuote.objects.create(buyer=buyer, workload=workload, gpus=64)
    rfq.offerings.set([offering])
    return rfq, offering


def _answer(model: Any, rfq: Any, offering: Any, price: Decimal) -> Any:
    return model.objects.create(
        rfq_id=rfq.pk,
        offering_id=offering.pk,
        price_usd_per_gpu_hour=price,
        delivery_weeks=2,
        payment_terms="net-30",
        source_url="https://example.com/offer.pdf",
        as_of=dt.date(2026, 11, 20),
    )


def test_the_bound_is_the_plans() -> None:
    bound = PLAN_BOUNDS["price_usd_per_gpu_hour"]
    assert bound.strictly_positive and bound.maximum == PRICE_CAP_USD_PER_GPU_HOUR == 200


@pytest.mark.django_db
@pytest.mark.parametrize("price", [Decimal("0"), Decimal("-1"), CAP + Decimal("0.0001"), Decimal("250")])
def test_a_raw_save_outside_the_bound_is_refused_by_the_database(price: Decimal) -> None:
    rfq, offering = _request()
    with pytest.raises(IntegrityError), transaction.atomic():
        _answer(Answer, rfq, offering, price)
    assert not Answer.objects.exists()


@pytest.mark.django_db
@pytest.mark.parametrize("price", [Decimal("0.0001"), Decimal("2.40"), CAP])
def test_a_raw_save_inside_the_bound_is_kept(price: Decimal) -> None:
    rfq, offering = _request()
    _answer(Answer, rfq, offering, price)
    assert Answer.objects.get().price_usd_per_gpu_hour == price


@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_the_migration_keeps_every_answer_and_stops_on_one_outside_the_bound() -> None:
    rfq, offering = _request()
    kept = [_answer(Answer, rfq, offering, price).pk for price in (Decimal("2.40"), CAP, Decimal("0.0001"))]
    executor = MigrationExecutor(connection)
    executor.migrate(BEFORE)
    old = executor.loader.project_state(BEFORE).apps.get_model("rfq", "Answer")
    outside = [_answer(old, rfq, offering, price).pk for price in (Decimal("0"), Decimal("250"))]
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    with pytest.raises(RuntimeError, match=rf"2 stored RFQ answer\(s\) .* #{outside[1]} .*\$250"):
        executor.migrate(AFTER)
    # nothing was changed: every answer is still there, the old check still in place
    assert set(old.objects.values_list("pk", flat=True)) == set(kept + outside)
    with pytest.raises(IntegrityError), transaction.atomic():
        _answer(old, rfq, offering, Decimal("-1"))
    old.objects.filter(pk__in=outside).delete()  # what the message asks an operator to do
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(AFTER)
    assert sorted(Answer.objects.values_list("pk", flat=True)) == sorted(kept)
    with pytest.raises(IntegrityError), transaction.atomic():
        _answer(Answer, rfq, offering, Decimal("0"))
