"""Bills as ranges: unpublished fees at zero (low), at the middle (central) and at the high end (high) of
their typical range (sizing.bill.FEE_RANGES); the plan is chosen on the central estimate."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from sizing.bill import FEE_RANGES, full_bill, plan_bill, support_list_price
from tests.sizing.test_bill import FACTS, OD, job

HIDDEN = {**FACTS, "support_fee_usd_per_month": None, "setup_fee_usd": None, "egress_price_usd_per_gb": None}


def test_a_complete_bill_is_a_point_low_central_and_high_agree() -> None:
    bill = plan_bill(FACTS, OD, job())
    assert bill["complete"] and bill["unknown_fees"] == []
    assert bill["cost_low_usd"] == bill["cost_central_usd"] == bill["cost_high_usd"] == bill["total_usd"]


def test_unpublished_fees_widen_the_bill_and_are_named_with_their_basis() -> None:
    bill = plan_bill(HIDDEN, OD, job())
    assert not bill["complete"]
    fees = {f["item"]: f for f in bill["unknown_fees"]}
    assert set(fees) == {"egress", "support", "setup"}
    assert fees["support"]["label"] == "Support" and "AWS Enterprise Support" in fees["support"]["basis"]
    # Known fees only: the total of the published lines.
    assert bill["cost_low_usd"] == bill["total_usd"]
    assert bill["cost_low_usd"] < bill["cost_central_usd"] < bill["cost_high_usd"]
    unknown_high = sum((f["high_usd"] for f in fees.values()), Decimal(0))
    assert bill["cost_high_usd"] == bill["cost_low_usd"] + unknown_high
    # Egress: final checkpoint (100 GB) + 10 GB of logs at the high end of the range.
    assert fees["egress"]["high_usd"] == Decimal("110") * FEE_RANGES["egress"].high
    # Setup: 3 days of the 16-GPU cluster at $2.50.
    assert fees["setup"]["high_usd"] == Decimal(16 * 24 * 3) * Decimal("2.5")
    assert fees["setup"]["central_usd"] == fees["setup"]["high_usd"] / 2


def test_every_fee_range_has_a_low_end_under_its_high_end_and_a_basis() -> None:
    for item, fee in FEE_RANGES.items():
        assert Decimal(0) <= fee.low <= fee.high, item
        assert len(fee.basis) > 40, item


def test_support_at_the_high_end_is_aws_enterprise_list_price() -> None:
    # The published worked example: $2,000,000 a month -> $94,500.
    assert support_list_price(Decimal(2_000_000)) == Decimal("94500.00")
    assert support_list_price(Decimal(10_000)) == Decimal(15_000)  # the monthly minimum
    assert support_list_price(Decimal(300_000)) == Decimal(15_000 + 10_500)


def test_no_gpu_price_means_no_range() -> None:
    bill = plan_bill(HIDDEN, None, job())
    assert bill["cost_central_usd"] is None and bill["cost_high_usd"] is None


def test_the_plan_is_chosen_on_the_central_estimate() -> None:
    sizing: dict[str, Any] = {
        "gpus": 16,
        "nodes": 2,
        "train_days": 110 / 24,
        "train_days_no_failures": 100 / 24,
        "params": {"total": 1e9},
        "offering": {"gpus_per_node": 8},
    }
    facts = {
        **HIDDEN,
        "gpus_per_node": 8,
        "billing_plans": [OD, {**OD, "name": "term", "kind": "reserved", "price_usd_per_gpu_hour": 2.4}],
    }
    bill = full_bill(facts, sizing, {"train_tokens": 1e11})
    chosen = next(p for p in bill["plans"] if p["chosen"])
    others = [p for p in bill["plans"] if not p["chosen"]]
    assert all(chosen["cost_central_usd"] <= p["cost_central_usd"] for p in others)
    assert chosen["name"] == "term" and bill["cost_central_usd"] == chosen["cost_central_usd"]
