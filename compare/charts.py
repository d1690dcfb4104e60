"""Figures and their tables for the compare and overview pages, built from stored rows (no queries here).

Every panel is a Plotly figure (plain dicts, drawn by static/compare/compare.js) plus a table of the same
numbers. Text that comes from the catalog or from uploads is HTML-escaped before it goes into a figure:
Plotly renders a subset of HTML in labels and hover text, and a provider named `<script>` must show as text.
Colours are Okabe-Ito and every series also differs by pattern, marker or dash (never colour alone).
"""

from __future__ import annotations

import html
import statistics
from collections.abc import Iterable
from decimal import Decimal
from typing import Any

from benchmarks.selectors import upload_busbw_chart
from checks.display import SEVERITY_DISPLAY
from hardware import fabric_efficiency

# Okabe & Ito (2008), "Color Universal Design": distinguishable with every common colour-vision deficiency.
BLUE, VERMILLION, GREEN, ORANGE = "#0072B2", "#D55E00", "#009E73", "#E69F00"
PURPLE, SKY, BLACK, YELLOW = "#CC79A7", "#56B4E9", "#000000", "#F0E442"
GREY = "#8A93A3"
SERIES = [BLUE, VERMILLION, GREEN, ORANGE, PURPLE, SKY, BLACK, "#999999"]
PATTERNS = ["", "/", "x", ".", "\\", "+", "-", "|"]
DASHES = ["solid", "dash", "dot", "dashdot", "longdash", "longdashdot"]
SYMBOLS = ["circle", "square", "diamond", "triangle-up", "x", "cross", "star", "hexagon", "triangle-down"]

SEVERITY_STYLE = {
    "critical": {"color": VERMILLION, "pattern": "x"},
    "warning": {"color": ORANGE, "pattern": "/"},
    "info": {"color": SKY, "pattern": ""},
}
VERDICT_BADGE = {
    "pass": ("✔", "verified by public evidence"),
    "warn": ("▲", "measured below the claim"),
    "fail": ("✖", "measured far below the claim"),
}
FT_FEATURES = (
    ("health_checks", "Detection (health checks)"),
    ("auto_bad_node_detection", "Eviction (bad nodes drained)"),
    ("auto_replacement", "Replacement"),
    ("checkpoint_storage", "Checkpoint storage"),
    ("auto_checkpoint_restart", "Automatic restart"),
    ("spare_node_pool", "Spare-node pool"),
)
BILL_ITEMS = (
    ("compute", "compute", ("compute",)),
    ("failure_overhead", "failure overhead", ("failure_overhead",)),
    ("spares", "spare nodes", ("spares",)),
    ("storage", "storage", ("checkpoint_storage", "dataset_storage")),
    ("egress", "egress", ("egress",)),
    ("traffic", "traffic", ("traffic",)),
    ("support", "support", ("support",)),
    ("setup", "setup", ("setup",)),
)
BILL_COLOURS = [BLUE, VERMILLION, ORANGE, GREEN, PURPLE, SKY, YELLOW, BLACK]


def esc(text: Any) -> str:
    """Text for a Plotly label or hover: `<`, `>` and `&` become entities that Plotly shows literally."""
    return html.escape(str(text), quote=False)


def short(text: str, limit: int = 42) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def num(value: Any) -> float | None:
    if value is None or value == "":
        return None
    return float(Decimal(str(value))) if isinstance(value, str | Decimal) else float(value)


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


def base_layout(height: int, **extra: Any) -> dict:
    layout: dict[str, Any] = {
        "height": height,
        "margin": {"l": 10, "r": 30, "t": 60, "b": 50},
        "font": {
            "family": "system-ui, -apple-system, Segoe UI, Roboto, sans-serif",
            "size": 13,
            "color": "#1d2330",
        },
        # Legend above the plot: below it, it collides with the x-axis title on short charts.
        "legend": {"orientation": "h", "x": 0, "y": 1.01, "yanchor": "bottom", "traceorder": "normal"},
        "hoverlabel": {"align": "left"},
        "paper_bgcolor": "#ffffff",
        "plot_bgcolor": "#ffffff",
    }
    layout.update(extra)
    return layout


def axis(title: str, **extra: Any) -> dict:
    out = {
        "title": {"text": title},
        "automargin": True,
        "gridcolor": "#e3e7ee",
        "zeroline": True,
        "zerolinecolor": "#c9cfda",
    }
    out.update(extra)
    return out


def category_axis(**extra: Any) -> dict:
    out = {"automargin": True, "autorange": "reversed", "type": "category"}
    out.update(extra)
    return out


def bar_height(rows: int, per_row: int = 44) -> int:
    return 150 + per_row * max(rows, 1)


def patterned(color: str, shape: str) -> dict:
    if not shape:
        return {"color": color, "line": {"color": color, "width": 1}}
    return {
        "color": color,
        "line": {"color": color, "width": 1},
        "pattern": {
            "shape": shape,
            "fillmode": "replace",
            "bgcolor": "#ffffff",
            "fgcolor": color,
            "solidity": 0.45,
        },
    }


def offering_labels(offerings: list[Any]) -> dict[int, str]:
    """Unique, escaped axis labels "Provider: offering" (the slug is added when two would read the same)."""
    labels: dict[int, str] = {}
    seen: set[str] = set()
    for o in offerings:
        text = short(f"{o.provider.name}: {o.name}")
        if text in seen:
            text = short(f"{o.provider.name}: {o.name}", 30) + f" ({o.slug})"
        seen.add(text)
        labels[o.pk] = esc(text)
    return labels


def row_head(o: Any) -> str:
    return f"{o.provider.name}: {o.name}"


# --- interconnect ----------------------------------------------------------------------------------------


def claimed_intra(o: Any) -> tuple[float | None, str]:
    if o.intra_node_gbytes_per_s:
        return float(o.intra_node_gbytes_per_s), "published by the provider"
    if o.intra_node in ("nvswitch", "nvlink-mesh") and o.gpu is not None and o.gpu.nvlink_gbytes_per_s:
        return float(
            o.gpu.nvlink_gbytes_per_s
        ), f"GPU datasheet ({o.gpu.key}); the provider does not publish it"
    return None, "not published"


def claimed_inter(o: Any) -> float | None:
    if o.nics_per_node and o.gbps_per_nic and o.gpus_per_node:
        return o.nics_per_node * o.gbps_per_nic / 8 / o.gpus_per_node
    return None


def latest_verdicts(uploads: list[Any]) -> dict[int, dict[str, dict]]:
    """Per offering id, the newest judged verdict of each bandwidth claim ("intra", "inter")."""
    out: dict[int, dict[str, dict]] = {}
    for upload in uploads:  # newest first
        for verdict in upload.verdicts or []:
            if verdict.get("verdict") not in VERDICT_BADGE or not isinstance(
                verdict.get("measured"), int | float
            ):
                continue
            claim = str(verdict.get("claim") or "")
            kind = (
                "intra"
                if claim.startswith("intra-node bandwidth")
                else "inter"
                if claim.startswith("inter-node bandwidth")
                else ""
            )
            if kind and kind not in out.setdefault(upload.offering_id, {}):
                out[upload.offering_id][kind] = {
                    **verdict,
                    "uploader": upload.owner.get_username(),
                    "uploaded": upload.created_at.date().isoformat(),
                    "measured_on": upload.measured_on.isoformat() if upload.measured_on else "",
                    "upload_id": upload.pk,
                }
    return out


def _measured_per_gpu(kind: str, verdict: dict, claimed: float | None, fabric: str | None) -> float | None:
    measured = float(verdict["measured"])
    if kind == "intra":
        return measured  # one node: busbw per rank is the per-GPU NVLink figure
    expected = verdict.get("expected")
    if not claimed or not isinstance(expected, int | float) or not expected:
        return None
    # expected = wire x fraction, so measured/expected x fraction is the share of the wire actually reached
    return round(claimed * measured / expected * fabric_efficiency(fabric), 1)


def _evidence_hover(verdict: dict) -> str:
    pct = verdict.get("percent_of_expected")
    parts = [
        f"verdict: {verdict['verdict']}"
        + (f" ({pct:g}% of what the claim leads us to expect)" if pct is not None else ""),
        f"busbw {verdict['measured']:g} GB/s in {short(str(verdict.get('file') or ''), 50)}",
        f"uploaded by {verdict['uploader']} on {verdict['uploaded']}"
        + (f", measured {verdict['measured_on']}" if verdict["measured_on"] else ""),
    ]
    return "<br>".join(esc(p) for p in parts)


def interconnect_panel(offerings: list[Any], uploads: list[Any]) -> dict:
    labels = offering_labels(offerings)
    verdicts = latest_verdicts(uploads)
    traces: list[dict] = []
    rows: list[dict] = []
    series: dict[str, dict[str, list]] = {
        key: {"x": [], "y": [], "text": [], "hover": []}
        for key in ("intra_claimed", "intra_measured", "inter_claimed", "inter_measured")
    }

    def add(key: str, o: Any, value: float | None, text: str, hover: str) -> None:
        s = series[key]
        s["y"].append(labels[o.pk])
        s["x"].append(value if value is not None else 0)
        s["text"].append(text)
        s["hover"].append(f"<b>{labels[o.pk]}</b><br>{hover}")

    for o in offerings:
        cells: list[dict] = []
        ev = verdicts.get(o.pk, {})
        for kind in ("intra", "inter"):
            if kind == "intra":
                claimed, source = claimed_intra(o)
                claim_hover = esc(
                    f"claimed {fmt(claimed, 0, 'GB/s per GPU')} "
                    f"({o.intra_node or 'interconnect not published'}); source: {source}"
                )
            else:
                claimed = claimed_inter(o)
                source = (
                    f"{o.nics_per_node} NICs × {o.gbps_per_nic:g} Gb/s ÷ 8 ÷ {o.gpus_per_node} GPUs"
                    if claimed is not None
                    else "NICs, Gb/s or GPUs per node not published"
                )
                claim_hover = esc(
                    f"claimed {fmt(claimed, 1, 'GB/s per GPU')} "
                    f"({o.fabric or 'fabric not published'}); {source}"
                )
            add(f"{kind}_claimed", o, claimed, "" if claimed is not None else "not published", claim_hover)
            cells.append(
                cell(fmt(claimed, 0 if kind == "intra" else 1), number=True, missing=claimed is None)
            )
            verdict = ev.get(kind)
            if verdict is None:
                add(
                    f"{kind}_measured",
                    o,
                    None,
                    "no evidence",
                    esc("no public parsed upload judges this claim"),
                )
                cells.append(missing_cell("no public evidence"))
                continue
            measured = _measured_per_gpu(kind, verdict, claimed, o.fabric)
            icon, words = VERDICT_BADGE[verdict["verdict"]]
            pct = verdict.get("percent_of_expected")
            add(
                f"{kind}_measured",
                o,
                measured,
                f"{icon} {pct:g}%" if pct is not None else icon,
                _evidence_hover(verdict),
            )
            cells.append(
                cell(
                    f"{fmt(measured, 1)} ({words}{f', {pct:g}% of expected' if pct is not None else ''})",
                    number=True,
                    badge=verdict["verdict"],
                    icon=icon,
                )
            )
        rows.append({"head": row_head(o), "href": o.get_absolute_url(), "cells": cells})

    styles = {
        "intra_claimed": ("intra-node, claimed", BLUE, "", "x"),
        "intra_measured": ("intra-node, measured", BLUE, "/", "x"),
        "inter_claimed": ("inter-node, claimed", VERMILLION, "", "x2"),
        "inter_measured": ("inter-node, measured", VERMILLION, "x", "x2"),
    }
    for key, (name, color, shape, xaxis) in styles.items():
        s = series[key]
        traces.append(
            {
                "type": "bar",
                "orientation": "h",
                "name": name,
                "x": s["x"],
                "y": s["y"],
                "xaxis": xaxis,
                "yaxis": "y",
                "text": s["text"],
                "textposition": "outside",
                "cliponaxis": False,
                "hovertext": s["hover"],
                "hoverinfo": "text",
                "marker": patterned(color, shape),
            }
        )
    figure = {
        "data": traces,
        "layout": base_layout(
            bar_height(len(offerings), 56),
            barmode="group",
            bargap=0.25,
            xaxis=axis(
                "intra-node GB/s per GPU",
                domain=[0, 0.46],
                range=[0, max(series_max(series, "intra") * 1.35, 1)],
            ),
            xaxis2=axis(
                "inter-node GB/s per GPU",
                domain=[0.54, 1],
                anchor="y",
                range=[0, max(series_max(series, "inter") * 1.35, 1)],
            ),
            yaxis=category_axis(),
        ),
    }
    return {
        "key": "interconnect",
        "nav": "Interconnect",
        "title": "Interconnect: bandwidth per GPU, claimed and measured",
        "note": "Solid bars: what the offering claims (NVLink/xGMI inside a node; NICs × Gb/s ÷ "
        "GPUs across nodes). "
        "Hatched bars: the newest public nccl-tests upload, busbw at the largest message size "
        "(inter-node: the share of the NIC line rate reached). ✔ passes, ▲ falls short, ✖ falls far short.",
        "figure": figure,
        "table": table(
            "Bandwidth per GPU in GB/s (one direction), claimed and measured by public evidence",
            [
                "Offering",
                "Intra-node claimed",
                "Intra-node measured",
                "Inter-node claimed",
                "Inter-node measured",
            ],
            rows,
            numeric=range(4),
        ),
    }


def series_max(series: dict[str, dict[str, list]], prefix: str) -> float:
    values = [v for key, s in series.items() if key.startswith(prefix) for v in s["x"] if v]
    return max(values) if values else 1.0


def busbw_panel(offerings: list[Any], uploads: list[Any], limit: int = 16) -> dict | None:
    """busbw against message size for the public nccl-style uploads (None: the offerings have none)."""
    labels = offering_labels(offerings)
    index = {o.pk: i for i, o in enumerate(offerings)}
    traces: list[dict] = []
    rows: list[dict] = []
    by_id = {o.pk: o for o in offerings}
    for upload in uploads:
        for run in upload_busbw_chart(upload):
            if len(traces) >= limit:
                break
            i = index[upload.offering_id]
            name = f"{labels[upload.offering_id]}: {esc(run['name'])}"
            hover = [
                f"<b>{name}</b><br>{size:,} bytes: {bw:g} GB/s busbw<br>{esc(upload.original_filename)}, "
                f"lines {run['lines'][0]}–{run['lines'][1]}"
                for size, bw in zip(run["sizes"], run["busbw"], strict=False)
            ]
            traces.append(
                {
                    "type": "scatter",
                    "mode": "lines+markers",
                    "name": short(name, 70),
                    "x": run["sizes"],
                    "y": run["busbw"],
                    "line": {"color": SERIES[i % len(SERIES)], "dash": DASHES[len(traces) % len(DASHES)]},
                    "marker": {"symbol": SYMBOLS[i % len(SYMBOLS)], "size": 7},
                    "hovertext": hover,
                    "hoverinfo": "text",
                }
            )
            peak = max(run["busbw"]) if run["busbw"] else None
            rows.append(
                {
                    "head": row_head(by_id[upload.offering_id]),
                    "href": upload.get_absolute_url(),
                    "cells": [
                        cell(run["name"]),
                        cell(upload.original_filename),
                        cell(fmt(run["busbw"][-1], 1), number=True),
                        cell(fmt(peak, 1), number=True),
                        cell(f"{run['sizes'][-1]:,}", number=True),
                    ],
                }
            )
    if not traces:
        return None
    return {
        "key": "busbw",
        "nav": "busbw vs size",
        "title": "Bus bandwidth against message size (uploaded nccl-tests runs)",
        "note": "One line per run in the public uploads; claims are judged at the largest sizes, "
        "where the curve flattens.",
        "figure": {
            "data": traces,
            "layout": base_layout(
                440,
                xaxis=axis("message size (bytes, log scale)", type="log", exponentformat="SI"),
                yaxis=axis("busbw (GB/s per rank)", rangemode="tozero"),
                margin={"l": 10, "r": 30, "t": 90, "b": 50},
            ),
        },
        "table": table(
            "busbw per uploaded run",
            ["Offering", "Run", "File", "busbw at max size GB/s", "Peak busbw GB/s", "Max size bytes"],
            rows,
            numeric=(2, 3, 4),
        ),
    }


# --- usable GPUs -----------------------------------------------------------------------------------------


def usable_panel(offerings: list[Any], results: dict[int, Any]) -> dict:
    labels = offering_labels(offerings)
    guarantee: dict[str, list[Any]] = {"x": [], "y": [], "text": [], "hover": [], "shape": []}
    sla: dict[str, list[Any]] = {"x": [], "y": [], "hover": []}
    unpublished: dict[str, list[Any]] = {"y": [], "text": []}
    rows = []
    for o in offerings:
        pct = o.usable_gpu_guarantee_pct
        result = results.get(o.pk)
        contracted = result.gpus if result is not None and result.gpus else o.gpus_per_node
        basis = "GPUs the job needs" if result is not None and result.gpus else "GPUs per node"
        effective = round(contracted * pct / 100, 1) if contracted and pct is not None else None
        exclusivity = o.exclusivity or "exclusivity not published"
        if pct is None:  # a zero-length bar shows no text of its own
            unpublished["y"].append(labels[o.pk])
            unpublished["text"].append(f"no guarantee published · {esc(exclusivity)}")
        guarantee["y"].append(labels[o.pk])
        guarantee["x"].append(pct if pct is not None else 0)
        guarantee["text"].append(f"{pct:g}%" if pct is not None else "no guarantee published")
        guarantee["shape"].append({"dedicated": "", "shared": "x"}.get(o.exclusivity or "", "."))
        guarantee["hover"].append(
            f"<b>{labels[o.pk]}</b><br>"
            + esc(
                f"usable-GPU guarantee: {fmt(pct, 1, '%')}; {exclusivity}; effective usable GPUs: "
                f"{fmt(effective, 1)} of {contracted or '?'} {basis}; if missed: "
                f"{short(o.usable_gpu_credit or 'not published', 80)}"
            )
        )
        if o.uptime_sla_pct is not None:
            sla["x"].append(o.uptime_sla_pct)
            sla["y"].append(labels[o.pk])
            sla["hover"].append(
                f"<b>{labels[o.pk]}</b><br>"
                + esc(
                    f"uptime SLA {o.uptime_sla_pct:g}%; claim window "
                    f"{fmt(o.sla_claim_window_days, 0, 'days')}"
                )
            )
        rows.append(
            {
                "head": row_head(o),
                "href": o.get_absolute_url(),
                "cells": [
                    cell(o.exclusivity) if o.exclusivity else missing_cell(),
                    cell(fmt(pct, 1, "%"), number=True, missing=pct is None),
                    cell(
                        f"{fmt(effective, 1)} of {contracted} ({basis})" if effective is not None else "—",
                        number=True,
                        missing=effective is None,
                    ),
                    cell(fmt(o.uptime_sla_pct, 2, "%"), number=True, missing=o.uptime_sla_pct is None),
                    cell(
                        fmt(o.sla_claim_window_days, 0, "days"),
                        number=True,
                        missing=o.sla_claim_window_days is None,
                    ),
                    cell(o.usable_gpu_credit) if o.usable_gpu_credit else missing_cell(),
                ],
            }
        )
    traces = [
        {
            "type": "bar",
            "orientation": "h",
            "name": "usable-GPU guarantee (solid: dedicated; crossed: shared; dotted: not published)",
            "x": guarantee["x"],
            "y": guarantee["y"],
            "text": guarantee["text"],
            "textposition": "auto",
            "cliponaxis": False,
            "hovertext": guarantee["hover"],
            "hoverinfo": "text",
            "marker": {
                "color": GREEN,
                "line": {"color": GREEN, "width": 1},
                "pattern": {
                    "shape": guarantee["shape"],
                    "fillmode": "overlay",
                    "fgcolor": "#ffffff",
                    "solidity": 0.3,
                },
            },
        },
        {
            "type": "scatter",
            "mode": "markers",
            "name": "uptime SLA",
            "x": sla["x"],
            "y": sla["y"],
            "hovertext": sla["hover"],
            "hoverinfo": "text",
            "marker": {
                "symbol": "diamond",
                "size": 13,
                "color": BLACK,
                "line": {"color": "#ffffff", "width": 1},
            },
        },
        {
            "type": "scatter",
            "mode": "text",
            "showlegend": False,
            "x": [0] * len(unpublished["y"]),
            "y": unpublished["y"],
            "text": unpublished["text"],
            "textposition": "middle right",
            "textfont": {"color": "#5b6577"},
            "cliponaxis": False,
            "hoverinfo": "skip",
        },
    ]
    return {
        "key": "usable",
        "nav": "Usable GPUs",
        "title": "Usable-GPU guarantee and exclusivity",
        "note": "Bars: the share of contracted GPUs the provider guarantees healthy (an unpublished "
        "guarantee is a "
        "zero-length bar, not a zero). Diamonds: the uptime SLA. The table says what happens when "
        "the guarantee is missed.",
        "figure": {
            "data": traces,
            "layout": base_layout(
                bar_height(len(offerings), 40),
                xaxis=axis(
                    "% of contracted GPUs guaranteed usable (bars) · uptime SLA % (diamonds)", range=[0, 101]
                ),
                yaxis=category_axis(),
            ),
        },
        "table": table(
            "Usable-GPU guarantee, exclusivity and SLA",
            [
                "Offering",
                "Exclusivity",
                "Guaranteed usable",
                "Effective usable GPUs",
                "Uptime SLA",
                "Claim window",
                "If missed",
            ],
            rows,
            numeric=(1, 2, 3, 4),
        ),
    }


# --- fault tolerance -------------------------------------------------------------------------------------


def _ft_value(o: Any, key: str) -> tuple[int, str]:
    """(0 no, 1 not published, 2 yes) and the cell text."""
    if key == "checkpoint_storage":
        if o.storage_type:
            return 2, "✔ " + short(o.storage_type, 28)
        return 1, "? not published"
    value = getattr(o, key)
    text = {True: "✔ yes", False: "✖ no", None: "? not published"}[value]
    if key == "auto_replacement" and o.replacement_time_min is not None:
        text += f", {o.replacement_time_min:g} min"
    return {True: 2, False: 0, None: 1}[value], text


def fault_tolerance_panel(offerings: list[Any]) -> dict:
    labels = offering_labels(offerings)
    z, text, rows = [], [], []
    for o in offerings:
        values = [_ft_value(o, key) for key, _ in FT_FEATURES]
        z.append([v for v, _ in values])
        text.append([esc(t) for _, t in values])
        rows.append(
            {
                "head": row_head(o),
                "href": o.get_absolute_url(),
                "cells": [cell(t, missing=v == 1) for v, t in values],
            }
        )
    figure = {
        "data": [
            {
                "type": "heatmap",
                "z": z,
                "x": [label.replace(" (", "<br>(") for _, label in FT_FEATURES],
                "y": [labels[o.pk] for o in offerings],
                "text": text,
                "texttemplate": "%{text}",
                "textfont": {"size": 12, "color": "#1d2330"},
                "hovertemplate": "%{y}<br>%{x}: %{text}<extra></extra>",
                "zmin": 0,
                "zmax": 2,
                "xgap": 3,
                "ygap": 3,
                "showscale": False,
                # no / not published / yes: tints of Okabe-Ito vermillion, grey, green (icons carry it too)
                "colorscale": [
                    [0, "#F3B998"],
                    [0.33, "#F3B998"],
                    [0.34, "#E6E8EC"],
                    [0.66, "#E6E8EC"],
                    [0.67, "#A3DCC8"],
                    [1, "#A3DCC8"],
                ],
            }
        ],
        "layout": base_layout(
            bar_height(len(offerings), 34),
            xaxis={"side": "top", "automargin": True, "tickangle": 0},
            yaxis=category_axis(),
            margin={"l": 10, "r": 10, "t": 40, "b": 10},
        ),
    }
    return {
        "key": "fault-tolerance",
        "nav": "Fault tolerance",
        "title": "Fault tolerance: what the platform does when a node fails",
        "note": "✔ yes, ✖ no, ? not published. Replacement shows the published time to get a new node.",
        "figure": figure,
        "table": table(
            "Fault-tolerance features",
            ["Offering"] + [label for _, label in FT_FEATURES],
            rows,
        ),
    }


def _line(bill: dict, item: str) -> dict | None:
    for ln in bill.get("lines") or []:
        if ln.get("item") == item:
            return ln
    return None


def goodput_panel(offerings: list[Any], results: dict[int, Any], workload_label: str) -> dict:
    labels = offering_labels(offerings)
    gp: dict[str, list[Any]] = {"x": [], "y": [], "text": [], "hover": []}
    lost: dict[str, list[Any]] = {"x": [], "y": [], "text": [], "hover": []}
    rows = []
    for o in offerings:
        r = results.get(o.pk)
        label = labels[o.pk]
        goodput = (r.sizing or {}).get("goodput") or {} if r is not None else {}
        overhead = _line(r.bill or {}, "failure_overhead") if r is not None else None
        hours = num(overhead.get("quantity")) if overhead else None
        money = num(overhead.get("usd")) if overhead else None
        feasible = r is not None and r.feasible and r.goodput is not None
        pct = r.goodput * 100 if feasible and r is not None and r.goodput is not None else None
        reason = "not sized yet" if r is None else "cannot train this workload"
        gp["y"].append(label)
        gp["x"].append(pct or 0)
        gp["text"].append(f"{pct:.1f}%" if pct is not None else reason)
        gp["hover"].append(
            f"<b>{label}</b><br>"
            + esc(
                f"goodput {fmt(pct, 1, '%')}; {goodput.get('expected_failures', '?')} expected failures; "
                f"job MTBF {goodput.get('mtbf_h', '?')} h; restart {goodput.get('restart_min', '?')} min; "
                f"checkpoint every {goodput.get('checkpoint_interval_min', '?')} min"
            )
            + "<br>source: sizing model (sizing/engine/goodput.py)"
        )
        lost["y"].append(label)
        lost["x"].append(hours or 0)
        lost["text"].append(fmt(hours, 0) if hours is not None and feasible else ("" if feasible else reason))
        lost["hover"].append(
            f"<b>{label}</b><br>"
            + esc(f"{fmt(hours, 0, 'GPU-hours')} lost to failures, restarts and checkpoints; {usd(money)}")
        )
        rows.append(
            {
                "head": row_head(o),
                "href": o.get_absolute_url(),
                "cells": [
                    cell(fmt(pct, 1, "%"), number=True) if pct is not None else missing_cell(reason),
                    cell(goodput.get("expected_failures", "—"), number=True),
                    cell(goodput.get("mtbf_h", "—"), number=True),
                    cell(goodput.get("restart_min", "—"), number=True),
                    cell(fmt(hours, 0), number=True, missing=hours is None),
                    cell(usd(money), number=True, missing=money is None),
                ],
            }
        )
    traces = [
        {
            "type": "bar",
            "orientation": "h",
            "name": "expected goodput",
            "x": gp["x"],
            "y": gp["y"],
            "xaxis": "x",
            "text": gp["text"],
            "textposition": "outside",
            "cliponaxis": False,
            "hovertext": gp["hover"],
            "hoverinfo": "text",
            "marker": patterned(GREEN, ""),
        },
        {
            "type": "bar",
            "orientation": "h",
            "name": "GPU-hours lost to failures",
            "x": lost["x"],
            "y": lost["y"],
            "xaxis": "x2",
            "text": lost["text"],
            "textposition": "outside",
            "cliponaxis": False,
            "hovertext": lost["hover"],
            "hoverinfo": "text",
            "marker": patterned(VERMILLION, "x"),
        },
    ]
    top_lost = max(lost["x"] + [1])
    return {
        "key": "goodput",
        "nav": "Goodput",
        "title": f"Goodput and the cost of failures for {workload_label}",
        "note": "Goodput: the share of wall-clock time spent on useful training after failures, restarts and "
        "checkpoint writes (sizing model). Right: the GPU-hours those failures cost on the chosen layout.",
        "figure": {
            "data": traces,
            "layout": base_layout(
                bar_height(len(offerings), 40),
                xaxis=axis("expected goodput (%)", domain=[0, 0.44], range=[0, 118]),
                xaxis2=axis(
                    "GPU-hours lost to failures", domain=[0.56, 1], anchor="y", range=[0, top_lost * 1.3]
                ),
                yaxis=category_axis(),
            ),
        },
        "table": table(
            f"Goodput and failure cost for {workload_label}",
            [
                "Offering",
                "Goodput",
                "Expected failures",
                "Job MTBF h",
                "Restart min",
                "GPU-hours lost",
                "USD lost",
            ],
            rows,
            numeric=range(6),
        ),
    }


# --- cost --------------------------------------------------------------------------------------------------


def bill_items(bill: dict) -> tuple[dict[str, float | None], list[str]]:
    """USD per chart item (None: some line of it is not published) and the names of the missing items."""
    values: dict[str, float | None] = {}
    missing: list[str] = []
    for key, label, items in BILL_ITEMS:
        total: float | None = 0.0
        for item in items:
            ln = _line(bill, item)
            if ln is None:
                continue
            value = num(ln.get("usd"))
            if value is None:
                total = None
            elif total is not None:
                total += value
        values[key] = total
        if total is None:
            missing.append(label)
    return values, missing


def cost_panel(offerings: list[Any], results: dict[int, Any], workload_label: str) -> dict:
    labels = offering_labels(offerings)
    per_item: dict[str, dict[str, list]] = {key: {"x": [], "y": [], "hover": []} for key, _, _ in BILL_ITEMS}
    notes: dict[str, list[Any]] = {"x": [], "y": [], "text": []}
    rows = []
    totals = []
    for o in offerings:
        r = results.get(o.pk)
        label = labels[o.pk]
        bill = (r.bill or {}) if r is not None else {}
        if r is None or not r.feasible or not bill.get("lines"):
            notes["x"].append(0)
            notes["y"].append(label)
            notes["text"].append("not sized yet" if r is None else "✖ cannot train this workload")
            rows.append(
                {
                    "head": row_head(o),
                    "href": o.get_absolute_url(),
                    "cells": [missing_cell("—")] * (len(BILL_ITEMS) + 3),
                }
            )
            continue
        values, missing = bill_items(bill)
        plan = (bill.get("plan") or {}).get("name") or "no published plan"
        for key, item_label, _ in BILL_ITEMS:
            value = values[key]
            per_item[key]["x"].append(value or 0)
            per_item[key]["y"].append(label)
            per_item[key]["hover"].append(
                f"<b>{label}</b><br>{esc(item_label)}: "
                f"{esc(usd(value))}<br>{esc('plan: ' + plan)}<br>source: published prices × the sizing model"
            )
        total = num(bill.get("total_usd")) or 0.0
        totals.append(total)
        if missing:
            notes["x"].append(total)
            notes["y"].append(label)
            named = ", ".join(missing[:2]) + (f" +{len(missing) - 2}" if len(missing) > 2 else "")
            notes["text"].append(f"✖ incomplete: {named} not published")
        per_btok = num(bill.get("usd_per_billion_tokens"))
        rows.append(
            {
                "head": row_head(o),
                "href": o.get_absolute_url(),
                "cells": [
                    cell(usd(values[key]), number=True, missing=values[key] is None)
                    for key, _, _ in BILL_ITEMS
                ]
                + [
                    cell(
                        usd(total) + ("" if not missing else " + unpublished"),
                        number=True,
                        badge="" if not missing else "fail",
                        icon="" if not missing else "✖",
                    ),
                    cell(usd(per_btok), number=True),
                    cell(plan),
                ],
            }
        )
    traces: list[dict[str, Any]] = [
        {
            "type": "bar",
            "orientation": "h",
            "name": item_label,
            "x": per_item[key]["x"],
            "y": per_item[key]["y"],
            "hovertext": per_item[key]["hover"],
            "hoverinfo": "text",
            "marker": patterned(BILL_COLOURS[i], PATTERNS[i % len(PATTERNS)]),
        }
        for i, (key, item_label, _) in enumerate(BILL_ITEMS)
    ]
    traces.append(
        {
            "type": "scatter",
            "mode": "text",
            "name": "incomplete / infeasible",
            "showlegend": False,
            "x": notes["x"],
            "y": notes["y"],
            "text": notes["text"],
            "textposition": "middle right",
            "textfont": {"color": VERMILLION},
            "cliponaxis": False,
            "hoverinfo": "skip",
        }
    )
    top = max(totals + [1])
    return {
        "key": "cost",
        "nav": "Full bill",
        "title": f"Full bill for {workload_label}, by line item",
        "note": "Each bar is the whole bill under the cheapest complete plan: GPU-hours (compute, "
        "failure overhead, "
        "spare nodes) plus storage, egress, traffic, support and setup. ✖ marks a bill missing a "
        "price the provider "
        "does not publish; it is never counted as zero, so that bar is a lower bound.",
        "figure": {
            "data": traces,
            "layout": base_layout(
                bar_height(len(offerings), 40),
                barmode="stack",
                xaxis=axis("full bill (USD)", tickprefix="$", range=[0, top * 1.6]),
                yaxis=category_axis(),
            ),
        },
        "table": table(
            f"Full bill in USD for {workload_label}",
            ["Offering"] + [label for _, label, _ in BILL_ITEMS] + ["Total", "per billion tokens", "Plan"],
            rows,
            numeric=range(len(BILL_ITEMS) + 2),
        ),
    }


def cost_per_token_panel(offerings: list[Any], results: dict[int, Any], workload_label: str) -> dict:
    labels = offering_labels(offerings)
    x, y, text, hover, shapes, rows = [], [], [], [], [], []
    for o in offerings:
        r = results.get(o.pk)
        bill = (r.bill or {}) if r is not None else {}
        value = num(bill.get("usd_per_billion_tokens")) if r is not None and r.feasible else None
        complete = bool(r is not None and r.cost_complete)
        y.append(labels[o.pk])
        x.append(value or 0)
        shapes.append("" if complete else "/")
        text.append(
            ("$" + f"{value:,.0f}" + ("" if complete else " (lower bound)")) if value is not None else "—"
        )
        hover.append(
            f"<b>{labels[o.pk]}</b><br>"
            + esc(
                f"{usd(value)} per billion training tokens"
                + ("" if complete else "; incomplete bill: lower bound")
            )
        )
        rows.append(
            {
                "head": row_head(o),
                "href": o.get_absolute_url(),
                "cells": [
                    cell(usd(value), number=True, missing=value is None),
                    cell(
                        "complete" if complete else "incomplete: lower bound",
                        badge="" if complete else "fail",
                        icon="" if complete else "✖",
                    )
                    if value is not None
                    else missing_cell("—"),
                ],
            }
        )
    return {
        "key": "cost-per-token",
        "nav": "Cost per token",
        "title": f"Cost per billion training tokens for {workload_label}",
        "note": "Full bill ÷ training tokens. Hatched: the bill misses an unpublished price, so the "
        "figure is a lower bound.",
        "figure": {
            "data": [
                {
                    "type": "bar",
                    "orientation": "h",
                    "name": "USD per billion tokens",
                    "x": x,
                    "y": y,
                    "text": text,
                    "textposition": "outside",
                    "cliponaxis": False,
                    "hovertext": hover,
                    "hoverinfo": "text",
                    "marker": {
                        "color": BLUE,
                        "line": {"color": BLUE, "width": 1},
                        "pattern": {
                            "shape": shapes,
                            "fillmode": "overlay",
                            "fgcolor": "#ffffff",
                            "solidity": 0.35,
                        },
                    },
                }
            ],
            "layout": base_layout(
                bar_height(len(offerings), 30),
                xaxis=axis("USD per billion tokens", tickprefix="$", range=[0, max(x + [1]) * 1.45]),
                yaxis=category_axis(),
                showlegend=False,
            ),
        },
        "table": table(
            f"USD per billion training tokens for {workload_label}",
            ["Offering", "USD per billion tokens", "Bill"],
            rows,
            numeric=(0,),
        ),
    }


def pareto_front(points: list[tuple[float, float, int]]) -> set[int]:
    """Ids of the (days, cost, id) points that no other point beats on both time and cost."""
    front: set[int] = set()
    best = float("inf")
    for _days, cost, pid in sorted(points):
        if cost < best:
            front.add(pid)
            best = cost
    return front


def cost_time_panel(offerings: list[Any], results: dict[int, Any], workload_label: str) -> dict:
    labels = offering_labels(offerings)
    points = []
    for o in offerings:
        r = results.get(o.pk)
        if r is not None and r.feasible and r.train_days is not None and r.cost_total_usd is not None:
            points.append((float(r.train_days), float(r.cost_total_usd), o.pk))
    front = pareto_front(points)
    rows = []
    groups: dict[bool, dict[str, list]] = {
        flag: {"x": [], "y": [], "hover": [], "text": []} for flag in (True, False)
    }
    for days, cost, pid in sorted(points):
        r = results[pid]
        g = groups[pid in front]
        g["x"].append(days)
        g["y"].append(cost)
        g["text"].append(labels[pid] if pid in front else "")
        g["hover"].append(
            f"<b>{labels[pid]}</b><br>"
            + esc(
                f"{days:.1f} days, "
                f"{usd(cost)}{'' if r.cost_complete else ' (incomplete bill: lower bound)'}; "
                f"{r.gpus} GPUs, layout {r.layout_text}"
            )
            + ("<br>on the Pareto front" if pid in front else "")
        )
    by_id = {o.pk: o for o in offerings}
    for o in offerings:
        r = results.get(o.pk)
        if r is None or not r.feasible or r.train_days is None:
            rows.append(
                {
                    "head": row_head(o),
                    "href": o.get_absolute_url(),
                    "cells": [
                        missing_cell("not sized yet" if r is None else "cannot train it"),
                        missing_cell("—"),
                        missing_cell("—"),
                    ],
                }
            )
            continue
        row_cost = float(r.cost_total_usd) if r.cost_total_usd is not None else None
        rows.append(
            {
                "head": row_head(by_id[o.pk]),
                "href": o.get_absolute_url(),
                "cells": [
                    cell(f"{r.train_days:.1f}", number=True),
                    cell(
                        usd(row_cost) + ("" if r.cost_complete or row_cost is None else " (lower bound)"),
                        number=True,
                        missing=row_cost is None,
                    ),
                    cell("✔ on the front" if o.pk in front else "—"),
                ],
            }
        )
    traces = [
        {
            "type": "scatter",
            "mode": "lines+markers+text",
            "name": "Pareto front: no other offering is both faster and cheaper",
            "x": groups[True]["x"],
            "y": groups[True]["y"],
            "text": groups[True]["text"],
            "textposition": "top right",
            "cliponaxis": False,
            "line": {"shape": "hv", "dash": "dash", "color": BLUE, "width": 2},
            "marker": {"symbol": "diamond", "size": 13, "color": BLUE},
            "hovertext": groups[True]["hover"],
            "hoverinfo": "text",
        },
        {
            "type": "scatter",
            "mode": "markers",
            "name": "dominated: another offering is faster and cheaper",
            "x": groups[False]["x"],
            "y": groups[False]["y"],
            "marker": {"symbol": "circle-open", "size": 11, "color": VERMILLION, "line": {"width": 2}},
            "hovertext": groups[False]["hover"],
            "hoverinfo": "text",
        },
    ]
    return {
        "key": "cost-time",
        "nav": "Cost vs time",
        "title": f"Cost against time to train {workload_label}",
        "note": "Down and to the left is better. Diamonds joined by the dashed line are the Pareto front; "
        "every open circle is beaten on both cost and time by some diamond.",
        "figure": {
            "data": traces,
            "layout": base_layout(
                440,
                xaxis=axis(
                    "training time including failures (days)",
                    range=[0, max([p[0] for p in points] + [1]) * 1.35],
                ),
                yaxis=axis(
                    "full bill (USD)", tickprefix="$", range=[0, max([p[1] for p in points] + [1]) * 1.15]
                ),
                margin={"l": 10, "r": 40, "t": 60, "b": 50},
            ),
        },
        "table": table(
            f"Time and cost to train {workload_label}",
            ["Offering", "Days", "Full bill", "Pareto front"],
            rows,
            numeric=(0, 1),
        ),
    }


# --- price history and findings ----------------------------------------------------------------------------


def price_history_panel(offerings: list[Any], points: list[Any]) -> dict | None:
    labels = offering_labels(offerings)
    index = {o.pk: i for i, o in enumerate(offerings)}
    by_id = {o.pk: o for o in offerings}
    plans: dict[int, dict[str, Any]] = {}
    rows = []
    for p in points:
        if p.price_usd_per_gpu_hour is None:
            continue
        when = (p.as_of or p.recorded_at.date()).isoformat()
        entry = plans.setdefault(p.plan_id, {"plan": p.plan, "x": [], "y": [], "hover": []})
        price = float(p.price_usd_per_gpu_hour)
        entry["x"].append(when)
        entry["y"].append(price)
        offering_id = p.plan.offering_id
        entry["hover"].append(
            f"<b>{labels[offering_id]}</b><br>"
            + esc(f"{p.plan.name}: ${price:.2f} per GPU-hour on {when}" + (f"; {p.note}" if p.note else ""))
        )
        rows.append(
            {
                "head": row_head(by_id[offering_id]),
                "href": by_id[offering_id].get_absolute_url(),
                "cells": [
                    cell(p.plan.name),
                    cell(p.plan.kind),
                    cell(when),
                    cell(f"{price:.2f}", number=True),
                ],
            }
        )
    if not plans:
        return None
    traces = []
    for j, entry in enumerate(plans.values()):
        plan = entry["plan"]
        i = index[plan.offering_id]
        traces.append(
            {
                "type": "scatter",
                "mode": "lines+markers",
                "name": short(f"{labels[plan.offering_id]} · {esc(plan.name)}", 70),
                "x": entry["x"],
                "y": entry["y"],
                "line": {"shape": "hv", "color": SERIES[i % len(SERIES)], "dash": DASHES[j % len(DASHES)]},
                "marker": {"symbol": SYMBOLS[i % len(SYMBOLS)], "size": 8},
                "hovertext": entry["hover"],
                "hoverinfo": "text",
            }
        )
    return {
        "key": "price-history",
        "nav": "Price history",
        "title": "Price history of the plans",
        "note": "Every recorded price of every billing plan (history is append-only). Colour and "
        "marker: offering; dash: plan.",
        "figure": {
            "data": traces,
            "layout": base_layout(
                420,
                xaxis=axis("date the price was true", type="date"),
                yaxis=axis("USD per GPU-hour", tickprefix="$", rangemode="tozero"),
                margin={"l": 10, "r": 30, "t": 90, "b": 50},
            ),
        },
        "table": table(
            "Recorded prices in USD per GPU-hour",
            ["Offering", "Plan", "Kind", "As of", "USD per GPU-hour"],
            rows,
            numeric=(3,),
        ),
    }


def findings_panel(offerings: list[Any], findings: list[Any]) -> dict:
    labels = offering_labels(offerings)
    by_id = {o.pk: o for o in offerings}
    counts: dict[int, dict[str, list[str]]] = {
        o.pk: {"critical": [], "warning": [], "info": []} for o in offerings
    }
    rows = []
    for f in findings:
        counts[f.offering_id].setdefault(f.severity, []).append(f.code)
        display = SEVERITY_DISPLAY.get(f.severity, {"icon": "•", "word": f.severity})
        o = by_id[f.offering_id]
        rows.append(
            {
                "head": row_head(o),
                "href": f"{o.get_absolute_url()}#finding-{f.code}",
                "cells": [
                    cell(display["word"], badge=f.severity, icon=display["icon"]),
                    cell(f.code),
                    cell(f.title),
                ],
            }
        )
    for o in offerings:
        if not any(counts[o.pk].values()):
            rows.append(
                {
                    "head": row_head(o),
                    "href": o.get_absolute_url(),
                    "cells": [
                        cell("None", badge="pass", icon="✔"),
                        cell("—"),
                        cell("no pitfall found in the published facts"),
                    ],
                }
            )
    traces = []
    for severity in ("critical", "warning", "info"):
        style = SEVERITY_STYLE[severity]
        display = SEVERITY_DISPLAY[severity]
        traces.append(
            {
                "type": "bar",
                "orientation": "h",
                "name": f"{display['icon']} {display['word']}",
                "x": [len(counts[o.pk].get(severity, [])) for o in offerings],
                "y": [labels[o.pk] for o in offerings],
                "hovertext": [
                    f"<b>{labels[o.pk]}</b><br>{display['word']}: "
                    + esc(", ".join(counts[o.pk].get(severity, [])) or "none")
                    for o in offerings
                ],
                "hoverinfo": "text",
                "marker": patterned(style["color"], style["pattern"]),
            }
        )
    return {
        "key": "findings",
        "nav": "Findings",
        "title": "Pitfall findings per offering",
        "note": "Checks of the published facts and public evidence (checks app). Crossed: critical; "
        "striped: warning; plain: info.",
        "figure": {
            "data": traces,
            "layout": base_layout(
                bar_height(len(offerings), 34),
                barmode="stack",
                xaxis=axis("number of findings", dtick=1, rangemode="tozero"),
                yaxis=category_axis(),
            ),
        },
        "table": table("Findings on the published facts", ["Offering", "Severity", "Code", "Finding"], rows),
    }


# --- overview ---------------------------------------------------------------------------------------------

FABRIC_LABELS = {
    "infiniband": "InfiniBand",
    "roce": "RoCE",
    "efa": "EFA",
    "tcpx": "TCPX",
    "ethernet": "TCP Ethernet (no RDMA)",
    "other": "other",
    None: "not published",
}
OVERVIEW_FEATURES = (
    ("health_checks", "Health checks"),
    ("auto_bad_node_detection", "Automatic bad-node detection"),
    ("auto_replacement", "Automatic node replacement"),
    ("auto_checkpoint_restart", "Automatic checkpoint/restart"),
    ("spare_node_pool", "Spare-node pool"),
    ("topology_aware_placement", "Topology-aware placement"),
)


def _offering_text(row: dict) -> str:
    return esc(short(f"{row['provider__name']}: {row['name']}", 60))


def _stats_cells(values: list[float], digits: int) -> list[dict]:
    if not values:
        return [missing_cell("—")] * 3
    return [cell(fmt(v, digits), number=True) for v in (min(values), statistics.median(values), max(values))]


def _box_trace(
    i: int, label: str, values: list[float], hover: list[str], *, horizontal: bool, jitter: float
) -> dict[str, Any]:
    """One box of an overview chart with every offering drawn as a marker (series i's colour and symbol)."""
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


def overview_fabric_panel(rows: list[dict]) -> dict:
    groups: dict[str | None, dict[str, list]] = {}
    for row in rows:
        nics, gbps, gpn = row["nics_per_node"], row["gbps_per_nic"], row["gpus_per_node"]
        g = groups.setdefault(row["fabric"], {"x": [], "hover": [], "missing": []})
        if nics and gbps and gpn:
            value = nics * gbps / gpn
            g["x"].append(value)
            g["hover"].append(
                f"<b>{_offering_text(row)}</b><br>{nics} × {gbps:g} Gb/s ÷ {gpn} GPUs = {value:g} "
                "Gb/s per GPU"
            )
        else:
            g["missing"].append(row)
    order = [f for f in FABRIC_LABELS if f in groups]
    traces, table_rows = [], []
    for i, fabric in enumerate(order):
        g = groups[fabric]
        label = FABRIC_LABELS[fabric]
        table_rows.append(
            {
                "head": label,
                "href": "",
                "cells": [cell(len(g["x"]) + len(g["missing"]), number=True)]
                + _stats_cells(g["x"], 0)
                + [cell(len(g["missing"]), number=True)],
            }
        )
        if not g["x"]:
            continue
        traces.append(_box_trace(i, label, g["x"], g["hover"], horizontal=True, jitter=0.6))
    return {
        "key": "overview-fabric",
        "title": "Inter-node bandwidth per GPU, by fabric",
        "note": "One marker per offering: GPU-fabric NICs × Gb/s per NIC ÷ GPUs per node. A 100B+ "
        "job wants 400 Gb/s "
        "per GPU of RDMA (InfiniBand, RoCE, EFA); TCP Ethernet without RDMA is the classic trap.",
        "figure": {
            "data": traces,
            "layout": base_layout(
                150 + 70 * max(len(traces), 1),
                xaxis=axis("inter-node Gb/s per GPU (one direction)", rangemode="tozero"),
                yaxis=category_axis(),
                showlegend=False,
            ),
        },
        "table": table(
            "Inter-node Gb/s per GPU by fabric",
            ["Fabric", "Offerings", "Min Gb/s per GPU", "Median", "Max", "Bandwidth not published"],
            table_rows,
            numeric=range(5),
        ),
    }


def overview_price_panel(rows: list[dict]) -> dict:
    groups: dict[str, dict[str, Any]] = {}
    for row in rows:
        gpu = row["gpu__key"] or "GPU not in the table"
        g = groups.setdefault(gpu, {"y": [], "hover": [], "missing": 0})
        if row["on_demand_price"] is None:
            g["missing"] += 1
            continue
        price = float(row["on_demand_price"])
        g["y"].append(price)
        g["hover"].append(f"<b>{_offering_text(row)}</b><br>{esc(gpu)}: ${price:.2f} per GPU-hour on demand")
    traces, table_rows = [], []
    for i, (gpu, g) in enumerate(sorted(groups.items())):
        table_rows.append(
            {
                "head": gpu,
                "href": "",
                "cells": [cell(len(g["y"]), number=True)]
                + _stats_cells(g["y"], 2)
                + [cell(g["missing"], number=True)],
            }
        )
        if not g["y"]:
            continue
        traces.append(_box_trace(i, esc(gpu), g["y"], g["hover"], horizontal=False, jitter=0.5))
    return {
        "key": "overview-price",
        "title": "On-demand price per GPU-hour, by GPU",
        "note": "One marker per offering with a published on-demand price; the box spans the middle half. "
        "The price per GPU-hour is not the bill: compare full bills for a workload on the compare page.",
        "figure": {
            "data": traces,
            "layout": base_layout(
                420,
                xaxis={"automargin": True, "type": "category", "title": {"text": "GPU"}},
                yaxis=axis("USD per GPU-hour, on demand", tickprefix="$", rangemode="tozero"),
                showlegend=False,
            ),
        },
        "table": table(
            "On-demand USD per GPU-hour by GPU",
            ["GPU", "Priced offerings", "Min", "Median", "Max", "Price not published"],
            table_rows,
            numeric=range(5),
        ),
    }


def overview_features_panel(rows: list[dict]) -> dict:
    counts = []
    for key, label in OVERVIEW_FEATURES:
        values = [row[key] for row in rows]
        counts.append((label, values.count(True), values.count(False), values.count(None)))
    styles = (("✔ yes", GREEN, "", 1), ("✖ no", VERMILLION, "x", 2), ("? not published", GREY, ".", 3))
    traces = [
        {
            "type": "bar",
            "orientation": "h",
            "name": name,
            "x": [c[idx] for c in counts],
            "y": [c[0] for c in counts],
            "text": [c[idx] or "" for c in counts],
            "textposition": "inside",
            "hovertext": [f"{c[0]}: {c[idx]} offering{'s' if c[idx] != 1 else ''} {name}" for c in counts],
            "hoverinfo": "text",
            "marker": patterned(color, shape),
        }
        for name, color, shape, idx in styles
    ]
    return {
        "key": "overview-features",
        "title": "Fault-tolerance and scheduling features across the catalog",
        "note": "How many offerings publish each feature as present, absent, or not at all.",
        "figure": {
            "data": traces,
            "layout": base_layout(
                bar_height(len(counts), 36), barmode="stack", xaxis=axis("offerings"), yaxis=category_axis()
            ),
        },
        "table": table(
            "Offerings per feature",
            ["Feature", "Yes", "No", "Not published"],
            [
                {
                    "head": c[0],
                    "href": "",
                    "cells": [cell(c[1], number=True), cell(c[2], number=True), cell(c[3], number=True)],
                }
                for c in counts
            ],
            numeric=(0, 1, 2),
        ),
    }


def overview_findings_panel(counts: list[dict]) -> dict:
    codes = sorted({c["code"] for c in counts})
    table_counts = {code: {"critical": 0, "warning": 0, "info": 0} for code in codes}
    for c in counts:
        table_counts[c["code"]][c["severity"]] = c["n"]
    traces = []
    for severity in ("critical", "warning", "info"):
        style, display = SEVERITY_STYLE[severity], SEVERITY_DISPLAY[severity]
        traces.append(
            {
                "type": "bar",
                "orientation": "h",
                "name": f"{display['icon']} {display['word']}",
                "x": [table_counts[code][severity] for code in codes],
                "y": codes,
                "hovertext": [
                    f"{code}: {table_counts[code][severity]} {display['word'].lower()}" for code in codes
                ],
                "hoverinfo": "text",
                "marker": patterned(style["color"], style["pattern"]),
            }
        )
    return {
        "key": "overview-findings",
        "title": "Pitfall findings across the catalog, by severity",
        "note": "Stored findings on the published facts, one per offering and pitfall.",
        "figure": {
            "data": traces,
            "layout": base_layout(
                bar_height(len(codes), 36),
                barmode="stack",
                xaxis=axis("offerings with the finding", rangemode="tozero"),
                yaxis=category_axis(),
            ),
        }
        if codes
        else None,
        "empty": "No finding is stored yet: the checks run after every catalog change.",
        "table": table(
            "Findings by pitfall and severity",
            ["Pitfall", "Critical", "Warning", "Info"],
            [
                {
                    "head": code,
                    "href": "",
                    "cells": [cell(v, number=True) for v in table_counts[code].values()],
                }
                for code in codes
            ],
            numeric=(0, 1, 2),
        ),
    }
