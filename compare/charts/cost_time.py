"""The cost-against-time panel: each offering's bill and training days, with the Pareto front marked."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _

from compare.charts.common import (
    cell,
    hover,
    missing_cell,
    money_axis,
    money_value,
    offering_labels,
    offering_row,
    table,
    unsized_text,
    usd,
)
from portal.chart_style import BLUE, VERMILLION, axis, base_layout, plotly_text
from portal.formats import days_text
from portal.money import active


def pareto_front(points: list[tuple[float, float, int]]) -> set[int]:
    """Ids of the (days, cost, id) points that no other point beats on both time and cost."""
    front: set[int] = set()
    best = float("inf")
    for _days, cost, pid in sorted(points):
        if cost < best:
            front.add(pid)
            best = cost
    return front


def _points(offerings: list[Any], results: dict[int, Any]) -> list[tuple[float, float, int]]:
    """(days, the bill in the shown currency, offering id) of every feasible sized offering with a bill."""
    points = []
    for o in offerings:
        r = results.get(o.pk)
        if r is not None and r.feasible and r.train_days is not None and r.cost_total_usd is not None:
            points.append((float(r.train_days), money_value(r.cost_total_usd) or 0.0, o.pk))
    return points


def _groups(
    offerings: list[Any], results: dict[int, Any], points: list[tuple[float, float, int]], front: set[int]
) -> dict[bool, dict[str, list]]:
    """The markers on the front (True) and off it (False), in order of days."""
    labels = offering_labels(offerings)
    groups: dict[bool, dict[str, list]] = {
        flag: {"x": [], "y": [], "hover": [], "text": []} for flag in (True, False)
    }
    for days, cost, pid in sorted(points):
        r = results[pid]
        group = groups[pid in front]
        group["x"].append(days)
        group["y"].append(cost)
        group["text"].append(labels[pid] if pid in front else "")
        lower_bound = "" if r.cost_complete else " " + _("(incomplete bill: some fees unpublished)")
        words = _("%(days)s days, %(cost)s%(lower_bound)s; %(gpus)s GPUs, layout %(layout)s") % {
            "days": days_text(days),
            "cost": usd(cost),
            "lower_bound": lower_bound,
            "gpus": r.gpus,
            "layout": r.layout_text,
        }
        group["hover"].append(
            hover(labels[pid], words)
            + ("<br>" + plotly_text(_("on the Pareto front")) if pid in front else "")
        )
    return groups


def _row(o: Any, r: Any, front: set[int]) -> dict:
    if r is None or not r.feasible or r.train_days is None:
        unsized = missing_cell(unsized_text(r))
        return offering_row(o, [unsized, missing_cell("—"), missing_cell("—")])
    cost = money_value(r.cost_total_usd)
    lower_bound = "" if r.cost_complete or cost is None else " " + _("(incomplete bill)")
    return offering_row(
        o,
        [
            cell(days_text(r.train_days), number=True),
            cell(
                _("no price") if cost is None else usd(cost) + lower_bound, number=True, missing=cost is None
            ),
            cell("✔ " + _("on the front") if o.pk in front else "—"),
        ],
    )


def _traces(groups: dict[bool, dict[str, list]]) -> list[dict]:
    return [
        {
            "type": "scatter",
            "mode": "lines+markers+text",
            "name": _("Pareto front: no other offering is both faster and cheaper"),
            "x": groups[True]["x"],
            "y": groups[True]["y"],
            "text": groups[True]["text"],
            "textposition": "top right",
            "cliponaxis": False,
            "line": {"shape": "hv", "dash": "dash", "color": BLUE, "width": 2},
            "marker": {"symbol": "diamond", "size": 13, "color": BLUE},
            "hovertext": groups[True]["hover"],
            "hoverinfo": "text",
        },
        {
            "type": "scatter",
            "mode": "markers",
            "name": _("dominated: another offering is faster and cheaper"),
            "x": groups[False]["x"],
            "y": groups[False]["y"],
            "marker": {"symbol": "circle-open", "size": 11, "color": VERMILLION, "line": {"width": 2}},
            "hovertext": groups[False]["hover"],
            "hoverinfo": "text",
        },
    ]


def cost_time_panel(offerings: list[Any], results: dict[int, Any], workload_label: str) -> dict:
    points = _points(offerings, results)
    front = pareto_front(points)
    return {
        "key": "cost-time",
        "nav": _("Cost vs time"),
        "title": _("Cost against time to train %(workload)s") % {"workload": workload_label},
        "note": _(
            "Down and to the left is better. Diamonds joined by the dashed line are the Pareto front; "
            "every open circle is beaten on both cost and time by some diamond."
        ),
        "figure": {
            "data": _traces(_groups(offerings, results, points, front)),
            "layout": base_layout(
                440,
                xaxis=axis(
                    _("training time including failures (days)"),
                    range=[0, max([p[0] for p in points] + [1]) * 1.35],
                ),
                yaxis=axis(
                    money_axis(_("full bill")),
                    tickprefix=active().symbol,
                    range=[0, max([p[1] for p in points] + [1]) * 1.15],
                ),
                margin={"l": 10, "r": 40, "t": 60, "b": 50},
            ),
        },
        "table": table(
            _("Time and cost to train %(workload)s") % {"workload": workload_label},
            [_("Offering"), _("Days"), _("Full bill"), _("Pareto front")],
            [_row(o, results.get(o.pk), front) for o in offerings],
            numeric=(0, 1),
        ),
    }
