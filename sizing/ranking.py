"""Ordering of a run's results by objective (pure: works on anything with the PlanResult attributes)."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

INF = float("inf")


def rank_key(
    result: Any, objective: str, *, deadline_days: float | None = None, budget_usd: Decimal | None = None
) -> tuple[Any, ...]:
    """Feasible first; then those that meet the constraint of the objective (the deadline when cheapest,
    the budget when fastest); then by cost or time; complete bills before incomplete ones at equal cost."""
    cost = float(result.cost_total_usd) if result.cost_total_usd is not None else INF
    days = result.train_days if result.train_days is not None else INF
    if objective == "fastest":
        within = budget_usd is None or (
            result.cost_total_usd is not None and result.cost_total_usd <= budget_usd
        )
        return (not result.feasible, not within, days, cost, result.offering_id)
    within = deadline_days is None or days <= deadline_days
    return (not result.feasible, not within, cost, not result.cost_complete, days, result.offering_id)
