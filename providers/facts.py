"""The registry of offering facts: one row per fact, grouped as the catalog file and the pages show them.

Import, export, the offering page and `Offering.facts()` all walk this table, so a new fact is added here
and as a model field, nowhere else. Names, units and enums are those of docs/FACTS.md.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Literal

from hardware.links import INTRA_NODE_KINDS, INTRA_NODE_NAMES, intra_node_name
from hardware.network import FABRIC_NAMES, FABRICS, TOPOLOGIES, TOPOLOGY_NAMES
from hardware.numbers import is_nan_or_infinite, number_text

FactType = Literal["int", "float", "decimal", "bool", "enum", "text", "list", "gpu"]


def gettext_noop(msgid: str) -> str:
    """Mark a label for the catalog (`makemessages` reads the name): pages show it through `gettext`."""
    return msgid


# The link and fabric kinds are the hardware tables' own (hardware.links, hardware.network).
INTRA_NODE = INTRA_NODE_KINDS
SCHEDULERS = ("slurm", "kubernetes", "proprietary")
ACCELERATOR_STACKS = ("cuda", "rocm", "cann", "other")
EXCLUSIVITY = ("dedicated", "shared")
# When the provider bills: before the period (prepaid), each month in arrears, or on invoice terms.
# The request-for-quote answers take the same codes and names (rfq.models.PaymentTerms).
PAYMENT_TERM_NAMES: dict[str, str] = {
    "upfront": gettext_noop("Upfront"),
    "monthly": gettext_noop("Monthly"),
    "net-30": gettext_noop("Net 30 days"),
    "net-60": gettext_noop("Net 60 days"),
}
PAYMENT_TERMS = tuple(PAYMENT_TERM_NAMES)
# Largest single training job ever published: about 100,000 GPUs (2025-26); ten times that bounds a typo.
LARGEST_RUN_GPUS_MAX = 1_000_000
# Lead times quoted for GPU clusters run from days to about a year; two years bounds a typo.
LEAD_TIME_WEEKS_MAX = 104


# What a page shows for each code of an enum or list fact (the code stays what files and the API carry):
# the hardware tables' names for fabrics, links and topologies, and these. Translated where shown
# (`choice_name`); a code without a name is shown as it is.
CHOICE_NAMES: dict[str, dict[str, str]] = {
    "intra_node": INTRA_NODE_NAMES,
    "fabric": FABRIC_NAMES,
    "topology": TOPOLOGY_NAMES,
    "schedulers": {
        "slurm": "Slurm",
        "kubernetes": "Kubernetes",
        "proprietary": gettext_noop("proprietary"),
    },
    "accelerator_stack": {"cuda": "CUDA", "rocm": "ROCm", "cann": "CANN", "other": gettext_noop("other")},
    "exclusivity": {
        "dedicated": gettext_noop("dedicated"),
        "shared": gettext_noop("shared with other tenants"),
    },
    "payment_terms": PAYMENT_TERM_NAMES,
}
# The kinds of source the catalog cites (the `kind` of each source in the catalog files), as a page names
# them. A kind not listed is shown with its underscores as spaces.
SOURCE_KIND_NAMES: dict[str, str] = {
    "official": gettext_noop("official"),
    "official_sdk": gettext_noop("official SDK"),
    "official_partner": gettext_noop("official partner"),
    "mirror_of_official": gettext_noop("copy of an official page"),
    "mirror_of_official_page": gettext_noop("copy of an official page"),
    "secondary": gettext_noop("secondary"),
    "press": gettext_noop("press"),
    "benchmark_submission": gettext_noop("benchmark submission"),
    "rating": gettext_noop("rating"),
    "vendor_claim": gettext_noop("vendor claim"),
    "third_party": gettext_noop("third party"),
    "third_party_code": gettext_noop("third-party code"),
    "third_party_collection": gettext_noop("third-party collection"),
    "third_party_docs": gettext_noop("third-party documentation"),
    "third_party_reference": gettext_noop("third-party reference"),
    "third_party_summary": gettext_noop("third-party summary"),
    "third_party_transcription": gettext_noop("third-party transcription"),
    "fictional": gettext_noop("fictional sample"),
}


def choice_name(fact_name: str, code: str, vendor: str | None = None) -> str:
    """The English name of one code of an enum or list fact (CHOICE_NAMES); the code itself when it has none.
    A direct intra-node mesh is named by the link of the GPU `vendor`'s (hardware.intra_node_name: Infinity
    Fabric on AMD). Pages pass the result through `gettext`."""
    if fact_name == "intra_node":
        return intra_node_name(code, vendor)
    return str(CHOICE_NAMES.get(fact_name, {}).get(code, code))


def source_kind_name(kind: str) -> str:
    """The English name of a source's kind (SOURCE_KIND_NAMES), else the kind with spaces for underscores."""
    return SOURCE_KIND_NAMES.get(kind) or kind.replace("_", " ")


# The units that are words, marked for the catalog: pages show a fact's unit translated (`gettext(unit)`).
UNIT_WORDS = (
    gettext_noop("days"),
    gettext_noop("weeks"),
    gettext_noop("GPUs"),
    gettext_noop("min"),
    gettext_noop("$/GB-month"),
    gettext_noop("$/month"),
    gettext_noop("per GPU-hour"),
)

GROUPS: dict[str, str] = {
    "hardware": gettext_noop("Hardware"),
    "network": gettext_noop("Inter-node network"),
    "software": gettext_noop("Scheduling and software"),
    "fault_tolerance": gettext_noop("Fault tolerance"),
    "commercial": gettext_noop("Exclusivity, guarantee and SLA"),
    "storage": gettext_noop("Checkpoint storage"),
    "fees": gettext_noop("Fees"),
}


def _num(value: float) -> str:
    """A bound as people write it: 1,600 rather than 1600.0, 0.01 rather than 1e-02, 1 × 10²⁰ rather than
    1e+20 (hardware.numbers)."""
    return number_text(value)


# A unit that is this currency symbol is written before the figure, as money is everywhere ("$200", the
# form of portal.money, which pages use to write such a bound in their own currency: portal.i18n).
MONEY_UNIT = "$"


def range_text(
    minimum: float | None, maximum: float | None, unit: str = "", *, strictly_positive: bool = False
) -> str:
    """ "between 50 and 100 %", "greater than 0 and at most 0.01 per GPU-hour", "at most $200"."""
    if unit == MONEY_UNIT:
        suffix, low_text, high_text = "", f"{unit}{_num(minimum or 0)}", f"{unit}{_num(maximum or 0)}"
    else:
        suffix = f" {unit}" if unit else ""
        low_text, high_text = _num(minimum or 0), _num(maximum or 0)
    if strictly_positive:
        low = "greater than 0"
        return f"{low} and at most {high_text}{suffix}" if maximum is not None else low + suffix
    if minimum is not None and maximum is not None:
        return f"between {low_text} and {high_text}{suffix}"
    if minimum is not None:
        return f"at least {low_text}{suffix}"
    if maximum is not None:
        return f"at most {high_text}{suffix}"
    return "any number"


def bound_error(
    label: str,
    value: float,
    minimum: float | None,
    maximum: float | None,
    unit: str = "",
    *,
    strictly_positive: bool = False,
) -> str | None:
    """ "<label> must be between 50 and 100 %, got 0" when `value` is outside the range, else None."""
    if is_nan_or_infinite(value):
        return f"{label} must be a finite number, got {value}"
    too_low = (strictly_positive and value <= 0) or (minimum is not None and value < minimum)
    too_high = maximum is not None and value > maximum
    if not (too_low or too_high):
        return None
    got = number_text(value)
    allowed = range_text(minimum, maximum, unit, strictly_positive=strictly_positive)
    return f"{label} must be {allowed}, got {got}"


@dataclass(frozen=True)
class Bound:
    label: str
    minimum: float | None = None
    maximum: float | None = None
    unit: str = ""
    strictly_positive: bool = False
    source: str = ""

    def range_text(self) -> str:
        return range_text(self.minimum, self.maximum, self.unit, strictly_positive=self.strictly_positive)

    def error(self, value: float) -> str | None:
        return bound_error(
            self.label, value, self.minimum, self.maximum, self.unit, strictly_positive=self.strictly_positive
        )


@dataclass(frozen=True)
class Fact:
    name: str
    group: str
    label: str
    type: FactType
    unit: str = ""
    choices: tuple[str, ...] = ()
    minimum: float | None = None  # inclusive lower bound, None = no bound
    strictly_positive: bool = False  # the lower bound 0 is exclusive
    maximum: float | None = None  # inclusive upper bound
    max_length: int | None = None  # text facts: characters
    bound_source: str = ""  # where the bounds come from (what hardware and contracts allow)

    @property
    def bound(self) -> Bound | None:
        """The fact's range as a Bound (None for a fact without one)."""
        if self.minimum is None and not self.strictly_positive and self.maximum is None:
            return None
        return Bound(
            self.label, self.minimum, self.maximum, self.unit, self.strictly_positive, self.bound_source
        )

    def range_text(self) -> str:
        """The allowed range as the messages and the edit form say it, e.g. "between 50 and 100 %"."""
        return range_text(self.minimum, self.maximum, self.unit, strictly_positive=self.strictly_positive)

    def bound_error(self, value: float) -> str | None:
        """The message for a number outside the fact's range (None when it is inside), naming the fact."""
        return bound_error(
            self.label, value, self.minimum, self.maximum, self.unit, strictly_positive=self.strictly_positive
        )


# Where the bounds come from: what hardware and contracts allow, with room above the largest published value.
# A value outside is a typing error or an attack, never a real offering; each message names the range.
_NODE = "one node is at most a 72-GPU rack domain (GB200/GB300 NVL72), with up to 32 NICs"
_NIC = "the fastest NIC port announced is 1.6 Tb/s (ConnectX-9 / 1.6T Ethernet)"
_HBM = "the largest HBM per GPU announced is 1 TB (Rubin Ultra)"
_LINK = "NVLink 6 gives 3,600 GB/s per GPU; twice that allowed"
_DOMAIN = "the largest scale-up domains: 384 NPUs (CloudMatrix 384), 576 GPU dies (NVL576)"
_CLUSTER = "the largest clusters hold about 200,000 GPUs, i.e. 25,000 8-GPU nodes; 4x allowed"
_FAIL = "Llama 3 saw about 2e-5 interruptions per GPU-hour; 500x that is a broken cluster, not an offering"
_CONTRACT = "a contract guarantees a share of the GPUs: below 50 % no cluster is usable for training"
_MONEY = "about 100x the highest published list price"
_STORAGE = "the fastest parallel file systems write about 10 TB/s; 10x allowed"
_TEXT = "a published sentence or paragraph; longer text belongs in a source document"

FACTS: tuple[Fact, ...] = (
    # hardware
    Fact("gpu", "hardware", gettext_noop("GPU model"), "gpu"),
    Fact("gpu_label", "hardware", gettext_noop("GPU as published"), "text", max_length=200),
    Fact(
        "gpus_per_node",
        "hardware",
        gettext_noop("GPUs per node"),
        "int",
        minimum=1,
        maximum=72,
        bound_source=_NODE,
    ),
    Fact(
        "hbm_gb_per_gpu",
        "hardware",
        gettext_noop("HBM per GPU"),
        "float",
        "GB",
        strictly_positive=True,
        maximum=1024,
        bound_source=_HBM,
    ),  # fmt: skip
    Fact("intra_node", "hardware", gettext_noop("Intra-node interconnect"), "enum", choices=INTRA_NODE),
    Fact(
        "intra_node_gbytes_per_s",
        "hardware",
        gettext_noop("Intra-node bandwidth per GPU"),
        "float",
        "GB/s",
        strictly_positive=True,
        maximum=7200,
        bound_source=_LINK,
    ),
    Fact(
        "nvlink_domain_gpus",
        "hardware",
        gettext_noop("NVLink domain"),
        "int",
        "GPUs",
        minimum=1,
        maximum=576,
        bound_source=_DOMAIN,
    ),  # fmt: skip
    Fact("bare_metal", "hardware", gettext_noop("Bare metal"), "bool"),
    # network
    Fact("fabric", "network", gettext_noop("Inter-node fabric"), "enum", choices=FABRICS),
    Fact("fabric_label", "network", gettext_noop("Fabric as published"), "text", max_length=300),
    Fact(
        "nics_per_node",
        "network",
        gettext_noop("GPU-fabric NICs per node"),
        "int",
        minimum=1,
        maximum=32,
        bound_source=_NODE,
    ),  # fmt: skip
    Fact(
        "gbps_per_nic",
        "network",
        gettext_noop("Speed per NIC"),
        "float",
        "Gb/s",
        minimum=1,
        maximum=1600,
        bound_source=_NIC,
    ),  # fmt: skip
    Fact("topology", "network", gettext_noop("Topology"), "enum", choices=TOPOLOGIES),
    Fact(
        "oversubscription",
        "network",
        gettext_noop("Oversubscription"),
        "float",
        ":1",
        minimum=1.0,
        maximum=64,
        bound_source="1:1 is non-blocking; beyond 64:1 no training traffic gets through",
    ),  # fmt: skip
    Fact(
        "max_nodes",
        "network",
        gettext_noop("Maximum nodes in one fabric"),
        "int",
        minimum=1,
        maximum=100_000,
        bound_source=_CLUSTER,
    ),  # fmt: skip
    # A run size the provider (or a benchmark it took part in) has shown on one fabric: evidence that at
    # least this many GPUs work together, not a contractual maximum (that is max_nodes).
    Fact(
        "largest_demonstrated_gpus",
        "network",
        gettext_noop("Largest run demonstrated"),
        "int",
        "GPUs",
        strictly_positive=True,
        maximum=LARGEST_RUN_GPUS_MAX,
        bound_source=_CLUSTER,
    ),
    # software
    Fact("schedulers", "software", gettext_noop("Schedulers"), "list", choices=SCHEDULERS),
    Fact("scheduler_label", "software", gettext_noop("Scheduler as published"), "text", max_length=300),
    Fact("topology_aware_placement", "software", gettext_noop("Topology-aware placement"), "bool"),
    Fact(
        "accelerator_stack", "software", gettext_noop("Accelerator stack"), "enum", choices=ACCELERATOR_STACKS
    ),
    Fact("standard_containers", "software", gettext_noop("Standard containers"), "bool"),
    Fact("proprietary_fabric_plugin", "software", gettext_noop("Needs a proprietary fabric plugin"), "bool"),
    # fault tolerance
    Fact("health_checks", "fault_tolerance", gettext_noop("Health checks"), "bool"),
    Fact("auto_bad_node_detection", "fault_tolerance", gettext_noop("Automatic bad-node detection"), "bool"),
    Fact("auto_replacement", "fault_tolerance", gettext_noop("Automatic node replacement"), "bool"),
    Fact(
        "replacement_time_min",
        "fault_tolerance",
        gettext_noop("Replacement time"),
        "float",
        "min",
        minimum=0,
        maximum=43_200,
        bound_source="30 days: a replacement slower than a month is no replacement",
    ),  # fmt: skip
    Fact("auto_checkpoint_restart", "fault_tolerance", gettext_noop("Automatic checkpoint/restart"), "bool"),
    Fact("spare_node_pool", "fault_tolerance", gettext_noop("Spare-node pool"), "bool"),
    Fact(
        "failure_rate_per_gpu_hour",
        "fault_tolerance",
        gettext_noop("Failure rate"),
        "float",
        "per GPU-hour",
        strictly_positive=True,
        maximum=0.01,
        bound_source=_FAIL,
    ),
    # commercial
    Fact("exclusivity", "commercial", gettext_noop("Exclusivity"), "enum", choices=EXCLUSIVITY),
    Fact(
        "usable_gpu_guarantee_pct",
        "commercial",
        gettext_noop("Usable-GPU guarantee"),
        "float",
        "%",
        minimum=50,
        maximum=100,
        bound_source=_CONTRACT,
    ),
    Fact(
        "usable_gpu_credit", "commercial", gettext_noop("If the guarantee is missed"), "text", max_length=2000
    ),
    Fact(
        "uptime_sla_pct",
        "commercial",
        gettext_noop("Uptime SLA"),
        "float",
        "%",
        minimum=50,
        maximum=100,
        bound_source="published uptime SLAs are 90-99.99 %; below 50 % is no service level",
    ),  # fmt: skip
    Fact(
        "sla_claim_window_days",
        "commercial",
        gettext_noop("SLA claim window"),
        "int",
        "days",
        minimum=0,
        maximum=365,
        bound_source="claim windows are published as 30-60 days; a year allowed",
    ),  # fmt: skip
    Fact("sla_text", "commercial", gettext_noop("SLA as published"), "text", max_length=5000),
    Fact("regions", "commercial", gettext_noop("Regions"), "text", max_length=2000),
    Fact(
        "lead_time_weeks",
        "commercial",
        gettext_noop("Lead time to a running cluster"),
        "float",
        "weeks",
        minimum=0,
        maximum=LEAD_TIME_WEEKS_MAX,
        bound_source="published lead times for large clusters run from days to a year; 2 years allowed",
    ),
    Fact("payment_terms", "commercial", gettext_noop("Payment terms"), "enum", choices=PAYMENT_TERMS),
    Fact("compliance", "commercial", gettext_noop("Compliance"), "text", max_length=2000),
    # storage
    Fact("storage_type", "storage", gettext_noop("Checkpoint storage"), "text", max_length=300),
    Fact(
        "storage_write_gbytes_per_s",
        "storage",
        gettext_noop("Storage write bandwidth"),
        "float",
        "GB/s",
        strictly_positive=True,
        maximum=100_000,
        bound_source=_STORAGE,
    ),
    Fact(
        "storage_price_usd_per_gb_month",
        "storage",
        gettext_noop("Storage price"),
        "decimal",
        "$/GB-month",
        minimum=0,
        maximum=10,
        bound_source=_MONEY,
    ),  # fmt: skip
    Fact(
        "storage_included_gb",
        "storage",
        gettext_noop("Storage included"),
        "float",
        "GB",
        minimum=0,
        maximum=1e9,
        bound_source="1 EB: far above any included allowance",
    ),  # fmt: skip
    # fees
    Fact(
        "egress_price_usd_per_gb",
        "fees",
        gettext_noop("Internet egress"),
        "decimal",
        "$/GB",
        minimum=0,
        maximum=10,
        bound_source=_MONEY,
    ),  # fmt: skip
    Fact(
        "traffic_price_usd_per_gb",
        "fees",
        gettext_noop("Traffic between the nodes"),
        "decimal",
        "$/GB",
        minimum=0,
        maximum=10,
        bound_source=_MONEY,
    ),  # fmt: skip
    Fact(
        "support_fee_usd_per_month",
        "fees",
        gettext_noop("Support fee"),
        "decimal",
        "$/month",
        minimum=0,
        maximum=10_000_000,
        bound_source=_MONEY,
    ),  # fmt: skip
    Fact(
        "setup_fee_usd",
        "fees",
        gettext_noop("Setup fee"),
        "decimal",
        "$",
        minimum=0,
        maximum=100_000_000,
        bound_source=_MONEY,
    ),  # fmt: skip
    Fact("fees_note", "fees", gettext_noop("Fee notes"), "text", max_length=2000),
)

# A billing plan's numeric terms (providers.models.BillingPlan), bounded like the facts.
PRICE_CAP_USD_PER_GPU_HOUR = 200  # about 10x the highest on-demand list price published (~$15-20/GPU-hour)


PLAN_BOUNDS: dict[str, Bound] = {
    "price_usd_per_gpu_hour": Bound(
        "Price per GPU-hour",
        maximum=PRICE_CAP_USD_PER_GPU_HOUR,
        unit="$",
        strictly_positive=True,
        source="a free plan is not a price; the cap is about 10x the highest published on-demand price",
    ),  # fmt: skip
    "term_months": Bound("Term", 1, 120, "months", source="reserved terms are published up to 5 years"),
    "min_nodes": Bound("Minimum nodes", 1, 100_000, source=_CLUSTER),
    "cycle_days": Bound("Cycle length", 1, 3650, "days", source="cycles are published as days to a year"),
    "upfront_pct": Bound("Upfront payment", 0, 100, "%", source="a share of the contract value"),
}
# A plan's kind (providers.models.PlanKind), as words for its labels and the checklist.
PLAN_KIND_WORDS = {
    "on-demand": gettext_noop("On-demand"),
    "reserved": gettext_noop("Reserved"),
    "cluster-cycle": gettext_noop("Cluster cycle"),
    "spot": gettext_noop("Spot / preemptible"),
}
# The stand-in plan a bill runs on when the offering publishes none (kind "none", sizing.bill): pages
# translate its name (providers.templatetags.units.plan_name); a provider's own plan names stay as published.
NO_PLAN_NAME = gettext_noop("no published plan")
# How a plan rounds the hours it bills (providers.models.Granularity), as words for its labels and notes.
GRANULARITY_WORDS = {
    "second": gettext_noop("per second"),
    "hour": gettext_noop("per hour"),
    "day": gettext_noop("per day"),
    "month": gettext_noop("per month"),
    "cycle": gettext_noop("per cycle"),
}
# Plans whose capacity the provider may take back mid-run (spot / preemptible; providers.models.PlanKind).
# They are listed and priced, but a training run is never billed on one while any other plan is priced:
# the goodput model has no preemptions, so its time and cost on such capacity would not be true.
PREEMPTIBLE_PLAN_KINDS = ("spot",)


def plan_rate(value: Any) -> float | None:
    """A published price per GPU-hour as a number (None: unpublished, not a number, or not finite)."""
    if value is None or isinstance(value, bool):
        return None
    try:
        rate = float(value)
    except (TypeError, ValueError, OverflowError):  # OverflowError: an integer no float holds (10**400)
        return None
    return rate if math.isfinite(rate) else None


def priced_plans(plans: list[Any]) -> list[dict[str, Any]]:
    """The billing plans that publish a usable price per GPU-hour (plan_rate)."""
    return [
        p for p in plans if isinstance(p, dict) and plan_rate(p.get("price_usd_per_gpu_hour")) is not None
    ]


def billable_plans(plans: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], bool]:
    """The priced plans a training run can be billed on, and whether they are preemptible ones (only when
    the offering prices nothing else). Every price in the sizing, the bill and the checks comes from here."""
    priced = priced_plans(plans)
    steady = [p for p in priced if p.get("kind") not in PREEMPTIBLE_PLAN_KINDS]
    return (steady, False) if steady or not priced else (priced, True)


def billable_rate(facts: dict[str, Any]) -> float | None:
    """The lowest price per GPU-hour a training run can be billed at: the offering's headline price (its
    cheapest on-demand plan) and its plans, preemptible ones only when nothing else is priced."""
    plans, preemptible = billable_plans(list(facts.get("billing_plans") or []))
    rates = [rate for p in plans if (rate := plan_rate(p["price_usd_per_gpu_hour"])) is not None]
    headline = plan_rate(facts.get("price_usd_per_gpu_hour"))
    if headline is not None:
        rates = [headline] + ([] if preemptible else rates)
    return min(rates) if rates else None


# Free text outside the fact table: characters allowed (forms, API, database).
NOTE_MAX_LENGTH = 2000
TEXT_SOURCE = _TEXT


FACTS_BY_NAME: dict[str, Fact] = {fact.name: fact for fact in FACTS}


def facts_in_group(group: str) -> list[Fact]:
    return [fact for fact in FACTS if fact.group == group]


# A label that names NVIDIA's link, in neutral words on another vendor's GPU: AMD Instinct nodes join their
# GPUs by Infinity Fabric, Huawei Ascend nodes by HCCS or UB (hardware.links). (fact, vendor) -> label.
VENDOR_LABELS = {
    ("nvlink_domain_gpus", "amd"): gettext_noop("Scale-up domain"),
    ("nvlink_domain_gpus", "huawei"): gettext_noop("Scale-up domain"),
}


def fact_label(name: str, vendor: str | None = None) -> str:
    """A fact's English label in the terms of the GPU `vendor`'s (VENDOR_LABELS), else its own label; the
    name itself for an unknown fact. A catalog message id: pages pass it through `gettext`."""
    if vendor and (name, vendor) in VENDOR_LABELS:
        return VENDOR_LABELS[(name, vendor)]
    fact = FACTS_BY_NAME.get(name)
    return fact.label if fact is not None else name
