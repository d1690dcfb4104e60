"""GPU-hour bill per billing plan (the full bill with storage and fees is the portal's job; this is the
GPU part the sizing needs to rank layouts).

Which plans a run can be billed on is one rule (providers.facts.billable_plans): spot / preemptible plans are
listed with their totals but never chosen while any other plan is priced, as in the portal's bill."""

from __future__ import annotations

from typing import Any

import numpy as np

from hardware.messages import Msg, _
from providers.facts import billable_plans, billable_rate, plan_rate, priced_plans

HOURS_PER_MONTH = 730.0  # 365 x 24 / 12


def billing_step_hours(plan: dict[str, Any]) -> float | None:
    """The hours one billing step of `plan` charges (None: billed per second, no rounding)."""
    granularity = plan.get("granularity") or "hour"
    if granularity == "second":
        return None
    if granularity == "day":
        return 24.0
    if granularity == "month":
        return HOURS_PER_MONTH
    if granularity == "cycle":
        return float(int(plan.get("cycle_days") or 30) * 24)
    return 1.0


def _plan_hours(plan: dict[str, Any], hours: Any) -> Any:
    """The hours `plan` bills for a run of `hours` (elementwise over an array of runs)."""
    step = billing_step_hours(plan)
    billed = hours if step is None else np.ceil(np.divide(hours, step)) * step
    term = plan.get("term_months")
    if term:
        billed = np.maximum(billed, float(term) * HOURS_PER_MONTH)
    return billed


def _plan_billed(plan: dict[str, Any], gpus: Any, gpus_per_node: int, wall_hours: Any) -> tuple[Any, Any]:
    """(GPUs, hours) `plan` bills for a run of `gpus` over `wall_hours`: its minimum nodes, granularity and
    term counted (elementwise over arrays of runs)."""
    return np.maximum(gpus, int(plan.get("min_nodes") or 0) * gpus_per_node), _plan_hours(plan, wall_hours)


def _plan_row(
    plan: dict[str, Any], rate: float, gpus: int, gpus_per_node: int, wall_hours: float
) -> dict[str, Any]:
    """One priced plan's bill for the job's GPU-hours: its minimum nodes, granularity and term counted."""
    billed, billed_hours = _plan_billed(plan, gpus, gpus_per_node, wall_hours)
    billed_gpus, hours = int(billed), float(billed_hours)
    return {
        "name": plan.get("name") or plan.get("kind"),
        "kind": plan.get("kind"),
        "usd_per_gpu_hour": rate,
        "billed_gpus": billed_gpus,
        "billed_hours": hours,
        "total_usd": round(billed_gpus * hours * rate, 2),
    }


def plan_choice_note(facts: dict[str, Any]) -> Msg | None:
    """The `assumptions` line saying how priced spot / preemptible plans were treated (None: there are
    none)."""
    priced = priced_plans(list(facts.get("billing_plans") or []))
    billable, preemptible = billable_plans(priced)
    if preemptible:
        return _(
            "Only spot / preemptible capacity is priced: the time and cost assume the run is never "
            "preempted, which such capacity does not promise."
        )
    if len(billable) < len(priced):
        return _(
            "Spot / preemptible plans are listed but not chosen: the model has no preemptions, so a run "
            "on them would take longer than it says."
        )
    return None


def billed_rate(facts: dict[str, Any], gpus: Any, gpus_per_node: int, wall_hours: Any) -> Any:
    """The price per GPU-hour of the plan each run is billed at, elementwise over runs of `gpus` (spares
    included) for `wall_hours`: what cost_block charges (`usd_per_gpu_hour`: the billable plan with the
    lowest total for the run), so that a cost objective ranks the `total_usd` an answer and its alternatives
    show. None when nothing is priced."""
    plans = billable_plans([p for p in facts.get("billing_plans") or [] if isinstance(p, dict)])[0]
    priced = [(p, rate) for p in plans if (rate := plan_rate(p.get("price_usd_per_gpu_hour"))) is not None]
    if not priced:
        return billable_rate(facts)
    totals = []
    # a layout whose run would last beyond any float (an offering with a near-zero link) costs infinity on
    # every plan: it ranks last, with no overflow warning
    with np.errstate(over="ignore", invalid="ignore"):
        for plan, rate in priced:
            billed_gpus, hours = _plan_billed(plan, gpus, gpus_per_node, wall_hours)
            totals.append(np.round(billed_gpus * hours * rate, 2))
    rates = np.asarray([rate for _, rate in priced])
    return rates[np.argmin(np.stack(totals), axis=0)]


def cost_block(
    facts: dict[str, Any], gpus: int, gpus_per_node: int, wall_hours: float, *, spare_gpus: int = 0
) -> dict[str, Any] | None:
    """The run's GPU-hours at the rate of the plan it would be billed on (the cheapest billable plan for this
    job, its granularity, term and minimum nodes counted), plus each priced plan's total.
    `spare_gpus`: the spare nodes' GPUs held beside the job (goodput.py), billed like the job's."""
    gpus = gpus + spare_gpus
    plans = [p for p in facts.get("billing_plans") or [] if isinstance(p, dict)]
    billable = {id(p) for p in billable_plans(plans)[0]}
    rows, chosen = [], []
    for plan in plans:
        rate = plan_rate(plan.get("price_usd_per_gpu_hour"))
        if rate is None:
            continue
        rows.append(_plan_row(plan, rate, gpus, gpus_per_node, wall_hours))
        if id(plan) in billable:
            chosen.append(rows[-1])
    best = min(chosen, key=lambda row: float(row["total_usd"])) if chosen else None
    price = best["usd_per_gpu_hour"] if best is not None else billable_rate(facts)
    if price is None:
        return None
    gpu_hours = gpus * wall_hours
    out: dict[str, Any] = {
        "usd_per_gpu_hour": price,
        "gpu_hours": round(gpu_hours, 1),
        "total_usd": round(gpu_hours * price, 2),
        "spare_gpus": spare_gpus,
    }
    if rows:
        out["plans"] = rows
    if best is not None:
        out["cheapest_plan"] = best["name"]
        out["cheapest_plan_kind"] = best["kind"]
        out["cheapest_plan_total_usd"] = best["total_usd"]
    return out
