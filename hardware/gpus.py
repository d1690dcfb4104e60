"""The GPU table: peaks, memory as the datasheet states it and as the device reports it, scale-up links.

Every number has a source in the row's `sources` (field name -> where it comes from). A row whose peaks
are not confirmed from a stored source has `confirmed=False`; the sizing model then says so in its
assumptions. "cal §N" is ../shared/data/calibration.md section N; "addendum" is
../shared/data/provider-catalog-addendum.yaml (`reference_gpu_memory`: MLPerf system descriptions).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from .links import SCALE_UP_LINKS

MIB = 2**20
# NVLink SHARP (NVLS, in-switch reductions that raise all-reduce busbw above the wire rate, nccl-tests
# FORMATS.md 1.3) needs third-generation NVSwitch: Hopper HGX boards and later.
NVLS_ARCHITECTURES = ("hopper", "blackwell", "blackwell-ultra")


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
_VERDA_BLACKWELL = (
    "verda.com 'NVIDIA GB300 NVL72: GPU Architecture & Performance' per-GPU table without sparsity, and "
    "glennklockwood.com/garden/processors/B300 (HGX B300 = B200 dense FP8/BF16)"
)


def _gpu(*, sources: dict[str, str], **fields: Any) -> GPU:
    return GPU(sources=MappingProxyType(sources), **fields)


GPUS: dict[str, GPU] = {
    gpu.key: gpu
    for gpu in (
        _gpu(
            key="A100-SXM-40GB",
            name="NVIDIA A100 SXM4 40GB",
            vendor="nvidia",
            architecture="ampere",
            bf16_tflops=312,
            fp8_tflops=None,
            hbm_gb=40,
            hbm_mib_reported=40960,
            hbm_tbytes_per_s=1.555,
            scale_up="nvlink3",
            scale_up_links=12,
            pcie_gbytes_per_s=32,
            sources={"peaks": _CAL1 + " (NVIDIA A100 datasheet)", "reported": _MODAL, "pcie": _PCIE4},
        ),
        _gpu(
            key="A100-SXM-80GB",
            name="NVIDIA A100 SXM4 80GB",
            vendor="nvidia",
            architecture="ampere",
            bf16_tflops=312,
            fp8_tflops=None,
            hbm_gb=80,
            hbm_mib_reported=81920,
            hbm_tbytes_per_s=2.039,
            scale_up="nvlink3",
            scale_up_links=12,
            pcie_gbytes_per_s=32,
            sources={"peaks": _CAL1 + " (NVIDIA A100 datasheet)", "reported": _MODAL, "pcie": _PCIE4},
        ),
        _gpu(
            key="A800-SXM-80GB",
            name="NVIDIA A800 SXM4 80GB",
            vendor="nvidia",
            architecture="ampere",
            bf16_tflops=312,
            fp8_tflops=None,
            hbm_gb=80,
            hbm_mib_reported=81920,
            hbm_tbytes_per_s=2.039,
            scale_up="nvlink3",
            scale_up_links=8,
            pcie_gbytes_per_s=32,
            confirmed=False,
            sources={
                "peaks": "UNCONFIRMED: the export A100 (A100 datasheet numbers) with 8 NVLinks, 400 GB/s "
                "both ways (../shared/evidence/FORMATS.md §1: NV8 on A800)",
                "reported": "nvidia-smi 'NVIDIA A800-SXM4-80GB ... / 81920MiB' (dexmal/dexbotic issue #41)",
                "pcie": _PCIE4,
            },
        ),
        _gpu(
            key="H100-SXM-80GB",
            name="NVIDIA H100 SXM5 80GB",
            vendor="nvidia",
            architecture="hopper",
            bf16_tflops=989,
            fp8_tflops=1979,
            hbm_gb=80,
            hbm_mib_reported=81559,
            hbm_tbytes_per_s=3.35,
            scale_up="nvlink4",
            scale_up_links=18,
            pcie_gbytes_per_s=64,
            sources={
                "peaks": _CAL1 + " (NVIDIA H100 datasheet)",
                "reported": "81559 MiB: addendum reference_gpu_memory (MLPerf Training v4.1 Lambda system "
                "JSON); " + _MODAL,
                "pcie": _PCIE5,
            },
        ),
        _gpu(
            key="H800-SXM-80GB",
            name="NVIDIA H800 SXM5 80GB",
            vendor="nvidia",
            architecture="hopper",
            bf16_tflops=989,
            fp8_tflops=1979,
            hbm_gb=80,
            hbm_mib_reported=81559,
            hbm_tbytes_per_s=3.35,
            scale_up="nvlink4",
            scale_up_links=8,
            pcie_gbytes_per_s=64,
            sources={
                "peaks": _CAL1 + "; NVLink 200 GB/s (8 links); DeepSeek-V3 report measured 160 GB/s (cal §5)",
                "reported": "assumed equal to H100 SXM5 80GB (same board and HBM3 stacks; no H800 figure "
                "stored)",
                "pcie": _PCIE5,
            },
        ),
        _gpu(
            key="H200-SXM-141GB",
            name="NVIDIA H200 SXM 141GB",
            vendor="nvidia",
            architecture="hopper",
            bf16_tflops=989,
            fp8_tflops=1979,
            hbm_gb=141,
            hbm_mib_reported=143771,
            hbm_tbytes_per_s=4.8,
            scale_up="nvlink4",
            scale_up_links=18,
            pcie_gbytes_per_s=64,
            sources={
                "peaks": _CAL1 + " (NVIDIA H200 datasheet)",
                "reported": "143771 MiB: addendum reference_gpu_memory (MLPerf Training v4.1 Azure ND H200 "
                "v5, v5.0/v5.1 Nebius, v5.0 OCI system JSONs)",
                "pcie": _PCIE5,
            },
        ),
        _gpu(
            key="H20-96GB",
            name="NVIDIA H20",
            vendor="nvidia",
            architecture="hopper",
            bf16_tflops=148,
            fp8_tflops=296,
            hbm_gb=96,
            hbm_mib_reported=97871,
            hbm_tbytes_per_s=4.0,
            scale_up="nvlink4",
            scale_up_links=18,
            pcie_gbytes_per_s=64,
            confirmed=False,
            sources={
                "peaks": "UNCONFIRMED: press reports of the H20 datasheet (addendum: 96 GB, 900 GB/s NVLink "
                "kept, 'much lower FP16'); a measured bf16 GEMM of 142 TFLOP/s (zzc0721/torch-performance-"
                "test-data issue #77) is consistent with 148 dense",
                "reported": "nvidia-smi 'NVIDIA H20 ... / 97871MiB' (NVIDIA/nvtrust issue #128)",
                "pcie": _PCIE5,
            },
        ),
        _gpu(
            key="H100-PCIe-80GB",
            name="NVIDIA H100 PCIe 80GB",
            vendor="nvidia",
            architecture="hopper",
            bf16_tflops=756,
            fp8_tflops=1513,
            hbm_gb=80,
            hbm_mib_reported=81559,
            hbm_tbytes_per_s=2.0,
            scale_up="",
            scale_up_links=0,
            pcie_gbytes_per_s=64,
            sources={
                "peaks": _CAL1 + " (NVIDIA H100 PCIe datasheet; no NVLink without a bridge)",
                "reported": "assumed equal to H100 SXM5 80GB (same HBM capacity)",
                "pcie": _PCIE5,
            },
        ),
        _gpu(
            key="B200-180GB",
            name="NVIDIA B200 180GB",
            vendor="nvidia",
            architecture="blackwell",
            bf16_tflops=2250,
            fp8_tflops=4500,
            hbm_gb=180,
            hbm_mib_reported=183359,
            hbm_tbytes_per_s=8.0,
            scale_up="nvlink5",
            scale_up_links=18,
            pcie_gbytes_per_s=64,
            sources={
                "peaks": "cal §1 (~2250/~4500 dense, DGX B200 datasheet); 8.0 TB/s datasheet (the driver "
                "reports a 7680-bit bus: 7.67 TB/s, pytorch/ao PR #4002)",
                "reported": "183359 MiB: addendum reference_gpu_memory (MLPerf Training v5.1 Nebius B200); "
                "nvidia-smi in NVIDIA/TensorRT-LLM issue #10278",
                "pcie": _PCIE5,
            },
        ),
        _gpu(
            key="B300-288GB",
            name="NVIDIA B300 (Blackwell Ultra) 288GB",
            vendor="nvidia",
            architecture="blackwell-ultra",
            bf16_tflops=2250,
            fp8_tflops=4500,
            hbm_gb=288,
            hbm_mib_reported=275040,
            hbm_tbytes_per_s=8.0,
            scale_up="nvlink5",
            scale_up_links=18,
            pcie_gbytes_per_s=128,
            confirmed=False,
            sources={
                "peaks": "UNCONFIRMED (third-party tables, no NVIDIA datasheet stored): " + _VERDA_BLACKWELL,
                "reported": "275040 MiB: addendum reference_gpu_memory (MLPerf Training v5.1 Nebius B300)",
                "pcie": "PCIe Gen6 x16 ~128 GB/s one way (glennklockwood.com B300 page)",
            },
        ),
        _gpu(
            key="GB200-186GB",
            name="NVIDIA GB200 (per Blackwell GPU)",
            vendor="nvidia",
            architecture="blackwell",
            bf16_tflops=2500,
            fp8_tflops=5000,
            hbm_gb=186,
            hbm_mib_reported=189471,
            hbm_tbytes_per_s=8.0,
            scale_up="nvlink5",
            scale_up_links=18,
            pcie_gbytes_per_s=64,
            confirmed=False,
            sources={
                "peaks": "UNCONFIRMED: GB200 NVL72 datasheet as recalled, per GPU (360 PF dense bf16 / 72)",
                "reported": "189471 MiB: addendum reference_gpu_memory (MLPerf Training v5.0 CoreWeave "
                "'Carina' GB200 NVL72)",
                "pcie": _PCIE5,
            },
        ),
        _gpu(
            key="GB300-288GB",
            name="NVIDIA GB300 (per Blackwell Ultra GPU)",
            vendor="nvidia",
            architecture="blackwell-ultra",
            bf16_tflops=2500,
            fp8_tflops=5000,
            hbm_gb=288,
            hbm_mib_reported=None,
            hbm_tbytes_per_s=8.0,
            scale_up="nvlink5",
            scale_up_links=18,
            pcie_gbytes_per_s=128,
            confirmed=False,
            sources={
                "peaks": "UNCONFIRMED (third-party): GB300 NVL72 rack 360 PF dense FP8 / 72 = 5 PF per GPU, "
                "20.7 TB HBM3e / 72 = 288 GB; " + _VERDA_BLACKWELL,
                "reported": "not found as MiB: addendum reference_gpu_memory prints '280 GB' and '288 GB'",
                "pcie": "PCIe Gen6 x16 ~128 GB/s one way (glennklockwood.com B300 page)",
            },
        ),
        _gpu(
            key="MI300X-192GB",
            name="AMD Instinct MI300X",
            vendor="amd",
            architecture="cdna3",
            bf16_tflops=1307,
            fp8_tflops=2615,
            hbm_gb=192,
            hbm_mib_reported=196592,
            hbm_tbytes_per_s=5.3,
            scale_up="infinity-fabric-3",
            scale_up_links=7,
            pcie_gbytes_per_s=64,
            sources={
                "peaks": "cal §1 (AMD datasheet; 7 x 64 GB/s Infinity Fabric)",
                "reported": "rocminfo GLOBAL pool 201310208 KB = 196592 MiB (ROCm/legacy-rocm-build issue "
                "#4414)",
                "pcie": _PCIE5,
            },
        ),
        _gpu(
            key="MI325X-256GB",
            name="AMD Instinct MI325X",
            vendor="amd",
            architecture="cdna3",
            bf16_tflops=1307,
            fp8_tflops=2615,
            hbm_gb=256,
            hbm_mib_reported=None,
            hbm_tbytes_per_s=6.0,
            scale_up="infinity-fabric-3",
            scale_up_links=7,
            pcie_gbytes_per_s=64,
            confirmed=False,
            sources={
                "peaks": "UNCONFIRMED: AMD MI325X datasheet as recalled (same compute die as MI300X)",
                "reported": "not found",
                "pcie": _PCIE5,
            },
        ),
        _gpu(
            key="MI355X-288GB",
            name="AMD Instinct MI355X",
            vendor="amd",
            architecture="cdna4",
            bf16_tflops=2500,
            fp8_tflops=5000,
            hbm_gb=288,
            hbm_mib_reported=None,
            hbm_tbytes_per_s=8.0,
            scale_up="infinity-fabric-4",
            scale_up_links=7,
            pcie_gbytes_per_s=64,
            confirmed=False,
            sources={
                "peaks": "UNCONFIRMED (third-party): ~5 PF dense FP8 (AMD at ISSCC 2026, "
                "world-today-news.com report), 288 GB HBM3E at 8 TB/s (theregister.com 2025-06-12); bf16 "
                "half of fp8",
                "reported": "'288GB HBM3E' only (addendum: MLPerf Inference v6.1 Crusoe), no MiB figure",
                "pcie": _PCIE5,
            },
        ),
        _gpu(
            key="Ascend-910B-64GB",
            name="Huawei Ascend 910B",
            vendor="huawei",
            architecture="davinci",
            bf16_tflops=320,
            fp8_tflops=None,
            hbm_gb=64,
            hbm_mib_reported=None,
            hbm_tbytes_per_s=1.6,
            scale_up="hccs",
            scale_up_links=7,
            pcie_gbytes_per_s=32,
            confirmed=False,
            sources={
                "peaks": "UNCONFIRMED: FP16 ~320 TFLOP/s, 64 GB HBM2e (provider-catalog.yaml source "
                "ascend910b-blog; boardor.com 910B/910C comparison); 1.6 TB/s as recalled, third-party "
                "figures range 0.4-1.6 TB/s",
                "reported": "not found",
                "pcie": _PCIE4,
            },
        ),
        _gpu(
            key="Ascend-910C-128GB",
            name="Huawei Ascend 910C",
            vendor="huawei",
            architecture="davinci",
            bf16_tflops=752,
            fp8_tflops=None,
            hbm_gb=128,
            hbm_mib_reported=None,
            hbm_tbytes_per_s=3.2,
            scale_up="ub",
            scale_up_links=1,
            pcie_gbytes_per_s=32,
            confirmed=False,
            sources={
                "peaks": "UNCONFIRMED (summaries of Zuo et al. 2025, arXiv 2506.12708, CloudMatrix384): "
                "dual-die, 752 TFLOP/s FP16/BF16, 128 GB HBM at 3.2 TB/s (emergentmind.com topic page)",
                "reported": "not found",
                "pcie": _PCIE4,
            },
        ),
    )
}
