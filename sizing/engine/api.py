"""Public Python API: evaluate one layout, and the result dict shared by the CLI and the search."""

from __future__ import annotations

from typing import Any

import numpy as np

from . import constants as C
from .cost import cost_block
from .errors import InputError
from .explain import explain
from .goodput import FaultModel, fault_model, goodput_arrays
from .hardware import Hardware, allow_requested_gpus, hardware_from_facts
from .layout import Layout, layout_from_dict
from .model import REASON_TEXT, WorkloadShape, attention_note, evaluate_grid
from .workload import Workload, workload_from_dict, workload_preset


def as_workload(workload: Workload | dict[str, Any] | str) -> Workload:
    if isinstance(workload, Workload):
        return workload
    if isinstance(workload, str):
        return workload_preset(workload)
    return workload_from_dict(workload)


def _gib(x: float) -> float:
    return round(float(x) / C.GIB, 3)


def reason_texts(code: int, res: dict[str, Any], i: Any, hw: Hardware) -> list[str]:
    out = []
    for bit, text in REASON_TEXT.items():
        if code & bit:
            if bit == 1:
                text += f" ({_gib(res['mem_total'][i])} GiB needed per GPU, {_gib(hw.hbm_bytes)} GiB of HBM)"
            elif bit == 2:
                text += f" ({int(res['nodes'][i])} nodes needed, at most {hw.max_nodes})"
            out.append(text)
    return out


def build_result(
    wl: Workload,
    hw: Hardware,
    fm: FaultModel,
    layout: Layout,
    res: dict[str, Any],
    i: Any = (),
    notes: list[str] | None = None,
) -> dict[str, Any]:
    """The DESIGN section 5 output dict for element `i` of a grid result."""

    def f(key: str) -> float:
        return float(np.asarray(res[key])[i])

    gpus = int(f("gpus"))
    nodes = int(f("nodes"))
    code = int(np.asarray(res["reasons"])[i])
    gp = goodput_arrays(fm, wl.total_params(), gpus, nodes)
    frac = float(gp["fraction"])
    days_ideal = wl.train_tokens / f("tokens_per_s") / 86400.0
    days = days_ideal / frac
    out: dict[str, Any] = {
        "feasible": code == 0,
        "reasons": reason_texts(code, res, i, hw),
        "layout": layout.to_dict(),
        "gpus": gpus,
        "nodes": nodes,
        "params": {"total": round(wl.total_params()), "active": round(wl.active_params())},
        "memory_gib_per_gpu": {
            "weights": _gib(f("mem_weights")),
            "grads": _gib(f("mem_grads")),
            "optimizer": _gib(f("mem_optimizer")),
            "activations": _gib(f("mem_activations")),
            "overhead": _gib(f("mem_overhead")),
            "total": _gib(f("mem_total")),
        },
        "hbm_gib_per_gpu": _gib(hw.hbm_bytes),
        "iteration_time_s": round(f("iteration"), 4),
        "iteration_breakdown_s": {
            "compute": round(f("t_compute"), 4),
            "recompute": round(f("t_recompute"), 4),
            "tp_comm": round(f("t_tp"), 4),
            "pp_comm": round(f("t_pp"), 4),
            "dp_comm": round(f("t_dp"), 4),
            "ep_comm": round(f("t_ep"), 4),
            "cp_comm": round(f("t_cp"), 4),
            "bubble": round(f("t_bubble"), 4),
            "other": round(f("t_other"), 4),
        },
        "micro_batches_per_iteration": int(f("micro_batches")),
        "layers_per_stage_max": int(f("layers_per_stage")),
        "model_tflops_per_gpu": round(f("model_tflops"), 2),
        "hardware_tflops_per_gpu": round(f("hw_tflops"), 2),
        "mfu": round(f("mfu"), 4),
        "tokens_per_s": round(f("tokens_per_s"), 1),
        "train_days": round(days, 2),
        "train_days_no_failures": round(days_ideal, 2),
        "goodput": {
            "mtbf_h": round(float(gp["mtbf_h"]), 2),
            "checkpoint_interval_min": round(float(gp["checkpoint_interval_min"]), 1),
            "checkpoint_write_s": round(float(gp["checkpoint_write_s"]), 1),
            "checkpoint_gb": round(float(gp["checkpoint_bytes"]) / C.GB, 1),
            "restart_min": round(float(gp["restart_min"]), 1),
            "restart": fm.restart_story,
            "expected_failures": round(days * 24.0 / float(gp["mtbf_h"]), 1),
            "fraction": round(frac, 4),
        },
    }
    cost = cost_block(hw.facts, gpus, hw.gpus_per_node, days * 24.0)
    if cost is not None:
        out["cost"] = cost
    out["explanation"] = explain(wl, hw, layout, out)
    model_notes = [C.ZERO3_PREFETCH_ASSUMPTION] if layout.zero >= 3 and layout.dp * layout.cp > 1 else []
    att = attention_note(wl, hw)
    if att:
        model_notes.append(att)
    if wl.precision == "fp8" and not hw.gpu.fp8_tflops:
        model_notes.append(
            f"fp8 requested but {hw.gpu.key} has no fp8 tensor cores: its GEMMs run in bf16 and MFU is "
            f"against the bf16 peak ({hw.gpu.bf16_tflops:g} TFLOP/s)"
        )
    out["assumptions"] = list(
        dict.fromkeys(hw.assumptions + fm.assumptions + wl.notes + (notes or []) + model_notes)
    )
    out["workload"] = {**wl.to_dict(), "name": wl.name}
    out["offering"] = {
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
    return out


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
    wl = as_workload(workload)
    hw = hardware_from_facts(offering_facts)
    fm = fault_model(offering_facts)
    if gpus is not None and (isinstance(gpus, bool) or not isinstance(gpus, int) or gpus <= 0):
        raise InputError("gpus", f"must be a positive integer, got {gpus!r}")
    notes: list[str] = []
    if isinstance(layout, Layout):
        lay = layout
    else:
        conv = (layout or {}).get("optimizer") if isinstance(layout, dict) else None
        optimizer = optimizer or conv
        lay, notes = layout_from_dict(layout, wl, gpus)
    optimizer = optimizer or "megatron"
    if optimizer not in C.OPTIMIZER_BYTES:
        raise InputError("layout.optimizer", f"must be one of {', '.join(C.OPTIMIZER_BYTES)}")
    hw = allow_requested_gpus(hw, lay.gpus)  # an explicit layout is an explicit cluster size
    res = evaluate_grid(wl, hw, lay.grid(), optimizer, WorkloadShape(wl))
    return build_result(wl, hw, fm, lay, res, (), notes)
