"""The registry of offering facts: one row per fact, grouped as the catalog file and the pages show them.

Import, export, the offering page and `Offering.facts()` all walk this table, so a new fact is added here
and as a model field, nowhere else. Names, units and enums are those of docs/FACTS.md.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

FactType = Literal["int", "float", "decimal", "bool", "enum", "text", "list", "gpu"]

INTRA_NODE = ("nvswitch", "nvlink-mesh", "nvlink-bridge", "pcie")
FABRICS = ("infiniband", "roce", "efa", "tcpx", "ethernet", "other")
TOPOLOGIES = ("fat-tree", "rail-optimized", "clos", "torus", "ring", "chain", "unknown")
SCHEDULERS = ("slurm", "kubernetes", "proprietary")
ACCELERATOR_STACKS = ("cuda", "rocm", "cann", "other")
EXCLUSIVITY = ("dedicated", "shared")
# When the provider bills: before the period (prepaid), each month in arrears, or on invoice terms.
# The same names the request-for-quote answers use.
PAYMENT_TERMS = ("upfront", "monthly", "net-30", "net-60")
# Largest single training job ever published: about 100,000 GPUs (2025-26); ten times that bounds a typo.
LARGEST_RUN_GPUS_MAX = 1_000_000
# Lead times quoted for GPU clusters run from days to about a year; two years bounds a typo.
LEAD_TIME_WEEKS_MAX = 104

GROUPS: dict[str, str] = {
    "hardware": "Hardware",
    "network": "Inter-node network",
    "software": "Scheduling and software",
    "fault_tolerance": "Fault tolerance",
    "commercial": "Exclusivity, guarantee and SLA",
    "storage": "Checkpoint storage",
    "fees": "Fees",
}


@dataclass(frozen=True)
class Fact:
    name: str
    group: str
    label: str
    type: FactType
    unit: str = ""
    choices: tuple[str, ...] = ()
    minimum: float | None = None  # inclusive lower bound, None = no bound
    strictly_positive: bool = False
    maximum: float | None = None


FACTS: tuple[Fact, ...] = (
    # hardware
    Fact("gpu", "hardware", "GPU model", "gpu"),
    Fact("gpu_label", "hardware", "GPU as published", "text"),
    Fact("gpus_per_node", "hardware", "GPUs per node", "int", strictly_positive=True),
    Fact("hbm_gb_per_gpu", "hardware", "HBM per GPU", "float", "GB", strictly_positive=True),
    Fact("intra_node", "hardware", "Intra-node interconnect", "enum", choices=INTRA_NODE),
    Fact(
        "intra_node_gbytes_per_s",
        "hardware",
        "Intra-node bandwidth per GPU",
        "float",
        "GB/s",
        strictly_positive=True,
    ),
    Fact("nvlink_domain_gpus", "hardware", "NVLink domain", "int", "GPUs", strictly_positive=True),
    Fact("bare_metal", "hardware", "Bare metal", "bool"),
    # network
    Fact("fabric", "network", "Inter-node fabric", "enum", choices=FABRICS),
    Fact("fabric_label", "network", "Fabric as published", "text"),
    Fact("nics_per_node", "network", "GPU-fabric NICs per node", "int", strictly_positive=True),
    Fact("gbps_per_nic", "network", "Speed per NIC", "float", "Gb/s", strictly_positive=True),
    Fact("topology", "network", "Topology", "enum", choices=TOPOLOGIES),
    Fact("oversubscription", "network", "Oversubscription", "float", ":1", minimum=1.0),
    Fact("max_nodes", "network", "Maximum nodes in one fabric", "int", strictly_positive=True),
    # A run size the provider (or a benchmark it took part in) has shown on one fabric: evidence that at
    # least this many GPUs work together, not a contractual maximum (that is max_nodes).
    Fact(
        "largest_demonstrated_gpus",
        "network",
        "Largest run demonstrated",
        "int",
        "GPUs",
        strictly_positive=True,
        maximum=LARGEST_RUN_GPUS_MAX,
    ),
    # software
    Fact("schedulers", "software", "Schedulers", "list", choices=SCHEDULERS),
    Fact("scheduler_label", "software", "Scheduler as published", "text"),
    Fact("topology_aware_placement", "software", "Topology-aware placement", "bool"),
    Fact("accelerator_stack", "software", "Accelerator stack", "enum", choices=ACCELERATOR_STACKS),
    Fact("standard_containers", "software", "Standard containers", "bool"),
    Fact("proprietary_fabric_plugin", "software", "Needs a proprietary fabric plugin", "bool"),
    # fault tolerance
    Fact("health_checks", "fault_tolerance", "Health checks", "bool"),
    Fact("auto_bad_node_detection", "fault_tolerance", "Automatic bad-node detection", "bool"),
    Fact("auto_replacement", "fault_tolerance", "Automatic node replacement", "bool"),
    Fact("replacement_time_min", "fault_tolerance", "Replacement time", "float", "min", minimum=0),
    Fact("auto_checkpoint_restart", "fault_tolerance", "Automatic checkpoint/restart", "bool"),
    Fact("spare_node_pool", "fault_tolerance", "Spare-node pool", "bool"),
    Fact(
        "failure_rate_per_gpu_hour",
        "fault_tolerance",
        "Failure rate",
        "float",
        "per GPU-hour",
        strictly_positive=True,
    ),
    # commercial
    Fact("exclusivity", "commercial", "Exclusivity", "enum", choices=EXCLUSIVITY),
    Fact(
        "usable_gpu_guarantee_pct", "commercial", "Usable-GPU guarantee", "float", "%", minimum=0, maximum=100
    ),
    Fact("usable_gpu_credit", "commercial", "If the guarantee is missed", "text"),
    Fact("uptime_sla_pct", "commercial", "Uptime SLA", "float", "%", minimum=0, maximum=100),
    Fact("sla_claim_window_days", "commercial", "SLA claim window", "int", "days", minimum=0),
    Fact("sla_text", "commercial", "SLA as published", "text"),
    Fact("regions", "commercial", "Regions", "text"),
    Fact(
        "lead_time_weeks",
        "commercial",
        "Lead time to a running cluster",
        "float",
        "weeks",
        minimum=0,
        maximum=LEAD_TIME_WEEKS_MAX,
    ),
    Fact("payment_terms", "commercial", "Payment terms", "enum", choices=PAYMENT_TERMS),
    Fact("compliance", "commercial", "Compliance", "text"),
    # storage
    Fact("storage_type", "storage", "Checkpoint storage", "text"),
    Fact(
        "storage_write_gbytes_per_s",
        "storage",
        "Storage write bandwidth",
        "float",
        "GB/s",
        strictly_positive=True,
    ),
    Fact("storage_price_usd_per_gb_month", "storage", "Storage price", "decimal", "$/GB-month", minimum=0),
    Fact("storage_included_gb", "storage", "Storage included", "float", "GB", minimum=0),
    # fees
    Fact("egress_price_usd_per_gb", "fees", "Internet egress", "decimal", "$/GB", minimum=0),
    Fact("traffic_price_usd_per_gb", "fees", "Traffic between the nodes", "decimal", "$/GB", minimum=0),
    Fact("support_fee_usd_per_month", "fees", "Support fee", "decimal", "$/month", minimum=0),
    Fact("setup_fee_usd", "fees", "Setup fee", "decimal", "$", minimum=0),
    Fact("fees_note", "fees", "Fee notes", "text"),
)

FACTS_BY_NAME: dict[str, Fact] = {fact.name: fact for fact in FACTS}


def facts_in_group(group: str) -> list[Fact]:
    return [fact for fact in FACTS if fact.group == group]
