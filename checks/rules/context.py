"""What every rule needs to know about the job, and how the rules read the parsed evidence items.

Inputs are read defensively (`.get`): parsers and the sizing engine evolve in parallel, and `None` in the
facts means "not published", which is itself worth saying.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from checks.rules.base import Msg, _, to_float
from checks.rules.thresholds import (
    MIN_BANDWIDTH_MESSAGE_BYTES,
    REFERENCE_GPUS,
    REFERENCE_PARAMS,
    SINGLE_NODE_MAX_PARAMS,
)
from hardware import FABRIC_LINK_LAYERS, GPU, gpu_from_text, other_gpu_names
from providers.facts import billable_rate

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
    gpus_per_node: int | None  # of the offering
    # The GPU numbers the rules need (HBM, NVLink rate and link count, bf16 peak) are rows of the hardware
    # package's GPU table; hardware.gpu_from_text finds the row for a key or a model string as nvidia-smi
    # prints.
    spec: GPU | None
    price: float | None

    @property
    def multi_node(self) -> bool:
        return self.nodes > 1

    @property
    def job_words(self) -> Msg:
        who = _("the reference job (no workload given)") if self.params_assumed else _("this workload")
        return _(
            "%(who)s: %(size)s parameters on %(gpus)s GPUs / %(nodes)s nodes%(assumed)s",
            who=who,
            size=f"{self.params_total / 1e9:.0f}B",
            gpus=self.gpus,
            nodes=self.nodes,
            assumed=_(" (assumed)") if self.gpus_assumed else "",
        )


def workload_params(workload: dict | None, sizing: dict | None = None) -> tuple[float, float] | None:
    """Total and active parameters: the sizing result's count, else the workload's, else 12 L h^2 + V h."""
    sized = (sizing or {}).get("params") or {}
    total = to_float(sized.get("total")) if isinstance(sized, dict) else None
    active = to_float(sized.get("active")) if isinstance(sized, dict) else None
    if total:
        return total, active or total
    if not workload:
        return None
    params = to_float(workload.get("params"))
    if params:
        return params, params
    layers, hidden = to_float(workload.get("layers")), to_float(workload.get("hidden"))
    if layers and hidden:
        vocab = to_float(workload.get("vocab")) or 0.0
        # Megatron-LM's count (Narayanan et al. 2021): 12 l h^2 per transformer stack plus the embedding.
        count = 12 * layers * hidden**2 + vocab * hidden
        return count, count
    return None


def _price(offering: dict, sizing: dict | None) -> float | None:
    """The rate the sizing billed the run at, else the lowest one the offering can bill a run at."""
    cost = (sizing or {}).get("cost") or {}
    rate = to_float(cost.get("usd_per_gpu_hour")) if isinstance(cost, dict) else None
    return rate or billable_rate(offering)


def _job_gpus(
    sizing: dict | None, params_total: float, gpus_per_node: int | None, max_gpus: int | None
) -> tuple[int, bool]:
    """GPUs of the job and whether they are assumed: the sizing result's, else the seed's guess."""
    sized_gpus = to_float((sizing or {}).get("gpus"))
    if sized_gpus:
        return int(sized_gpus), False
    if params_total < SINGLE_NODE_MAX_PARAMS:
        # Seed rule: under 30B, one 8-GPU full-mesh node and DP (DESIGN section 6).
        return gpus_per_node or 8, True
    gpus = REFERENCE_GPUS
    if max_gpus:
        gpus = min(gpus, max_gpus)
    return gpus, True


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
    gpus_per_node = int(offering["gpus_per_node"]) if to_float(offering.get("gpus_per_node")) else None
    max_gpus = (
        gpus_per_node * int(offering["nodes"]) if gpus_per_node and to_float(offering.get("nodes")) else None
    )
    gpus, gpus_assumed = _job_gpus(sizing, total, gpus_per_node, max_gpus)
    sized_nodes = to_float((sizing or {}).get("nodes"))
    nodes = int(sized_nodes) if sized_nodes else max(1, math.ceil(gpus / (gpus_per_node or 8)))
    return Context(
        offering=offering,
        workload=workload,
        sizing=sizing,
        evidence=[item for item in evidence if isinstance(item, dict)],
        bill=bill,
        params_total=total,
        params_active=active,
        params_assumed=assumed,
        gpus=gpus,
        gpus_assumed=gpus_assumed,
        nodes=nodes,
        gpus_per_node=gpus_per_node,
        spec=gpu_from_text(offering.get("gpu")) or gpu_from_text(offering.get("gpu_label")),
        price=_price(offering, sizing),
    )


def comm_breakdown(sizing: dict | None) -> tuple[float, float, float] | None:
    """(inter-node comm s, tp comm s, iteration s) from the sizing breakdown."""
    breakdown = (sizing or {}).get("iteration_breakdown_s")
    if not isinstance(breakdown, dict):
        return None
    parts = {key: to_float(value) or 0.0 for key, value in breakdown.items()}
    total = to_float((sizing or {}).get("iteration_time_s")) or sum(parts.values())
    if total <= 0:
        return None
    inter = sum(parts.get(key, 0.0) for key in ("dp_comm", "pp_comm", "ep_comm", "cp_comm"))
    return inter, parts.get("tp_comm", 0.0), total


# --- Evidence items: kinds, summaries, line references ----------------------------------------------


def _kind(item: dict) -> str:
    return str(item.get("kind") or "").lower()


def summary_of(item: dict) -> dict:
    summary = item.get("summary")
    return summary if isinstance(summary, dict) else {}


def items_of(ctx: Context, *kinds: str) -> list[dict]:
    return [item for item in ctx.evidence if _kind(item) in kinds]


def lines_of(summary: dict) -> list[Any]:
    """Line references of a summary: `lines`, else the per-GPU rows' `line`, else the header line."""
    lines = summary.get("lines")
    if isinstance(lines, list) and lines:
        return lines
    rows = summary.get("gpu_list") or summary.get("per_gpu") or []
    found = [row.get("line") for row in rows if isinstance(row, dict) and row.get("line")]
    return found or [summary.get("header_line")]


def count_of(value: Any) -> int:
    """How many a summary field names: the length of a list of them, else the number itself."""
    return len(value) if isinstance(value, list) else int(to_float(value) or 0)


# --- Fabric ports (ibstat, ibstatus, ibv_devinfo, rdma link) ----------------------------------------

PORT_KINDS = ("ibstat", "ibstatus", "ibv_devinfo", "rdma-link")


def claimed_layer(fabric: str | None) -> str | None:
    """The link layer a port must show for the claimed fabric, lower case (hardware.FABRIC_LINK_LAYERS: RoCE
    runs over Ethernet); None for a fabric whose ports show no known layer."""
    layer = FABRIC_LINK_LAYERS.get(fabric or "")
    return layer.lower() if layer else None


def claimed_nics(offering: dict) -> int | None:
    """Fabric ports (NICs) per node the offering claims."""
    return int(offering["nics_per_node"]) if to_float(offering.get("nics_per_node")) else None


def ports_of(item: dict) -> list[dict]:
    return [port for port in summary_of(item).get("ports") or [] if isinstance(port, dict)]


def port_active(port: dict) -> bool:
    state = str(port.get("state") or "").lower()
    return "active" in state and "inactive" not in state


def port_down(port: dict) -> bool:
    state = str(port.get("state") or "").lower()
    return "down" in state or "disabled" in state or "polling" in state


def port_layer(port: dict) -> str:
    layer = str(port.get("link_layer") or "").lower()
    if "infiniband" in layer:
        return "infiniband"
    if "ethernet" in layer:
        return "ethernet"
    return layer or "unknown"


def port_name(port: dict) -> Msg:
    """A port as a finding names it ("mlx5_0 port 1", "mlx5_0 端口 1" on a Chinese page)."""
    return _("%(device)s port %(port)s", device=port.get("device") or "?", port=port.get("port") or 1)


# --- Collective benchmark runs (nccl-tests, rccl-tests, hccl_test) ----------------------------------


def run_nodes(item: dict, run: dict, gpus_per_node: int | None) -> int | None:
    for value in (run.get("nodes"), summary_of(item).get("nodes"), item.get("nodes")):
        number = to_float(value)
        if number:
            return int(number)
    hosts = run.get("hosts") or summary_of(item).get("hosts")
    if isinstance(hosts, list | tuple | set) and hosts:
        return len(set(hosts))
    ranks = to_float(run.get("ranks"))
    if ranks and gpus_per_node and ranks > gpus_per_node:
        return math.ceil(ranks / gpus_per_node)
    return None


def usable_runs(item: dict, offering: dict) -> list[dict]:
    """nccl-style runs that measure the offering's bandwidth: not failed, 2+ ranks, large messages, on the
    offering's GPUs (a run whose Rank lines name another GPU of the table is another cluster's figure)."""
    runs = summary_of(item).get("runs") or []
    out = []
    for run in runs:
        if not isinstance(run, dict) or run.get("failed"):
            continue
        if other_gpu_names(offering.get("gpu"), run.get("gpu_names") or []):
            continue
        if (to_float(run.get("ranks")) or 0) < 2:
            continue
        max_size = to_float(run.get("max_size_bytes"))
        if max_size is not None and max_size < MIN_BANDWIDTH_MESSAGE_BYTES:
            continue
        if busbw(run) is None:
            continue
        out.append(run)
    return out


def busbw(run: dict) -> float | None:
    # DESIGN section 7: compare at the largest message sizes, never "Avg bus bandwidth".
    return to_float(run.get("busbw_at_max_size_gbps")) or to_float(run.get("peak_busbw_gbps"))


def run_lines(run: dict) -> list[Any]:
    return (
        [[run.get("first_line"), run.get("last_line") or run.get("first_line")]]
        if run.get("first_line")
        else []
    )
