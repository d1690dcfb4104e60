"""The full-bill panel: each offering's bill for the workload, stacked by line item."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from compare.charts.common import (
    bar_words_trace,
    bill_line,
    cell,
    central_estimate_shown,
    missing_cell,
    money_axis,
    money_value,
    no_price,
    offering_bar_height,
    offering_labels,
    offering_row,
    per_billion_tokens,
    result_value,
    table,
    unsized_text,
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
)
from portal.money import active

# The chart's stacks: (key, legend name, the bill's line items it sums). The legend names are short on
# purpose (the quote's full names are sizing.bill.LINE_ITEM_LABELS); both storage lines share one stack.
BILL_ITEMS: tuple[tuple[str, Any, tuple[str, ...]], ...] = (
    ("compute", gettext_lazy("compute"), ("compute",)),
    ("failure_overhead", gettext_lazy("failure overhead"), ("failure_overhead",)),
    ("spares", gettext_lazy("spare nodes"), ("spares",)),
    ("storage", gettext_lazy("storage"), ("checkpoint_storage", "dataset_storage")),
    ("egress", gettext_lazy("egress"), ("egress",)),
    ("traffic", gettext_lazy("traffic"), ("traffic",)),
    ("support", gettext_lazy("support"), ("support",)),
    ("setup", gettext_lazy("setup"), ("setup",)),
)
BILL_COLOURS = [BLUE, VERMILLION, ORANGE, GREEN, PURPLE, SKY, YELLOW, BLACK]


def bill_items(bill: dict) -> tuple[dict[str, float | None], list[str]]:
    """The shown currency per chart item (None: some line of it is not published) and the names of the
    missing items."""
    values: dict[str, float | None] = {}
    missing: list[str] = []
    for key, label, items in BILL_ITEMS:
        total: float | None = 0.0
        for item in items:
            line = bill_line(bill, item)
            if line is None:
                continue
            value = money_value(line.get("usd"))
            if value is None:
                total = None
            elif total is not None:
                total += value
        values[key] = total
        if total is None:
            missing.append(str(label))
    return values, missing


def _range(result: Any) -> tuple[float, float] | None:
    """(low, high) of an incomplete bill (known fees only .. unknown fees at their high end), when given."""
    low, high = (
        money_value(result_value(result, "cost_low_usd")),
        money_value(result_value(result, "cost_high_usd")),
    )
    return None if low is None or high is None else (low, high)


def _per_billion_text(result: Any) -> str:
    """The bill per billion tokens on the total the row shows: "about" it where that is an estimate."""
    value = per_billion_tokens(result)
    if value is not None and central_estimate_shown(result):
        return _("about %(cost)s") % {"cost": usd(value)}
    return usd(value)


def _bill_cells(result: Any, values: dict[str, float | None], missing: list[str], plan: str) -> list[dict]:
    total = money_value(result.cost_total_usd) or 0.0
    span = _range(result)
    if span is not None and not result.cost_complete:
        total_text = _("about %(total)s (%(low)s to %(high)s)") % {
            "total": usd(total),
            "low": usd(span[0]),
            "high": usd(span[1]),
        }
    else:
        total_text = usd(total) + ("" if not missing else " " + _("+ unpublished"))
    return [
        cell(usd(values[key]), number=True, missing=values[key] is None) for key, _label, _items in BILL_ITEMS
    ] + [
        cell(
            total_text,
            number=True,
            badge="" if not missing else "fail",
            icon="" if not missing else "✖",
        ),
        cell(_per_billion_text(result), number=True),
        cell(plan),
    ]


def _note(notes: dict[str, list], x: float, label: str, text: str) -> None:
    notes["x"].append(x)
    notes["y"].append(label)
    notes["text"].append(text)


def _stacks_and_rows(
    offerings: list[Any], results: dict[int, Any]
) -> tuple[dict[str, dict[str, list]], dict[str, list], dict[str, list], list[dict]]:
    """Per stack its bars; the notes beside unsized, unpriced, infeasible or incomplete bills; the range
    markers of incomplete bills; table rows."""
    labels = offering_labels(offerings)
    stacks: dict[str, dict[str, list]] = {
        key: {"x": [], "y": [], "hover": []} for key, _label, _items in BILL_ITEMS
    }
    notes: dict[str, list[Any]] = {"x": [], "y": [], "text": []}
    ranges: dict[str, list[Any]] = {"x": [], "y": [], "plus": [], "minus": [], "hover": []}
    rows = []
    for o in offerings:
        r, label = results.get(o.pk), labels[o.pk]
        bill = (r.bill or {}) if r is not None else {}
        if r is None or not r.feasible or not bill.get("lines") or no_price(r):
            text = _("no price: the provider publishes none") if no_price(r) else unsized_text(r)
            _note(notes, 0, label, ("" if no_price(r) else "✖ ") + text)
            rows.append(offering_row(o, [missing_cell(text)] + [missing_cell("—")] * (len(BILL_ITEMS) + 2)))
            continue
        values, missing = bill_items(bill)
        plan = (bill.get("plan") or {}).get("name") or _("no published plan")
        for key, item_label, _items in BILL_ITEMS:
            stacks[key]["x"].append(values[key] or 0)
            stacks[key]["y"].append(label)
            stacks[key]["hover"].append(
                f"<b>{label}</b><br>{plotly_text(item_label)}{_(': ')}{plotly_text(usd(values[key]))}<br>"
                + plotly_text(_("plan: %(plan)s") % {"plan": plan})
                + "<br>"
                + plotly_text(_("source: published prices × the sizing model"))
            )
        total = money_value(r.cost_total_usd) or 0.0
        span = _range(r)
        if span is not None and not r.cost_complete:
            ranges["x"].append(total)
            ranges["y"].append(label)
            ranges["plus"].append(max(0.0, span[1] - total))
            ranges["minus"].append(max(0.0, total - span[0]))
            ranges["hover"].append(
                f"<b>{label}</b><br>"
                + plotly_text(
                    _("bill %(low)s to %(high)s; unpublished: %(missing)s")
                    % {"low": usd(span[0]), "high": usd(span[1]), "missing": _(", ").join(missing)}
                )
            )
        if missing:
            named = _(", ").join(missing[:2]) + (f" +{len(missing) - 2}" if len(missing) > 2 else "")
            _note(
                notes,
                span[1] if span else total,
                label,
                "✖ " + _("incomplete: %(items)s not published") % {"items": named},
            )
        rows.append(offering_row(o, _bill_cells(r, values, missing, plan)))
    return stacks, notes, ranges, rows


def _range_trace(ranges: dict[str, list]) -> dict[str, Any]:
    """The range of each incomplete bill as an error bar around its central estimate."""
    return {
        "type": "scatter",
        "mode": "markers",
        "name": _("range of an incomplete bill"),
        "x": ranges["x"],
        "y": ranges["y"],
        "marker": {"symbol": "line-ns-open", "size": 14, "color": BLACK},
        "error_x": {
            "type": "data",
            "symmetric": False,
            "array": ranges["plus"],
            "arrayminus": ranges["minus"],
            "color": BLACK,
            "thickness": 2,
            "width": 6,
        },
        "hovertext": ranges["hover"],
        "hoverinfo": "text",
    }


def _traces(
    stacks: dict[str, dict[str, list]], notes: dict[str, list], ranges: dict[str, list]
) -> list[dict[str, Any]]:
    traces: list[dict[str, Any]] = [
        {
            "type": "bar",
            "orientation": "h",
            "name": str(item_label),
            "x": stacks[key]["x"],
            "y": stacks[key]["y"],
            "hovertext": stacks[key]["hover"],
            "hoverinfo": "text",
            "marker": patterned(BILL_COLOURS[i], PATTERNS[i % len(PATTERNS)]),
        }
        for i, (key, item_label, _items) in enumerate(BILL_ITEMS)
    ]
    if ranges["x"]:
        traces.append(_range_trace(ranges))
    traces.append(
        bar_words_trace(
            notes["x"], notes["y"], notes["text"], VERMILLION, _("incomplete / infeasible / no price")
        )
    )
    return traces


def cost_panel(offerings: list[Any], results: dict[int, Any], workload_label: str) -> dict:
    stacks, notes, ranges, rows = _stacks_and_rows(offerings, results)
    totals = [x + p for x, p in zip(ranges["x"], ranges["plus"], strict=True)]
    totals += [sum(v) for v in zip(*(stacks[key]["x"] for key, _label, _items in BILL_ITEMS), strict=True)]
    return {
        "key": "cost",
        "nav": _("Full bill"),
        "title": _("Full bill for %(workload)s, by line item") % {"workload": workload_label},
        "note": _(
            "Each bar is the whole bill under the cheapest complete plan: GPU-hours (compute, "
            "failure overhead, spare nodes) plus storage, egress, traffic, support and setup. ✖ marks a "
            "bill missing a fee the provider does not publish; where the bill gives its range, the black bar "
            "spans known fees only to unknown fees at the high end of their typical range, and its tick "
            "marks the total shown (unknown fees at the middle of their range, as the planner ranks it). An "
            "offering without a published price is marked “no price”, never drawn as a zero."
        ),
        "figure": {
            "data": _traces(stacks, notes, ranges),
            "layout": base_layout(
                offering_bar_height(offerings, 40),
                barmode="stack",
                xaxis=axis(
                    money_axis(_("full bill")), tickprefix=active().symbol, range=[0, max(totals + [1]) * 1.6]
                ),
                yaxis=category_axis(),
            ),
        },
        "table": table(
            _("Full bill in %(currency)s for %(workload)s")
            % {"currency": active().code, "workload": workload_label},
            [_("Offering")]
            + [str(label) for _key, label, _items in BILL_ITEMS]
            + [_("Total"), _("per billion tokens"), _("Plan")],
            rows,
            numeric=range(len(BILL_ITEMS) + 2),
        ),
    }
