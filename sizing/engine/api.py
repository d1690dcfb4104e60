"""Public Python API: evaluate one layout, and the result dict shared by the CLI and the search."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from hardware.messages import _, ngettext
from hardware.numbers import value_text

from . import constants as C
from . import loss as LOSS
from .accuracy import accuracy_figures, published_model
from .bounds import GPUS_MAX
from .cost import cost_block, plan_choice_note
from .errors import InputError
from .explain import explain
from .fitting import choosable, fit_unstated, open_facts, unstated_keys
from .goodput import FaultModel, fault_model, goodput_arrays, rounded_days
from .hardware import Hardware, allow_requested_gpus, hardware_from_facts
from .layout import Layout, layout_from_dict
from .model import R_MEMORY, R_NODES, REASON_TEXT, attention_note, evaluate_grid
from .overlap import (
    checked_optimizer,
    default_optimizer,
    folds_experts,
    framework_note,
    optimizer_note,
    resolve_dispatcher,
    resolve_grad_reduce,
    resolve_overlap,
)
from .workload import Workload, workload_from_dict, workload_preset
from .zero import gather_note


def as_workload(workload: Workload | dict[str, Any] | str, layer_multiple: int = 1) -> Workload:
    """The Workload of a preset name or a dict; a shape derived from a bare parameter count gets a multiple
    of `layer_multiple` layers (a given layout's pipeline chunks: _pipeline_slots)."""
    if isinstance(workload, Workload):
        return workload
    if isinstance(workload, str):
        return workload_preset(workload)
    return workload_from_dict(workload, layer_multiple)


def _pipeline_slots(layout: Layout | dict[str, Any] | None) -> int:
    """pp x virtual stages of a given layout (1 where absent or not yet valid: the layout's own checks
    report it), so a shape derived from a parameter count splits evenly over it."""
    if isinstance(layout, Layout):
        return layout.pp * layout.virtual_stages
    if not isinstance(layout, dict):
        return 1
    slots = 1
    for key in ("pp", "virtual_stages"):
        value = layout.get(key)
        if isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= 4096:
            slots *= value
    return slots


def _gib(x: float) -> float:
    return round(float(x) / C.GIB, 3)


def reason_texts(code: int, res: dict[str, Any], i: Any, hw: Hardware) -> list[str]:
    out: list[str] = []
    for bit, text in REASON_TEXT.items():
        if code & bit:
            if bit == R_MEMORY:
                text = _(
                    "%(reason)s (%(needed)s GiB needed per GPU, %(hbm)s GiB of HBM)",
                    reason=text,
                    needed=_gib(res["mem_total"][i]),
                    hbm=_gib(hw.hbm_bytes),
                )
            elif bit == R_NODES:
                text = _(
                    "%(reason)s (%(needed)s nodes needed, at most %(most)s)",
                    reason=text,
                    needed=int(res["nodes"][i]),
                    most=hw.max_nodes,
                )
            out.append(text)
    return out


def check_gpus(gpus: Any) -> None:
    """A requested GPU count is a positive integer (None: not requested)."""
    if gpus is not None and (isinstance(gpus, bool) or not isinstance(gpus, int) or gpus <= 0):
        raise InputError("gpus", _("must be a positive integer, got %(got)s", got=value_text(gpus)))
    if gpus is not None and gpus > GPUS_MAX:
        most, got = f"{GPUS_MAX:,}", value_text(gpus)
        raise InputError("gpus", _("must be at most %(most)s GPUs, got %(got)s", most=most, got=got))


def _reader(res: dict[str, Any], i: Any) -> Callable[[str], float]:
    """Reads element `i` of the grid result `res` as a float."""

    def value(key: str) -> float:
        return float(np.asarray(res[key])[i])

    return value


def _memory_gib(value: Callable[[str], float]) -> dict[str, float]:
    return {
        "weights": _gib(value("mem_weights")),
        "grads": _gib(value("mem_grads")),
        "optimizer": _gib(value("mem_optimizer")),
        "gathered_params": _gib(value("mem_gathered")),
        "activations": _gib(value("mem_activations")),
        "overhead": _gib(value("mem_overhead")),
        "total": _gib(value("mem_total")),
    }


def _iteration_figures(value: Callable[[str], float]) -> dict[str, Any]:
    """The iteration's time, its breakdown and its throughput."""
    return {
        "iteration_time_s": round(value("iteration"), 4),
        "iteration_breakdown_s": {
            "compute": round(value("t_compute"), 4),
            "recompute": round(value("t_recompute"), 4),
            "tp_comm": round(value("t_tp"), 4),
            "pp_comm": round(value("t_pp"), 4),
            "dp_comm": round(value("t_dp"), 4),
            "ep_comm": round(value("t_ep"), 4),
            "cp_comm": round(value("t_cp"), 4),
            "bubble": round(value("t_bubble"), 4),
            "sync": round(value("t_sync"), 4),
            "other": round(value("t_other"), 4),
        },
        "micro_batches_per_iteration": int(value("micro_batches")),
        "layers_per_stage_max": int(value("layers_per_stage")),
        "model_tflops_per_gpu": round(value("model_tflops"), 2),
        "hardware_tflops_per_gpu": round(value("hw_tflops"), 2),
        "mfu": round(value("mfu"), 4),
        "tokens_per_s": round(value("tokens_per_s"), 1),
    }


def _restart_story(goodput: dict[str, Any], faults: FaultModel) -> str:
    spares = int(goodput["spare_nodes"])
    if not spares:
        return faults.restart_story
    return ngettext(
        "%(story)s; the job restarts at once on the spare node held in the cluster while the failed node is "
        "out (%(repair)s min), waiting only when the spare is out too (on average %(wait)s min per failure)",
        "%(story)s; the job restarts at once on one of %(spares)s spare nodes held in the cluster while the "
        "failed node is out (%(repair)s min), waiting only when every spare is out (on average %(wait)s min "
        "per failure)",
        spares,
        story=faults.restart_story,
        spares=spares,
        repair=f"{faults.repair_min:.0f}",
        wait=f"{float(goodput['repair_wait_min']):.1f}",
    )


def _goodput_figures(goodput: dict[str, Any], faults: FaultModel, days: float) -> dict[str, Any]:
    return {
        "mtbf_h": round(float(goodput["mtbf_h"]), 2),
        "checkpoint_interval_min": round(float(goodput["checkpoint_interval_min"]), 1),
        "checkpoint_write_s": round(float(goodput["checkpoint_write_s"]), 1),
        "checkpoint_gb": round(float(goodput["checkpoint_bytes"]) / C.GB, 1),
        "restart_min": round(float(goodput["restart_min"]), 1),
        "restart": _restart_story(goodput, faults),
        "expected_failures": round(days * 24.0 / float(goodput["mtbf_h"]), 1),
        "fraction": round(float(goodput["fraction"]), 4),
        "spare_nodes": int(goodput["spare_nodes"]),
        "repair_min": round(faults.repair_min, 1),
    }


def _spares_note(goodput: dict[str, Any], faults: FaultModel, hw: Hardware) -> list[str]:
    spares = int(goodput["spare_nodes"])
    if not spares:
        return []
    return [
        ngettext(
            "%(spares)s spare node (%(gpus)s GPUs) is held and billed so that a failure does not wait for "
            "the node's replacement (%(repair)s min): the count that minimises node-hours / goodput, with "
            "the nodes in repair at a time Poisson with mean failures per hour x repair time (Little's law); "
            "ask the provider whether it keeps a spare pool and its replacement time",
            "%(spares)s spare nodes (%(gpus)s GPUs) are held and billed so that a failure does not wait for "
            "the node's replacement (%(repair)s min): the count that minimises node-hours / goodput, with "
            "the nodes in repair at a time Poisson with mean failures per hour x repair time (Little's law); "
            "ask the provider whether it keeps a spare pool and its replacement time",
            spares,
            spares=spares,
            gpus=spares * hw.gpus_per_node,
            repair=f"{faults.repair_min:.0f}",
        )
    ]


def _assumptions(
    wl: Workload, hw: Hardware, faults: FaultModel, layout: Layout, notes: list[str] | None
) -> list[str]:
    """What the hardware, the fault model, the workload, the caller and the model assumed, once each."""
    zero3_sharded = layout.zero >= 3 and layout.dp * layout.cp > 1
    model_notes: list[str] = [gather_note(hw, layout.zero3_gather)] if zero3_sharded else []
    if wl.moe is not None and layout.ep * layout.expert_tp * layout.dp * layout.cp > 1:
        if wl.moe.load_imbalance is None:
            model_notes.append(
                _(
                    "MoE load imbalance not given: the busiest expert-parallel rank carries %(factor)sx the "
                    "mean tokens (the GShard/Switch training capacity factor); set "
                    "workload.moe.load_imbalance (1.0 for force-balanced benchmarks)",
                    factor=f"{C.MOE_LOAD_IMBALANCE:g}",
                )
            )
    attention = attention_note(wl, hw)
    if attention:
        model_notes.append(attention)
    if wl.precision == "fp8" and not hw.gpu.fp8_tflops:
        model_notes.append(
            _(
                "fp8 requested but the %(gpu)s has no fp8 tensor cores: its GEMMs run in bf16 and MFU is "
                "against the bf16 peak (%(tflops)s TFLOP/s)",
                gpu=hw.gpu.name,
                tflops=f"{hw.gpu.bf16_tflops:g}",
            )
        )
    return list(dict.fromkeys(hw.assumptions + faults.assumptions + wl.notes + (notes or []) + model_notes))


def _offering_figures(hw: Hardware) -> dict[str, Any]:
    return {
        "name": hw.name,
        "slug": hw.facts.get("slug"),
        "gpu": hw.gpu.key,
        "gpus_per_node": hw.gpus_per_node,
        "intra_node": hw.intra_node,
        "fabric": hw.fabric,
        "topology": hw.topology,
        "max_nodes": hw.max_nodes,
        "inter_node_gbytes_per_s_per_node": round(hw.node_busbw / C.GB, 1),
        "intra_node_busbw_gbytes_per_s": round(hw.intra_busbw / C.GB, 1),
    }


def _run_figures(
    wl: Workload, hw: Hardware, faults: FaultModel, value: Callable[[str], float]
) -> tuple[int, int, dict[str, Any], float, float, dict[str, Any] | None]:
    """(GPUs, nodes, goodput, days without failures, days, cost block or None) of one evaluated layout."""
    gpus = int(value("gpus"))
    nodes = int(value("nodes"))
    goodput = goodput_arrays(faults, wl.total_params(), gpus, nodes)
    days_ideal = wl.train_tokens / value("tokens_per_s") / 86400.0
    days = days_ideal / float(goodput["fraction"])
    spare_gpus = int(goodput["spare_nodes"]) * hw.gpus_per_node
    cost = cost_block(hw.facts, gpus, hw.gpus_per_node, days * 24.0, spare_gpus=spare_gpus)
    return gpus, nodes, goodput, days_ideal, days, cost


def _billed_figures(gpus: int, goodput: dict[str, Any], hw: Hardware, days: float) -> dict[str, Any]:
    """What a run holds and is billed for: its spare nodes (goodput.py), its GPUs with theirs, and their
    GPU-hours over the run with failures (what a cost objective ranks, times the price when there is one:
    cost.gpu_hours when priced)."""
    spares = int(goodput["spare_nodes"])
    billed = gpus + spares * hw.gpus_per_node
    return {"spare_nodes": spares, "billed_gpus": billed, "gpu_hours": round(billed * days * 24.0, 1)}


def build_result(
    wl: Workload,
    hw: Hardware,
    faults: FaultModel,
    layout: Layout,
    res: dict[str, Any],
    i: Any = (),
    notes: list[str] | None = None,
    convention: str | None = None,
) -> dict[str, Any]:
    """The DESIGN section 5 output dict for element `i` of a grid result (`faults`: the fault model;
    `convention`: the optimizer-state convention it was evaluated under)."""
    value = _reader(res, i)
    gpus, nodes, goodput, days_ideal, days, cost = _run_figures(wl, hw, faults, value)
    code = int(np.asarray(res["reasons"])[i])
    out: dict[str, Any] = {
        "feasible": code == 0,
        "reasons": reason_texts(code, res, i, hw),
        "layout": layout.to_dict(),
        "gpus": gpus,
        "nodes": nodes,
        "params": {"total": round(wl.total_params()), "active": round(wl.active_params())},
        "memory_gib_per_gpu": _memory_gib(value),
        "hbm_gib_per_gpu": _gib(hw.hbm_bytes),
        **_iteration_figures(value),
        "train_days": rounded_days(days),
        "train_days_no_failures": rounded_days(days_ideal),
        "goodput": _goodput_figures(goodput, faults, days),
        **{k: v for k, v in _billed_figures(gpus, goodput, hw, days).items() if k != "spare_nodes"},
    }
    if out["feasible"]:
        # the answer took the framework defaults where its assumptions say so (a search always does)
        defaults_note = str(framework_note(hw))
        out["accuracy"] = accuracy_figures(
            wl.moe is not None,
            out["iteration_time_s"],
            out["train_days"],
            gpu=hw.gpu,
            settings_assumed=any(str(n) == defaults_note for n in notes or []),
            model=published_model(wl),
        )
    price_note: list[str] = [note] if (note := plan_choice_note(hw.facts)) is not None else []
    if cost is not None:
        out["cost"] = cost
    out["explanation"] = explain(wl, hw, layout, out, convention)
    spares_note = _spares_note(goodput, faults, hw)
    out["assumptions"] = _assumptions(wl, hw, faults, layout, (notes or []) + spares_note + price_note)
    out["assumed_facts"] = [a.as_dict() for a in hw.assumed]
    out["workload"] = {**wl.to_dict(), "name": wl.name}
    out["offering"] = _offering_figures(hw)
    return out


def brief_result(
    wl: Workload, hw: Hardware, faults: FaultModel, layout: Layout, res: dict[str, Any], i: Any = ()
) -> dict[str, Any]:
    """The figures of build_result that an alternative reports (search._alt) and the search compares
    (layout, GPUs, nodes, iteration time, MFU, days, memory total, spare nodes, billed GPUs and GPU-hours,
    cost), computed the same way, without the explanation, assumptions and echoed inputs an alternative does
    not carry."""
    value = _reader(res, i)
    gpus, nodes, goodput, _, days, cost = _run_figures(wl, hw, faults, value)
    out: dict[str, Any] = {
        "layout": layout.to_dict(),
        "gpus": gpus,
        "nodes": nodes,
        "iteration_time_s": round(value("iteration"), 4),
        "mfu": round(value("mfu"), 4),
        "train_days": rounded_days(days),
        "memory_gib_per_gpu": {"total": _gib(value("mem_total"))},
        **_billed_figures(gpus, goodput, hw, days),
    }
    if cost is not None:
        out["cost"] = cost
    return out


def faults_for(hw: Hardware) -> FaultModel:
    """The offering's fault model (its facts with unpublished ones at their class norms); spares are held
    within a published cluster cap only (an assumed cap bounds the job's size)."""
    return fault_model(hw.facts, max_nodes=hw.max_nodes if hw.max_nodes_published else None)


def evaluate(
    workload: Workload | dict[str, Any] | str,
    offering_facts: dict[str, Any],
    layout: Layout | dict[str, Any] | None,
    *,
    gpus: int | None = None,
    optimizer: str | None = None,
) -> dict[str, Any]:
    """Evaluate one layout as given. Infeasible layouts are answers (`feasible: false` with reasons);
    inconsistent input raises InputError."""
    wl = as_workload(workload, _pipeline_slots(layout))
    hw = hardware_from_facts(offering_facts)
    faults = faults_for(hw)
    check_gpus(gpus)
    notes: list[str] = []
    unstated: tuple[str, ...] = ()
    if isinstance(layout, Layout):
        lay = layout
    else:
        stated = layout if isinstance(layout, dict) else {}
        unstated = unstated_keys(stated)
        stated_optimizer = stated.get("optimizer")
        if stated_optimizer is not None and not isinstance(stated_optimizer, str):
            raise InputError(
                "layout.optimizer",
                _(
                    "must be one of %(allowed)s, got %(got)s",
                    allowed=", ".join(C.OPTIMIZER_BYTES),
                    got=value_text(stated_optimizer),
                ),
            )
        optimizer = optimizer or stated_optimizer
        lay, notes = layout_from_dict(
            layout,
            wl,
            gpus,
            fold_experts=folds_experts(hw),
            gpus_per_node=hw.gpus_per_node,
            domain_gpus=hw.scale_up_domain_gpus,
        )
    if not optimizer:
        optimizer = default_optimizer(hw)
        notes = notes + [optimizer_note(hw)]
    optimizer = checked_optimizer(optimizer, "layout.optimizer")
    hw = allow_requested_gpus(hw, lay.gpus)  # an explicit layout is an explicit cluster size
    lay, dispatcher_notes = resolve_dispatcher(lay, hw, wl.moe is not None)
    lay, overlap_notes = resolve_overlap(lay, hw, optimizer)
    lay, loss_notes = LOSS.resolve(lay, hw)
    notes = notes + dispatcher_notes + overlap_notes + loss_notes
    # an unset gradient-reduction precision stays unset through the fit (the grid's default follows each
    # candidate's ZeRO stage, model._inputs) and is filled from the layout that is answered
    res = evaluate_grid(wl, hw, lay.grid(), optimizer)
    facts = open_facts(workload, wl, hw)
    unstated = choosable(unstated, wl, lay, hw)
    wl, lay, res, fit_notes = fit_unstated(wl, hw, lay, res, unstated, optimizer, facts)
    lay, reduce_notes = resolve_grad_reduce(lay, optimizer, hw)
    return build_result(wl, hw, faults, lay, res, (), notes + reduce_notes + fit_notes, optimizer)
