"""Plain-words summary of a run's winner, derived from the sizing result (not from fixed rules)."""

from __future__ import annotations

from typing import Any

FABRIC = {
    "infiniband": "InfiniBand",
    "roce": "RoCE",
    "efa": "EFA",
    "tcpx": "TCPX",
    "ethernet": "TCP Ethernet",
}
INTRA = {
    "nvswitch": "full-mesh (NVSwitch)",
    "nvlink-mesh": "full-mesh (NVLink)",
    "nvlink-bridge": "NVLink-bridged",
    "pcie": "PCIe-only",
}


def _join(parts: list[str]) -> str:
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def parallelism_words(layout: dict[str, Any]) -> str:
    """E.g. "4-way tensor parallelism, 8 pipeline stages and 12-way data parallelism (3D) with ZeRO-1"."""
    tp, pp, dp = layout.get("tp", 1), layout.get("pp", 1), layout.get("dp", 1)
    cp, ep = layout.get("cp") or 1, layout.get("ep") or 1
    parts = []
    if tp > 1:
        parts.append(f"{tp}-way tensor parallelism")
    if pp > 1:
        parts.append(f"{pp} pipeline stages")
    if cp > 1:
        parts.append(f"{cp}-way context parallelism")
    if ep > 1:
        parts.append(f"{ep}-way expert parallelism")
    if dp > 1:
        parts.append(f"{dp}-way data parallelism")
    if not parts:
        return "a single GPU"
    words = _join(parts)
    if tp > 1 and pp > 1 and dp > 1:
        words += " (3D parallelism)"
    if layout.get("zero"):
        words += f" with ZeRO-{layout['zero']}"
    return words


def winner_sentence(workload_name: str, result: Any) -> str:
    """E.g. "13b fits 1 node of 8 full-mesh (NVSwitch) GPUs on X, using 8-way data parallelism with ZeRO-1:
    20.1 days (deadline 30), $12,345." Every word comes from the result, none from a fixed rule."""
    sizing = result.sizing or {}
    offering = sizing.get("offering") or {}
    if not result.feasible:
        reason = getattr(result, "infeasible_reason", None) or "; ".join(sizing.get("reasons") or [])
        return f"No offering in this run can train {workload_name}: {reason}"
    nodes = result.nodes or 1
    gpus_per_node = offering.get("gpus_per_node") or result.offering.gpus_per_node
    intra = INTRA.get(offering.get("intra_node") or result.offering.intra_node or "", "")
    where = f"{nodes} node{'s' if nodes != 1 else ''} of {gpus_per_node} {intra} GPUs".replace("  ", " ")
    name = result.offering.name + (" (fictional sample)" if result.offering.fictional else "")
    text = f"{workload_name} fits {where} on {name}, using {parallelism_words(result.layout)}"
    fabric_key = offering.get("fabric") or result.offering.fabric
    if nodes > 1 and fabric_key:
        fabric = FABRIC.get(fabric_key, fabric_key)
        text += f", across {'an' if fabric[0] in 'AEIOU' else 'a'} {fabric} fabric"
        gbps = result.offering.gbps_per_nic
        if gbps:
            text += f" at {gbps:g} Gb/s per port"
    text += f": {result.train_days:.1f} days"
    if sizing.get("deadline_days") and sizing.get("meets_deadline"):
        text += f" (deadline {sizing['deadline_days']:g})"
    if result.cost_total_usd is not None:
        text += f", {cost_words(result)}"
    return text + "."


def cost_words(result: Any) -> str:
    """ "$1,234" for a complete bill; the central estimate and its range when some fees are not published."""
    if result.cost_complete:
        return f"${result.cost_total_usd:,.0f}"
    low, high = getattr(result, "cost_low_usd", None), getattr(result, "cost_high_usd", None)
    span = f"${low:,.0f} to ${high:,.0f}" if low is not None and high is not None else "range unknown"
    return f"about ${result.cost_total_usd:,.0f} ({span}: some fees are not published)"


def tokens_text(tokens: float | None) -> str:
    if not tokens:
        return ""
    for scale, unit in ((1e12, "T"), (1e9, "B"), (1e6, "M")):
        if tokens >= scale:
            return f"{tokens / scale:g}{unit}"
    return f"{tokens:g}"
