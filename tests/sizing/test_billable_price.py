"""One rule for the price a training run is billed at (providers.facts.billable_plans): the engine's cost
(the `size` command), the portal's bill and the checks' money figures never price a run on spot /
preemptible capacity while another plan is priced, and say so when only such capacity is priced."""

from __future__ import annotations

import io
import json
from decimal import Decimal
from typing import Any

import pytest

from checks.rules.context import _price
from providers.facts import billable_plans, billable_rate
from sizing.bill import full_bill
from sizing.engine.cli import main
from sizing.engine.cost import cost_block

ON_DEMAND = {"kind": "on-demand", "name": "on-demand", "price_usd_per_gpu_hour": 3.0, "granularity": "hour"}
SPOT = {"kind": "spot", "name": "spot", "price_usd_per_gpu_hour": 1.0, "granularity": "second"}
RESERVED_3Y = {
    "kind": "reserved",
    "name": "3-year",
    "price_usd_per_gpu_hour": 2.0,
    "term_months": 36,
    "granularity": "month",
}


def size(offering: dict[str, Any], *extra: str) -> dict[str, Any]:
    out, err = io.StringIO(), io.StringIO()
    argv = ["--workload", "gpt3-175b", "--offering", json.dumps(offering), "--gpus", "1024", "--json"]
    assert main([*argv, *extra], stdout=out, stderr=err) == 0, err.getvalue()
    return json.loads(out.getvalue())


def test_spot_is_listed_but_never_chosen_while_another_plan_is_priced() -> None:
    plans, preemptible = billable_plans([SPOT, ON_DEMAND, {"kind": "reserved", "name": "unpriced"}])
    assert plans == [ON_DEMAND] and not preemptible
    assert billable_rate({"billing_plans": [SPOT, ON_DEMAND]}) == 3.0
    # only spot is priced: it is what the run can be billed on, and it says so
    assert billable_plans([SPOT]) == ([SPOT], True)
    assert billable_rate({"billing_plans": [SPOT]}) == 1.0
    # a headline price (the cheapest on-demand plan) is a steady price: spot never undercuts it
    assert billable_rate({"price_usd_per_gpu_hour": 2.5, "billing_plans": [SPOT]}) == 2.5
    assert billable_rate({"billing_plans": [{"kind": "on-demand", "price_usd_per_gpu_hour": "n/a"}]}) is None


def test_the_size_command_prices_the_run_at_a_steady_plan(a100_ib: dict[str, Any]) -> None:
    offering = {**a100_ib, "price_usd_per_gpu_hour": None, "billing_plans": [SPOT, ON_DEMAND]}
    r = size(offering)
    cost = r["cost"]
    assert cost["usd_per_gpu_hour"] == 3.0
    assert cost["cheapest_plan"] == "on-demand" and cost["cheapest_plan_kind"] == "on-demand"
    assert cost["total_usd"] == pytest.approx(cost["gpu_hours"] * 3.0, rel=1e-6)
    assert {p["kind"] for p in cost["plans"]} == {"spot", "on-demand"}  # spot still shown with its total
    assert any("Spot / preemptible plans are listed but not chosen" in a for a in r["assumptions"])
    assert "note" not in cost


def test_only_spot_priced_is_used_and_said(a100_ib: dict[str, Any]) -> None:
    r = size({**a100_ib, "price_usd_per_gpu_hour": None, "billing_plans": [SPOT]})
    assert r["cost"]["usd_per_gpu_hour"] == 1.0 and r["cost"]["cheapest_plan_kind"] == "spot"
    assert any("Only spot / preemptible capacity is priced" in a for a in r["assumptions"])


def test_a_long_term_below_the_run_length_is_not_the_rate(a100_ib: dict[str, Any]) -> None:
    """A 3-year reservation at $2 is the lowest rate, but a run of weeks is billed cheaper on demand at $3:
    the rate is the chosen plan's, not the lowest printed."""
    r = size({**a100_ib, "price_usd_per_gpu_hour": None, "billing_plans": [RESERVED_3Y, ON_DEMAND]})
    assert r["train_days"] < 365
    assert r["cost"]["cheapest_plan"] == "on-demand" and r["cost"]["usd_per_gpu_hour"] == 3.0
    by_name = {p["name"]: p for p in r["cost"]["plans"]}
    assert by_name["3-year"]["billed_hours"] == 36 * 730
    assert by_name["3-year"]["total_usd"] > by_name["on-demand"]["total_usd"]


@pytest.mark.parametrize("days", [5.0, 400.0, 1200.0])
def test_the_engine_and_the_bill_choose_the_same_plan(days: float) -> None:
    plans = [SPOT, ON_DEMAND, RESERVED_3Y]
    engine = cost_block({"billing_plans": plans}, 64, 8, days * 24.0)
    assert engine is not None
    facts = {"gpus_per_node": 8, "usable_gpu_guarantee_pct": 100.0, "billing_plans": plans}
    sizing = {"gpus": 64, "nodes": 8, "train_days": days, "train_days_no_failures": days, "goodput": {}}
    bill = full_bill(facts, sizing, {"train_tokens": 1e11})
    assert bill["plan"]["name"] == engine["cheapest_plan"]
    assert bill["plan"]["name"] == ("on-demand" if days < 730 else "3-year")
    chosen = next(p for p in bill["plans"] if p["chosen"])
    assert Decimal(str(chosen["price_usd_per_gpu_hour"])) == Decimal(str(engine["usd_per_gpu_hour"]))


def test_the_checks_never_quantify_losses_at_a_spot_rate() -> None:
    offering = {"billing_plans": [SPOT, RESERVED_3Y]}
    assert _price(offering, None) == 2.0
    assert _price(offering, {"cost": {"usd_per_gpu_hour": 2.7}}) == 2.7
    assert _price({"billing_plans": [SPOT]}, None) == 1.0
