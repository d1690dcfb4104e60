"""The findings panel: the pitfalls the checks found in each offering's published facts, by severity."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _

from checks.display import severity_word, shown_severity
from checks.rules import pitfall_name
from compare.charts.common import cell, offering_labels, offering_row, row_head, stacked_counts_figure, table
from portal.chart_style import SEVERITY_STYLE, patterned, plotly_text

SEVERITIES = ("critical", "warning", "info")


def severity_bar(severity: str, x: list[int], y: list[str], hovertext: list[str]) -> dict:
    """One stack of a findings chart: the severity's icon and word, colour and hatch."""
    display = shown_severity(severity)
    style = SEVERITY_STYLE[severity]
    return {
        "type": "bar",
        "orientation": "h",
        "name": f"{display['icon']} {display['word']}",
        "x": x,
        "y": y,
        "hovertext": hovertext,
        "hoverinfo": "text",
        "marker": patterned(style["color"], style["pattern"]),
    }


def _finding_row(o: Any, finding: Any) -> dict:
    display = shown_severity(finding.severity)
    return {
        "head": row_head(o),
        "href": f"{o.get_absolute_url()}#finding-{finding.code}",
        "cells": [
            cell(display["word"], badge=finding.severity, icon=display["icon"]),
            cell(_(pitfall_name(finding.code))),
            cell(getattr(finding, "shown_title", finding.title)),
        ],
    }


def _traces(offerings: list[Any], codes: dict[int, dict[str, list[str]]]) -> list[dict]:
    labels = offering_labels(offerings)
    traces = []
    for severity in SEVERITIES:
        word = severity_word(severity)
        traces.append(
            severity_bar(
                severity,
                [len(codes[o.pk].get(severity, [])) for o in offerings],
                [labels[o.pk] for o in offerings],
                [
                    f"<b>{labels[o.pk]}</b><br>{word}{_(': ')}"
                    + plotly_text(_(", ").join(codes[o.pk].get(severity, [])) or _("none"))
                    for o in offerings
                ],
            )
        )
    return traces


def findings_panel(offerings: list[Any], findings: list[Any]) -> dict:
    by_id = {o.pk: o for o in offerings}
    codes: dict[int, dict[str, list[str]]] = {o.pk: {s: [] for s in SEVERITIES} for o in offerings}
    rows = []
    for f in findings:
        codes[f.offering_id].setdefault(f.severity, []).append(_(pitfall_name(f.code)))
        rows.append(_finding_row(by_id[f.offering_id], f))
    for o in offerings:
        if not any(codes[o.pk].values()):
            none_found = [
                cell(_("Clear"), badge="pass", icon="✔"),
                cell("—"),
                cell(_("no pitfall found in the published facts")),
            ]
            rows.append(offering_row(o, none_found))
    return {
        "key": "findings",
        "nav": _("Findings"),
        "title": _("Pitfall findings per offering"),
        "note": _(
            "Checks of the published facts and public evidence (checks app). Crossed: critical; "
            "striped: warning; plain: info."
        ),
        "figure": stacked_counts_figure(
            _traces(offerings, codes),
            len(offerings),
            34,
            _("number of findings"),
            dtick=1,
            rangemode="tozero",
        ),
        "table": table(
            _("Findings on the published facts"),
            [_("Offering"), _("Severity"), _("Code"), _("Finding")],
            rows,
            wide=True,  # offering names and findings in words: beside the chart they overflowed at 1366 px
        ),
    }
