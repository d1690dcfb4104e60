"""How every chart of the project looks: the palette, patterns, fonts, layout defaults and Plotly text.

Pure: no Django import. The compare and overview pages (compare/charts/) and the quote's charts
(quotes/charts.py) draw with these; a colour or an escaping rule is defined here and nowhere else.
Colours are Okabe-Ito and every series also differs by pattern, marker or dash (never colour alone).
"""

from __future__ import annotations

import html
from decimal import Decimal, InvalidOperation
from typing import Any

# Okabe & Ito (2008), "Color Universal Design": distinguishable with every common colour-vision deficiency.
BLUE, VERMILLION, GREEN, ORANGE = "#0072B2", "#D55E00", "#009E73", "#E69F00"
PURPLE, SKY, BLACK, YELLOW = "#CC79A7", "#56B4E9", "#000000", "#F0E442"
GREY = "#999999"  # the grey that goes with the Okabe-Ito eight
UNPUBLISHED_GREY = "#8A93A3"  # bars counting facts nobody published
WHITE = "#ffffff"
SERIES = [BLUE, VERMILLION, GREEN, ORANGE, PURPLE, SKY, BLACK, GREY]
PATTERNS = ["", "/", "x", ".", "\\", "+", "-", "|"]
DASHES = ["solid", "dash", "dot", "dashdot", "longdash", "longdashdot"]
SYMBOLS = ["circle", "square", "diamond", "triangle-up", "x", "cross", "star", "hexagon", "triangle-down"]

# Severity of a pitfall finding: colour and pattern (the icon and word are the checks app's).
SEVERITY_STYLE = {
    "critical": {"color": VERMILLION, "pattern": "x"},
    "warning": {"color": ORANGE, "pattern": "/"},
    "info": {"color": SKY, "pattern": ""},
}
# Heat-map cells for no / not published / yes: tints of Okabe-Ito vermillion, grey and green.
TINT_NO, TINT_UNPUBLISHED, TINT_YES = "#F3B998", "#E6E8EC", "#A3DCC8"

# Charts on the site's pages: the font stack and ink of static/css/site.css.
PAGE_FONT_FAMILY = "system-ui, -apple-system, Segoe UI, Roboto, sans-serif"
PAGE_INK = "#1d2330"  # site.css --ink
PAGE_MUTED_INK = "#5b6577"  # site.css --muted
PAGE_GRID = "#e3e7ee"
PAGE_ZERO_LINE = "#c9cfda"
# The quote's charts are also drawn by Kaleido into the PDF: fonts the server has (CJK provider names too).
QUOTE_FONT_FAMILY = "DejaVu Sans, Noto Sans CJK SC, sans-serif"
QUOTE_INK = "#1f2937"
QUOTE_GRID = "#e5e7eb"
QUOTE_ZERO_LINE = "#9ca3af"


def plotly_text(text: Any, limit: int | None = None) -> str:
    """Text that Plotly shows literally, cut to `limit` characters (an ellipsis ends a cut text).

    Plotly renders a subset of HTML in labels and hover text: `<`, `>` and `&` become entities, so a
    provider named `<script>` shows as text."""
    text = str(text)
    if limit is not None:
        text = short(text, limit, trim_space=True)
    return html.escape(text, quote=False)


def short(text: str, limit: int = 42, *, trim_space: bool = False) -> str:
    """`text` cut to `limit` characters, the last one an ellipsis (`trim_space`: no space before it)."""
    if len(text) <= limit:
        return text
    kept = text[: limit - 1]
    return (kept.rstrip() if trim_space else kept) + "…"


def to_float(value: Any) -> float | None:
    """A stored number (float, int, Decimal or decimal string) as a float; None for a missing one."""
    if value is None:
        return None
    try:
        return float(Decimal(str(value)))
    except (InvalidOperation, ValueError):
        return None


def white_background() -> dict[str, str]:
    return {"paper_bgcolor": WHITE, "plot_bgcolor": WHITE}


def base_layout(height: int, **extra: Any) -> dict:
    """The layout of a page chart of `height` pixels; `extra` adds or replaces keys."""
    layout: dict[str, Any] = {
        "height": height,
        "margin": {"l": 10, "r": 30, "t": 60, "b": 50},
        "font": {"family": PAGE_FONT_FAMILY, "size": 13, "color": PAGE_INK},
        # Legend above the plot: below it, it collides with the x-axis title on short charts.
        "legend": {"orientation": "h", "x": 0, "y": 1.01, "yanchor": "bottom", "traceorder": "normal"},
        "hoverlabel": {"align": "left"},
        **white_background(),
    }
    layout.update(extra)
    return layout


def axis(title: str, *, standoff: int | None = None, **extra: Any) -> dict:
    """A value axis of a page chart (`standoff`: pixels between its tick labels and its title)."""
    heading: dict[str, Any] = {"text": title} if standoff is None else {"text": title, "standoff": standoff}
    out = {
        "title": heading,
        "automargin": True,
        "gridcolor": PAGE_GRID,
        "zeroline": True,
        "zerolinecolor": PAGE_ZERO_LINE,
    }
    out.update(extra)
    return out


def category_axis(**extra: Any) -> dict:
    """A category axis read top to bottom in the order the rows were given."""
    out = {"automargin": True, "autorange": "reversed", "type": "category"}
    out.update(extra)
    return out


def patterned(color: str, shape: str) -> dict:
    """A bar marker of `color` with a hatch `shape` ("" for solid) drawn on white."""
    if not shape:
        return {"color": color, "line": {"color": color, "width": 1}}
    return {
        "color": color,
        "line": {"color": color, "width": 1},
        "pattern": {
            "shape": shape,
            "fillmode": "replace",
            "bgcolor": WHITE,
            "fgcolor": color,
            "solidity": 0.45,
        },
    }


def overlay_pattern(color: str, shapes: list[str], solidity: float) -> dict:
    """A bar marker of `color` with a white hatch per bar (`shapes`, "" for solid) laid over it."""
    return {
        "color": color,
        "line": {"color": color, "width": 1},
        "pattern": {"shape": shapes, "fillmode": "overlay", "fgcolor": WHITE, "solidity": solidity},
    }
