"""The buyer's checklist: questions to put to a provider before signing, answered for one offering.

The questions come from the six traps (DESIGN section 6) and the buyer checklist of
../shared/data/peer-portals.md section 2 item 5 (stas00/ml-engineering). Each is answered from the
offering's facts, the uploaded evidence and the findings of `checks.rules.run_rules`:
`status` is "concern" when a related finding is critical or warning; "answered" only when every fact that
answers it is published with a source (or an upload covers it); else "unknown", and the answer names what
to ask. Each fact the sizing model needs and the offering does not publish (the class norms of
hardware.norms) becomes a question of its own. Pure Python, no Django.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from checks.rules import Finding
from checks.rules.base import Msg, _, joined, sentences
from checks.severity import Severity
from hardware import GPUS
from hardware.messages import UnitWord
from hardware.norms import NORMS, norm_for, offering_class
from providers.facts import (
    CHOICE_NAMES,
    FACTS_BY_NAME,
    GRANULARITY_WORDS,
    PLAN_KIND_WORDS,
    UNIT_WORDS,
    VENDOR_LABELS,
    choice_name,
)
from providers.facts import fact_label as providers_fact_label
from providers.names import gpu_vendor


@dataclass(frozen=True)
class Question:
    key: str
    question: str
    why: str
    facts: tuple[str, ...]  # any published -> answerable
    codes: tuple[str, ...]  # findings that make it a concern
    evidence_kinds: tuple[str, ...]  # uploads that answer it
    answer: Callable[[dict], str]


def gettext_noop(msgid: str) -> str:
    """Mark a message id for the catalog (`makemessages` reads the name) without filling in its values."""
    return msgid


def _fact_text(offering: dict, key: str, unit: str = "", missing: str | None = None) -> str:
    """One fact as the answer shows it: its value with its unit, yes/no, a code by its name (a direct mesh
    by the link of the GPU's vendor), or "not published"."""
    value = offering.get(key)
    if value is None or value == []:
        return _("not published") if missing is None else missing
    if isinstance(value, bool):
        return _("yes") if value else _("no")
    if key in CHOICE_NAMES:
        vendor = gpu_vendor(offering.get("gpu"))
        codes = value if isinstance(value, list | tuple) else [value]
        names = (Msg(choice_name(key, str(code), vendor).replace("%", "%%")) for code in codes)
        return joined(*names, sep=_(", "))
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if unit.strip() in UNIT_WORDS:  # a unit that is a word ("14 days"): translated after the value
        return joined(str(value), UnitWord(unit.strip()))
    return f"{value}{unit}"


# The unit each fact takes in an answer (after its value: "400 Gb/s", "99.5%", "2:1").
_UNITS = {
    "gbps_per_nic": " Gb/s",
    "intra_node_gbytes_per_s": " GB/s",
    "replacement_time_min": " min",
    "uptime_sla_pct": "%",
    "usable_gpu_guarantee_pct": "%",
    "sla_claim_window_days": " days",
    "storage_included_gb": " GB",
    "storage_write_gbytes_per_s": " GB/s",
    "support_fee_usd_per_month": " $/month",
    "setup_fee_usd": " $",
    "price_usd_per_gpu_hour": " $/GPU-h",
    "oversubscription": ":1",
}
_FIELD_RE = re.compile(r"%\((\w+)\)s")


def _phrase(offering: dict, key: str, shown: str, missing: str) -> Msg:
    """A fact in the words around it ("450 GB/s per GPU"), or a phrase naming what is not published
    ("bandwidth per GPU not published"): never "not published per GPU"."""
    if offering.get(key) is None:
        return _(missing)
    return _(shown, value=_fact_text(offering, key, _UNITS.get(key, "")))


def _fill(msgid: str, offering: dict, **words: str) -> Msg:
    """An answer from a message id: `%(fact)s` as `_fact_text` shows the fact (with its unit), `%(word)s`
    as given."""
    params = {
        name: words[name] if name in words else _fact_text(offering, name, _UNITS.get(name, ""))
        for name in _FIELD_RE.findall(msgid)
    }
    return Msg(msgid, **params)


def _template(msgid: str) -> Callable[[dict], str]:
    """An answer made of facts only."""
    return lambda offering: _fill(msgid, offering)


def _ports(offering: dict) -> Msg:
    """The fabric's NICs per node and their speed, saying which of the two is not published."""
    nics, gbps = offering.get("nics_per_node"), offering.get("gbps_per_nic")
    if nics is not None and gbps is not None:
        return _(
            "%(nics)s x %(gbps)s per node",
            nics=_fact_text(offering, "nics_per_node"),
            gbps=_fact_text(offering, "gbps_per_nic", _UNITS["gbps_per_nic"]),
        )
    if nics is not None:
        return _(
            "%(nics)s NICs per node, their speed not published", nics=_fact_text(offering, "nics_per_node")
        )
    if gbps is not None:
        return _(
            "NICs per node not published, %(gbps)s each",
            gbps=_fact_text(offering, "gbps_per_nic", _UNITS["gbps_per_nic"]),
        )
    return _("NICs per node and their speed not published")


def _fabric(offering: dict) -> Msg:
    label = offering.get("fabric_label")
    return _fill(
        gettext_noop(
            "Fabric %(fabric)s%(as_published)s, %(ports)s; proprietary NCCL plugin: "
            "%(proprietary_fabric_plugin)s."
        ),
        offering,
        as_published=f" ({label})" if label else "",
        ports=_ports(offering),
    )


def _mesh(offering: dict) -> Msg:
    """The mesh answer, its domain named as providers.facts.VENDOR_LABELS names it for the GPU's vendor."""
    neutral = ("nvlink_domain_gpus", gpu_vendor(offering.get("gpu")) or "") in VENDOR_LABELS
    bandwidth = _phrase(
        offering,
        "intra_node_gbytes_per_s",
        gettext_noop("%(value)s per GPU"),
        gettext_noop("bandwidth per GPU not published"),
    )
    shown, missing = (
        (gettext_noop("scale-up domain %(value)s GPUs"), gettext_noop("scale-up domain not published"))
        if neutral
        else (gettext_noop("NVLink domain %(value)s GPUs"), gettext_noop("NVLink domain not published"))
    )
    domain = _phrase(offering, "nvlink_domain_gpus", shown, missing)
    return _fill(
        gettext_noop("Intra-node %(intra_node)s, %(bandwidth)s, %(domain)s."),
        offering,
        bandwidth=bandwidth,
        domain=domain,
    )


_faults = _template(
    gettext_noop(
        "Health checks %(health_checks)s; automatic bad-node detection %(auto_bad_node_detection)s; "
        "automatic replacement %(auto_replacement)s, replacement time %(replacement_time_min)s; spare pool "
        "%(spare_node_pool)s; automatic checkpoint/restart %(auto_checkpoint_restart)s."
    )
)
_sla = _template(
    gettext_noop(
        "Uptime SLA %(uptime_sla_pct)s, claim window %(sla_claim_window_days)s; usable-GPU credit "
        "%(usable_gpu_credit)s."
    )
)
_stack = _template(
    gettext_noop(
        "Accelerator stack %(accelerator_stack)s; standard containers %(standard_containers)s; bare metal "
        "%(bare_metal)s."
    )
)


def _gpu_name(offering: dict) -> str:
    """The GPU as the offering publishes it, else by its name in the hardware table, never by its key."""
    if offering.get("gpu_label"):
        return str(offering["gpu_label"])
    known = GPUS.get(str(offering.get("gpu")))
    if known is not None:
        return known.name
    return str(offering["gpu"]) if offering.get("gpu") else _("GPU model not published")


def _gpus(offering: dict) -> str:
    return _fill(
        gettext_noop(
            "%(gpu_name)s, %(per_node)s, %(nodes)s; usable-GPU guarantee %(usable_gpu_guarantee_pct)s "
            "(credit: %(usable_gpu_credit)s); tenancy %(exclusivity)s."
        ),
        offering,
        gpu_name=_gpu_name(offering),
        per_node=_phrase(
            offering,
            "gpus_per_node",
            gettext_noop("%(value)s per node"),
            gettext_noop("GPUs per node not published"),
        ),
        nodes=_phrase(
            offering,
            "nodes",
            gettext_noop("up to %(value)s nodes in one fabric"),
            gettext_noop("nodes in one fabric not published"),
        ),
    )


def _letters(text: str) -> str:
    return re.sub(r"[^a-z]", "", text.lower())


def _plan_name(plan: dict) -> str:
    """A plan by its kind in words and its published name ("Reserved — EC2 Capacity Block"); the name
    alone where it says the kind ("On-demand us-east-1"), never the kind's code."""
    kind = PLAN_KIND_WORDS.get(str(plan.get("kind")))
    name = str(plan.get("name") or "").strip()
    if kind is None:
        return name or _("plan")
    if not name:
        return Msg(kind)
    if _letters(kind.split(" /")[0]) in _letters(name):
        return name
    return _("%(kind)s — %(name)s", kind=Msg(kind), name=name)


def _plan_text(plan: dict) -> str:
    price = plan.get("price_usd_per_gpu_hour")
    granularity = GRANULARITY_WORDS.get(str(plan.get("granularity")))
    parts: list[str] = [
        _(
            "%(plan)s: %(price)s, billed %(granularity)s",
            plan=_plan_name(plan),
            price=_("price not published") if price is None else f"${price:g}/GPU-h",
            granularity=Msg(granularity) if granularity else _("by a unit not published"),
        )
    ]
    if plan.get("term_months"):
        parts.append(_("term %(months)s months", months=plan["term_months"]))
    if plan.get("min_nodes") == 1:
        parts.append(_("min 1 node"))
    elif plan.get("min_nodes"):
        parts.append(_("min %(nodes)s nodes", nodes=plan["min_nodes"]))
    if plan.get("cycle_days"):
        parts.append(_("cycle %(days)s days", days=plan["cycle_days"]))
    if plan.get("upfront_pct"):
        parts.append(_("%(pct)s%% upfront", pct=f"{float(plan['upfront_pct']):g}"))
    return joined(*parts, sep=_(", "))


def _billing(offering: dict) -> str:
    plans = [plan for plan in offering.get("billing_plans") or [] if isinstance(plan, dict)]
    if not plans:
        return _fill(
            gettext_noop("No billing plans published; cheapest on-demand %(price_usd_per_gpu_hour)s."),
            offering,
        )
    return _("%(plans)s.", plans=joined(*(_plan_text(plan) for plan in plans), sep=_("; ")))


def _storage(offering: dict) -> str:
    price = offering.get("storage_price_usd_per_gb_month")
    billed = (
        _("not published")
        if price is None
        else (_("included") if price == 0 else _("%(price)s per GB-month", price=f"${price:g}"))
    )
    return _fill(
        gettext_noop(
            "Checkpoint storage %(storage_type)s: price %(billed)s, included %(storage_included_gb)s, write "
            "%(storage_write_gbytes_per_s)s."
        ),
        offering,
        billed=billed,
    )


def _traffic(offering: dict) -> str:
    def price(key: str) -> str:
        value = offering.get(key)
        return _("not published") if value is None else (_("free") if value == 0 else f"${value:g}/GB")

    return _fill(
        gettext_noop(
            "Egress %(egress)s; inter-node/zone traffic %(traffic)s; support %(support_fee_usd_per_month)s; "
            "setup %(setup_fee_usd)s."
        ),
        offering,
        egress=price("egress_price_usd_per_gb"),
        traffic=price("traffic_price_usd_per_gb"),
    )


def _topology(offering: dict) -> str:
    return _fill(
        gettext_noop(
            "Topology %(topology)s, oversubscription %(oversubscription)s, topology-aware placement "
            "%(topology_aware_placement)s, schedulers %(schedulers)s."
        ),
        offering,
    )


def _acceptance(offering: dict) -> str:
    return _("Answered by the uploads below, if any.")


QUESTIONS: tuple[Question, ...] = (
    Question(
        "gpus",
        _("How many GPUs will we actually be able to use, and what do you credit when fewer are healthy?"),
        _(
            "Contracted GPUs that are degraded but reachable usually count as 'up' under uptime SLAs; no "
            "provider publishes a usable-GPU percentage."
        ),
        ("usable_gpu_guarantee_pct", "gpus_per_node", "exclusivity"),
        ("usable-gpus-short", "cluster-too-small"),
        ("nvidia-smi", "dcgmi-diag", "dmesg"),
        _gpus,
    ),
    Question(
        "fabric",
        _(
            "Is the GPU fabric RDMA (InfiniBand or RoCE v2 with GPUDirect), with how many ports per node at "
            "what speed? Will you show `ibstat` and a multi-node nccl-tests all-reduce?"
        ),
        _(
            "Plain Ethernet is sold as 'high-speed networking'; a 100B+ job needs ~400 Gb/s RDMA per GPU "
            "(one 400 Gb/s NIC per GPU on NVIDIA's HGX reference designs)."
        ),
        ("fabric", "nics_per_node", "gbps_per_nic"),
        ("fabric-not-rdma", "fabric-too-slow"),
        ("ibstat", "ibstatus", "ibv_devinfo", "lspci", "perftest", "nccl-tests", "rccl-tests"),
        _fabric,
    ),
    Question(
        "mesh",
        _(
            "How do you prove the 8 GPUs of a node are a full NVLink/NVSwitch mesh (`nvidia-smi topo -m`, "
            "`nvidia-smi nvlink -s`)?"
        ),
        _(
            "Tensor parallelism across PCIe or bridged pairs is several times slower; topo shows NV18 "
            "(H100) or NV12 (A100) between every pair on a full mesh."
        ),
        ("intra_node",),
        ("intra-node-not-full-mesh",),
        ("nvidia-smi-topo", "nvidia-smi-nvlink", "dcgmi-nvlink"),
        _mesh,
    ),
    Question(
        "failures",
        _(
            "What happens when a GPU or node fails mid-run: who detects it, how fast is it replaced, are "
            "there hot spares, and is the job restarted from the last checkpoint automatically?"
        ),
        _(
            "At 16k GPUs Llama 3 saw a failure every ~3 h; manual recovery costs hours of the whole cluster "
            "each time."
        ),
        ("auto_bad_node_detection", "auto_checkpoint_restart", "auto_replacement", "replacement_time_min"),
        ("no-fault-tolerance",),
        (),
        _faults,
    ),
    Question(
        "billing",
        _(
            "Is it billed per cluster cycle or on demand: minimum term, minimum nodes, granularity, upfront "
            "share?"
        ),
        _("Prices are only comparable per billing term; reserved deals often ask 25%% or more upfront."),
        ("billing_plans", "price_usd_per_gpu_hour"),
        ("over-budget",),
        (),
        _billing,
    ),
    Question(
        "storage",
        _(
            "Is checkpoint storage billed, at what price per GB-month, how much is included and how fast "
            "does it write?"
        ),
        _(
            "Checkpoints of a 100B+ model are terabytes, written every hour or so; storage is routinely "
            "left off the headline price."
        ),
        ("storage_price_usd_per_gb_month", "storage_type", "storage_write_gbytes_per_s"),
        ("hidden-fees",),
        (),
        _storage,
    ),
    Question(
        "traffic",
        _("What do egress, inter-node/inter-zone traffic, support and setup cost?"),
        _("These are the lines most often missing from the quote."),
        ("egress_price_usd_per_gb", "traffic_price_usd_per_gb"),
        ("hidden-fees",),
        (),
        _traffic,
    ),
    Question(
        "topology",
        _(
            "What is the fabric topology and oversubscription, and will our nodes and spares be placed "
            "topology-aware on one spine?"
        ),
        _("Past one leaf (~32 nodes) oversubscription and random placement cut collective bandwidth."),
        ("topology", "oversubscription", "topology_aware_placement"),
        ("topology-wont-scale", "no-topology-aware-placement"),
        (),
        _topology,
    ),
    Question(
        "sla",
        _(
            "What uptime SLA applies, how and within how many days do we claim, and does a degraded GPU "
            "count as down?"
        ),
        _("No provider auto-applies credits; claim windows can be as short as 10 days (ClusterProof)."),
        ("uptime_sla_pct", "sla_claim_window_days"),
        (),
        (),
        _sla,
    ),
    Question(
        "stack",
        _("Will our standard containers (CUDA/NCCL or ROCm/RCCL) run as is, on bare metal or a VM?"),
        _("A proprietary stack or required vendor images tie the model code to one provider."),
        ("accelerator_stack", "standard_containers"),
        ("ecosystem-lock-in",),
        (),
        _stack,
    ),
    Question(
        "acceptance",
        _(
            "Will you run our acceptance tests before the term starts (burn-in, `dcgmi diag -r 3`, "
            "nccl-tests at 1 and 4-16 nodes with 256 MiB-16 GiB messages) and replace nodes that fail?"
        ),
        _("New GPU batches fail at 3-10%% without burn-in (SemiAnalysis, quoted in stas00/ml-engineering)."),
        (),
        (),
        ("dcgmi-diag", "nccl-tests", "rccl-tests", "hccl-test", "perftest"),
        _acceptance,
    ),
)


def _finding_dict(finding: Finding | dict) -> dict[str, Any]:
    return finding.as_dict() if isinstance(finding, Finding) else dict(finding)


def _status_and_concerns(related: list[dict], answered: bool) -> tuple[str, str]:
    """ "concern" when a related finding is critical or warning (with their titles), else "answered" when
    the facts or an upload answer the question, else "unknown"."""
    if any(finding.get("severity") in (Severity.CRITICAL, Severity.WARNING) for finding in related):
        concerns = joined(
            *(
                Msg(
                    "%(title)s (%(severity)s)",
                    title=finding.get("title"),
                    severity=Msg(str(finding.get("severity"))),
                )
                for finding in related
                if finding.get("severity") != Severity.INFO
            ),
            sep=_("; "),
        )
        return "concern", _("Concern: %(concerns)s.", concerns=concerns)
    return ("answered" if answered else "unknown"), ""


# Keys of the facts dict that hold a fact under another name (Offering.facts: "nodes" is max_nodes).
_FACT_KEYS_OF = {"nodes": "max_nodes"}


def fact_label(key: str, vendor: str | None = None) -> str:
    """A fact as buyers read it ("Gb/s per NIC"), not its key; in the GPU `vendor`'s terms (a scale-up
    domain, not an NVLink one, on AMD and Huawei: providers.facts.fact_label); a key with no label in words
    (its underscores as spaces)."""
    key = _FACT_KEYS_OF.get(key, key)
    if key in FACTS_BY_NAME:
        return providers_fact_label(key, vendor)
    return {
        "billing_plans": gettext_noop("billing plans"),
        "price_usd_per_gpu_hour": gettext_noop("on-demand price"),
    }.get(key, key.replace("_", " "))


def _labels(keys: list[str], vendor: str | None = None) -> str:
    """Facts by their labels, each translated on the page (a label is a catalog message id)."""
    return joined(*(Msg(fact_label(key, vendor).replace("%", "%%")) for key in keys), sep=_(", "))


def _sourced(key: str, offering: dict, sourced_groups: set[str] | None) -> bool:
    """Published, and (when the caller knows the sources) from a fact group that names a source."""
    if offering.get(key) in (None, [], ""):
        return False
    fact = FACTS_BY_NAME.get(key)
    return sourced_groups is None or fact is None or fact.group in sourced_groups


# A question asked in another vendor's terms where NVIDIA's tools do not apply: (key, GPU vendor) ->
# (question, why). AMD Instinct nodes join their GPUs by Infinity Fabric (XGMI) links, reported by rocm-smi.
# Huawei Ascend nodes join their NPUs by HCCS links, reported by `npu-smi info -t topo` ("queries the
# affinity of CPUs and NPUs and the topology between several NPUs": Huawei npu-smi command reference,
# "查询多NPU的拓扑结构", hiascend.com; its matrix marks an HCCS pair "HCCS", a PCIe path PIX/PHB/SYS, per the
# Ascend DMI tool guide's legend for the same report).
VENDOR_WORDING = {
    ("mesh", "amd"): (
        _("How do you prove the 8 GPUs of a node are a full Infinity Fabric mesh (`rocm-smi --showtopo`)?"),
        _(
            "Tensor parallelism across PCIe is several times slower; on a full mesh the topology report "
            "shows one XGMI hop between every pair of GPUs."
        ),
    ),
    ("mesh", "huawei"): (
        _("How do you prove the NPUs of a node are a full HCCS mesh (`npu-smi info -t topo`)?"),
        _(
            "Tensor parallelism across PCIe is several times slower; on a full mesh the topology report "
            "shows HCCS between every pair of NPUs."
        ),
    ),
}


def _answer_question(
    question: Question,
    offering: dict,
    found: list[dict],
    evidence: Sequence[dict],
    sourced_groups: set[str] | None,
) -> dict:
    related = [finding for finding in found if finding.get("code") in question.codes]
    uploads = [
        item
        for item in evidence
        if isinstance(item, dict)
        and any(str(item.get("kind") or "").startswith(kind) for kind in question.evidence_kinds)
    ]
    unanswered = [key for key in question.facts if not _sourced(key, offering, sourced_groups)]
    vendor = gpu_vendor(offering.get("gpu"))
    parts = [question.answer(offering)]
    if uploads:
        parts.append(
            _(
                "Evidence: %(files)s.",
                files=joined(*(str(item.get("filename")) for item in uploads), sep=_(", ")),
            )
        )
    answered = bool(uploads) or bool(question.facts and not unanswered)
    if unanswered and not uploads:
        missing = [k for k in unanswered if offering.get(k) in (None, [], "")]
        unsourced = [k for k in unanswered if k not in missing]
        if missing:
            parts.append(_("Ask the provider for: %(facts)s.", facts=_labels(missing, vendor)))
        if unsourced:
            parts.append(_("Ask for a source of: %(facts)s.", facts=_labels(unsourced, vendor)))
    status, concerns = _status_and_concerns(related, answered)
    if concerns:
        parts.append(concerns)
    refs: list[dict[str, Any]] = [
        {"finding": finding.get("code"), "severity": finding.get("severity")} for finding in related
    ]
    refs += [{"fact": key, "value": offering.get(key)} for key in question.facts]
    refs += [{"file": item.get("filename"), "upload_id": item.get("upload_id")} for item in uploads]
    wording = VENDOR_WORDING.get((question.key, vendor or ""))
    return {
        "key": question.key,
        "question": wording[0] if wording else question.question,
        "why": wording[1] if wording else question.why,
        "answer": sentences(*parts),
        "status": status,
        "refs": refs,
    }


# The facts the sizing model reads, in the order of the norms table (each assumed when unpublished).
MODEL_FACTS = tuple(dict.fromkeys(norm.fact for norm in NORMS))


# How an assumed per-GPU count reads (NICs per GPU; a cluster capped in GPUs rather than nodes).
_PER_GPU_WORDS = {"max_nodes": gettext_noop("%(value)s GPUs in one cluster")}


def _value_words(fact: str, value: Any, per_gpu: bool, vendor: str | None = None) -> str:
    """An assumed value as the buyer reads it: an enum code by its name (a direct mesh by the link of the GPU
    `vendor`'s, translated on the page), a number with its unit (":1" written against it)."""
    if isinstance(value, bool):
        return _("yes") if value else _("no")
    if isinstance(value, str) and value in CHOICE_NAMES.get(fact, {}):
        return Msg(choice_name(fact, value, vendor).replace("%", "%%"))  # a catalog message id
    if isinstance(value, float) and 0 < value < 1e-3:
        text = f"{value:.3g}"
    elif isinstance(value, int | float):
        text = f"{value:,g}"
    else:
        text = str(value)
    if per_gpu:
        return Msg(_PER_GPU_WORDS.get(fact, gettext_noop("%(value)s per GPU")), value=text)
    known = FACTS_BY_NAME.get(fact)
    if known is not None and known.unit:  # the unit translated on the page where it is a word
        return joined(
            text, UnitWord(known.unit.replace("%", "%%")), sep="" if known.unit.startswith(":") else " "
        )
    return text


def assumption_questions(offering: dict) -> list[dict]:
    """One question per fact the sizing model needs that the offering does not publish: what the model
    assumed instead (the value typical for the offering's class) and on what basis."""
    cls = offering_class(offering)
    out = []
    for fact in MODEL_FACTS:
        if offering.get(fact) is not None or (fact == "max_nodes" and offering.get("nodes") is not None):
            continue
        if fact == "gpu" and offering.get("gpu_label"):
            continue  # the model reads the GPU from the published label
        norm = norm_for(fact, cls)
        if norm is None:
            continue
        vendor = gpu_vendor(offering.get("gpu"))
        # a catalog message id: translated on the page
        label = Msg(fact_label(fact, vendor).replace("%", "%%"))
        assumed = _value_words(fact, norm.typical, norm.per_gpu, vendor)
        out.append(
            {
                "key": f"assumed-{fact}",
                "question": _("%(fact)s: not published. What is it for this offering?", fact=label),
                "why": _(
                    "The sizing assumes %(assumed)s, typical for this class of offering. Basis: %(basis)s.",
                    assumed=assumed,
                    basis=Msg(str(norm.basis).replace("%", "%%")),
                ),
                "answer": _(
                    "Not published; the sizing assumes %(assumed)s. Ask the provider for the figure.",
                    assumed=assumed,
                ),
                "status": "unknown",
                "refs": [{"fact": fact, "value": None}],
            }
        )
    return out


def checklist(
    offering: dict,
    findings: Sequence[Finding | dict],
    evidence: Sequence[dict] = (),
    *,
    sourced_groups: set[str] | None = None,
) -> list[dict]:
    """The buyer's questions for one offering, each answered from facts, evidence and findings, then one
    question per fact the sizing had to assume. `sourced_groups`: the fact groups that name a source (None:
    unknown, every published fact counts as sourced)."""
    found = [_finding_dict(finding) for finding in findings]
    offering = offering or {}
    answers = [_answer_question(q, offering, found, evidence, sourced_groups) for q in QUESTIONS]
    return answers + assumption_questions(offering)


def messages_by_key(item: dict[str, Any]) -> dict[str, Any]:
    """The message ids of a checklist answer's question, reason and answer, stored beside the English (a
    quote keeps them in its snapshot)."""
    texts = {key: item.get(key) for key in ("question", "why", "answer")}
    return {key: text.as_json() for key, text in texts.items() if isinstance(text, Msg)}
