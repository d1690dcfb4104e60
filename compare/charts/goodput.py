"""The goodput panel: the share of wall-clock time that trains, and the GPU-hours failures cost."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.utils.translation import gettext as _

from compare.charts.common import (
    bill_line,
    cell,
    fmt,
    hover,
    missing_cell,
    money_value,
    offering_bar_height,
    offering_labels,
    offering_row,
    table,
    unsized_text,
    usd,
)
from compare.charts.two_panels import ValuePanel, stacked_narrow, value_axes
from portal.chart_style import GREEN, VERMILLION, base_layout, category_axis, patterned, to_float
from portal.formats import goodput_text
from portal.money import active


@dataclass(frozen=True)
class Goodput:
    """One offering's goodput and failure cost for the workload, from its stored sizing result."""

    label: str
    model: dict[str, Any]  # the sizing's goodput block (expected failures, MTBF, restart, interval)
    pct: float | None  # None: not sized or infeasible
    text: str  # the goodput as every page shows it (portal.formats.goodput_text)
    hours_lost: float | None
    usd_lost: float | None
    feasible: bool
    reason: str  # why there is no goodput, when there is none


def _goodput(label: str, result: Any) -> Goodput:
    model = (result.sizing or {}).get("goodput") or {} if result is not None else {}
    overhead = bill_line(result.bill or {}, "failure_overhead") if result is not None else None
    feasible = result is not None and result.feasible and result.goodput is not None
    fraction = result.goodput if feasible and result is not None else None
    return Goodput(
        label=label,
        model=model,
        pct=fraction * 100 if fraction is not None else None,
        text=goodput_text(fraction),
        hours_lost=to_float(overhead.get("quantity")) if overhead else None,
        usd_lost=money_value(overhead.get("usd")) if overhead else None,
        feasible=feasible,
        reason=unsized_text(result),
    )


def _goodput_hover(g: Goodput) -> str:
    words = _(
        "goodput %(pct)s; %(failures)s expected failures; job MTBF %(mtbf)s h; restart %(restart)s min; "
        "checkpoint every %(interval)s min"
    ) % {
        "pct": g.text,
        "failures": g.model.get("expected_failures", "?"),
        "mtbf": g.model.get("mtbf_h", "?"),
        "restart": g.model.get("restart_min", "?"),
        "interval": g.model.get("checkpoint_interval_min", "?"),
    }
    source = _("source: the sizing model's estimate of failures, checkpoints and restarts")
    return hover(g.label, words) + "<br>" + source


def _lost_text(g: Goodput) -> str:
    if not g.feasible:
        return g.reason
    return fmt(g.hours_lost, 0) if g.hours_lost is not None else ""


def _cells(g: Goodput) -> list[dict]:
    return [
        cell(g.text, number=True) if g.pct is not None else missing_cell(g.reason),
        cell(g.model.get("expected_failures", "—"), number=True),
        cell(g.model.get("mtbf_h", "—"), number=True),
        cell(g.model.get("restart_min", "—"), number=True),
        cell(fmt(g.hours_lost, 0), number=True, missing=g.hours_lost is None),
        cell(usd(g.usd_lost), number=True, missing=g.usd_lost is None),
    ]


def _bar(
    name: str,
    axis_name: str,
    color: str,
    shape: str,
    goodputs: list[Goodput],
    value: Callable[[Goodput], tuple[float, str, str]],
) -> dict:
    """One horizontal bar per offering: `value(g)` gives (x, text, hover)."""
    bars = [value(g) for g in goodputs]
    return {
        "type": "bar",
        "orientation": "h",
        "name": name,
        "x": [x for x, _text, _hover in bars],
        "y": [g.label for g in goodputs],
        "xaxis": axis_name,
        "text": [text for _x, text, _hover in bars],
        "textposition": "outside",
        "cliponaxis": False,
        "hovertext": [hover_text for _x, _text, hover_text in bars],
        "hoverinfo": "text",
        "marker": patterned(color, shape),
    }


def _traces(goodputs: list[Goodput]) -> list[dict]:
    def goodput_bar(g: Goodput) -> tuple[float, str, str]:
        return g.pct or 0, g.text if g.pct is not None else g.reason, _goodput_hover(g)

    def lost_bar(g: Goodput) -> tuple[float, str, str]:
        lost = _("%(hours)s lost to failures, restarts and checkpoints; %(cost)s") % {
            "hours": fmt(g.hours_lost, 0, "GPU-hours"),
            "cost": usd(g.usd_lost),
        }
        return g.hours_lost or 0, _lost_text(g), hover(g.label, lost)

    return [
        _bar(_("expected goodput"), "x", GREEN, "", goodputs, goodput_bar),
        _bar(_("GPU-hours lost to failures"), "x2", VERMILLION, "x", goodputs, lost_bar),
    ]


def _panels(top_lost: float) -> tuple[ValuePanel, ValuePanel]:
    """The goodput axis (x; few ticks, upright in a phone's width) and the GPU-hours lost (x2)."""
    return (
        ValuePanel(_("expected goodput (%)"), 118, nticks=6),
        ValuePanel(_("GPU-hours lost to failures"), top_lost * 1.3, nticks=4),
    )


def goodput_panel(offerings: list[Any], results: dict[int, Any], workload_label: str) -> dict:
    labels = offering_labels(offerings)
    goodputs = [_goodput(labels[o.pk], results.get(o.pk)) for o in offerings]
    traces = _traces(goodputs)
    panels = _panels(max(traces[1]["x"] + [1]))
    return {
        "key": "goodput",
        "nav": _("Goodput"),
        "title": _("Goodput and the cost of failures for %(workload)s") % {"workload": workload_label},
        # the lost hours named by their panel's title: right of the goodput on a laptop, below it on a phone
        "note": _(
            "Goodput: the share of wall-clock time spent on useful training after failures, restarts and "
            "checkpoint writes (sizing model). “%(lost)s”: the GPU-hours those failures cost on the chosen "
            "layout."
        )
        % {"lost": panels[1].title},
        "figure": {
            "data": traces,
            "layout": base_layout(
                offering_bar_height(offerings, 40),
                **value_axes(*panels, stacked=False),
                yaxis=category_axis(),
            ),
            "narrow": stacked_narrow(*panels, traces),
        },
        "table": table(
            _("Goodput and failure cost for %(workload)s") % {"workload": workload_label},
            [
                _("Offering"),
                _("Goodput"),
                _("Expected failures"),
                _("Job MTBF h"),
                _("Restart min"),
                _("GPU-hours lost"),
                _("%(currency)s lost") % {"currency": active().code},
            ],
            [offering_row(o, _cells(g)) for o, g in zip(offerings, goodputs, strict=True)],
            numeric=range(6),
        ),
    }
