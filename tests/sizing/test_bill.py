"""The full bill, line by line (sizing/bill.py is pure: no database)."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from sizing.bill import Job, billed_hours, break_even_days, full_bill, job_from_sizing, plan_bill, spare_nodes


def job(**kw: Any) -> Job:
    base: dict[str, Any] = dict(
        nodes=2,
        gpus_per_node=8,
        ideal_hours=Decimal("100"),
        wall_hours=Decimal("110"),
        train_tokens=1e11,
        checkpoint_gb=Decimal("100"),
        checkpoints_retained=2,
        dataset_size_gb=Decimal("1000"),
        inter_node_gb=Decimal("5000"),
    )
    base.update(kw)
    return Job(**base)


FACTS: dict[str, Any] = {
    "usable_gpu_guarantee_pct": 100.0,
    "storage_price_usd_per_gb_month": 0.07,
    "storage_included_gb": 0.0,
    "egress_price_usd_per_gb": 0.0,
    "traffic_price_usd_per_gb": 0.0,
    "support_fee_usd_per_month": 0.0,
    "setup_fee_usd": 0.0,
}
OD = {"kind": "on-demand", "name": "od", "price_usd_per_gpu_hour": 2.5, "granularity": "hour"}


def lines(bill: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {ln["item"]: ln for ln in bill["lines"]}


def test_compute_and_failure_overhead_lines_split_the_wall_time() -> None:
    bill = plan_bill(FACTS, OD, job())
    ls = lines(bill)
    assert ls["compute"]["quantity"] == Decimal("1600")  # 16 GPUs x 100 h
    assert ls["compute"]["usd"] == Decimal("4000.00")
    assert ls["failure_overhead"]["quantity"] == Decimal("160")  # 16 GPUs x 10 h
    assert ls["failure_overhead"]["usd"] == Decimal("400.00")
    assert ls["spares"]["usd"] == Decimal("0.00")
    assert bill["complete"] is True


def test_hour_granularity_rounds_the_wall_time_up() -> None:
    bill = plan_bill(FACTS, OD, job(ideal_hours=Decimal("99.5"), wall_hours=Decimal("100.25")))
    assert bill["billed_hours"] == Decimal("101")
    ls = lines(bill)
    # rounding lands in the compute line: 101 - 0.75 h overhead
    assert ls["compute"]["quantity"] == Decimal("16") * Decimal("100.25")
    assert ls["failure_overhead"]["quantity"] == Decimal("16") * Decimal("0.75")


def test_cycle_granularity_bills_whole_cycles() -> None:
    plan = {
        "kind": "cluster-cycle",
        "name": "cycle",
        "price_usd_per_gpu_hour": 2.0,
        "granularity": "cycle",
        "cycle_days": 7,
    }
    hours, _ = billed_hours(plan, Decimal("200"))
    assert hours == Decimal(2 * 7 * 24)
    assert billed_hours({"granularity": "day"}, Decimal("25"))[0] == Decimal(48)
    assert billed_hours({"granularity": "month"}, Decimal("731"))[0] == Decimal(1460)
    assert billed_hours({"granularity": "second"}, Decimal("25.5"))[0] == Decimal("25.5")


def test_minimum_term_charges_the_whole_term_for_a_short_job() -> None:
    plan = {
        "kind": "reserved",
        "name": "3m",
        "price_usd_per_gpu_hour": 1.0,
        "granularity": "hour",
        "term_months": 3,
    }
    bill = plan_bill(FACTS, plan, job(ideal_hours=Decimal("480"), wall_hours=Decimal("480")))  # a 20-day job
    assert bill["billed_hours"] == Decimal(3 * 730)
    assert lines(bill)["compute"]["usd"] == Decimal(16 * 3 * 730).quantize(Decimal("0.01"))


def test_min_nodes_adds_nodes_to_the_compute_line() -> None:
    plan = {**OD, "min_nodes": 4}
    bill = plan_bill(FACTS, plan, job())
    assert lines(bill)["compute"]["quantity"] == Decimal(32 * 100)
    assert bill["billed_nodes"] == 4


def test_spare_nodes_follow_the_usable_gpu_guarantee() -> None:
    assert spare_nodes({"usable_gpu_guarantee_pct": 95.0}, 10)[0] == 1
    assert spare_nodes({"usable_gpu_guarantee_pct": 90.0}, 11)[0] == 2
    count, note = spare_nodes({"usable_gpu_guarantee_pct": None}, 10)
    assert count == 0 and "not published" in note
    # 100 nodes at 95%: 5 spare nodes (4,400 GPU-h) beat running 5.26% longer (4,631.58 GPU-h)
    bill = plan_bill({**FACTS, "usable_gpu_guarantee_pct": 95.0}, OD, job(nodes=100))
    assert lines(bill)["spares"]["quantity"] == Decimal(5 * 8 * 110)
    assert lines(bill)["spares"]["usd"] == Decimal("11000.00")
    assert bill["billed_nodes"] == 105


def test_a_small_job_absorbs_the_shortfall_by_running_longer_instead_of_a_spare_node() -> None:
    # 2 nodes at 95%: one spare node would be 880 GPU-h; running 100/95 - 1 longer costs 92.63 GPU-h
    bill = plan_bill({**FACTS, "usable_gpu_guarantee_pct": 95.0}, OD, job())
    spares = lines(bill)["spares"]
    assert spares["quantity"] == Decimal("92.63")
    assert spares["usd"] == Decimal("231.58")
    assert "longer" in spares["note"] and bill["billed_nodes"] == 2


def test_failover_spares_of_the_sizing_are_billed_and_cover_the_guarantee_too() -> None:
    # The sizing holds 3 spare nodes against repairs; a 95% guarantee on 20 nodes asks for 1: the same
    # nodes serve both, so 3 are billed, and never swapped for a longer run (the goodput counts on them).
    bill = plan_bill({**FACTS, "usable_gpu_guarantee_pct": 95.0}, OD, job(failover_spares=3))
    spares = lines(bill)["spares"]
    assert spares["quantity"] == Decimal(3 * 8 * 110) and "restarts at once" in spares["note"]
    assert bill["billed_nodes"] == 2 + 3
    # a guarantee that asks for more than the failovers wins
    bill = plan_bill({**FACTS, "usable_gpu_guarantee_pct": 90.0}, OD, job(nodes=100, failover_spares=3))
    assert bill["billed_nodes"] == 110


def test_storage_egress_support_setup_lines() -> None:
    facts = {
        **FACTS,
        "storage_included_gb": 50.0,
        "egress_price_usd_per_gb": 0.09,
        "support_fee_usd_per_month": 1000,
        "setup_fee_usd": 5000,
        "traffic_price_usd_per_gb": 0.01,
    }
    ls = lines(plan_bill(facts, OD, job(wall_hours=Decimal("730"), ideal_hours=Decimal("700"))))
    # 2 x 100 GB - 50 included = 150 GB for 1 month at 0.07
    assert ls["checkpoint_storage"]["quantity"] == Decimal("150.00")
    assert ls["checkpoint_storage"]["usd"] == Decimal("10.50")
    assert ls["dataset_storage"]["usd"] == Decimal("70.00")
    assert ls["egress"]["quantity"] == Decimal("110")  # final checkpoint + 10 GB logs
    assert ls["egress"]["usd"] == Decimal("9.90")
    assert ls["traffic"]["usd"] == Decimal("50.00")
    assert ls["support"]["usd"] == Decimal("1000.00")
    assert ls["setup"]["usd"] == Decimal("5000.00")


def test_unpublished_prices_are_not_zero_and_make_the_bill_incomplete() -> None:
    facts = {**FACTS, "egress_price_usd_per_gb": None, "storage_price_usd_per_gb_month": None}
    bill = plan_bill(facts, OD, job())
    ls = lines(bill)
    assert ls["egress"]["usd"] is None and ls["egress"]["published"] is False
    assert "not published" in ls["egress"]["note"]
    assert ls["checkpoint_storage"]["usd"] is None
    assert bill["complete"] is False
    # the total still adds what is known: compute and overhead
    assert bill["total_usd"] == Decimal("4400.00")


def test_a_published_zero_is_a_zero() -> None:
    bill = plan_bill(FACTS, OD, job())
    assert lines(bill)["egress"]["usd"] == Decimal("0.00")
    assert lines(bill)["egress"]["published"] is True


def test_an_unpublished_plan_price_leaves_compute_unknown() -> None:
    bill = plan_bill(FACTS, {**OD, "price_usd_per_gpu_hour": None}, job())
    assert lines(bill)["compute"]["usd"] is None
    assert bill["complete"] is False


def test_break_even_of_a_reserved_term() -> None:
    reserved = {"kind": "reserved", "price_usd_per_gpu_hour": 1.25, "term_months": 3}
    # 3 x 730 h x 1.25 / 2.5 = 1095 h = 45.625 days
    assert break_even_days(OD, reserved, 2, 8) == Decimal("45.7")
    assert break_even_days(OD, {**reserved, "price_usd_per_gpu_hour": 3.0}, 2, 8) is None


def test_full_bill_chooses_the_cheapest_plan_for_the_duration() -> None:
    reserved = {
        "kind": "reserved",
        "name": "reserved-3m",
        "price_usd_per_gpu_hour": 1.25,
        "term_months": 3,
        "granularity": "hour",
    }
    facts = {**FACTS, "gpus_per_node": 8, "billing_plans": [OD, reserved]}
    sizing = {
        "gpus": 16,
        "nodes": 2,
        "train_days": 20.0,
        "train_days_no_failures": 19.0,
        "goodput": {"checkpoint_gb": 100.0},
        "workload": {"global_batch": 1024, "seq_len": 4096},
    }
    short = full_bill(facts, sizing, {"train_tokens": 1e11, "checkpoints_retained": 2})
    assert short["plan"]["name"] == "od"  # 20 days: the 3-month term costs more
    long = full_bill(
        facts,
        {**sizing, "train_days": 80.0, "train_days_no_failures": 76.0},
        {"train_tokens": 1e11, "checkpoints_retained": 2},
    )
    assert long["plan"]["name"] == "reserved-3m"
    by_name = {p["name"]: p for p in long["plans"]}
    assert by_name["reserved-3m"]["break_even_days"] == Decimal("45.7")
    assert long["usd_per_billion_tokens"] == (long["total_usd"] / 100).quantize(Decimal("0.01"))


def test_the_bill_reads_the_failover_spares_from_the_sizing_result() -> None:
    goodput = {"spare_nodes": 2, "checkpoint_gb": 10.0}
    sizing = {"gpus": 64, "nodes": 8, "train_days": 10.0, "goodput": goodput}
    built, _ = job_from_sizing(sizing, {"gpus_per_node": 8}, {"train_tokens": 1e11})
    assert built.failover_spares == 2 and built.nodes == 8
