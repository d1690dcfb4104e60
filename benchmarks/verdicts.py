"""One verdict of measured against claimed, and the bands that judge it (pure, no Django).

benchmarks.compare (collectives, GPUs, NVLink, node health) and benchmarks.compare_fabric (RDMA ports, NIC
functions, perftest) build their verdicts here: pass at PASS_AT % of the expected figure or more, warn from
WARN_AT %, fail below.
"""

from __future__ import annotations

import math
from typing import Any

from hardware import fabric_efficiency
from hardware.messages import Msg, _, joined, sentences
from hardware.numbers import figure_text

PASS_AT = 80.0  # percent of expected
WARN_AT = 50.0
STABILITY_DROP_WARN = 10.0  # percent spread across cycles/intervals


def inter_fraction(facts: dict[str, Any]) -> float:
    """What a healthy fabric of the claimed kind reaches of its line rate (hardware)."""
    return fabric_efficiency(facts.get("fabric"))


def verdict_band(percent: float | None) -> str:
    """pass, warn or fail by the share of the expected figure measured (cannot-measure without one)."""
    if percent is None:
        return "cannot-measure"
    if percent >= PASS_AT:
        return "pass"
    if percent >= WARN_AT:
        return "warn"
    return "fail"


def spread_limit() -> Msg:
    """The stability a repeated measurement is expected to keep, in words."""
    return _("spread at most %(limit)s%%", limit=f"{STABILITY_DROP_WARN:g}")


def verdict_row(
    claim: str,
    expected: Any,
    measured: Any,
    verdict: str,
    detail: str,
    item: dict[str, Any],
    lines: list[int] | None = None,
    percent: float | None = None,
) -> dict[str, Any]:
    """One verdict: `{claim, expected, measured, percent_of_expected, verdict, detail, file, lines}`, with the
    message ids of its words for a page in another language."""
    out = {
        "claim": claim,
        "expected": expected,
        "measured": measured,
        "percent_of_expected": round(percent, 1) if percent is not None else None,
        "verdict": verdict,
        "detail": detail,
        "file": item.get("filename"),
        "lines": lines or [],
    }
    # the claim's and the detail's message ids, for a page in another language (the API leaves them out)
    messages = {
        key: text.as_json()
        for key, text in (
            ("claim", claim),
            ("expected", expected),
            ("measured", measured),
            ("detail", detail),
        )
        if isinstance(text, Msg)
    }
    if messages:
        out["messages"] = messages
    return out


def weakest_host(host: str, count: int) -> Msg:
    """The note naming the host whose report stands for a file of several hosts' (noted)."""
    return _("host %(host)s, the weakest of %(count)s hosts", host=host, count=count)


def noted(row: dict[str, Any], note: str) -> dict[str, Any]:
    """The verdict `row` with `note` before its detail (the detail's message ids too, for a page in another
    language): which host of a file of several stands for it."""
    detail = joined(note, row["detail"], sep=_("; ")) if row["detail"] else note
    out = {**row, "detail": detail}
    if isinstance(detail, Msg):
        out["messages"] = {**row.get("messages", {}), "detail": detail.as_json()}
    return out


def cannot_measure_instead(
    row: dict[str, Any],
    claim: str,
    measured: Any,
    detail: str,
    why: str,
    item: dict[str, Any],
    lines: list[int],
) -> dict[str, Any]:
    """A ratio verdict `row` turned cannot-measure: its detail followed by why the figure cannot be judged
    (its expected value and percent kept, so the page still shows how far it was)."""
    return verdict_row(
        claim,
        row["expected"],
        measured,
        "cannot-measure",
        joined(detail, why, sep=_("; ")),
        item,
        lines,
        row["percent_of_expected"],
    )


def ratio_verdict(
    claim: str,
    expected: float | None,
    measured: float | None,
    detail: str,
    item: dict[str, Any],
    lines: list[int],
) -> dict[str, Any]:
    """A measured figure against the expected one, judged by verdict_band."""
    if expected is None or measured is None or expected <= 0:
        return verdict_row(claim, expected, measured, "cannot-measure", detail, item, lines)
    percent = measured / expected * 100
    return verdict_row(
        claim, round(expected, 2), measured, verdict_band(percent), detail, item, lines, percent
    )


def count_verdict(
    claim: str, expected: Any, measured: Any, item: dict[str, Any], lines: list[int], detail: str = ""
) -> dict[str, Any]:
    """A count (GPUs, NICs, ports) against the claimed one: fewer fails, as many or more passes."""
    if expected is None:
        return verdict_row(
            claim,
            None,
            measured,
            "cannot-measure",
            sentences(_("not published by the offering."), detail)
            if detail
            else _("not published by the offering."),
            item,
            lines,
        )
    if measured is None:
        return verdict_row(
            claim,
            expected,
            None,
            "cannot-measure",
            sentences(_("not shown in this file."), detail) if detail else _("not shown in this file."),
            item,
            lines,
        )
    if measured >= expected:
        return verdict_row(
            claim,
            expected,
            measured,
            "pass",
            detail,
            item,
            lines,
            measured / expected * 100 if expected else None,
        )
    return verdict_row(
        claim,
        expected,
        measured,
        "fail",
        detail,
        item,
        lines,
        measured / expected * 100 if expected else None,
    )


def message_size_text(size: Any) -> str:
    """A message size as a reader takes it in: 16 GiB, 512 MiB, 8 KiB, 100 B (binary units, as nccl-tests
    sweeps powers of two); "?" when not known."""
    if not isinstance(size, int | float) or isinstance(size, bool) or not math.isfinite(size) or size < 0:
        return "?"
    for unit, scale in (("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if size >= scale:
            value = size / scale  # under 1,024: at most two decimals, none trailing
            return f"{figure_text(value, 2)} {unit}"
    return f"{int(size)} B"
