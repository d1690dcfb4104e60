"""Pitfall hidden-fees: storage, egress and traffic left off the headline price (DESIGN section 6).

With a bill (sizing.bill), the unpublished part is a share of it; without one, the unpublished prices
are named.
"""

from __future__ import annotations

import re
from typing import Any

from checks.rules.base import Finding, Msg, Signal, _, claim, joined, merge, percent, to_float
from checks.rules.context import Context
from checks.rules.thresholds import UNPUBLISHED_SHARE_CRITICAL_PCT
from checks.severity import Severity

# The bill's items as the sentence names them (sizing.bill.LINE_ITEM_LABELS in running text), each
# translated where it is shown.
_ITEM_WORDS = {
    "compute": _("compute"),
    "failure_overhead": _("failure and restart overhead"),
    "spares": _("spare nodes"),
    "checkpoint_storage": _("checkpoint storage"),
    "dataset_storage": _("dataset storage"),
    "egress": _("internet egress"),
    "traffic": _("inter-node traffic"),
    "support": _("support"),
    "setup": _("setup fee"),
}


def _items(lines: list[dict[str, Any]]) -> Msg:
    return joined(
        *(_ITEM_WORDS.get(str(line.get("item")), str(line.get("item"))) for line in lines), sep=_(", ")
    )


_FEE_FACTS = {
    "storage_price_usd_per_gb_month": _("checkpoint storage"),
    "egress_price_usd_per_gb": _("egress"),
    "traffic_price_usd_per_gb": _("inter-node traffic"),
}
_FEE_ITEMS = ("checkpoint_storage", "dataset_storage", "egress", "traffic", "support", "setup")
_SEPARATE_RE = re.compile(
    r"billed separately|not included|extra charge|additional (fee|charge)|charged separately", re.I
)


def _usd(line: dict) -> float:
    return to_float(line.get("usd")) or 0.0


def _bill_impact(bill: dict) -> tuple[dict[str, Any], Severity, list[dict]]:
    """The fees' and the unpublished prices' share of the bill, the severity that share earns, and the
    bill lines priced at defaults or not at all."""
    lines = [line for line in bill.get("lines") or [] if isinstance(line, dict)]
    total = to_float(bill.get("total_usd")) or sum(_usd(line) for line in lines)
    fee_lines = [line for line in lines if line.get("item") in _FEE_ITEMS]
    unpriced = [line for line in lines if line.get("usd") is None]
    unpublished = [line for line in lines if line.get("published") is False and line.get("usd") is not None]
    fees = sum(_usd(line) for line in fee_lines)
    hidden = sum(_usd(line) for line in unpublished)
    impact: dict[str, Any] = {}
    if total:
        impact["fees_share_pct"] = percent(fees / total)
        impact["unpublished_share_pct"] = percent(hidden / total)
        impact["unpublished_usd"] = round(hidden, 2)
    impact["bill_complete"] = bool(bill.get("complete")) and not unpriced
    parts: list[str] = []
    if total:
        parts.append(
            _(
                "Fees beyond compute are %(pct)s of the %(total)s bill",
                pct=f"{fees / total:.1%}",
                total=f"${total:,.0f}",
            )
        )
        if unpublished:
            parts.append(
                _(
                    "%(pct)s (%(usd)s) is estimated at default prices because the provider publishes none "
                    "(%(items)s)",
                    pct=f"{hidden / total:.1%}",
                    usd=f"${hidden:,.0f}",
                    items=_items(unpublished),
                )
            )
    if unpriced:
        parts.append(
            _(
                "the bill is incomplete: no price at all for %(items)s",
                items=_items(unpriced),
            )
        )
    impact["text"] = Msg("%(text)s.", text=joined(*parts, sep=_("; "))) if parts else ""
    critical = total and hidden / total * 100 >= UNPUBLISHED_SHARE_CRITICAL_PCT
    return impact, Severity.CRITICAL if critical else Severity.WARNING, unpublished + unpriced


def _unknown_fee_facts(unknown: list[str], unknown_lines: list[dict]) -> list[str]:
    """The fee facts not published, plus those whose bill line is priced at a default or not at all."""
    if not unknown_lines:
        return unknown
    from_bill = {
        name
        for name, words in _FEE_FACTS.items()
        if any(words.split()[-1] in str(line.get("item")) for line in unknown_lines)
    }
    return sorted(set(unknown) | from_bill & set(_FEE_FACTS))


def rule_hidden_fees(ctx: Context) -> list[Finding]:
    """Fires when storage, egress or traffic prices are unpublished or billed extra (share of the bill)."""
    offering = ctx.offering
    signals: list[Signal] = []
    unknown = [name for name in _FEE_FACTS if offering.get(name) is None]
    impact: dict[str, Any] = {}
    bill = ctx.bill if isinstance(ctx.bill, dict) else None
    severity = Severity.WARNING
    if bill:
        impact, severity, unknown_lines = _bill_impact(bill)
        unknown = _unknown_fee_facts(unknown, unknown_lines)
    if unknown:
        signals.append(
            Signal(
                severity,
                _(
                    "Unpublished prices: %(items)s",
                    items=joined(*(_FEE_FACTS[name] for name in unknown), sep=_(", ")),
                ),
                [claim(offering, name) for name in unknown] + [claim(offering, "storage_included_gb")],
                _(
                    "Get written prices for checkpoint storage (per GB-month, with write throughput), egress "
                    "and inter-node/inter-zone traffic before comparing headline GPU-hour prices."
                ),
                impact or {"text": _("Share of the bill unknown until the prices are published.")},
            )
        )
    note = str(offering.get("fees_note") or "")
    if _SEPARATE_RE.search(note):
        signals.append(
            Signal(
                Severity.WARNING,
                _("Some items are billed separately from the GPU price"),
                [claim(offering, "fees_note")],
                _("Ask for the separately billed items as line items in the quote."),
                impact if not unknown else {},
            )
        )
    if not signals and bill and impact.get("unpublished_share_pct"):
        signals.append(
            Signal(
                Severity.WARNING,
                _("Part of the bill uses default prices"),
                [],
                _("Ask for the missing prices."),
                impact,
            )
        )
    return merge("hidden-fees", signals)
