"""The price-history panel: every recorded price of every billing plan of the compared offerings."""

from __future__ import annotations

from typing import Any

from compare.charts.common import cell, offering_labels, row_head, table
from portal.chart_style import DASHES, SERIES, SYMBOLS, axis, base_layout, plotly_text, short


def _plan_lines(offerings: list[Any], points: list[Any]) -> tuple[dict[int, dict[str, Any]], list[dict]]:
    """Per plan id its dated prices {plan, x, y, hover}, and one table row per recorded price."""
    labels = offering_labels(offerings)
    by_id = {o.pk: o for o in offerings}
    plans: dict[int, dict[str, Any]] = {}
    rows = []
    for p in points:
        if p.price_usd_per_gpu_hour is None:
            continue
        when = (p.as_of or p.recorded_at.date()).isoformat()
        entry = plans.setdefault(p.plan_id, {"plan": p.plan, "x": [], "y": [], "hover": []})
        price = float(p.price_usd_per_gpu_hour)
        entry["x"].append(when)
        entry["y"].append(price)
        offering_id = p.plan.offering_id
        note = f"; {p.note}" if p.note else ""
        entry["hover"].append(
            f"<b>{labels[offering_id]}</b><br>"
            + plotly_text(f"{p.plan.name}: ${price:.2f} per GPU-hour on {when}{note}")
        )
        rows.append(
            {
                "head": row_head(by_id[offering_id]),
                "href": by_id[offering_id].get_absolute_url(),
                "cells": [
                    cell(p.plan.name),
                    cell(p.plan.kind),
                    cell(when),
                    cell(f"{price:.2f}", number=True),
                ],
            }
        )
    return plans, rows


def _traces(offerings: list[Any], plans: dict[int, dict[str, Any]]) -> list[dict]:
    """A step line per plan: the offering's colour and marker, a dash per plan."""
    labels = offering_labels(offerings)
    index = {o.pk: i for i, o in enumerate(offerings)}
    traces = []
    for j, entry in enumerate(plans.values()):
        plan = entry["plan"]
        i = index[plan.offering_id]
        traces.append(
            {
                "type": "scatter",
                "mode": "lines+markers",
                "name": short(f"{labels[plan.offering_id]} · {plotly_text(plan.name)}", 70),
                "x": entry["x"],
                "y": entry["y"],
                "line": {"shape": "hv", "color": SERIES[i % len(SERIES)], "dash": DASHES[j % len(DASHES)]},
                "marker": {"symbol": SYMBOLS[i % len(SYMBOLS)], "size": 8},
                "hovertext": entry["hover"],
                "hoverinfo": "text",
            }
        )
    return traces


def price_history_panel(offerings: list[Any], points: list[Any]) -> dict | None:
    plans, rows = _plan_lines(offerings, points)
    if not plans:
        return None
    return {
        "key": "price-history",
        "nav": "Price history",
        "title": "Price history of the plans",
        "note": "Every recorded price of every billing plan (history is append-only). Colour and "
        "marker: offering; dash: plan.",
        "figure": {
            "data": _traces(offerings, plans),
            "layout": base_layout(
                420,
                xaxis=axis("date the price was true", type="date"),
                yaxis=axis("USD per GPU-hour", tickprefix="$", rangemode="tozero"),
                margin={"l": 10, "r": 30, "t": 90, "b": 50},
            ),
        },
        "table": table(
            "Recorded prices in USD per GPU-hour",
            ["Offering", "Plan", "Kind", "As of", "USD per GPU-hour"],
            rows,
            numeric=(3,),
        ),
    }
