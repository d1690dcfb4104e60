"""Layout dicts (DESIGN section 5 `L`): parsing, defaults and validation against the workload.

Besides the parallel degrees, a layout carries the framework settings the time model depends on: expert
tensor parallelism (`etp`), the four communication-overlap flags of Megatron-Core (`tp_comm_overlap`,
`overlap_grad_reduce`, `overlap_param_gather`, `overlap_p2p_comm`), the pipeline engine (`pipeline_engine`,
pipeline.py: Megatron's schedule unless the layout says DeepSpeed's), the gradient-reduction precision
(`grad_reduce_in_fp32`, when unset the optimizer-state convention's: overlap.resolve_grad_reduce), for
ZeRO-3, whether the parameters are resharded after the forward pass (`reshard_after_forward`, FSDP's
default true) and, for MoE, the token dispatcher (`moe_dispatcher`) and whether its all-to-alls overlap
another micro-batch's compute (`overlap_moe_expert_parallel_comm`, off unless stated). An overlap flag or
dispatcher left out (None) takes the framework default of the offering's GPU generation
(`overlap.framework_defaults`, `overlap.default_dispatcher`), which the answer states in `assumptions`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields, replace
from typing import Any

import numpy as np

from hardware.messages import _
from hardware.numbers import value_text

from . import checkpointing as CK
from . import loss as LOSS
from .bounds import GPUS_MAX, check_float_range, chosen
from .errors import InputError
from .model import RECOMPUTE_CODES
from .overlap import DISPATCHER_DEDUP, MOE_DISPATCHERS, OVERLAP_FLAGS, OVERLAP_GRID_KEYS
from .pipeline import PIPELINE_ENGINES
from .workload import Workload
from .zero import ZERO3_FLAT, ZERO3_GATHERS


@dataclass(frozen=True)
class Layout:
    tp: int = 1
    pp: int = 1
    dp: int = 1
    cp: int = 1
    ep: int = 1
    zero: int = 1
    micro_batch: int = 1
    recompute: str = "selective"
    sequence_parallel: bool = False
    virtual_stages: int = 1
    # expert tensor parallelism (Megatron-Core --expert-tensor-parallel-size); None = tp, Megatron's default.
    # EP x ETP experts are folded over the TP x CP x DP ranks of the dense layers.
    etp: int | None = None
    # None = the framework default for the GPU (overlap.framework_defaults), resolved before evaluation
    tp_comm_overlap: bool | None = None
    overlap_grad_reduce: bool | None = None
    overlap_param_gather: bool | None = None
    overlap_p2p_comm: bool | None = None
    # the pipeline engine (pipeline.PIPELINE_ENGINES): "megatron" (Megatron-LM, Megatron-Core, NeMo) or
    # "deepspeed" (DeepSpeed's 2021 PipelineEngine, as MT-NLG and BLOOM ran through Megatron-DeepSpeed)
    pipeline_engine: str = "megatron"
    # gradients reduced in fp32 rather than bf16 (Megatron-Core DistributedDataParallelConfig
    # grad_reduce_in_fp32; Megatron-LM forces it for bf16): twice the gradient traffic; None = the optimizer-
    # state convention's (overlap.resolve_grad_reduce)
    grad_reduce_in_fp32: bool | None = None
    # ZeRO-3 / FSDP: reshard the parameters after the forward pass (FSDP2 fully_shard reshard_after_forward,
    # default True); False keeps them gathered until the backward: one all-gather per micro-batch, not two,
    # and the stage's parameters resident (memory line gathered_params)
    reshard_after_forward: bool = True
    # ZeRO-3 gathers (zero.ZERO3_GATHERS): "per_tensor" (DeepSpeed's 2021 stage 3: a collective per
    # parameter tensor, each rank at its own NIC's share) or "flat" (PyTorch FSDP FlatParameter, FSDP2,
    # Megatron-FSDP: one buffer per wrapped block at the node's pooled bandwidth); None = the framework
    # default for the GPU (per_tensor with the 2021 settings of Ampere and older, flat otherwise)
    zero3_gather: str | None = None
    # MoE token dispatcher (overlap.MOE_DISPATCHERS): "alltoall" (Megatron-Core's all-to-all dispatcher, one
    # copy per routed expert) or "deepep" (DeepEP/HybridEP: one copy per destination node and rank);
    # None = the framework default for the GPU (overlap.default_dispatcher), resolved before evaluation
    moe_dispatcher: str | None = None
    # MoE: the expert-parallel all-to-alls of one micro-batch hidden behind another's compute (Megatron-Core
    # overlap_moe_expert_parallel_comm, "combined 1F1B"; DeepSeek's DualPipe); None = off, Megatron-Core's
    # default, stated (overlap.resolve_dispatcher)
    overlap_moe_expert_parallel_comm: bool | None = None
    # uneven pipeline stages (Megatron-Core --decoder-first-pipeline-num-layers / --decoder-last-pipeline-
    # num-layers, TransformerConfig num_layers_in_first/last_pipeline_stage): the first and last stages hold
    # this many transformer layers, the others share the rest evenly. None = ceil(L / p) on every stage but
    # the last, which takes what is left (the search's split). Llama 3 405B: one layer fewer on the first and
    # the last of 16 stages (7, 8 x 14, 7).
    first_stage_layers: int | None = None
    last_stage_layers: int | None = None
    # the embedding and the loss counted as one layer slot each in the pipeline split (Megatron-Core
    # --account-for-embedding-in-pipeline-split / --account-for-loss-in-pipeline-split, TransformerConfig
    # fields of the same names; stages.py): (L + slots) / p per rank in v chunks, the first chunk of the
    # first rank and the last chunk of the last rank one layer fewer. Llama 3 405B: 128 slots on 16 ranks.
    account_for_embedding_in_pipeline_split: bool = False
    account_for_loss_in_pipeline_split: bool = False
    # Transformer Engine's op fuser for the experts' MLP (Megatron-Core use_transformer_engine_op_fuser):
    # the grouped linear layers, their biases and the gated activation with its clamp in fused ops. None =
    # off, Megatron-Core's default: a clamped activation and the experts' output biases then run in eager
    # passes (eager.eager_bytes)
    te_op_fuser: bool | None = None
    # context parallelism's exchange (Megatron-Core cp_comm_type): "p2p" (Transformer Engine's K/V ring) or
    # "a2a" (all-to-all of the queries, keys, values and output, DeepSpeed Ulysses); None = the ring, or the
    # all-to-all for a workload with a sliding window, which the ring does not run (context.uses_all_to_all)
    cp_comm_type: str | None = None
    # Megatron-Core's selective recompute by module (TransformerConfig recompute_modules, with recompute
    # "selective"; checkpointing.MODULES): None = its default, the attention core alone (the engine's
    # "selective"); each listed module's forward runs again in the backward pass (checkpointing.py)
    recompute_modules: tuple[str, ...] | None = None
    # how many times the pipeline schedule fills and drains per optimizer step. None = once, as Megatron-Core
    # runs every micro-batch of the step in one schedule; NeMo AutoModel's and torchtitan's gradient
    # accumulation with pipeline stages calls the schedule once per accumulation step (AutoModel's tables
    # print it as GA; recipes/llm/benchmark.py): each run has m / this many micro-batches, its own bubble and
    # its own pipeline-send chain
    pipeline_schedules: int | None = None
    # DeepSpeed's BF16_Optimizer (deepspeed/runtime/bf16_optimizer.py; bf16 with ZeRO stage 0, as BLOOM ran
    # it): after each micro-batch's backward pass every bf16 gradient is cast and added into an fp32 copy
    # (update_hp_grads), a memory-bound pass over the stage's parameters (model._stage_times). None = off:
    # Megatron adds into its fp32 main gradients inside the weight-gradient GEMM
    # (gradient_accumulation_fusion)
    bf16_optimizer: bool | None = None
    # the cross-entropy loss's implementation (loss.CROSS_ENTROPY_IMPLS): "unfused" (Megatron-Core's default
    # vocab-parallel ops), "native" (its fused kernels, cross_entropy_loss_fusion) or "te" (Transformer
    # Engine's, cross_entropy_fusion_impl "te"); None = the GPU generation's framework default
    # (loss.default_for), resolved before evaluation and stated
    cross_entropy: str | None = None

    @property
    def gpus(self) -> int:
        return self.tp * self.pp * self.dp * self.cp

    @property
    def expert_tp(self) -> int:
        return self.tp if self.etp is None else self.etp

    def to_dict(self) -> dict[str, Any]:
        # every field is a scalar: what dataclasses.asdict gives, without its recursive deep copy
        d = {f.name: getattr(self, f.name) for f in fields(self)}
        d["etp"] = self.expert_tp
        unset_stays_out = (
            "te_op_fuser",
            "cp_comm_type",
            "recompute_modules",
            "pipeline_schedules",
            "cross_entropy",
        )
        for key in (*unset_stays_out, "bf16_optimizer"):
            if d[key] is None:
                d.pop(key)  # unset stays out of the answer's layout, as before the key existed
        if self.recompute_modules is not None:
            d["recompute_modules"] = list(self.recompute_modules)
        return d

    def with_overlap(self, defaults: dict[str, bool]) -> Layout:
        """This layout with every unset overlap flag taken from `defaults`."""
        unset: dict[str, Any] = {k: defaults[k] for k in OVERLAP_FLAGS if getattr(self, k) is None}
        return replace(self, **unset) if unset else self

    def with_dispatcher(self, dispatcher: str) -> Layout:
        """This layout with its MoE token dispatcher set."""
        return replace(self, moe_dispatcher=dispatcher)

    def with_ep_overlap(self, overlap: bool) -> Layout:
        """This layout with its expert-parallel all-to-all overlap set."""
        return replace(self, overlap_moe_expert_parallel_comm=overlap)

    def grid(self) -> dict[str, Any]:
        g: dict[str, Any] = {
            "tp": self.tp,
            "pp": self.pp,
            "dp": self.dp,
            "cp": self.cp,
            "ep": self.ep,
            "etp": self.expert_tp,
            "zero": self.zero,
            "mb": self.micro_batch,
            "rec": RECOMPUTE_CODES[self.recompute_code],
            "sp": self.sequence_parallel,
            "v": self.virtual_stages,
        }
        for name, key in OVERLAP_GRID_KEYS.items():
            value = getattr(self, name)
            if value is not None:
                g[key] = bool(value)
        if self.pipeline_engine == "deepspeed":
            g["dsp"] = True
        if self.grad_reduce_in_fp32 is not None:
            g["gr32"] = self.grad_reduce_in_fp32
        if not self.reshard_after_forward:
            g["raf"] = False
        if self.zero3_gather is not None:
            g["z3flat"] = self.zero3_gather == ZERO3_FLAT
        if self.moe_dispatcher is not None:
            g["dedup"] = self.moe_dispatcher == DISPATCHER_DEDUP
        if self.overlap_moe_expert_parallel_comm:
            g["epo"] = True
        if self.te_op_fuser:
            g["opf"] = True
        if self.bf16_optimizer:
            g["bf16o"] = True
        if self.cp_comm_type is not None:
            g["cpa2a"] = self.cp_comm_type == CP_ALL_TO_ALL
        for module in (self.recompute_modules or ()) if self.module_recompute else ():
            if module in CK.GRID_KEYS:
                g[CK.GRID_KEYS[module]] = True
        if self.first_stage_layers is not None or self.last_stage_layers is not None:
            g["fsl"], g["lsl"] = self.stage_layers_ends
        if self.account_for_embedding_in_pipeline_split or self.account_for_loss_in_pipeline_split:
            g["aemb"] = float(self.account_for_embedding_in_pipeline_split)
            g["aloss"] = float(self.account_for_loss_in_pipeline_split)
        if self.pipeline_schedules is not None:
            g["sched"] = float(self.pipeline_schedules)
        if self.cross_entropy is not None:
            g[LOSS.GRID_KEY] = LOSS.grid_code(self.cross_entropy)
        return g

    @property
    def recompute_code(self) -> str:
        """The recompute mode the activation model reads: "selective" keeps no attention scores only when
        the attention core is among the recomputed modules (Megatron-Core's default list is that alone)."""
        if self.module_recompute and CK.CORE_ATTN not in (self.recompute_modules or ()):
            return "none"
        return self.recompute

    @property
    def module_recompute(self) -> bool:
        """Whether the layout recomputes by module: a module list with selective recompute."""
        return self.recompute_modules is not None and self.recompute == "selective"

    @property
    def stage_layers_ends(self) -> tuple[int, int]:
        """Layers of the first and last stages as set (0 where unset: the model's even split decides)."""
        return self.first_stage_layers or 0, self.last_stage_layers or 0


# the keys of a layout dict: the Layout's fields
LAYOUT_KEYS = tuple(f.name for f in fields(Layout))


def _int(d: dict[str, Any], key: str, default: int, minimum: int = 1) -> int:
    v = d.get(key, default)
    if v is None:
        v = default
    check_float_range(f"layout.{key}", v)
    if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v) or float(v) != int(v):
        raise InputError(f"layout.{key}", _("must be an integer, got %(got)s", got=value_text(v)))
    if v < minimum:
        raise InputError(
            f"layout.{key}", _("must be >= %(least)s, got %(got)s", least=minimum, got=value_text(v))
        )
    if v > GPUS_MAX:  # no degree, micro-batch or stage count of a job the engine sizes is larger
        raise InputError(
            f"layout.{key}",
            _("must be at most %(most)s, got %(got)s", most=f"{GPUS_MAX:,}", got=value_text(v)),
        )
    return int(v)


def _pipeline_schedules(
    d: dict[str, Any], wl: Workload, pp: int, per_replica: tuple[int, int], notes: list[str]
) -> int | None:
    """pipeline_schedules: a whole number of micro-batches in each run of the schedule (the replica's m,
    Workload.micro_batches of (dp, micro_batch), divided by it); without pipeline stages it changes
    nothing."""
    if d.get("pipeline_schedules") is None:
        return None
    runs = _int(d, "pipeline_schedules", 1)
    if pp == 1:
        if runs > 1:
            notes.append("pipeline_schedules > 1 without pipeline parallelism has no effect: set to 1")
        return None
    micro = int(wl.micro_batches(*per_replica))
    if micro % runs:
        raise InputError(
            "layout.pipeline_schedules",
            _(
                "must divide the %(micro)s micro-batches of each data-parallel replica per step, got %(got)s",
                micro=f"{micro:,}",
                got=value_text(runs),
            ),
        )
    return runs if runs > 1 else None


def _check_size(gpus: int) -> None:
    """A layout's tp*pp*dp*cp within the largest job the engine sizes."""
    if gpus > GPUS_MAX:
        raise InputError(
            "layout",
            _(
                "tp*pp*dp*cp = %(gpus)s GPUs, more than the %(most)s the engine sizes",
                gpus=f"{gpus:,}",
                most=f"{GPUS_MAX:,}",
            ),
        )


def _flag(d: dict[str, Any], key: str) -> bool | None:
    v = d.get(key)
    if v is not None and not isinstance(v, bool):
        raise InputError(f"layout.{key}", _("must be true or false, got %(got)s", got=value_text(v)))
    return v


CP_RING = "p2p"
CP_ALL_TO_ALL = "a2a"
CP_COMM_TYPES = (CP_RING, CP_ALL_TO_ALL)


def _cp_comm_type(d: dict[str, Any]) -> str | None:
    return _optional_choice(d, "cp_comm_type", CP_COMM_TYPES)


def _optional_choice(d: dict[str, Any], key: str, allowed: tuple[str, ...]) -> str | None:
    """A layout setting that is unset (None) or one of `allowed`."""
    value = d.get(key)
    value = chosen(value, allowed) or value
    if value is not None and value not in allowed:
        raise InputError(
            f"layout.{key}",
            _("must be one of %(allowed)s, got %(got)s", allowed=", ".join(allowed), got=value_text(value)),
        )
    return value


def _recompute(d: dict[str, Any]) -> str:
    recompute = d.get("recompute", "selective")
    if recompute is True:
        recompute = "full"
    if recompute is False or recompute is None:  # not `in (False, None)`: 0 == False
        recompute = "none"
    recompute = chosen(recompute, tuple(RECOMPUTE_CODES)) or recompute
    if not isinstance(recompute, str) or recompute not in RECOMPUTE_CODES:
        raise InputError(
            "layout.recompute", _("must be none, selective or full, got %(got)s", got=value_text(recompute))
        )
    return str(recompute)


def _pipeline_engine(d: dict[str, Any], v: int) -> str:
    engine = d.get("pipeline_engine", "megatron")
    if engine is None:
        engine = "megatron"
    engine = chosen(engine, PIPELINE_ENGINES) or engine
    if engine not in PIPELINE_ENGINES:
        raise InputError(
            "layout.pipeline_engine",
            _(
                "must be one of %(allowed)s, got %(got)s",
                allowed=", ".join(PIPELINE_ENGINES),
                got=value_text(engine),
            ),
        )
    if engine == "deepspeed" and v > 1:
        raise InputError(
            "layout.pipeline_engine",
            _("DeepSpeed's pipeline engine has no interleaved schedule: virtual_stages 1"),
        )
    return str(engine)


def _zero3_gather(d: dict[str, Any]) -> str | None:
    return _optional_choice(d, "zero3_gather", ZERO3_GATHERS)


def _cross_entropy(d: dict[str, Any]) -> str | None:
    return _optional_choice(d, "cross_entropy", LOSS.CROSS_ENTROPY_IMPLS)


def _moe_dispatcher(d: dict[str, Any]) -> str | None:
    return _optional_choice(d, "moe_dispatcher", MOE_DISPATCHERS)


def _stage_layers(d: dict[str, Any], wl: Workload, pp: int) -> tuple[int | None, int | None]:
    """first_stage_layers / last_stage_layers: at least 1 each, only with pipeline stages, and leaving at
    least one layer to every middle stage (Megatron-Core's uneven split)."""
    ends = []
    for key in ("first_stage_layers", "last_stage_layers"):
        ends.append(None if d.get(key) is None else _int(d, key, 1))
    if ends == [None, None]:
        return None, None
    if pp < 2:
        raise InputError(
            "layout.first_stage_layers", _("uneven first/last stages need pipeline stages (pp >= 2)")
        )
    set_ends = [e for e in ends if e is not None]
    rest_stages = pp - len(set_ends)
    rest = wl.layers - sum(set_ends)
    if rest < rest_stages or (rest_stages == 0 and rest != 0):
        raise InputError(
            "layout.first_stage_layers",
            _(
                "first/last stage layers %(ends)s leave %(rest)s layers for the other %(stages)s stages of a "
                "%(layers)s-layer model",
                ends=ends,
                rest=rest,
                stages=rest_stages,
                layers=wl.layers,
            ),
        )
    return ends[0], ends[1]


PIPELINE_SLOT_FLAGS = ("account_for_embedding_in_pipeline_split", "account_for_loss_in_pipeline_split")


def _pipeline_slots(
    d: dict[str, Any], wl: Workload, pp: int, v: int, ends: tuple[int | None, int | None], notes: list[str]
) -> tuple[bool, bool]:
    """The embedding/loss slots, checked as Megatron-Core's TransformerConfig checks them: not with set
    first/last stage layers, and (L + slots) divisible by p, the slots per rank by v."""
    emb, loss = (bool(_flag(d, key)) for key in PIPELINE_SLOT_FLAGS)
    field = f"layout.{PIPELINE_SLOT_FLAGS[0] if emb else PIPELINE_SLOT_FLAGS[1]}"
    if not (emb or loss):
        return _implied_slots(d, wl, pp, v, ends, notes)
    if pp < 2:
        notes.append("the embedding/loss pipeline slots without pipeline parallelism have no effect: unset")
        return False, False
    if ends != (None, None):
        raise InputError(
            field, _("cannot be set with first_stage_layers / last_stage_layers (Megatron-Core)")
        )
    slots = wl.layers + emb + loss
    if slots % pp or (slots // pp) % v:
        raise InputError(
            field,
            _(
                "%(layers)s layers + %(extra)s slots = %(slots)s must split evenly over pp=%(pp)s stages and "
                "their virtual_stages=%(v)s chunks",
                layers=wl.layers,
                extra=emb + loss,
                slots=slots,
                pp=pp,
                v=v,
            ),
        )
    return emb, loss


def _implied_slots(
    d: dict[str, Any], wl: Workload, pp: int, v: int, ends: tuple[int | None, int | None], notes: list[str]
) -> tuple[bool, bool]:
    """Both slots where the layout names neither flag nor uneven ends and has more model chunks (pp x v)
    than layers, yet L + 2 splits exactly over them: Megatron-Core runs such a layout only with the
    embedding and the loss counted as pipeline layers (its other ways, uneven ends or a custom pipeline
    layout, cannot give every chunk a layer either). Qwen3-235B's 94 layers on PP32 x 3 chunks and Llama
    3.1 405B's 126 on PP16 x 8 are published so, with both flags set in their recipes."""
    if any(key in d for key in PIPELINE_SLOT_FLAGS) or ends != (None, None) or pp < 2:
        return False, False
    chunks, slots = pp * v, wl.layers + 2
    if chunks <= wl.layers or slots % pp or (slots // pp) % v:
        return False, False
    notes.append(
        _(
            "%(chunks)s model chunks (pp x virtual_stages) for %(layers)s layers: the embedding and the "
            "loss counted as pipeline layers assumed, the only split that gives every chunk a layer "
            "(Megatron-Core account_for_embedding_in_pipeline_split and account_for_loss_in_pipeline_split); "
            "set them to false to have the layout evaluated without",
            chunks=chunks,
            layers=wl.layers,
        )
    )
    return True, True


def tp_aligned(tp: int, gpus_per_node: int, domain_gpus: int | None = None) -> bool:
    """Whether every tensor-parallel group of degree `tp` lies inside one node or over whole nodes, or inside
    one NVLink domain wider than a node (TP=6 in a GB200 NVL72 rack of 4-GPU trays): the placement the time
    model prices. TP=4 on 6-GPU nodes puts some groups across the network. The rule of a given layout
    (layout_from_dict) and of the degrees the search forms (search.tp_degrees)."""
    if gpus_per_node % tp == 0 or tp % gpus_per_node == 0:
        return True
    return domain_gpus is not None and domain_gpus > gpus_per_node and domain_gpus % tp == 0


def _check_tp_on_nodes(tp: int, gpus_per_node: int | None, domain_gpus: int | None, gpus: int) -> None:
    """A layout's TP degree placed as the time model prices it (tp_aligned); a job that fits in one node has
    no group to straddle."""
    if gpus_per_node is None or gpus <= gpus_per_node or tp_aligned(tp, gpus_per_node, domain_gpus):
        return
    raise InputError(
        "layout.tp",
        _(
            "TP=%(tp)s neither divides the %(node)s GPUs per node nor is a multiple of them: some "
            "tensor-parallel groups would straddle two nodes (use a divisor of %(node)s, or a multiple)",
            tp=tp,
            node=gpus_per_node,
        ),
    )


def _check_heads_and_experts(wl: Workload, tp: int, ep: int) -> None:
    if wl.heads % tp:
        raise InputError(
            "layout.tp", _("TP=%(tp)s does not divide the %(heads)s attention heads", tp=tp, heads=wl.heads)
        )
    if wl.kv_heads % tp:
        raise InputError(
            "layout.tp", _("TP=%(tp)s does not divide the %(heads)s KV heads", tp=tp, heads=wl.kv_heads)
        )
    if wl.moe is None and ep > 1:
        raise InputError("layout.ep", _("EP=%(ep)s but the workload has no experts", ep=ep))
    if wl.moe is not None and wl.moe.experts % ep:
        raise InputError(
            "layout.ep", _("EP=%(ep)s does not divide the %(experts)s experts", ep=ep, experts=wl.moe.experts)
        )


def _data_parallel(d: dict[str, Any], gpus: int | None, tp: int, pp: int, cp: int, notes: list[str]) -> int:
    if d.get("dp") is not None:
        dp = _int(d, "dp", 1)
        if gpus is not None and tp * pp * dp * cp != gpus:
            raise InputError(
                "gpus",
                _(
                    "%(gpus)s GPUs but the layout uses tp*pp*dp*cp = %(used)s",
                    gpus=gpus,
                    used=tp * pp * dp * cp,
                ),
            )
        return dp
    if gpus is not None:
        if gpus % (tp * pp * cp):
            raise InputError(
                "layout.dp",
                _("%(gpus)s GPUs are not divisible by tp*pp*cp = %(used)s", gpus=gpus, used=tp * pp * cp),
            )
        return gpus // (tp * pp * cp)
    notes.append("layout without dp and no --gpus: dp = 1 assumed")
    return 1


def default_expert_tp(moe: bool, tp: int, ep: int, ranks: Any, fold: bool) -> Any:
    """The expert tensor parallelism of a layout that does not state `etp`, elementwise over `ranks` (its
    TP x DP x CP): with folding (the GPU generation's framework, overlap.folds_experts), an MoE layout with
    TP > 1 and EP > 1 takes ETP = 1; otherwise Megatron-Core's default, ETP = TP, unless that cannot hold the
    EP while ETP = 1 can. The search forms only this ETP, so that an answer's layout given back without
    `etp` is the same layout (fitting.choosable may still move a folded layout that fails on memory)."""
    ranks = np.asarray(ranks)
    if moe and tp > 1 and ep > 1 and fold:
        return np.ones_like(ranks)
    only_folded = (ranks % (ep * tp) != 0) & (ranks % ep == 0)
    return np.where(only_folded, 1, tp)


def _unstated_expert_tp(
    d: dict[str, Any],
    wl: Workload,
    degrees: tuple[int, int, int, int],
    etp: int,
    fold: bool,
    notes: list[str],
) -> int:
    """The expert tensor parallelism of a layout that does not state `etp` (`etp` as parsed otherwise)."""
    tp, dp, cp, ep = degrees
    if "etp" in d:
        return etp
    moe = wl.moe is not None
    etp = int(default_expert_tp(moe, tp, ep, tp * dp * cp, fold))
    if moe and tp > 1 and ep > 1 and fold:
        # Megatron-Core 0.10+ separates the experts' tensor parallelism from the dense layers' ("MoE
        # parallel folding"); NVIDIA's MoE recipes since (DeepSeek-V3, Qwen3, GPT-OSS, Kimi K2) set ETP = 1
        notes.append(
            _(
                "expert tensor parallelism not given: ETP = 1 assumed with TP=%(tp)s (experts folded over "
                "the dense ranks, as in NVIDIA's Megatron-Core MoE recipes for Hopper and later); set etp in "
                "the layout for a stack that shards experts by TP",
                tp=tp,
            )
        )
    elif etp != tp:
        # Megatron-Core's default (ETP = TP) cannot hold this EP, so the run, if it ran, folded its experts
        # without tensor parallelism, as every published MoE recipe with TP > 1 does (ETP = 1)
        notes.append(
            _(
                "expert tensor parallelism not given: ETP = 1 assumed, the only value under which EP=%(ep)s "
                "fits TP=%(tp)s x DP=%(dp)s x CP=%(cp)s (Megatron-Core's default, ETP = TP, does not)",
                ep=ep,
                tp=tp,
                dp=dp,
                cp=cp,
            )
        )
    return etp


def _check_folding(wl: Workload, degrees: tuple[int, int, int, int], etp: int) -> None:
    """The experts fold over the dense layers' ranks; context parallelism splits the sequence evenly."""
    tp, dp, cp, ep = degrees
    if (tp * dp * cp) % (ep * etp):
        raise InputError(
            "layout.ep",
            _(
                "EP=%(ep)s x ETP=%(etp)s must divide tp*dp*cp = %(ranks)s (Megatron-Core folds the experts "
                "over the ranks of the dense layers)",
                ep=ep,
                etp=etp,
                ranks=tp * dp * cp,
            ),
        )
    if wl.seq_len % cp:
        raise InputError(
            "layout.cp", _("CP=%(cp)s does not divide the sequence length %(seq)s", cp=cp, seq=wl.seq_len)
        )


def _recompute_modules(
    d: dict[str, Any], wl: Workload, recompute: str, notes: list[str]
) -> tuple[str, ...] | None:
    """Megatron-Core's recompute_modules: a list of its module names, with selective recompute only; the
    modules the engine does not model are named in the answer's assumptions."""
    value = d.get("recompute_modules")
    if value is None:
        return None
    allowed = ", ".join(CK.MODULES)
    if not isinstance(value, list | tuple) or any(
        not isinstance(m, str) or m not in CK.MODULES for m in value
    ):
        raise InputError(
            "layout.recompute_modules",
            _("must be a list of %(allowed)s, got %(got)s", allowed=allowed, got=value_text(value)),
        )
    if recompute != "selective":
        raise InputError(
            "layout.recompute_modules",
            _("applies to selective recompute only, but recompute is %(recompute)s", recompute=recompute),
        )
    modules = tuple(m for m in CK.MODULES if m in value)  # Megatron-Core's order, once each
    # Megatron-Core refuses these (transformer_config.py: moe_act only with grouped expert GEMMs, mla_up_proj
    # only with multi-head latent attention)
    if CK.MOE_ACT in modules and wl.moe is None:
        raise InputError("layout.recompute_modules", _("moe_act needs a workload with experts (moe)"))
    if CK.MLA_UP_PROJ in modules and not wl.latent_attention:
        raise InputError(
            "layout.recompute_modules",
            _("mla_up_proj needs multi-head latent attention (qk_head_dim and v_head_dim)"),
        )
    unmodelled = [m for m in modules if m not in CK.MODELLED]
    if CK.MLA_UP_PROJ in modules and wl.latent_up_params is None:  # its GEMMs need the low ranks
        notes.append(
            _(
                "recompute of mla_up_proj not modelled: the workload does not state q_lora_rank, "
                "kv_lora_rank and qk_rope_head_dim, so its outputs are counted as kept (more memory) and its "
                "rerun is not charged (less time)"
            )
        )
    if unmodelled:
        notes.append(
            _(
                "recompute of %(modules)s not modelled: the outputs are counted as kept (more memory) and "
                "the rerun is not charged (less time); ask for a measured step time",
                modules=", ".join(unmodelled),
            )
        )
    return modules


def layout_from_dict(
    d: dict[str, Any] | None,
    wl: Workload,
    gpus: int | None = None,
    *,
    fold_experts: bool = False,
    gpus_per_node: int | None = None,
    domain_gpus: int | None = None,
) -> tuple[Layout, list[str]]:
    """Parse and check a layout. Shape inconsistencies are InputErrors; a layout that does not fit is not
    an error (the evaluation answers `feasible: false`). `fold_experts`: the GPU's framework generation
    folds MoE experts without tensor parallelism when the layout does not state `etp` (ETP = 1).
    `gpus_per_node`: the offering's, which a TP degree must divide or be a multiple of (or, in an NVLink
    domain wider than a node, `domain_gpus`, divide)."""
    d = dict(d or {})
    if not isinstance(d, dict):
        raise InputError("layout", _("must be a JSON object"))
    unknown = set(d) - set(LAYOUT_KEYS) - {"optimizer"}
    if unknown:
        raise InputError(f"layout.{sorted(unknown)[0]}", _("unknown key"))
    notes: list[str] = []
    tp, pp, cp, ep = (_int(d, key, 1) for key in ("tp", "pp", "cp", "ep"))
    etp = _int(d, "etp", tp)
    zero = _int(d, "zero", 1, minimum=0)
    if zero > 3:
        raise InputError("layout.zero", _("must be 0-3, got %(got)s", got=value_text(zero)))
    mb = _int(d, "micro_batch", 1)
    v = _int(d, "virtual_stages", 1)
    recompute = _recompute(d)
    recompute_modules = _recompute_modules(d, wl, recompute, notes)
    sp_raw = _flag(d, "sequence_parallel")
    sp = bool(sp_raw) if sp_raw is not None else tp > 1
    flags = {k: _flag(d, k) for k in OVERLAP_FLAGS}
    _check_heads_and_experts(wl, tp, ep)
    dp = _data_parallel(d, gpus, tp, pp, cp, notes)
    job_gpus = tp * pp * dp * cp
    _check_tp_on_nodes(tp, gpus_per_node, domain_gpus, job_gpus)
    _check_size(job_gpus)
    etp = _unstated_expert_tp(d, wl, (tp, dp, cp, ep), etp, fold_experts, notes)
    _check_folding(wl, (tp, dp, cp, ep), etp)
    if pp == 1 and v > 1:
        notes.append("virtual_stages > 1 without pipeline parallelism has no effect: set to 1")
        v = 1
    engine = _pipeline_engine(d, v)
    first_layers, last_layers = _stage_layers(d, wl, pp)
    slot_emb, slot_loss = _pipeline_slots(d, wl, pp, v, (first_layers, last_layers), notes)
    schedules = _pipeline_schedules(d, wl, pp, (dp, mb), notes)
    lay = Layout(
        tp,
        pp,
        dp,
        cp,
        ep,
        zero,
        mb,
        recompute,
        sp,
        v,
        etp=etp if etp != tp else None,
        **flags,
        pipeline_engine=engine,
        grad_reduce_in_fp32=_flag(d, "grad_reduce_in_fp32"),
        reshard_after_forward=_flag(d, "reshard_after_forward") is not False,
        zero3_gather=_zero3_gather(d),
        moe_dispatcher=_moe_dispatcher(d),
        overlap_moe_expert_parallel_comm=_flag(d, "overlap_moe_expert_parallel_comm"),
        te_op_fuser=_flag(d, "te_op_fuser"),
        cp_comm_type=_cp_comm_type(d),
        recompute_modules=recompute_modules,
        first_stage_layers=first_layers,
        last_stage_layers=last_layers,
        account_for_embedding_in_pipeline_split=slot_emb,
        account_for_loss_in_pipeline_split=slot_loss,
        pipeline_schedules=schedules,
        bf16_optimizer=_flag(d, "bf16_optimizer"),
        cross_entropy=_cross_entropy(d),
    )
    return lay, notes
