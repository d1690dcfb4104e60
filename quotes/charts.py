"""The quote's charts as Plotly figure dicts (the page draws them with Plotly.js, the PDF as SVG).

Pure: no Django import. Every label that comes from the catalog is escaped for Plotly's pseudo-HTML
text, so a provider named `<script>` is drawn as those characters and never interpreted.
"""

from __future__ import annotations

from decimal import Decimal, InvalidOperation
from typing import Any

from quotes.display import ITEM_LABELS, iteration_items, number, usd

FONT = "DejaVu Sans, Noto Sans CJK SC, sans-serif"
BLUE = "#0072B2"  # Okabe-Ito, as static/css/site.css
ORANGE = "#E69F00"
GREY = "#999999"


LABEL_MAX = 44


def plotly_text(text: Any, limit: int | None = None) -> str:
    """Text shown literally by Plotly (which reads a subset of HTML in labels), cut to `limit` characters."""
    text = str(text)
    if limit is not None and len(text) > limit:
        text = text[: limit - 1].rstrip() + "…"
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _float(value: Any) -> float | None:
    if value is None:
        return None
    try:
        return float(Decimal(str(value)))
    except (InvalidOperation, ValueError):
        return None


def _layout(title: str, x_title: str, height: int) -> dict[str, Any]:
    return {
        "title": {"text": plotly_text(title), "x": 0, "xanchor": "left", "font": {"size": 15}},
        "font": {"family": FONT, "size": 12, "color": "#1f2937"},
        "paper_bgcolor": "#ffffff",
        "plot_bgcolor": "#ffffff",
        "width": 720,
        "height": height,
        "margin": {"l": 210, "r": 30, "t": 50, "b": 55},
        "showlegend": False,
        "xaxis": {
            "title": {"text": plotly_text(x_title)},
            "gridcolor": "#e5e7eb",
            "zeroline": True,
            "zerolinecolor": "#9ca3af",
            "separatethousands": True,
        },
        "yaxis": {"automargin": True, "autorange": "reversed"},
    }


def quote_charts(snapshot: dict[str, Any]) -> list[dict[str, Any]]:
    """[{key, title, figure, table: {header, rows}}] for the bill, the plans and one iteration."""
    bill = snapshot.get("bill") or {}
    sizing = snapshot.get("sizing") or {}
    charts: list[dict[str, Any]] = []

    items = [(ln, _float(ln.get("usd"))) for ln in bill.get("lines") or []]
    priced = [(ln, v) for ln, v in items if v is not None]
    if priced:
        labels = [plotly_text(ITEM_LABELS.get(ln["item"], ln["item"])) for ln, _ in priced]
        values = [v for _, v in priced]
        charts.append(
            {
                "key": "cost-by-item",
                "title": "Cost by line item",
                "rows": [(ITEM_LABELS.get(ln["item"], ln["item"]), usd(ln.get("usd"))) for ln, _ in priced],
                "figure": {
                    "data": [
                        {
                            "type": "bar",
                            "orientation": "h",
                            "x": values,
                            "y": labels,
                            "marker": {"color": BLUE},
                            "hovertemplate": "%{y}: $%{x:,.2f}<extra></extra>",
                        }
                    ],
                    "layout": _layout(
                        "Cost by line item (published prices)", "US dollars", 90 + 34 * len(values)
                    ),
                },
            }
        )

    plans = [(p, _float(p.get("total_usd"))) for p in bill.get("plans") or []]
    plans = [(p, v) for p, v in plans if v is not None]
    if len(plans) > 1:
        charts.append(
            {
                "key": "plans",
                "title": "The job under each billing plan",
                "rows": [(str(p.get("name")), usd(p.get("total_usd"))) for p, _ in plans],
                "figure": {
                    "data": [
                        {
                            "type": "bar",
                            "orientation": "h",
                            "x": [v for _, v in plans],
                            "y": [plotly_text(p.get("name"), LABEL_MAX) for p, _ in plans],
                            "marker": {"color": [ORANGE if p.get("chosen") else GREY for p, _ in plans]},
                            "hovertemplate": "%{y}: $%{x:,.2f}<extra></extra>",
                        }
                    ],
                    "layout": _layout(
                        "Total under each billing plan (chosen plan in orange)",
                        "US dollars per job",
                        90 + 34 * len(plans),
                    ),
                },
            }
        )

    breakdown = [(k, _float(v)) for k, v in iteration_items(sizing)]
    breakdown = [(k, v) for k, v in breakdown if v]
    if breakdown:
        charts.append(
            {
                "key": "iteration",
                "title": "Where one training step's time goes",
                "rows": [(k.replace("_", " "), number(v, 3)) for k, v in breakdown],
                "figure": {
                    "data": [
                        {
                            "type": "bar",
                            "orientation": "h",
                            "x": [v for _, v in breakdown],
                            "y": [plotly_text(k.replace("_", " ")) for k, _ in breakdown],
                            "marker": {"color": BLUE},
                            "hovertemplate": "%{y}: %{x:.3f} s<extra></extra>",
                        }
                    ],
                    "layout": _layout(
                        "Where one training step's time goes", "seconds per step", 90 + 34 * len(breakdown)
                    ),
                },
            }
        )
    return charts
