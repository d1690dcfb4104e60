"""A planner result as the summary sentences read it (sizing.summary), without the database: an HGX H100
InfiniBand offering, 16 nodes, TP8 PP2 DP8."""

from __future__ import annotations

from decimal import Decimal
from types import SimpleNamespace
from typing import Any


def plan_result(**overrides: Any) -> SimpleNamespace:
    offering = SimpleNamespace(
        name="HGX H100",
        fictional=False,
        gpus_per_node=8,
        intra_node="nvswitch",
        fabric="infiniband",
        gbps_per_nic=400,
    )
    fields: dict[str, Any] = {
        "feasible": True,
        "nodes": 16,
        "gpus": 128,
        "offering": offering,
        "layout": {"tp": 8, "pp": 2, "dp": 8, "zero": 1},
        "sizing": {"offering": {}, "deadline_days": 90, "meets_deadline": True},
        "train_days": 41.26,
        "cost_total_usd": Decimal("1000000"),
        "cost_complete": False,
        "cost_low_usd": Decimal("900000"),
        "cost_high_usd": Decimal("1100000"),
        "pessimistic": None,
    }
    return SimpleNamespace(**{**fields, **overrides})
