"""The validation set (validation.yaml): published training runs evaluated with their published layouts.

Each row holds its source, the workload, the offering, the layout (with every setting the source did not
publish stated under `assumed`), the published seconds per global batch, whether its layout is fully
published, its split (`fit`: may inform a constant fitted jointly over many rows; `holdout`: never used for
fitting) and, where it cannot be compared like-for-like, why it is excluded from the error statistics.

Run `python -m sizing.engine.validation` to print the per-row table that docs/MODEL.md reproduces, and
`python -m sizing.engine.validation --contract` for the rows evaluated from the size contract's keys alone.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import yaml

from .api import evaluate
from .workload import workload_from_dict

PATH = Path(__file__).with_name("validation.yaml")

# Tolerances of issue 17 ("Done when"), per row kind
TOLERANCE_DENSE_FULL = 0.15  # dense, every parallel degree published
TOLERANCE_OTHER = 0.25  # MoE, or a layout with assumed settings
MEAN_TOLERANCE = 0.10
# What the model reaches on the set today (9.18% over 350 compared rows, every row compared whatever its
# error, docs/MODEL.md). tests/sizing/test_validation.py holds the model to it, so a change that makes the set
# worse fails; a model change lowers it, never raises it (new rows move it with their reason in
# docs/MODEL.md). The twentieth stop's 225 published runs (124 compared: the DGX Cloud benchmarking recipes,
# and MLPerf v5.1's Llama 3.1 8B and 405B) come to 11.7%; the rows compared before that stop are held on their
# own (MEAN_RECORDED_EARLIER: 8.71% over 222 with the stop's data-parallel SM share; 8.77% with its
# NVLink-domain pooling alone, 8.75% before; 8.67% over the 207 before the nineteenth stop). Twenty-first
# stop: the GEMM curve's half point a fixed time per GEMM and the fp8 share refitted, 9.79% -> 9.52% (8.71% ->
# 8.46% over the 222, 11.7% -> 11.4% over the 124); then seven more MLPerf v5.1 Llama 3.1 8B submissions
# listed, four compared (HPE H200, Lambda GB300, AMD and Giga MI355X), 9.59% over 350; then the measured
# sustained GEMM rates of the GB200 (0.94 of the B200's share of peak) and the MI355X (1.22 of the MI300X's),
# 9.18% (8.44% over the 222). Twenty-third stop: five published runs added (Korthikanti et al.'s 530B on
# 2,240 A100, -1.6%; IBM fms-fsdp's 34B and 70B with FSDP on 128 A100 and 96 H100, +2.2%, +8.5%, -11.2%,
# -8.0%), 9.14% over 355; they are held apart from the 222 like the twentieth stop's. Then the gradient
# all-reduce without overlap_grad_reduce charged in full (constants.DP_OVERLAP 0.3 -> 0), 9.08% over the
# same 355 (8.44% -> 8.33% over the 222); then five more published runs (Megatron-LM's README GPT-3 175B on
# 1,024 A100, -9.3%; Megatron-LLaMA's LLaMA-13B on 256 and 512 A100, -20% to -21%), 9.21% over 360.
# Twenty-fourth stop: the six InternEvo rows state the flash attention their source ran (they were timed
# with the A100's unfused default), and four FlagPerf Aquila2-7B layouts on one A800 node are compared (-7.0%,
# -3.1%, +9.0%, -4.3%), 9.18% over 364; over the 222, 8.328% -> 8.332% (InternEvo with flash). Then
# four MLPerf GPT-3 175B submissions (SMC 512 H100 +0.8%; Oracle 1,536 and 3,072 H100 over RoCE +9.2%, -0.1%;
# NVIDIA's B200 preview on 64 GPUs +5.3%), 9.12% over 368. Twenty-fifth stop: a pipeline wider than its
# scale-up domain pays the network at its crossing boundaries (pipeline.pipeline_comm; TP x CP x DP under a
# node or NVLink domain put stages that share one next to ones that do not), 9.10% over 368 (8.332% ->
# 8.336% over the 222: 13 of them, the GB200/GB300 pipelines across 72-GPU domains and two H800 and one H100
# with TP x DP under a node, now pay the crossings they had, +0.1 to +1.6 points); then three MLPerf v6.0
# DeepSeek-V3 runs on GB300 and GB200 (+15.8%, +14.1%, -13.3%), 9.15% over 371; then six more of the same
# benchmark (CoreWeave GB300 at 2,048-8,192 GPUs; NVIDIA GB200 at 512, 4,096 and 8,192) and the third seeds of
# two, all nine with the routing imbalance they do not log at the engine's class default (1.25: they route
# dropless for real), +26.1% to -27.7%, two known misses, 9.27% over 377 (9.21% had they been balanced).
# Twenty-sixth stop: nine published MoE runs added (Megatron-Bridge 26.08 DeepSeek-V3 and gpt-oss-120b on 256
# and 64 GB300 and GB200, 26.06 on B300, 26.04.01 Qwen3-235B on 256 B300 and B200; MLPerf v6.0 gpt-oss-20b
# on 512 GB300), +19.4% to -32.5%, two known misses, 9.42% over 386. Then multi-token prediction expressed
# (workload.mtp_layers) on the 17 DeepSeek-V3 rows whose runs have it (18 with Google's, added next), with
# the published pipeline splits of 12 of them: 9.48% over 387 (Megatron-Bridge 25.11's B200 DeepSeek-V3,
# excluded for its MTP block until then, is compared, -17.7%); the GB300 rows move slow (+2 to +5 points),
# the GB200 and B300 rows are met. Then gpt-oss's sliding-window attention expressed
# (workload.sliding_window: a 128-token band on half the layers) on the 14 gpt-oss rows, which all but two
# lean fast already: 3 to 10 points faster each, and seven more published runs (MLPerf v6.0: Google's
# DeepSeek-V3 on 256 GB200, +8.4%; gpt-oss-20b by HPE on 16 and 32 GB300, +8.4% and +8.7% with the window,
# +27% without; Lambda's on 72 GB300, -27.6%; Megatron-Bridge 26.04.01's BF16 gpt-oss-120b on 64 GB300,
# GB200 and B300, -28% to -44%), 9.83% over 394, 34 past tolerance; the 222 earlier rows 8.336% -> 8.389%
# (their three gpt-oss rows). Then Megatron-Bridge 25.11's GB300 table (DeepSeek-V3 BF16 and FP8-MX,
# gpt-oss-120b BF16, Qwen3-235B BF16 on 64-256 GB300; Qwen3-30B listed), 9.89% over 398, whose BF16 rows, the
# first BF16 pairs of the two racks in one release, run 1.23-1.25x their GB200 twins per GPU where the model
# gave 1.03-1.06x: the GB300's measured GEMM rate (Azure, 1.18x the GB200's) applied in bf16 as in fp8
# (constants.GEMM_SUSTAINED_RATE_FACTOR), 9.73% over 398, 33 past tolerance; the 222 earlier rows 8.389% ->
# 8.284% (their GB300 rows). Twenty-seventh stop: 70 more published runs compared (Megatron-Bridge 25.09 to
# 26.04.01: Llama 3.1 405B and Llama 3 70B on H100, GB200 and GB300, DeepSeek-V3, Qwen3-235B and gpt-oss-120b
# on every GPU of the tables; MLPerf v6.0 gpt-oss-20b on one B200 and one B300 node), 15 of them past
# tolerance (13 gpt-oss-120b, -27.8% to -46.1%): 10.46% over 468, 48 past tolerance, the first recorded level
# above the 10% target (MEAN_TOLERANCE). Nothing was changed in the model for them. The level goes down
# with the model's changes; it went up here only because published runs were added. Twenty-eighth stop:
# context parallelism's K/V ring read from Transformer Engine (its sends hidden step by step behind the
# attention, its merge passes charged) in place of an assumed half overlap: 10.46% over 468 (10.463% ->
# 10.460%), 47 past tolerance (the CP4 rows 7-8 points less fast, the CP2 rows of small models 1-2 points
# slower or faster); the 222 earlier rows 8.285% -> 8.308% (their CP2 H100 Llama 3.1 8B rows, already slow).
# Then gpt-oss's clamped activation, expert biases and YaRN rotation stated on its 30 rows and charged as the
# eager passes their code paths run (eager.py): 10.15%, 41 past tolerance. Then a review's corrections: the
# ring's running output in bf16, the expert biases summed in fp32 under DeepEP/HybridEP's fp32 routing
# probabilities, expert tensor parallelism's rows, PyTorch's backward passes of the clamp and the rotation,
# and context parallelism by all-to-all where the ring does not run (sinks, windows: gpt-oss-20b's two CP
# rows): 10.001% over 468, 39 past tolerance, above the 10% target by a thousandth of a point; the 222
# earlier rows 8.194%. Twenty-ninth stop: Megatron-Core's selective recompute by module
# (layout.recompute_modules, checkpointing.py) stated on the 49 rows whose recipes set it under the selective
# granularity (46 compared: gpt-oss-120b and Qwen3-235B's moe_act and layernorm, the core attention of
# Nemotron-4 340B and DeepSeek-V3's first GB200 recipe, DeepSeek-V3's mlp, moe_act and mla_up_proj, with its
# low ranks stated for the up-projections): 9.938% over 468, 39 past tolerance, the recorded level under the
# 10% target again; the 222 earlier rows 8.180%. Then Megatron-Bridge 26.08's four Qwen3 rows (30B-A3B on 8
# and 235B on 256 GB300 and GB200, +3.0% to +11.4%; ten more of its rows listed and excluded): 9.902% over
# 472. Thirtieth stop: the activation model counts the attention core's queries, keys, values and output at
# their widths (multi-head latent attention's 24,576 / 16,384, Qwen3's and gpt-oss's heads x head_dim) and an
# MoE layer's routed copies as its experts' saved inputs: 9.896% over 472, but two published layouts no longer
# fit as transcribed, and both rows had misread their recipes: NeMo AutoModel's DeepSeek-V3 on 1,024 H100
# checkpointed every block when its table was printed (the key was lost from the recipe four months later;
# -11.2% -> +22.5%), Megatron-Bridge 25.11's DeepSeek-V3 rows recompute mla_up_proj (three rows): 9.914%, 40
# past tolerance; with an MoE layer's norm output kept in bf16 for the router under fp8, the same. Then the
# pipeline schedule's runs per step (layout.pipeline_schedules: gradient accumulation outside the schedule,
# NeMo AutoModel's GA) stated on its two pipelined rows that print GA > 1, each run charged its bubble and
# send chain: 9.949%, 41 past (the 1,024-GPU DeepSeek-V3 row +27.2%, Kimi K2 +23.1%: the model already times
# AutoModel's recomputed MoE blocks slow, and the true fills and drains add to it). The level rises, by the
# AutoModel row's correction (+0.024 points) and by the schedule's runs (+0.035), a mechanism its source
# shows, not a fit; the 222 earlier rows, which hold both rows, 8.180% -> 8.298%. Thirty-first stop: a
# published model's shape takes its published facts (architectures.py); BLOOM-176B, whose row left its
# dropout to the GELU class default, trained without (config.json hidden and attention dropout 0.0):
# -8.5% -> -11.1%, 9.954%; the 222 earlier rows, which hold it, 8.298% -> 8.310%. Thirty-third stop:
# DeepSpeed's BF16_Optimizer (layout.bf16_optimizer: each micro-batch's bf16 gradients added into an fp32
# copy, 18 bytes per local parameter) stated on the six BLOOM rows whose runs used it (the 02-28 chronicle
# rows and tr11): 9.923%, 40 past (BLOOM-176B -11.1% -> -6.4%, the chronicle's TP8 PP12 micro-batch-2 row
# -18.1% -> -14.3%, the micro-batch-4 rows 2-3 points); the 222 earlier rows 8.310% -> 8.243%. Thirty-sixth
# stop: fourteen published runs from Megatron-Bridge's skills and verification cards (held out;
# docs/MODEL.md), the model unchanged: 9.945% over 486, 40 past; then the gpt-oss-120b and -20b
# verification cards on H100 (library recipes, natural routing: -59.5%, -31.6%), 10.091% over 488, 42 past:
# above the target. Thirty-seventh stop: multi-head latent attention's projections counted as they are
# (workload.attention_params: DeepSeek-V3 187M per layer, Kimi K2 101M, where the 4 h^2 block gave 205M) and
# the published ranks stated on the 22 DeepSeek-V3 rows and the Kimi K2 row that lacked them: 10.062%, 42
# past (Kimi K2 +23.1% -> +12.4%); the 222 earlier rows 8.243% -> 8.191%. Then Kimi K2 on 256 GB300 in
# Megatron-Bridge 26.02.01, 26.04, 26.04.01 and 26.06 (held out): -10.7% to -5.4% with Adam's step charged,
# 10.038% over 492; -9.0% to -3.6% with Muon's (the optimizer-state convention muon-bf16-grads, the
# Newton-Schulz products charged), 10.022% over 492. Then Llama 3 70B SFT on 32 GB300 and GB200 (26.06, held
# out): +3.2%, -7.6%, +11.2%, +3.4%, 9.994% over 496 - at the target again, by the model's count (10.091% ->
# 10.062% on the 488 rows of the stop's start), the Kimi K2 rows with Muon and four published runs it meets.
# Fortieth stop: the cross-entropy loss's passes over the logits (loss.py; 52, 28 or 10 bytes per logit by
# implementation, read from the code) with each row's implementation read from its stack where the source
# allows: 10.070%, 39 past - above the target by a model change, not a fit: with the class defaults alone
# (no row's implementation stated) the set gives 9.970%, and the rows whose stacks state an unfused or
# Megatron-Core-fused loss (the MoE Parallel Folding suite, the DGX Cloud and NeMo 24.x-25.x tables) were
# already predicted slow; the 222 earlier rows 8.191% -> 8.242% (docs/MODEL.md, "Fortieth stop").
MEAN_RECORDED = 0.1008
MEAN_RECORDED_EARLIER = 0.08243
# The sources whose rows were added at the twentieth stop and later (row ids start with these), held apart
# from the 222 rows compared before (MEAN_RECORDED_EARLIER)
LATER_SOURCES = (
    "dgxc",
    "mlperf51-",
    "korthikanti22-",
    "ibm-fmsfsdp-",
    "megatronlm-readme-",
    "megatron-llama-",
    "flagperf-a800-aquila2-",
    "mlperf40-h100-smc-",
    "mlperf41-h100-oracle-",
    "mlperf41-b200-",
    "mlperf60-",
    # twenty-sixth stop: Megatron-Bridge 26.08, and the 26.06 / 26.04.01 configurations not in the set before
    "bridge2608-",
    "bridge2606-b300-deepseek-",
    "bridge2606-b300-gptoss-",
    "bridge260401-b300-qwen3-",
    "bridge260401-b200-qwen3-",
    # compared since the twenty-sixth stop's multi-token prediction (workload.mtp_layers), excluded before
    "bridge2511-b200-deepseek-v3-256",
    # and the stop's second search: Megatron-Bridge 26.04.01's BF16 gpt-oss-120b (the MLPerf v6.0 rows are in
    # "mlperf60-")
    "bridge260401-gb300-gptoss-",
    "bridge260401-gb200-gptoss-",
    "bridge260401-b300-gptoss-",
    # and the third: Megatron-Bridge 25.11's GB300 table
    "bridge2511-gb300-",
    # twenty-seventh stop: Megatron-Bridge 25.09-26.04.01 rows not in the set before (by id: their releases'
    # other rows are among the earlier ones), and MLPerf v6.0's single-node B200/B300 runs
    "bridge2511-gb200-gptoss-120b-64-bf16",
    "bridge2511-gb200-qwen3-30b-a3b-8-mxfp8",
    "bridge2509-h100-llama31-405b-1024",
    "bridge260401-h100-llama31-405b-1024",
    "bridge2511-b200-qwen3-30b-a3b-8-mxfp8",
    "mlperf60-b200-lambda-gptoss-20b-8",
    "mlperf60-b300-hpe-gptoss-20b-8",
    "bridge2602-gb300-llama31-405b-256-fp8cs",
    "bridge2602-gb300-llama31-405b-256-mxfp8",
    "bridge2602-gb200-llama31-405b-256-fp8cs",
    "bridge2602-gb200-llama31-405b-256-mxfp8",
    "bridge260201-gb300-llama31-405b-256-mxfp8",
    "bridge260201-gb200-llama31-405b-256-fp8cs",
    "bridge260201-gb200-llama31-405b-256-mxfp8",
    "bridge2604-gb300-llama31-405b-256-fp8cs",
    "bridge2604-gb300-llama31-405b-256-mxfp8",
    "bridge2604-gb200-llama31-405b-256-fp8cs",
    "bridge2604-gb200-llama31-405b-256-mxfp8",
    "bridge260401-gb300-llama31-405b-256-fp8cs",
    "bridge260401-gb300-llama31-405b-256-mxfp8",
    "bridge260401-gb200-llama31-405b-256-fp8cs",
    "bridge260401-gb200-llama31-405b-256-mxfp8",
    "bridge2602-gb300-llama3-70b-64-mxfp8",
    "bridge260201-gb200-llama3-70b-64-mxfp8",
    "bridge2604-gb300-llama3-70b-64-mxfp8",
    "bridge2604-gb200-llama3-70b-64-mxfp8",
    "bridge2509-h100-llama3-70b-64",
    "bridge260201-h100-llama3-70b-64",
    "bridge2604-h100-llama3-70b-64",
    "bridge260401-h100-llama3-70b-64",
    "bridge260201-h100-qwen3-235b-a22b-256",
    "bridge260401-h100-qwen3-235b-a22b-256",
    "bridge2602-gb300-deepseek-v3-256-mxfp8",
    "bridge2602-gb200-deepseek-v3-256-mxfp8",
    "bridge2602-b300-deepseek-v3-256-mxfp8",
    "bridge2602-b200-deepseek-v3-256-mxfp8",
    "bridge260201-gb300-deepseek-v3-256-mxfp8",
    "bridge260201-gb200-deepseek-v3-256-mxfp8",
    "bridge260201-b300-deepseek-v3-256-mxfp8",
    "bridge260201-b200-deepseek-v3-256-mxfp8",
    "bridge2604-gb300-deepseek-v3-256-mxfp8",
    "bridge2604-gb200-deepseek-v3-256-mxfp8",
    "bridge2604-b300-deepseek-v3-256-mxfp8",
    "bridge2604-b200-deepseek-v3-256-mxfp8",
    "bridge260401-gb300-deepseek-v3-256-mxfp8",
    "bridge260401-gb200-deepseek-v3-256-mxfp8",
    "bridge260401-b300-deepseek-v3-256-mxfp8",
    "bridge260401-b200-deepseek-v3-256-mxfp8",
    "bridge2602-gb300-gptoss-120b-64-bf16",
    "bridge260201-gb300-gptoss-120b-64-bf16",
    "bridge2604-gb300-gptoss-120b-64-bf16",
    "bridge2602-gb200-gptoss-120b-64-bf16",
    "bridge260201-gb200-gptoss-120b-64-bf16",
    "bridge2604-gb200-gptoss-120b-64-bf16",
    "bridge2602-b300-gptoss-120b-64-bf16",
    "bridge2604-b300-gptoss-120b-64-bf16",
    "bridge2602-b200-gptoss-120b-64-bf16",
    "bridge260401-b200-gptoss-120b-64-bf16",
    "bridge2602-h100-gptoss-120b-64-bf16",
    "bridge260201-h100-gptoss-120b-64-bf16",
    "bridge260401-h100-gptoss-120b-64-bf16",
    "bridge2602-gb300-qwen3-235b-a22b-256-mxfp8",
    "bridge2602-b300-qwen3-235b-a22b-256-mxfp8",
    "bridge2602-b200-qwen3-235b-a22b-256-mxfp8",
    "bridge260201-gb200-qwen3-235b-a22b-256-mxfp8",
    "bridge2604-gb300-qwen3-235b-a22b-256-mxfp8",
    "bridge2604-gb200-qwen3-235b-a22b-256-mxfp8",
    "bridge2604-b300-qwen3-235b-a22b-256-mxfp8",
    "bridge260401-gb300-qwen3-235b-a22b-256-mxfp8",
    "bridge260401-gb200-qwen3-235b-a22b-256-mxfp8",
    "mlperf60-b300-hpe-llama31-8b-8-nvfp4",
    "mlperf60-b200-hpe-llama31-8b-8-nvfp4",
    # thirty-sixth stop: Megatron-Bridge's skills (measured A/B runs) and model-verification cards
    "mbskill-h100-qwen3-30b-a3b-bf16-a2a-",
    "mbskill-h100-llama3-70b-sft-",
    "mbcard-",
    # thirty-seventh stop: Kimi K2 on 256 GB300 in four Megatron-Bridge releases
    "bridge260201-gb300-kimi-k2-",
    "bridge2604-gb300-kimi-k2-",
    "bridge260401-gb300-kimi-k2-",
    "bridge2606-gb300-kimi-k2-",
    # thirty-seventh stop: Llama 3 70B SFT on 32 GB300 and GB200 (Megatron-Bridge 26.06)
    "bridge2606-gb300-llama3-70b-sft-",
    "bridge2606-gb200-llama3-70b-sft-",
)


# The keys the `size` command's contract documents (DESIGN section 5: W, its moe, O and L). An outside tool
# that follows the contract sends these only; every other setting of a row (the framework's overlap flags,
# the token dispatcher, the workload's dropout, attention kernels, head width and routing balance, the
# fabric's oversubscription) then takes the engine's stated default. `contract_results` evaluates the rows
# so, to show what the contract's keys alone give (docs/MODEL.md, "What the contract's keys alone give").
CONTRACT_WORKLOAD_KEYS = frozenset(
    {"name", "layers", "hidden", "heads", "kv_heads", "ffn_hidden", "vocab", "seq_len", "global_batch"}
    | {"train_tokens", "precision", "activation", "moe", "params"}
)
CONTRACT_MOE_KEYS = frozenset({"experts", "top_k", "expert_ffn_hidden", "shared_experts", "dense_layers"})
CONTRACT_OFFERING_KEYS = frozenset(
    {"name", "gpu", "gpus_per_node", "intra_node", "fabric", "nics_per_node", "gbps_per_nic", "topology"}
    | {"nodes"}
)
CONTRACT_LAYOUT_KEYS = frozenset(
    {"tp", "pp", "dp", "cp", "ep", "zero", "micro_batch", "recompute", "sequence_parallel", "virtual_stages"}
)
# The contract-only mean today (11.98% over 222 rows), held like MEAN_RECORDED. It is a measure of the
# defaults as much as of the model: a sourced mechanism that improves the rows with their own settings can
# raise it, and is then recorded with its reason in docs/MODEL.md (sixteenth stop: the fp8 casts of every
# routed copy, 12.58% -> 12.69%, on MoE rows whose unstated 1.25 routing imbalance already leans slow; the
# fewest workload facts moved, 12.70%, MPT-3B keeping its dropout layers; seventeenth stop: gradients
# reduced in the precision the optimizer-state convention keeps them, 12.64%; eighteenth stop: 36 published
# runs added, 12.03% over 207 rows; nineteenth stop: 15 published runs added, 11.98% over 222 rows;
# twentieth stop: 225 published runs listed, 124 compared, 11.95% over 346 rows, 12.01% over the 222 earlier;
# then the SM share of hidden data-parallel traffic, 11.90%; twenty-first stop: the GEMM curve's half point
# a fixed time per GEMM, 11.80%; with the seven MLPerf v5.1 rows, 11.87% over 350; with the GB200's and
# MI355X's measured GEMM rates, 11.61%; twenty-third stop: five published runs added, 13.17% over 355, the two
# IBM fms-fsdp A100 rows +281% and +309% from the contract's keys: the A100's default ZeRO-3 gathers are
# DeepSpeed's per-tensor ones (zero.per_tensor_by_default, fitted on Narayanan 2021 Table 2), each GPU on its
# own NIC share of 4 x 100 Gb/s EFA, where the runs used PyTorch FSDP's flat gathers; the answer states that
# default and how to change it (zero.gather_note); then DP_OVERLAP 0, 13.17% over the same 355; with five more
# published runs, 13.19% over 360; twenty-fourth stop: four FlagPerf Aquila2-7B rows, 13.11% over 364; four
# MLPerf GPT-3 rows, 13.01% over 368; twenty-fifth stop: the pipeline's crossing boundaries, 12.99% over 368;
# three MLPerf v6.0 DeepSeek-V3 rows, 13.06% over 371; six more and two third seeds, 13.09% over 377;
# twenty-sixth stop: nine published MoE runs, 13.21% over 386; with Megatron-Bridge 25.11's B200 DeepSeek-V3,
# compared once multi-token prediction is expressed (not a contract key), 13.27% over 387; with seven more
# published runs, 13.36% over 394; with Megatron-Bridge 25.11's four GB300 rows and the GB300's bf16 rate,
# 13.28% over 398; twenty-seventh stop: 70 more published runs, 13.60% over 468; twenty-eighth stop: the
# context-parallel merge passes in bf16, 13.58%; twenty-ninth stop: Megatron-Bridge 26.08's four Qwen3 rows,
# +14% to +22% from the contract's keys, 13.62% over 472; thirtieth stop: the attention core's and the
# routed copies' activations at their widths, and the AutoModel DeepSeek-V3 1,024-GPU row's full
# recomputation read from the recipe of its table's date, 13.68%; thirty-first stop: a workload of a published
# model's shape takes that model's head widths, latent ranks, windows, clamp, biases and RoPE from its
# configuration (architectures.py), 13.93% with 72 rows past tolerance where 77 were: the DeepSeek-V3, Qwen3
# and gpt-oss rows were sized with hidden / heads wide heads and full attention from the contract's keys,
# which had leant the recipes' unstated settings (routing balance, dispatcher, overlap) the other way; 13.92%
# with Nemotron-4's and BLOOM's published zero dropout; then a given layout's unstated recompute modules
# fitted like its ZeRO stage (fitting.module_lists, Hopper and later), 13.97% with 2 layouts rejected where
# 8 were: the five DeepSeek-V3 recipes fit with the latent up-projections or the norms rerun, +1 point each,
# and the DGX Cloud Nemotron-4 340B row, which fits with its own bf16 Adam states, fits with the MLP rerun
# from the contract's keys, +20%). Thirty-sixth stop: sixteen published runs, 14.32% over 488, 79 past.
# Thirty-seventh stop: multi-head latent attention's projections counted as they are, 14.24%, 78 past; with
# the four Kimi K2 GB300 rows 14.16% over 492; with the four Llama 3 70B SFT rows 14.10% over 496.
# Fortieth stop: the cross-entropy loss's passes, 14.17%, 79 past.
CONTRACT_MEAN_RECORDED = 0.1417
# The dense rows sent as a bare parameter count (params_statistics): 14.81% over 293 rows, 5 layouts
# rejected, while the derived shape counted only its layers; 12.91%, 3 rejected, since it counts the
# embeddings too (twenty-sixth stop, shapes.derive_shape); 12.86% with the GB300's bf16 rate (its dense
# rows); 12.51% over 318 with the twenty-seventh stop's 25 dense published runs (405B and 70B on H100, GB200,
# GB300); 13.01% with the twenty-eighth stop's K/V ring: a bare count's shape has a K/V head per query
# head, whose 16x K/V blocks the ring's steps no longer hide on the H100 Llama 3.1 405B CP2 rows (+6 points
# each); 12.94% once the ring's running output is counted in bf16. Thirty-first stop: a count sent with a
# published model's name takes that model's published shape (architectures.named: 243 of the 318 rows name
# GPT-3 175B, Llama 2 or 3, Nemotron-4 or BLOOM-176B with their counts), 11.46%; without the names
# (PARAMS_ANONYMOUS_MEAN_RECORDED) every shape is derived, 12.94% as before. With the unstated recompute
# modules fitted (the Nemotron-4 340B row fits, with the MLP rerun): 11.52% and 12.98%, 2 rejected where 3
# were. Both held like MEAN_RECORDED. Thirty-sixth stop: five dense published runs (Llama 3 70B SFT on 32
# H100), 11.52% and 13.02% over 323. Thirty-seventh stop: four more (Llama 3 70B SFT on 32 GB300 and GB200),
# 11.46% and 12.95% over 327. Fortieth stop: the cross-entropy loss's passes, 11.55% and 12.99%.
PARAMS_MEAN_RECORDED = 0.1155
PARAMS_ANONYMOUS_MEAN_RECORDED = 0.1299


@dataclass(frozen=True)
class Row:
    id: str
    split: str | None
    kind: str  # dense | moe
    framework: str
    layout_published: str  # full | partial | none
    exclude: str | None
    published_s: float | None
    source: str
    workload: dict[str, Any]
    offering: dict[str, Any]
    layout: dict[str, Any] | None
    assumed: tuple[str, ...]
    # why the model misses this row by more than its tolerance (None: it does not)
    known_miss: str | None = None

    @property
    def tolerance(self) -> float:
        if self.kind == "dense" and self.layout_published == "full":
            return TOLERANCE_DENSE_FULL
        return TOLERANCE_OTHER

    @property
    def compared(self) -> bool:
        return self.exclude is None and self.layout is not None and self.published_s is not None

    @property
    def publication(self) -> str:
        """The publication or release the row comes from: its id's first part, as the set names its rows
        ("bridge2604" for Megatron-Bridge 26.04's table, "mlperf51" for MLPerf Training v5.1, "llama3" for
        the Llama 3 paper)."""
        return self.id.split("-", 1)[0]


@cache
def rows() -> tuple[Row, ...]:
    """Every row of validation.yaml."""
    raw = yaml.safe_load(PATH.read_text())
    fields = set(Row.__dataclass_fields__)
    out = []
    for r in raw:
        r = {k: v for k, v in r.items() if k in fields}
        r["assumed"] = tuple(r.get("assumed") or ())
        out.append(Row(**r))
    return tuple(out)


def by_id(row_id: str) -> Row:
    """The row with this id."""
    return next(r for r in rows() if r.id == row_id)


def predict(row: Row, **layout: Any) -> dict[str, Any]:
    """The engine's answer for the row's published layout (with `layout`'s settings replaced, if given)."""
    if row.layout is None:
        raise ValueError(f"{row.id}: no layout")
    return evaluate(dict(row.workload), dict(row.offering), {**row.layout, **layout})


@dataclass(frozen=True)
class Result:
    row: Row
    predicted_s: float
    feasible: bool
    memory_gib: float
    hbm_gib: float

    @property
    def error(self) -> float:
        assert self.row.published_s is not None
        return self.predicted_s / self.row.published_s - 1.0


@cache
def results() -> tuple[Result, ...]:
    """Every row with a layout, evaluated."""
    out = []
    for row in rows():
        if row.layout is None:
            continue
        out.append(_result(row, predict(row)))
    return tuple(out)


def _result(row: Row, res: dict[str, Any]) -> Result:
    return Result(
        row,
        float(res["iteration_time_s"]),
        bool(res["feasible"]),
        float(res["memory_gib_per_gpu"]["total"]),
        float(res["hbm_gib_per_gpu"]),
    )


def contract_inputs(row: Row) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """(workload, offering, layout) of a row as the size contract carries them: its documented keys only."""
    if row.layout is None:
        raise ValueError(f"{row.id}: no layout")
    workload = {k: v for k, v in row.workload.items() if k in CONTRACT_WORKLOAD_KEYS}
    if isinstance(workload.get("moe"), dict):
        workload["moe"] = {k: v for k, v in workload["moe"].items() if k in CONTRACT_MOE_KEYS}
    offering = {k: v for k, v in row.offering.items() if k in CONTRACT_OFFERING_KEYS}
    layout = {k: v for k, v in row.layout.items() if k in CONTRACT_LAYOUT_KEYS}
    return workload, offering, layout


def params_inputs(row: Row, named: bool = True) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """(workload, offering, layout) of a dense row in the contract's other workload form, a bare parameter
    count (DESIGN section 5: name, params, seq_len, global_batch, train_tokens; with its precision): the
    count the engine gives the row's real shape, with the row's name (a published model's name and count
    take its published shape, architectures.named) or, `named` false, none (the shape then derived,
    shapes.derive_shape)."""
    workload, offering, layout = contract_inputs(row)
    params = round(workload_from_dict(dict(workload)).total_params())  # as `evaluate` reports it
    bare = {
        k: workload[k]
        for k in ("name", "seq_len", "global_batch", "train_tokens", "precision")
        if k in workload
    }
    if not named:
        bare["name"] = "custom"
    return {**bare, "params": params}, offering, layout


@cache
def params_results(named: bool = True) -> tuple[Result, ...]:
    """Every compared dense row evaluated from a bare parameter count (params_inputs)."""
    return tuple(
        _result(row, evaluate(*params_inputs(row, named)))
        for row in rows()
        if row.compared and row.kind == "dense"
    )


def params_statistics(named: bool = True) -> dict[str, float]:
    """Rows, mean |error| and published layouts rejected, from a bare parameter count (with the rows'
    names, or, `named` false, without)."""
    res = params_results(named)
    return {
        "rows": len(res),
        "mean": statistics.mean(abs(r.error) for r in res),
        "rejected": sum(not r.feasible for r in res),
    }


@cache
def contract_results() -> tuple[Result, ...]:
    """Every compared row evaluated from the contract's keys alone (contract_inputs)."""
    return tuple(_result(row, evaluate(*contract_inputs(row))) for row in rows() if row.compared)


def contract_statistics() -> dict[str, float]:
    """Rows, mean and max |error|, rows past their tolerance and published layouts rejected, from the
    contract's keys alone."""
    res = contract_results()
    errors = [abs(r.error) for r in res]
    return {
        "rows": len(res),
        "mean": statistics.mean(errors),
        "max": max(errors),
        "past_tolerance": sum(abs(r.error) > r.row.tolerance for r in res),
        "rejected": sum(not r.feasible for r in res),
    }


def contract_table() -> str:
    """Each compared row whose error moves by more than 3 points from the contract's keys alone."""
    out = ["| run | error, row's settings | error, contract keys | fits |", "|---|---|---|---|"]
    full = {r.row.id: r for r in results()}
    for r in contract_results():
        error = full[r.row.id].error
        if abs(r.error - error) > 0.03 or not r.feasible:
            fits = "yes" if r.feasible else f"no ({r.memory_gib:.0f} of {r.hbm_gib:.0f} GiB)"
            out.append(f"| {r.row.id} | {100 * error:+.1f}% | {100 * r.error:+.1f}% | {fits} |")
    return "\n".join(out)


def statistics_by_split() -> dict[str, dict[str, float]]:
    """Mean and max |error| over the compared rows: all, fit split, held-out split."""
    compared = [r for r in results() if r.row.compared]
    out = {}
    for name, keep in (("all", None), ("fit", "fit"), ("holdout", "holdout")):
        errors = [abs(r.error) for r in compared if keep is None or r.row.split == keep]
        out[name] = {"rows": len(errors), "mean": statistics.mean(errors), "max": max(errors)}
    return out


def _layout_text(lay: dict[str, Any]) -> str:
    text = f"TP{lay.get('tp', 1)} PP{lay.get('pp', 1)} DP{lay.get('dp', 1)}"
    for key, label in (("cp", "CP"), ("ep", "EP"), ("virtual_stages", "v")):
        if lay.get(key, 1) > 1:
            text += f" {label}{lay[key]}"
    return text + f" ZeRO-{lay.get('zero', 1)}"


def markdown_table() -> str:
    """Every row: compared rows with their error, excluded rows with the reason (and, where a layout
    exists, whether it fits)."""
    out = [
        "| run | source | kind | layout | split | published s | predicted s | error | fits |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    evaluated = {r.row.id: r for r in results()}
    for row in rows():
        source = row.source.split(";")[0].split("(")[0].strip()[:48]
        published = f"{row.published_s:.2f}" if row.published_s else "-"
        r = evaluated.get(row.id)
        if r is None:
            reason = f"excluded: {row.exclude}"
            out.append(f"| {row.id} | {source} | {row.kind} | - | - | {published} | - | {reason} | - |")
            continue
        lay = f"{_layout_text(row.layout or {})} ({row.layout_published})"
        err = f"{100 * r.error:+.1f}%" if row.compared else f"excluded: {row.exclude}"
        fits = "yes" if r.feasible else f"no ({r.memory_gib:.0f} of {r.hbm_gib:.0f} GiB)"
        split = row.split or "-"
        cells = [row.id, source, row.kind, lay, split, published, f"{r.predicted_s:.2f}", err, fits]
        out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out)


if __name__ == "__main__":
    import sys

    if "--contract" in sys.argv[1:]:
        print(contract_table())
        c = contract_statistics()
        print(
            f"\ncontract keys only: {c['rows']} rows, mean |error| {100 * c['mean']:.2f}%, max "
            f"{100 * c['max']:.1f}%, {c['past_tolerance']} past tolerance, {c['rejected']} layouts rejected"
        )
    else:
        print(markdown_table())
        print()
        for name, s in statistics_by_split().items():
            print(f"{name}: {s['rows']} rows, mean |error| {100 * s['mean']:.1f}%, max {100 * s['max']:.1f}%")
