"""Pitfall intra-node-not-full-mesh: tensor parallelism over PCIe or bridged pairs (DESIGN section 6).

The claim is judged first (PCIe, NVLink bridges, unpublished), then, where a full mesh is claimed or
nothing is, the uploads that show it: `nvidia-smi topo -m` cells, the GPU model strings, `nvidia-smi
nvlink -s` / dcgmi link states and speeds, and single-node nccl-tests bus bandwidth.
"""

from __future__ import annotations

from typing import Any

from checks.rules.base import (
    Finding,
    Signal,
    _,
    claim,
    listed,
    merge,
    model,
    percent,
    sentences,
    to_float,
    upload,
)
from checks.rules.context import (
    Context,
    busbw,
    comm_breakdown,
    items_of,
    lines_of,
    run_lines,
    run_nodes,
    summary_of,
    usable_runs,
)
from checks.rules.thresholds import (
    MEASURED_CRITICAL_RATIO,
    MEASURED_WARNING_RATIO,
    PCIE_GBYTES_PER_S,
    SINGLE_NODE_MAX_PARAMS,
)
from checks.severity import Severity
from hardware import INTRA_NODE_NAMES, gpu_from_text, intra_node_busbw_efficiency


def rule_intra_node_not_full_mesh(ctx: Context) -> list[Finding]:
    """Fires on PCIe/bridged GPUs for TP, or evidence of missing/inactive NVLinks or low busbw."""
    offering = ctx.offering
    intra = offering.get("intra_node")
    tp = _tp_needed(ctx)
    signals: list[Signal] = []
    nvlink = to_float(offering.get("intra_node_gbytes_per_s")) or (
        ctx.spec.scale_up_gbytes_per_s if ctx.spec else 0.0
    )
    if intra in ("pcie", "nvlink-bridge"):
        signals.append(_slow_bus_signal(ctx, tp))
    elif intra is None and tp > 1:
        signals.append(
            Signal(
                Severity.WARNING,
                _("Intra-node interconnect not published"),
                [claim(offering, "intra_node"), claim(offering, "gpu_label")],
                _topology_advice(ctx),
            )
        )
    if intra in ("nvswitch", "nvlink-mesh", None):
        signals += _mesh_evidence(ctx, nvlink, tp)
    return merge("intra-node-not-full-mesh", signals)


def _topology_advice(ctx: Context) -> str:
    """Which report proves the node's GPU links: the vendor's own tool (rocm-smi on AMD Instinct,
    npu-smi on Huawei Ascend; their sources are with `checks.checklist.VENDOR_WORDING`)."""
    if ctx.spec is not None and ctx.spec.vendor == "amd":
        return _(
            "Ask for `rocm-smi --showtopo` from a contracted node: every pair of GPUs should be joined by "
            "one XGMI link."
        )
    if ctx.spec is not None and ctx.spec.vendor == "huawei":
        return _(
            "Ask for `npu-smi info -t topo` from a contracted node: every pair of NPUs should be joined by "
            "HCCS."
        )
    return _("Ask for `nvidia-smi topo -m` and `nvidia-smi nvlink -s` from a contracted node.")


def _tp_needed(ctx: Context) -> int:
    layout = (ctx.sizing or {}).get("layout") or {}
    tp = to_float(layout.get("tp")) if isinstance(layout, dict) else None
    if tp:
        return int(tp)
    # Seed rule: 30B+ needs TP inside a full-mesh node (DESIGN section 6).
    return 8 if ctx.params_total >= SINGLE_NODE_MAX_PARAMS else 1


def _tp_slowdown(ctx: Context, bandwidth_ratio: float) -> float | None:
    """Step-time increase if TP traffic (modelled at full mesh) ran at `bandwidth_ratio` of it."""
    comm = comm_breakdown(ctx.sizing)
    if not comm or comm[1] <= 0 or bandwidth_ratio <= 0:
        return None
    _inter, tp_s, total = comm
    return percent(tp_s * (1 / bandwidth_ratio - 1) / total)


def _pcie_slowdown(ctx: Context, nvlink: float) -> float | None:
    """Step-time increase if TP traffic crossed PCIe instead of NVLink."""
    return _tp_slowdown(ctx, PCIE_GBYTES_PER_S / max(nvlink, 1.0))


def _expected_nvlinks(ctx: Context, item: dict) -> int | None:
    models = summary_of(item).get("gpu_models") or []
    spec = ctx.spec or (gpu_from_text(str(models[0])) if isinstance(models, list) and models else None)
    return spec.nvlinks if spec and spec.nvlinks else None


# --- The claim -------------------------------------------------------------------------------------


def _slow_bus_signal(ctx: Context, tp: int) -> Signal:
    """GPUs joined by PCIe or bridged pairs, with the TP cost when the sizing breakdown has one."""
    offering = ctx.offering
    intra = offering.get("intra_node")
    text = _(
        "Tensor parallelism of %(tp)s crosses %(bus)s, ~%(pcie)s GB/s per GPU against 300-900 GB/s on an "
        "NVSwitch node.",
        tp=tp,
        bus="PCIe" if intra == "pcie" else _("bridged pairs and PCIe"),
        pcie=f"{PCIE_GBYTES_PER_S:g}",
    )
    impact: dict[str, Any] = {}
    comm = comm_breakdown(ctx.sizing)
    if comm and comm[1] > 0:
        _inter, tp_s, total = comm
        full_mesh = ctx.spec.scale_up_gbytes_per_s if ctx.spec and ctx.spec.scale_up_gbytes_per_s else 450.0
        saved = tp_s * (1 - PCIE_GBYTES_PER_S / full_mesh)
        impact["slowdown_pct"] = percent(total / (total - saved) - 1) if total > saved else None
        tp_share = _("TP traffic is %(pct)s of each step on this bus.", pct=f"{tp_s / total:.0%}")
        text = sentences(text, tp_share)
    impact["text"] = text
    return Signal(
        Severity.CRITICAL if tp > 1 else Severity.WARNING,
        _("GPUs in a node are joined by PCIe only")
        if intra == "pcie"
        else _("GPUs in a node are joined by NVLink bridges in pairs"),
        [
            claim(offering, "intra_node"),
            claim(offering, "gpu"),
            model(_("tensor parallelism needed: TP=%(tp)s", tp=tp), "tp", tp),
        ],
        _(
            "For 30B+ training rent NVSwitch (full-mesh) nodes, e.g. HGX/DGX H100/H200 with NV18 between "
            "every pair; ask for `nvidia-smi topo -m` from a contracted node."
        ),
        impact,
    )


# --- Evidence of the mesh --------------------------------------------------------------------------


def _mesh_evidence(ctx: Context, nvlink: float, tp: int) -> list[Signal]:
    """Uploads that show whether the node's GPUs really are a full NVLink mesh."""
    signals: list[Signal] = []
    for item in items_of(ctx, "nvidia-smi-topo"):
        signals += _topo_signals(ctx, item, nvlink, tp)
    for item in items_of(ctx, "nvidia-smi"):
        signals += _pcie_model_signals(ctx, item, nvlink, tp)
    for item in items_of(ctx, "nvidia-smi-nvlink", "dcgmi-nvlink"):
        signals += _nvlink_state_signals(ctx, item, nvlink, tp)
        signals += _nvlink_speed_signals(ctx, item)
    if nvlink:
        signals += _intra_busbw_evidence(ctx, nvlink)
    return signals


def _topo_signals(ctx: Context, item: dict, nvlink: float, tp: int) -> list[Signal]:
    """`nvidia-smi topo -m`: GPU pairs without NVLink, or fewer NVLinks per pair than the GPU has."""
    offering = ctx.offering
    summary = summary_of(item)
    lines = lines_of(summary)
    expected = _expected_nvlinks(ctx, item)
    min_nvlinks = to_float(summary.get("min_nvlinks_per_pair"))
    if (to_float(summary.get("gpus")) or 0) < 2:
        return []
    if summary.get("full_nvlink_mesh") is False:
        return [
            Signal(
                Severity.CRITICAL if tp > 1 else Severity.WARNING,
                _(
                    "%(file)s: GPU pairs without NVLink (PCIe paths) under a %(claim)s claim",
                    file=item.get("filename"),
                    claim=INTRA_NODE_NAMES.get(offering.get("intra_node") or "") or _("full-mesh"),
                ),
                [
                    claim(offering, "intra_node"),
                    upload(item, _("GPU x GPU cells show SYS/NODE/PHB/PXB/PIX, not NV#"), lines),
                ],
                _(
                    "Refuse the node type for tensor parallelism; ask for HGX/DGX nodes with an NVSwitch "
                    "full mesh."
                ),
                {
                    "slowdown_pct": _pcie_slowdown(ctx, nvlink),
                    "text": _("Tensor-parallel all-reduces between these pairs run over PCIe."),
                },
            )
        ]
    if min_nvlinks is None or not expected or min_nvlinks >= expected:
        return []
    ratio = min_nvlinks / expected
    return [
        Signal(
            Severity.CRITICAL if ratio < MEASURED_CRITICAL_RATIO else Severity.WARNING,
            _(
                "%(file)s: NV%(seen)s between GPU pairs where NV%(expected)s is expected",
                file=item.get("filename"),
                seen=f"{min_nvlinks:g}",
                expected=expected,
            ),
            [
                claim(offering, "gpu"),
                claim(offering, "intra_node"),
                upload(item, _("min NVLinks per GPU pair = %(links)s", links=f"{min_nvlinks:g}"), lines),
            ],
            _(
                "Ask which board this is (e.g. a 4-GPU NV6 board or H800 NV8 is not an HGX H100 NV18) and "
                "for the contracted node's topology."
            ),
            {
                "slowdown_pct": _tp_slowdown(ctx, ratio),
                "text": _("Pairwise NVLink bandwidth %(pct)s of the expected full mesh.", pct=f"{ratio:.0%}"),
            },
        )
    ]


def _pcie_model_signals(ctx: Context, item: dict, nvlink: float, tp: int) -> list[Signal]:
    """nvidia-smi's model strings: PCIe cards where SXM/NVSwitch is claimed or nothing is."""
    offering = ctx.offering
    summary = summary_of(item)
    models = [str(name) for name in summary.get("gpu_models") or []]
    pcie = [name for name in models if "PCIE" in name.upper()]
    if not (
        pcie
        and offering.get("intra_node") in ("nvswitch", None)
        and "pcie" not in str(offering.get("gpu") or "").lower()
    ):
        return []
    # PCIe cards have no NVSwitch; at best pairs are bridged (evidence FORMATS.md section 2).
    return [
        Signal(
            Severity.CRITICAL if tp > 1 else Severity.WARNING,
            _(
                "%(file)s: PCIe GPUs (%(gpus)s) where SXM/NVSwitch is claimed",
                file=item.get("filename"),
                gpus=listed(pcie),
            ),
            [
                claim(offering, "gpu"),
                claim(offering, "intra_node"),
                upload(item, _("GPU model strings"), lines_of(summary)),
            ],
            _("Ask for the SXM (HGX) node type you pay for; PCIe cards have no NVSwitch full mesh."),
            {"slowdown_pct": _pcie_slowdown(ctx, nvlink)},
        )
    ]


def _active_link_counts(summary: dict) -> list[int]:
    """Active NVLinks per GPU, whether the parser gives a dict by GPU, a list or one number."""
    links = summary.get("active_links_per_gpu")
    values = links.values() if isinstance(links, dict) else links if isinstance(links, list) else [links]
    return [int(value) for value in values if to_float(value) is not None]


def _nvlink_state_signals(ctx: Context, item: dict, nvlink: float, tp: int) -> list[Signal]:
    """`nvidia-smi nvlink -s` / dcgmi: GPUs with no NVLink up, or fewer than the GPU has."""
    offering = ctx.offering
    summary = summary_of(item)
    counts = _active_link_counts(summary)
    expected = _expected_nvlinks(ctx, item)
    if counts and min(counts) == 0 and (summary.get("gpus") or len(counts)):
        return [
            Signal(
                Severity.CRITICAL if tp > 1 else Severity.WARNING,
                _("%(file)s: NVLinks inactive", file=item.get("filename")),
                [
                    claim(offering, "intra_node"),
                    upload(item, _("active links per GPU: %(counts)s", counts=counts), lines_of(summary)),
                ],
                _(
                    "Ask for a node whose NVLinks are all up (check `nvidia-smi nvlink -s` on every node at "
                    "handover)."
                ),
                {"slowdown_pct": _pcie_slowdown(ctx, nvlink)},
            )
        ]
    if not (counts and expected and min(counts) < expected):
        return []
    return [
        Signal(
            Severity.WARNING if min(counts) / expected >= MEASURED_CRITICAL_RATIO else Severity.CRITICAL,
            _(
                "%(file)s: %(active)s of %(expected)s NVLinks active on some GPU",
                file=item.get("filename"),
                active=min(counts),
                expected=expected,
            ),
            [
                claim(offering, "gpu"),
                upload(item, _("active links per GPU: %(counts)s", counts=counts), lines_of(summary)),
            ],
            _("Ask for the node to be repaired or swapped and for `dcgmi diag -r 3` before acceptance."),
            {"slowdown_pct": _tp_slowdown(ctx, min(counts) / expected)},
        )
    ]


def _nvlink_speed_signals(ctx: Context, item: dict) -> list[Signal]:
    """Links up but trained below the GPU's per-link rate."""
    summary = summary_of(item)
    link_gbps = to_float(summary.get("link_gbps"))
    if not (
        link_gbps
        and ctx.spec
        and ctx.spec.link_gbytes_per_s
        and link_gbps < 0.95 * ctx.spec.link_gbytes_per_s
    ):
        return []
    return [
        Signal(
            Severity.WARNING,
            _(
                "%(file)s: NVLinks run at %(seen)s GB/s, expected %(expected)s",
                file=item.get("filename"),
                seen=f"{link_gbps:g}",
                expected=f"{ctx.spec.link_gbytes_per_s:g}",
            ),
            [
                claim(ctx.offering, "gpu"),
                upload(item, _("link speed %(speed)s GB/s", speed=f"{link_gbps:g}"), lines_of(summary)),
            ],
            _("Ask why the links are down-trained."),
            {"slowdown_pct": _tp_slowdown(ctx, link_gbps / ctx.spec.link_gbytes_per_s)},
        )
    ]


def _single_node_run(ctx: Context, item: dict, run: dict) -> bool:
    nodes = run_nodes(item, run, ctx.gpus_per_node)
    if nodes == 1:
        return True
    return bool(
        nodes is None and ctx.gpus_per_node and (to_float(run.get("ranks")) or 0) <= ctx.gpus_per_node
    )


def _intra_busbw_evidence(ctx: Context, nvlink: float) -> list[Signal]:
    """The worst single-node nccl-tests run against what a healthy NVSwitch node reaches."""
    expected_busbw = intra_node_busbw_efficiency("nvswitch") * nvlink
    worst: tuple[float, Signal] | None = None
    for item in items_of(ctx, "nccl-tests", "rccl-tests"):
        for run in usable_runs(item, ctx.offering):
            if not _single_node_run(ctx, item, run):
                continue
            ratio = (busbw(run) or 0.0) / expected_busbw
            if ratio >= MEASURED_WARNING_RATIO:
                continue
            signal = _intra_busbw_signal(ctx, item, run, nvlink, expected_busbw)
            if worst is None or ratio < worst[0]:
                worst = (ratio, signal)
    return [worst[1]] if worst else []


def _intra_busbw_signal(ctx: Context, item: dict, run: dict, nvlink: float, expected_busbw: float) -> Signal:
    measured = busbw(run) or 0.0
    ratio = measured / expected_busbw
    return Signal(
        Severity.CRITICAL if ratio < MEASURED_CRITICAL_RATIO else Severity.WARNING,
        _(
            "%(file)s: intra-node busbw %(ratio)s of the expected %(expected)s GB/s",
            file=item.get("filename"),
            ratio=f"{ratio:.0%}",
            expected=f"{expected_busbw:.0f}",
        ),
        [
            claim(
                ctx.offering,
                "intra_node_gbytes_per_s",
                _("NVLink %(gbps)s GB/s per GPU (claimed or GPU table)", gbps=f"{nvlink:g}"),
            ),
            upload(
                item,
                _(
                    "%(collective)s %(ranks)s ranks: busbw %(busbw)s GB/s",
                    collective=run.get("collective"),
                    ranks=int(to_float(run.get("ranks")) or 0),
                    busbw=f"{measured:.1f}",
                ),
                run_lines(run),
            ),
        ],
        _(
            "Ask for the node's `nvidia-smi topo -m` and a re-run; a healthy NVSwitch node reaches ~0.8 of "
            "the NVLink rate (A100 235 GB/s, H100 ~365 ring)."
        ),
        {
            "measured_busbw_gbps": round(measured, 2),
            "expected_busbw_gbps": round(expected_busbw, 1),
            "slowdown_pct": _tp_slowdown(ctx, ratio),
        },
    )
