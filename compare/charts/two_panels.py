"""Two value panels over the same offerings (goodput beside the GPU-hours lost, bandwidth inside beside across
nodes): on a laptop side by side with a gap wide enough for each axis title under its own panel; on a phone
(compare.js applies the figure's `narrow` under 560 px) stacked, each the screen's width and on its own row
of bars, so the two titles cannot meet."""

from __future__ import annotations

from dataclasses import dataclass

from portal.chart_style import axis, category_axis

Domains = tuple[list[float], list[float]]
SIDE_BY_SIDE: Domains = ([0, 0.42], [0.58, 1])  # the x domains of the two panels on one row
STACKED: Domains = ([0.54, 1], [0, 0.46])  # the y domains on a phone: the first panel above, the second below
TITLE_STANDOFF = 8  # px between an axis's tick labels and its title


@dataclass(frozen=True)
class ValuePanel:
    """One panel's value axis: its title, where its range ends, at most how many ticks (None: Plotly's)."""

    title: str
    top: float
    nticks: int | None = None


def value_axes(first: ValuePanel, second: ValuePanel, *, stacked: bool) -> dict[str, dict]:
    """The first panel's axis (x) and the second's (x2): beside each other, or stacked on a phone."""
    first_domain, second_domain = ([0.0, 1.0], [0.0, 1.0]) if stacked else SIDE_BY_SIDE

    def value_axis(panel: ValuePanel, domain: list[float], anchor: str) -> dict:
        ticks = {} if panel.nticks is None else {"nticks": panel.nticks}
        return axis(
            panel.title, domain=domain, anchor=anchor, range=[0, panel.top], standoff=TITLE_STANDOFF, **ticks
        )

    return {
        "xaxis": value_axis(first, first_domain, "y"),
        "xaxis2": value_axis(second, second_domain, "y2" if stacked else "y"),
    }


def stacked_narrow(first: ValuePanel, second: ValuePanel, traces: list[dict]) -> dict:
    """What a phone changes: the traces on the second axis (x2) get their own y axis, under the first's."""
    upper, lower = STACKED
    return {
        "layout": {
            **value_axes(first, second, stacked=True),
            "yaxis": category_axis(domain=upper),
            "yaxis2": category_axis(domain=lower),
        },
        "data": [{"yaxis": "y2"} if trace.get("xaxis") == "x2" else {} for trace in traces],
    }
