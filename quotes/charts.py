"""The quote's charts as Plotly figure dicts (the page draws them with Plotly.js, the PDF as SVG).

Every label that comes from the catalog is escaped for Plotly's pseudo-HTML text, so a provider named
`<script>` is drawn as those characters and never interpreted. Colours, fonts and the escaping are
portal/chart_style.py's. Titles and axes follow the active language (the quote's, when the PDF is drawn);
money is in the quote's currency (portal.money, the rate frozen in the snapshot).
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _

from portal.chart_style import (
    BLUE,
    GREY,
    ORANGE,
    QUOTE_FONT_FAMILY,
    QUOTE_GRID,
    QUOTE_INK,
    QUOTE_ZERO_LINE,
    plotly_text,
    to_float,
    white_background,
)
from portal.money import active, shown_in
from quotes.display import item_label, iteration_items, iteration_label, number, quote_money, usd

LABEL_MAX = 44


def _money_hover() -> str:
    return "%{y}: " + active().symbol.replace("%", "%%") + "%{x:,.2f}<extra></extra>"


def _money_axis(per_job: bool = False) -> str:
    if active().code == "CNY":
        return _("yuan (CNY) per job") if per_job else _("yuan (CNY)")
    return _("US dollars per job") if per_job else _("US dollars")


def _layout(title: str, x_title: str, height: int) -> dict[str, Any]:
    return {
        "title": {"text": plotly_text(title), "x": 0, "xanchor": "left", "font": {"size": 15}},
        "font": {"family": QUOTE_FONT_FAMILY, "size": 12, "color": QUOTE_INK},
        **white_background(),
        "width": 720,
        "height": height,
        "margin": {"l": 210, "r": 30, "t": 50, "b": 55},
        "showlegend": False,
        "xaxis": {
            "title": {"text": plotly_text(x_title)},
            "gridcolor": QUOTE_GRID,
            "zeroline": True,
            "zerolinecolor": QUOTE_ZERO_LINE,
            "separatethousands": True,
        },
        "yaxis": {"automargin": True, "autorange": "reversed"},
    }


def _bar_chart(
    key: str,
    title: str,
    rows: list[tuple[str, str]],
    bars: dict[str, Any],
    figure_title: str,
    x_title: str,
) -> dict[str, Any]:
    """A chart of one horizontal bar per row; `bars` holds the trace's x, y, marker and hovertemplate."""
    return {
        "key": key,
        "title": title,
        "rows": rows,
        "figure": {
            "data": [{"type": "bar", "orientation": "h", **bars}],
            "layout": _layout(figure_title, x_title, 90 + 34 * len(bars["x"])),
        },
    }


def _cost_by_item(bill: dict[str, Any]) -> dict[str, Any] | None:
    money = active()
    priced = [
        (ln, v) for ln in bill.get("lines") or [] if (v := money.chart_value(ln.get("usd"))) is not None
    ]
    if not any(v > 0 for _, v in priced):  # nothing but zeros (no published price): no bar to draw
        return None
    return _bar_chart(
        "cost-by-item",
        _("Cost by line item"),
        [(item_label(ln["item"]), usd(ln.get("usd"))) for ln, _ in priced],
        {
            "x": [v for _, v in priced],
            "y": [plotly_text(item_label(ln["item"])) for ln, _ in priced],
            "marker": {"color": BLUE},
            "hovertemplate": _money_hover(),
        },
        _("Cost by line item (published prices)"),
        _money_axis(),
    )


def _plans(bill: dict[str, Any]) -> dict[str, Any] | None:
    money = active()
    plans = [
        (p, v) for p in bill.get("plans") or [] if (v := money.chart_value(p.get("total_usd"))) is not None
    ]
    if len(plans) <= 1:
        return None
    return _bar_chart(
        "plans",
        _("The job under each billing plan"),
        [(str(p.get("name")), usd(p.get("total_usd"))) for p, _ in plans],
        {
            "x": [v for _, v in plans],
            "y": [plotly_text(p.get("name"), LABEL_MAX) for p, _ in plans],
            "marker": {"color": [ORANGE if p.get("chosen") else GREY for p, _ in plans]},
            "hovertemplate": _money_hover(),
        },
        _("Total under each billing plan (chosen plan in orange)"),
        _money_axis(per_job=True),
    )


def _iteration(sizing: dict[str, Any]) -> dict[str, Any] | None:
    breakdown = [(k, v) for k, value in iteration_items(sizing) if (v := to_float(value))]
    if not breakdown:
        return None
    title = _("Where one training step's time goes")
    return _bar_chart(
        "iteration",
        title,
        [(iteration_label(k), number(v, 3)) for k, v in breakdown],
        {
            "x": [v for _, v in breakdown],
            "y": [plotly_text(iteration_label(k)) for k, _ in breakdown],
            "marker": {"color": BLUE},
            "hovertemplate": "%{y}: %{x:.3f} s<extra></extra>",
        },
        title,
        _("seconds per step"),
    )


def quote_charts(snapshot: dict[str, Any]) -> list[dict[str, Any]]:
    """[{key, title, rows, figure}] for the bill, the plans and one step; a chart without data is left out."""
    bill = snapshot.get("bill") or {}
    sizing = snapshot.get("sizing") or {}
    with shown_in(quote_money(snapshot)):
        charts = [_cost_by_item(bill), _plans(bill), _iteration(sizing)]
    return [chart for chart in charts if chart is not None]
