"""Figures and their tables for the compare and overview pages, built from stored rows (no queries here).

One module per panel; common.py holds the table and label helpers they share, and portal/chart_style.py
how every chart looks (palette, patterns, layout, Plotly text escaping). Text that comes from the catalog
or from uploads is escaped before it goes into a figure: Plotly renders a subset of HTML in labels and
hover text, and a provider named `<script>` must show as text.
"""

from compare.charts.busbw import busbw_panel
from compare.charts.common import (
    bar_height,
    bill_line,
    cell,
    fmt,
    missing_cell,
    offering_labels,
    row_head,
    table,
    usd,
)
from compare.charts.cost import BILL_COLOURS, BILL_ITEMS, bill_items, cost_panel
from compare.charts.cost_per_token import cost_per_token_panel
from compare.charts.cost_time import cost_time_panel, pareto_front
from compare.charts.fault_tolerance import FT_FEATURES, fault_tolerance_panel
from compare.charts.findings import findings_panel
from compare.charts.goodput import goodput_panel
from compare.charts.interconnect import (
    VERDICT_BADGE,
    claimed_inter,
    claimed_intra,
    interconnect_panel,
    latest_verdicts,
    series_max,
)
from compare.charts.overview import (
    FABRIC_LABELS,
    OVERVIEW_FEATURES,
    overview_fabric_panel,
    overview_features_panel,
    overview_findings_panel,
    overview_price_panel,
)
from compare.charts.price_history import price_history_panel
from compare.charts.usable import usable_panel
from portal.chart_style import (
    BLACK,
    BLUE,
    DASHES,
    GREEN,
    ORANGE,
    PATTERNS,
    PURPLE,
    SERIES,
    SEVERITY_STYLE,
    SKY,
    SYMBOLS,
    VERMILLION,
    YELLOW,
    axis,
    base_layout,
    category_axis,
    patterned,
    short,
)

__all__ = [
    "BILL_COLOURS",
    "BILL_ITEMS",
    "BLACK",
    "BLUE",
    "DASHES",
    "FABRIC_LABELS",
    "FT_FEATURES",
    "GREEN",
    "ORANGE",
    "OVERVIEW_FEATURES",
    "PATTERNS",
    "PURPLE",
    "SERIES",
    "SEVERITY_STYLE",
    "SKY",
    "SYMBOLS",
    "VERDICT_BADGE",
    "VERMILLION",
    "YELLOW",
    "axis",
    "bar_height",
    "base_layout",
    "bill_items",
    "bill_line",
    "busbw_panel",
    "category_axis",
    "cell",
    "claimed_inter",
    "claimed_intra",
    "cost_panel",
    "cost_per_token_panel",
    "cost_time_panel",
    "fault_tolerance_panel",
    "findings_panel",
    "fmt",
    "goodput_panel",
    "interconnect_panel",
    "latest_verdicts",
    "missing_cell",
    "offering_labels",
    "overview_fabric_panel",
    "overview_features_panel",
    "overview_findings_panel",
    "overview_price_panel",
    "pareto_front",
    "patterned",
    "price_history_panel",
    "row_head",
    "series_max",
    "short",
    "table",
    "usable_panel",
    "usd",
]
