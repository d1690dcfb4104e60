"""The full-bill panel: each offering's bill for the workload, stacked by line item."""

from __future__ import annotations

from typing import Any

from compare.charts.common import (
    bar_height,
    bill_line,
    cell,
    missing_cell,
    offering_labels,
    offering_row,
    table,
    usd,
)
from portal.chart_style import (
    BLACK,
    BLUE,
    GREEN,
    ORANGE,
    PATTERNS,
    PURPLE,
    SKY,
    VERMILLION,
    YELLOW,
    axis,
    base_layout,
    category_axis,
    patterned,
    plotly_text,
    to_float,
)

# The chart's stacks: (key, legend name, the bill's line items it sums). The legend names are short on
# purpose (the quote's full names are sizing.bill.LINE_ITEM_LABELS); both storage lines share one stack.
BILL_ITEMS = (
    ("compute", "compute", ("compute",)),
    ("failure_overhead", "failure overhead", ("failure_overhead",)),
    ("spares", "spare nodes", ("spares",)),
    ("storage", "storage", ("checkpoint_storage", "dataset_storage")),
    ("egress", "egress", ("egress",)),
    ("traffic", "traffic", ("traffic",)),
    ("support", "support", ("support",)),
    ("setup", "setup", ("setup",)),
)
BILL_COLOURS = [BLUE, VERMILLION, ORANGE, GREEN, PURPLE, SKY, YELLOW, BLACK]


def bill_items(bill: dict) -> tuple[dict[str, float | None], list[str]]:
    """USD per chart item (None: some line of it is not published) and the names of the missing items."""
    values: dict[str, float | None] = {}
    missing: list[str] = []
    for key, label, items in BILL_ITEMS:
        total: float | None = 0.0
        for item in items:
            line = bill_line(bill, item)
            if line is None:
                continue
            value = to_float(line.get("usd"))
            if value is None:
                total = None
            elif total is not None:
                total += value
        values[key] = total
        if total is None:
            missing.append(label)
    return values, missing


def _bill_cells(bill: dict, values: dict[str, float | None], missing: list[str], plan: str) -> list[dict]:
    total = to_float(bill.get("total_usd")) or 0.0
    return [cell(usd(values[key]), number=True, missing=values[key] is None) for key, _, _ in BILL_ITEMS] + [
        cell(
            usd(total) + ("" if not missing else " + unpublished"),
            number=True,
            badge="" if not missing else "fail",
            icon="" if not missing else "✖",
        ),
        cell(usd(to_float(bill.get("usd_per_billion_tokens"))), number=True),
        cell(plan),
    ]


def _stacks_and_rows(
    offerings: list[Any], results: dict[int, Any]
) -> tuple[dict[str, dict[str, list]], dict[str, list], list[float], list[dict]]:
    """Per stack its bars; the notes beside unsized, infeasible or incomplete bills; totals; table rows."""
    labels = offering_labels(offerings)
    stacks: dict[str, dict[str, list]] = {key: {"x": [], "y": [], "hover": []} for key, _, _ in BILL_ITEMS}
    notes: dict[str, list[Any]] = {"x": [], "y": [], "text": []}
    totals: list[float] = []
    rows = []
    for o in offerings:
        r, label = results.get(o.pk), labels[o.pk]
        bill = (r.bill or {}) if r is not None else {}
        if r is None or not r.feasible or not bill.get("lines"):
            notes["x"].append(0)
            notes["y"].append(label)
            notes["text"].append("not sized yet" if r is None else "✖ cannot train this workload")
            rows.append(offering_row(o, [missing_cell("—")] * (len(BILL_ITEMS) + 3)))
            continue
        values, missing = bill_items(bill)
        plan = (bill.get("plan") or {}).get("name") or "no published plan"
        for key, item_label, _ in BILL_ITEMS:
            stacks[key]["x"].append(values[key] or 0)
            stacks[key]["y"].append(label)
            stacks[key]["hover"].append(
                f"<b>{label}</b><br>{plotly_text(item_label)}: {plotly_text(usd(values[key]))}<br>"
                f"{plotly_text('plan: ' + plan)}<br>source: published prices × the sizing model"
            )
        totals.append(to_float(bill.get("total_usd")) or 0.0)
        if missing:
            notes["x"].append(totals[-1])
            notes["y"].append(label)
            named = ", ".join(missing[:2]) + (f" +{len(missing) - 2}" if len(missing) > 2 else "")
            notes["text"].append(f"✖ incomplete: {named} not published")
        rows.append(offering_row(o, _bill_cells(bill, values, missing, plan)))
    return stacks, notes, totals, rows


def _traces(stacks: dict[str, dict[str, list]], notes: dict[str, list]) -> list[dict[str, Any]]:
    traces: list[dict[str, Any]] = [
        {
            "type": "bar",
            "orientation": "h",
            "name": item_label,
            "x": stacks[key]["x"],
            "y": stacks[key]["y"],
            "hovertext": stacks[key]["hover"],
            "hoverinfo": "text",
            "marker": patterned(BILL_COLOURS[i], PATTERNS[i % len(PATTERNS)]),
        }
        for i, (key, item_label, _) in enumerate(BILL_ITEMS)
    ]
    traces.append(
        {
            "type": "scatter",
            "mode": "text",
            "name": "incomplete / infeasible",
            "showlegend": False,
            "x": notes["x"],
            "y": notes["y"],
            "text": notes["text"],
            "textposition": "middle right",
            "textfont": {"color": VERMILLION},
            "cliponaxis": False,
            "hoverinfo": "skip",
        }
    )
    return traces


def cost_panel(offerings: list[Any], results: dict[int, Any], workload_label: str) -> dict:
    stacks, notes, totals, rows = _stacks_and_rows(offerings, results)
    return {
        "key": "cost",
        "nav": "Full bill",
        "title": f"Full bill for {workload_label}, by line item",
        "note": "Each bar is the whole bill under the cheapest complete plan: GPU-hours (compute, "
        "failure overhead, "
        "spare nodes) plus storage, egress, traffic, support and setup. ✖ marks a bill missing a "
        "price the provider "
        "does not publish; it is never counted as zero, so that bar is a lower bound.",
        "figure": {
            "data": _traces(stacks, notes),
            "layout": base_layout(
                bar_height(len(offerings), 40),
                barmode="stack",
                xaxis=axis("full bill (USD)", tickprefix="$", range=[0, max(totals + [1]) * 1.6]),
                yaxis=category_axis(),
            ),
        },
        "table": table(
            f"Full bill in USD for {workload_label}",
            ["Offering"] + [label for _, label, _ in BILL_ITEMS] + ["Total", "per billion tokens", "Plan"],
            rows,
            numeric=range(len(BILL_ITEMS) + 2),
        ),
    }
