"""The buyer's checklist: questions to put to a provider before signing, answered for one offering.

The questions come from the six traps (DESIGN section 6) and the buyer checklist of
../shared/data/peer-portals.md section 2 item 5 (stas00/ml-engineering). Each is answered from the
offering's facts, the uploaded evidence and the findings of `checks.rules.run_rules`:
`status` is "concern" when a related finding is critical or warning, "unknown" when the facts that answer
it are not published and no evidence covers it, else "answered". Pure Python, no Django.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from checks.rules import Finding


@dataclass(frozen=True)
class Question:
    key: str
    question: str
    why: str
    facts: tuple[str, ...]  # any published -> answerable
    codes: tuple[str, ...]  # findings that make it a concern
    evidence_kinds: tuple[str, ...]  # uploads that answer it
    answer: Callable[[dict], str]


def _v(offering: dict, key: str, unit: str = "", missing: str = "not published") -> str:
    value = offering.get(key)
    if value is None:
        return missing
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return f"{value}{unit}"


def _gpus(o: dict) -> str:
    return (
        f"{_v(o, 'gpus_per_node')} x {_v(o, 'gpu_label', missing=_v(o, 'gpu'))} per node, up to "
        f"{_v(o, 'nodes')} "
        f"nodes in one fabric; usable-GPU guarantee {_v(o, 'usable_gpu_guarantee_pct', '%')} "
        f"(credit: {_v(o, 'usable_gpu_credit')}); tenancy {_v(o, 'exclusivity')}."
    )


def _fabric(o: dict) -> str:
    return (
        f"Fabric {_v(o, 'fabric')} ({_v(o, 'fabric_label')}), {_v(o, 'nics_per_node')} x "
        f"{_v(o, 'gbps_per_nic', ' Gb/s')} per node; proprietary NCCL plugin: "
        f"{_v(o, 'proprietary_fabric_plugin')}."
    )


def _mesh(o: dict) -> str:
    return (
        f"Intra-node {_v(o, 'intra_node')}, {_v(o, 'intra_node_gbytes_per_s', ' GB/s')} per GPU, NVLink "
        "domain "
        f"{_v(o, 'nvlink_domain_gpus')} GPUs."
    )


def _faults(o: dict) -> str:
    return (
        f"Health checks {_v(o, 'health_checks')}; automatic bad-node detection "
        f"{_v(o, 'auto_bad_node_detection')}; "
        f"automatic replacement {_v(o, 'auto_replacement')} in {_v(o, 'replacement_time_min', ' min')}; "
        "spare pool "
        f"{_v(o, 'spare_node_pool')}; automatic checkpoint/restart {_v(o, 'auto_checkpoint_restart')}."
    )


def _billing(o: dict) -> str:
    plans = [p for p in o.get("billing_plans") or [] if isinstance(p, dict)]
    if not plans:
        return (
            f"No billing plans published; cheapest on-demand {_v(o, 'price_usd_per_gpu_hour', ' $/GPU-h')}."
        )
    parts = []
    for p in plans:
        price = p.get("price_usd_per_gpu_hour")
        parts.append(
            f"{p.get('kind')}{' ' + str(p.get('name')) if p.get('name') else ''}: "
            f"{'price not published' if price is None else f'${price:g}/GPU-h'}, granularity "
            f"{p.get('granularity') or 'not published'}"
            + (f", term {p['term_months']} months" if p.get("term_months") else "")
            + (f", min {p['min_nodes']} nodes" if p.get("min_nodes") else "")
            + (f", cycle {p['cycle_days']} days" if p.get("cycle_days") else "")
            + (f", {p['upfront_pct']}% upfront" if p.get("upfront_pct") else "")
        )
    return "; ".join(parts) + "."


def _storage(o: dict) -> str:
    price = o.get("storage_price_usd_per_gb_month")
    billed = "not published" if price is None else ("included" if price == 0 else f"${price:g} per GB-month")
    return (
        f"Checkpoint storage {_v(o, 'storage_type')}: {billed}, {_v(o, 'storage_included_gb', ' GB')} "
        "included, "
        f"write {_v(o, 'storage_write_gbytes_per_s', ' GB/s')}."
    )


def _traffic(o: dict) -> str:
    def price(key: str) -> str:
        value = o.get(key)
        return "not published" if value is None else ("free" if value == 0 else f"${value:g}/GB")

    return (
        f"Egress {price('egress_price_usd_per_gb')}; inter-node/zone traffic "
        f"{price('traffic_price_usd_per_gb')}; "
        f"support {_v(o, 'support_fee_usd_per_month', ' $/month')}; setup {_v(o, 'setup_fee_usd', ' $')}."
    )


def _topology(o: dict) -> str:
    return (
        f"Topology {_v(o, 'topology')}, oversubscription {_v(o, 'oversubscription', ':1')}, topology-aware "
        f"placement {_v(o, 'topology_aware_placement')}, schedulers "
        f"{', '.join(o.get('schedulers') or []) or 'not published'}."
    )


def _sla(o: dict) -> str:
    return (
        f"Uptime SLA {_v(o, 'uptime_sla_pct', '%')}, claim window {_v(o, 'sla_claim_window_days', ' days')}; "
        f"usable-GPU credit {_v(o, 'usable_gpu_credit')}."
    )


def _stack(o: dict) -> str:
    return (
        f"Accelerator stack {_v(o, 'accelerator_stack')}; standard containers "
        f"{_v(o, 'standard_containers')}; "
        f"bare metal {_v(o, 'bare_metal')}."
    )


def _acceptance(o: dict) -> str:
    return "Answered by the uploads below, if any."


QUESTIONS: tuple[Question, ...] = (
    Question(
        "gpus",
        "How many GPUs will we actually be able to use, and what do you credit when fewer are healthy?",
        "Contracted GPUs that are degraded but reachable usually count as 'up' under uptime SLAs; no "
        "provider "
        "publishes a usable-GPU percentage (hidden-costs.md section 3).",
        ("usable_gpu_guarantee_pct", "gpus_per_node", "exclusivity"),
        ("usable-gpus-short", "cluster-too-small"),
        ("nvidia-smi", "dcgmi-diag", "dmesg"),
        _gpus,
    ),
    Question(
        "fabric",
        "Is the GPU fabric RDMA (InfiniBand or RoCE v2 with GPUDirect), with how many ports per node at "
        "what speed? "
        "Will you show `ibstat` and a multi-node nccl-tests all-reduce?",
        "Plain Ethernet is sold as 'high-speed networking'; a 100B+ job needs ~400 Gb/s RDMA per GPU "
        "(DESIGN 6).",
        ("fabric", "nics_per_node", "gbps_per_nic"),
        ("fabric-not-rdma", "fabric-too-slow"),
        ("ibstat", "ibstatus", "ibv_devinfo", "lspci", "perftest", "nccl-tests", "rccl-tests"),
        _fabric,
    ),
    Question(
        "mesh",
        "How do you prove the 8 GPUs of a node are a full NVLink/NVSwitch mesh (`nvidia-smi topo -m`, "
        "`nvidia-smi nvlink -s`)?",
        "Tensor parallelism across PCIe or bridged pairs is several times slower; topo shows NV18 (H100) "
        "or NV12 "
        "(A100) between every pair on a full mesh.",
        ("intra_node",),
        ("intra-node-not-full-mesh",),
        ("nvidia-smi-topo", "nvidia-smi-nvlink", "dcgmi-nvlink"),
        _mesh,
    ),
    Question(
        "failures",
        "What happens when a GPU or node fails mid-run: who detects it, how fast is it replaced, are there "
        "hot spares, "
        "and is the job restarted from the last checkpoint automatically?",
        "At 16k GPUs Llama 3 saw a failure every ~3 h; manual recovery costs hours of the whole cluster "
        "each time.",
        ("auto_bad_node_detection", "auto_checkpoint_restart", "auto_replacement", "replacement_time_min"),
        ("no-fault-tolerance",),
        (),
        _faults,
    ),
    Question(
        "billing",
        "Is it billed per cluster cycle or on demand: minimum term, minimum nodes, granularity, upfront "
        "share?",
        "Prices are only comparable per billing term; reserved deals often ask 25%+ upfront "
        "(peer-portals.md 2.3).",
        ("billing_plans", "price_usd_per_gpu_hour"),
        ("over-budget",),
        (),
        _billing,
    ),
    Question(
        "storage",
        "Is checkpoint storage billed, at what price per GB-month, how much is included and how fast does "
        "it write?",
        "Checkpoints of a 100B+ model are terabytes, written every hour or so; storage is routinely left "
        "off the "
        "headline price.",
        ("storage_price_usd_per_gb_month", "storage_type", "storage_write_gbytes_per_s"),
        ("hidden-fees",),
        (),
        _storage,
    ),
    Question(
        "traffic",
        "What do egress, inter-node/inter-zone traffic, support and setup cost?",
        "These are the lines most often missing from the quote (hidden-costs.md sections 2 and 4).",
        ("egress_price_usd_per_gb", "traffic_price_usd_per_gb"),
        ("hidden-fees",),
        (),
        _traffic,
    ),
    Question(
        "topology",
        "What is the fabric topology and oversubscription, and will our nodes and spares be placed "
        "topology-aware "
        "on one spine?",
        "Past one leaf (~32 nodes) oversubscription and random placement cut collective bandwidth.",
        ("topology", "oversubscription", "topology_aware_placement"),
        ("topology-wont-scale", "no-topology-aware-placement"),
        (),
        _topology,
    ),
    Question(
        "sla",
        "What uptime SLA applies, how and within how many days do we claim, and does a degraded GPU count "
        "as down?",
        "No provider auto-applies credits; claim windows can be as short as 10 days (ClusterProof).",
        ("uptime_sla_pct", "sla_claim_window_days"),
        (),
        (),
        _sla,
    ),
    Question(
        "stack",
        "Will our standard containers (CUDA/NCCL or ROCm/RCCL) run as is, on bare metal or a VM?",
        "A proprietary stack or required vendor images tie the model code to one provider.",
        ("accelerator_stack", "standard_containers"),
        ("ecosystem-lock-in",),
        (),
        _stack,
    ),
    Question(
        "acceptance",
        "Will you run our acceptance tests before the term starts (burn-in, `dcgmi diag -r 3`, nccl-tests "
        "at 1 and "
        "4-16 nodes with 256 MiB-16 GiB messages) and replace nodes that fail?",
        "New GPU batches fail at 3-10% without burn-in (SemiAnalysis via stas00, hidden-costs.md section 4).",
        (),
        (),
        ("dcgmi-diag", "nccl-tests", "rccl-tests", "hccl-test", "perftest"),
        _acceptance,
    ),
)


def _finding_dict(f: Finding | dict) -> dict[str, Any]:
    return f.as_dict() if isinstance(f, Finding) else dict(f)


def checklist(
    offering: dict, findings: Sequence[Finding | dict], evidence: Sequence[dict] = ()
) -> list[dict]:
    """The buyer's questions for one offering, each answered from facts, evidence and findings."""
    offering = offering or {}
    found = [_finding_dict(f) for f in findings]
    out = []
    for q in QUESTIONS:
        related = [f for f in found if f.get("code") in q.codes]
        uploads = [
            e
            for e in evidence
            if isinstance(e, dict) and any(str(e.get("kind") or "").startswith(k) for k in q.evidence_kinds)
        ]
        published = [k for k in q.facts if offering.get(k) not in (None, [], "")]
        answer = q.answer(offering)
        if uploads:
            answer += " Evidence: " + ", ".join(str(e.get("filename")) for e in uploads) + "."
        worst = next((f for f in related if f.get("severity") in ("critical", "warning")), None)
        if worst:
            status = "concern"
            answer += (
                " Concern: "
                + "; ".join(
                    f"{f.get('title')} ({f.get('severity')})" for f in related if f.get("severity") != "info"
                )
                + "."
            )
        elif published or uploads:
            status = "answered"
        else:
            status = "unknown"
        refs: list[dict[str, Any]] = [
            {"finding": f.get("code"), "severity": f.get("severity")} for f in related
        ]
        refs += [{"fact": k, "value": offering.get(k)} for k in q.facts]
        refs += [{"file": e.get("filename"), "upload_id": e.get("upload_id")} for e in uploads]
        out.append(
            {
                "key": q.key,
                "question": q.question,
                "why": q.why,
                "answer": answer,
                "status": status,
                "refs": refs,
            }
        )
    return out
