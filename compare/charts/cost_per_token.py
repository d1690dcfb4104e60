"""The cost-per-token panel: the full bill divided by the training tokens, in USD per billion tokens."""

from __future__ import annotations

from typing import Any, NamedTuple

from django.utils.translation import gettext as _

from compare.charts.common import (
    bar_words_trace,
    cell,
    central_estimate_shown,
    hover,
    missing_cell,
    no_price,
    offering_bar_height,
    offering_labels,
    offering_row,
    per_billion_tokens,
    table,
    unsized_text,
    usd,
)
from portal.chart_style import (
    BLUE,
    VERMILLION,
    axis,
    base_layout,
    category_axis,
    overlay_pattern,
    plotly_text,
)
from portal.money import active


def _per_billion_title() -> str:
    return _("%(currency)s per billion tokens") % {"currency": active().code}


class _Cost(NamedTuple):
    """One offering's figure: shown currency per billion tokens (None: not sized, infeasible or unpriced),
    whether the bill is complete, whether the figure is the central estimate of an incomplete bill, and what
    to say beside or instead of it."""

    value: float | None
    complete: bool
    estimated: bool
    why: str


def _per_billion_tokens(result: Any) -> _Cost:
    """The figure on the total the comparison shows."""
    if result is None or not result.feasible or no_price(result):
        return _Cost(None, False, False, _("no price") if no_price(result) else unsized_text(result))
    value = per_billion_tokens(result)
    if value is None:
        return _Cost(None, False, False, _("no price"))
    if result.cost_complete:
        return _Cost(value, True, False, "")
    if central_estimate_shown(result):
        return _Cost(value, False, True, _("incomplete: estimate"))
    return _Cost(value, False, False, _("incomplete: lower bound"))


def _cells(cost: _Cost) -> list[dict]:
    if cost.value is None:
        return [missing_cell(cost.why), missing_cell("—")]
    completeness = cell(
        _("complete") if cost.complete else cost.why,
        badge="" if cost.complete else "fail",
        icon="" if cost.complete else "✖",
    )
    return [cell(usd(cost.value), number=True), completeness]


def _bar(offerings: list[Any], costs: list[_Cost]) -> dict:
    """One bar per priced offering, hatched where the bill misses a fee; none (and the words why) for an
    offering without a price or a feasible sizing, never a zero-length "cheapest" bar."""
    labels = offering_labels(offerings)
    text, hovers = [], []
    for o, cost in zip(offerings, costs, strict=True):
        if cost.value is None:
            text.append("")
            hovers.append(hover(labels[o.pk], cost.why))
            continue
        # beside the bar, what the table says: an estimate ("about"), a lower bound, or the complete bill
        if cost.estimated:
            text.append(_("about %(cost)s (estimate)") % {"cost": usd(cost.value)})
        elif not cost.complete:
            text.append(_("%(cost)s (lower bound)") % {"cost": usd(cost.value)})
        else:
            text.append(usd(cost.value))
        words = _("%(cost)s per billion training tokens") % {"cost": usd(cost.value)}
        if cost.estimated:
            words += "; " + _("incomplete bill: unpublished fees at the middle of their typical range")
        elif not cost.complete:
            words += "; " + _("incomplete bill: unpublished fees not included")
        hovers.append(hover(labels[o.pk], words))
    return {
        "type": "bar",
        "orientation": "h",
        "name": _per_billion_title(),
        "x": [cost.value for cost in costs],
        "y": [labels[o.pk] for o in offerings],
        "text": text,
        "textposition": "outside",
        "cliponaxis": False,
        "hovertext": hovers,
        "hoverinfo": "text",
        "marker": overlay_pattern(BLUE, ["" if cost.complete else "/" for cost in costs], 0.35),
    }


def cost_per_token_panel(offerings: list[Any], results: dict[int, Any], workload_label: str) -> dict:
    costs = [_per_billion_tokens(results.get(o.pk)) for o in offerings]
    bar = _bar(offerings, costs)
    priced = [cost.value for cost in costs if cost.value is not None]
    unpriced = [(bar["y"][i], cost.why) for i, cost in enumerate(costs) if cost.value is None]
    words = bar_words_trace(
        [0] * len(unpriced),
        [y for y, _why in unpriced],
        ["✖ " + plotly_text(why) for _y, why in unpriced],
        VERMILLION,
        _("no figure"),
    )
    return {
        "key": "cost-per-token",
        "nav": _("Cost per token"),
        "title": _("Cost per billion training tokens for %(workload)s") % {"workload": workload_label},
        "note": _(
            "Full bill ÷ training tokens, on the total the bill panel shows. Hatched: the bill misses an "
            "unpublished fee; where its range is known the figure takes that fee at the middle of its "
            "typical range (an estimate), else it counts the published lines only (a lower bound). An "
            "offering without a published price has no bar and says “no price”."
        ),
        "figure": {
            "data": [bar, words],
            "layout": base_layout(
                offering_bar_height(offerings, 30),
                xaxis=axis(
                    _per_billion_title(),
                    tickprefix=active().symbol,
                    range=[0, max(priced + [1]) * 1.45],
                ),
                yaxis=category_axis(),
                showlegend=False,
            ),
        },
        "table": table(
            _("%(currency)s per billion training tokens for %(workload)s")
            % {"currency": active().code, "workload": workload_label},
            [_("Offering"), _per_billion_title(), _("Bill")],
            [offering_row(o, _cells(cost)) for o, cost in zip(offerings, costs, strict=True)],
            numeric=(0,),
        ),
    }
