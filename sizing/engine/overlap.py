"""Framework settings a layout does not state: which communication overlaps the training stack runs.

The default follows the GPU generation, as the attention kernels do (model.uses_flash_attention): every
published A100 run the model is checked on ran Megatron-LM or DeepSpeed of 2021-23, before these flags
existed or were on by default; every published Hopper-and-later run ran Megatron-Core/NeMo (2024+), whose
performance recipes turn all four on. A layout may set any flag either way; the answer's `assumptions`
state which defaults were taken.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

import numpy as np

from hardware.messages import _

from . import constants as C
from .errors import InputError
from .hardware import Hardware

if TYPE_CHECKING:
    from .layout import Layout

OVERLAP_FLAGS = ("tp_comm_overlap", "overlap_grad_reduce", "overlap_param_gather", "overlap_p2p_comm")
# grid keys of the overlap flags (model.py): short, because the search holds them in numpy columns
OVERLAP_GRID_KEYS = {
    "tp_comm_overlap": "tpo",
    "overlap_grad_reduce": "ogr",
    "overlap_param_gather": "opg",
    "overlap_p2p_comm": "ppo",
}

# Megatron-Core / NeMo 2024+ (Megatron-LM README "Training Speed and Scalability": --overlap-grad-reduce
# --overlap-param-gather --tp-comm-overlap, pipeline-parallel overlap "enabled by default"; NeMo and
# Megatron-Bridge performance recipes set the same through their CommOverlapConfig)
MEGATRON_CORE_2024 = {name: True for name in OVERLAP_FLAGS}
# Megatron-LM / DeepSpeed 2021-22 (Narayanan et al. 2021, Korthikanti et al. 2022, MT-NLG, BLOOM): the
# gradient all-reduce after the backward pass (its hidden share constants.DP_OVERLAP, none),
# blocking pipeline sends, no TP overlap, no parameter-gather overlap
MEGATRON_LM_2021 = {name: False for name in OVERLAP_FLAGS}
MODERN_ARCHITECTURES = ("hopper", "blackwell", "blackwell-ultra")


# ZeRO-3 on every stack overlaps its data-parallel traffic unless told not to: DeepSpeed's stage 3 turns
# `overlap_comm` on by default (deepspeed/runtime/zero/config.py, `overlap_comm_valid`: "self.overlap_comm =
# self.stage == ZeroStageEnum.weights") and prefetches the next parameters (`stage3_prefetch_bucket_size`,
# default 5e7); PyTorch FSDP reduce-scatters on its own stream and prefetches the next all-gather in the
# backward pass by default (`backward_prefetch=BackwardPrefetch.BACKWARD_PRE`), FSDP2 in both passes. So
# a ZeRO-3 layout that states no flags gets both data-parallel overlaps whatever the GPU generation.
ZERO3_DEFAULTS = {"overlap_grad_reduce": True, "overlap_param_gather": True}


def grid_defaults(hw: Hardware, convention: str | None = None) -> dict[str, bool]:
    """framework_defaults under the grid keys of model.py (ZeRO-3 layouts: ZERO3_GRID_DEFAULTS)."""
    defaults = framework_defaults(hw, convention=convention)
    return {key: defaults[name] for name, key in OVERLAP_GRID_KEYS.items()}


# Megatron-Core's Muon runs under its LayerWiseDistributedOptimizer, which the published recipes run without
# Megatron's distributed optimizer and without the parameter-gather overlap: "use_distributed_optimizer =
# False  # Muon needs this to be False", "overlap_param_gather = False  # Muon needs this to be False"
# (Megatron-Bridge recipes/kimi/kimi_k2.py, v0.3.1 to v0.5.0). Each rank's updated weights are gathered after
# the step, not behind the next forward pass. A layout that states the flag keeps it; a ZeRO-3 layout keeps
# ZeRO-3's own prefetching default (ZERO3_DEFAULTS), as the grid does.
MUON_DEFAULTS = {"overlap_param_gather": False}


# ZERO3_DEFAULTS under the grid keys of model.py
ZERO3_GRID_DEFAULTS = {OVERLAP_GRID_KEYS[name]: value for name, value in ZERO3_DEFAULTS.items()}


def framework_defaults(hw: Hardware, zero: int = 0, convention: str | None = None) -> dict[str, bool]:
    """The overlap flags a layout gets when it does not state them, by GPU generation (and ZeRO-3's own;
    below ZeRO-3, Muon's parameter gather under its optimizer-state conventions, MUON_DEFAULTS)."""
    if hw.gpu.vendor == "nvidia" and hw.gpu.architecture in MODERN_ARCHITECTURES:
        base = MEGATRON_CORE_2024
    else:
        base = MEGATRON_LM_2021
    if zero >= 3:
        return {**base, **ZERO3_DEFAULTS}
    return {**base, **MUON_DEFAULTS} if convention in C.MUON_CONVENTIONS else base


def framework_note(hw: Hardware) -> str:
    """The `assumptions` line for a layout that left overlap flags to the default."""
    if framework_defaults(hw) is MEGATRON_CORE_2024:
        return _(
            "overlap settings not given: Megatron-Core/NeMo 2024+ defaults assumed on %(gpu)s "
            "(tensor-parallel communication, gradient reduction, parameter gathers and pipeline sends all "
            "overlapped with compute, as in NVIDIA's performance recipes for Hopper and later); set the "
            "layout's tp_comm_overlap, overlap_grad_reduce, overlap_param_gather and overlap_p2p_comm for "
            "another stack",
            gpu=hw.gpu.name,
        )
    return _(
        "overlap settings not given: 2021-22 Megatron-LM/DeepSpeed settings assumed on %(gpu)s (no TP, "
        "pipeline or parameter-gather overlap; gradient all-reduce after the backward pass), the settings of "
        "its published runs; set them in the layout for a Megatron-Core stack",
        gpu=hw.gpu.name,
    )


def resolve_overlap(layout: Layout, hw: Hardware, convention: str | None = None) -> tuple[Layout, list[str]]:
    """The layout with its unset overlap flags filled from the GPU's framework default (Muon's parameter
    gather under its conventions, MUON_DEFAULTS), and the notes."""
    defaults = framework_defaults(hw, layout.zero, convention)
    muon: list[str] = []
    if convention in C.MUON_CONVENTIONS and layout.zero < 3 and layout.overlap_param_gather is None:
        layout = replace(layout, overlap_param_gather=defaults["overlap_param_gather"])
        muon = [muon_note()]
    if all(getattr(layout, name) is not None for name in OVERLAP_FLAGS):
        return layout, muon
    zero3_unset = layout.zero >= 3 and any(getattr(layout, name) is None for name in ZERO3_DEFAULTS)
    notes = muon + [framework_note(hw)] + ([zero3_note()] if zero3_unset else [])
    return layout.with_overlap(defaults), notes


def muon_note() -> str:
    """The `assumptions` line for a Muon layout that left the parameter-gather overlap unset."""
    return _(
        "Muon optimizer: unlike the other overlap defaults, the updated weights are gathered after the "
        "optimizer step, not behind the next forward pass, as Megatron-Core's layer-wise distributed "
        "optimizer runs it in NVIDIA's published recipes; set overlap_param_gather for a stack that overlaps "
        "it"
    )


def zero3_note() -> str:
    """The `assumptions` line for a ZeRO-3 layout that left its data-parallel overlap to the default."""
    return _(
        "ZeRO-3 data-parallel overlap not given: parameter prefetch and gradient reduce-scatter overlapped "
        "with compute, the default of DeepSpeed stage 3 (overlap_comm) and PyTorch FSDP (backward prefetch); "
        "set overlap_grad_reduce / overlap_param_gather to false for a stack that does not"
    )


# MoE token dispatchers (layout.moe_dispatcher; timing.all_to_all_time): "alltoall" is Megatron-Core's
# MoEAlltoAllTokenDispatcher (one copy per routed expert, NCCL all-to-all), the only one of the 2021-23
# stacks; "deepep" is a deduplicating dispatcher (DeepEP, or Megatron-Core's flex dispatcher with the DeepEP
# or HybridEP backend: one copy per destination node over the network and per destination rank over
# NVLink), which NVIDIA's and DeepSeek's Hopper-and-later MoE recipes use where they publish it.
DISPATCHER_ALLTOALL = "alltoall"
DISPATCHER_DEDUP = "deepep"
MOE_DISPATCHERS = (DISPATCHER_ALLTOALL, DISPATCHER_DEDUP)


def default_dispatcher(hw: Hardware) -> str:
    """The MoE token dispatcher a layout gets when it does not name one, by GPU generation."""
    if framework_defaults(hw) is MEGATRON_CORE_2024:
        return DISPATCHER_DEDUP
    return DISPATCHER_ALLTOALL


def resolve_dispatcher(layout: Layout, hw: Hardware, moe: bool) -> tuple[Layout, list[str]]:
    """An MoE layout with its unset token dispatcher filled from the GPU's default and, with expert
    parallelism, its unset all-to-all overlap off (Megatron-Core's default), and the notes (a dense workload
    has neither: left None)."""
    if not moe:
        return layout, []
    notes: list[str] = []
    if layout.moe_dispatcher is None:
        layout = layout.with_dispatcher(default_dispatcher(hw))
        notes.append(dispatcher_note(hw))
    if layout.ep > 1 and getattr(layout, EP_OVERLAP_FLAG) is None:
        layout = layout.with_ep_overlap(False)
        notes.append(ep_overlap_note())
    return layout, notes


# Megatron-Core's --overlap-moe-expert-parallel-comm (TransformerConfig overlap_moe_expert_parallel_comm;
# Megatron-Bridge's moe_a2a_overlap): off by default in Megatron-Core, on in some of NVIDIA's H100 MoE recipes
# (Megatron-Bridge 25.11: DeepSeek-V3, Qwen3-235B-A22B and Qwen3-30B-A3B on H100; off for DeepSeek-V3 on
# B200/GB200), and DeepSeek's DualPipe does the same. model._expert_parallel_comm; grid key "epo".
EP_OVERLAP_FLAG = "overlap_moe_expert_parallel_comm"


def ep_overlap_note() -> str:
    """The `assumptions` line for an expert-parallel layout that left its all-to-all overlap unset."""
    return _(
        "expert-parallel all-to-all overlap not given: off assumed (Megatron-Core's default): token dispatch "
        "and combine run on the critical path; set overlap_moe_expert_parallel_comm: true for a stack that "
        "hides them behind another micro-batch (Megatron-Core's combined 1F1B, DeepSeek's DualPipe)"
    )


def hidden_all_to_alls(
    x: dict[str, Any], compute: Any, recompute: Any, micro: Any, forward_a2a: Any, backward_a2a: Any
) -> Any:
    """Critical-path seconds per layer of the all-to-alls (model._expert_parallel_comm: `compute` and
    `recompute` per layer and micro-batch, `forward_a2a` / `backward_a2a` the all-to-alls of each pass)
    under Megatron-Core's combined 1F1B (DeepSeek's DualPipe alike, constants.EP_OVERLAP_SM_SHARE): in the
    steady state a forward runs with another micro-batch's backward, the forward's dispatch/combine hidden
    behind the backward's compute and the backward's behind the forward's; what a window cannot cover stays
    exposed, and the compute under the all-to-alls is slowed by the share of SMs the communication kernels
    hold. The warm-up forwards and cool-down backwards have no partner: Megatron's warm-up of the first
    rank, p - 1 micro-batches, or 2 (p - 1) + (v - 1) p chunks of m v interleaved (1 of m without
    pipelining: the first forward and the last backward, core.pipeline_parallel.combined_1f1b)."""
    pp, v = x["pp"], x["v"]
    forward_work = compute / 3.0
    backward_work = 2.0 * compute / 3.0 + recompute
    hidden = np.minimum(forward_a2a, backward_work) + np.minimum(backward_a2a, forward_work)
    paired = forward_a2a + backward_a2a - hidden * (1.0 - C.EP_OVERLAP_SM_SHARE)
    warmup_chunks = np.where(pp > 1, np.where(v > 1, 2.0 * (pp - 1.0) + (v - 1.0) * pp, pp - 1.0), 1.0)
    unpaired = np.minimum(warmup_chunks / (micro * v), 1.0)
    return unpaired * (forward_a2a + backward_a2a) + (1.0 - unpaired) * paired


def dispatcher_note(hw: Hardware) -> str:
    """The `assumptions` line for an MoE layout that did not name its token dispatcher."""
    if default_dispatcher(hw) == DISPATCHER_DEDUP:
        return _(
            "MoE token dispatcher not given: a deduplicating dispatcher (DeepEP/HybridEP) assumed on "
            "%(gpu)s: each token crosses the network once per destination node and NVLink once per "
            "destination GPU; set moe_dispatcher: alltoall for one copy per routed expert",
            gpu=hw.gpu.name,
        )
    return _(
        "MoE token dispatcher not given: the all-to-all dispatcher assumed on %(gpu)s (one copy of a token "
        "per routed expert); set moe_dispatcher: deepep for a deduplicating dispatcher",
        gpu=hw.gpu.name,
    )


def folds_experts(hw: Hardware) -> bool:
    """Whether the GPU generation's stack folds MoE experts over the dense ranks when a layout does not state
    `etp` (Megatron-Core 0.10+, Hopper and later: ETP = 1; layout.default_expert_tp)."""
    return framework_defaults(hw) is MEGATRON_CORE_2024


def expert_tp_note(hw: Hardware) -> str:
    """The `assumptions` line of an MoE search: the expert tensor parallelism it formed, the one a layout
    that does not state `etp` takes (layout.default_expert_tp), so that its answer given back is the same."""
    if folds_experts(hw):
        return _(
            "expert tensor parallelism: the search forms the default of a layout that does not state etp on "
            "%(gpu)s, ETP = 1 with TP > 1 and EP > 1 (experts folded over the dense ranks, as in NVIDIA's "
            "Megatron-Core MoE recipes for Hopper and later); evaluate a layout with etp for a stack that "
            "shards experts by TP",
            gpu=hw.gpu.name,
        )
    return _(
        "expert tensor parallelism: the search forms the default of a layout that does not state etp on "
        "%(gpu)s, ETP = TP (experts split like the dense layers, as the Megatron-LM and DeepSpeed stacks of "
        "the A100 generation run them), ETP = 1 only where ETP = TP cannot hold the EP; evaluate a layout "
        "with etp for a stack that folds experts (Megatron-Core 0.10+)",
        gpu=hw.gpu.name,
    )


def default_optimizer(hw: Hardware) -> str:
    """The optimizer-state convention (constants.OPTIMIZER_BYTES) of the GPU's framework generation."""
    if framework_defaults(hw) is MEGATRON_CORE_2024:
        return C.DEFAULT_OPTIMIZER_MODERN
    return C.DEFAULT_OPTIMIZER_LEGACY


def checked_optimizer(optimizer: str, field: str) -> str:
    """`optimizer` when it names a convention of constants.OPTIMIZER_BYTES, else InputError on `field` (the
    search's `optimizer`, the evaluation's `layout.optimizer`) listing them."""
    if optimizer not in C.OPTIMIZER_BYTES:
        raise InputError(field, _("must be one of %(allowed)s", allowed=", ".join(C.OPTIMIZER_BYTES)))
    return optimizer


def optimizer_note(hw: Hardware) -> str:
    """The `assumptions` line for a layout that did not name its optimizer-state convention."""
    convention = default_optimizer(hw)
    w, g, o = C.OPTIMIZER_BYTES[convention]
    values = {"convention": convention, "gpu": hw.gpu.name, "w": f"{w:g}", "g": f"{g:g}", "o": f"{o:g}"}
    if g == 2:
        return _(
            "optimizer-state convention not given: %(w)s + %(g)s + %(o)s bytes per parameter for weights, "
            "gradients and optimizer state assumed on %(gpu)s, gradients kept in bf16 as NVIDIA's recipes "
            "for Hopper and later do (the layout's optimizer '%(convention)s')",
            **values,
        )
    return _(
        "optimizer-state convention not given: %(w)s + %(g)s + %(o)s bytes per parameter for weights, "
        "gradients and optimizer state assumed on %(gpu)s, with fp32 main gradients (the layout's optimizer "
        "'%(convention)s')",
        **values,
    )


# Gradients are reduced across data-parallel ranks in the precision the optimizer-state convention keeps them
# (constants.OPTIMIZER_BYTES) when the layout does not say (`grad_reduce_in_fp32`): Megatron-LM reduces its
# fp32 main-gradient buffer as it is ("bfloat16 requires gradient accumulation and all-reduce to be done in
# fp32", megatron/training/arguments.py: accumulate_allreduce_grads_in_fp32 is forced for bf16 unless
# --grad-reduce-in-bf16), and Megatron-Core's grad_reduce_in_fp32 is that buffer's dtype, so a convention with
# 4-byte gradients reduces 4 bytes and one with 2-byte gradients 2. Not on the GPUs whose default stack is the
# fp16 Megatron-LM of the calibration runs (constants.FP16_ERA_GPUS: fp16 gradients reduce in fp16), and not
# with ZeRO-2/3 (DeepSpeed, FSDP keep and reduce the gradients in the training precision).
def reduces_grads_in_fp32(convention: str, hw: Hardware) -> bool:
    """Whether a ZeRO-0/1 layout that leaves `grad_reduce_in_fp32` unset reduces its gradients in fp32."""
    main_grads = C.OPTIMIZER_BYTES[convention][1]
    return main_grads == C.GRAD_COMM_BYTES_FP32 and hw.gpu.key not in C.FP16_ERA_GPUS


def resolve_grad_reduce(layout: Layout, convention: str, hw: Hardware) -> tuple[Layout, list[str]]:
    """The layout with its unset gradient-reduction precision filled from the optimizer-state convention,
    and the note when that is fp32 (the bf16 case is the convention's own note)."""
    if layout.grad_reduce_in_fp32 is not None:
        return layout, []
    fp32 = grad_reduce_in_fp32_by_default(convention, hw, layout.zero)
    return replace(layout, grad_reduce_in_fp32=fp32), [grad_reduce_note()] if fp32 else []


def grad_reduce_in_fp32_by_default(convention: str, hw: Hardware, zero: int) -> bool:
    """A layout's unset `grad_reduce_in_fp32`: the convention's (reduces_grads_in_fp32) with ZeRO-0/1."""
    return reduces_grads_in_fp32(convention, hw) and zero <= 1


def grad_reduce_note() -> str:
    """The `assumptions` line for a layout whose gradients are taken to travel in fp32."""
    return _(
        "gradient reduction precision not given: fp32 assumed, as the optimizer-state convention keeps fp32 "
        "main gradients and Megatron-LM reduces them as kept (it does so for every bf16 run unless told "
        "--grad-reduce-in-bf16): twice the bytes of a bf16 reduction; set grad_reduce_in_fp32: false for a "
        "stack that reduces in bf16"
    )
