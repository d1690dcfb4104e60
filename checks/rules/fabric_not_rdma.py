"""Pitfall fabric-not-rdma: plain Ethernet sold as "high-speed networking" (DESIGN section 6).

The claim is judged first (TCP, TCP offload, unpublished transport), then every upload that shows the
fabric: ibstat-style port lists, the NICs `nvidia-smi topo -m` sees, perftest's link type, lspci's NIC
mode, and multi-node nccl-tests bus bandwidth against the claimed line rate.
"""

from __future__ import annotations

import re
from typing import Any

from checks.rules.base import (
    Finding,
    Signal,
    _,
    claim,
    joined,
    listed,
    merge,
    model,
    ngettext,
    percent,
    sentences,
    to_float,
    upload,
)
from checks.rules.context import (
    PORT_KINDS,
    Context,
    busbw,
    claimed_layer,
    claimed_nics,
    comm_breakdown,
    items_of,
    port_active,
    port_down,
    port_layer,
    port_name,
    ports_of,
    run_lines,
    run_nodes,
    summary_of,
    usable_runs,
)
from checks.rules.thresholds import MEASURED_CRITICAL_RATIO, MEASURED_WARNING_RATIO, SINGLE_NODE_MAX_PARAMS
from checks.severity import Severity
from hardware import FABRIC_LINK_LAYERS, fabric_efficiency, fabric_name

_RDMA_WORDS = re.compile(r"rdma|infiniband|\bib\b|roce|high[- ]speed|gpudirect|efa|ndr|hdr|xdr", re.I)

_ASK = _(
    "Ask for `ibstat` from every node and a multi-node nccl-tests all-reduce (NCCL_ALGO=Ring, 1-16 GiB)."
)


def rule_fabric_not_rdma(ctx: Context) -> list[Finding]:
    """Fires when the fabric is TCP, unknown under an RDMA claim, or evidence shows Ethernet / low busbw."""
    signals = _fabric_claim_signals(ctx)
    signals += _fabric_port_evidence(ctx)
    signals += _fabric_busbw_evidence(ctx)
    return merge("fabric-not-rdma", signals)


# --- The claim -------------------------------------------------------------------------------------


def _fabric_claim_signals(ctx: Context) -> list[Signal]:
    """What the published fabric type says on its own: TCP, TCP offload, or a transport not named."""
    offering = ctx.offering
    fabric = offering.get("fabric")
    if fabric == "ethernet":
        return [_tcp_signal(ctx)]
    if fabric == "tcpx":
        return [
            Signal(
                Severity.WARNING,
                _("Inter-node fabric is GPUDirect-TCPX (TCP offload), not RDMA"),
                [claim(offering, "fabric"), claim(offering, "fabric_label")],
                _(
                    "Ask for nccl-tests all-reduce at the job's node count: TCPXO measured 338.8 GB/s busbw "
                    "on 2 A3 Mega nodes, but 2-node results are inflated and scaling beyond is unproven. "
                    "%(ask)s",
                    ask=_ASK,
                ),
                {
                    "text": _(
                        "TCP offload can be decent (Google Cloud A3 Mega: 338.8 GB/s on 2 nodes) "
                        "but needs the provider's NCCL plugin and is not RDMA."
                    )
                },
            )
        ]
    if fabric is None or fabric == "other":
        return _unnamed_transport_signals(ctx)
    return []


def _tcp_signal(ctx: Context) -> Signal:
    offering = ctx.offering
    big = ctx.params_total >= SINGLE_NODE_MAX_PARAMS
    if ctx.multi_node:
        severity = Severity.CRITICAL if big else Severity.WARNING
    else:
        severity = Severity.INFO
    return Signal(
        severity,
        _("Inter-node fabric is plain TCP Ethernet, not RDMA"),
        [claim(offering, "fabric"), claim(offering, "fabric_label"), model(ctx.job_words)],
        _(
            "Demand InfiniBand or RoCE with GPUDirect RDMA (one 200-400 Gb/s port per GPU) for a multi-node "
            "job, or price the slowdown in. %(ask)s",
            ask=_ASK,
        ),
        {
            "text": _(
                "TCP without RDMA reaches single-digit GB/s per 100GbE link in published nccl-tests runs, "
                "against ~46-48 GB/s per NDR port: gradient all-reduce becomes the step time."
            )
        },
    )


def _unnamed_transport_signals(ctx: Context) -> list[Signal]:
    """No fabric type, or a provider-specific one: say so, louder when the label claims RDMA."""
    offering = ctx.offering
    fabric = offering.get("fabric")
    label = str(offering.get("fabric_label") or "")
    claims_rdma = bool(_RDMA_WORDS.search(label))
    refs = [claim(offering, "fabric"), claim(offering, "fabric_label")]
    if fabric is None and (claims_rdma or ctx.multi_node):
        return [
            Signal(
                Severity.WARNING,
                _("Fabric type not published behind the claim '%(label)s'", label=label)
                if claims_rdma
                else _("Fabric type not published"),
                refs,
                _(
                    "Ask which transport the GPU fabric uses (InfiniBand, RoCE v2, EFA, TCP). %(ask)s",
                    ask=_ASK,
                ),
                {"text": _("Unknown until the provider names the transport or evidence shows it.")},
            )
        ]
    if fabric == "other" and not claims_rdma:
        return [
            Signal(
                Severity.INFO,
                _("Fabric is a provider-specific transport"),
                refs,
                _("Ask whether it is RDMA and for multi-node nccl-tests results. %(ask)s", ask=_ASK),
            )
        ]
    return []


# --- Port, NIC and link-type evidence --------------------------------------------------------------


def _fabric_port_evidence(ctx: Context) -> list[Signal]:
    """Uploads that show which ports and NICs the node really has, against the claimed fabric."""
    if claimed_layer(ctx.offering.get("fabric")) is None:
        return []
    signals: list[Signal] = []
    for item in items_of(ctx, *PORT_KINDS):
        signals += _ibstat_signals(ctx, item)
    for item in items_of(ctx, "nvidia-smi-topo"):
        signals += _topo_nic_signals(ctx, item)
    for item in items_of(ctx, "perftest"):
        signals += _perftest_signals(ctx, item)
    if ctx.offering.get("fabric") == "infiniband":
        for item in items_of(ctx, "lspci"):
            signals += _lspci_signals(ctx, item)
    return signals


def _ibstat_signals(ctx: Context, item: dict) -> list[Signal]:
    """One port listing: Ethernet under an InfiniBand claim, ports below the claimed rate, ports missing."""
    fabric = ctx.offering.get("fabric")
    layer = claimed_layer(fabric)
    ports = ports_of(item)
    active = [port for port in ports if port_active(port)]
    claimed_active = [port for port in active if port_layer(port) == layer]
    ethernet_active = [port for port in active if port_layer(port) == "ethernet"]
    if fabric == "infiniband" and not claimed_active and ethernet_active:
        return [_ethernet_ports_signal(ctx, item, ethernet_active)]
    if not claimed_active:
        return []
    signals = _slow_ports_signals(ctx, item, claimed_active)
    nics = claimed_nics(ctx.offering)
    if (
        nics
        and len(claimed_active) < nics
        and not any(port_down(port) and port_layer(port) == layer for port in ports)
    ):
        # Ports of the claimed layer missing altogether (down ones are counted by usable-gpus-short).
        signals.append(
            Signal(
                Severity.WARNING,
                ngettext(
                    "%(file)s: %(found)s %(fabric)s port found, %(nics)s claimed per node",
                    "%(file)s: %(found)s %(fabric)s ports found, %(nics)s claimed per node",
                    len(claimed_active),
                    file=item.get("filename"),
                    found=len(claimed_active),
                    fabric=fabric_name(fabric),
                    nics=nics,
                ),
                [
                    claim(ctx.offering, "nics_per_node"),
                    upload(
                        item,
                        ngettext(
                            "%(count)s active %(layer)s port",
                            "%(count)s active %(layer)s ports",
                            len(claimed_active),
                            count=len(claimed_active),
                            layer=FABRIC_LINK_LAYERS.get(fabric or "", layer),
                        ),
                        [port.get("line") for port in claimed_active],
                    ),
                ],
                _(
                    "Ask for the output from every node; a VM may hide some HCAs, but the contract should "
                    "state the GPU-fabric ports per node."
                ),
                {
                    "text": _(
                        "Inter-node bandwidth up to %(pct)s below claim.",
                        pct=f"{1 - len(claimed_active) / nics:.0%}",
                    )
                },
            )
        )
    return signals


def _ethernet_ports_signal(ctx: Context, item: dict, ethernet_active: list[dict]) -> Signal:
    return Signal(
        Severity.CRITICAL,
        _("%(file)s: ports are Ethernet where InfiniBand is claimed", file=item.get("filename")),
        [
            claim(ctx.offering, "fabric"),
            upload(
                item,
                ngettext(
                    "%(count)s active port, link_layer Ethernet (%(ports)s); no active InfiniBand port",
                    "%(count)s active ports, all link_layer Ethernet (%(ports)s); no active InfiniBand port",
                    len(ethernet_active),
                    count=len(ethernet_active),
                    ports=listed(
                        joined(port_name(port), f"{port.get('rate_gbps')} Gb/s")
                        for port in ethernet_active[:8]
                    ),
                ),
                [port.get("line") for port in ethernet_active],
            ),
        ],
        _(
            "Do not accept an Ethernet (RoCE or TCP) fabric under an InfiniBand contract; ask which nodes "
            "carry the InfiniBand HCAs, or renegotiate the price for RoCE after seeing nccl-tests."
        ),
        {"text": _("The fabric tested is not the fabric sold.")},
    )


def _slow_ports_signals(ctx: Context, item: dict, claimed_active: list[dict]) -> list[Signal]:
    """InfiniBand ports active below the claimed rate, while too few run at it."""
    offering = ctx.offering
    gbps = to_float(offering.get("gbps_per_nic"))
    if not gbps:
        return []
    nics = claimed_nics(offering)
    # Count ports of the claimed layer at (or above) the claimed rate; front-end Ethernet ports next to
    # the GPU rails are normal and must not count against an InfiniBand claim (evidence FORMATS.md 4).
    slow = [port for port in claimed_active if (to_float(port.get("rate_gbps")) or 0) < gbps * 0.99]
    at_rate = len(claimed_active) - len(slow)
    if not (offering.get("fabric") == "infiniband" and slow and (nics is None or at_rate < nics)):
        return []
    rates = sorted(rate for rate in {to_float(port.get("rate_gbps")) for port in slow} if rate is not None)
    return [
        Signal(
            Severity.CRITICAL if rates and max(rates) <= gbps * MEASURED_CRITICAL_RATIO else Severity.WARNING,
            _(
                "%(file)s: InfiniBand ports run at %(rates)s Gb/s, not the claimed %(gbps)s",
                file=item.get("filename"),
                rates=listed(f"{rate:g}" for rate in rates),
                gbps=f"{gbps:g}",
            ),
            [
                claim(offering, "gbps_per_nic"),
                upload(
                    item,
                    _(
                        "active InfiniBand ports below the claimed rate: %(ports)s",
                        ports=listed(port_name(port) for port in slow[:8]),
                    ),
                    [port.get("line") for port in slow],
                ),
            ],
            _("Ask for the NIC generation and switch speed in the contract (e.g. 'NDR 400 Gb/s per GPU')."),
            {
                "slowdown_pct": None,
                "text": _("Port rate %(pct)s of the claim.", pct=f"{max(rates) / gbps:.0%}") if rates else "",
            },
        )
    ]


def _topo_nic_signals(ctx: Context, item: dict) -> list[Signal]:
    """`nvidia-smi topo -m` lists every RDMA device next to the GPUs: fewer than claimed is missing rails."""
    summary = summary_of(item)
    nics = claimed_nics(ctx.offering)
    seen = to_float(summary.get("nics"))
    if not (
        nics
        and seen is not None
        and seen < nics
        and (to_float(summary.get("gpus")) or 0) >= (ctx.gpus_per_node or 2)
    ):
        return []
    # Fewer than the claimed fabric ports means missing rails, or a VM that hides them (evidence
    # SOURCES.md: hgx-a100 1 NIC, rhel-ai-vm none).
    return [
        Signal(
            Severity.WARNING,
            ngettext(
                "%(file)s: %(seen)s NIC beside the GPUs, %(nics)s fabric ports claimed",
                "%(file)s: %(seen)s NICs beside the GPUs, %(nics)s fabric ports claimed",
                int(seen),
                file=item.get("filename"),
                seen=f"{seen:g}",
                nics=nics,
            ),
            [
                claim(ctx.offering, "nics_per_node"),
                upload(
                    item,
                    _(
                        "NIC columns: %(names)s",
                        names=listed(summary.get("nic_names") or []) or _("none"),
                    ),
                    [summary.get("header_line")],
                ),
            ],
            _(
                "Ask for `ibstat` from the same node; if the node really has fewer rails, the per-GPU "
                "bandwidth is below the claim."
            ),
            {
                "text": _(
                    "Up to %(pct)s less inter-node bandwidth than claimed.", pct=f"{1 - seen / nics:.0%}"
                )
            },
        )
    ]


def _perftest_signals(ctx: Context, item: dict) -> list[Signal]:
    """ib_write_bw prints the link type it ran over."""
    link = str(summary_of(item).get("link_layer") or "").lower()
    if not (ctx.offering.get("fabric") == "infiniband" and "ethernet" in link):
        return []
    return [
        Signal(
            Severity.CRITICAL,
            _(
                "%(file)s: ib_write_bw ran over Ethernet (RoCE) where InfiniBand is claimed",
                file=item.get("filename"),
            ),
            [
                claim(ctx.offering, "fabric"),
                upload(item, _("perftest `Link type: Ethernet`"), [summary_of(item).get("line")]),
            ],
            _("Ask which fabric the contracted nodes use and re-run the test on them."),
        )
    ]


def _lspci_signals(ctx: Context, item: dict) -> list[Signal]:
    """lspci names the mode of each RDMA NIC function: all Ethernet means no InfiniBand here."""
    summary = summary_of(item)
    nic_entries = summary.get("rdma_nic_functions") or summary.get("rdma_nics") or []
    if not isinstance(nic_entries, list):
        return []
    texts = [str(entry).lower() for entry in nic_entries]
    ethernet = [entry for entry, text in zip(nic_entries, texts, strict=True) if "ethernet" in text]
    infiniband = [text for text in texts if "infiniband" in text]
    if not ethernet or infiniband:
        return []
    return [
        Signal(
            Severity.CRITICAL,
            _(
                "%(file)s: the RDMA NICs are Ethernet controllers where InfiniBand is claimed",
                file=item.get("filename"),
            ),
            [
                claim(ctx.offering, "fabric"),
                upload(
                    item,
                    ngettext(
                        "%(count)s NIC function in Ethernet mode",
                        "%(count)s NIC functions in Ethernet mode",
                        len(ethernet),
                        count=len(ethernet),
                    ),
                    [entry.get("line") for entry in ethernet if isinstance(entry, dict)],
                ),
            ],
            _("Ask for the NICs to be set to InfiniBand mode on an InfiniBand fabric, or price it as RoCE."),
        )
    ]


# --- Measured inter-node bus bandwidth -------------------------------------------------------------

# Ring-like collectives are bounded by the node's NIC bandwidth; alltoall and sendrecv have other bounds
# (per-GPU rail, pairwise) and are not compared with the line rate.
_RING_COLLECTIVES = ("all_reduce", "all_gather", "reduce_scatter")


def _fabric_busbw_evidence(ctx: Context) -> list[Signal]:
    """The best multi-node ring-collective run against the claimed NICs' line rate: one good run is enough."""
    offering = ctx.offering
    nics, gbps = to_float(offering.get("nics_per_node")), to_float(offering.get("gbps_per_nic"))
    if not (nics and gbps):
        return []
    best: tuple[float, Signal] | None = None
    for item in items_of(ctx, "nccl-tests", "rccl-tests", "hccl-test"):
        for run in usable_runs(item, ctx.offering):
            nodes = run_nodes(item, run, ctx.gpus_per_node)
            if str(run.get("collective") or "") not in _RING_COLLECTIVES or not nodes or nodes < 2:
                continue
            ranks = to_float(run.get("ranks")) or 0
            per_node = to_float(run.get("gpus_per_node")) or ranks / nodes
            # A run with fewer GPUs per node than the node has uses only their rails (one NIC share per GPU).
            share = min(1.0, per_node / ctx.gpus_per_node) if ctx.gpus_per_node else 1.0
            line_gbytes = nics * gbps * share / 8.0
            ratio = (busbw(run) or 0.0) / line_gbytes
            if ratio >= MEASURED_WARNING_RATIO:
                if run.get("nvls_or_tree_suspected"):
                    continue  # 2-node tree/NVLS inflates all-reduce busbw (FORMATS.md 1.3): proves nothing
                return []  # one good multi-node run backs the claim
            signal = _low_busbw_signal(ctx, item, run, nodes, per_node, line_gbytes)
            if best is None or ratio > best[0]:
                best = (ratio, signal)
    return [best[1]] if best else []


def _low_busbw_signal(
    ctx: Context, item: dict, run: dict, nodes: int, per_node: float, line_gbytes: float
) -> Signal:
    """A multi-node run below the line rate, with the step-time cost when the sizing breakdown has one."""
    offering = ctx.offering
    collective = str(run.get("collective") or "")
    ranks = to_float(run.get("ranks")) or 0
    measured = busbw(run) or 0.0
    ratio = measured / line_gbytes
    impact: dict[str, Any] = {
        "measured_busbw_gbps": round(measured, 2),
        "expected_busbw_gbps": round(line_gbytes, 2),
        "measured_ratio": round(ratio, 3),
    }
    text = _(
        "%(collective)s busbw %(measured)s GB/s on %(nodes)s nodes x %(per_node)s GPUs is %(ratio)s of the "
        "%(line)s GB/s the claimed NICs carry.",
        collective=collective,
        measured=f"{measured:.1f}",
        nodes=nodes,
        per_node=f"{per_node:g}",
        ratio=f"{ratio:.0%}",
        line=f"{line_gbytes:.1f}",
    )
    comm = comm_breakdown(ctx.sizing)
    if comm and comm[0] > 0:
        inter, _tp, total = comm
        extra = inter * (fabric_efficiency(offering.get("fabric")) / max(ratio, 1e-3) - 1.0)
        impact["slowdown_pct"] = percent(extra / total)
        text = sentences(
            text,
            _(
                "If inter-node traffic is exposed, steps run up to %(pct)s slower.",
                pct=f"{extra / total:.0%}",
            ),
        )
    impact["text"] = text
    return Signal(
        Severity.CRITICAL if ratio < MEASURED_CRITICAL_RATIO else Severity.WARNING,
        _(
            "%(file)s: measured inter-node busbw %(ratio)s of line rate",
            file=item.get("filename"),
            ratio=f"{ratio:.0%}",
        ),
        [
            claim(offering, "nics_per_node"),
            claim(offering, "gbps_per_nic"),
            upload(
                item,
                _(
                    "%(collective)s, %(ranks)s ranks on %(nodes)s nodes: busbw %(busbw)s GB/s at the largest "
                    "message",
                    collective=collective,
                    ranks=int(ranks),
                    nodes=nodes,
                    busbw=f"{measured:.2f}",
                ),
                run_lines(run),
            ),
        ],
        _(
            "Ask the provider to reproduce with NCCL_ALGO=Ring at 1-16 GiB and explain the gap (GID index, "
            "PFC/ECN, GPUDirect RDMA, NIC-GPU affinity) before signing; write the expected busbw into the "
            "acceptance test."
        ),
        impact,
    )
