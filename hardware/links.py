"""Scale-up links (the GPU-to-GPU links inside a node or an NVLink domain) and the intra-node kinds.

One row per link generation: the nominal rate of one link in one direction (what the datasheet
aggregates), and the rate `nvidia-smi nvlink -s` prints for one link where it differs. A GPU's scale-up
bandwidth is its link count times the nominal rate (gpus.GPU.scale_up_gbytes_per_s).

"cal §N" is ../shared/data/calibration.md section N.
"""

from __future__ import annotations

from dataclasses import dataclass

from .messages import _

# The intra-node kinds of docs/FACTS.md.
INTRA_NODE_KINDS = ("nvswitch", "nvlink-mesh", "nvlink-bridge", "pcie")
# Each kind as a page names it ("8 full-mesh (NVSwitch) GPUs", "a full-mesh (NVSwitch) claim").
INTRA_NODE_NAMES: dict[str, str] = {
    "nvswitch": _("full-mesh (NVSwitch)"),
    "nvlink-mesh": _("full-mesh (NVLink)"),
    "nvlink-bridge": _("NVLink-bridged"),
    "pcie": _("PCIe-only"),
}
# A direct all-pairs mesh (`nvlink-mesh`, docs/FACTS.md: e.g. MI300X xGMI) named by the link that makes it
# where that is not NVLink: AMD Infinity Fabric, Huawei HCCS.
MESH_NAMES_BY_VENDOR: dict[str, str] = {
    "amd": _("full-mesh (Infinity Fabric)"),
    "huawei": _("full-mesh (HCCS)"),
}


def intra_node_name(kind: str | None, vendor: str | None = None) -> str:
    """An intra-node kind's English name, the mesh by its GPU vendor's link; "" for none. A known kind's name
    is its message (a `Msg`, so a sentence that takes it as a value is translated with it)."""
    if not kind:
        return ""
    if kind == "nvlink-mesh" and (vendor or "").lower() in MESH_NAMES_BY_VENDOR:
        return MESH_NAMES_BY_VENDOR[(vendor or "").lower()]
    return INTRA_NODE_NAMES.get(kind, kind)


@dataclass(frozen=True)
class ScaleUpLink:
    key: str
    name: str
    gbytes_per_s: float  # one link, one direction, nominal (datasheet aggregate / link count)
    reported_gbytes_per_s: float | None  # one link as `nvidia-smi nvlink -s` prints it; None = not NVIDIA
    source: str


SCALE_UP_LINKS: dict[str, ScaleUpLink] = {
    link.key: link
    for link in (
        ScaleUpLink(
            "nvlink3",
            "NVLink 3",
            25.0,
            25.0,
            "cal §1 (A100: 12 links, 300 GB/s per GPU one way); ../shared/evidence/FORMATS.md §3 "
            "(nvlink -s prints 25 GB/s per link)",
        ),
        ScaleUpLink(
            "nvlink4",
            "NVLink 4",
            25.0,
            26.562,
            "cal §1 (H100: 18 links, 450 GB/s per GPU one way); ../shared/evidence/FORMATS.md §3 "
            "(nvlink -s prints 26.562 GB/s per link)",
        ),
        ScaleUpLink(
            "nvlink5",
            "NVLink 5",
            50.0,
            50.0,
            "cal §1 (B200: 18 links, 900 GB/s per GPU one way, 1.8 TB/s both ways, NVIDIA DGX B200 "
            "datasheet)",
        ),
        ScaleUpLink(
            "infinity-fabric-3",
            "AMD Infinity Fabric (MI300 series)",
            64.0,
            None,
            "cal §1 (MI300X: 7 links x 64 GB/s = ~448 GB/s aggregate one way)",
        ),
        ScaleUpLink(
            "infinity-fabric-4",
            "AMD Infinity Fabric (MI350 series)",
            76.8,
            None,
            "UNCONFIRMED: AMD MI355X product page as recalled (7 links, 153.6 GB/s per link both ways); "
            "not in a stored source",
        ),
        ScaleUpLink(
            "hccs",
            "Huawei HCCS",
            56.0,
            None,
            "UNCONFIRMED: Atlas 800T A2 press material as recalled (7 x 56 GB/s = 392 GB/s per NPU, "
            "direction not stated); the stored Huawei pages publish no HCCS figure "
            "(../shared/data/provider-catalog-addendum.yaml, huawei-ascend-910b)",
        ),
        ScaleUpLink(
            "ub",
            "Huawei Unified Bus (CloudMatrix384)",
            392.0,
            None,
            "CloudMatrix384 paper summary: each Ascend 910C 'over 392 GB/s of unidirectional bandwidth' on "
            "the UB plane (besthub.dev summary of Zuo et al. 2025, arXiv 2506.12708; "
            "../shared/data/provider-catalog-addendum.yaml, huawei-cloudmatrix384; a later analysis prints "
            "196 GB/s per NPU, unresolved)",
        ),
    )
}

# Achieved all-reduce-class busbw inside one node as a share of the per-GPU link rate (large messages).
# NVSwitch: 8 x A100 all-reduce 235 of 300 (78%), 8 x H100 ring ~365 of 450 (81%) (cal §5).
NVSWITCH_BUSBW_EFFICIENCY = 0.78  # cal §5
NVLINK_MESH_BUSBW_EFFICIENCY = 0.60  # assumed: direct all-pairs mesh, each pair gets 1/7 of the links
NVLINK_BRIDGE_GBYTES_PER_S = 56.0  # assumed: 2-GPU NVLink bridge (A100/H100 PCIe bridge class)
PCIE_BUSBW_EFFICIENCY = 0.45  # assumed: GPUs share PCIe switches/CPU root ports; P2P through the host
# Tensor parallelism over PCIe: Gen5 x16 carries ~50-64 GB/s one way (cal §1); 50 is the generous
# practical figure the pitfall rules use to size what a slow bus costs (Gen4 boxes are half that).
PCIE_GEN5_PRACTICAL_GBYTES_PER_S = 50.0  # cal §1


def intra_node_busbw_efficiency(kind: str) -> float:
    """Share of the per-GPU link rate an all-reduce reaches among the GPUs of a node of this kind."""
    if kind in ("nvswitch", "nvlink-bridge"):
        return NVSWITCH_BUSBW_EFFICIENCY
    if kind == "nvlink-mesh":
        return NVLINK_MESH_BUSBW_EFFICIENCY
    return PCIE_BUSBW_EFFICIENCY
