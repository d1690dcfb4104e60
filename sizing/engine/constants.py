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
from hardware import GPUS as _GPUS  # the datasheet peaks the measured GEMM shares below are taken against
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

# Two GPUs of one architecture with the same datasheet peak can sustain different clocks under a GEMM load
# (power budget): the plateau above is for the architecture's reference part, and a part that sustains a
# higher clock is scaled by the ratio of the two parts' measured max-achievable GEMM rates. Source: AMD ROCm
# blog "Measuring Max-Achievable FLOPs - Part 2" (ROCm/rocm-blogs, Table 1, hipblaslt-bench): MI300X BF16
# 708 TFLOP/s at 1,207 MHz, FP8 1,273 at 1,230 MHz; MI325X BF16 843 at 1,447 MHz, FP8 1,519 at 1,464 MHz,
# both 1.19x (the clock ratio, 1.20x), while their datasheet peaks are the same (1,307 / 2,615 TFLOP/s).
# Independent: stas00/ml-engineering accelerator table, best BF16 matmul MI325X 784.9 vs MI300X 668.4
# TFLOP/s (1.17x). Parts not listed: 1.0.
#
# Twenty-first stop, from stas00/ml-engineering's Maximum Achievable Matmul FLOPS table
# (compute/accelerator/README.md @744d01e, mamf-finder.py: the best torch.mm over a search of shapes, mean of
# 100 iterations), as the ratio of each part's measured share of its datasheet peak to that of the part its
# plateau was set on:
# - GB200 against the B200 (the Blackwell plateau's reference: the B200 rows centre on it, dense -0.6%): BF16
#   1,822.0 of 2,500 TFLOP/s (72.9%) against 1,745.0 of 2,250 (77.6%), 0.94; FP8 3,615.6 of 5,000 against
#   3,432.5 of 4,500, 0.95 (the GB200 measured with a newer torch and CUDA, 2.10 / cu130 against 2.7.1 /
#   cu128). The datasheets put the GB200 1.11x ahead, the table 1.04-1.05x; Megatron-Bridge 25.11 measures
#   1.01-1.03x on Llama 3 8B (validation.yaml bridge2511-*-llama3-8b-8*). The GB300 is measured against the
#   GB200 (below).
# - MI355X against the MI300X, on which the non-CUDA plateau was set (92% of AMD's MI300X BF16 figure, above;
#   CDNA4 takes the same 0.50): BF16 1,565.0 of 2,500 (ROCm 7.0.2) against 668.4 of 1,307 (ROCm 6.3), 1.22.
#   No FP8 figure of either part is in the table; the fp8 GEMMs take the same plateau, as on every
#   architecture.


def _mamf_share(gpu: str, measured_bf16_tflops: float) -> float:
    """A part's measured best bf16 matmul rate (the MAMF table) over the bf16 peak the model gives it."""
    return measured_bf16_tflops / _GPUS[gpu].bf16_tflops


# GB300 against GB200, whose datasheet peaks are the same (5,000 / 2,500 TFLOP/s dense fp8 / bf16) while the
# GB300 runs at a higher power limit (1,400 W; Azure: "16% higher TDP"): Azure's AI-benchmarking-guide runs
# the same cuBLASLt fp8 (e4m3) GEMM benchmark (superbench cublaslt_gemm, random data, 10,000 warm-up
# iterations) on both racks, Azure_Results/ND_GB300_v6_results.md @18e80a2 and ND_GB200_v6_results.md
# @0682f76: 8192^3 3,286.3 vs 2,781.5, 16384^3 3,308.5 vs 2,819.5, 6144 x 12288 x 12288 3,279.5 vs 2,798.7
# TFLOP/s, 1.17-1.18x (taken: 8192^3, 1.18x; the two used different CUDA versions, 13.0 and 12.8). Until the
# twenty-sixth stop it applied to the fp8 GEMMs only, no bf16 comparison being published. Megatron-Bridge
# 25.11's table then gave one release and one recipe family on both racks in bf16: DeepSeek-V3 on 256 GPUs
# 3,848 against 3,139 tokens/s/GPU (1.23x), Qwen3-235B on 256 6,131 against 4,916 (1.25x), where the
# model gave 1.03x and 1.06x, and in FP8-MX DeepSeek-V3 4,357 against 4,018 (1.08x; the model 1.10x with
# the factor). The cause Azure names, the power limit, is not a precision's: the factor applies to both
# (validation.yaml bridge2511-gb300-*). B300 vs B200 measures about 1.0x in both precisions
# (stas00/ml-engineering MAMF table): the B300 keeps 1.0.
_GB300_OVER_GB200 = 3286.3 / 2781.5
_GB200_OVER_B200 = _mamf_share("GB200-186GB", 1822.0) / _mamf_share("B200-180GB", 1745.0)
GEMM_SUSTAINED_RATE_FACTOR: dict[str, float] = {
    "MI325X-256GB": 843.0 / 708.0,
    "MI355X-288GB": _mamf_share("MI355X-288GB", 1565.0) / _mamf_share("MI300X-192GB", 668.4),
    "GB200-186GB": _GB200_OVER_B200,
    "GB300-288GB": _GB200_OVER_B200 * _GB300_OVER_GB200,
}
# The same for a part measured in fp8 only, applied to its fp8 linear GEMMs (model._linear_peak), on top of
# the factor above: none since the GB300's measured factor applies to both precisions (above).
FP8_SUSTAINED_RATE_FACTOR: dict[str, float] = {}

# --- GEMM efficiency curve -------------------------------------------------------------------------
# achieved / peak = gemm_efficiency_max * x / (x + half), x = tokens * hidden * (hidden / tp) of one
# micro-batch on one GPU (the size of a typical per-GPU GEMM). Rises with GEMM size and saturates: a GEMM
# pays a fixed time besides its FLOPs (launch, prologue and epilogue, the last partly filled wave), so the
# half point is where the GEMM's ideal time equals that fixed time, and `half` scales with the rate the GEMM
# runs at: GEMM_HALF_SIZE at the rate it was fitted at (A100 bf16, GEMM_HALF_SIZE_RATE), i.e. 2 x 7.5e8 /
# (312e12 x 0.72) = 6.7 us per GEMM, times rate / GEMM_HALF_SIZE_RATE elsewhere (timing.gemm_efficiency;
# before the twenty-first stop the half point was one size on every GPU). Evidence that the fall-off moves
# with the rate: Azure's cuBLASLt fp8 sweeps (egmsft/AI-benchmarking-guide, Azure_Results/
# ND_H200_v5_results.md @08ea7a3, ND_GB200_v6_results.md @0682f76, ND_GB300_v6_results.md @18e80a2;
# superbench cublaslt_gemm, random data, 10,000 warm-up iterations) reach 0.87 of their 16384^3 rate at
# 2048^3 on H200 (1,135 / 1,305 TFLOP/s) but 0.59 on GB200 (1,676 / 2,820) and 0.69 on GB300 (2,289 /
# 3,309): a fixed 2-4 us per GEMM on each.
GEMM_HALF_SIZE = 7.5e8  # fitted (cal §2)
# the A100's bf16 plateau rate, at which GEMM_HALF_SIZE was fitted
GEMM_HALF_SIZE_RATE = _GPUS["A100-SXM-80GB"].bf16_tflops * 1e12 * _A100_EFF
# fp8 GEMMs (Transformer Engine, the linear layers only: attention BMMs, norms, softmax and the optimizer
# stay in bf16/fp32) do not reach 2x bf16 in practice: fp8 GEMMs run at this share of the bf16 curve scaled
# to the fp8 peak. Fitted on the dense fp8 rows of the validation set's fit split (the smallest mean |error|
# on a 0.01 grid: 0.85 with the fixed half size, 0.88 since the half point is a time; docs/MODEL.md).
# TE also casts each linear layer's input (forward) and output gradient (backward) to
# fp8, with a transpose for the weight gradient on Hopper: FP8_CAST_BYTES per element of those tensors,
# memory-bound; an MoE layer's experts cast every routed copy of a token (model.WorkloadShape fp8_cast_*).
FP8_EFFICIENCY_FACTOR = 0.88  # fitted (see above)
FP8_CAST_BYTES = 6.0  # read bf16 (2) + write fp8 and its transpose (2 x 1) + amax pass (2); TE cast_transpose

# --- memory-bound work -------------------------------------------------------------------------------
# Elementwise kernels (layernorm, dropout, softmax, activation, residual) move bytes proportional to the
# activations stored per layer (Korthikanti Table 2, cal §3). HBM bytes per pass = MEMBOUND_FACTOR x those.
MEMBOUND_FACTOR = 2.0  # fitted (cal §2)
# Adam step: read/write fp32 master, m, v, read fp32 grad, write bf16 weight: 4*3*2 + 4 + 2 bytes/param.
ADAM_STEP_BYTES_PER_PARAM = 30.0  # derived from the Megatron 18-byte layout (cal §3)
# DeepSpeed's BF16_Optimizer (deepspeed/runtime/bf16_optimizer.py, 2022 and since; layout.bf16_optimizer):
# after each micro-batch's backward pass, update_hp_grads runs hp_grad.add_(lp.grad.to(fp32)) on every
# parameter: the cast reads 2 bytes and writes a 4-byte temporary, the add reads it and the fp32 gradient (4 +
# 4) and writes 4. The pipeline engine calls it after every backward pass (pipe/engine.py
# _exec_backward_pass), and clear_lp_grads sets the bf16 gradients to None, which costs nothing.
BF16_OPTIMIZER_ACCUMULATE_BYTES = 18.0  # 2 + 4 + 4 + 4 + 4, from the code

# --- collectives (alpha-beta) -------------------------------------------------------------------------
# nccl-tests bus-bandwidth factors, cal §5.
# Effective collective start-up latency (s). Fitted to the busbw-vs-size curve of cal §5: 8 x H200 reach
# half of their peak busbw near 18 MiB (40 at 1 MiB, 220 at 16 MiB, 436 at 256 MiB), i.e. ~70 us.
ALPHA_INTRA_S = 70e-6  # cal §5 (fit of the H200 curve)
# Inter-node latency per fabric, achieved share of the line rate and nodes per leaf switch: hardware.network.
# Collectives across nodes add the ring steps of NCCL's own cost model (NCCL src/graph/tuning.cc, hwLat for
# the Ring algorithm with the Simple protocol used for large messages): an all-gather or reduce-scatter over
# n ranks on k nodes takes n - k steps over NVLink and k - 1 over the network, an all-reduce twice that. The
# network step is scaled per fabric by hardware.network.ALPHA_INTER_S relative to InfiniBand (EFA: 4 x B200
# all-reduce over 32 ranks = 70 + 2 x (28 x 3.4 + 3 x 25) us = 0.41 ms, cal §5 curve 0.39 ms).
RING_STEP_NVLINK_S = 3.4e-6  # NCCL tuning.cc hwLat[NVLINK][RING][SIMPLE]
RING_STEP_NET_S = 9.6e-6  # NCCL tuning.cc hwLat[NET][RING][SIMPLE]

# --- overlap (kept realistic: cal §6 warns against Calculon's optimistic overlap picks) -------------
# Which overlaps run is a framework setting of the layout (layout.Layout, defaults in overlap.py).
# Without overlap_grad_reduce (Megatron-LM/DeepSpeed 2021-22): the gradient all-reduce runs after the
# backward pass, so none of it hides (the stage that finishes its backward last, the first, sets the step
# and reduces after it). Measured: Megatron-LLaMA's README (alibaba/Megatron-LLaMA @e3d671a) times LLaMA-13B
# on 256 and 512 A100 with Megatron-LM's distributed optimizer and with its overlapped one: 1.38 s and
# 1.29 s more per step without the overlap, where this model's whole ZeRO-1 exchange for those layouts is
# 1.13 s; and
# Korthikanti et al. 2022 (section 6.3) add 1.32 s going 8-way data-parallel without overlap. Until the
# twenty-third stop this share was fitted with the other constants on the 18 Selene rows of cal §2 (0.3);
# at 0 those rows' worst error goes from 6.7% to 8.0% while the held-out A100 rows of Megatron-LM, BLOOM and
# Megatron-LLaMA move toward their published steps (docs/MODEL.md, twenty-third stop).
DP_OVERLAP = 0.0
# With overlap_grad_reduce (Megatron-Core DDP, megatron/core/distributed/param_and_grad_buffer.py): the
# gradients are reduced bucket by bucket while the last micro-batch's backward pass still runs; what does not
# fit behind that backward, and the last bucket, stay exposed. overlap_param_gather likewise hides the
# all-gather of the updated bf16 parameters behind the next step's first forward pass. Bucket size: Megatron-
# Core's default, max(40M, 1M x data-parallel size) parameters (DistributedDataParallelConfig.bucket_size).
DDP_BUCKET_PARAMS = 40e6
DDP_BUCKET_PARAMS_PER_RANK = 1e6
# tp_comm_overlap (Transformer Engine userbuffers, used with sequence parallelism): each TP all-gather and
# reduce-scatter is split into chunks that run while the adjacent GEMM computes the previous chunk; the first
# (all-gather) or last (reduce-scatter) chunk cannot overlap. TE's default userbuffers configuration (NeMo
# userbuffers_*_tp*.py) uses ring-exchange for the all-gathers (tp chunks) and a 4-way pipelined split for the
# reduce-scatters: exposed share = (1/tp + 1/4) / 2, and at least whatever the GEMMs cannot cover.
TP_OVERLAP_PIPELINE_SPLITS = 4
# ZeRO-3 / FSDP: the parameters of every layer are all-gathered for each micro-batch in the forward and again
# in the backward pass (with the recomputation), and the gradients reduce-scattered (DeepSpeed stage 3, FSDP
# FULL_SHARD). One collective per parameter tensor of a layer: DeepSpeed gathers per submodule (Q/K/V, output
# projection, two MLP matrices; biases and norms below stage3_param_persistence_threshold stay resident).
ZERO3_COLLECTIVES_PER_LAYER = 4
# Per-layer ZeRO-3 collectives with n data-parallel ranks move shards of size/n per rank; the published
# ZeRO-3 runs of Narayanan et al. 2021 Table 2 (174.6B and 529.6B on 384-2,240 A100, one micro-batch per step)
# reach about one HDR NIC per GPU (25-30 GB/s of gathered bytes), not the node's pooled 8 NICs that the
# bucketed data-parallel all-reduce reaches (cal §5, 192 GB/s). Modelled as each GPU using its own NIC share.
ZERO3_PER_GPU_NIC = True
# With prefetch (overlap_param_gather; DeepSpeed stage3_prefetch_bucket_size) DeepSpeed 2021's per-tensor
# collectives of a pass run while that pass computes, but they hide at most this share of the compute time:
# one layer of lookahead, NCCL kernels taking SMs and HBM bandwidth from the GEMMs, and the gathers and
# reduce-scatters of the backward pass sharing one stream. fitted jointly on the Table 2 ZeRO-3 rows of the
# validation set's fit split (docs/MODEL.md), not per row. Flat per-block gathers (PyTorch FSDP, FSDP2,
# Megatron-FSDP) are not capped: they run on their own all-gather and reduce-scatter streams with the next
# block prefetched (PyTorch FSDP paper, Zhao et al. 2023, "Overlap Communication and Computation", Figure 5,
# and its backward/forward prefetching; Megatron-FSDP's runtime_schedule.md: separate all-gather and
# reduce-scatter streams, double-buffered prefetch) and pipeline like the gradient buckets above
# (zero._zero3).
ZERO3_OVERLAP = 0.3
# Context parallelism's ring (Transformer Engine, attention/dot_product_attention/context_parallel.py,
# AttnFuncWithCPAndKVP2P) runs a rank's attention as cp partial attentions and merges them in memory-bound
# passes the undivided kernel does not make (context.merge_bytes): forward, the first step's output scaled
# into the running output (read 2, write 2 bytes per element of the attention output), each later step's
# output read and the running output read and written (flash_attn_fwd_out_correction: 2 + 2 + 2; the running
# output keeps the bf16 dtype outside fp8 attention, whatever the code's comment says); backward, per step,
# the step's dQ and dK/dV added into their bf16 sums (read the step's, read and write the sum: 2 + 2 + 2
# bytes per element). Read from the code; no run fitted them.
CP_OUT_FIRST_STEP_BYTES = 4.0
CP_OUT_CORRECTION_BYTES = 6.0
CP_GRAD_ACCUMULATE_BYTES = 6.0
# Code paths of gpt-oss's model facts that run eager memory-bound passes (eager.eager_bytes), counted from the
# code of the Megatron-Core the Megatron-Bridge 26.04 recipes pin (d7288711 at v0.4.0, 2edffadb at v0.4.2: the
# same code here), bytes per element:
# - a clamped gated activation (workload.glu_clamp; megatron/core/fusions/fused_bias_geglu.py
#   weighted_bias_quick_geglu_impl, L410-441): before the fused kernel, the two halves of the experts' fc1
#   output clamped and concatenated in eager PyTorch, forward two clamps and a cat (read and write each: 4
#   passes, 8 bytes in bf16); backward PyTorch's clamp gradient (the input compared to the bound or bounds
#   into boolean masks, then where(mask, grad, 0): about 14 bytes for the two-sided clamp, 8 for the
#   one-sided, 11 on average) and the chunk's gradients concatenated (4): 15; per element of fc1's output
#   (2 x FFN);
# - biases on the linear layers (workload.linear_bias; megatron/core/transformer/moe/experts.py
#   TEGroupedMLP._apply_bias, L251-268: fc2 is built with skip_bias_add and its bias added per local expert
#   in a Python loop, `t + b * p` then a cat and a cast): with bf16 routing probabilities (the all-to-all
#   dispatcher) forward b * p written, t + b p (read two, write one), the cat (read, write): 12 bytes;
#   backward the bias's and the probabilities' gradients (multiply, write, reduce: 6 bytes each) and the
#   split's gradients concatenated (4): 16. With fp32 probabilities (DeepEP and HybridEP, token_dispatcher.py
#   L1033-1039, L1302) the sum is promoted to fp32 and cast back: 28 forward, 40 backward; per element of
#   fc2's output;
# Both run only without Transformer Engine's op fuser (layout.te_op_fuser), which fuses the experts' MLP.
# - YaRN rotary embeddings (workload.rope "yarn"; Megatron-Bridge utils/fusions.py turns the RoPE fusion off
#   for any position embedding but "rope", Megatron-Core rope_utils.py falls back for mscale != 1):
#   _apply_rotary_pos_emb_bshd in eager PyTorch, forward t cos (2 passes), the rotated half (negate half and
#   cat: 3), times sin (2), the sum (3), the cat with the empty pass-through (2): 12; backward about 14 (the
#   empty pass-through's slice still allocates a full-size zero gradient, and the input's three gradients
#   are summed); less the fused kernel's read and write each way (2 and 2): 10 and 12 passes, 20 and 24
#   bytes over the queries and keys.
# Not fitted: each is read from the code (the backward ones from PyTorch's autograd formulas, not profiled).
GLU_CLAMP_BYTES_FORWARD = 8.0
GLU_CLAMP_BYTES_BACKWARD = 15.0
EXPERT_BIAS_BYTES_FORWARD = 12.0
EXPERT_BIAS_BYTES_BACKWARD = 16.0
EXPERT_BIAS_BYTES_FORWARD_FP32 = 28.0
EXPERT_BIAS_BYTES_BACKWARD_FP32 = 40.0
YARN_ROPE_BYTES_FORWARD = 20.0
YARN_ROPE_BYTES_BACKWARD = 24.0
# Megatron-Core's selective recompute by module (layout.recompute_modules, checkpointing.py): the forward
# passes a module runs again, bytes per element in bf16, from the kernels' inputs and outputs (not fitted):
# - a norm (Transformer Engine's LayerNorm/RMSNorm forward): read the input, write the output, 2 + 2;
# - the experts' fused activation (megatron/core/fusions/fused_bias_swiglu.py weighted_bias_swiglu_impl, one
#   kernel): read each element of fc1's output (2), write each of its own (2; half as many when gated).
NORM_FORWARD_BYTES = 4.0
ACTIVATION_FORWARD_BYTES = 2.0
EP_OVERLAP = 0.0  # assumed: Megatron MoE all-to-alls run on the critical path unless DualPipe-style
# ... unless the layout says overlap_moe_expert_parallel_comm (Megatron-Core's "combined 1F1B", Megatron-
# Bridge's moe_a2a_overlap; DeepSeek's DualPipe): the forward of one micro-batch runs with the backward of
# another, each one's dispatch/combine all-to-alls hidden behind the other's attention and expert compute
# (Megatron-Core docs, "Combined 1F1B: Expert-Parallel All-to-All Overlap", and
# core.pipeline_parallel.combined_1f1b; DeepSeek-V3 report arXiv 2412.19437 sec. 3.2.1). The communication
# kernels then hold SMs the compute does not get: "only 20 SMs are sufficient to fully utilize the
# bandwidths of IB and NVLink" of the H800's 132 (sec. 3.2.2); DeepEP's Buffer.num_sms and Megatron-Core's
# moe_deepep_num_sms default to the same 20. The H800's share, applied to every GPU (assumed): the compute
# that runs under the all-to-alls takes this share longer.
EP_OVERLAP_SM_SHARE = 20.0 / 132.0
# Data-parallel traffic hidden behind compute (overlap_grad_reduce / overlap_param_gather, ZeRO-0/1/2) takes
# SMs the same way: "NCCL CTAs won't share an SM with compute kernels", and a node with 8 NICs "would use 16
# SMs" (NCCL maintainer, NVIDIA/nccl issue #689; MLPerf v5.1's Llama 3.1 8B configs set NCCL_MIN_CTAS=16); the
# traffic also competes for HBM bandwidth (issue #1433). The compute that runs under the hidden traffic takes
# this share longer, as under the expert all-to-alls: 16 of an H100's 132 SMs, applied to every GPU (assumed;
# 16 of a B200's 148 is 0.108); ZeRO-3's flat gathers too (FSDP, FSDP2, Megatron-FSDP), not its per-tensor
# ones, whose fitted ZERO3_OVERLAP already holds what they cost, nor the 2021-22 settings, whose fitted
# DP_OVERLAP does.
DP_OVERLAP_SM_SHARE = 16.0 / 132.0

# --- pipeline engine (layout.pipeline_engine; sizing/engine/pipeline.py) --------------------------------
# Transfers on a stage's critical path per micro-batch in the 1F1B steady state (v = 1). Megatron
# (schedules.py): one batched send/receive after the forward (send_forward_recv_backward) and one after the
# backward (send_backward_recv_forward), both directions at once. DeepSpeed 2021 (deepspeed/runtime/pipe/
# schedule.py TrainSchedule, p2p.py blocking send/recv): in each step a stage sends, then receives, and a
# micro-batch takes a forward and a backward step: 4.
MEGATRON_TRANSFERS_PER_MICRO_BATCH = 2.0
DEEPSPEED_TRANSFERS_PER_MICRO_BATCH = 4.0
# DeepSpeed with tensor parallelism (engine.py is_pipe_partitioned / is_grad_partitioned): every transfer is
# the partition's metadata then its data (PartitionedTensor.to_meta(), data()): one latency-only message more
# per transfer; the full tensor is rebuilt by a TP all-gather (PartitionedTensor.full()) of the received
# input, of the stage's own output before its backward, and of the received gradient: 3 per micro-batch.
# Megatron gathers after each of its two receives (p2p_communication.py gather_split_1d_tensor): 2.
DEEPSPEED_META_MESSAGES_PER_MICRO_BATCH = 4.0
DEEPSPEED_GATHERS_PER_MICRO_BATCH = 3.0
MEGATRON_GATHERS_PER_MICRO_BATCH = 2.0

# --- terms that grow with the cluster ------------------------------------------------------------------
# Per-step synchronisation: the optimizer step waits for the slowest data-parallel replica. Each replica's
# step is m micro-batches whose times jitter independently (relative std SYNC_JITTER), so the slowest of R
# replicas is late by SYNC_JITTER x t_mb x sqrt(m) x sqrt(2 ln R) (the expected maximum of R Gaussians).
# Stragglers at scale: MegaScale (Jiang et al. 2024, section 5: a few slow hosts set the pace of a
# 10,000-GPU job), Llama 3 (arXiv 2407.21783 section 3.3.4: "slow stragglers ... can slow down thousands of
# other GPUs"). fitted jointly on the fit split of the validation set (docs/MODEL.md).
SYNC_JITTER = 0.004
# --- mixture of experts --------------------------------------------------------------------------------
# Token routing (Megatron-Core moe/router.py, moe_utils.permute/unpermute, token_dispatcher.py), per MoE
# layer:
# - router: fp32 logits over the experts, softmax/sigmoid and top-k: MOE_ROUTER_BYTES per token and expert
#   (write logits, read them for the score function and again for top-k; memory-bound);
# - permutation before and unpermutation after the experts: each routed copy of a token's hidden vector is
#   gathered into expert order and scattered back (read 2 + write 2 bytes per element each way), forward and
#   backward: MOE_PERMUTE_BYTES per element of tokens x top_k x hidden per pass.
MOE_ROUTER_BYTES = 12.0
MOE_PERMUTE_BYTES = 8.0
# Grouped GEMMs of the local experts (TE GroupedLinear / CUTLASS grouped GEMM) run below a dense GEMM of the
# same per-expert size: many small problems in one launch, ragged rows padded to tiles. assumed 0.85 of the
# dense curve at the per-expert size (the per-expert size itself already lowers the efficiency). A GPU that
# holds one expert (experts = EP, e.g. Mixtral's 8 over EP8) runs it as one plain GEMM (TE GroupedLinear with
# num_gemms = 1): no grouped share (model._linear_forward).
GROUPED_GEMM_EFFICIENCY = 0.85
# Load imbalance: the busiest expert-parallel rank processes this multiple of the mean tokens (its experts'
# GEMMs and its all-to-all share), when the workload does not state one. 1.25 is the expert capacity factor
# GShard (Lepikhin et al. 2020) and Switch Transformer (Fedus et al. 2021) budget for training: the routed
# load a balanced router still has to absorb. Benchmarks that force-balance the routing (NeMo/Megatron-
# Bridge performance tables) state 1.0.
MOE_LOAD_IMBALANCE = 1.25

# --- how close an answer is -----------------------------------------------------------------------
# The band every answer states (sizing/engine/accuracy.py): over the compared rows of the validation set
# (validation.yaml, published runs evaluated with their published layouts), by kind, the number of runs, the
# mean |error| of the iteration time, and the 10th and 90th percentiles of published / predicted time.
# Measured, not fitted: `python -m sizing.engine.accuracy` prints it from the set, and
# tests/sizing/test_accuracy.py fails when the model or the set moves and this table was not updated.
# kind: (runs, mean |error|, published/predicted at the 10th percentile, at the 90th)
MODEL_ACCURACY: dict[str, tuple[int, float, float, float]] = {
    "dense": (327, 0.079, 0.89, 1.14),
    "moe": (169, 0.143, 0.88, 1.36),
}
# The same rows evaluated from the size contract's documented keys alone (validation.contract_results: every
# framework setting, the token dispatcher, dropout, attention kernels and routing balance left to the
# engine's defaults, as a planner answer leaves them): by kind, (runs, mean |error|). An answer that took the
# framework defaults states it beside the band (accuracy._band_sentence); `python -m sizing.engine.accuracy`
# prints it and tests/sizing/test_accuracy.py holds it to the set.
MODEL_ACCURACY_DEFAULTS: dict[str, tuple[int, float]] = {
    "dense": (327, 0.113),
    "moe": (169, 0.197),
}
# The GPU architectures (hardware.GPU.architecture) of those compared rows: NVIDIA Ampere, Hopper, Blackwell
# and Blackwell Ultra (58 GB300/B300 runs of the Megatron-Bridge tables and MLPerf since the twenty-seventh
# stop, all held out; its dense runs lean slow, its MoE runs fast), and AMD CDNA3
# through five MI325X runs (validation.yaml aac11-mi325x-* and amd-perf-mi325x-*, all held out), and CDNA4
# through two MLPerf v5.1 MI355X runs (twenty-first stop, validation.yaml mlperf51-mi355x-*: +22% and +28%
# with the assumed non-CUDA plateau, +9% and +3% with the MI355X's measured rate, above). An
# answer on another architecture (Huawei Da Vinci) says the band was not measured on it: its GEMM efficiency
# is an assumption (GEMM_EFFICIENCY_MAX) that no compared published run checks (the Ascend 910B rows are
# listed but excluded: the chip's peak is not established).
MODEL_ACCURACY_ARCHITECTURES: tuple[str, ...] = (
    "ampere",
    "blackwell",
    "blackwell-ultra",
    "cdna3",
    "cdna4",
    "hopper",
)
# By kind and architecture, the compared rows and their mean signed error (predicted / published - 1: above
# zero, the model's step time was longer than the published one). An answer states its own GPU
# architecture's figure beside the band, so a buyer on a GPU with few runs, or with runs the model misses
# one way, reads it (`python -m sizing.engine.accuracy` recomputes it; tests/sizing/test_accuracy.py).
MODEL_ACCURACY_BY_ARCHITECTURE: dict[tuple[str, str], tuple[int, float]] = {
    ("dense", "ampere"): (66, -0.054),
    ("dense", "blackwell"): (57, -0.024),
    ("dense", "blackwell-ultra"): (18, 0.05),
    ("dense", "cdna3"): (4, -0.036),
    ("dense", "cdna4"): (2, 0.099),
    ("dense", "hopper"): (180, 0.036),
    ("moe", "ampere"): (1, 0.014),
    ("moe", "blackwell"): (52, -0.124),
    ("moe", "blackwell-ultra"): (51, -0.04),
    ("moe", "cdna3"): (1, -0.298),
    ("moe", "hopper"): (64, -0.022),
}

# By published model (architectures.shape_group: the models of one shape), over the compared rows of that
# shape: (runs, publications or releases they come from, mean |error|, mean signed error, published /
# predicted at the 10th and 90th percentiles, mean |error| of the same runs from the contract's keys alone,
# which an answer that took the framework defaults states beside the band). An answer whose workload has
# such a shape states this band and applies it in place of its kind's (accuracy.accuracy_figures, `band`
# "model"): the runs of one model can sit one side of the kind's band (gpt-oss-120b's all ran slower than
# predicted) or well inside it. Only for a model with at least MODEL_BAND_MIN_RUNS runs from
# MODEL_BAND_MIN_PUBLICATIONS publications (a table's row id prefix, validation.Row.publication), so that one
# paper's sweep does not make a band.
# Measured, not fitted (`python -m sizing.engine.accuracy`; tests/sizing/test_accuracy.py holds it to the
# set).
MODEL_BAND_MIN_RUNS = 10
MODEL_BAND_MIN_PUBLICATIONS = 3
MODEL_ACCURACY_BY_MODEL: dict[str, tuple[int, int, float, float, float, float, float]] = {
    "DeepSeek-V3": (42, 12, 0.142, -0.031, 0.84, 1.22, 0.224),
    "GPT-3 175B": (44, 11, 0.062, -0.004, 0.91, 1.11, 0.062),
    "Llama 2 70B / Llama 3 70B": (46, 16, 0.083, 0.062, 0.86, 1.02, 0.169),
    "Llama 2 7B": (24, 5, 0.078, -0.001, 0.91, 1.12, 0.086),
    "Llama 3 8B": (44, 9, 0.116, 0.039, 0.84, 1.12, 0.128),
    "Llama 3.1 405B": (54, 12, 0.056, 0.03, 0.9, 1.06, 0.057),
    "Mixtral 8x22B": (12, 3, 0.077, 0.06, 0.9, 0.97, 0.227),
    "Nemotron-4 15B": (19, 5, 0.09, 0.017, 0.92, 1.26, 0.083),
    "Nemotron-4 340B": (28, 5, 0.092, -0.055, 0.93, 1.21, 0.098),
    "Qwen3-235B-A22B": (29, 8, 0.106, -0.035, 0.94, 1.29, 0.197),
    "Qwen3-30B-A3B": (20, 7, 0.168, -0.062, 0.88, 1.4, 0.308),
    "gpt-oss-120b": (25, 8, 0.264, -0.264, 1.22, 1.49, 0.16),
}

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
# The same runs trained in fp16 (Narayanan 2021: examples/sc21/CONFIG.sh `--fp16`), whose gradients
# Megatron-LM reduces in fp16: on these GPUs an unset gradient-reduction precision stays 2 bytes whatever
# the optimizer-state convention (overlap.reduces_grads_in_fp32).
FP16_ERA_GPUS = UNFUSED_ATTENTION_GPUS

# --- memory -----------------------------------------------------------------------------------------
# Optimizer conventions, bytes per parameter (weights, grads, optimizer state):
#   zero-paper: weights 2 (fp16), grads 2 (fp16), optimizer K = 12 (fp32 master, m, v) (cal §3)
#   megatron:   weights 2 (bf16), grads 4 (fp32 main grad), optimizer 12  -> 18; distributed optimizer
#               (our ZeRO-1) 6 + 12/DP (cal §3, Megatron-LM theoretical_memory_usage.py)
#   megatron-bf16-grads: weights 2, a bf16 gradient buffer 2, optimizer 12: NVIDIA's NeMo / Megatron-Bridge
#               performance recipes set grad_reduce_in_fp32=False (NeMo scripts/performance helpers
#               set_precision_configs), so the gradients are kept and reduced in bf16
#   bf16-adam:  weights 2, grads 2, Adam m and v in bf16 (4), no fp32 master: torch.optim.Adam over a bf16
#               model, as the NeMo AutoModel benchmark recipes run it (examples/llm_benchmark/*.yaml)
#   muon:       weights 2, fp32 main grads 4, an fp32 master copy and Muon's one fp32 momentum (8):
#               Megatron-Core's Muon (emerging_optimizers TensorParallelMuon under its
#               LayerWiseDistributedOptimizer, the `dist_muon` of Megatron-Bridge's
#               distributed_muon_with_cosine_annealing; the Kimi K2 recipe keeps main params and the momentum
#               in fp32, recipes/kimi/kimi_k2.py); Muon keeps no second moment (Jordan et al. 2024; "Muon is
#               Scalable for LLM Training", arXiv 2502.16982)
#   muon-bf16-grads: the same with a bf16 gradient buffer, as Megatron-Bridge's Kimi K2 performance recipes
#               set it (set_kimi_k2_common_configs: ddp.grad_reduce_in_fp32 False)
OPTIMIZER_BYTES: dict[str, tuple[float, float, float]] = {
    "zero-paper": (2.0, 2.0, 12.0),
    "megatron": (2.0, 4.0, 12.0),
    "megatron-bf16-grads": (2.0, 2.0, 12.0),
    "bf16-adam": (2.0, 2.0, 4.0),
    "muon": (2.0, 4.0, 8.0),
    "muon-bf16-grads": (2.0, 2.0, 8.0),
}
# The conventions whose step is Muon's: each 2-D weight's update orthogonalised by MUON_NS_STEPS Newton-Schulz
# iterations (Megatron-Bridge distributed_muon_with_cosine_annealing muon_num_ns_steps=5; Megatron-Core
# muon_num_ns_steps default 5). One quintic iteration on an m x n matrix (m <= n) is A = X X^T (2 m^2 n
# FLOPs), B = b A + c A A (2 m^3) and X = a X + B X (2 m^2 n): 4 m^2 n + 2 m^3 (Jordan et al. 2024's
# zeropower_via_newtonschulz5; Megatron-Core runs it through emerging_optimizers' newton_schulz). The
# embeddings, the output layer, norms and biases take Adam (Megatron-Core is_managed_by_layer_wise_optimizer:
# 2-D, not embedding or output), as do routers here (2-D, but E x h is a few hundredths of the rest). Tensor
# parallelism orthogonalises each rank's shard (muon_tp_mode "blockwise", Megatron-Bridge's default), and the
# LayerWiseDistributedOptimizer gives each data-parallel rank whole parameters to update (a 1/DP share of the
# matrices under ZeRO >= 1), experts over their expert-data-parallel ranks. The matrix products run on the
# tensor cores in bf16 (muon_fp32_matmul_prec "medium": torch.set_float32_matmul_precision's bf16 passes),
# charged at the GPU's bf16 plateau. The rest of the step is charged as Adam's memory-bound pass
# (ADAM_STEP_BYTES_PER_PARAM: momentum, master copy and weights read and written; assumed the same bytes).
MUON_CONVENTIONS = ("muon", "muon-bf16-grads")
MUON_NS_STEPS = 5
# The convention a layout gets when none is given follows the framework generation of the GPU
# (overlap.framework_defaults): Megatron-LM 2021-23 kept fp32 main gradients; the Hopper-era NVIDIA recipes
# keep them in bf16. Stated in `assumptions`.
# A ZeRO-3 shard keeps its gradients in the training precision whatever the convention: the fp32 main
# gradient is Megatron's data-parallel buffer, which a ZeRO-3 layout does not have. The ZeRO paper's stage 3
# holds (2 + 2 + K) Psi / Nd (cal §3: 1.88 GB for 7.5B over 64 GPUs), and PyTorch FSDP's sharded fp32
# parameters, gradients and Adam moments come to the same 16 bytes per parameter. (DeepSpeed's estimator,
# 18 Psi / N, keeps fp32 gradient partitions; the paper and FSDP are taken.)
ZERO3_GRAD_BYTES = 2.0
DEFAULT_OPTIMIZER_LEGACY = "megatron"
DEFAULT_OPTIMIZER_MODERN = "megatron-bf16-grads"
# Framework reserve per GPU, held against the capacity the device reports (Hardware.hbm_bytes):
# - CUDA context with cuBLAS/cuDNN workspaces: ~1 GiB per process (PyTorch CUDA semantics notes: the context
#   alone takes hundreds of MiB; cuBLAS keeps per-stream workspaces), assumed 1 GiB;
# - NCCL buffers: NCCL_BUFFSIZE defaults to 4 MiB per channel and peer (NCCL environment-variable docs); the
#   TP, PP, DP, CP and EP communicators with up to 32 channels each take ~1 GiB, assumed;
# - caching-allocator fragmentation (PyTorch CUDA caching allocator: reserved exceeds allocated), assumed 5%.
# The rank with the output layer holds one micro-batch's logits from the loss to its backward, in fp32:
# Korthikanti et al. 2022 ("Reducing Activation Recomputation in Large Transformer Models") sec. 4.3, "the
# cross entropy loss requires storing the logits which are calculated in 32-bit floating point and as a result
# will require 4sbv/t bytes" (published).
LOGITS_BYTES = 4.0
# The cross-entropy loss's memory-bound passes (loss.py, layout.cross_entropy), HBM bytes per logit over
# forward and backward with bf16 logits, read from the code (not profiled, not fitted):
# - "unfused", Megatron-Core @d98e8a6 tensor_parallel/cross_entropy.py (Megatron-LM 2021 the same steps):
#   forward .float() (read 2, write 4), max (4), in-place subtract of the max (8), exp (8), sum (4), divide
#   by the sum (8); backward the in-place multiply by the output gradient (8) and the cast back to bf16 of
#   .float()'s backward (6): 52;
# - "native", fusions/fused_cross_entropy.py: the same steps in jit_fuser kernels, the cast with the max (6),
#   subtract, exp and sum (8), the divide (8); backward multiply and cast in one (6): 28;
# - "te", Transformer Engine v2.8-v2.18 triton/cross_entropy.py: online_softmax_kernel reads the logits (2),
#   cross_entropy_kernel reads them and writes the gradient in place (4), the backward's element_mul_kernel
#   scales it by the per-token output gradient (4): 10.
CROSS_ENTROPY_PASS_BYTES = {"unfused": 52.0, "native": 28.0, "te": 10.0}
# Bytes per logit held from the loss's forward to its backward: the fp32 softmax of Megatron-Core's two
# (LOGITS_BYTES, Korthikanti et al.), the bf16 logits Transformer Engine's kernel saves (ctx.save_for_backward
# of its input, which holds the gradient after the forward).
CROSS_ENTROPY_HELD_BYTES = {"unfused": LOGITS_BYTES, "native": LOGITS_BYTES, "te": 2.0}
CUDA_CONTEXT_GIB = 1.0
NCCL_BUFFERS_GIB = 1.0
OVERHEAD_FIXED_GIB = CUDA_CONTEXT_GIB + NCCL_BUFFERS_GIB
OVERHEAD_FRACTION = 0.05
# Gradients travel in bf16 (Megatron --grad-reduce-in-bf16, Megatron-Core grad_reduce_in_fp32=False as
# NVIDIA's recipes set it, DeepSpeed's and FSDP's default) ...
GRAD_COMM_BYTES = 2.0
# ... or in fp32 where the layout says `grad_reduce_in_fp32` (Megatron-Core's DistributedDataParallelConfig
# name), and where it leaves it unset and its optimizer-state convention keeps 4-byte main gradients with
# ZeRO-0/1, but on FP16_ERA_GPUS (overlap.reduces_grads_in_fp32): Megatron-LM forces it for every bf16 run
# since April 2021
# (megatron/arguments.py: "bfloat16 requires gradient accumulation and all-reduce to be done in fp32",
# setting accumulate_allreduce_grads_in_fp32), and its fp32 main-gradient buffer is what it reduces.
GRAD_COMM_BYTES_FP32 = 4.0
# Checkpoint: bf16 weights + fp32 master + Adam m, v = 14 bytes/param (BLOOM: 2.3 TB for 176B, cal §4).
CHECKPOINT_BYTES_PER_PARAM = 14.0
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
# Spare nodes the buyer holds when the offering keeps no spare pool of its own: the job restarts on a
# spare at once and the failed node goes to repair (its ticket or automatic replacement) in the
# background. Nodes in repair at a time are Poisson (M/G/inf occupancy, Takacs 1962) with mean
# failures per hour x repair hours (Little 1961); a failure that finds every spare in repair waits for a
# repair (taken as a whole one: an upper bound). The number held minimises the expected node-hours
# (job nodes + spares) / goodput; at most this many are considered, and never past the offering's
# maximum cluster size. Practice: Meta (Llama 3 sec. 3.3.4) and ByteDance (MegaScale sec. 4) evict a
# bad node and restart on a healthy one from a held pool within minutes.
SPARE_NODES_MAX = 32
# Default checkpoint write bandwidth when the offering does not publish it: BLOOM wrote 2.3 TB in ~40 s
# on 48 nodes (~1.2 GB/s per node, cal §4); assume 1 GB/s per node.
DEFAULT_STORAGE_GBYTES_PER_S_PER_NODE = 1.0

# Unpublished offering facts take the value typical for their class: hardware/norms.py (one table, a
# source per row), applied by sizing/engine/unpublished.py.

# --- search -----------------------------------------------------------------------------------------
SEARCH_MICRO_BATCHES = (1, 2, 4, 8)
SEARCH_VIRTUAL_STAGES = (1, 2, 3, 4)  # calibrated on v = 1 and 3 (cal §2); 2 and 4 interpolate
SEARCH_MAX_PP = 128
# Largest |error| of the time model over the 18 published Selene runs (cal §2; Narayanan 2021 Table 1 7.5B,
# +8.3% since the fortieth stop's cross-entropy passes, +8.0% since the twenty-third stop's DP_OVERLAP;
# Korthikanti 2022 1T full recompute, +6.7%, before; table in docs/MODEL.md). Alternatives closer than
# this are reported as not rankable by the model, and it bounds the node-first rule (search.fills_node_first,
# Narayanan 2021 takeaway #1): a layout that fills the node with TP before pipelining across nodes replaces
# the objective's best only when it is within this band of it on the same cluster size.
CALIBRATION_MAX_ERROR = 0.083
