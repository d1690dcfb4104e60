"""Plain-English reasons for a layout ("TP=8 keeps tensor traffic on NVSwitch; PP=16 because ...").

Each helper writes the sentences about one dimension of the layout from the result dict `result` (the
DESIGN section 5 output being built), so every number quoted is the one the buyer sees. Each sentence is a
`Msg` (hardware.messages): the English text, plus its message id and values for a page in another language.
"""

from __future__ import annotations

from typing import Any

from hardware.messages import Msg, _, joined, ngettext

from . import checkpointing as CK
from . import constants as C
from . import loss as LOSS
from .hardware import Hardware
from .layout import CP_ALL_TO_ALL, CP_RING, Layout
from .model import uses_flash_attention
from .overlap import DISPATCHER_ALLTOALL, DISPATCHER_DEDUP
from .workload import Workload
from .zero import ZERO3_FLAT, ZERO3_PER_TENSOR, per_tensor_gathers

INTRA_NODE_LINK = {
    "nvswitch": _("NVSwitch"),
    "nvlink-mesh": _("the NVLink/xGMI mesh"),
    "nvlink-bridge": _("NVLink bridges"),
    "pcie": _("PCIe"),
}
RECOMPUTE_TEXT = {
    "none": _("no activation recomputation"),
    "selective": _("selective recomputation (attention scores only)"),
    "full": _("full recomputation (the forward pass runs twice)"),
}


def _pct(part: float, whole: float) -> str:
    """A share in whole percent; a share that is there but rounds to 0 is `<1%`, never `0%`."""
    share = 100.0 * part / whole if whole > 0 else 0.0
    return "<1%" if 0.0 < share < 0.5 else f"{share:.0f}%"


def _share(result: dict[str, Any], part: str) -> str:
    """The share of the iteration that the breakdown's `part` costs."""
    return _pct(result["iteration_breakdown_s"][part], result["iteration_time_s"])


def _tensor_parallel(hw: Hardware, lay: Layout, result: dict[str, Any]) -> list[str]:
    gpus_per_node = hw.gpus_per_node
    intra = f"{hw.intra_busbw / C.GB:.0f}"
    inter_per_gpu = hw.node_busbw / C.GB / gpus_per_node
    out: list[str] = []
    if lay.tp == 1:
        out.append(
            _("TP=1: no tensor parallelism, so no per-layer all-reduces; the model is split by other means.")
        )
    elif lay.tp <= gpus_per_node:
        out.append(
            _(
                "TP=%(tp)s keeps the per-layer tensor-parallel all-reduces inside the node on %(link)s "
                "(~%(intra)s GB/s bus bandwidth vs ~%(inter)s GB/s per GPU between nodes); they cost "
                "%(share)s of the iteration.",
                tp=lay.tp,
                link=INTRA_NODE_LINK[hw.intra_node],
                intra=intra,
                inter=f"{inter_per_gpu:.0f}",
                share=_share(result, "tp_comm"),
            )
        )
    else:
        out.append(
            _(
                "TP=%(tp)s spans %(nodes)s nodes: its all-reduces run over the inter-node fabric "
                "(~%(inter)s GB/s per node) and cost %(share)s of the iteration.",
                tp=lay.tp,
                nodes=lay.tp // gpus_per_node,
                inter=f"{inter_per_gpu * gpus_per_node:.0f}",
                share=_share(result, "tp_comm"),
            )
        )
    if hw.intra_node == "pcie" and lay.tp > 1:
        out.append(
            _(
                "GPUs in a node only talk over PCIe (~%(intra)s GB/s), which makes tensor parallelism "
                "costly.",
                intra=intra,
            )
        )
    return out


def _bubble(lay: Layout, result: dict[str, Any]) -> Msg:
    values = {"micro_batches": result["micro_batches_per_iteration"], "share": _share(result, "bubble")}
    if lay.pipeline_schedules is not None:
        return _(
            "with %(micro_batches)s micro-batches per replica run as %(runs)s fills and drains of the "
            "pipeline (gradient accumulation over the schedule), each with its own bubble, the bubbles cost "
            "%(share)s.",
            runs=lay.pipeline_schedules,
            **values,
        )
    if lay.virtual_stages > 1:
        return _(
            "with %(micro_batches)s micro-batches per replica the bubble (p-1)/(v m) costs %(share)s, cut by "
            "%(virtual)s virtual stages.",
            virtual=lay.virtual_stages,
            **values,
        )
    return _(
        "with %(micro_batches)s micro-batches per replica the bubble (p-1)/(v m) costs %(share)s.", **values
    )


def _pipeline(wl: Workload, hw: Hardware, lay: Layout, result: dict[str, Any]) -> list[str]:
    if lay.pp == 1:
        return [_("PP=1: the model states fit without pipeline stages, so there is no pipeline bubble.")]
    mem = result["memory_gib_per_gpu"]
    states = mem["weights"] + mem["grads"] + mem["optimizer"]
    out: list[str] = [
        _(
            "PP=%(pp)s splits the %(layers)s layers into stages of at most %(per_stage)s so weights, "
            "gradients and optimizer state fit (%(states)s GiB per GPU); %(bubble)s",
            pp=lay.pp,
            layers=wl.layers,
            per_stage=result["layers_per_stage_max"],
            states=f"{states:.1f}",
            bubble=_bubble(lay, result),
        )
    ]
    if lay.tp * lay.cp * lay.dp >= hw.gpus_per_node:
        out.append(
            _(
                "Pipeline stages sit on different nodes: only one activation per micro-batch crosses the "
                "fabric, costing %(share)s.",
                share=_share(result, "pp_comm"),
            )
        )
    return out


def _dp_traffic(lay: Layout, result: dict[str, Any]) -> Msg:
    values = {"dp": lay.dp, "seconds": f"{result['iteration_breakdown_s']['dp_comm']:.2f}"}
    if lay.zero > 2:
        return _(
            "DP=%(dp)s replicas; the parameter gathers and gradient reduce-scatters add %(seconds)s s per "
            "iteration after the part hidden behind compute.",
            **values,
        )
    if not lay.overlap_grad_reduce:
        return _(
            "DP=%(dp)s replicas; the gradient reduction adds %(seconds)s s per iteration, none of it hidden: "
            "it waits for the end of the backward pass instead of starting bucket by bucket (Megatron's "
            "overlap_grad_reduce off).",
            **values,
        )
    return _(
        "DP=%(dp)s replicas; the gradient reduction adds %(seconds)s s per iteration after the part hidden "
        "behind compute (bucket by bucket behind the last micro-batch's backward pass, Megatron's "
        "overlap_grad_reduce).",
        **values,
    )


def _zero(hw: Hardware, lay: Layout, micro_batches: int, convention: str | None = None) -> Msg:
    if lay.zero == 0:
        return _("ZeRO-0: every DP rank keeps the full optimizer state.")
    if lay.zero == 1 and convention in C.MUON_CONVENTIONS:
        return _(
            "ZeRO-1 (Muon's layer-wise distributed optimizer) gives each DP rank whole weights to update and "
            "gathers the updated weights from the other ranks after the step."
        )
    if lay.zero == 1:
        return _(
            "ZeRO-1 (Megatron's distributed optimizer) shards the optimizer state over DP, no extra traffic."
        )
    if lay.zero == 2:
        if micro_batches == 1:
            return _(
                "ZeRO-2 also shards gradients over DP; with one micro-batch per step they are "
                "reduce-scattered once, no more traffic than ZeRO-1."
            )
        return _(
            "ZeRO-2 also shards gradients over DP, so they are reduce-scattered for every one of the "
            "%(micro_batches)s micro-batches instead of once per step.",
            micro_batches=micro_batches,
        )
    return _zero3(hw, lay, micro_batches)


def _zero3_overlap(hw: Hardware, lay: Layout) -> Msg:
    """How much of each pass prefetching hides the ZeRO-3 collectives behind (zero._zero3)."""
    if per_tensor_gathers(hw, lay.zero3_gather):
        return _(
            "prefetching hides them behind at most %(hidden)s%% of each pass's compute",
            hidden=int(100 * C.ZERO3_OVERLAP),
        )
    return _("prefetching hides them behind each pass's compute, all but one layer's share")


def _zero3(hw: Hardware, lay: Layout, micro_batches: int) -> Msg:
    overlap = _zero3_overlap(hw, lay)
    if not lay.reshard_after_forward:
        if micro_batches == 1:
            return _(
                "ZeRO-3 also shards the weights: the one micro-batch all-gathers them once in the forward "
                "pass and keeps them until its backward (reshard_after_forward off), then reduce-scatters "
                "its gradients (the traffic of one all-reduce; %(overlap)s).",
                overlap=overlap,
            )
        return _(
            "ZeRO-3 also shards the weights: each of the %(micro_batches)s micro-batches all-gathers them "
            "once in the forward pass and keeps them until its backward (reshard_after_forward off), then "
            "reduce-scatters its gradients (the traffic of one all-reduce per micro-batch; %(overlap)s).",
            micro_batches=micro_batches,
            overlap=overlap,
        )
    if micro_batches == 1:
        return _(
            "ZeRO-3 also shards the weights: the one micro-batch all-gathers them in the forward and again "
            "in the backward pass and reduce-scatters its gradients (1.5x the data-parallel traffic; "
            "%(overlap)s).",
            overlap=overlap,
        )
    return _(
        "ZeRO-3 also shards the weights: each of the %(micro_batches)s micro-batches all-gathers them in the "
        "forward and again in the backward pass and reduce-scatters its gradients (1.5x the data-parallel "
        "traffic per micro-batch; %(overlap)s).",
        micro_batches=micro_batches,
        overlap=overlap,
    )


def _data_parallel(
    hw: Hardware, lay: Layout, result: dict[str, Any], convention: str | None = None
) -> list[str]:
    out: list[str] = [_dp_traffic(lay, result)] if lay.dp > 1 else []
    out.append(_zero(hw, lay, result["micro_batches_per_iteration"], convention))
    return out


def _expert_and_context(lay: Layout, result: dict[str, Any]) -> list[str]:
    out: list[str] = []
    if lay.ep > 1:
        values = {"ep": lay.ep, "share": _share(result, "ep_comm")}
        if lay.expert_tp != lay.tp:
            out.append(
                _(
                    "EP=%(ep)s spreads the experts over %(ep)s ranks with ETP=%(etp)s, folded over the TP x "
                    "DP ranks (Megatron-Core expert tensor parallelism); the token all-to-alls cost "
                    "%(share)s of the iteration.",
                    etp=lay.expert_tp,
                    **values,
                )
            )
        else:
            out.append(
                _(
                    "EP=%(ep)s spreads the experts over %(ep)s ranks; the token all-to-alls cost %(share)s "
                    "of the iteration.",
                    **values,
                )
            )
        if lay.overlap_moe_expert_parallel_comm:
            out.append(
                _(
                    "The all-to-alls of one micro-batch run under another micro-batch's compute "
                    "(overlap_moe_expert_parallel_comm): the share above is what stays exposed, with the "
                    "compute slowed by the SMs the communication holds."
                )
            )
    if lay.cp > 1:
        out.append(
            _(
                "CP=%(cp)s splits each sequence for attention; K/V exchange costs %(share)s.",
                cp=lay.cp,
                share=_share(result, "cp_comm"),
            )
        )
    return out


def _recompute_text(lay: Layout) -> Any:
    """The recompute mode in words; by module, the modules Megatron-Core names (layout.recompute_modules)."""
    if not lay.module_recompute:
        return RECOMPUTE_TEXT[lay.recompute]
    if not lay.recompute_modules:
        return RECOMPUTE_TEXT["none"]
    return _("selective recomputation of %(modules)s", modules=", ".join(lay.recompute_modules or ()))


def _activations(lay: Layout, result: dict[str, Any]) -> Msg:
    mem = result["memory_gib_per_gpu"]
    values = {
        "recompute": _recompute_text(lay),
        "activations": f"{mem['activations']:.1f}",
        "total": f"{mem['total']:.1f}",
        "hbm": f"{result['hbm_gib_per_gpu']:.1f}",
    }
    if lay.sequence_parallel and lay.tp > 1:
        return _(
            "Activations: %(recompute)s with sequence parallelism, %(activations)s GiB; %(total)s of %(hbm)s "
            "GiB used per GPU.",
            **values,
        )
    return _(
        "Activations: %(recompute)s, %(activations)s GiB; %(total)s of %(hbm)s GiB used per GPU.", **values
    )


def _memory_and_speed(lay: Layout, result: dict[str, Any], flash: bool) -> list[str]:
    speed = _(
        "Predicted %(tflops)s model TFLOP/s per GPU (MFU %(mfu)s%%), %(days)s days including failures "
        "(goodput %(goodput)s%%).",
        tflops=f"{result['model_tflops_per_gpu']:.0f}",
        mfu=f"{100 * result['mfu']:.1f}",
        days=f"{result['train_days']:.1f}",
        goodput=f"{100 * result['goodput']['fraction']:.1f}",
    )
    return [_activations(lay, result), *_attention_recompute(lay, result, flash), speed] + _spares(result)


def _attention_recompute(lay: Layout, result: dict[str, Any], flash: bool) -> list[Msg]:
    """Why the iteration lists recomputed forward work when the layout recomputes no activations: fused
    attention kernels (FlashAttention) recompute the attention scores in the backward pass by design
    (constants.FLASH_BWD_RECOMPUTE). With unfused attention that work is the selective recomputation the
    activations line already names."""
    if not flash or lay.recompute == "full" or result["iteration_breakdown_s"]["recompute"] <= 0:
        return []
    return [
        _(
            "The fused attention kernels still recompute the attention scores in the backward pass, as "
            "FlashAttention does by design: %(share)s of the step, listed as recomputed forward work.",
            share=_share(result, "recompute"),
        )
    ]


def _spares(result: dict[str, Any]) -> list[str]:
    goodput = result["goodput"]
    spares = int(goodput.get("spare_nodes") or 0)
    if not spares:
        return []
    return [
        ngettext(
            "%(spares)s spare node held and billed beside the %(nodes)s job nodes: a failed node is out for "
            "%(repair)s min, and with %(failures)s failures expected the job would otherwise wait for each "
            "replacement.",
            "%(spares)s spare nodes held and billed beside the %(nodes)s job nodes: a failed node is out for "
            "%(repair)s min, and with %(failures)s failures expected the job would otherwise wait for each "
            "replacement.",
            spares,
            spares=spares,
            nodes=result["nodes"],
            repair=f"{goodput['repair_min']:.0f}",
            failures=f"{goodput['expected_failures']:.0f}",
        )
    ]


def explain(
    wl: Workload, hw: Hardware, lay: Layout, r: dict[str, Any], convention: str | None = None
) -> list[str]:
    """Why each dimension of `lay` is what it is, from its result `r` (under the optimizer-state
    `convention`)."""
    return (
        _tensor_parallel(hw, lay, r)
        + _pipeline(wl, hw, lay, r)
        + _data_parallel(hw, lay, r, convention)
        + _expert_and_context(lay, r)
        + _memory_and_speed(lay, r, uses_flash_attention(wl, hw))
    )


DEGREE_KEYS = ("tp", "pp", "dp", "cp", "ep", "etp")


# Every other layout key (layout.LAYOUT_KEYS) in words, by its value: what a runner-up changes is named as a
# buyer reads it, never by the key a layout file types (tests/sizing/test_search.py covers each key).
SETTING_WORDS: dict[str, dict[Any, Msg]] = {
    "tp_comm_overlap": {
        True: _("tensor-parallel communication overlapped with compute"),
        False: _("tensor-parallel communication not overlapped"),
        None: _("tensor-parallel communication overlapped as the framework does by default"),
    },
    "overlap_grad_reduce": {
        True: _("gradient reduction overlapped with compute"),
        False: _("gradient reduction not overlapped"),
        None: _("gradient reduction overlapped as the framework does by default"),
    },
    "overlap_param_gather": {
        True: _("parameter gathers overlapped with compute"),
        False: _("parameter gathers not overlapped"),
        None: _("parameter gathers overlapped as the framework does by default"),
    },
    "overlap_p2p_comm": {
        True: _("pipeline sends overlapped with compute"),
        False: _("pipeline sends not overlapped"),
        None: _("pipeline sends overlapped as the framework does by default"),
    },
    "pipeline_engine": {
        "megatron": _("Megatron's pipeline engine"),
        "deepspeed": _("DeepSpeed's pipeline engine"),
    },
    "grad_reduce_in_fp32": {
        True: _("gradients reduced in fp32"),
        False: _("gradients reduced in the training precision"),
        None: _("gradients reduced in the precision the optimizer keeps them"),
    },
    "reshard_after_forward": {
        True: _("weights resharded after the forward pass"),
        False: _("weights kept gathered until the backward pass"),
    },
    "zero3_gather": {
        ZERO3_PER_TENSOR: _("ZeRO-3 gathers tensor by tensor"),
        ZERO3_FLAT: _("ZeRO-3 gathers in one flat buffer per layer"),
        None: _("ZeRO-3 gathers as the framework does by default"),
    },
    "moe_dispatcher": {
        DISPATCHER_ALLTOALL: _("the all-to-all token dispatcher"),
        DISPATCHER_DEDUP: _("the DeepEP token dispatcher"),
        None: _("the framework's default token dispatcher"),
    },
    "overlap_moe_expert_parallel_comm": {
        True: _("expert-parallel communication overlapped"),
        False: _("expert-parallel communication not overlapped"),
        None: _("expert-parallel communication not overlapped"),
    },
    "account_for_embedding_in_pipeline_split": {
        True: _("the embedding counted as a pipeline layer"),
        False: _("the embedding not counted as a pipeline layer"),
    },
    "account_for_loss_in_pipeline_split": {
        True: _("the loss counted as a pipeline layer"),
        False: _("the loss not counted as a pipeline layer"),
    },
    "te_op_fuser": {
        True: _("the experts' layers in fused ops (Transformer Engine's op fuser)"),
        False: _("the experts' layers in separate ops"),
        None: _("the experts' layers in separate ops"),
    },
    "bf16_optimizer": {
        True: _("gradients added into an fp32 copy after every micro-batch (DeepSpeed's BF16 optimizer)"),
        False: _("gradients accumulated in fp32 inside the weight-gradient GEMMs"),
        None: _("gradients accumulated in fp32 inside the weight-gradient GEMMs"),
    },
    "cp_comm_type": {
        CP_RING: _("context parallelism's key/value ring"),
        CP_ALL_TO_ALL: _("context parallelism's all-to-all"),
        None: _("context parallelism's default exchange"),
    },
    "cross_entropy": {
        LOSS.UNFUSED: _("the cross-entropy loss in separate operations"),
        LOSS.NATIVE: _("the cross-entropy loss in Megatron-Core's fused kernels"),
        LOSS.TE: _("the cross-entropy loss in Transformer Engine's fused kernel"),
        None: _("the cross-entropy loss as the framework runs it by default"),
    },
    "first_stage_layers": {None: _("the layers split evenly over the pipeline stages")},
    "last_stage_layers": {None: _("the layers split evenly over the pipeline stages")},
    "recompute_modules": {None: _("the default recomputed modules (the attention core)")},
    "pipeline_schedules": {None: _("one run of the pipeline schedule per step")},
}
# The modules Megatron-Core can recompute (checkpointing.MODULES), as a buyer names them.
MODULE_WORDS = {
    CK.CORE_ATTN: _("the attention core"),
    CK.MOE_ACT: _("the experts' activation"),
    CK.LAYERNORM: _("the layer norms"),
    CK.MLA_UP_PROJ: _("the latent attention's up-projections"),
    CK.MLP: _("the MLP"),
    CK.MOE: _("the experts"),
    CK.SHARED_EXPERTS: _("the shared experts"),
}


def setting_text(key: str, value: Any) -> str:
    """One layout setting as the pages write it: a parallel degree as TP=4, the ZeRO stage as ZeRO-2, every
    other setting in words (SETTING_WORDS); only a value no layout can hold is the key and value as typed,
    quoted ('moe_dispatcher=deepep')."""
    if key in DEGREE_KEYS:
        return f"{key.upper()}={value}"
    if key == "zero":
        return f"ZeRO-{value}"
    if key == "micro_batch":
        return _("micro-batch size %(value)s", value=value)
    if key == "virtual_stages":
        return _("%(value)s virtual pipeline stages", value=value)
    if key == "recompute" and value == "full":
        return _("full activation recomputation")
    if key == "recompute" and value == "selective":
        return _("selective activation recomputation")
    if key == "recompute" and value == "none":
        return _("no activation recomputation")
    if key == "sequence_parallel" and isinstance(value, bool):
        return _("sequence parallelism") if value else _("no sequence parallelism")
    if key == "first_stage_layers" and isinstance(value, int) and not isinstance(value, bool):
        return _("%(value)s layers on the first pipeline stage", value=value)
    if key == "last_stage_layers" and isinstance(value, int) and not isinstance(value, bool):
        return _("%(value)s layers on the last pipeline stage", value=value)
    if key == "pipeline_schedules" and isinstance(value, int) and not isinstance(value, bool):
        return _("%(value)s runs of the pipeline schedule per step", value=value)
    if key == "recompute_modules" and isinstance(value, list | tuple) and not value:
        return _("no module recomputed")
    if key == "recompute_modules" and isinstance(value, list | tuple) and set(value) <= set(MODULE_WORDS):
        return _("recomputing %(modules)s", modules=joined(*(MODULE_WORDS[m] for m in value), sep=_(", ")))
    words = SETTING_WORDS.get(key, {})
    if isinstance(value, bool | str | None) and value in words:
        return words[value]
    return f"'{key}={value}'"
