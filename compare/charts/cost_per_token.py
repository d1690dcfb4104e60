"""The cost-per-token panel: the full bill divided by the training tokens, in USD per billion tokens."""

from __future__ import annotations

from typing import Any

from compare.charts.common import (
    bar_height,
    cell,
    hover,
    missing_cell,
    offering_labels,
    offering_row,
    table,
    usd,
)
from portal.chart_style import BLUE, axis, base_layout, category_axis, overlay_pattern, to_float


def _per_billion_tokens(result: Any) -> tuple[float | None, bool]:
    """USD per billion tokens (None: not sized or infeasible) and whether the bill is complete."""
    bill = (result.bill or {}) if result is not None else {}
    value = to_float(bill.get("usd_per_billion_tokens")) if result is not None and result.feasible else None
    return value, bool(result is not None and result.cost_complete)


def _cells(value: float | None, complete: bool) -> list[dict]:
    if value is None:
        completeness = missing_cell("—")
    else:
        completeness = cell(
            "complete" if complete else "incomplete: lower bound",
            badge="" if complete else "fail",
            icon="" if complete else "✖",
        )
    return [cell(usd(value), number=True, missing=value is None), completeness]


def _bar(offerings: list[Any], costs: list[tuple[float | None, bool]]) -> dict:
    """One bar per offering, hatched where the bill misses a price (the figure is then a lower bound)."""
    labels = offering_labels(offerings)
    text, hovers = [], []
    for o, (value, complete) in zip(offerings, costs, strict=True):
        lower_bound = "" if complete else " (lower bound)"
        text.append(f"${value:,.0f}{lower_bound}" if value is not None else "—")
        incomplete = "" if complete else "; incomplete bill: lower bound"
        hovers.append(hover(labels[o.pk], f"{usd(value)} per billion training tokens{incomplete}"))
    return {
        "type": "bar",
        "orientation": "h",
        "name": "USD per billion tokens",
        "x": [value or 0 for value, _ in costs],
        "y": [labels[o.pk] for o in offerings],
        "text": text,
        "textposition": "outside",
        "cliponaxis": False,
        "hovertext": hovers,
        "hoverinfo": "text",
        "marker": overlay_pattern(BLUE, ["" if complete else "/" for _, complete in costs], 0.35),
    }


def cost_per_token_panel(offerings: list[Any], results: dict[int, Any], workload_label: str) -> dict:
    costs = [_per_billion_tokens(results.get(o.pk)) for o in offerings]
    bar = _bar(offerings, costs)
    return {
        "key": "cost-per-token",
        "nav": "Cost per token",
        "title": f"Cost per billion training tokens for {workload_label}",
        "note": "Full bill ÷ training tokens. Hatched: the bill misses an unpublished price, so the "
        "figure is a lower bound.",
        "figure": {
            "data": [bar],
            "layout": base_layout(
                bar_height(len(offerings), 30),
                xaxis=axis("USD per billion tokens", tickprefix="$", range=[0, max(bar["x"] + [1]) * 1.45]),
                yaxis=category_axis(),
                showlegend=False,
            ),
        },
        "table": table(
            f"USD per billion training tokens for {workload_label}",
            ["Offering", "USD per billion tokens", "Bill"],
            [offering_row(o, _cells(*cost)) for o, cost in zip(offerings, costs, strict=True)],
            numeric=(0,),
        ),
    }
