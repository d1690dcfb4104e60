"""Every number of the sizing model, in one place, each with its source (hardware facts, GPU peaks, link
and fabric rates, live in the `hardware` package and are imported here).

"cal §N" refers to ../shared/data/calibration.md section N. "fitted" means the value was chosen once,
for all rows together, to reproduce the published Selene runs of cal §2 (see docs/MODEL.md for the
per-row errors); it is never tuned per run. "assumed" means no public source was found: the value is a
stated engineering assumption and is reported in the output's `assumptions` when it is used.
"""

from __future__ import annotations

# Link and fabric figures the model reads, re-exported from the hardware package where they are defined.
from hardware import ALPHA_INTER_S as ALPHA_INTER_S
from hardware import FABRIC_EFFICIENCY as FABRIC_EFFICIENCY
from hardware import NODES_PER_LEAF as NODES_PER_LEAF
from hardware import NVLINK_BRIDGE_GBYTES_PER_S as NVLINK_BRIDGE_GBYTES_PER_S
from hardware import NVLINK_MESH_BUSBW_EFFICIENCY as NVLINK_MESH_BUSBW_EFFICIENCY
from hardware import NVSWITCH_BUSBW_EFFICIENCY as NVSWITCH_BUSBW_EFFICIENCY
from hardware import PCIE_BUSBW_EFFICIENCY as PCIE_BUSBW_EFFICIENCY
from hardware.reliability import DEFAULT_FAILURE_RATE_PER_GPU_HOUR as DEFAULT_FAILURE_RATE_PER_GPU_HOUR

GIB = 2**30  # bytes; cal header: GiB = 2^30 bytes
GB = 1e9  # bytes; cal header: GB = 1e9 bytes


# GEMM efficiency plateau (achieved / peak for large bf16 GEMMs) by GPU architecture (hardware.GPU
# .architecture). A100 fitted on cal §2 (Selene runs); the others assumed from public MFU reports relative to
# A100 (cal §2: Megatron-Core on H100 reaches 41-48% MFU vs 51-56% on A100, i.e. Hopper GEMMs reach a lower
# fraction of their higher peak).
_A100_EFF = 0.72  # fitted (cal §2, all 18 rows together; docs/MODEL.md)
# assumed: 0.72 x (47% / 56%), Megatron-Core H100 vs A100 MFU at scale (cal §2). Checked, not fitted, on
# Llama 3 405B (arXiv 2407.21783 Table 4) with fused attention: -1.4%, -7.7%, +3.3% MFU (docs/MODEL.md)
_HOPPER_EFF = 0.60
# assumed: ROCm GEMMs reach a lower fraction of peak than cuBLAS in public benchmarks; the same for the
# Ascend CANN stack, for which we hold no public GEMM measurement.
_NON_CUDA_EFF = 0.50
GEMM_EFFICIENCY_MAX: dict[str, float] = {
    "ampere": _A100_EFF,
    "hopper": _HOPPER_EFF,
    "blackwell": _HOPPER_EFF,  # assumed as Hopper
    "blackwell-ultra": _HOPPER_EFF,  # assumed as Hopper
    "cdna3": _NON_CUDA_EFF,
    "cdna4": _NON_CUDA_EFF,
    "davinci": _NON_CUDA_EFF,
}

# --- GEMM efficiency curve -------------------------------------------------------------------------
# achieved / peak = gemm_efficiency_max * x / (x + GEMM_HALF_SIZE), x = tokens * hidden * (hidden / tp) of
# one micro-batch on one GPU (the size of a typical per-GPU GEMM). Rises with GEMM size and saturates:
# small GEMMs cannot fill 108-132 SMs (wave quantisation, launch overhead). fitted on cal §2.
GEMM_HALF_SIZE = 7.5e8  # fitted (cal §2)
# fp8 GEMMs do not reach 2x bf16 in practice (scaling, casts); assumed: fp8 runs at 0.7 of its peak ratio.
FP8_EFFICIENCY_FACTOR = 0.70  # assumed

# --- memory-bound work -------------------------------------------------------------------------------
# Elementwise kernels (layernorm, dropout, softmax, activation, residual) move bytes proportional to the
# activations stored per layer (Korthikanti Table 2, cal §3). HBM bytes per pass = MEMBOUND_FACTOR x those.
MEMBOUND_FACTOR = 2.0  # fitted (cal §2)
# Adam step: read/write fp32 master, m, v, read fp32 grad, write bf16 weight: 4*3*2 + 4 + 2 bytes/param.
ADAM_STEP_BYTES_PER_PARAM = 30.0  # derived from the Megatron 18-byte layout (cal §3)

# --- collectives (alpha-beta) -------------------------------------------------------------------------
# nccl-tests bus-bandwidth factors, cal §5.
# Effective collective start-up latency (s). Fitted to the busbw-vs-size curve of cal §5: 8 x H200 reach
# half of their peak busbw near 18 MiB (40 at 1 MiB, 220 at 16 MiB, 436 at 256 MiB), i.e. ~70 us.
ALPHA_INTRA_S = 70e-6  # cal §5 (fit of the H200 curve)
# Inter-node latency per fabric, achieved share of the line rate and nodes per leaf switch: hardware.network.

# --- overlap (kept realistic: cal §6 warns against Calculon's optimistic overlap picks) -------------
DP_OVERLAP = 0.3  # fitted (cal §2): share of the gradient reduction hidden behind the backward pass
# ZeRO-3 / FSDP parameter prefetch: the all-gather of layer i+1 runs on a side stream while layer i computes
# (PyTorch FSDP notes, "FSDP Prefetch Nuances": implicit forward prefetch, BACKWARD_PRE in backward; the
# first all-gather of a pass cannot overlap anything; DeepSpeed stage3_prefetch_bucket_size does the same
# with a byte budget). No public source we hold measures the hidden share: one published FSDP profile
# (marin-community/marin #8053/#8054, 2026) counts 77% of collective time overlapped in one analysis and
# all-gather kernels on the compute stream overlapping ~nothing in another; NCCL kernels also take SMs from
# the GEMMs they overlap. assumed, conservatively, between the two: at most half of each pass's gathers is
# hidden, and never more than that pass's compute time (a gather longer than the compute is exposed by
# the difference). Reported in `assumptions` whenever a ZeRO-3 layout is returned.
ZERO3_PREFETCH_OVERLAP = 0.5  # assumed
ZERO3_PREFETCH_ASSUMPTION = (
    "ZeRO-3: parameters are all-gathered (bf16) for every micro-batch, once in the forward and again in the "
    "backward pass, and gradients reduce-scattered every micro-batch (DeepSpeed behaviour); prefetching "
    f"hides at most {int(100 * ZERO3_PREFETCH_OVERLAP)}% of each pass's gathers and never more than its "
    "compute (assumed: no public measurement of the hidden share; constants.ZERO3_PREFETCH_OVERLAP)"
)
CP_OVERLAP = 0.5  # assumed: ring attention overlaps the K/V exchange with block compute
EP_OVERLAP = 0.0  # assumed: Megatron MoE all-to-alls run on the critical path unless DualPipe-style
PP_OVERLAP = 0.0  # assumed: 1F1B send/recv is on the critical path

# --- attention kernels -------------------------------------------------------------------------------
# "unfused": the s x s attention scores are materialised (softmax, dropout, their HBM traffic and memory:
# Korthikanti Table 2's 5 a s / h term), as in the Megatron-LM 2021-22 runs of cal §2. "flash": fused
# IO-aware kernels (FlashAttention, Dao et al. 2022; FlashAttention-2, Dao 2023; cuDNN/TE fused attention)
# never write the scores to HBM: no score activations, no score traffic, and the backward pass recomputes
# S = Q K^T from the saved log-sum-exp: 5 attention GEMMs in the backward instead of 4, i.e. half of the
# forward's two more (FLASH_BWD_RECOMPUTE, in units of the forward attention GEMMs).
FLASH_BWD_RECOMPUTE = 0.5
# workload.attention = "auto" resolves by GPU: unfused on the GPUs whose calibration runs were unfused
# (every cal §2 run is A100, Megatron-LM 2021-22, before FlashAttention), flash on every later GPU
# (Hopper, Blackwell, MI300: their published training stacks all use fused attention kernels). assumed;
# stated in `assumptions` whenever "auto" is resolved.
UNFUSED_ATTENTION_GPUS = ("A100-SXM-40GB", "A100-SXM-80GB")

# --- memory -----------------------------------------------------------------------------------------
# Optimizer conventions, bytes per parameter (cal §3):
#   zero-paper: weights 2 (fp16), grads 2 (fp16), optimizer K = 12 (fp32 master, m, v)
#   megatron:   weights 2 (bf16), grads 4 (fp32 main grad), optimizer 12  -> 18; distributed optimizer
#               (our ZeRO-1) 6 + 12/DP.
OPTIMIZER_BYTES: dict[str, tuple[float, float, float]] = {
    "zero-paper": (2.0, 2.0, 12.0),
    "megatron": (2.0, 4.0, 12.0),
}
# Framework overhead per GPU: CUDA context and cuBLAS workspace (~1 GiB), NCCL buffers (~1 GiB), and the
# caching allocator's fragmentation. assumed from common PyTorch practice.
OVERHEAD_FIXED_GIB = 2.0
OVERHEAD_FRACTION = 0.05
# Checkpoint: bf16 weights + fp32 master + Adam m, v = 14 bytes/param (BLOOM: 2.3 TB for 176B, cal §4).
CHECKPOINT_BYTES_PER_PARAM = 14.0
GRAD_COMM_BYTES = (
    2.0  # gradients reduced in bf16 (assumed; Megatron --grad-reduce-in-bf16, DeepSpeed default)
)
# ZeRO-3 gathers the 16-bit working copy of the weights (DeepSpeed/FSDP mixed precision: the fp32 master
# stays sharded in the optimizer state); fp8 workloads still gather bf16 weights and cast per GEMM.
PARAM_GATHER_BYTES = 2.0

# --- reliability (cal §4) ---------------------------------------------------------------------------
# The default failure rate (Llama 3, cal §4) is hardware.reliability's, imported above.
# Restart time components (minutes).
RESTART_JOB_MIN = 5.0  # assumed: relaunch, NCCL init, data loader warm-up
REPLACEMENT_AUTO_DEFAULT_MIN = 10.0  # assumed when auto replacement is offered but its time is unpublished
REPLACEMENT_SPARE_POOL_MIN = 3.0  # assumed: hot spare swapped in
DETECTION_AUTO_MIN = 2.0  # assumed: health checks / NCCL watchdog (Llama 3 automation, cal §4)
DETECTION_MANUAL_MIN = 30.0  # assumed: an operator notices a hung job
# Manual ticket: "node replacement through the cloud API can take hours" (OPT-175B, cal §4).
REPLACEMENT_MANUAL_MIN = 180.0  # cal §4 (OPT-175B chronicles), 3 h taken as "hours"
# Default checkpoint write bandwidth when the offering does not publish it: BLOOM wrote 2.3 TB in ~40 s
# on 48 nodes (~1.2 GB/s per node, cal §4); assume 1 GB/s per node.
DEFAULT_STORAGE_GBYTES_PER_S_PER_NODE = 1.0

# Unpublished offering facts take the value typical for their class: hardware/norms.py (one table, a
# source per row), applied by sizing/engine/unpublished.py.

# --- search -----------------------------------------------------------------------------------------
SEARCH_MICRO_BATCHES = (1, 2, 4, 8)
SEARCH_VIRTUAL_STAGES = (1, 2, 3, 4)  # calibrated on v = 1 and 3 (cal §2); 2 and 4 interpolate
SEARCH_MAX_PP = 128
# Largest |error| of the time model over the 18 published Selene runs (cal §2; Korthikanti 2022 1T full
# recompute, +6.7%; table in docs/MODEL.md). Alternatives closer than this are reported as not rankable by
# the model, and it bounds the node-first rule (search.fills_node_first, Narayanan 2021 takeaway #1): a
# layout that fills the node with TP before pipelining across nodes replaces the objective's best only when
# it is within this band of it on the same cluster size.
CALIBRATION_MAX_ERROR = 0.067
