"""What every compare panel shares: number words, table cells, the table itself, offering labels.

A panel is a dict {key, nav, title, note, figure, table}: the figure is Plotly's plain dicts (drawn by
static/compare/compare.js), the table holds the same numbers for reading and for screen readers.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from portal.chart_style import plotly_text, short


def fmt(value: float | None, digits: int = 0, unit: str = "") -> str:
    if value is None:
        return "not published"
    text = f"{value:,.{digits}f}"
    return f"{text} {unit}".strip()


def usd(value: float | None) -> str:
    return "not published" if value is None else f"${value:,.0f}"


def cell(text: Any, *, number: bool = False, missing: bool = False, badge: str = "", icon: str = "") -> dict:
    cls = " ".join(c for c in ("num" if number else "", "np" if missing else "") if c)
    return {"text": "" if text is None else str(text), "cls": cls, "badge": badge, "icon": icon}


def missing_cell(text: str = "not published") -> dict:
    return cell(text, missing=True)


def table(caption: str, head: list[str], rows: list[dict], numeric: Iterable[int] = ()) -> dict:
    """`rows`: [{"head": row header text, "cells": [cell, ...]}]; `numeric`: column indexes (after the row
    header) that are numbers, for their header's alignment."""
    nums = set(numeric)
    return {
        "caption": caption,
        "wide": len(head) > 4,  # wide tables go under their chart rather than beside it
        "head": [{"text": h, "cls": "num" if i - 1 in nums else ""} for i, h in enumerate(head)],
        "rows": rows,
    }


def bar_height(rows: int, per_row: int = 44) -> int:
    return 150 + per_row * max(rows, 1)


def offering_labels(offerings: list[Any]) -> dict[int, str]:
    """Unique, escaped axis labels "Provider: offering" (the slug is added when two would read the same)."""
    labels: dict[int, str] = {}
    seen: set[str] = set()
    for o in offerings:
        text = short(f"{o.provider.name}: {o.name}")
        if text in seen:
            text = short(f"{o.provider.name}: {o.name}", 30) + f" ({o.slug})"
        seen.add(text)
        labels[o.pk] = plotly_text(text)
    return labels


def row_head(o: Any) -> str:
    return f"{o.provider.name}: {o.name}"


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
