"""The usable-GPU panel: the share of contracted GPUs guaranteed healthy, exclusivity and the uptime SLA."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _

from compare.charts.common import (
    bar_words_trace,
    cell,
    fmt,
    hover,
    missing_cell,
    offering_bar_height,
    offering_labels,
    offering_row,
    table,
)
from portal.chart_style import (
    BLACK,
    GREEN,
    PAGE_MUTED_INK,
    WHITE,
    axis,
    base_layout,
    category_axis,
    overlay_pattern,
    plotly_text,
    short,
)

# Hatch of a guarantee bar by exclusivity; anything else (not published) is dotted.
EXCLUSIVITY_HATCH = {"dedicated": "", "shared": "x"}


def _effective_gpus(o: Any, result: Any) -> tuple[float | None, int | None, str]:
    """GPUs guaranteed usable, out of how many, counted on what: the job's GPUs once sized, else a node's."""
    pct = o.usable_gpu_guarantee_pct
    sized = result is not None and result.gpus
    contracted = result.gpus if sized else o.gpus_per_node
    basis = _("GPUs the job needs") if sized else _("GPUs per node")
    effective = round(contracted * pct / 100, 1) if contracted and pct is not None else None
    return effective, contracted, basis


def _guarantee_hover(o: Any, label: str, effective: float | None, contracted: Any, basis: str) -> str:
    exclusivity = o.exclusivity or _("exclusivity not published")
    words = _(
        "usable-GPU guarantee: %(pct)s; %(exclusivity)s; effective usable GPUs: %(effective)s of "
        "%(contracted)s %(basis)s; if missed: %(credit)s"
    ) % {
        "pct": fmt(o.usable_gpu_guarantee_pct, 1, "%"),
        "exclusivity": exclusivity,
        "effective": fmt(effective, 1),
        "contracted": contracted or "?",
        "basis": basis,
        "credit": short(o.usable_gpu_credit or _("not published"), 80),
    }
    return hover(label, words)


def _usable_cells(o: Any, effective: float | None, contracted: Any, basis: str) -> list[dict]:
    pct = o.usable_gpu_guarantee_pct
    return [
        cell(o.exclusivity) if o.exclusivity else missing_cell(),
        cell(fmt(pct, 1, "%"), number=True, missing=pct is None),
        cell(
            _("%(effective)s of %(contracted)s (%(basis)s)")
            % {"effective": fmt(effective, 1), "contracted": contracted, "basis": basis}
            if effective is not None
            else "—",
            number=True,
            missing=effective is None,
        ),
        cell(fmt(o.uptime_sla_pct, 2, "%"), number=True, missing=o.uptime_sla_pct is None),
        cell(
            fmt(o.sla_claim_window_days, 0, _("days")), number=True, missing=o.sla_claim_window_days is None
        ),
        cell(o.usable_gpu_credit) if o.usable_gpu_credit else missing_cell(),
    ]


def _series_and_rows(offerings: list[Any], results: dict[int, Any]) -> tuple[dict[str, dict], list[dict]]:
    """The guarantee bars, the SLA diamonds, the words beside unpublished guarantees, and the rows."""
    labels = offering_labels(offerings)
    guarantee: dict[str, list[Any]] = {"x": [], "y": [], "text": [], "hover": [], "shape": []}
    sla: dict[str, list[Any]] = {"x": [], "y": [], "hover": []}
    unpublished: dict[str, list[Any]] = {"y": [], "text": []}
    rows = []
    for o in offerings:
        label, pct = labels[o.pk], o.usable_gpu_guarantee_pct
        effective, contracted, basis = _effective_gpus(o, results.get(o.pk))
        if pct is None:  # a zero-length bar shows no text of its own
            unpublished["y"].append(label)
            exclusivity = o.exclusivity or _("exclusivity not published")
            unpublished["text"].append(_("no guarantee published") + f" · {plotly_text(exclusivity)}")
        guarantee["y"].append(label)
        guarantee["x"].append(pct if pct is not None else 0)
        guarantee["text"].append(f"{pct:g}%" if pct is not None else _("no guarantee published"))
        guarantee["shape"].append(EXCLUSIVITY_HATCH.get(o.exclusivity or "", "."))
        guarantee["hover"].append(_guarantee_hover(o, label, effective, contracted, basis))
        if o.uptime_sla_pct is not None:
            sla["x"].append(o.uptime_sla_pct)
            sla["y"].append(label)
            sla["hover"].append(
                hover(
                    label,
                    _("uptime SLA %(pct)s%%; claim window %(days)s")
                    % {"pct": f"{o.uptime_sla_pct:g}", "days": fmt(o.sla_claim_window_days, 0, _("days"))},
                )
            )
        rows.append(offering_row(o, _usable_cells(o, effective, contracted, basis)))
    return {"guarantee": guarantee, "sla": sla, "unpublished": unpublished}, rows


def _traces(guarantee: dict[str, list], sla: dict[str, list], unpublished: dict[str, list]) -> list[dict]:
    return [
        {
            "type": "bar",
            "orientation": "h",
            "name": _("usable-GPU guarantee (solid: dedicated; crossed: shared; dotted: not published)"),
            "x": guarantee["x"],
            "y": guarantee["y"],
            "text": guarantee["text"],
            "textposition": "auto",
            "cliponaxis": False,
            "hovertext": guarantee["hover"],
            "hoverinfo": "text",
            "marker": overlay_pattern(GREEN, guarantee["shape"], 0.3),
        },
        {
            "type": "scatter",
            "mode": "markers",
            "name": _("uptime SLA"),
            "x": sla["x"],
            "y": sla["y"],
            "hovertext": sla["hover"],
            "hoverinfo": "text",
            "marker": {"symbol": "diamond", "size": 13, "color": BLACK, "line": {"color": WHITE, "width": 1}},
        },
        bar_words_trace([0] * len(unpublished["y"]), unpublished["y"], unpublished["text"], PAGE_MUTED_INK),
    ]


def usable_panel(offerings: list[Any], results: dict[int, Any]) -> dict:
    series, rows = _series_and_rows(offerings, results)
    return {
        "key": "usable",
        "nav": _("Usable GPUs"),
        "title": _("Usable-GPU guarantee and exclusivity"),
        "note": _(
            "Bars: the share of contracted GPUs the provider guarantees healthy (an unpublished "
            "guarantee is a "
            "zero-length bar, not a zero). Diamonds: the uptime SLA. The table says what happens when "
            "the guarantee is missed."
        ),
        "figure": {
            "data": _traces(**series),
            "layout": base_layout(
                offering_bar_height(offerings, 40),
                xaxis=axis(
                    _("% of contracted GPUs guaranteed usable (bars) · uptime SLA % (diamonds)"),
                    range=[0, 101],
                ),
                yaxis=category_axis(),
            ),
        },
        "table": table(
            _("Usable-GPU guarantee, exclusivity and SLA"),
            [
                _("Offering"),
                _("Exclusivity"),
                _("Guaranteed usable"),
                _("Effective usable GPUs"),
                _("Uptime SLA"),
                _("Claim window"),
                _("If missed"),
            ],
            rows,
            numeric=(1, 2, 3, 4),
        ),
    }
