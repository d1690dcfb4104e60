"""The fault-tolerance panel: what the platform does when a node fails, feature by feature."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from compare.charts.common import cell, offering_bar_height, offering_labels, offering_row, table
from portal.chart_style import (
    PAGE_INK,
    TINT_NO,
    TINT_UNPUBLISHED,
    TINT_YES,
    base_layout,
    category_axis,
    plotly_text,
    short,
)

FT_FEATURES = (  # English labels, shown in the page's language
    ("health_checks", gettext_noop("Detection (health checks)")),
    ("auto_bad_node_detection", gettext_noop("Eviction (bad nodes drained)")),
    ("auto_replacement", gettext_noop("Replacement")),
    ("checkpoint_storage", gettext_noop("Checkpoint storage")),
    ("auto_checkpoint_restart", gettext_noop("Automatic restart")),
    ("spare_node_pool", gettext_noop("Spare-node pool")),
)


def _ft_value(o: Any, key: str) -> tuple[int, str]:
    """(0 no, 1 not published, 2 yes) and the cell text."""
    if key == "checkpoint_storage":
        if o.storage_type:
            return 2, "✔ " + short(o.storage_type, 28)
        return 1, "? " + _("not published")
    value = getattr(o, key)
    text = {True: "✔ " + _("yes"), False: "✖ " + _("no"), None: "? " + _("not published")}[value]
    if key == "auto_replacement" and o.replacement_time_min is not None:
        text += _(", ") + _("%(minutes)s min") % {"minutes": f"{o.replacement_time_min:g}"}
    return {True: 2, False: 0, None: 1}[value], text


def _heatmap(offerings: list[Any], z: list[list[int]], text: list[list[str]]) -> dict:
    labels = offering_labels(offerings)
    return {
        "data": [
            {
                "type": "heatmap",
                "z": z,
                "x": [_(label).replace(" (", "<br>(").replace("（", "<br>（") for _key, label in FT_FEATURES],
                "y": [labels[o.pk] for o in offerings],
                "text": text,
                "texttemplate": "%{text}",
                "textfont": {"size": 12, "color": PAGE_INK},
                "hovertemplate": "%{y}<br>%{x}" + _(": ") + "%{text}<extra></extra>",
                "zmin": 0,
                "zmax": 2,
                "xgap": 3,
                "ygap": 3,
                "showscale": False,
                # no / not published / yes (the icons carry it too)
                "colorscale": [
                    [0, TINT_NO],
                    [0.33, TINT_NO],
                    [0.34, TINT_UNPUBLISHED],
                    [0.66, TINT_UNPUBLISHED],
                    [0.67, TINT_YES],
                    [1, TINT_YES],
                ],
            }
        ],
        "layout": base_layout(
            offering_bar_height(offerings, 34),
            xaxis={"side": "top", "automargin": True, "tickangle": 0},
            yaxis=category_axis(),
            margin={"l": 10, "r": 10, "t": 40, "b": 10},
        ),
    }


def fault_tolerance_panel(offerings: list[Any]) -> dict:
    z, text, rows = [], [], []
    for o in offerings:
        values = [_ft_value(o, key) for key, _label in FT_FEATURES]
        z.append([v for v, _text in values])
        text.append([plotly_text(t) for _value, t in values])
        rows.append(offering_row(o, [cell(t, missing=v == 1) for v, t in values]))
    return {
        "key": "fault-tolerance",
        "nav": _("Fault tolerance"),
        "title": _("Fault tolerance: what the platform does when a node fails"),
        "note": _("✔ yes, ✖ no, ? not published. Replacement shows the published time to get a new node."),
        "figure": _heatmap(offerings, z, text),
        "table": table(
            _("Fault-tolerance features"),
            [_("Offering")] + [_(label) for _key, label in FT_FEATURES],
            rows,
        ),
    }
