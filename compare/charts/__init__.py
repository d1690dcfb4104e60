"""Figures and their tables for the compare and overview pages, built from stored rows (no queries here).

One module per panel; common.py holds the table and label helpers they share, and portal/chart_style.py
how every chart looks (palette, patterns, layout, Plotly text escaping). Text that comes from the catalog
or from uploads is escaped before it goes into a figure: Plotly renders a subset of HTML in labels and
hover text, and a provider named `<script>` must show as text.
"""

from compare.charts.busbw import busbw_panel
from compare.charts.cost import cost_panel
from compare.charts.cost_per_token import cost_per_token_panel
from compare.charts.cost_time import cost_time_panel
from compare.charts.fault_tolerance import fault_tolerance_panel
from compare.charts.findings import findings_panel
from compare.charts.goodput import goodput_panel
from compare.charts.interconnect import interconnect_panel
from compare.charts.overview import (
    overview_fabric_panel,
    overview_features_panel,
    overview_findings_panel,
    overview_price_panel,
)
from compare.charts.price_history import price_history_panel
from compare.charts.usable import usable_panel

# The panels the pages draw; the helpers stay in their modules (common.py, portal/chart_style.py).
__all__ = [
    "busbw_panel",
    "cost_panel",
    "cost_per_token_panel",
    "cost_time_panel",
    "fault_tolerance_panel",
    "findings_panel",
    "goodput_panel",
    "interconnect_panel",
    "overview_fabric_panel",
    "overview_features_panel",
    "overview_findings_panel",
    "overview_price_panel",
    "price_history_panel",
    "usable_panel",
]
