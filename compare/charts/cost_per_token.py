"""The cost-per-token panel: the full bill divided by the training tokens, in USD per billion tokens."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _

from compare.charts.common import (
    bar_height,
    bar_words_trace,
    cell,
    hover,
    missing_cell,
    no_price,
    offering_labels,
    offering_row,
    per_billion_tokens,
    result_value,
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


def _estimated(result: Any) -> bool:
    """An incomplete bill with a known range: the comparison shows its central estimate, not a lower bound."""
    return (
        not result.cost_complete
        and result_value(result, "cost_low_usd") is not None
        and result_value(result, "cost_high_usd") is not None
    )


def _per_billion_tokens(result: Any) -> tuple[float | None, bool, str]:
    """Shown currency per billion tokens on the total the comparison shows (None: not sized, infeasible or
    unpriced), whether the bill is complete, and what to say beside or instead of a figure."""
    if result is None or not result.feasible or no_price(result):
        return None, False, _("no price") if no_price(result) else unsized_text(result)
    value = per_billion_tokens(result)
    if value is None:
        return None, False, _("no price")
    if result.cost_complete:
        return value, True, ""
    return value, False, _("incomplete: estimate") if _estimated(result) else _("incomplete: lower bound")


def _cells(value: float | None, complete: bool, why: str) -> list[dict]:
    if value is None:
        return [missing_cell(why), missing_cell("—")]
    completeness = cell(
        _("complete") if complete else why,
        badge="" if complete else "fail",
        icon="" if complete else "✖",
    )
    return [cell(usd(value), number=True), completeness]


def _bar(offerings: list[Any], costs: list[tuple[float | None, bool, str]]) -> dict:
    """One bar per priced offering, hatched where the bill misses a fee; none (and the words why) for an
    offering without a price or a feasible sizing, never a zero-length "cheapest" bar."""
    labels = offering_labels(offerings)
    text, hovers = [], []
    for o, (value, complete, why) in zip(offerings, costs, strict=True):
        if value is None:
            text.append("")
            hovers.append(hover(labels[o.pk], why))
            continue
        lower_bound = "" if complete else " " + _("(incomplete bill)")
        text.append(f"{usd(value)}{lower_bound}")
        words = _("%(cost)s per billion training tokens") % {"cost": usd(value)}
        if not complete and why == _("incomplete: estimate"):
            words += "; " + _("incomplete bill: unpublished fees at the middle of their typical range")
        elif not complete:
            words += "; " + _("incomplete bill: unpublished fees not included")
        hovers.append(hover(labels[o.pk], words))
    return {
        "type": "bar",
        "orientation": "h",
        "name": _per_billion_title(),
        "x": [value for value, _complete, _why in costs],
        "y": [labels[o.pk] for o in offerings],
        "text": text,
        "textposition": "outside",
        "cliponaxis": False,
        "hovertext": hovers,
        "hoverinfo": "text",
        "marker": overlay_pattern(BLUE, ["" if complete else "/" for _value, complete, _why in costs], 0.35),
    }


def cost_per_token_panel(offerings: list[Any], results: dict[int, Any], workload_label: str) -> dict:
    costs = [_per_billion_tokens(results.get(o.pk)) for o in offerings]
    bar = _bar(offerings, costs)
    priced = [value for value, _complete, _why in costs if value is not None]
    unpriced = [(bar["y"][i], why) for i, (value, _complete, why) in enumerate(costs) if value is None]
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
                bar_height(len(offerings), 30),
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
            [offering_row(o, _cells(*cost)) for o, cost in zip(offerings, costs, strict=True)],
            numeric=(0,),
        ),
    }
