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


def parallelism_words(layout: dict[str, Any]) -> str:
    parts = []
    tp, pp, dp = layout.get("tp", 1), layout.get("pp", 1), layout.get("dp", 1)
    if tp > 1:
        parts.append(f"tensor parallelism {tp}")
    if pp > 1:
        parts.append(f"{pp} pipeline stages")
    if (layout.get("cp") or 1) > 1:
        parts.append(f"context parallelism {layout['cp']}")
    if (layout.get("ep") or 1) > 1:
        parts.append(f"expert parallelism {layout['ep']}")
    if dp > 1:
        parts.append(f"{dp}-way data parallelism" if parts else "data parallelism")
    words = " + ".join(parts) or "a single GPU"
    if layout.get("zero"):
        words += f" with ZeRO-{layout['zero']}"
    return words


def winner_sentence(workload_name: str, result: Any) -> str:
    """E.g. "13b fits 1 node of 8 full-mesh (NVSwitch) GPUs on X with data parallelism with ZeRO-1"."""
    sizing = result.sizing or {}
    offering = sizing.get("offering") or {}
    if not result.feasible:
        return f"No offering in this run can train {workload_name}: " + "; ".join(sizing.get("reasons") or [])
    nodes = result.nodes or 1
    gpn = offering.get("gpus_per_node") or result.offering.gpus_per_node
    intra = INTRA.get(offering.get("intra_node") or "", "")
    where = f"{nodes} node{'s' if nodes != 1 else ''} of {gpn} {intra} GPUs".replace("  ", " ")
    text = f"{workload_name} fits {where} on {result.offering.name} with {parallelism_words(result.layout)}"
    if nodes > 1 and offering.get("fabric"):
        fabric = FABRIC.get(offering["fabric"], offering["fabric"])
        text += f", across {'an' if fabric[0] in 'AEIOU' else 'a'} {fabric} fabric"
        gbps = result.offering.gbps_per_nic
        if gbps:
            text += f" at {gbps:g} Gb/s per port"
    text += f": {result.train_days:.1f} days"
    if result.cost_total_usd is not None:
        text += f", ${result.cost_total_usd:,.0f}{'' if result.cost_complete else ' (incomplete bill)'}"
    return text + "."


def tokens_text(tokens: float | None) -> str:
    if not tokens:
        return ""
    for scale, unit in ((1e12, "T"), (1e9, "B"), (1e6, "M")):
        if tokens >= scale:
            return f"{tokens / scale:g}{unit}"
    return f"{tokens:g}"
