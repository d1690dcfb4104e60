"""The busbw panel: bus bandwidth against message size for the public nccl-tests uploads."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _

from benchmarks.selectors import upload_busbw_chart
from compare.charts.common import cell, fmt, offering_labels, row_head, table
from portal.chart_style import DASHES, SERIES, SYMBOLS, axis, base_layout, plotly_text, short


def _run_trace(name: str, run: dict, filename: str, series_index: int, dash_index: int) -> dict:
    """One run's curve: the offering's colour and marker, a dash of its own."""
    hover = [
        f"<b>{name}</b><br>"
        + _("%(size)s bytes: %(busbw)s GB/s busbw") % {"size": f"{size:,}", "busbw": f"{bw:g}"}
        + "<br>"
        + _("%(file)s, lines %(first)s–%(last)s")
        % {"file": plotly_text(filename), "first": run["lines"][0], "last": run["lines"][1]}
        for size, bw in zip(run["sizes"], run["busbw"], strict=False)
    ]
    return {
        "type": "scatter",
        "mode": "lines+markers",
        "name": short(name, 70),
        "x": run["sizes"],
        "y": run["busbw"],
        "line": {"color": SERIES[series_index % len(SERIES)], "dash": DASHES[dash_index % len(DASHES)]},
        "marker": {"symbol": SYMBOLS[series_index % len(SYMBOLS)], "size": 7},
        "hovertext": hover,
        "hoverinfo": "text",
    }


def _run_row(o: Any, upload: Any, run: dict) -> dict:
    peak = max(run["busbw"]) if run["busbw"] else None
    return {
        "head": row_head(o),
        "href": upload.get_absolute_url(),
        "cells": [
            cell(run["name"]),
            cell(upload.original_filename),
            cell(fmt(run["busbw"][-1], 1), number=True),
            cell(fmt(peak, 1), number=True),
            cell(f"{run['sizes'][-1]:,}", number=True),
        ],
    }


def busbw_panel(offerings: list[Any], uploads: list[Any], limit: int = 16) -> dict | None:
    """busbw against message size for the public nccl-style uploads (None: the offerings have none)."""
    labels = offering_labels(offerings)
    index = {o.pk: i for i, o in enumerate(offerings)}
    by_id = {o.pk: o for o in offerings}
    traces: list[dict] = []
    rows: list[dict] = []
    for upload in uploads:
        for run in upload_busbw_chart(upload):
            if len(traces) >= limit:
                break
            name = f"{labels[upload.offering_id]}{_(': ')}{plotly_text(run['name'])}"
            i = index[upload.offering_id]
            traces.append(_run_trace(name, run, upload.original_filename, i, len(traces)))
            rows.append(_run_row(by_id[upload.offering_id], upload, run))
    if not traces:
        return None
    return {
        "key": "busbw",
        "nav": _("busbw vs size"),
        "title": _("Bus bandwidth against message size (uploaded nccl-tests runs)"),
        "note": _(
            "One line per run in the public uploads; claims are judged at the largest sizes, "
            "where the curve flattens."
        ),
        "figure": {
            "data": traces,
            "layout": base_layout(
                440,
                xaxis=axis(_("message size (bytes, log scale)"), type="log", exponentformat="SI"),
                yaxis=axis(_("busbw (GB/s per rank)"), rangemode="tozero"),
                margin={"l": 10, "r": 30, "t": 90, "b": 50},
            ),
        },
        "table": table(
            _("busbw per uploaded run"),
            [
                _("Offering"),
                _("Run"),
                _("File"),
                _("busbw at max size GB/s"),
                _("Peak busbw GB/s"),
                _("Max size bytes"),
            ],
            rows,
            numeric=(2, 3, 4),
        ),
    }
