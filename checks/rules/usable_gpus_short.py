"""Pitfall usable-gpus-short: paying for GPUs that are missing, broken or cut off (DESIGN section 6).

The contract is judged first (no or a weak usable-GPU guarantee, shared tenancy), then the uploads that
count GPUs and rails: nvidia-smi tables and topo columns, kernel logs, dcgmi diag, and fabric ports down.
"""

from __future__ import annotations

import math

from checks.rules.base import Finding, Signal, _, claim, listed, merge, model, ngettext, to_float, upload
from checks.rules.context import (
    PORT_KINDS,
    Context,
    claimed_layer,
    claimed_nics,
    count_of,
    items_of,
    lines_of,
    port_active,
    port_down,
    port_layer,
    port_name,
    ports_of,
    summary_of,
)
from checks.rules.thresholds import USABLE_GPU_MIN_PCT
from checks.severity import Severity


def rule_usable_gpus_short(ctx: Context) -> list[Finding]:
    """Fires on no usable-GPU guarantee (or < 90%), shared tenancy, or evidence of missing GPUs/down ports."""
    signals = _contract_signals(ctx)
    # GPU counts from the table, `-L` and topo columns; not from `nvlink -s`, which is often run with `-i 0`.
    for item in items_of(ctx, "nvidia-smi", "nvidia-smi-topo"):
        signals += _gpu_count_signals(ctx, item)
    for item in items_of(ctx, "dmesg"):
        signals += _kernel_log_signals(item)
    for item in items_of(ctx, "dcgmi-diag"):
        signals += _diag_signals(item)
    if claimed_layer(ctx.offering.get("fabric")):
        for item in items_of(ctx, *PORT_KINDS):
            signals += _down_port_signals(ctx, item)
    return merge("usable-gpus-short", signals)


def _contract_signals(ctx: Context) -> list[Signal]:
    """What the contract promises: the usable-GPU guarantee and whether nodes are shared."""
    offering = ctx.offering
    signals: list[Signal] = []
    guarantee_pct = to_float(offering.get("usable_gpu_guarantee_pct"))
    if guarantee_pct is None:
        signals.append(
            Signal(
                Severity.WARNING,
                _("No usable-GPU guarantee published"),
                [claim(offering, "usable_gpu_guarantee_pct"), claim(offering, "usable_gpu_credit")],
                _(
                    "Ask for a contract clause: at least 95%% of contracted GPUs healthy at any time, "
                    "unusable nodes credited or replaced within hours; uptime SLAs usually count a "
                    "degraded-but-reachable GPU as up (ClusterProof)."
                ),
                {"text": _("No provider publishes a usable-GPU percentage.")},
            )
        )
    elif guarantee_pct < USABLE_GPU_MIN_PCT:
        short = math.ceil(ctx.gpus * (1 - guarantee_pct / 100))
        signals.append(
            Signal(
                Severity.WARNING,
                _("Usable-GPU guarantee only %(pct)s%%", pct=f"{guarantee_pct:g}"),
                [
                    claim(offering, "usable_gpu_guarantee_pct"),
                    claim(offering, "usable_gpu_credit"),
                    model(ctx.job_words),
                ],
                _(
                    "Negotiate at least 90-95%% with a credit or replacement deadline, or contract ~10%% "
                    "spare nodes (stas00/ml-engineering)."
                ),
                {
                    "gpus_short": short,
                    "text": _(
                        "Up to %(short)s of %(gpus)s GPUs may be unusable within the contract.",
                        short=short,
                        gpus=ctx.gpus,
                    ),
                },
            )
        )
    if offering.get("exclusivity") == "shared":
        signals.append(
            Signal(
                Severity.WARNING,
                _("Nodes or fabric are shared with other tenants"),
                [claim(offering, "exclusivity"), claim(offering, "bare_metal")],
                _(
                    "Ask for dedicated nodes and an isolated fabric partition; shared fabrics make busbw and "
                    "step time vary with neighbours."
                ),
            )
        )
    return signals


def _gpu_count_signals(ctx: Context, item: dict) -> list[Signal]:
    """nvidia-smi / topo: fewer GPUs listed than contracted, or GPUs whose handle is lost."""
    summary = summary_of(item)
    signals: list[Signal] = []
    gpus_per_node = ctx.gpus_per_node
    seen = to_float(summary.get("gpus"))
    nodes = int(to_float(item.get("nodes")) or 1)
    if gpus_per_node and seen is not None and 0 < seen < gpus_per_node * nodes:
        short = int(gpus_per_node * nodes - seen)
        signals.append(
            Signal(
                Severity.CRITICAL,
                _(
                    "%(file)s: %(seen)s GPUs visible where %(contracted)s are contracted",
                    file=item.get("filename"),
                    seen=int(seen),
                    contracted=gpus_per_node * nodes,
                ),
                [
                    claim(ctx.offering, "gpus_per_node"),
                    upload(item, _("%(count)s GPUs listed", count=int(seen)), lines_of(summary)),
                ],
                _(
                    "Ask whether this is the contracted node type; GPUs missing from a node are GPUs you pay "
                    "for and cannot use. Require the full count at handover."
                ),
                {
                    "gpus_short": short,
                    "text": _(
                        "%(gpus)s short on %(nodes)s.",
                        gpus=ngettext("%(short)s GPU", "%(short)s GPUs", short, short=short),
                        nodes=ngettext("%(nodes)s node", "%(nodes)s nodes", nodes, nodes=nodes),
                    ),
                },
            )
        )
    lost = count_of(summary.get("lost_gpus") or summary.get("gpus_lost") or summary.get("unreachable_gpus"))
    if lost:
        signals.append(
            Signal(
                Severity.CRITICAL,
                ngettext(
                    "%(file)s: %(lost)s GPU lost (device handle unavailable)",
                    "%(file)s: %(lost)s GPUs lost (device handle unavailable)",
                    lost,
                    file=item.get("filename"),
                    lost=lost,
                ),
                [
                    upload(
                        item,
                        _("nvidia-smi cannot reach the GPU"),
                        summary.get("lost_lines") or lines_of(summary),
                    )
                ],
                _("Ask for the node to be replaced and credited from the moment the GPU was lost."),
                {"gpus_short": lost},
            )
        )
    return signals


def _kernel_log_signals(item: dict) -> list[Signal]:
    """dmesg: GPUs that fell off the bus."""
    summary = summary_of(item)
    fallen = count_of(
        summary.get("gpus_fallen_off_bus") or summary.get("fallen_off_bus") or summary.get("lost_gpus")
    )
    if not fallen:
        return []
    return [
        Signal(
            Severity.CRITICAL,
            _("%(file)s: GPU fell off the bus", file=item.get("filename")),
            [
                upload(
                    item,
                    ngettext(
                        "%(count)s GPU fault message in the kernel log",
                        "%(count)s GPU fault messages in the kernel log",
                        fallen,
                        count=fallen,
                    ),
                    lines_of(summary),
                )
            ],
            _("Ask for the node's replacement and its burn-in record."),
            {"gpus_short": fallen},
        )
    ]


def _diag_signals(item: dict) -> list[Signal]:
    """dcgmi diag: a GPU that fails diagnostics is not usable."""
    summary = summary_of(item)
    failed = summary.get("failed_tests") or []
    if summary.get("passed") is not False and not failed:
        return []
    return [
        Signal(
            Severity.CRITICAL,
            _("%(file)s: dcgmi diag failed", file=item.get("filename")),
            [
                upload(
                    item,
                    _("failed: %(tests)s", tests=listed(failed)) if failed else _("diag did not pass"),
                    lines_of(summary),
                )
            ],
            _(
                "A GPU failing DCGM diagnostics is not usable: ask for replacement and a passing "
                "`dcgmi diag -r 3` on every node before the term starts."
            ),
            {"gpus_short": 1},
        )
    ]


def _down_port_signals(ctx: Context, item: dict) -> list[Signal]:
    """Fabric ports of the claimed layer that are down while too few are active: GPUs without a rail."""
    offering = ctx.offering
    layer = claimed_layer(offering.get("fabric"))
    nics = claimed_nics(offering)
    gpus_per_node = ctx.gpus_per_node
    ports = ports_of(item)
    active = [port for port in ports if port_active(port) and port_layer(port) == layer]
    down = [port for port in ports if port_down(port) and port_layer(port) == layer]
    # Down ports count only while the claimed number of active ports is not reached: spare or
    # front-end ports that are down on a node with all its rails up are harmless.
    if not (down and (nics is None or len(active) < nics) and (layer == "infiniband" or nics)):
        return []
    missing = len(down) if nics is None else min(len(down), nics - len(active))
    gpus_per_nic = (gpus_per_node / nics) if gpus_per_node and nics else 1.0
    short = math.ceil(missing * gpus_per_nic) if gpus_per_node and nics and nics <= gpus_per_node else 0
    return [
        Signal(
            Severity.CRITICAL,
            ngettext(
                "%(file)s: %(missing)s fabric port down, %(active)s of %(nics)s active",
                "%(file)s: %(missing)s fabric ports down, %(active)s of %(nics)s active",
                missing,
                file=item.get("filename"),
                missing=missing,
                active=len(active),
                nics=nics,
            )
            if nics
            else ngettext(
                "%(file)s: %(missing)s fabric port down",
                "%(file)s: %(missing)s fabric ports down",
                missing,
                file=item.get("filename"),
                missing=missing,
            ),
            [
                claim(offering, "nics_per_node"),
                upload(
                    item,
                    _("down: %(ports)s", ports=listed(port_name(port) for port in down[:8])),
                    [port.get("line") for port in down],
                ),
            ],
            _(
                "Each GPU without its rail either idles or drags the whole job to the slowest link: ask for "
                "the cables/HCAs to be fixed before acceptance and credited while down."
            ),
            {
                "gpus_short": short or None,
                "text": _("GPUs behind a down rail run at a fraction of their network bandwidth."),
            },
        )
    ]
