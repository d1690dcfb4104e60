"""GPU-hour bill per billing plan (the full bill with storage and fees is the portal's job; this is the
GPU part the sizing needs to rank layouts)."""

from __future__ import annotations

import math
from typing import Any

HOURS_PER_MONTH = 730.0


def cheapest_price(facts: dict[str, Any]) -> float | None:
    prices = [p for p in [facts.get("price_usd_per_gpu_hour")] if isinstance(p, int | float)]
    for plan in facts.get("billing_plans") or []:
        p = plan.get("price_usd_per_gpu_hour") if isinstance(plan, dict) else None
        if isinstance(p, int | float):
            prices.append(p)
    return float(min(prices)) if prices else None


def _plan_hours(plan: dict[str, Any], hours: float) -> float:
    granularity = plan.get("granularity") or "hour"
    if granularity == "second":
        billed = hours
    elif granularity == "day":
        billed = math.ceil(hours / 24.0) * 24.0
    elif granularity == "month":
        billed = math.ceil(hours / HOURS_PER_MONTH) * HOURS_PER_MONTH
    elif granularity == "cycle":
        cycle_hours = float(plan.get("cycle_days") or 30) * 24.0
        billed = math.ceil(hours / cycle_hours) * cycle_hours
    else:
        billed = math.ceil(hours)
    term = plan.get("term_months")
    if term:
        billed = max(billed, float(term) * HOURS_PER_MONTH)
    return billed


def cost_block(
    facts: dict[str, Any], gpus: int, gpus_per_node: int, wall_hours: float, *, spare_gpus: int = 0
) -> dict[str, Any] | None:
    """Cost at the cheapest published price, plus each priced plan with its granularity and minimums.
    `spare_gpus`: the spare nodes' GPUs held beside the job (goodput.py), billed like the job's."""
    gpus = gpus + spare_gpus
    price = cheapest_price(facts)
    if price is None:
        return None
    plans = []
    for plan in facts.get("billing_plans") or []:
        if not isinstance(plan, dict) or not isinstance(plan.get("price_usd_per_gpu_hour"), int | float):
            continue
        min_nodes = plan.get("min_nodes") or 0
        billed_gpus = max(gpus, int(min_nodes) * gpus_per_node)
        hours = _plan_hours(plan, wall_hours)
        plans.append(
            {
                "name": plan.get("name") or plan.get("kind"),
                "kind": plan.get("kind"),
                "usd_per_gpu_hour": float(plan["price_usd_per_gpu_hour"]),
                "billed_gpus": billed_gpus,
                "billed_hours": hours,
                "total_usd": round(billed_gpus * hours * float(plan["price_usd_per_gpu_hour"]), 2),
            }
        )
    gpu_hours = gpus * wall_hours
    out: dict[str, Any] = {
        "usd_per_gpu_hour": price,
        "gpu_hours": round(gpu_hours, 1),
        "total_usd": round(gpu_hours * price, 2),
        "spare_gpus": spare_gpus,
    }
    if plans:
        best = min(plans, key=lambda p: float(p["total_usd"] or 0.0))
        out["plans"] = plans
        out["cheapest_plan"] = best["name"]
        out["cheapest_plan_total_usd"] = best["total_usd"]
    return out
