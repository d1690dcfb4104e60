"""The overview page's four catalog-wide panels: bandwidth by fabric, price by GPU, features, findings."""

from __future__ import annotations

import statistics
from decimal import Decimal
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop, ngettext

from checks.display import severity_word
from checks.rules import pitfall_name
from compare.charts.common import (
    cell,
    count_row,
    fmt,
    missing_cell,
    stacked_counts_figure,
    table,
)
from compare.charts.findings import SEVERITIES, severity_bar
from hardware import FABRIC_NAMES
from portal.chart_style import (
    GREEN,
    SERIES,
    SYMBOLS,
    UNPUBLISHED_GREY,
    VERMILLION,
    axis,
    base_layout,
    category_axis,
    patterned,
    plotly_text,
    short,
)
from portal.money import active, symbol_text
from providers.facts import FACTS_BY_NAME
from providers.names import offering_title, provider_shown_name

# the hardware's fabric names, and the offerings that publish none last
FABRIC_LABELS: dict[str | None, str] = {fabric: name for fabric, name in FABRIC_NAMES.items()}
FABRIC_LABELS[None] = gettext_noop("not published")
# The features counted across the catalog, each named by its label in the fact registry.
OVERVIEW_FEATURES = (
    "health_checks",
    "auto_bad_node_detection",
    "auto_replacement",
    "auto_checkpoint_restart",
    "spare_node_pool",
    "topology_aware_placement",
)


def _offering_text(row: dict) -> str:
    """The offering as the rest of the page names it (Offering.shown_title: the page's colon, a Chinese
    page's provider by its native name too)."""
    provider = provider_shown_name(row["provider__name"], row.get("provider__native_name"))
    return plotly_text(short(offering_title(provider, row["name"]), 60))


def _stats_cells(values: list[float], digits: int) -> list[dict]:
    if not values:
        return [missing_cell("—")] * 3
    return [cell(fmt(v, digits), number=True) for v in (min(values), statistics.median(values), max(values))]


def _stats_row(head: str, count: int, values: list[float], digits: int, unpublished: int) -> dict:
    """A group's row: how many offerings, min/median/max of the published values, how many unpublished."""
    return {
        "head": head,
        "href": "",
        "cells": [cell(count, number=True)] + _stats_cells(values, digits) + [cell(unpublished, number=True)],
    }


# A box with more offerings than this is drawn from its quartiles alone: the page stays small (and quick to
# draw) whatever the size of the catalog, and the table beside it has the same figures.
POINTS_MAX = 40


def _quartiles(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    q1, median, q3 = statistics.quantiles(ordered, n=4, method="inclusive")
    return {"lowerfence": ordered[0], "q1": q1, "median": median, "q3": q3, "upperfence": ordered[-1]}


def _summary_box(i: int, label: str, values: list[float], *, horizontal: bool) -> dict[str, Any]:
    """A box drawn from precomputed quartiles (min, Q1, median, Q3, max), one hover for the group."""
    stats = _quartiles(values)
    trace: dict[str, Any] = {
        "type": "box",
        "name": label,
        ("y" if horizontal else "x"): [label],
        **{key: [round(value, 2)] for key, value in stats.items()},
        "fillcolor": "rgba(0,0,0,0)",
        "line": {"color": SERIES[i % len(SERIES)], "width": 2},
        "hoverinfo": "x" if horizontal else "y",
    }
    if horizontal:
        trace["orientation"] = "h"
    return trace


def _box_trace(
    i: int, label: str, values: list[float], hover: list[str], *, horizontal: bool, jitter: float
) -> dict[str, Any]:
    """One box of an overview chart with every offering drawn as a marker (series i's colour and symbol);
    past POINTS_MAX offerings, the box alone."""
    if len(values) > POINTS_MAX:
        return _summary_box(i, label, values, horizontal=horizontal)
    value_axis, label_axis = ("x", "y") if horizontal else ("y", "x")
    trace: dict[str, Any] = {
        "type": "box",
        "name": label,
        value_axis: values,
        label_axis: [label] * len(values),
        "boxpoints": "all",
        "jitter": jitter,
        "pointpos": 0,
        "fillcolor": "rgba(0,0,0,0)",
        "line": {"color": SERIES[i % len(SERIES)], "width": 1},
        "marker": {
            "symbol": SYMBOLS[i % len(SYMBOLS)],
            "size": 9,
            "color": SERIES[i % len(SERIES)],
            "opacity": 0.85,
        },
        "hovertext": hover,
        "hoverinfo": "text",
        "hoveron": "points",
    }
    if horizontal:
        trace["orientation"] = "h"
    return trace


def _fabric_groups(rows: list[dict]) -> dict[str | None, dict[str, list]]:
    """Per fabric: inter-node Gb/s per GPU of each offering that publishes it, and those that do not."""
    groups: dict[str | None, dict[str, list]] = {}
    for row in rows:
        nics, gbps, gpus_per_node = row["nics_per_node"], row["gbps_per_nic"], row["gpus_per_node"]
        group = groups.setdefault(row["fabric"], {"x": [], "hover": [], "missing": []})
        if nics and gbps and gpus_per_node:
            value = nics * gbps / gpus_per_node
            group["x"].append(value)
            worked = _("%(nics)s × %(gbps)s Gb/s ÷ %(gpus)s GPUs = %(value)s Gb/s per GPU") % {
                "nics": nics,
                "gbps": f"{gbps:g}",
                "gpus": gpus_per_node,
                "value": f"{value:g}",
            }
            group["hover"].append(f"<b>{_offering_text(row)}</b><br>{plotly_text(worked)}")
        else:
            group["missing"].append(row)
    return groups


def overview_fabric_panel(rows: list[dict]) -> dict:
    groups = _fabric_groups(rows)
    traces, table_rows = [], []
    for i, fabric in enumerate(f for f in FABRIC_LABELS if f in groups):
        group, label = groups[fabric], _(FABRIC_LABELS[fabric])
        unpublished = len(group["missing"])
        table_rows.append(_stats_row(label, len(group["x"]) + unpublished, group["x"], 0, unpublished))
        if group["x"]:
            traces.append(_box_trace(i, label, group["x"], group["hover"], horizontal=True, jitter=0.6))
    return {
        "key": "overview-fabric",
        "title": _("Inter-node bandwidth per GPU, by fabric"),
        "note": _(
            "One marker per offering (a fabric with many offerings shows its box alone: minimum, "
            "quartiles, maximum): GPU-fabric NICs × Gb/s per NIC ÷ GPUs per node. A 100B+ job wants 400 Gb/s "
            "per GPU of RDMA (InfiniBand, RoCE, EFA); TCP Ethernet without RDMA is the classic trap."
        ),
        "figure": {
            "data": traces,
            "layout": base_layout(
                150 + 70 * max(len(traces), 1),
                xaxis=axis(_("inter-node Gb/s per GPU (one direction)"), rangemode="tozero"),
                yaxis=category_axis(),
                showlegend=False,
            ),
        },
        "table": table(
            _("Inter-node Gb/s per GPU by fabric"),
            [
                _("Fabric"),
                _("Offerings"),
                _("Min Gb/s per GPU"),
                _("Median"),
                _("Max"),
                _("Bandwidth not published"),
            ],
            table_rows,
            numeric=range(5),
        ),
    }


def _price_groups(rows: list[dict]) -> dict[str, dict[str, Any]]:
    """Per GPU: the on-demand prices per GPU-hour that are published, and how many are not."""
    groups: dict[str, dict[str, Any]] = {}
    for row in rows:
        gpu = row.get("gpu__name") or row["gpu__key"] or _("GPU not in the table")
        group = groups.setdefault(gpu, {"y": [], "hover": [], "missing": 0})
        if row["on_demand_price"] is None:
            group["missing"] += 1
            continue
        money = active()
        price = money.chart_value(row["on_demand_price"]) or 0.0
        group["y"].append(price)
        group["hover"].append(
            f"<b>{_offering_text(row)}</b><br>"
            + plotly_text(
                _("%(gpu)s: %(price)s per GPU-hour on demand")
                % {"gpu": gpu, "price": symbol_text(money.symbol, Decimal(str(price)), 2)}
            )
        )
    return groups


def overview_price_panel(rows: list[dict]) -> dict:
    traces, table_rows = [], []
    for i, (gpu, group) in enumerate(sorted(_price_groups(rows).items())):
        table_rows.append(_stats_row(gpu, len(group["y"]), group["y"], 2, group["missing"]))
        if group["y"]:
            traces.append(
                _box_trace(i, plotly_text(gpu), group["y"], group["hover"], horizontal=False, jitter=0.5)
            )
    return {
        "key": "overview-price",
        "title": _("On-demand price per GPU-hour, by GPU"),
        "note": _(
            "One marker per offering with a published on-demand price (a GPU with many offerings shows "
            "its box alone); the box spans the middle half. "
            "The price per GPU-hour is not the bill: compare full bills for a workload on the compare page."
        ),
        "figure": {
            "data": traces,
            "layout": base_layout(
                420,
                xaxis={"automargin": True, "type": "category", "title": {"text": "GPU"}},
                yaxis=axis(
                    _("%(currency)s per GPU-hour, on demand") % {"currency": active().code},
                    tickprefix=active().symbol,
                    rangemode="tozero",
                ),
                showlegend=False,
            ),
        },
        "table": table(
            _("On-demand %(currency)s per GPU-hour by GPU") % {"currency": active().code},
            [_("GPU"), _("Priced offerings"), _("Min"), _("Median"), _("Max"), _("Price not published")],
            table_rows,
            numeric=range(5),
        ),
    }


def overview_features_panel(rows: list[dict]) -> dict:
    counts = []
    for key in OVERVIEW_FEATURES:
        values = [row[key] for row in rows]
        label = _(FACTS_BY_NAME[key].label)
        counts.append((label, values.count(True), values.count(False), values.count(None)))
    styles = (
        ("✔ " + _("yes"), GREEN, "", 1),
        ("✖ " + _("no"), VERMILLION, "x", 2),
        ("? " + _("not published"), UNPUBLISHED_GREY, ".", 3),
    )
    traces = [
        {
            "type": "bar",
            "orientation": "h",
            "name": name,
            "x": [c[idx] for c in counts],
            "y": [c[0] for c in counts],
            "text": [c[idx] or "" for c in counts],
            "textposition": "inside",
            "hovertext": [
                ngettext(
                    "%(feature)s: %(n)s offering %(value)s",
                    "%(feature)s: %(n)s offerings %(value)s",
                    int(c[idx]),
                )
                % {"feature": c[0], "n": c[idx], "value": name}
                for c in counts
            ],
            "hoverinfo": "text",
            "marker": patterned(color, shape),
        }
        for name, color, shape, idx in styles
    ]
    return {
        "key": "overview-features",
        "title": _("Fault-tolerance and scheduling features across the catalog"),
        "note": _("How many offerings publish each feature as present, absent, or not at all."),
        "figure": stacked_counts_figure(traces, len(counts), 36, _("offerings")),
        "table": table(
            _("Offerings per feature"),
            [_("Feature"), _("Yes"), _("No"), _("Not published")],
            [count_row(c[0], c[1:]) for c in counts],
            numeric=(0, 1, 2),
        ),
    }


def overview_findings_panel(counts: list[dict]) -> dict:
    codes = sorted({c["code"] for c in counts})
    table_counts = {code: dict.fromkeys(SEVERITIES, 0) for code in codes}
    for c in counts:
        table_counts[c["code"]][c["severity"]] = c["n"]
    traces = []
    for severity in SEVERITIES:
        word = severity_word(severity).lower()
        per_code = [table_counts[code][severity] for code in codes]
        names = [_(pitfall_name(code)) for code in codes]
        hovers = [f"{name}{_(': ')}{n} {word}" for name, n in zip(names, per_code, strict=True)]
        traces.append(severity_bar(severity, per_code, names, hovers))
    return {
        "key": "overview-findings",
        "title": _("Pitfall findings across the catalog, by severity"),
        "note": _("Stored findings on the published facts, one per offering and pitfall."),
        "figure": stacked_counts_figure(
            traces, len(codes), 36, _("offerings with the finding"), rangemode="tozero"
        )
        if codes
        else None,
        "empty": _("No finding is stored yet: the checks run after every catalog change."),
        "table": table(
            _("Findings by pitfall and severity"),
            [_("Pitfall"), _("Critical"), _("Warning"), _("Info")],
            [count_row(_(pitfall_name(code)), table_counts[code].values()) for code in codes],
            numeric=(0, 1, 2),
        ),
    }
