"""The acceptance kit: scripts (Slurm) or manifests (Kubernetes) that test a trial cluster, packed as tar.gz.

Pure code (no Django): takes the offering facts dict, a node count and a scheduler, fills the templates
under kit_files/ (tokens `@NAME@`), and writes a README with what each step shows, how long it takes and
what it costs at the offering's price. Everything the kit runs writes into one folder (`results/`) that
`pack.sh` turns into the archive the portal reads back (acceptance.bundle).
"""

from __future__ import annotations

import io
import re
import tarfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hardware.messages import Msg, _, listed, ngettext

FILES = Path(__file__).resolve().parent / "kit_files"
SCHEDULERS = ("slurm", "kubernetes")
MAX_NODES = 1024
MAX_STABILITY_HOURS = 168
TOKEN = re.compile(r"@([A-Z_]+)@")
FABRIC_LABEL = "clusterscout.io/fabric"

# Step durations, minutes: estimates for planning the trial, not measurements. nccl-tests: 8 B-16 GiB
# doubling with the default 5 warm-up and 20 timed iterations takes about a minute per collective on a
# healthy 400 Gb/s-class fabric, plus job start; dcgmi diag -r 3 takes 10-20 min per node.
MINUTES_PER_COLLECTIVE = 2.0
MINUTES_PROBE = 10.0
MINUTES_NODE_REPORTS = 20.0
COLLECTIVES = ("all_reduce", "all_gather", "reduce_scatter", "alltoall")


class KitError(ValueError):
    """A request the kit cannot be built for; `field` names the parameter at fault, `message` says why (the
    API and the command print its English, the kit page shows it in its language)."""

    def __init__(self, field: str, message: Msg) -> None:
        super().__init__(message)
        self.field = field
        self.message = message


@dataclass(frozen=True)
class Step:
    name: str
    shows: str
    nodes: int
    minutes: float


def max_nodes_for(facts: dict[str, Any]) -> int:
    """The largest node count a kit may ask for: the offering's published maximum, else 1024."""
    published = facts.get("nodes")
    if isinstance(published, int) and published > 0:
        return min(published, MAX_NODES)
    return MAX_NODES


def check_request(facts: dict[str, Any], nodes: Any, scheduler: Any, stability_hours: Any = 0) -> None:
    """Raise KitError naming the field and its allowed range when the request cannot be served."""
    if scheduler not in SCHEDULERS:
        raise KitError(
            "scheduler",
            _(
                "scheduler must be one of %(known)s; got “%(got)s”.",
                known=listed(SCHEDULERS),
                got=scheduler,
            ),
        )
    limit = max_nodes_for(facts)
    if not isinstance(nodes, int) or isinstance(nodes, bool) or not 1 <= nodes <= limit:
        raise KitError(
            "nodes", _("nodes must be a whole number from 1 to %(limit)s for this offering.", limit=limit)
        )
    if not isinstance(stability_hours, int) or not 0 <= stability_hours <= MAX_STABILITY_HOURS:
        raise KitError(
            "stability_hours",
            _("stability_hours must be a whole number from 0 to %(most)s.", most=MAX_STABILITY_HOURS),
        )
    if not facts.get("gpus_per_node"):
        raise KitError("offering", _("the offering does not publish its GPUs per node; no kit can be built."))


def node_counts(nodes: int) -> list[int]:
    """1, 2, 4 ... below `nodes`, then `nodes` itself."""
    counts, n = [], 1
    while n < nodes:
        counts.append(n)
        n *= 2
    return [*counts, nodes]


def _safe_text(value: Any, limit: int = 120) -> str:
    """A name fit for a shell comment, a quoted shell string and YAML: letters, digits and plain marks."""
    return re.sub(r"[^A-Za-z0-9 ._()/+-]", "", str(value or ""))[:limit].strip() or "offering"


def _label_value(value: str) -> str:
    cleaned = re.sub(r"[^A-Za-z0-9._-]", "-", value)[:63].strip("-._")
    return cleaned or "fabric"


def fill(template: str, values: dict[str, Any]) -> str:
    """Replace every `@NAME@`; a token without a value is a bug in the kit, never left in a script."""

    def one(match: re.Match[str]) -> str:
        key = match.group(1)
        if key not in values:
            raise KeyError(f"kit template token @{key}@ has no value")
        return str(values[key])

    return TOKEN.sub(one, template)


def steps(facts: dict[str, Any], nodes: int, scheduler: str, stability_hours: int) -> list[Step]:
    collectives = len(COLLECTIVES)
    out = [
        Step(
            "node reports",
            "GPUs and their model (nvidia-smi -q), NVLink topology and links (topo -m, nvlink -s), "
            "network ports with state, link layer and rate (ibstat, ibv_devinfo, ibdev2netdev), PCI "
            "devices (lspci), GPU health (dcgmi diag -r 3) and kernel Xid errors, on every node",
            nodes,
            MINUTES_NODE_REPORTS,
        )
    ]
    for n in node_counts(nodes):
        out.append(
            Step(
                f"nccl-tests on {_nodes(n)}",
                "bus bandwidth of all_reduce, all_gather, reduce_scatter and alltoall from 8 B to 16 GiB"
                + (" inside one node (NVLink)" if n == 1 else " across nodes (the fabric)"),
                n,
                MINUTES_PER_COLLECTIVE * collectives,
            )
        )
        out.append(
            Step(
                f"training probe on {_nodes(n)}",
                "tokens/s per GPU of a small model: the scaling efficiency across node counts",
                n,
                MINUTES_PROBE,
            )
        )
    if stability_hours:
        out.append(
            Step(
                f"stability loop, {stability_hours} h",
                "all_reduce repeated with timestamps: throughput drift, interruptions and Xid errors",
                nodes,
                stability_hours * 60.0,
            )
        )
    return out


def _nodes(count: int) -> str:
    """A node count in words for the kit's English README ("1 node", "4 nodes")."""
    return ngettext("%(n)s node", "%(n)s nodes", count, n=count)


def _gpus(count: int) -> str:
    return ngettext("%(n)s GPU", "%(n)s GPUs", count, n=count)


def _money(value: float) -> str:
    return f"${value:,.2f}"


def readme(facts: dict[str, Any], nodes: int, scheduler: str, stability_hours: int) -> str:
    """What each step shows, how long it takes and what it costs at the offering's published price."""
    gpus = int(facts["gpus_per_node"])
    price = facts.get("price_usd_per_gpu_hour")
    price = float(price) if price is not None else None
    name = _safe_text(facts.get("name") or facts.get("slug"))
    rows, total_min, total_cost = [], 0.0, 0.0
    for step in steps(facts, nodes, scheduler, stability_hours):
        gpu_hours = step.nodes * gpus * step.minutes / 60
        cost = _money(gpu_hours * price) if price is not None else "price not published"
        rows.append(f"| {step.name} | {step.shows} | {step.minutes:g} min | {gpu_hours:,.1f} | {cost} |")
        total_min += step.minutes
        total_cost += gpu_hours * (price or 0)
    price_line = (
        f"at the offering's published price of {_money(price)} per GPU-hour"
        if price is not None
        else "the offering publishes no price per GPU-hour, so no cost is given"
    )
    run = (
        "./run_all.sh"
        if scheduler == "slurm"
        else "IMAGE_NCCL=... IMAGE_PROBE=... IMAGE_DCGM=... ./run_all.sh"
    )
    lines = [
        f"# Acceptance test: {name} ({facts.get('slug')}), {_nodes(nodes)} x {_gpus(gpus)}, {scheduler}",
        "",
        "Run it on the trial cluster, then upload the archive it packs at /benchmarks/acceptance/ (or",
        "`POST /api/v1/acceptance/` with `bundle` and `offering`). The portal reads every file, compares",
        "the measurements with what the offering claims and gives a pass / fail / incomplete verdict on",
        "collective bandwidth, scaling efficiency and stability, with findings naming file and line.",
        "",
        f"    {run}",
        "",
        "Everything is written into `results/` (one file per tool and node, `steps.tsv` with each step's",
        "time and exit code); `pack.sh` packs it. A missing tool is recorded and skipped.",
        "",
        "## Steps",
        "",
        "| step | what it shows | duration (estimate) | GPU-hours | cost |",
        "|---|---|---|---|---|",
        *rows,
        "",
        f"Total about {total_min / 60:.1f} h of wall time; "
        + (f"about {_money(total_cost)} {price_line}." if price is not None else f"{price_line}."),
        "Durations are planning estimates; a slow or failing fabric makes the collective steps longer.",
        "",
        *_scheduler_notes(scheduler, nodes, gpus),
    ]
    return "\n".join(lines) + "\n"


def _scheduler_notes(scheduler: str, nodes: int, gpus: int) -> list[str]:
    if scheduler == "slurm":
        return [
            "## Slurm",
            "",
            "Run from a directory every node can read. Each job is submitted with `sbatch --wait`;",
            f"nccl-tests jobs run one task per GPU ({gpus} per node) with `srun --mpi=pmix` and",
            "`NCCL_ALGO=Ring` (2-node tree algorithms inflate all_reduce). Set `NCCL_TESTS_DIR` to the",
            "nccl-tests build directory if the binaries are not on PATH. The probe needs torchtitan",
            "(`PROBE_CONFIG` points at its debug model). `STABILITY_HOURS=24 ./run_all.sh` adds the",
            "stability loop on all nodes.",
        ]
    return [
        "## Kubernetes",
        "",
        "Needs the Kubeflow MPI Operator (MPIJob) and Training Operator (PyTorchJob). Label the nodes of",
        f"one fabric `{FABRIC_LABEL}=<value in the manifests>`: every job is pinned there by node",
        "affinity and spread one pod per node. Set the three images: nccl-tests with MPI",
        "(`IMAGE_NCCL`), torchtitan with PyTorch (`IMAGE_PROBE`), and DCGM with the InfiniBand and",
        "PCI tools (`IMAGE_DCGM`). The node reports run as a DaemonSet; `collect.sh` copies them out.",
        f"{_nodes(nodes)} x {_gpus(gpus)} are requested through `nvidia.com/gpu`; add your RDMA device",
        "resource (for example `rdma/ib`) if your cluster needs one.",
    ]


def _values(facts: dict[str, Any], nodes: int, stability_hours: int) -> dict[str, Any]:
    gpus = int(facts["gpus_per_node"])
    slug = str(facts.get("slug") or "offering")
    return {
        "OFFERING": _label_value(slug),
        "OFFERING_NAME": _safe_text(facts.get("name") or slug),
        "NODES": nodes,
        "GPUS_PER_NODE": gpus,
        "NODE_COUNTS": " ".join(str(n) for n in node_counts(nodes)),
        "STABILITY_HOURS": stability_hours,
        "STABILITY_LIMIT": f"{stability_hours + 1:02d}:00:00",
        "FABRIC_LABEL": FABRIC_LABEL,
        "FABRIC_VALUE": _label_value(slug),
    }


def kit_files(facts: dict[str, Any], nodes: int, scheduler: str, stability_hours: int = 0) -> dict[str, str]:
    """Every file of the kit (path inside the archive -> text), templates filled."""
    check_request(facts, nodes, scheduler, stability_hours)
    values = _values(facts, nodes, stability_hours)
    read = lambda rel: (FILES / rel).read_text()  # noqa: E731
    files = {
        "README.md": readme(facts, nodes, scheduler, stability_hours),
        "config.sh": fill(read("config.sh"), values),
        "pack.sh": fill(read("pack.sh"), values),
        "lib/node_report.sh": fill(read("lib/node_report.sh"), values),
        "run_all.sh": fill(read(f"{scheduler}/run_all.sh"), values),
    }
    for n in node_counts(nodes):
        per = {**values, "N": n, "RANKS": n * values["GPUS_PER_NODE"], "WORKERS": n - 1}
        if scheduler == "slurm":
            files[f"slurm/nccl_{n}n.sbatch"] = fill(read("slurm/nccl.sbatch"), per)
            files[f"slurm/probe_{n}n.sbatch"] = fill(read("slurm/probe.sbatch"), per)
        else:
            files[f"kubernetes/nccl-mpijob-{n}n.yaml"] = fill(read("kubernetes/nccl-mpijob.yaml"), per)
            files[f"kubernetes/probe-pytorchjob-{n}n.yaml"] = _probe_manifest(read, per)
    whole = {**values, "N": nodes, "RANKS": nodes * values["GPUS_PER_NODE"], "WORKERS": nodes - 1}
    if scheduler == "slurm":
        files["slurm/node_reports.sbatch"] = fill(read("slurm/node_reports.sbatch"), whole)
        files["slurm/stability.sbatch"] = fill(read("slurm/stability.sbatch"), whole)
    else:
        files["collect.sh"] = fill(read("kubernetes/collect.sh"), whole)
        files["kubernetes/node-reports-daemonset.yaml"] = fill(
            read("kubernetes/node-reports-daemonset.yaml"), whole
        )
        files["kubernetes/stability-mpijob.yaml"] = fill(read("kubernetes/stability-mpijob.yaml"), whole)
    return files


def _probe_manifest(read: Any, values: dict[str, Any]) -> str:
    text = fill(read("kubernetes/probe-pytorchjob.yaml"), values)
    if values["WORKERS"] == 0:  # one node: the master alone (a PyTorchJob replica count must be >= 1)
        text = text[: text.index("    Worker:")]
    return text


def kit_name(facts: dict[str, Any], nodes: int, scheduler: str) -> str:
    return f"acceptance-{_label_value(str(facts.get('slug') or 'offering'))}-{nodes}n-{scheduler}"


def build_kit(facts: dict[str, Any], nodes: int, scheduler: str, stability_hours: int = 0) -> bytes:
    """The kit as a tar.gz: one top folder, shell scripts executable."""
    files = kit_files(facts, nodes, scheduler, stability_hours)
    top = kit_name(facts, nodes, scheduler)
    buffer = io.BytesIO()
    now = int(time.time())
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for path, text in sorted(files.items()):
            data = text.encode()
            info = tarfile.TarInfo(f"{top}/{path}")
            info.size = len(data)
            info.mtime = now
            info.mode = 0o755 if path.endswith((".sh", ".sbatch")) else 0o644
            archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()
