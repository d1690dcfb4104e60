"""What every compare panel shares: number words, table cells, the table itself, offering labels.

A panel is a dict {key, nav, title, note, figure, table}: the figure is Plotly's plain dicts (drawn by
static/compare/compare.js), the table holds the same numbers for reading and for screen readers.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from decimal import Decimal
from typing import Any

from django.utils.translation import gettext as _

from portal.chart_style import axis, base_layout, category_axis, plotly_text
from portal.money import active, symbol_text
from providers.names import offering_title


def fmt(value: float | None, digits: int = 0, unit: str = "") -> str:
    if value is None:
        return _("not published")
    text = f"{value:,.{digits}f}"
    return f"{text} {unit}".strip()


def money_value(amount_usd: Any) -> float | None:
    """A US-dollar figure of a result or bill in the shown currency (portal.money), as a chart coordinate."""
    return active().chart_value(amount_usd)


def usd(value: float | None) -> str:
    """A figure already in the shown currency (`money_value`) with its symbol: "$1,234" or "¥8,885"."""
    return _("not published") if value is None else symbol_text(active().symbol, Decimal(str(value)), 0)


def money_axis(what: str) -> str:
    """An axis or column title naming the shown currency: "full bill (USD)", "full bill (CNY)"."""
    return _("%(what)s (%(currency)s)") % {"what": what, "currency": active().code}


def cell(text: Any, *, number: bool = False, missing: bool = False, badge: str = "", icon: str = "") -> dict:
    cls = " ".join(c for c in ("num" if number else "", "np" if missing else "") if c)
    return {"text": "" if text is None else str(text), "cls": cls, "badge": badge, "icon": icon}


def missing_cell(text: str | None = None) -> dict:
    return cell(_("not published") if text is None else text, missing=True)


def table(
    caption: str, head: list[str], rows: list[dict], numeric: Iterable[int] = (), wide: bool | None = None
) -> dict:
    """`rows`: [{"head": row header text, "cells": [cell, ...]}]; `numeric`: column indexes (after the row
    header) that are numbers, for their header's alignment; `wide` puts a table of long words under its
    chart whatever its number of columns."""
    nums = set(numeric)
    return {
        "caption": caption,
        "wide": len(head) > 4 if wide is None else wide,  # wide tables go under their chart, not beside it
        "head": [{"text": h, "cls": "num" if i - 1 in nums else ""} for i, h in enumerate(head)],
        "rows": rows,
    }


def count_row(head: str, counts: Iterable[int]) -> dict:
    """A table row of counts headed by a catalog-wide category (a feature, a pitfall): it links nowhere."""
    return {"head": head, "href": "", "cells": [cell(n, number=True) for n in counts]}


LABEL_LINE_PX = 17  # one line of a wrapped 13 px axis label, with Plotly's line spacing


def bar_height(rows: int, per_row: int = 44, labels: Iterable[str] = ()) -> int:
    """A bar chart's height: `per_row` pixels a row, or more where a row's wrapped label (`labels`, lines
    joined by <br>) needs them, so that the labels of neighbouring rows never overlap."""
    lines = max((label.count("<br>") + 1 for label in labels), default=1)
    return 150 + max(per_row, LABEL_LINE_PX * lines + 8) * max(rows, 1)


def offering_bar_height(offerings: list[Any], per_row: int) -> int:
    """`bar_height` of one row per offering, labelled by `offering_labels`."""
    return bar_height(len(offerings), per_row, offering_labels(offerings).values())


def bar_words_trace(x: list[Any], y: list[Any], text: list[str], color: str, name: str | None = None) -> dict:
    """Words written to the right of `x` on the bar rows `y` (why a figure is missing or incomplete): a
    text-only trace, left out of the legend and of the hover."""
    trace: dict[str, Any] = {"type": "scatter", "mode": "text"}
    if name is not None:
        trace["name"] = name
    trace.update(
        {
            "showlegend": False,
            "x": x,
            "y": y,
            "text": text,
            "textposition": "middle right",
            "textfont": {"color": color},
            "cliponaxis": False,
            "hoverinfo": "skip",
        }
    )
    return trace


def stacked_counts_figure(
    traces: list[dict], rows: int, per_row: int, count_title: str, **count_axis: Any
) -> dict:
    """Horizontal bars of counts stacked along each of `rows` category rows (findings by severity,
    features by answer); `count_axis` adds to the count axis."""
    labels = {str(y) for trace in traces for y in trace.get("y") or []}
    return {
        "data": traces,
        "layout": base_layout(
            bar_height(rows, per_row, labels),
            barmode="stack",
            xaxis=axis(count_title, **count_axis),
            yaxis=category_axis(),
        ),
    }


LABEL_LINE = 26  # characters per line of an axis label: long names wrap, they are never cut


def shown_width(text: str) -> int:
    """How many Latin characters' width `text` takes: a Chinese character is drawn about twice as wide."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def wrap(text: str, width: int = LABEL_LINE) -> str:
    """`text` escaped for Plotly and wrapped at spaces into lines of about `width` characters (a Chinese
    character counting as two)."""
    lines: list[str] = []
    for word in text.split():
        if lines and shown_width(lines[-1]) + 1 + shown_width(word) <= width:
            lines[-1] += " " + word
        else:
            lines.append(word)
    return "<br>".join(plotly_text(line) for line in lines)


def offering_labels(offerings: list[Any]) -> dict[int, str]:
    """Unique, escaped axis labels "Provider: offering", whole (wrapped over lines, never truncated; the
    slug is added when two would read the same; fictional samples say so)."""
    labels: dict[int, str] = {}
    seen: set[str] = set()
    for o in offerings:
        text = row_head(o)
        if getattr(o, "fictional", False):
            text += " " + _("(fictional sample)")
        if text in seen:
            text += f" ({o.slug})"
        seen.add(text)
        labels[o.pk] = wrap(text)
    return labels


def result_value(result: Any, name: str) -> Any:
    """A field of a stored or compared result (`cost_low_usd` etc.), None when it does not carry it."""
    if result is None:
        return None
    if isinstance(result, dict):
        return result.get(name)
    return getattr(result, name, None)


def central_estimate_shown(result: Any) -> bool:
    """An incomplete bill with a known range: the comparison shows its central estimate (unknown fees at the
    middle of their typical range), not the published lines' lower bound."""
    return (
        not result.cost_complete
        and result_value(result, "cost_low_usd") is not None
        and result_value(result, "cost_high_usd") is not None
    )


def per_billion_tokens(result: Any) -> float | None:
    """The bill per billion training tokens in the shown currency, on the same total the comparison shows:
    for an incomplete bill with a known range its central estimate (unknown fees at the middle of their
    typical range, as the planner ranks it), else the published lines. None without a figure."""
    bill = (result.bill or {}) if result is not None else {}
    per = money_value(bill.get("usd_per_billion_tokens"))
    total, shown = bill.get("total_usd"), result_value(result, "cost_total_usd")
    if per is None or shown is None or total is None or Decimal(str(total)) <= 0:
        return per
    return per * float(Decimal(str(shown)) / Decimal(str(total)))


def no_price(result: Any) -> bool:
    """Sized and feasible, but the offering publishes no price: shown as "no price", never as zero."""
    return bool(result is not None and result.feasible and result.cost_total_usd is None)


def unsized_text(result: Any) -> str:
    """Why an offering has no figure: not sized, or the reason it cannot train the workload."""
    if result is None:
        return _("not sized")
    compared = result_value(result, "shown_reason") or result_value(result, "reason")
    stored = result_value(result, "shown_infeasible_reason") or result_value(result, "infeasible_reason")
    return compared or stored or _("cannot train it")


def provider_name(provider: Any) -> str:
    """The provider as the page names it (native name beside the English one on a Chinese page)."""
    return str(getattr(provider, "shown_name", None) or provider.name)


def row_head(o: Any) -> str:
    """The provider and the offering as every page names them (Offering.shown_title: the page's colon)."""
    return offering_title(provider_name(o.provider), o.name)


def offering_row(o: Any, cells: list[dict]) -> dict:
    """A table row headed by the offering and linking to its page."""
    return {"head": row_head(o), "href": o.get_absolute_url(), "cells": cells}


def hover(label: str, text: str) -> str:
    """Hover text: the (escaped) offering label in bold over `text`, escaped here."""
    return f"<b>{label}</b><br>" + plotly_text(text)


def bill_line(bill: dict, item: str) -> dict | None:
    """The bill's line of `item` (sizing.bill.LINE_ITEMS), None when the bill has none."""
    for line in bill.get("lines") or []:
        if line.get("item") == item:
            return line
    return None
