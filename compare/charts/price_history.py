"""The price-history panel: every recorded price of every billing plan of the compared offerings."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django.utils.translation import gettext as _

from compare.charts.common import cell, offering_labels, row_head, table
from portal.chart_style import DASHES, SERIES, SYMBOLS, axis, base_layout, plotly_text, short
from portal.money import active, symbol_text


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
        money = active()
        price = money.chart_value(p.price_usd_per_gpu_hour) or 0.0
        entry["x"].append(when)
        entry["y"].append(price)
        offering_id = p.plan.offering_id
        note = f"; {p.note}" if p.note else ""
        shown = symbol_text(money.symbol, Decimal(str(price)), 2)
        entry["hover"].append(
            f"<b>{labels[offering_id]}</b><br>"
            + plotly_text(
                _("%(plan)s: %(price)s per GPU-hour on %(date)s")
                % {"plan": p.plan.name, "price": shown, "date": when}
                + note
            )
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


def _per_gpu_hour() -> str:
    return _("%(currency)s per GPU-hour") % {"currency": active().code}


def price_history_panel(offerings: list[Any], points: list[Any]) -> dict | None:
    plans, rows = _plan_lines(offerings, points)
    if not plans:
        return None
    return {
        "key": "price-history",
        "nav": _("Price history"),
        "title": _("Price history of the plans"),
        "note": _(
            "Every recorded price of every billing plan (history is append-only). Colour and "
            "marker: offering; dash: plan."
        ),
        "figure": {
            "data": _traces(offerings, plans),
            "layout": base_layout(
                420,
                xaxis=axis(_("date the price was true"), type="date"),
                yaxis=axis(_per_gpu_hour(), tickprefix=active().symbol, rangemode="tozero"),
                margin={"l": 10, "r": 30, "t": 90, "b": 50},
            ),
        },
        "table": table(
            _("Recorded prices in %(currency)s per GPU-hour") % {"currency": active().code},
            [_("Offering"), _("Plan"), _("Kind"), _("As of"), _per_gpu_hour()],
            rows,
            numeric=(3,),
        ),
    }
