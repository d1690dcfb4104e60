"""The GPU table: peaks, memory as the datasheet states it and as the device reports it, scale-up links.

The numbers stand side by side in one table (_TABLE, one row per GPU); every number has a source in the
GPU's description (_DESCRIPTIONS), which becomes its `sources` (number group -> where it comes from). A
row whose peaks are not confirmed from a stored source has `confirmed=False`; the sizing model then says so
in its assumptions. "cal §N" is ../shared/data/calibration.md section N; "addendum" is
../shared/data/provider-catalog-addendum.yaml (`reference_gpu_memory`: MLPerf system descriptions).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import NamedTuple

from .links import SCALE_UP_LINKS

MIB = 2**20
# The most GPUs one cluster has: the largest published single cluster (OCI Supercluster, "up to 131,072
# GPUs", provider-catalog addendum). The bound of a run's, a request's and an uploaded log's GPU count.
LARGEST_CLUSTER_GPUS = 131_072
# NVLink SHARP (NVLS, in-switch reductions that raise all-reduce busbw above the wire rate, nccl-tests
# FORMATS.md 1.3) needs third-generation NVSwitch: Hopper HGX boards and later.
NVLS_ARCHITECTURES = ("hopper", "blackwell", "blackwell-ultra")
# GPUs that sit beside a Grace CPU on one superchip (GB200, GB300): a compute tray's ConnectX NICs attach to
# the Grace CPUs' PCIe and reach the GPUs over NVLink-C2C, not through a PCIe switch they share with a GPU, so
# `nvidia-smi topo -m` relates every NIC to every GPU as SYS (or NODE), never PIX/PXB (a real GB200 tray:
# tests/benchmarks/fixtures/real/nvidia-smi-topo/openshift-gb200-4gpu-nvidia-smi-then-topo-m-nv18-8nic-sys-
# sh-prompt.txt, 4 GPUs on NV18, 8 NIC ports all SYS). The topology then cannot tell the GPU-fabric NICs.
GRACE_SUPERCHIP_GPUS = frozenset({"GB200-186GB", "GB300-288GB"})


@dataclass(frozen=True)
class GPU:
    key: str
    name: str
    vendor: str  # nvidia | amd | huawei
    architecture: str  # ampere | hopper | blackwell | blackwell-ultra | cdna3 | cdna4 | davinci
    bf16_tflops: float  # dense peak, no sparsity
    fp8_tflops: float | None  # dense peak; None = no fp8 tensor cores
    hbm_gb: float  # datasheet capacity, GB = 1e9 bytes
    hbm_mib_reported: int | None  # total memory as nvidia-smi / rocminfo report it, MiB; None = not found
    hbm_tbytes_per_s: float
    scale_up: str  # key of links.SCALE_UP_LINKS, "" = none
    scale_up_links: int  # links per GPU
    pcie_gbytes_per_s: float  # host link per GPU, one direction (PCIe Gen4 x16 ~32, Gen5 x16 ~64)
    confirmed: bool = True
    sources: Mapping[str, str] = field(default_factory=dict)

    @property
    def scale_up_gbytes_per_s(self) -> float:
        """Per GPU, one direction: links x the nominal link rate (0 = no GPU-to-GPU link)."""
        if not self.scale_up:
            return 0.0
        return self.scale_up_links * SCALE_UP_LINKS[self.scale_up].gbytes_per_s

    @property
    def link_gbytes_per_s(self) -> float:
        """One link as `nvidia-smi nvlink -s` prints it (0 = not an NVLink GPU)."""
        link = SCALE_UP_LINKS.get(self.scale_up)
        return (link.reported_gbytes_per_s or 0.0) if link else 0.0

    @property
    def nvlinks(self) -> int:
        """NV# that `nvidia-smi topo -m` prints between two GPUs of a full-mesh node (0 = not NVLink)."""
        return self.scale_up_links if self.link_gbytes_per_s else 0

    @property
    def on_grace_superchip(self) -> bool:
        """A GB200/GB300 GPU: its node's NICs hang off the Grace CPU, not off a GPU's PCIe switch."""
        return self.key in GRACE_SUPERCHIP_GPUS

    @property
    def nvls_capable(self) -> bool:
        return self.vendor == "nvidia" and self.architecture in NVLS_ARCHITECTURES

    @property
    def hbm_bytes_reported(self) -> float | None:
        return None if self.hbm_mib_reported is None else float(self.hbm_mib_reported * MIB)

    @property
    def source(self) -> str:
        """The row's sources in one line (peaks first)."""
        return "; ".join(f"{name}: {text}" for name, text in self.sources.items())


# Sources cited by several rows.
_CAL1 = "cal §1 (vendor datasheet, dense)"
_MODAL = (
    "nvidia-smi memory.total as listed in modal-labs/modal-client PR #2797 (2025-01-23): H100 81559MiB, "
    "A100 80GB 81920MiB, A100 40GB 40960MiB"
)
_PCIE4 = "PCIe Gen4 x16 ~32 GB/s one way (cal §1)"
_PCIE5 = "PCIe Gen5 x16 ~64 GB/s one way (cal §1)"
_PCIE6 = "PCIe Gen6 x16 ~128 GB/s one way (glennklockwood.com B300 page)"
_VERDA_BLACKWELL = (
    "verda.com 'NVIDIA GB300 NVL72: GPU Architecture & Performance' per-GPU table without sparsity, and "
    "glennklockwood.com/garden/processors/B300 (HGX B300 = B200 dense FP8/BF16)"
)


# The table, one row per GPU, its columns the GPU fields after the name: vendor, architecture, bf16 and fp8
# dense peak TFLOP/s (fp8 None = no fp8 tensor cores), HBM GB as the datasheet states it, HBM MiB as the
# device reports it (None = not found), HBM TB/s, scale-up link (links.SCALE_UP_LINKS, "" = none), links per
# GPU, PCIe GB/s one way per GPU, confirmed (False = peaks not confirmed from a stored source).
_Row = tuple[str, str, float, float | None, float, int | None, float, str, int, float, bool]
_TABLE: dict[str, _Row] = {
    "A100-SXM-40GB": ("nvidia", "ampere", 312, None, 40, 40960, 1.555, "nvlink3", 12, 32, True),
    "A100-SXM-80GB": ("nvidia", "ampere", 312, None, 80, 81920, 2.039, "nvlink3", 12, 32, True),
    "A800-SXM-80GB": ("nvidia", "ampere", 312, None, 80, 81920, 2.039, "nvlink3", 8, 32, False),
    "H100-SXM-80GB": ("nvidia", "hopper", 989, 1979, 80, 81559, 3.35, "nvlink4", 18, 64, True),
    "H800-SXM-80GB": ("nvidia", "hopper", 989, 1979, 80, 81559, 3.35, "nvlink4", 8, 64, True),
    "H200-SXM-141GB": ("nvidia", "hopper", 989, 1979, 141, 143771, 4.8, "nvlink4", 18, 64, True),
    "H20-96GB": ("nvidia", "hopper", 148, 296, 96, 97871, 4.0, "nvlink4", 18, 64, False),
    "H100-PCIe-80GB": ("nvidia", "hopper", 756, 1513, 80, 81559, 2.0, "", 0, 64, True),
    "B200-180GB": ("nvidia", "blackwell", 2250, 4500, 180, 183359, 8.0, "nvlink5", 18, 64, True),
    "B300-288GB": ("nvidia", "blackwell-ultra", 2250, 4500, 288, 275040, 8.0, "nvlink5", 18, 128, False),
    "GB200-186GB": ("nvidia", "blackwell", 2500, 5000, 186, 189471, 8.0, "nvlink5", 18, 64, False),
    "GB300-288GB": ("nvidia", "blackwell-ultra", 2500, 5000, 288, None, 8.0, "nvlink5", 18, 128, False),
    "MI300X-192GB": ("amd", "cdna3", 1307, 2615, 192, 196592, 5.3, "infinity-fabric-3", 7, 64, True),
    "MI325X-256GB": ("amd", "cdna3", 1307, 2615, 256, None, 6.0, "infinity-fabric-3", 7, 64, False),
    "MI355X-288GB": ("amd", "cdna4", 2500, 5000, 288, None, 8.0, "infinity-fabric-4", 7, 64, False),
    "Ascend-910B-64GB": ("huawei", "davinci", 320, None, 64, None, 1.6, "hccs", 7, 32, False),
    "Ascend-910C-128GB": ("huawei", "davinci", 752, None, 128, None, 3.2, "ub", 1, 32, False),
}


class _Description(NamedTuple):
    """A GPU's full name and where each group of its numbers comes from."""

    name: str
    peaks: str  # the peaks and the other datasheet figures
    reported: str  # the memory as the device reports it
    pcie: str  # the host link


_DESCRIPTIONS: dict[str, _Description] = {
    "A100-SXM-40GB": _Description(
        "NVIDIA A100 SXM4 40GB",
        peaks=_CAL1 + " (NVIDIA A100 datasheet)",
        reported=_MODAL,
        pcie=_PCIE4,
    ),
    "A100-SXM-80GB": _Description(
        "NVIDIA A100 SXM4 80GB",
        peaks=_CAL1 + " (NVIDIA A100 datasheet)",
        reported=_MODAL,
        pcie=_PCIE4,
    ),
    "A800-SXM-80GB": _Description(
        "NVIDIA A800 SXM4 80GB",
        peaks="UNCONFIRMED: the export A100 (A100 datasheet numbers) with 8 NVLinks, 400 GB/s "
        "both ways (../shared/evidence/FORMATS.md §1: NV8 on A800)",
        reported="nvidia-smi 'NVIDIA A800-SXM4-80GB ... / 81920MiB' (dexmal/dexbotic issue #41)",
        pcie=_PCIE4,
    ),
    "H100-SXM-80GB": _Description(
        "NVIDIA H100 SXM5 80GB",
        peaks=_CAL1 + " (NVIDIA H100 datasheet)",
        reported="81559 MiB: addendum reference_gpu_memory (MLPerf Training v4.1 Lambda system "
        "JSON); " + _MODAL,
        pcie=_PCIE5,
    ),
    "H800-SXM-80GB": _Description(
        "NVIDIA H800 SXM5 80GB",
        peaks=_CAL1 + "; NVLink 200 GB/s (8 links); DeepSeek-V3 report measured 160 GB/s (cal §5)",
        reported="assumed equal to H100 SXM5 80GB (same board and HBM3 stacks; no H800 figure stored)",
        pcie=_PCIE5,
    ),
    "H200-SXM-141GB": _Description(
        "NVIDIA H200 SXM 141GB",
        peaks=_CAL1 + " (NVIDIA H200 datasheet)",
        reported="143771 MiB: addendum reference_gpu_memory (MLPerf Training v4.1 Azure ND H200 "
        "v5, v5.0/v5.1 Nebius, v5.0 OCI system JSONs)",
        pcie=_PCIE5,
    ),
    "H20-96GB": _Description(
        "NVIDIA H20",
        peaks="UNCONFIRMED: press reports of the H20 datasheet (addendum: 96 GB, 900 GB/s NVLink "
        "kept, 'much lower FP16'); a measured bf16 GEMM of 142 TFLOP/s (zzc0721/torch-performance-"
        "test-data issue #77) is consistent with 148 dense",
        reported="nvidia-smi 'NVIDIA H20 ... / 97871MiB' (NVIDIA/nvtrust issue #128)",
        pcie=_PCIE5,
    ),
    "H100-PCIe-80GB": _Description(
        "NVIDIA H100 PCIe 80GB",
        peaks=_CAL1 + " (NVIDIA H100 PCIe datasheet; no NVLink without a bridge)",
        reported="assumed equal to H100 SXM5 80GB (same HBM capacity)",
        pcie=_PCIE5,
    ),
    "B200-180GB": _Description(
        "NVIDIA B200 180GB",
        peaks="cal §1 (~2250/~4500 dense, DGX B200 datasheet); 8.0 TB/s datasheet (the driver "
        "reports a 7680-bit bus: 7.67 TB/s, pytorch/ao PR #4002)",
        reported="183359 MiB: addendum reference_gpu_memory (MLPerf Training v5.1 Nebius B200); "
        "nvidia-smi in NVIDIA/TensorRT-LLM issue #10278",
        pcie=_PCIE5,
    ),
    "B300-288GB": _Description(
        "NVIDIA B300 (Blackwell Ultra) 288GB",
        peaks="UNCONFIRMED (third-party tables, no NVIDIA datasheet stored): " + _VERDA_BLACKWELL,
        reported="275040 MiB: addendum reference_gpu_memory (MLPerf Training v5.1 Nebius B300)",
        pcie=_PCIE6,
    ),
    "GB200-186GB": _Description(
        "NVIDIA GB200 (per Blackwell GPU)",
        peaks="UNCONFIRMED: GB200 NVL72 datasheet as recalled, per GPU (the rack's 360 PF is dense FP8 or "
        "sparse bf16; 180 PF dense bf16 / 72)",
        reported="189471 MiB: addendum reference_gpu_memory (MLPerf Training v5.0 CoreWeave "
        "'Carina' GB200 NVL72)",
        pcie=_PCIE5,
    ),
    "GB300-288GB": _Description(
        "NVIDIA GB300 (per Blackwell Ultra GPU)",
        peaks="UNCONFIRMED (third-party): GB300 NVL72 rack 360 PF dense FP8 / 72 = 5 PF per GPU, "
        "20.7 TB HBM3e / 72 = 288 GB; " + _VERDA_BLACKWELL,
        reported="not found as MiB: addendum reference_gpu_memory prints '280 GB' and '288 GB'",
        pcie=_PCIE6,
    ),
    "MI300X-192GB": _Description(
        "AMD Instinct MI300X",
        peaks="cal §1 (AMD datasheet; 7 x 64 GB/s Infinity Fabric)",
        reported="rocminfo GLOBAL pool 201310208 KB = 196592 MiB (ROCm/legacy-rocm-build issue #4414)",
        pcie=_PCIE5,
    ),
    "MI325X-256GB": _Description(
        "AMD Instinct MI325X",
        peaks="UNCONFIRMED: AMD MI325X datasheet as recalled (same compute die as MI300X)",
        reported="not found",
        pcie=_PCIE5,
    ),
    "MI355X-288GB": _Description(
        "AMD Instinct MI355X",
        peaks="UNCONFIRMED (third-party): ~5 PF dense FP8 (AMD at ISSCC 2026, "
        "world-today-news.com report), 288 GB HBM3E at 8 TB/s (theregister.com 2025-06-12); bf16 "
        "half of fp8",
        reported="'288GB HBM3E' only (addendum: MLPerf Inference v6.1 Crusoe), no MiB figure",
        pcie=_PCIE5,
    ),
    "Ascend-910B-64GB": _Description(
        "Huawei Ascend 910B",
        peaks="UNCONFIRMED: FP16 ~320 TFLOP/s, 64 GB HBM2e (provider-catalog.yaml source "
        "ascend910b-blog; boardor.com 910B/910C comparison); 1.6 TB/s as recalled, third-party "
        "figures range 0.4-1.6 TB/s",
        reported="not found",
        pcie=_PCIE4,
    ),
    "Ascend-910C-128GB": _Description(
        "Huawei Ascend 910C",
        peaks="UNCONFIRMED (summaries of Zuo et al. 2025, arXiv 2506.12708, CloudMatrix384): "
        "dual-die, 752 TFLOP/s FP16/BF16, 128 GB HBM at 3.2 TB/s (emergentmind.com topic page)",
        reported="not found",
        pcie=_PCIE4,
    ),
}


def _gpu(key: str, row: _Row) -> GPU:
    described = _DESCRIPTIONS[key]
    sources = {"peaks": described.peaks, "reported": described.reported, "pcie": described.pcie}
    return GPU(key, described.name, *row, sources=MappingProxyType(sources))


GPUS: dict[str, GPU] = {key: _gpu(key, row) for key, row in _TABLE.items()}
