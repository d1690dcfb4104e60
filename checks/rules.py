"""Pitfall rules: the traps of DESIGN section 6, checked against claims, the sizing model and evidence.

Pure Python (no Django, no Celery). Every rule takes the offering facts dict (docs/FACTS.md), the optional
workload and sizing result (DESIGN section 5) and the parsed evidence items, and returns at most one
`Finding` per code: the signals a rule sees (a claim, an upload, a model number) are merged into one
finding whose severity is the worst signal's, so the UI shows one line per trap with all its evidence.

Every threshold is a module constant that cites its source. docs/CHECKS.md lists the rules, thresholds
and impact formulas. Inputs are read defensively (`.get`): parsers and the sizing engine evolve in
parallel, and `None` in the facts means "not published", which is itself worth saying.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from hardware import (
    GPU,
    GPUS,
    NODES_PER_LEAF,
    PCIE_GEN5_PRACTICAL_GBYTES_PER_S,
    fabric_efficiency,
    gpu_from_text,
    intra_node_busbw_efficiency,
)
from hardware.reliability import DEFAULT_FAILURE_RATE_PER_GPU_HOUR

SEVERITIES = ("critical", "warning", "info")
_SEVERITY_RANK = {"critical": 0, "warning": 1, "info": 2}

# --- Reference constants (each cites its source) ---------------------------------------------------

# The default failure rate is hardware.reliability's (Llama 3, calibration.md section 4), as in the model.
# "More than a few" expected failures (DESIGN section 6). Llama 3 needed manual work for 3 of 466
# interruptions; past ~3 a manual-only recovery process is the normal case, not the exception.
FAILURES_CRITICAL = 3.0
# Restart after a failure. Automatic detect-and-replace: minutes (DESIGN section 5); we take 15 min
# (Crusoe health checks every 5 min + requeue, provider-catalog.md section 2). Manual ticket: hours
# (OPT-175B chronicles: replacement through the cloud API "can take hours", calibration.md section 4);
# we take 4 h as the middle of "hours" including someone noticing the hang out of office hours.
AUTO_RESTART_MIN = 15.0
MANUAL_RESTART_H = 4.0
# Checkpoint write time used for Young's interval when the sizing result gives none: 5 min, the
# test-vector delta of calibration.md section 4.
DEFAULT_CHECKPOINT_WRITE_MIN = 5.0

# Reference job when no workload is given: the portal exists for 100B+ training (DESIGN section 1),
# 2T tokens as in DESIGN section 1's example, at 40% MFU (Megatron-Core H100 weak scaling reports
# 41-48%, calibration.md section 2), on 1,024 GPUs (a typical 100B run: ~34 days at that MFU).
REFERENCE_PARAMS = 100e9
REFERENCE_TOKENS = 2e12
REFERENCE_MFU = 0.40
REFERENCE_GPUS = 1024

# Seed thresholds of DESIGN section 6: under 30B one node; 30-70B >= 200 Gb/s per port; 100B+ 400 Gb/s
# per port. "Per port" assumes one port per GPU; we compare Gb/s per GPU (NICs x Gb/s / GPUs per node)
# so that AWS EFA's 32 x 100 Gb/s counts as the 400 Gb/s per GPU it is.
SINGLE_NODE_MAX_PARAMS = 30e9
LARGE_MODEL_PARAMS = 100e9
GBPS_PER_GPU_MID = 200.0
GBPS_PER_GPU_LARGE = 400.0
# Share of the iteration spent in inter-node communication (DP + PP + EP + CP) above which the fabric,
# not the GPUs, sets the pace (issue 6 guidance); past half the step the job is network-bound.
COMM_SHARE_WARNING = 0.25
COMM_SHARE_CRITICAL = 0.50

# Measured vs expected bandwidth: FORMATS.md (benchlogs) section 8 "flag anything below ~80% of the
# expected figure"; InfiniBand and tuned RoCE reach 0.92-0.96 of line rate (calibration.md section 5),
# so half the line rate is a broken or TCP-bound fabric.
MEASURED_WARNING_RATIO = 0.80
MEASURED_CRITICAL_RATIO = 0.50
# What a healthy fabric reaches of its line rate, and a healthy node of its NVLink rate, are the
# hardware package's figures (the sizing model uses the same ones): hardware.fabric_efficiency and
# hardware.intra_node_busbw_efficiency. We flag measurements under 80% of them.
# Runs with smaller largest messages measure latency, not bandwidth (1 node H200: 40 GB/s at 1 MiB,
# 436 at 256 MiB, calibration.md section 5).
MIN_BANDWIDTH_MESSAGE_BYTES = 64 * 2**20

# Usable-GPU guarantee below this is a warning (DESIGN section 6).
USABLE_GPU_MIN_PCT = 90.0

# A job larger than hardware.NODES_PER_LEAF (one DGX SuperPOD scalable unit) crosses the spine, where
# oversubscription and a ring/chain topology start to cost.
OVERSUBSCRIPTION_CRITICAL = 2.0
# DESIGN section 6: topology-aware scheduling matters from 64 GPUs.
TOPOLOGY_AWARE_MIN_GPUS = 64

# Model states: 16 bytes/param (ZeRO mixed-precision Adam 2+2+12, calibration.md section 3) fully sharded
# is the least memory any layout can use; 10% of HBM goes to CUDA context, NCCL buffers and fragmentation.
MIN_BYTES_PER_PARAM = 16.0
HBM_USABLE_FRACTION = 0.90

# Unpublished fees at or above this share of the full bill turn hidden-fees critical: a tenth of the
# budget with no published price (Mercatus: headline GPU rate ~60-70% of the real bill, hidden-costs.md
# section 4, so the unpriced part is routinely that large).
UNPUBLISHED_SHARE_CRITICAL_PCT = 10.0

# PCIe GB/s per GPU, one direction, for TP over a slow bus: hardware.PCIE_GEN5_PRACTICAL_GBYTES_PER_S
# (50, the generous case: Gen4 boxes are half that).
PCIE_GBYTES_PER_S = PCIE_GEN5_PRACTICAL_GBYTES_PER_S


# The GPU numbers the rules need (HBM, NVLink rate and link count, bf16 peak) are rows of the hardware
# package's GPU table; hardware.gpu_from_text finds the row for a key or a model string as nvidia-smi prints.


# --- Findings ------------------------------------------------------------------------------------


@dataclass
class Ref:
    """One piece of evidence behind a finding: a published fact, an upload's lines, or a model number."""

    source: str  # "claim" | "evidence" | "model"
    text: str
    fact: str | None = None
    value: Any = None
    file: str | None = None
    lines: list[list[int]] | None = None  # [[first, last], ...], 1-based
    upload_id: int | None = None

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"source": self.source, "text": self.text}
        if self.fact is not None:
            out["fact"] = self.fact
            out["value"] = self.value
        if self.file is not None:
            out["file"] = self.file
            out["lines"] = self.lines or []
            if self.upload_id is not None:
                out["upload_id"] = self.upload_id
        return out


@dataclass
class Finding:
    code: str
    severity: str
    title: str
    evidence: list[Ref] = field(default_factory=list)
    advice: str = ""
    impact: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "severity": self.severity,
            "title": self.title,
            "evidence": [ref.as_dict() for ref in self.evidence],
            "advice": self.advice,
            "impact": dict(self.impact),
        }


@dataclass
class Signal:
    """One reason a rule fires; a rule's signals become one Finding."""

    severity: str
    title: str
    refs: list[Ref]
    advice: str
    impact: dict[str, Any] = field(default_factory=dict)


def _merge(code: str, signals: list[Signal]) -> list[Finding]:
    if not signals:
        return []
    ordered = sorted(signals, key=lambda s: _SEVERITY_RANK[s.severity])
    worst = ordered[0]
    refs: list[Ref] = []
    advice: list[str] = []
    texts: list[str] = []
    impact: dict[str, Any] = {}
    for sig in ordered:
        refs.extend(sig.refs)
        if sig.advice and sig.advice not in advice:
            advice.append(sig.advice)
        text = sig.impact.get("text")
        if text and text not in texts:
            texts.append(text)
        for key, value in sig.impact.items():
            if key == "text" or value is None:
                continue
            # The worst signal's numbers come first; later signals only fill in what is missing, so a
            # number in `impact` always belongs to the most severe reason.
            impact.setdefault(key, value)
    title = worst.title
    if len(ordered) > 1:
        title += f" (and {len(ordered) - 1} more)"
    impact["text"] = " ".join(texts) if texts else "Not quantified by the model."
    return [
        Finding(
            code=code,
            severity=worst.severity,
            title=title,
            evidence=refs,
            advice=" ".join(advice),
            impact=impact,
        )
    ]


def claim(offering: dict, name: str, text: str | None = None) -> Ref:
    value = offering.get(name)
    shown = "not published" if value is None else value
    return Ref(source="claim", fact=name, value=value, text=text or f"{name} = {shown}")


def model(text: str, name: str | None = None, value: Any = None) -> Ref:
    return Ref(source="model", text=text, fact=name, value=value)


def upload(item: dict, text: str, lines: Iterable[Any] = ()) -> Ref:
    spans: list[list[int]] = []
    for line in lines:
        if line is None:
            continue
        if isinstance(line, list | tuple) and len(line) == 2:
            if line[0] is not None:
                spans.append([int(line[0]), int(line[1] if line[1] is not None else line[0])])
        elif isinstance(line, int | float):
            spans.append([int(line), int(line)])
    return Ref(
        source="evidence",
        text=text,
        file=str(item.get("filename") or "upload"),
        lines=spans,
        upload_id=item.get("upload_id"),
    )


# --- Context: what every rule needs to know about the job ------------------------------------------


@dataclass
class Context:
    offering: dict
    workload: dict | None
    sizing: dict | None
    evidence: list[dict]
    bill: dict | None
    params_total: float
    params_active: float
    params_assumed: bool  # True: no workload, the reference 100B job stands in
    gpus: int  # GPUs of the job
    gpus_assumed: bool
    nodes: int  # nodes of the job
    gpn: int | None  # GPUs per node (offering)
    spec: GPU | None
    price: float | None

    @property
    def multi_node(self) -> bool:
        return self.nodes > 1

    @property
    def job_words(self) -> str:
        size = f"{self.params_total / 1e9:.0f}B"
        who = "the reference job (no workload given)" if self.params_assumed else "this workload"
        return f"{who}: {size} parameters on {self.gpus} GPUs / {self.nodes} nodes" + (
            " (assumed)" if self.gpus_assumed else ""
        )


def _num(value: Any) -> float | None:
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | float):
        return float(value) if math.isfinite(value) else None
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def workload_params(workload: dict | None, sizing: dict | None = None) -> tuple[float, float] | None:
    """Total and active parameters: the sizing result's count, else the workload's, else 12 L h^2 + V h."""
    sized = (sizing or {}).get("params") or {}
    total = _num(sized.get("total")) if isinstance(sized, dict) else None
    active = _num(sized.get("active")) if isinstance(sized, dict) else None
    if total:
        return total, active or total
    if not workload:
        return None
    params = _num(workload.get("params"))
    if params:
        return params, params
    layers, hidden = _num(workload.get("layers")), _num(workload.get("hidden"))
    if layers and hidden:
        vocab = _num(workload.get("vocab")) or 0.0
        # Megatron-LM's count (Narayanan et al. 2021): 12 l h^2 per transformer stack plus the embedding.
        count = 12 * layers * hidden**2 + vocab * hidden
        return count, count
    return None


def _price(offering: dict, sizing: dict | None) -> float | None:
    cost = (sizing or {}).get("cost") or {}
    for value in (
        cost.get("usd_per_gpu_hour") if isinstance(cost, dict) else None,
        offering.get("price_usd_per_gpu_hour"),
    ):
        if _num(value):
            return _num(value)
    found = [
        _num(p.get("price_usd_per_gpu_hour"))
        for p in offering.get("billing_plans") or []
        if isinstance(p, dict)
    ]
    prices = [p for p in found if p]
    return min(prices) if prices else None


def build_context(
    offering: dict,
    workload: dict | None,
    sizing: dict | None,
    evidence: Sequence[dict],
    bill: dict | None,
) -> Context:
    params = workload_params(workload, sizing)
    assumed = params is None
    total, active = params if params else (REFERENCE_PARAMS, REFERENCE_PARAMS)
    gpn = int(offering["gpus_per_node"]) if _num(offering.get("gpus_per_node")) else None
    max_gpus = gpn * int(offering["nodes"]) if gpn and _num(offering.get("nodes")) else None
    sized_gpus = _num((sizing or {}).get("gpus"))
    if sized_gpus:
        gpus, gpus_assumed = int(sized_gpus), False
    elif total < SINGLE_NODE_MAX_PARAMS:
        # Seed rule: under 30B, one 8-GPU full-mesh node and DP (DESIGN section 6).
        gpus, gpus_assumed = gpn or 8, True
    else:
        gpus, gpus_assumed = REFERENCE_GPUS, True
        if max_gpus:
            gpus = min(gpus, max_gpus)
    sized_nodes = _num((sizing or {}).get("nodes"))
    if sized_nodes:
        nodes = int(sized_nodes)
    else:
        nodes = max(1, math.ceil(gpus / (gpn or 8)))
    return Context(
        offering=offering,
        workload=workload,
        sizing=sizing,
        evidence=[e for e in evidence if isinstance(e, dict)],
        bill=bill,
        params_total=total,
        params_active=active,
        params_assumed=assumed,
        gpus=gpus,
        gpus_assumed=gpus_assumed,
        nodes=nodes,
        gpn=gpn,
        spec=gpu_from_text(offering.get("gpu")) or gpu_from_text(offering.get("gpu_label")),
        price=_price(offering, sizing),
    )


# --- Evidence helpers ------------------------------------------------------------------------------


def _kind(item: dict) -> str:
    return str(item.get("kind") or "").lower()


def _summary(item: dict) -> dict:
    summary = item.get("summary")
    return summary if isinstance(summary, dict) else {}


def items_of(ctx: Context, *kinds: str) -> list[dict]:
    return [e for e in ctx.evidence if _kind(e) in kinds]


def _lines_of(summary: dict) -> list[Any]:
    """Line references of a summary: `lines`, else the per-GPU rows' `line`, else the header line."""
    lines = summary.get("lines")
    if isinstance(lines, list) and lines:
        return lines
    rows = summary.get("gpu_list") or summary.get("per_gpu") or []
    found = [row.get("line") for row in rows if isinstance(row, dict) and row.get("line")]
    return found or [summary.get("header_line")]


def _port_active(port: dict) -> bool:
    state = str(port.get("state") or "").lower()
    return "active" in state and "inactive" not in state


def _port_down(port: dict) -> bool:
    state = str(port.get("state") or "").lower()
    return "down" in state or "disabled" in state or "polling" in state


def _layer(port: dict) -> str:
    layer = str(port.get("link_layer") or "").lower()
    if "infiniband" in layer:
        return "infiniband"
    if "ethernet" in layer:
        return "ethernet"
    return layer or "unknown"


def _port_name(port: dict) -> str:
    return f"{port.get('device') or '?'} port {port.get('port') or 1}"


def _run_nodes(item: dict, run: dict, gpn: int | None) -> int | None:
    for value in (run.get("nodes"), _summary(item).get("nodes"), item.get("nodes")):
        number = _num(value)
        if number:
            return int(number)
    hosts = run.get("hosts") or _summary(item).get("hosts")
    if isinstance(hosts, list | tuple | set) and hosts:
        return len(set(hosts))
    ranks = _num(run.get("ranks"))
    if ranks and gpn and ranks > gpn:
        return math.ceil(ranks / gpn)
    return None


def _usable_runs(item: dict) -> list[dict]:
    """nccl-style runs that measure bandwidth: not failed, 2+ ranks, large messages."""
    runs = _summary(item).get("runs") or []
    out = []
    for run in runs:
        if not isinstance(run, dict) or run.get("failed"):
            continue
        if (_num(run.get("ranks")) or 0) < 2:
            continue
        max_size = _num(run.get("max_size_bytes"))
        if max_size is not None and max_size < MIN_BANDWIDTH_MESSAGE_BYTES:
            continue
        if _busbw(run) is None:
            continue
        out.append(run)
    return out


def _busbw(run: dict) -> float | None:
    # DESIGN section 7: compare at the largest message sizes, never "Avg bus bandwidth".
    return _num(run.get("busbw_at_max_size_gbps")) or _num(run.get("peak_busbw_gbps"))


def _run_lines(run: dict) -> list[Any]:
    return (
        [[run.get("first_line"), run.get("last_line") or run.get("first_line")]]
        if run.get("first_line")
        else []
    )


def _comm_breakdown(sizing: dict | None) -> tuple[float, float, float] | None:
    """(inter-node comm s, tp comm s, iteration s) from the sizing breakdown."""
    breakdown = (sizing or {}).get("iteration_breakdown_s")
    if not isinstance(breakdown, dict):
        return None
    parts = {k: _num(v) or 0.0 for k, v in breakdown.items()}
    total = _num((sizing or {}).get("iteration_time_s")) or sum(parts.values())
    if total <= 0:
        return None
    inter = sum(parts.get(k, 0.0) for k in ("dp_comm", "pp_comm", "ep_comm", "cp_comm"))
    return inter, parts.get("tp_comm", 0.0), total


def _pct(x: float) -> float:
    return round(100.0 * x, 1)


# --- Rule: fabric-not-rdma -------------------------------------------------------------------------

_RDMA_WORDS = re.compile(r"rdma|infiniband|\bib\b|roce|high[- ]speed|gpudirect|efa|ndr|hdr|xdr", re.I)


def rule_fabric_not_rdma(ctx: Context) -> list[Finding]:
    """Fires when the fabric is TCP, unknown under an RDMA claim, or evidence shows Ethernet / low busbw."""
    off = ctx.offering
    fabric = off.get("fabric")
    label = str(off.get("fabric_label") or "")
    big = ctx.params_total >= SINGLE_NODE_MAX_PARAMS
    sig: list[Signal] = []
    ask = (
        "Ask for `ibstat` from every node and a multi-node nccl-tests all-reduce (NCCL_ALGO=Ring, 1-16 GiB)."
    )
    if fabric == "ethernet":
        sev = "critical" if ctx.multi_node and big else ("warning" if ctx.multi_node else "info")
        sig.append(
            Signal(
                sev,
                "Inter-node fabric is plain TCP Ethernet, not RDMA",
                [claim(off, "fabric"), claim(off, "fabric_label"), model(ctx.job_words)],
                "Demand InfiniBand or RoCE with GPUDirect RDMA (one 200-400 Gb/s port per GPU) for a "
                "multi-node "
                "job, or price the slowdown in. " + ask,
                {
                    "text": "TCP without RDMA reaches single-digit GB/s per 100GbE link (FORMATS.md 8), "
                    "against ~46-48 GB/s per NDR port: gradient all-reduce becomes the step time."
                },
            )
        )
    elif fabric == "tcpx":
        sig.append(
            Signal(
                "warning",
                "Inter-node fabric is GPUDirect-TCPX (TCP offload), not RDMA",
                [claim(off, "fabric"), claim(off, "fabric_label")],
                "Ask for nccl-tests all-reduce at the job's node count: TCPXO measured 338.8 GB/s busbw on 2 "
                "A3 Mega nodes, but 2-node results are inflated and scaling beyond is unproven. " + ask,
                {
                    "text": "TCP offload can be decent (GCP A3 Mega 338.8 GB/s, 2 nodes, FORMATS.md 8) "
                    "but needs the provider's NCCL plugin and is not RDMA."
                },
            )
        )
    elif fabric is None or fabric == "other":
        claims_rdma = bool(_RDMA_WORDS.search(label))
        if fabric is None and (claims_rdma or ctx.multi_node):
            sig.append(
                Signal(
                    "warning",
                    "Fabric type not published" + (f" behind the claim '{label}'" if claims_rdma else ""),
                    [claim(off, "fabric"), claim(off, "fabric_label")],
                    "Ask which transport the GPU fabric uses (InfiniBand, RoCE v2, EFA, TCP). " + ask,
                    {"text": "Unknown until the provider names the transport or evidence shows it."},
                )
            )
        elif fabric == "other" and not claims_rdma:
            sig.append(
                Signal(
                    "info",
                    "Fabric is a provider-specific transport",
                    [claim(off, "fabric"), claim(off, "fabric_label")],
                    "Ask whether it is RDMA and for multi-node nccl-tests results. " + ask,
                )
            )

    sig += _fabric_port_evidence(ctx)
    sig += _fabric_busbw_evidence(ctx)
    return _merge("fabric-not-rdma", sig)


def _claimed_layer(fabric: str | None) -> str | None:
    return {"infiniband": "infiniband", "roce": "ethernet"}.get(fabric or "")


def _fabric_port_evidence(ctx: Context) -> list[Signal]:
    off = ctx.offering
    fabric = off.get("fabric")
    layer = _claimed_layer(fabric)
    nics = int(off["nics_per_node"]) if _num(off.get("nics_per_node")) else None
    gbps = _num(off.get("gbps_per_nic"))
    sig: list[Signal] = []
    if layer is None:
        return sig
    for item in items_of(ctx, "ibstat", "ibstatus", "ibv_devinfo", "rdma-link"):
        ports = [p for p in _summary(item).get("ports") or [] if isinstance(p, dict)]
        active = [p for p in ports if _port_active(p)]
        claimed_active = [p for p in active if _layer(p) == layer]
        eth_active = [p for p in active if _layer(p) == "ethernet"]
        if fabric == "infiniband" and not claimed_active and eth_active:
            lines = [p.get("line") for p in eth_active]
            sig.append(
                Signal(
                    "critical",
                    f"{item.get('filename')}: ports are Ethernet where InfiniBand is claimed",
                    [
                        claim(off, "fabric"),
                        upload(
                            item,
                            f"{len(eth_active)} active port(s), all link_layer Ethernet ("
                            + ", ".join(f"{_port_name(p)} {p.get('rate_gbps')} Gb/s" for p in eth_active[:8])
                            + "); no active InfiniBand port",
                            lines,
                        ),
                    ],
                    "Do not accept an Ethernet (RoCE or TCP) fabric under an InfiniBand contract; ask "
                    "which nodes "
                    "carry the InfiniBand HCAs, or renegotiate the price for RoCE after seeing nccl-tests.",
                    {"text": "The fabric tested is not the fabric sold."},
                )
            )
            continue
        if not claimed_active:
            continue
        # Count ports of the claimed layer at (or above) the claimed rate; front-end Ethernet ports next to
        # the GPU rails are normal and must not count against an InfiniBand claim (evidence FORMATS.md 4).
        if gbps:
            slow = [p for p in claimed_active if (_num(p.get("rate_gbps")) or 0) < gbps * 0.99]
            at_rate = len(claimed_active) - len(slow)
            if fabric == "infiniband" and slow and (nics is None or at_rate < nics):
                rates = sorted(r for r in {_num(p.get("rate_gbps")) for p in slow} if r is not None)
                sig.append(
                    Signal(
                        "critical" if rates and max(rates) <= gbps * MEASURED_CRITICAL_RATIO else "warning",
                        f"{item.get('filename')}: InfiniBand ports run at "
                        f"{', '.join(f'{r:g}' for r in rates)} "
                        f"Gb/s, not the claimed {gbps:g}",
                        [
                            claim(off, "gbps_per_nic"),
                            upload(
                                item,
                                "active InfiniBand ports below the claimed rate: "
                                + ", ".join(_port_name(p) for p in slow[:8]),
                                [p.get("line") for p in slow],
                            ),
                        ],
                        "Ask for the NIC generation and switch speed in the contract (e.g. 'NDR 400 Gb/s "
                        "per GPU').",
                        {
                            "slowdown_pct": None,
                            "text": f"Port rate {max(rates) / gbps:.0%} of the claim." if rates else "",
                        },
                    )
                )
        if (
            nics
            and len(claimed_active) < nics
            and not any(_port_down(p) and _layer(p) == layer for p in ports)
        ):
            # Ports of the claimed layer missing altogether (down ones are counted by usable-gpus-short).
            sig.append(
                Signal(
                    "warning",
                    f"{item.get('filename')}: {len(claimed_active)} {fabric} port(s) found, {nics} claimed "
                    "per node",
                    [
                        claim(off, "nics_per_node"),
                        upload(
                            item,
                            f"{len(claimed_active)} active {layer} port(s)",
                            [p.get("line") for p in claimed_active],
                        ),
                    ],
                    "Ask for the output from every node; a VM may hide some HCAs, but the contract should "
                    "state the "
                    "GPU-fabric ports per node.",
                    {"text": f"Inter-node bandwidth up to {1 - len(claimed_active) / nics:.0%} below claim."},
                )
            )
    for item in items_of(ctx, "nvidia-smi-topo"):
        s = _summary(item)
        seen = _num(s.get("nics"))
        if nics and seen is not None and seen < nics and (_num(s.get("gpus")) or 0) >= (ctx.gpn or 2):
            # topo lists every RDMA device next to the GPUs; fewer than the claimed fabric ports means
            # missing rails, or a VM that hides them (evidence SOURCES.md: hgx-a100 1 NIC, rhel-ai-vm none).
            sig.append(
                Signal(
                    "warning",
                    f"{item.get('filename')}: {seen:g} NIC(s) beside the GPUs, {nics} fabric ports claimed",
                    [
                        claim(off, "nics_per_node"),
                        upload(
                            item,
                            f"NIC columns: {', '.join(map(str, s.get('nic_names') or [])) or 'none'}",
                            [s.get("header_line")],
                        ),
                    ],
                    "Ask for `ibstat` from the same node; if the node really has fewer rails, the per-GPU "
                    "bandwidth is below the claim.",
                    {"text": f"Up to {1 - seen / nics:.0%} less inter-node bandwidth than claimed."},
                )
            )
    for item in items_of(ctx, "perftest"):
        link = str(_summary(item).get("link_layer") or "").lower()
        if fabric == "infiniband" and "ethernet" in link:
            sig.append(
                Signal(
                    "critical",
                    f"{item.get('filename')}: ib_write_bw ran over Ethernet (RoCE) where InfiniBand is "
                    "claimed",
                    [
                        claim(off, "fabric"),
                        upload(item, "perftest `Link type: Ethernet`", [_summary(item).get("line")]),
                    ],
                    "Ask which fabric the contracted nodes use and re-run the test on them.",
                )
            )
    if fabric == "infiniband":
        for item in items_of(ctx, "lspci"):
            s = _summary(item)
            nic_entries = s.get("rdma_nic_functions") or s.get("rdma_nics") or []
            if not isinstance(nic_entries, list):
                continue
            texts = [str(n).lower() for n in nic_entries]
            eth = [n for n, t in zip(nic_entries, texts, strict=True) if "ethernet" in t]
            ib = [t for t in texts if "infiniband" in t]
            if eth and not ib:
                sig.append(
                    Signal(
                        "critical",
                        f"{item.get('filename')}: the RDMA NICs are Ethernet controllers where InfiniBand "
                        "is claimed",
                        [
                            claim(off, "fabric"),
                            upload(
                                item,
                                f"{len(eth)} NIC function(s) in Ethernet mode",
                                [n.get("line") for n in eth if isinstance(n, dict)],
                            ),
                        ],
                        "Ask for the NICs to be set to InfiniBand mode on an InfiniBand fabric, or price "
                        "it as RoCE.",
                    )
                )
    return sig


def _fabric_busbw_evidence(ctx: Context) -> list[Signal]:
    off = ctx.offering
    nics, gbps, gpn = _num(off.get("nics_per_node")), _num(off.get("gbps_per_nic")), ctx.gpn
    if not (nics and gbps):
        return []
    best: tuple[float, Signal] | None = None
    for item in items_of(ctx, "nccl-tests", "rccl-tests", "hccl-test"):
        for run in _usable_runs(item):
            coll = str(run.get("collective") or "")
            # Ring-like collectives are bounded by the node's NIC bandwidth; alltoall and sendrecv have
            # other bounds (per-GPU rail, pairwise) and are not compared with the line rate.
            if coll not in ("all_reduce", "all_gather", "reduce_scatter"):
                continue
            nodes = _run_nodes(item, run, gpn)
            if not nodes or nodes < 2:
                continue
            ranks = _num(run.get("ranks")) or 0
            per_node = _num(run.get("gpus_per_node")) or ranks / nodes
            # A run with fewer GPUs per node than the node has uses only their rails (one NIC share per GPU).
            share = min(1.0, per_node / gpn) if gpn else 1.0
            line_gbytes = nics * gbps * share / 8.0
            measured = _busbw(run) or 0.0
            ratio = measured / line_gbytes
            if ratio >= MEASURED_WARNING_RATIO:
                if run.get("nvls_or_tree_suspected"):
                    continue  # 2-node tree/NVLS inflates all-reduce busbw (FORMATS.md 1.3): proves nothing
                return []  # one good multi-node run backs the claim
            sev = "critical" if ratio < MEASURED_CRITICAL_RATIO else "warning"
            impact: dict[str, Any] = {
                "measured_busbw_gbps": round(measured, 2),
                "expected_busbw_gbps": round(line_gbytes, 2),
                "measured_ratio": round(ratio, 3),
                "text": f"{coll} busbw {measured:.1f} GB/s on {nodes} nodes x {per_node:g} GPUs is "
                f"{ratio:.0%} of the {line_gbytes:.1f} GB/s the claimed NICs carry.",
            }
            comm = _comm_breakdown(ctx.sizing)
            if comm and comm[0] > 0:
                inter, _tp, total = comm
                extra = inter * (fabric_efficiency(off.get("fabric")) / max(ratio, 1e-3) - 1.0)
                impact["slowdown_pct"] = _pct(extra / total)
                impact["text"] += (
                    f" If inter-node traffic is exposed, steps run up to {extra / total:.0%} slower."
                )
            signal = Signal(
                sev,
                f"{item.get('filename')}: measured inter-node busbw {ratio:.0%} of line rate",
                [
                    claim(off, "nics_per_node"),
                    claim(off, "gbps_per_nic"),
                    upload(
                        item,
                        f"{coll}, {int(ranks)} ranks on {nodes} nodes: busbw {measured:.2f} GB/s at the "
                        f"largest message",
                        _run_lines(run),
                    ),
                ],
                "Ask the provider to reproduce with NCCL_ALGO=Ring at 1-16 GiB and explain the gap (GID "
                "index, "
                "PFC/ECN, GPUDirect RDMA, NIC-GPU affinity) before signing; write the expected busbw into "
                "the "
                "acceptance test.",
                impact,
            )
            if best is None or ratio > best[0]:
                best = (ratio, signal)
    return [best[1]] if best else []


# --- Rule: intra-node-not-full-mesh ----------------------------------------------------------------


def _tp_needed(ctx: Context) -> int:
    layout = (ctx.sizing or {}).get("layout") or {}
    tp = _num(layout.get("tp")) if isinstance(layout, dict) else None
    if tp:
        return int(tp)
    # Seed rule: 30B+ needs TP inside a full-mesh node (DESIGN section 6).
    return 8 if ctx.params_total >= SINGLE_NODE_MAX_PARAMS else 1


def rule_intra_node_not_full_mesh(ctx: Context) -> list[Finding]:
    """Fires on PCIe/bridged GPUs for TP, or evidence of missing/inactive NVLinks or low busbw."""
    off = ctx.offering
    intra = off.get("intra_node")
    tp = _tp_needed(ctx)
    sig: list[Signal] = []
    nvlink = _num(off.get("intra_node_gbytes_per_s")) or (ctx.spec.scale_up_gbytes_per_s if ctx.spec else 0.0)
    if intra in ("pcie", "nvlink-bridge"):
        sev = "critical" if tp > 1 else "warning"
        impact: dict[str, Any] = {
            "text": f"Tensor parallelism of {tp} crosses "
            f"{'PCIe' if intra == 'pcie' else 'bridged pairs and PCIe'}, "
            f"~{PCIE_GBYTES_PER_S:g} "
            "GB/s per GPU against 300-900 GB/s on an NVSwitch node."
        }
        comm = _comm_breakdown(ctx.sizing)
        if comm and comm[1] > 0:
            _inter, tp_s, total = comm
            full_mesh = (
                ctx.spec.scale_up_gbytes_per_s if ctx.spec and ctx.spec.scale_up_gbytes_per_s else 450.0
            )
            saved = tp_s * (1 - PCIE_GBYTES_PER_S / full_mesh)
            impact["slowdown_pct"] = _pct(total / (total - saved) - 1) if total > saved else None
            impact["text"] += f" TP traffic is {tp_s / total:.0%} of each step on this bus."
        sig.append(
            Signal(
                sev,
                "GPUs in a node are joined by "
                + ("PCIe only" if intra == "pcie" else "NVLink bridges in pairs"),
                [
                    claim(off, "intra_node"),
                    claim(off, "gpu"),
                    model(f"tensor parallelism needed: TP={tp}", "tp", tp),
                ],
                "For 30B+ training rent NVSwitch (full-mesh) nodes, e.g. HGX/DGX H100/H200 with NV18 "
                "between every "
                "pair; ask for `nvidia-smi topo -m` from a contracted node.",
                impact,
            )
        )
    elif intra is None and tp > 1:
        sig.append(
            Signal(
                "warning",
                "Intra-node interconnect not published",
                [claim(off, "intra_node"), claim(off, "gpu_label")],
                "Ask for `nvidia-smi topo -m` and `nvidia-smi nvlink -s` from a contracted node.",
            )
        )
    if intra in ("nvswitch", "nvlink-mesh", None):
        sig += _mesh_evidence(ctx, nvlink, tp)
    return _merge("intra-node-not-full-mesh", sig)


def _expected_nvlinks(ctx: Context, item: dict) -> int | None:
    summary = _summary(item)
    models = summary.get("gpu_models") or []
    spec = ctx.spec or (gpu_from_text(str(models[0])) if isinstance(models, list) and models else None)
    return spec.nvlinks if spec and spec.nvlinks else None


def _mesh_evidence(ctx: Context, nvlink: float, tp: int) -> list[Signal]:
    off = ctx.offering
    claimed = off.get("intra_node")
    sig: list[Signal] = []
    bad_sev = "critical" if tp > 1 else "warning"
    for item in items_of(ctx, "nvidia-smi-topo"):
        s = _summary(item)
        lines = _lines_of(s)
        expected = _expected_nvlinks(ctx, item)
        min_nv = _num(s.get("min_nvlinks_per_pair"))
        gpus = _num(s.get("gpus")) or 0
        if gpus < 2:
            continue
        if s.get("full_nvlink_mesh") is False:
            sig.append(
                Signal(
                    bad_sev,
                    f"{item.get('filename')}: GPU pairs without NVLink (PCIe paths) under a "
                    f"{claimed or 'full-mesh'} claim",
                    [
                        claim(off, "intra_node"),
                        upload(item, "GPU x GPU cells show SYS/NODE/PHB/PXB/PIX, not NV#", lines),
                    ],
                    "Refuse the node type for tensor parallelism; ask for HGX/DGX nodes with an NVSwitch "
                    "full mesh.",
                    {
                        "slowdown_pct": _tp_slowdown(ctx, PCIE_GBYTES_PER_S / max(nvlink, 1.0)),
                        "text": "Tensor-parallel all-reduces between these pairs run over PCIe.",
                    },
                )
            )
        elif min_nv is not None and expected and min_nv < expected:
            ratio = min_nv / expected
            sig.append(
                Signal(
                    "critical" if ratio < MEASURED_CRITICAL_RATIO else "warning",
                    f"{item.get('filename')}: NV{min_nv:g} between GPU pairs where NV{expected} is expected",
                    [
                        claim(off, "gpu"),
                        claim(off, "intra_node"),
                        upload(item, f"min NVLinks per GPU pair = {min_nv:g}", lines),
                    ],
                    "Ask which board this is (e.g. a 4-GPU NV6 board or H800 NV8 is not an HGX H100 NV18) "
                    "and for the "
                    "contracted node's topology.",
                    {
                        "slowdown_pct": _tp_slowdown(ctx, ratio),
                        "text": f"Pairwise NVLink bandwidth {ratio:.0%} of the expected full mesh.",
                    },
                )
            )
    for item in items_of(ctx, "nvidia-smi"):
        s = _summary(item)
        models = [str(m) for m in s.get("gpu_models") or []]
        pcie = [m for m in models if "PCIE" in m.upper()]
        if pcie and claimed in ("nvswitch", None) and "pcie" not in str(off.get("gpu") or "").lower():
            # PCIe cards have no NVSwitch; at best pairs are bridged (evidence FORMATS.md section 2).
            sig.append(
                Signal(
                    bad_sev,
                    f"{item.get('filename')}: PCIe GPUs ({', '.join(pcie)}) where SXM/NVSwitch is claimed",
                    [
                        claim(off, "gpu"),
                        claim(off, "intra_node"),
                        upload(item, "GPU model strings", _lines_of(s)),
                    ],
                    "Ask for the SXM (HGX) node type you pay for; PCIe cards have no NVSwitch full mesh.",
                    {"slowdown_pct": _tp_slowdown(ctx, PCIE_GBYTES_PER_S / max(nvlink, 1.0))},
                )
            )
    for item in items_of(ctx, "nvidia-smi-nvlink", "dcgmi-nvlink"):
        s = _summary(item)
        links = s.get("active_links_per_gpu")
        counts = [
            int(v)
            for v in (
                links.values() if isinstance(links, dict) else links if isinstance(links, list) else [links]
            )
            if _num(v) is not None
        ]
        expected = _expected_nvlinks(ctx, item)
        if counts and min(counts) == 0 and (s.get("gpus") or len(counts)):
            sig.append(
                Signal(
                    bad_sev,
                    f"{item.get('filename')}: NVLinks inactive",
                    [
                        claim(off, "intra_node"),
                        upload(item, f"active links per GPU: {counts}", _lines_of(s)),
                    ],
                    "Ask for a node whose NVLinks are all up (check `nvidia-smi nvlink -s` on every node "
                    "at handover).",
                    {"slowdown_pct": _tp_slowdown(ctx, PCIE_GBYTES_PER_S / max(nvlink, 1.0))},
                )
            )
        elif counts and expected and min(counts) < expected:
            sig.append(
                Signal(
                    "warning" if min(counts) / expected >= MEASURED_CRITICAL_RATIO else "critical",
                    f"{item.get('filename')}: {min(counts)} of {expected} NVLinks active on some GPU",
                    [
                        claim(off, "gpu"),
                        upload(item, f"active links per GPU: {counts}", _lines_of(s)),
                    ],
                    "Ask for the node to be repaired or swapped and for `dcgmi diag -r 3` before acceptance.",
                    {"slowdown_pct": _tp_slowdown(ctx, min(counts) / expected)},
                )
            )
        link_gbps = _num(s.get("link_gbps"))
        if (
            link_gbps
            and ctx.spec
            and ctx.spec.link_gbytes_per_s
            and link_gbps < 0.95 * ctx.spec.link_gbytes_per_s
        ):
            sig.append(
                Signal(
                    "warning",
                    f"{item.get('filename')}: NVLinks run at {link_gbps:g} GB/s, expected "
                    f"{ctx.spec.link_gbytes_per_s:g}",
                    [claim(off, "gpu"), upload(item, f"link speed {link_gbps:g} GB/s", _lines_of(s))],
                    "Ask why the links are down-trained.",
                    {"slowdown_pct": _tp_slowdown(ctx, link_gbps / ctx.spec.link_gbytes_per_s)},
                )
            )
    if nvlink:
        expected_busbw = intra_node_busbw_efficiency("nvswitch") * nvlink
        worst: tuple[float, Signal] | None = None
        for item in items_of(ctx, "nccl-tests", "rccl-tests"):
            for run in _usable_runs(item):
                nodes = _run_nodes(item, run, ctx.gpn)
                if nodes != 1 and not (
                    nodes is None and ctx.gpn and (_num(run.get("ranks")) or 0) <= ctx.gpn
                ):
                    continue
                measured = _busbw(run) or 0.0
                ratio = measured / expected_busbw
                if ratio >= MEASURED_WARNING_RATIO:
                    continue
                signal = Signal(
                    "critical" if ratio < MEASURED_CRITICAL_RATIO else "warning",
                    f"{item.get('filename')}: intra-node busbw {ratio:.0%} of the expected "
                    f"{expected_busbw:.0f} GB/s",
                    [
                        claim(
                            off,
                            "intra_node_gbytes_per_s",
                            f"NVLink {nvlink:g} GB/s per GPU (claimed or GPU table)",
                        ),
                        upload(
                            item,
                            f"{run.get('collective')} {int(_num(run.get('ranks')) or 0)} ranks: busbw "
                            f"{measured:.1f} GB/s",
                            _run_lines(run),
                        ),
                    ],
                    "Ask for the node's `nvidia-smi topo -m` and a re-run; a healthy NVSwitch node reaches "
                    "~0.8 of "
                    "the NVLink rate (A100 235 GB/s, H100 ~365 ring).",
                    {
                        "measured_busbw_gbps": round(measured, 2),
                        "expected_busbw_gbps": round(expected_busbw, 1),
                        "slowdown_pct": _tp_slowdown(ctx, ratio),
                    },
                )
                if worst is None or ratio < worst[0]:
                    worst = (ratio, signal)
        if worst:
            sig.append(worst[1])
    return sig


def _tp_slowdown(ctx: Context, bandwidth_ratio: float) -> float | None:
    """Step-time increase if TP traffic (modelled at full mesh) ran at `bandwidth_ratio` of it."""
    comm = _comm_breakdown(ctx.sizing)
    if not comm or comm[1] <= 0 or bandwidth_ratio <= 0:
        return None
    _inter, tp_s, total = comm
    return _pct(tp_s * (1 / bandwidth_ratio - 1) / total)


# --- Rule: usable-gpus-short -----------------------------------------------------------------------


def rule_usable_gpus_short(ctx: Context) -> list[Finding]:
    """Fires on no usable-GPU guarantee (or < 90%), shared tenancy, or evidence of missing GPUs/down ports."""
    off = ctx.offering
    sig: list[Signal] = []
    pct = _num(off.get("usable_gpu_guarantee_pct"))
    if pct is None:
        sig.append(
            Signal(
                "warning",
                "No usable-GPU guarantee published",
                [claim(off, "usable_gpu_guarantee_pct"), claim(off, "usable_gpu_credit")],
                "Ask for a contract clause: at least 95% of contracted GPUs healthy at any time, unusable "
                "nodes "
                "credited or replaced within hours; uptime SLAs usually count a degraded-but-reachable GPU "
                "as up "
                "(ClusterProof, hidden-costs.md section 3).",
                {"text": "No public usable-GPU percentage exists for any provider (hidden-costs.md 3)."},
            )
        )
    elif pct < USABLE_GPU_MIN_PCT:
        short = math.ceil(ctx.gpus * (1 - pct / 100))
        sig.append(
            Signal(
                "warning",
                f"Usable-GPU guarantee only {pct:g}%",
                [
                    claim(off, "usable_gpu_guarantee_pct"),
                    claim(off, "usable_gpu_credit"),
                    model(ctx.job_words),
                ],
                "Negotiate at least 90-95% with a credit or replacement deadline, or contract ~10% spare "
                "nodes "
                "(stas00 ml-engineering, peer-portals.md section 2 item 5).",
                {
                    "gpus_short": short,
                    "text": f"Up to {short} of {ctx.gpus} GPUs may be unusable within the contract.",
                },
            )
        )
    if off.get("exclusivity") == "shared":
        sig.append(
            Signal(
                "warning",
                "Nodes or fabric are shared with other tenants",
                [claim(off, "exclusivity"), claim(off, "bare_metal")],
                "Ask for dedicated nodes and an isolated fabric partition; shared fabrics make busbw and "
                "step time "
                "vary with neighbours.",
            )
        )
    gpn = ctx.gpn
    # GPU counts from the table, `-L` and topo columns; not from `nvlink -s`, which is often run with `-i 0`.
    for item in items_of(ctx, "nvidia-smi", "nvidia-smi-topo"):
        s = _summary(item)
        seen = _num(s.get("gpus"))
        nodes = int(_num(item.get("nodes")) or 1)
        if gpn and seen is not None and 0 < seen < gpn * nodes:
            short = int(gpn * nodes - seen)
            sig.append(
                Signal(
                    "critical",
                    f"{item.get('filename')}: {int(seen)} GPUs visible where {gpn * nodes} are contracted",
                    [
                        claim(off, "gpus_per_node"),
                        upload(item, f"{int(seen)} GPUs listed", _lines_of(s)),
                    ],
                    "Ask whether this is the contracted node type; GPUs missing from a node are GPUs you "
                    "pay for and "
                    "cannot use. Require the full count at handover.",
                    {"gpus_short": short, "text": f"{short} GPU(s) short on {nodes} node(s)."},
                )
            )
        lost = s.get("lost_gpus") or s.get("gpus_lost") or s.get("unreachable_gpus")
        lost_n = len(lost) if isinstance(lost, list) else int(_num(lost) or 0)
        if lost_n:
            sig.append(
                Signal(
                    "critical",
                    f"{item.get('filename')}: {lost_n} GPU(s) lost (device handle unavailable)",
                    [
                        upload(
                            item,
                            "nvidia-smi cannot reach the GPU",
                            s.get("lost_lines") or _lines_of(s),
                        )
                    ],
                    "Ask for the node to be replaced and credited from the moment the GPU was lost.",
                    {"gpus_short": lost_n},
                )
            )
    for item in items_of(ctx, "dmesg"):
        s = _summary(item)
        fallen = s.get("gpus_fallen_off_bus") or s.get("fallen_off_bus") or s.get("lost_gpus")
        count = len(fallen) if isinstance(fallen, list) else int(_num(fallen) or 0)
        if count:
            sig.append(
                Signal(
                    "critical",
                    f"{item.get('filename')}: GPU fell off the bus",
                    [upload(item, f"{count} GPU fault message(s) in the kernel log", _lines_of(s))],
                    "Ask for the node's replacement and its burn-in record.",
                    {"gpus_short": count},
                )
            )
    for item in items_of(ctx, "dcgmi-diag"):
        s = _summary(item)
        failed = s.get("failed_tests") or []
        if s.get("passed") is False or failed:
            sig.append(
                Signal(
                    "critical",
                    f"{item.get('filename')}: dcgmi diag failed",
                    [
                        upload(
                            item,
                            "failed: " + ", ".join(str(t) for t in failed) if failed else "diag did not pass",
                            _lines_of(s),
                        )
                    ],
                    "A GPU failing DCGM diagnostics is not usable: ask for replacement and a passing "
                    "`dcgmi diag -r 3` "
                    "on every node before the term starts.",
                    {"gpus_short": 1},
                )
            )
    layer = _claimed_layer(off.get("fabric"))
    nics = int(off["nics_per_node"]) if _num(off.get("nics_per_node")) else None
    if layer:
        for item in items_of(ctx, "ibstat", "ibstatus", "ibv_devinfo", "rdma-link"):
            ports = [p for p in _summary(item).get("ports") or [] if isinstance(p, dict)]
            active = [p for p in ports if _port_active(p) and _layer(p) == layer]
            down = [p for p in ports if _port_down(p) and _layer(p) == layer]
            # Down ports count only while the claimed number of active ports is not reached: spare or
            # front-end ports that are down on a node with all its rails up are harmless.
            if down and (nics is None or len(active) < nics) and (layer == "infiniband" or nics):
                missing = len(down) if nics is None else min(len(down), nics - len(active))
                per_nic = (gpn / nics) if gpn and nics else 1.0
                short = math.ceil(missing * per_nic) if gpn and nics and nics <= gpn else 0
                sig.append(
                    Signal(
                        "critical",
                        f"{item.get('filename')}: {missing} fabric port(s) down"
                        + (f", {len(active)} of {nics} active" if nics else ""),
                        [
                            claim(off, "nics_per_node"),
                            upload(
                                item,
                                "down: " + ", ".join(_port_name(p) for p in down[:8]),
                                [p.get("line") for p in down],
                            ),
                        ],
                        "Each GPU without its rail either idles or drags the whole job to the slowest "
                        "link: ask for the "
                        "cables/HCAs to be fixed before acceptance and credited while down.",
                        {
                            "gpus_short": short or None,
                            "text": "GPUs behind a down rail run at a fraction of their network bandwidth.",
                        },
                    )
                )
    return _merge("usable-gpus-short", sig)


# --- Rule: no-fault-tolerance ----------------------------------------------------------------------


def _job_gpu_hours(ctx: Context) -> tuple[float, str]:
    cost = (ctx.sizing or {}).get("cost") or {}
    gh = _num(cost.get("gpu_hours")) if isinstance(cost, dict) else None
    if gh:
        return gh, "sizing result"
    days = _num((ctx.sizing or {}).get("train_days"))
    if days:
        return days * 24 * ctx.gpus, "sizing result"
    tokens = _num((ctx.workload or {}).get("train_tokens")) or REFERENCE_TOKENS
    peak = (ctx.spec.bf16_tflops if ctx.spec else GPUS["H100-SXM-80GB"].bf16_tflops) * 1e12
    # 6 x active params x tokens (DESIGN section 5) at the reference MFU.
    hours = 6 * ctx.params_active * tokens / (peak * REFERENCE_MFU) / 3600
    return hours, f"estimate 6 x params x tokens at {REFERENCE_MFU:.0%} MFU"


def rule_no_fault_tolerance(ctx: Context) -> list[Finding]:
    """Fires when auto bad-node detection or checkpoint/restart is missing for a job expecting failures."""
    off = ctx.offering
    detect = off.get("auto_bad_node_detection")
    restart = off.get("auto_checkpoint_restart")
    replace = off.get("auto_replacement")
    if detect is True and restart is True:
        return []
    goodput = (ctx.sizing or {}).get("goodput") or {}
    goodput = goodput if isinstance(goodput, dict) else {}
    days = _num((ctx.sizing or {}).get("train_days"))
    if days:
        # Expected failures = training hours / job MTBF (issue 6); GPU-hours follow from the job's GPUs.
        wall_h, how = days * 24, "sizing result"
        gpu_hours = wall_h * ctx.gpus
    else:
        gpu_hours, how = _job_gpu_hours(ctx)
        wall_h = gpu_hours / max(ctx.gpus, 1)
    mtbf = _num(goodput.get("mtbf_h"))
    if mtbf:
        failures = wall_h / mtbf
        rate_text = f"job MTBF {mtbf:g} h (sizing)"
    else:
        rate = _num(off.get("failure_rate_per_gpu_hour")) or DEFAULT_FAILURE_RATE_PER_GPU_HOUR
        failures = rate * gpu_hours
        mtbf = 1 / (rate * max(ctx.gpus, 1))
        source = "offering" if off.get("failure_rate_per_gpu_hour") else "Llama 3"
        rate_text = f"{rate:.3g} failures per GPU-hour ({source})"
    interval_min = _num(goodput.get("checkpoint_interval_min"))
    if not interval_min:
        write_min = (_num(goodput.get("checkpoint_write_s")) or DEFAULT_CHECKPOINT_WRITE_MIN * 60) / 60
        interval_min = math.sqrt(2 * write_min * mtbf * 60)  # Young (1974), calibration.md section 4
    auto_h = AUTO_RESTART_MIN / 60
    if detect and replace:
        repl = _num(off.get("replacement_time_min"))
        restart_h = (repl / 60) if repl else auto_h
        if not restart:
            restart_h += 0.5  # someone must resubmit the job from the last checkpoint
    else:
        restart_h = MANUAL_RESTART_H
    lost_per_failure = restart_h + interval_min / 60 / 2
    lost_gh = failures * ctx.gpus * lost_per_failure
    avoidable_gh = failures * ctx.gpus * max(restart_h - auto_h, 0.0)
    usd = lost_gh * ctx.price if ctx.price else None
    avoidable_usd = avoidable_gh * ctx.price if ctx.price else None
    missing = [
        n for n, v in (("auto_bad_node_detection", detect), ("auto_checkpoint_restart", restart)) if not v
    ]
    if failures > FAILURES_CRITICAL:
        sev = "critical" if len(missing) == 2 else "warning"
    elif failures >= 1:
        sev = "warning"
    else:
        sev = "info"
    words = " and ".join(
        "automatic bad-node detection" if m == "auto_bad_node_detection" else "automatic checkpoint/restart"
        for m in missing
    )
    text = (
        f"Expected {failures:.1f} failures over {wall_h / 24:.1f} days ({rate_text}; GPU-hours from {how}). "
        f"Each costs ~{restart_h:.1f} h of restart plus half a {interval_min:.0f}-min checkpoint interval on "
        f"{ctx.gpus} GPUs: {lost_gh:,.0f} GPU-hours"
        + (f" (${usd:,.0f})" if usd is not None else "")
        + f", of which {avoidable_gh:,.0f} would be saved by automatic recovery"
        + f" in ~{AUTO_RESTART_MIN:.0f} min."
    )
    refs = [
        claim(off, "auto_bad_node_detection"),
        claim(off, "auto_checkpoint_restart"),
        claim(off, "auto_replacement"),
        claim(off, "spare_node_pool"),
        claim(off, "replacement_time_min"),
        model(ctx.job_words),
        model(f"expected failures = {failures:.2f}", "expected_failures", round(failures, 2)),
    ]
    signal = Signal(
        sev,
        f"No {words} ({'not published' if all(off.get(m) is None for m in missing) else 'not offered'})",
        refs,
        "Ask: how is a failed GPU or node detected, how fast is it drained and replaced (API or ticket), "
        "is there a "
        "hot-spare pool on the same spine, and will the platform restart the job from the last checkpoint? "
        "Put the "
        "replacement time in the contract.",
        {
            "expected_failures": round(failures, 2),
            "gpu_hours_lost": round(lost_gh, 1),
            "usd_lost": round(usd, 2) if usd is not None else None,
            "gpu_hours_avoidable": round(avoidable_gh, 1),
            "usd_avoidable": round(avoidable_usd, 2) if avoidable_usd is not None else None,
            "restart_h": round(restart_h, 2),
            "checkpoint_interval_min": round(interval_min, 1),
            "text": text,
        },
    )
    return _merge("no-fault-tolerance", [signal])


# --- Rule: ecosystem-lock-in -----------------------------------------------------------------------


def rule_ecosystem_lock_in(ctx: Context) -> list[Finding]:
    """Fires on a non-CUDA accelerator stack, a proprietary fabric plugin, or no standard containers."""
    off = ctx.offering
    sig: list[Signal] = []
    stack = off.get("accelerator_stack")
    if stack == "cann":
        # Critical: Ascend needs torch_npu/MindSpeed forks and HCCL instead of CUDA/NCCL, no public hccl_test
        # baseline exists to check claims against (benchlogs SOURCES.md), and few providers rent the hardware,
        # so both the port and the exit are expensive.
        sig.append(
            Signal(
                "critical",
                "Huawei Ascend / CANN stack: CUDA code does not run",
                [claim(off, "accelerator_stack"), claim(off, "gpu_label")],
                "Budget the port (torch_npu, MindSpeed, HCCL) and a trial with your own model before "
                "signing; ask "
                "for hccl_test results at the job's scale.",
                {"text": "Porting and re-validating a training stack takes engineer-months; exit is narrow."},
            )
        )
    elif stack in ("rocm", "other"):
        sig.append(
            Signal(
                "warning",
                f"Non-CUDA accelerator stack ({stack})",
                [claim(off, "accelerator_stack"), claim(off, "gpu")],
                "Check that your framework, kernels (attention, fused optimizers) and collective library "
                "run on it; "
                "ask for rccl-tests and a training-log sample on the job's model family.",
            )
        )
    elif stack is None:
        sig.append(
            Signal(
                "info",
                "Accelerator stack not published",
                [claim(off, "accelerator_stack")],
                "Ask which driver, CUDA/ROCm and NCCL/RCCL versions the nodes run.",
            )
        )
    if off.get("proprietary_fabric_plugin"):
        sig.append(
            Signal(
                "info",
                "NCCL needs the provider's fabric plugin",
                [claim(off, "proprietary_fabric_plugin"), claim(off, "fabric_label")],
                "Pin the plugin version (aws-ofi-nccl, TCPX, ...) in your container and test it before the "
                "term.",
            )
        )
    if off.get("standard_containers") is False:
        sig.append(
            Signal(
                "warning",
                "Standard CUDA/NCCL containers do not run as is",
                [claim(off, "standard_containers")],
                "Ask which images are required and whether your own container runs unmodified; avoid being "
                "tied "
                "to a vendor image for the whole term.",
            )
        )
    schedulers = off.get("schedulers") or []
    if schedulers and set(schedulers) <= {"proprietary"}:
        sig.append(
            Signal(
                "info",
                "Only a proprietary scheduler",
                [claim(off, "schedulers")],
                "Ask for Slurm or Kubernetes access so launch scripts stay portable.",
            )
        )
    return _merge("ecosystem-lock-in", sig)


# --- Rule: hidden-fees -----------------------------------------------------------------------------

_FEE_FACTS = {
    "storage_price_usd_per_gb_month": "checkpoint storage",
    "egress_price_usd_per_gb": "egress",
    "traffic_price_usd_per_gb": "inter-node traffic",
}
_FEE_ITEMS = ("checkpoint_storage", "dataset_storage", "egress", "traffic", "support", "setup")
_SEPARATE_RE = re.compile(
    r"billed separately|not included|extra charge|additional (fee|charge)|charged separately", re.I
)


def rule_hidden_fees(ctx: Context) -> list[Finding]:
    """Fires when storage, egress or traffic prices are unpublished or billed extra (share of the bill)."""
    off = ctx.offering
    sig: list[Signal] = []
    unknown = [name for name in _FEE_FACTS if off.get(name) is None]
    impact: dict[str, Any] = {}
    bill = ctx.bill if isinstance(ctx.bill, dict) else None
    sev = "warning"
    if bill:
        lines = [line for line in bill.get("lines") or [] if isinstance(line, dict)]
        total = _num(bill.get("total_usd")) or sum(_num(line.get("usd")) or 0.0 for line in lines)
        fee_lines = [line for line in lines if line.get("item") in _FEE_ITEMS]
        unpriced = [line for line in lines if line.get("usd") is None]
        unpublished = [
            line for line in lines if line.get("published") is False and line.get("usd") is not None
        ]
        fees = sum(_num(line.get("usd")) or 0.0 for line in fee_lines)
        hidden = sum(_num(line.get("usd")) or 0.0 for line in unpublished)
        if total:
            impact["fees_share_pct"] = _pct(fees / total)
            impact["unpublished_share_pct"] = _pct(hidden / total)
            impact["unpublished_usd"] = round(hidden, 2)
        impact["bill_complete"] = bool(bill.get("complete")) and not unpriced
        parts = []
        if total:
            parts.append(f"Fees beyond compute are {fees / total:.1%} of the ${total:,.0f} bill")
            if unpublished:
                parts.append(
                    f"{hidden / total:.1%} (${hidden:,.0f}) is estimated at default prices because the "
                    f"provider publishes none ({', '.join(str(line.get('item')) for line in unpublished)})"
                )
        if unpriced:
            parts.append(
                "the bill is incomplete: no price at all for "
                + ", ".join(str(line.get("item")) for line in unpriced)
            )
        impact["text"] = "; ".join(parts) + "." if parts else ""
        if total and hidden / total * 100 >= UNPUBLISHED_SHARE_CRITICAL_PCT:
            sev = "critical"
        if unpublished or unpriced:
            unknown = sorted(
                set(unknown)
                | {
                    n
                    for n, w in _FEE_FACTS.items()
                    if any(w.split()[-1] in str(line.get("item")) for line in unpublished + unpriced)
                }
                & set(_FEE_FACTS)
            )
    if unknown:
        sig.append(
            Signal(
                sev,
                "Unpublished prices: " + ", ".join(_FEE_FACTS[n] for n in unknown),
                [claim(off, n) for n in unknown] + [claim(off, "storage_included_gb")],
                "Get written prices for checkpoint storage (per GB-month, with write throughput), egress and "
                "inter-node/inter-zone traffic before comparing headline GPU-hour prices.",
                impact or {"text": "Share of the bill unknown until the prices are published."},
            )
        )
    note = str(off.get("fees_note") or "")
    if _SEPARATE_RE.search(note):
        sig.append(
            Signal(
                "warning",
                "Some items are billed separately from the GPU price",
                [claim(off, "fees_note", f"fees_note: {note}")],
                "Ask for the separately billed items as line items in the quote.",
                impact if not unknown else {},
            )
        )
    if not sig and bill and impact.get("unpublished_share_pct"):
        sig.append(
            Signal(
                "warning", "Part of the bill uses default prices", [], "Ask for the missing prices.", impact
            )
        )
    return _merge("hidden-fees", sig)


# --- Sizing rules ----------------------------------------------------------------------------------


def rule_fabric_too_slow(ctx: Context) -> list[Finding]:
    """Fires when fabric bandwidth per GPU is below what the model needs (sizing comm share, else seed)."""
    off = ctx.offering
    if not ctx.multi_node:
        return []
    nics, gbps = _num(off.get("nics_per_node")), _num(off.get("gbps_per_nic"))
    per_gpu = nics * gbps / ctx.gpn if nics and gbps and ctx.gpn else None
    refs = [claim(off, "nics_per_node"), claim(off, "gbps_per_nic"), claim(off, "gpus_per_node")]
    comm = _comm_breakdown(ctx.sizing)
    if comm and comm[0] > 0:
        inter, _tp, total = comm
        share = inter / total
        if share <= COMM_SHARE_WARNING:
            return []
        impact: dict[str, Any] = {"comm_share_pct": _pct(share)}
        text = f"Inter-node communication (DP+PP+EP+CP) is {share:.0%} of each {total:.2f}-s step."
        if per_gpu and per_gpu < GBPS_PER_GPU_LARGE:
            faster = inter * (1 - per_gpu / GBPS_PER_GPU_LARGE)
            impact["slowdown_pct"] = _pct(total / (total - faster) - 1)
            text += f" At {GBPS_PER_GPU_LARGE:g} Gb/s per GPU the step would be {faster / total:.0%} shorter."
        impact["text"] = text
        sig = Signal(
            "critical" if share > COMM_SHARE_CRITICAL else "warning",
            f"The network sets the pace: {share:.0%} of each step is inter-node communication",
            refs
            + [
                model(
                    f"iteration_breakdown_s: inter-node {inter:.2f} s of {total:.2f} s",
                    "iteration_breakdown_s",
                )
            ],
            "Ask for more or faster fabric ports per node (400 Gb/s per GPU for 100B+), or a layout with "
            "less "
            "cross-node traffic; compare offerings on predicted step time, not price per GPU-hour.",
            impact,
        )
        return _merge("fabric-too-slow", [sig])
    if per_gpu is None or ctx.params_total < SINGLE_NODE_MAX_PARAMS:
        return []
    need = GBPS_PER_GPU_LARGE if ctx.params_total >= LARGE_MODEL_PARAMS else GBPS_PER_GPU_MID
    if per_gpu >= need:
        return []
    sig = Signal(
        "critical" if per_gpu < need / 2 else "warning",
        f"{per_gpu:g} Gb/s of fabric per GPU; a {ctx.params_total / 1e9:.0f}B model needs {need:g}",
        refs + [model(ctx.job_words)],
        f"Ask for {need:g} Gb/s per GPU (one {need:g}G port per GPU) or expect the data-parallel "
        "all-reduce to "
        "dominate the step.",
        {
            "text": f"Seed rule (DESIGN 6): 30-70B >= {GBPS_PER_GPU_MID:g}, 100B+ >= {GBPS_PER_GPU_LARGE:g} "
            "Gb/s per port; no sizing breakdown to quantify the slowdown.",
            "gbps_per_gpu": round(per_gpu, 1),
            "gbps_per_gpu_needed": need,
        },
    )
    return _merge("fabric-too-slow", [sig])


def rule_topology_wont_scale(ctx: Context) -> list[Finding]:
    """Fires on a ring/chain topology for a multi-node job, or oversubscription past one leaf."""
    off = ctx.offering
    if not ctx.multi_node:
        return []
    topo = off.get("topology")
    over = _num(off.get("oversubscription"))
    spans_spine = ctx.nodes > NODES_PER_LEAF
    sig: list[Signal] = []
    if topo in ("ring", "chain"):
        sig.append(
            Signal(
                "critical" if spans_spine else "warning",
                f"{topo.capitalize()} topology for a {ctx.nodes}-node job",
                [claim(off, "topology"), model(ctx.job_words)],
                "Ask for a fat-tree or rail-optimized Clos; a chain or ring loses bandwidth per hop as "
                "nodes grow.",
                {"text": "Not quantified: efficiency falls with every node added (DESIGN section 5)."},
            )
        )
    if over and over > 1 and spans_spine:
        impact: dict[str, Any] = {"text": f"Traffic crossing the spine gets 1/{over:g} of the port rate."}
        comm = _comm_breakdown(ctx.sizing)
        if comm and comm[0] > 0:
            inter, _tp, total = comm
            impact["slowdown_pct"] = _pct(inter * (over - 1) / total)
            impact["text"] += " Upper bound assumes all inter-node traffic crosses it."
        sig.append(
            Signal(
                "critical" if over > OVERSUBSCRIPTION_CRITICAL else "warning",
                f"{over:g}:1 oversubscribed fabric for a job spanning {ctx.nodes} nodes (> "
                f"{NODES_PER_LEAF} per leaf)",
                [claim(off, "oversubscription"), claim(off, "topology"), model(ctx.job_words)],
                "Ask for a non-blocking partition for the job or placement within as few leaves as possible.",
                impact,
            )
        )
    if spans_spine and (topo is None or topo == "unknown") and over is None:
        sig.append(
            Signal(
                "info",
                "Topology and oversubscription not published",
                [claim(off, "topology"), claim(off, "oversubscription")],
                "Ask for the fabric diagram: fat-tree / rail-optimized, oversubscription, nodes per leaf.",
            )
        )
    nodes_max = _num(off.get("nodes"))
    if nodes_max and ctx.nodes > nodes_max and not ctx.gpus_assumed:
        sig.append(
            Signal(
                "critical",
                f"Job needs {ctx.nodes} nodes, one fabric holds {nodes_max:g}",
                [claim(off, "nodes"), model(ctx.job_words)],
                "Ask whether a larger single fabric is available; spanning fabrics breaks the collective "
                "bandwidth.",
            )
        )
    return _merge("topology-wont-scale", sig)


def rule_no_topology_aware_placement(ctx: Context) -> list[Finding]:
    """Fires when a job of 64+ GPUs runs where topology-aware placement is absent or unpublished."""
    off = ctx.offering
    placement = off.get("topology_aware_placement")
    if placement is True or ctx.gpus < TOPOLOGY_AWARE_MIN_GPUS:
        return []
    sig = Signal(
        "warning",
        "No topology-aware placement" + (" published" if placement is None else ""),
        [claim(off, "topology_aware_placement"), claim(off, "schedulers"), model(ctx.job_words)],
        "Ask whether the scheduler places ranks by leaf/rail (Slurm topology plugin, Kubernetes topology "
        "labels) "
        "and whether all nodes and spares sit on the same spine.",
        {"text": f"At {ctx.gpus} GPUs, random placement spreads rings across leaves and adds spine hops."},
    )
    return _merge("no-topology-aware-placement", [sig])


_MEMORY_WORDS = re.compile(r"memory|hbm|does not fit|doesn't fit|oom|gib|too small|nodes", re.I)


def rule_cluster_too_small(ctx: Context) -> list[Finding]:
    """Fires when the largest cluster cannot hold the model (sizing infeasible on memory, or 16 B/param)."""
    off = ctx.offering
    sizing = ctx.sizing or {}
    sig: list[Signal] = []
    if sizing.get("feasible") is False:
        reasons = [str(r) for r in sizing.get("reasons") or []]
        if any(_MEMORY_WORDS.search(r) for r in reasons) or not reasons:
            sig.append(
                Signal(
                    "critical",
                    "No layout fits the model on this offering",
                    [
                        claim(off, "nodes"),
                        claim(off, "gpus_per_node"),
                        claim(off, "gpu"),
                        model("; ".join(reasons) or "sizing: infeasible", "reasons", reasons),
                    ],
                    "Ask for a larger single-fabric allocation or GPUs with more HBM.",
                    {"text": "The job cannot run here as specified."},
                )
            )
    max_nodes, gpn = _num(off.get("nodes")), ctx.gpn
    hbm = _num(off.get("hbm_gb_per_gpu")) or (ctx.spec.hbm_gb if ctx.spec else None)
    if max_nodes and gpn and hbm and not ctx.params_assumed:
        capacity = max_nodes * gpn * hbm * 1e9 * HBM_USABLE_FRACTION
        need = ctx.params_total * MIN_BYTES_PER_PARAM
        if need > capacity:
            min_gpus = math.ceil(need / (hbm * 1e9 * HBM_USABLE_FRACTION))
            sig.append(
                Signal(
                    "critical",
                    f"{max_nodes * gpn:g} GPUs cannot hold {ctx.params_total / 1e9:.0f}B parameters' "
                    "training state",
                    [
                        claim(off, "nodes"),
                        claim(off, "gpus_per_node"),
                        claim(off, "hbm_gb_per_gpu"),
                        model(
                            f"{MIN_BYTES_PER_PARAM:g} bytes/param fully sharded = {need / 1e12:.1f} TB > "
                            f"{capacity / 1e12:.1f} TB usable HBM"
                        ),
                    ],
                    "Look for an offering with more nodes in one fabric.",
                    {
                        "gpus_short": int(min_gpus - max_nodes * gpn),
                        "text": f"At least {min_gpus} GPUs are needed before activations.",
                    },
                )
            )
    return _merge("cluster-too-small", sig[:1])


def rule_deadline_missed(ctx: Context) -> list[Finding]:
    """Fires when the predicted training time exceeds the workload's deadline."""
    days = _num((ctx.sizing or {}).get("train_days"))
    deadline = _num((ctx.workload or {}).get("deadline_days"))
    if not days or not deadline or days <= deadline:
        return []
    sig = Signal(
        "critical",
        f"Training takes {days:.1f} days, the deadline is {deadline:g}",
        [
            model(f"train_days = {days:.1f}", "train_days", days),
            Ref(
                source="model",
                text=f"workload deadline_days = {deadline:g}",
                fact="deadline_days",
                value=deadline,
            ),
        ],
        "Ask for more nodes in one fabric, or compare faster offerings; the ranking shows which meet the "
        "deadline.",
        {"days_over": round(days - deadline, 1), "text": f"{days - deadline:.1f} days late."},
    )
    return _merge("deadline-missed", [sig])


def rule_over_budget(ctx: Context) -> list[Finding]:
    """Fires when the predicted full bill exceeds the workload's budget."""
    cost = (ctx.sizing or {}).get("cost") or {}
    total = _num((ctx.bill or {}).get("total_usd")) or (
        _num(cost.get("total_usd")) if isinstance(cost, dict) else None
    )
    budget = _num((ctx.workload or {}).get("budget_usd"))
    if not total or not budget or total <= budget:
        return []
    sig = Signal(
        "critical",
        f"Predicted bill ${total:,.0f} exceeds the budget ${budget:,.0f}",
        [
            model(f"total_usd = {total:,.0f}", "total_usd", total),
            Ref(source="model", text=f"workload budget_usd = {budget:,.0f}", fact="budget_usd", value=budget),
        ],
        "Compare billing plans (reserved or cluster cycles) and cheaper offerings that still meet the "
        "deadline.",
        {"usd_over": round(total - budget, 2), "text": f"${total - budget:,.0f} over budget."},
    )
    return _merge("over-budget", [sig])


# --- Registry and entry point ----------------------------------------------------------------------

RuleFn = Callable[[Context], list[Finding]]

RULES: dict[str, RuleFn] = {
    "fabric-not-rdma": rule_fabric_not_rdma,
    "usable-gpus-short": rule_usable_gpus_short,
    "no-fault-tolerance": rule_no_fault_tolerance,
    "ecosystem-lock-in": rule_ecosystem_lock_in,
    "intra-node-not-full-mesh": rule_intra_node_not_full_mesh,
    "hidden-fees": rule_hidden_fees,
    "fabric-too-slow": rule_fabric_too_slow,
    "topology-wont-scale": rule_topology_wont_scale,
    "no-topology-aware-placement": rule_no_topology_aware_placement,
    "cluster-too-small": rule_cluster_too_small,
    "deadline-missed": rule_deadline_missed,
    "over-budget": rule_over_budget,
}


def rule_catalog() -> list[dict[str, str]]:
    """Code and one-line description of every rule, for the UI."""
    return [{"code": code, "fires_when": (fn.__doc__ or "").strip()} for code, fn in RULES.items()]


def run_rules(
    offering: dict,
    *,
    workload: dict | None = None,
    sizing: dict | None = None,
    evidence: Sequence[dict] = (),
    bill: dict | None = None,
    codes: Iterable[str] | None = None,
) -> list[Finding]:
    """All findings for one offering, most severe first (stable by rule order within a severity)."""
    ctx = build_context(offering or {}, workload, sizing, list(evidence or ()), bill)
    findings: list[Finding] = []
    for code in codes or RULES:
        findings.extend(RULES[code](ctx))
    return sorted(findings, key=lambda f: _SEVERITY_RANK[f.severity])
