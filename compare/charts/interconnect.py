"""The interconnect panel: bandwidth per GPU inside and across nodes, as claimed and as measured by the
newest public nccl-tests upload."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from compare.charts.common import bar_height, cell, fmt, missing_cell, offering_labels, offering_row, table
from compare.charts.two_panels import ValuePanel, stacked_narrow, value_axes
from hardware import fabric_efficiency
from portal.chart_style import (
    BLUE,
    VERMILLION,
    base_layout,
    category_axis,
    patterned,
    plotly_text,
    short,
)
from providers.names import intra_node_shown, value_names

VERDICT_BADGE = {  # English words, shown in the page's language
    "pass": ("✔", gettext_noop("verified by public evidence")),
    "warn": ("▲", gettext_noop("measured below the claim")),
    "fail": ("✖", gettext_noop("measured far below the claim")),
}
VERDICT_NAMES = {"pass": gettext_noop("pass"), "warn": gettext_noop("warn"), "fail": gettext_noop("fail")}
# Series key: legend name, colour, hatch, x axis (intra-node on the left, inter-node on the right).
SERIES_STYLES = {
    "intra_claimed": (gettext_noop("intra-node, claimed"), BLUE, "", "x"),
    "intra_measured": (gettext_noop("intra-node, measured"), BLUE, "/", "x"),
    "inter_claimed": (gettext_noop("inter-node, claimed"), VERMILLION, "", "x2"),
    "inter_measured": (gettext_noop("inter-node, measured"), VERMILLION, "x", "x2"),
}


def claimed_intra(o: Any) -> tuple[float | None, str]:
    if o.intra_node_gbytes_per_s:
        return float(o.intra_node_gbytes_per_s), _("published by the provider")
    if o.intra_node in ("nvswitch", "nvlink-mesh") and o.gpu is not None and o.gpu.nvlink_gbytes_per_s:
        datasheet = _("GPU datasheet (%(gpu)s); the provider does not publish it") % {"gpu": o.gpu.name}
        return float(o.gpu.nvlink_gbytes_per_s), datasheet
    return None, _("not published")


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
        _("verdict: %(verdict)s") % {"verdict": _(VERDICT_NAMES.get(verdict["verdict"], verdict["verdict"]))}
        + (
            _(" (%(pct)s%% of what the claim leads us to expect)") % {"pct": f"{pct:g}"}
            if pct is not None
            else ""
        ),
        _("busbw %(measured)s GB/s in %(file)s")
        % {"measured": f"{verdict['measured']:g}", "file": short(str(verdict.get("file") or ""), 50)},
        _("uploaded by %(who)s on %(day)s") % {"who": verdict["uploader"], "day": verdict["uploaded"]}
        + (_(", measured %(day)s") % {"day": verdict["measured_on"]} if verdict["measured_on"] else ""),
    ]
    return "<br>".join(plotly_text(p) for p in parts)


def series_max(series: dict[str, dict[str, list]], prefix: str) -> float:
    values = [v for key, s in series.items() if key.startswith(prefix) for v in s["x"] if v]
    return max(values) if values else 1.0


def _claim(o: Any, kind: str) -> tuple[float | None, str]:
    """The claimed GB/s per GPU of `kind` ("intra", "inter") and its hover text, which says its source."""
    if kind == "intra":
        claimed, source = claimed_intra(o)
        return claimed, _("claimed %(value)s (%(kind)s); source: %(source)s") % {
            "value": fmt(claimed, 0, _("GB/s per GPU")),
            "kind": intra_node_shown(o) or _("interconnect not published"),
            "source": source,
        }
    claimed = claimed_inter(o)
    source = (
        _("%(nics)s NICs × %(gbps)s Gb/s ÷ 8 ÷ %(gpus)s GPUs")
        % {"nics": o.nics_per_node, "gbps": f"{o.gbps_per_nic:g}", "gpus": o.gpus_per_node}
        if claimed is not None
        else _("NICs, Gb/s or GPUs per node not published")
    )
    return claimed, _("claimed %(value)s (%(kind)s); %(source)s") % {
        "value": fmt(claimed, 1, _("GB/s per GPU")),
        "kind": value_names("fabric", o.fabric) or _("fabric not published"),
        "source": source,
    }


def _measured(
    kind: str, verdict: dict | None, claimed: float | None, fabric: str | None
) -> tuple[float | None, str, str, dict]:
    """The measured bar (value, text, hover) and its table cell, from the claim's newest verdict."""
    if verdict is None:
        hover = plotly_text(_("no public parsed upload judges this claim"))
        return None, _("no evidence"), hover, missing_cell(_("no public evidence"))
    measured = _measured_per_gpu(kind, verdict, claimed, fabric)
    icon, words = VERDICT_BADGE[verdict["verdict"]]
    pct = verdict.get("percent_of_expected")
    of_expected = ", " + _("%(pct)s%% of expected") % {"pct": f"{pct:g}"} if pct is not None else ""
    table_cell = cell(
        f"{fmt(measured, 1)} ({_(words)}{of_expected})",
        number=True,
        badge=verdict["verdict"],
        icon=icon,
    )
    text = f"{icon} {pct:g}%" if pct is not None else icon
    return measured, text, _evidence_hover(verdict), table_cell


def _add_bar(series: dict[str, list], label: str, value: float | None, text: str, hover: str) -> None:
    series["y"].append(label)
    series["x"].append(value if value is not None else 0)
    series["text"].append(text)
    series["hover"].append(f"<b>{label}</b><br>{hover}")


def _bars_and_rows(offerings: list[Any], uploads: list[Any]) -> tuple[dict[str, dict[str, list]], list[dict]]:
    """The four bar series (SERIES_STYLES keys) and the table rows, claimed then measured per kind."""
    labels = offering_labels(offerings)
    verdicts = latest_verdicts(uploads)
    series: dict[str, dict[str, list]] = {
        key: {"x": [], "y": [], "text": [], "hover": []} for key in SERIES_STYLES
    }
    rows: list[dict] = []
    for o in offerings:
        cells: list[dict] = []
        for kind in ("intra", "inter"):
            claimed, claim_hover = _claim(o, kind)
            text = "" if claimed is not None else _("not published")
            _add_bar(series[f"{kind}_claimed"], labels[o.pk], claimed, text, plotly_text(claim_hover))
            cells.append(
                cell(fmt(claimed, 0 if kind == "intra" else 1), number=True, missing=claimed is None)
            )
            verdict = verdicts.get(o.pk, {}).get(kind)
            measured, text, hover, measured_cell = _measured(kind, verdict, claimed, o.fabric)
            _add_bar(series[f"{kind}_measured"], labels[o.pk], measured, text, hover)
            cells.append(measured_cell)
        rows.append(offering_row(o, cells))
    return series, rows


def _figure(series: dict[str, dict[str, list]], offering_count: int) -> dict:
    traces = [
        {
            "type": "bar",
            "orientation": "h",
            "name": _(name),
            "x": series[key]["x"],
            "y": series[key]["y"],
            "xaxis": xaxis,
            "yaxis": "y",
            "text": series[key]["text"],
            "textposition": "outside",
            "cliponaxis": False,
            "hovertext": series[key]["hover"],
            "hoverinfo": "text",
            "marker": patterned(color, shape),
        }
        for key, (name, color, shape, xaxis) in SERIES_STYLES.items()
    ]
    # intra-node on the left (x), inter-node on the right (x2); stacked on a phone (compare/charts/two_panels)
    panels = (
        ValuePanel(_("intra-node GB/s per GPU"), max(series_max(series, "intra") * 1.35, 1)),
        ValuePanel(_("inter-node GB/s per GPU"), max(series_max(series, "inter") * 1.35, 1)),
    )
    layout = base_layout(
        bar_height(offering_count, 56, series["intra_claimed"]["y"]),
        barmode="group",
        bargap=0.25,
        **value_axes(*panels, stacked=False),
        yaxis=category_axis(),
    )
    return {"data": traces, "layout": layout, "narrow": stacked_narrow(*panels, traces)}


def interconnect_panel(offerings: list[Any], uploads: list[Any]) -> dict:
    series, rows = _bars_and_rows(offerings, uploads)
    return {
        "key": "interconnect",
        "nav": _("Interconnect"),
        "title": _("Interconnect: bandwidth per GPU, claimed and measured"),
        "note": _(
            "Solid bars: what the offering claims (NVLink/xGMI inside a node; NICs × Gb/s ÷ "
            "GPUs across nodes). "
            "Hatched bars: the newest public nccl-tests upload, busbw at the largest message size "
            "(inter-node: the share of the NIC line rate reached). ✔ passes, ▲ falls short, "
            "✖ falls far short."
        ),
        "figure": _figure(series, len(offerings)),
        "table": table(
            _("Bandwidth per GPU in GB/s (one direction), claimed and measured by public evidence"),
            [
                _("Offering"),
                _("Intra-node claimed"),
                _("Intra-node measured"),
                _("Inter-node claimed"),
                _("Inter-node measured"),
            ],
            rows,
            numeric=range(4),
        ),
    }
