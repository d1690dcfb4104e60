"""Pitfall rules: the traps of DESIGN section 6, checked against claims, the sizing model and evidence.

Pure Python (no Django, no Celery). Every rule takes the offering facts dict (docs/FACTS.md), the optional
workload and sizing result (DESIGN section 5) and the parsed evidence items, and returns at most one
`Finding` per code: the signals a rule sees (a claim, an upload, a model number) are merged into one
finding whose severity is the worst signal's, so the UI shows one line per trap with all its evidence.

One module per pitfall, holding its rule and the helpers that read its evidence; `base` holds the
finding types, `context` what every rule knows about the job and how evidence items are read,
`thresholds` every threshold with its source. docs/CHECKS.md lists the rules, thresholds and impact
formulas.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from checks.rules.base import Finding, Ref, Signal, _, claim, model, upload
from checks.rules.context import Context, build_context, items_of, workload_params
from checks.rules.ecosystem_lock_in import rule_ecosystem_lock_in
from checks.rules.fabric_not_rdma import rule_fabric_not_rdma
from checks.rules.hidden_fees import rule_hidden_fees
from checks.rules.intra_node_not_full_mesh import rule_intra_node_not_full_mesh
from checks.rules.no_fault_tolerance import rule_no_fault_tolerance
from checks.rules.sizing_rules import (
    rule_cluster_too_small,
    rule_deadline_missed,
    rule_fabric_too_slow,
    rule_no_topology_aware_placement,
    rule_over_budget,
    rule_topology_wont_scale,
)
from checks.rules.usable_gpus_short import rule_usable_gpus_short
from checks.severity import SEVERITIES, SEVERITY_RANK, Severity

__all__ = [
    "RULES",
    "SEVERITIES",
    "Context",
    "Finding",
    "Ref",
    "RuleFn",
    "Severity",
    "Signal",
    "build_context",
    "claim",
    "items_of",
    "model",
    "rule_catalog",
    "rule_cluster_too_small",
    "rule_deadline_missed",
    "rule_ecosystem_lock_in",
    "rule_fabric_not_rdma",
    "rule_fabric_too_slow",
    "rule_hidden_fees",
    "rule_intra_node_not_full_mesh",
    "rule_no_fault_tolerance",
    "rule_no_topology_aware_placement",
    "rule_over_budget",
    "rule_topology_wont_scale",
    "rule_usable_gpus_short",
    "PITFALL_NAMES",
    "pitfall_name",
    "run_rules",
    "upload",
    "workload_params",
]

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

# What each pitfall is called where a buyer reads it (the codes are for the API and anchors only); pages
# translate the name by its text.
PITFALL_NAMES: dict[str, str] = {
    "fabric-not-rdma": _("Fabric is not RDMA"),
    "usable-gpus-short": _("Usable GPUs may fall short"),
    "no-fault-tolerance": _("No automatic fault tolerance"),
    "ecosystem-lock-in": _("Software stack lock-in"),
    "intra-node-not-full-mesh": _("GPUs in a node not fully meshed"),
    "hidden-fees": _("Fees not published"),
    "fabric-too-slow": _("Fabric too slow for the model"),
    "topology-wont-scale": _("Topology will not scale"),
    "no-topology-aware-placement": _("No topology-aware placement"),
    "cluster-too-small": _("Cluster too small"),
    "deadline-missed": _("Deadline missed"),
    "over-budget": _("Over budget"),
}


def pitfall_name(code: str) -> str:
    """The pitfall in words (a code without a name reads as its words, never as the code)."""
    return PITFALL_NAMES.get(code, code.replace("-", " ").capitalize())


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
    return sorted(findings, key=lambda finding: SEVERITY_RANK[finding.severity])
