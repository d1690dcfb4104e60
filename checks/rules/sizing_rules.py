"""The seed's sizing pitfalls (DESIGN section 6), judged on the sizing model's numbers for the job.

fabric-too-slow and topology-wont-scale (the network sets the pace), no-topology-aware-placement,
cluster-too-small (the model does not fit), deadline-missed and over-budget (the workload's limits).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from checks.rules.base import Finding, Msg, Signal, _, claim, merge, model, percent, sentences, to_float
from checks.rules.context import Context, comm_breakdown
from checks.rules.thresholds import (
    COMM_SHARE_CRITICAL,
    COMM_SHARE_WARNING,
    GBPS_PER_GPU_LARGE,
    GBPS_PER_GPU_MID,
    HBM_USABLE_FRACTION,
    LARGE_MODEL_PARAMS,
    MIN_BYTES_PER_PARAM,
    OVERSUBSCRIPTION_CRITICAL,
    SINGLE_NODE_MAX_PARAMS,
    TOPOLOGY_AWARE_MIN_GPUS,
)
from checks.severity import Severity
from hardware import NODES_PER_LEAF
from hardware.numbers import days_text, days_value


def _comm_impact(inter: float, total: float, per_gpu: float | None) -> dict[str, Any]:
    """The inter-node share of the step and, below the large-model port rate, what a faster one saves."""
    share = inter / total
    impact: dict[str, Any] = {"comm_share_pct": percent(share)}
    text = _(
        "Inter-node communication (DP+PP+EP+CP) is %(share)s of each %(step)s-s step.",
        share=f"{share:.0%}",
        step=f"{total:.2f}",
    )
    if per_gpu and per_gpu < GBPS_PER_GPU_LARGE:
        faster = inter * (1 - per_gpu / GBPS_PER_GPU_LARGE)
        impact["slowdown_pct"] = percent(total / (total - faster) - 1)
        text = sentences(
            text,
            _(
                "At %(gbps)s Gb/s per GPU the step would be %(pct)s shorter.",
                gbps=f"{GBPS_PER_GPU_LARGE:g}",
                pct=f"{faster / total:.0%}",
            ),
        )
    impact["text"] = text
    return impact


def rule_fabric_too_slow(ctx: Context) -> list[Finding]:
    """Fires when fabric bandwidth per GPU is below what the model needs (sizing comm share, else seed)."""
    offering = ctx.offering
    if not ctx.multi_node:
        return []
    nics, gbps = to_float(offering.get("nics_per_node")), to_float(offering.get("gbps_per_nic"))
    per_gpu = nics * gbps / ctx.gpus_per_node if nics and gbps and ctx.gpus_per_node else None
    refs = [
        claim(offering, "nics_per_node"),
        claim(offering, "gbps_per_nic"),
        claim(offering, "gpus_per_node"),
    ]
    comm = comm_breakdown(ctx.sizing)
    if comm and comm[0] > 0:
        inter, _tp, total = comm
        share = inter / total
        if share <= COMM_SHARE_WARNING:
            return []
        signal = Signal(
            Severity.CRITICAL if share > COMM_SHARE_CRITICAL else Severity.WARNING,
            _(
                "The network sets the pace: %(share)s of each step is inter-node communication",
                share=f"{share:.0%}",
            ),
            refs
            + [
                model(
                    f"iteration_breakdown_s: inter-node {inter:.2f} s of {total:.2f} s",
                    "iteration_breakdown_s",
                )
            ],
            _(
                "Ask for more or faster fabric ports per node (400 Gb/s per GPU for 100B+), or a layout with "
                "less cross-node traffic; compare offerings on predicted step time, not price per GPU-hour."
            ),
            _comm_impact(inter, total, per_gpu),
        )
        return merge("fabric-too-slow", [signal])
    if per_gpu is None or ctx.params_total < SINGLE_NODE_MAX_PARAMS:
        return []
    need = GBPS_PER_GPU_LARGE if ctx.params_total >= LARGE_MODEL_PARAMS else GBPS_PER_GPU_MID
    if per_gpu >= need:
        return []
    signal = Signal(
        Severity.CRITICAL if per_gpu < need / 2 else Severity.WARNING,
        _(
            "%(have)s Gb/s of fabric per GPU; a %(params)sB model needs %(need)s",
            have=f"{per_gpu:g}",
            params=f"{ctx.params_total / 1e9:.0f}",
            need=f"{need:g}",
        ),
        refs + [model(ctx.job_words)],
        _(
            "Ask for %(need)s Gb/s per GPU (one %(need)sG port per GPU) or expect the data-parallel "
            "all-reduce to dominate the step.",
            need=f"{need:g}",
        ),
        {
            "text": _(
                "Rule of thumb: a 30-70B model needs at least %(mid)s and a 100B+ model %(large)s Gb/s per "
                "GPU port; no sizing breakdown to quantify the slowdown.",
                mid=f"{GBPS_PER_GPU_MID:g}",
                large=f"{GBPS_PER_GPU_LARGE:g}",
            ),
            "gbps_per_gpu": round(per_gpu, 1),
            "gbps_per_gpu_needed": need,
        },
    )
    return merge("fabric-too-slow", [signal])


def _oversubscription_signal(ctx: Context, oversubscription: float) -> Signal:
    """An oversubscribed fabric under a job that spans the spine, with the slowdown's upper bound."""
    offering = ctx.offering
    impact: dict[str, Any] = {
        "text": _(
            "Traffic crossing the spine gets 1/%(ratio)s of the port rate.", ratio=f"{oversubscription:g}"
        )
    }
    comm = comm_breakdown(ctx.sizing)
    if comm and comm[0] > 0:
        inter, _tp, total = comm
        impact["slowdown_pct"] = percent(inter * (oversubscription - 1) / total)
        upper = _("Upper bound assumes all inter-node traffic crosses it.")
        impact["text"] = sentences(impact["text"], upper)
    return Signal(
        Severity.CRITICAL if oversubscription > OVERSUBSCRIPTION_CRITICAL else Severity.WARNING,
        _(
            "%(ratio)s:1 oversubscribed fabric for a job spanning %(nodes)s nodes (> %(leaf)s per leaf)",
            ratio=f"{oversubscription:g}",
            nodes=ctx.nodes,
            leaf=NODES_PER_LEAF,
        ),
        [claim(offering, "oversubscription"), claim(offering, "topology"), model(ctx.job_words)],
        _("Ask for a non-blocking partition for the job or placement within as few leaves as possible."),
        impact,
    )


def rule_topology_wont_scale(ctx: Context) -> list[Finding]:
    """Fires on a ring/chain topology for a multi-node job, or oversubscription past one leaf."""
    offering = ctx.offering
    if not ctx.multi_node:
        return []
    topology = offering.get("topology")
    oversubscription = to_float(offering.get("oversubscription"))
    spans_spine = ctx.nodes > NODES_PER_LEAF
    signals: list[Signal] = []
    if topology in ("ring", "chain"):
        signals.append(
            Signal(
                Severity.CRITICAL if spans_spine else Severity.WARNING,
                _(
                    "%(topology)s topology for a %(nodes)s-node job",
                    topology=topology.capitalize(),
                    nodes=ctx.nodes,
                ),
                [claim(offering, "topology"), model(ctx.job_words)],
                _(
                    "Ask for a fat-tree or rail-optimized Clos; a chain or ring loses bandwidth per hop as "
                    "nodes grow."
                ),
                {"text": _("Not quantified: efficiency falls with every node added.")},
            )
        )
    if oversubscription and oversubscription > 1 and spans_spine:
        signals.append(_oversubscription_signal(ctx, oversubscription))
    if spans_spine and (topology is None or topology == "unknown") and oversubscription is None:
        signals.append(
            Signal(
                Severity.INFO,
                _("Topology and oversubscription not published"),
                [claim(offering, "topology"), claim(offering, "oversubscription")],
                _("Ask for the fabric diagram: fat-tree / rail-optimized, oversubscription, nodes per leaf."),
            )
        )
    nodes_max = to_float(offering.get("nodes"))
    if nodes_max and ctx.nodes > nodes_max and not ctx.gpus_assumed:
        signals.append(
            Signal(
                Severity.CRITICAL,
                _(
                    "Job needs %(nodes)s nodes, one fabric holds %(max)s",
                    nodes=ctx.nodes,
                    max=f"{nodes_max:g}",
                ),
                [claim(offering, "nodes"), model(ctx.job_words)],
                _(
                    "Ask whether a larger single fabric is available; spanning fabrics breaks the collective "
                    "bandwidth."
                ),
            )
        )
    return merge("topology-wont-scale", signals)


def rule_no_topology_aware_placement(ctx: Context) -> list[Finding]:
    """Fires when a job of 64+ GPUs runs where topology-aware placement is absent or unpublished."""
    offering = ctx.offering
    placement = offering.get("topology_aware_placement")
    if placement is True or ctx.gpus < TOPOLOGY_AWARE_MIN_GPUS:
        return []
    signal = Signal(
        Severity.WARNING,
        _("No topology-aware placement published") if placement is None else _("No topology-aware placement"),
        [claim(offering, "topology_aware_placement"), claim(offering, "schedulers"), model(ctx.job_words)],
        _(
            "Ask whether the scheduler places ranks by leaf/rail (Slurm topology plugin, Kubernetes topology "
            "labels) and whether all nodes and spares sit on the same spine."
        ),
        {
            "text": _(
                "At %(gpus)s GPUs, random placement spreads rings across leaves and adds spine hops.",
                gpus=ctx.gpus,
            )
        },
    )
    return merge("no-topology-aware-placement", [signal])


_MEMORY_WORDS = re.compile(r"memory|hbm|does not fit|doesn't fit|oom|gib|too small|nodes", re.I)


def rule_cluster_too_small(ctx: Context) -> list[Finding]:
    """Fires when the largest cluster cannot hold the model (sizing infeasible on memory, or 16 B/param)."""
    offering = ctx.offering
    sizing = ctx.sizing or {}
    signals: list[Signal] = []
    if sizing.get("feasible") is False:
        reasons = [str(reason) for reason in sizing.get("reasons") or []]
        if any(_MEMORY_WORDS.search(reason) for reason in reasons) or not reasons:
            signals.append(
                Signal(
                    Severity.CRITICAL,
                    _("No layout fits the model on this offering"),
                    [
                        claim(offering, "nodes"),
                        claim(offering, "gpus_per_node"),
                        claim(offering, "gpu"),
                        model("; ".join(reasons) or "sizing: infeasible", "reasons", reasons),
                    ],
                    _("Ask for a larger single-fabric allocation or GPUs with more HBM."),
                    {"text": _("The job cannot run here as specified.")},
                )
            )
    max_nodes, gpus_per_node = to_float(offering.get("nodes")), ctx.gpus_per_node
    hbm = to_float(offering.get("hbm_gb_per_gpu")) or (ctx.spec.hbm_gb if ctx.spec else None)
    if max_nodes and gpus_per_node and hbm and not ctx.params_assumed:
        capacity = max_nodes * gpus_per_node * hbm * 1e9 * HBM_USABLE_FRACTION
        need = ctx.params_total * MIN_BYTES_PER_PARAM
        if need > capacity:
            min_gpus = math.ceil(need / (hbm * 1e9 * HBM_USABLE_FRACTION))
            signals.append(
                Signal(
                    Severity.CRITICAL,
                    _(
                        "%(gpus)s GPUs cannot hold %(params)sB parameters' training state",
                        gpus=f"{max_nodes * gpus_per_node:g}",
                        params=f"{ctx.params_total / 1e9:.0f}",
                    ),
                    [
                        claim(offering, "nodes"),
                        claim(offering, "gpus_per_node"),
                        claim(offering, "hbm_gb_per_gpu"),
                        model(
                            f"{MIN_BYTES_PER_PARAM:g} bytes/param fully sharded = {need / 1e12:.1f} TB > "
                            f"{capacity / 1e12:.1f} TB usable HBM"
                        ),
                    ],
                    _("Look for an offering with more nodes in one fabric."),
                    {
                        "gpus_short": int(min_gpus - max_nodes * gpus_per_node),
                        "text": _("At least %(gpus)s GPUs are needed before activations.", gpus=min_gpus),
                    },
                )
            )
    return merge("cluster-too-small", signals[:1])


def gettext_noop(msgid: str) -> str:
    """Mark a message id for the catalog (`makemessages` reads the name) without filling in its values."""
    return msgid


def _dollars_shown(value: float) -> Decimal:
    """US dollars to the whole dollar, rounded half up as the bill rounds (sizing.bill)."""
    return Decimal(str(value)).quantize(Decimal(1), rounding=ROUND_HALF_UP)


@dataclass(frozen=True)
class _WorkloadLimit:
    """How a finding words a predicted number past a limit the workload sets (the title's and the impact's
    figures are written by `shown`, which rounds as the pages do, and `write`; the excess is the shown figure
    less the limit, so "272.5 days, the deadline is 90" is "182.5 days late" whatever the digits past the
    place; the sentences are message ids taking them as text)."""

    predicted_fact: str  # key of the sizing result, cited as a model number
    predicted_text: str
    limit_fact: str  # key of the workload
    limit_text: str
    shown: Callable[[float], Decimal | None]  # a figure as the pages round it
    write: Callable[[Decimal], str]  # a shown figure in the title and the impact text
    limit_format: str  # how the workload's own limit is written in the title
    title: str
    over_key: str  # impact key of the excess, as shown
    over_text: str
    advice: str


_WORKLOAD_LIMITS = {
    "deadline-missed": _WorkloadLimit(
        predicted_fact="train_days",
        predicted_text="train_days = {predicted}",
        limit_fact="deadline_days",
        limit_text="workload deadline_days = {limit:g}",
        shown=days_value,
        write=days_text,
        limit_format="{:g}",
        title=gettext_noop("Training takes %(predicted)s days, the deadline is %(limit)s"),
        over_key="days_over",
        over_text=gettext_noop("%(over)s days late."),
        advice=gettext_noop(
            "Ask for more nodes in one fabric, or compare faster offerings; the ranking shows which meet the "
            "deadline."
        ),
    ),
    "over-budget": _WorkloadLimit(
        predicted_fact="total_usd",
        predicted_text="total_usd = {predicted}",
        limit_fact="budget_usd",
        limit_text="workload budget_usd = {limit:,.0f}",
        shown=_dollars_shown,
        write="${:,.0f}".format,
        limit_format="${:,.0f}",
        title=gettext_noop("Predicted bill %(predicted)s exceeds the budget %(limit)s"),
        over_key="usd_over",
        over_text=gettext_noop("%(over)s over budget."),
        advice=gettext_noop(
            "Compare billing plans (reserved or cluster cycles) and cheaper offerings that still meet the "
            "deadline."
        ),
    ),
}


def _past_workload_limit(code: str, predicted: float | None, limit: float | None) -> list[Finding]:
    """A predicted number past a limit the workload sets: critical, with both numbers as evidence."""
    if not predicted or not limit or predicted <= limit:
        return []
    words = _WORKLOAD_LIMITS[code]
    shown = words.shown(predicted)
    assert shown is not None  # a finite number here
    # the excess from the figure shown and the workload's own limit (a deadline of 90.25 days stays 90.25)
    over = words.shown(float(shown - Decimal(str(limit))))
    assert over is not None
    signal = Signal(
        Severity.CRITICAL,
        Msg(words.title, predicted=words.write(shown), limit=words.limit_format.format(limit)),
        [
            model(words.predicted_text.format(predicted=words.write(shown)), words.predicted_fact, predicted),
            model(words.limit_text.format(limit=limit), words.limit_fact, limit),
        ],
        Msg(words.advice),
        {
            words.over_key: float(over),
            "text": Msg(words.over_text, over=words.write(over)),
        },
    )
    return merge(code, [signal])


def rule_deadline_missed(ctx: Context) -> list[Finding]:
    """Fires when the predicted training time exceeds the workload's deadline."""
    days = to_float((ctx.sizing or {}).get("train_days"))
    return _past_workload_limit("deadline-missed", days, to_float((ctx.workload or {}).get("deadline_days")))


def rule_over_budget(ctx: Context) -> list[Finding]:
    """Fires when the predicted full bill exceeds the workload's budget."""
    cost = (ctx.sizing or {}).get("cost") or {}
    total = to_float((ctx.bill or {}).get("total_usd")) or (
        to_float(cost.get("total_usd")) if isinstance(cost, dict) else None
    )
    return _past_workload_limit("over-budget", total, to_float((ctx.workload or {}).get("budget_usd")))
