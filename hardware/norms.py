"""What an offering of a given class typically has, for the facts the sizing model needs and an offering does
not publish: one table, a source per row, and beside each typical value the pessimistic one a buyer should
weigh (the answer is computed with the typical value; the pessimistic one shows what is at stake).

A value taken from here is never silent: the model lists it in its answer's `assumed_facts` (fact, value,
basis) and the portal turns each into a question for the provider. The basis is shown to buyers, so it
names public sources in words; the comment beside a row gives the reference data it comes from
(../shared/data/calibration.md section N = "cal §N"; counts are over the 33 real offerings of the demo
catalog, ../shared/data/provider-catalog.yaml and its addendum).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .gpus import GPUS
from .messages import _

# An offering's class: what the rows match on.
CLASS_KEYS = ("gpu", "architecture", "vendor", "fabric", "provider_kind")


@dataclass(frozen=True)
class Norm:
    fact: str
    where: Mapping[str, tuple[Any, ...]]  # class key -> accepted values; empty = any offering
    typical: Any
    pessimistic: Any  # None = no meaningfully worse value (the typical one is also the floor)
    basis: str
    # typical/pessimistic count per GPU (NICs per GPU, GPUs in the cluster): the node's share is derived
    per_gpu: bool = False

    def matches(self, cls: Mapping[str, Any]) -> bool:
        return all(cls.get(key) in values for key, values in self.where.items())


def _norm(
    fact: str, typical: Any, pessimistic: Any, basis: str, *, per_gpu: bool = False, **where: Any
) -> Norm:
    accepted = {key: tuple(v) if isinstance(v, list | tuple) else (v,) for key, v in where.items()}
    return Norm(fact, accepted, typical, pessimistic, basis, per_gpu)


_HOPPER_BLACKWELL = ("hopper", "blackwell")
# every GPU fabric but plain TCP, and an unpublished one
_GPU_FABRICS = ("infiniband", "roce", "efa", "tcpx", "other", None)
_NVL72 = ("GB200-186GB", "GB300-288GB")

NORMS: tuple[Norm, ...] = (
    # --- the GPU itself: only when neither the key nor the published label names one -----------------
    _norm(
        "gpu",
        "H800-SXM-80GB",
        "H20-96GB",
        _(
            "China-market clouds sell the export Hopper parts: H800 (training-grade compute, 8 NVLinks; "
            "DeepSeek-V3 trained on 2,048 of them) until the 2023-10 US rule, H20 (far lower FP16) after it "
            "(published reports of the US export rules of 2023-10 and 2025-04)"
        ),
        provider_kind="hyperscaler-cn",
    ),
    _norm(
        "gpu",
        "H100-SXM-80GB",
        None,
        _(
            "the most common training GPU among the catalog's offerings that publish one (8 of 22 H100 SXM, "
            "8 H200)"
        ),
    ),
    # --- node ---------------------------------------------------------------------------------------
    _norm(
        "gpus_per_node",
        4,
        None,
        _(
            "a GB200/GB300 NVL72 compute tray carries 4 Blackwell GPUs and 2 Grace CPUs (NVIDIA GB200 NVL72; "
            "CoreWeave publishes 4 for its GB200 NVL72)"
        ),
        gpu=_NVL72,
    ),
    _norm(
        "gpus_per_node",
        8,
        None,
        _("HGX, OAM and Atlas boards carry 8 GPUs; 29 of the 30 catalog offerings that publish it say 8"),
    ),
    _norm(
        "nvlink_domain_gpus",
        72,
        None,
        _("GB200/GB300 NVL72: one NVLink domain of 72 GPUs across 18 trays (NVIDIA GB200 NVL72 datasheet)"),
        gpu=_NVL72,
    ),
    _norm(
        "nvlink_domain_gpus",
        384,
        None,
        _(
            "CloudMatrix384: one UB domain of 384 Ascend 910C NPUs across 48 nodes (Zuo et al. 2025 summary, "
            "summarised by Architects' Tech Alliance)"
        ),
        gpu="Ascend-910C-128GB",
    ),
    _norm(
        "intra_node",
        "pcie",
        None,
        _("a PCIe card has no GPU-to-GPU link without a bridge (NVIDIA H100 PCIe datasheet)"),
        gpu="H100-PCIe-80GB",
    ),
    _norm(
        "intra_node",
        "nvlink-mesh",
        None,
        _(
            "AMD Instinct OAM platforms join their GPUs by a direct Infinity Fabric (xGMI) all-to-all mesh "
            "('AMD Infinity Fabric, fully connected 8-GPU' in Oracle's and Crusoe's MLPerf system "
            "descriptions); Huawei Atlas boards by HCCS links"
        ),
        vendor=("amd", "huawei"),
    ),
    _norm(
        "intra_node",
        "nvswitch",
        None,
        _(
            "NVIDIA SXM GPUs come on HGX boards whose 8 GPUs share NVSwitches (NVL72: NVLink switch trays); "
            "every NVIDIA SXM offering in the catalog that publishes its intra-node link says NVSwitch"
        ),
        vendor="nvidia",
    ),
    # --- inter-node fabric ----------------------------------------------------------------------------
    _norm(
        "fabric",
        "roce",
        "ethernet",
        _(
            "every catalog offering that publishes its GPU fabric uses RDMA (InfiniBand 17, RoCE 6, EFA 3) "
            "or GPUDirect-TCPX (2); RoCE, the lower of the two RDMA fabrics in published nccl-tests results, "
            "is assumed; the pessimistic "
            "case is plain TCP"
        ),
    ),
    _norm(
        "nics_per_node",
        1,
        0.5,
        _(
            "one GPU-fabric NIC per GPU, the rail-optimised layout of NVIDIA's DGX A100/H100/B200 reference "
            "architectures (Selene: 8 x 200 Gb/s per 8-GPU node); 8 of the 13 catalog offerings that publish "
            "it have one NIC per GPU; pessimistic: half as many (Google's A3 High: 4 NICs for 8 GPUs)"
        ),
        per_gpu=True,
        fabric=_GPU_FABRICS,
    ),
    _norm(
        "nics_per_node",
        1,
        None,
        _("plain TCP Ethernet: one front-end NIC per node"),
        fabric="ethernet",
    ),
    _norm(
        "gbps_per_nic",
        800,
        400,
        _(
            "Blackwell Ultra systems ship ConnectX-8 800 Gb/s NICs (GB300 NVL72: 72 x ConnectX-8, "
            "glennklockwood.com B300 page, ai-infrastructure.net Blackwell platform page)"
        ),
        architecture="blackwell-ultra",
        fabric=_GPU_FABRICS,
    ),
    _norm(
        "gbps_per_nic",
        400,
        200,
        _(
            "Hopper and Blackwell HGX systems ship ConnectX-7 NDR 400 Gb/s NICs (NVIDIA DGX H100/B200 "
            "reference architectures); 6 of the 12 catalog offerings that publish a NIC speed say 400; "
            "pessimistic: 200 (Google's A3 Mega, Oracle's BM.GPU.H100.8)"
        ),
        architecture=_HOPPER_BLACKWELL,
        fabric=_GPU_FABRICS,
    ),
    _norm(
        "gbps_per_nic",
        200,
        100,
        _(
            "NVIDIA DGX A100: 8 x 200 Gb/s HDR InfiniBand (the Selene supercomputer of the Megatron-LM "
            "papers)"
        ),
        architecture="ampere",
        fabric=_GPU_FABRICS,
    ),
    _norm(
        "gbps_per_nic",
        400,
        200,
        _("AMD Instinct platforms in the catalog publish 8 x 400 Gb/s (Azure ND MI300X v5, Crusoe MI355X)"),
        vendor="amd",
        fabric=_GPU_FABRICS,
    ),
    _norm(
        "gbps_per_nic",
        400,
        200,
        _(
            "CloudMatrix384's RDMA plane gives each NPU up to 400 Gb/s (second-hand summaries of Huawei's "
            "CloudMatrix384 paper)"
        ),
        gpu="Ascend-910C-128GB",
    ),
    _norm(
        "gbps_per_nic",
        200,
        100,
        _(
            "UNCONFIRMED: Atlas 800T A2 (Ascend 910B) servers as recalled carry 8 x 200 GE RoCE ports; no "
            "stored Huawei Cloud page we hold publishes them"
        ),
        vendor="huawei",
    ),
    _norm("gbps_per_nic", 100, None, _("a 100 Gb/s front-end NIC (the common cloud instance NIC)")),
    # --- topology ---------------------------------------------------------------------------------------
    _norm(
        "oversubscription",
        1.0,
        2.0,
        _(
            "GPU training fabrics are built non-blocking (NVIDIA DGX SuperPOD reference: full fat-tree, rail "
            "optimised; Google publishes 'non-blocking' for A3 Ultra and A4); pessimistic: 2:1 beyond one "
            "32-node leaf"
        ),
    ),
    # --- cluster size -------------------------------------------------------------------------------------
    _norm(
        "max_nodes",
        16384,
        1024,
        _(
            "capacity not published: the search may use up to 16,384 GPUs, the largest published single "
            "training job (Llama 3 405B on 16,384 H100, Meta 2024); pessimistic: 1,024 GPUs, a large rental "
            "without a custom contract"
        ),
        per_gpu=True,
    ),
    # --- fault tolerance ----------------------------------------------------------------------------------
    _norm(
        "failure_rate_per_gpu_hour",
        419 / (54 * 24 * 16384),
        1.2e-4,
        _(
            "Llama 3: 419 unexpected interruptions in 54 days on 16,384 H100 (Meta 2024); pessimistic: the "
            "OPT-era cloud rate of ~1.2e-4 per GPU-hour (Meta's OPT-175B logbook)"
        ),
    ),
    _norm(
        "auto_bad_node_detection",
        True,
        False,
        _(
            "automatic health checks are the catalog norm: 17 of 33 offerings publish them and none says it "
            "has none; pessimistic: an operator notices the hung job"
        ),
    ),
    _norm(
        "auto_replacement",
        False,
        None,
        _(
            "only 3 of 33 catalog offerings publish automatic node replacement; a support ticket is assumed "
            "(Meta's OPT-175B logbook: replacement through the cloud API can take hours)"
        ),
    ),
    _norm(
        "auto_checkpoint_restart",
        False,
        None,
        _(
            "8 of 33 catalog offerings publish automatic checkpoint/restart; a relaunch by the job's "
            "operator is assumed"
        ),
    ),
)


@dataclass(frozen=True)
class Assumed:
    """One value the model used because the offering does not publish it."""

    fact: str
    assumed: Any
    basis: str
    pessimistic: Any = None
    note: str = field(default="")

    def as_dict(self) -> dict[str, Any]:
        return {
            "fact": self.fact,
            "assumed": self.assumed,
            "basis": self.basis,
            "pessimistic": self.pessimistic,
        }


def offering_class(facts: Mapping[str, Any]) -> dict[str, Any]:
    """The class keys of an offering as the rows match them."""
    gpu = GPUS.get(str(facts.get("gpu") or ""))
    return {
        "gpu": gpu.key if gpu else None,
        "architecture": gpu.architecture if gpu else None,
        "vendor": gpu.vendor if gpu else None,
        "fabric": facts.get("fabric"),
        "provider_kind": facts.get("provider_kind"),
    }


def norm_for(fact: str, cls: Mapping[str, Any]) -> Norm | None:
    """The first row for `fact` that matches the class (rows are ordered most specific first)."""
    return next((n for n in NORMS if n.fact == fact and n.matches(cls)), None)
