"""Reliability and goodput: failure rate, job MTBF, checkpoint size and write time, Young/Daly interval,
restart time from the offering's fault-tolerance features (cal §4). numpy-friendly in `gpus`/`nodes`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from . import constants as C

Array = Any


def young_interval(delta: Array, mtbf: Array) -> Array:
    """Young (1974): tau = sqrt(2 delta M) (cal §4)."""
    return np.sqrt(2.0 * np.asarray(delta, dtype=float) * mtbf)


def daly_interval(delta: Array, mtbf: Array) -> Array:
    """Daly (2006) higher-order optimum (cal §4): for delta < 2M,
    sqrt(2 delta M) (1 + sqrt(delta / 2M) / 3 + (delta / 2M) / 9) - delta, else M."""
    delta = np.asarray(delta, dtype=float)
    mtbf = np.asarray(mtbf, dtype=float)
    r = delta / (2.0 * mtbf)
    tau = np.sqrt(2.0 * delta * mtbf) * (1.0 + np.sqrt(r) / 3.0 + r / 9.0) - delta
    return np.where(delta < 2.0 * mtbf, tau, mtbf)


@dataclass
class FaultModel:
    """Per-offering constants of the goodput model (independent of the layout)."""

    rate_per_gpu_hour: float
    restart_fixed_min: float  # detection + replacement + relaunch, before reloading the checkpoint
    storage_bytes_per_s: float | None  # None: per-node default (assumption)
    assumptions: list[str] = field(default_factory=list)
    restart_story: str = ""


def fault_model(facts: dict[str, Any]) -> FaultModel:
    notes: list[str] = []
    rate = facts.get("failure_rate_per_gpu_hour")
    if rate is None:
        rate = C.DEFAULT_FAILURE_RATE_PER_GPU_HOUR
        notes.append(
            f"failure rate not published: Llama 3's {rate:.3g} unexpected interruptions per GPU-hour "
            "(419 in 54 days on 16,384 GPUs) assumed"
        )
    auto_detect = bool(facts.get("auto_bad_node_detection") or facts.get("health_checks"))
    auto_replace = bool(facts.get("auto_replacement"))
    spare = bool(facts.get("spare_node_pool"))
    auto_restart = bool(facts.get("auto_checkpoint_restart"))
    published_replace = facts.get("replacement_time_min")
    detect = C.DETECTION_AUTO_MIN if auto_detect else C.DETECTION_MANUAL_MIN
    if spare:
        replace = C.REPLACEMENT_SPARE_POOL_MIN
        story = "hot spare swapped in"
    elif auto_replace:
        replace = (
            float(published_replace) if published_replace is not None else C.REPLACEMENT_AUTO_DEFAULT_MIN
        )
        story = "bad node replaced automatically"
        if published_replace is None:
            notes.append(f"automatic replacement time not published: {replace:.0f} min assumed")
    else:
        replace = float(published_replace) if published_replace is not None else C.REPLACEMENT_MANUAL_MIN
        story = "no automatic replacement: a support ticket (OPT-175B: hours)"
        if published_replace is None:
            notes.append(
                f"no automatic node replacement: {replace / 60:.0f} h per failure assumed (manual ticket, "
                "as in Meta's OPT-175B logbook)"
            )
    relaunch = C.RESTART_JOB_MIN + (0.0 if auto_restart else 10.0)  # an operator relaunches by hand
    storage = facts.get("storage_write_gbytes_per_s")
    if storage is None:
        notes.append(
            "checkpoint write bandwidth not published: "
            f"{C.DEFAULT_STORAGE_GBYTES_PER_S_PER_NODE:.0f} GB/s per "
            "node assumed (BLOOM wrote 2.3 TB in ~40 s on 48 nodes)"
        )
    return FaultModel(
        rate_per_gpu_hour=float(rate),
        restart_fixed_min=detect + replace + relaunch,
        storage_bytes_per_s=None if storage is None else float(storage) * C.GB,
        assumptions=notes,
        restart_story=story,
    )


def goodput_arrays(faults: FaultModel, total_params: float, gpus: Array, nodes: Array) -> dict[str, Array]:
    """Job MTBF, checkpoint write time, Daly interval, restart time and the goodput fraction
    = tau / (tau + delta) / (1 + (R + (tau + delta) / 2) / M): checkpoint stalls, plus per failure the
    restart and on average half an interval of lost work."""
    gpus = np.asarray(gpus, dtype=float)
    nodes = np.asarray(nodes, dtype=float)
    mtbf_h = 1.0 / (faults.rate_per_gpu_hour * gpus)
    ckpt = C.CHECKPOINT_BYTES_PER_PARAM * total_params
    bw = (
        faults.storage_bytes_per_s
        if faults.storage_bytes_per_s
        else nodes * C.DEFAULT_STORAGE_GBYTES_PER_S_PER_NODE * C.GB
    )
    write_s = ckpt / bw
    m_min = mtbf_h * 60.0
    delta_min = write_s / 60.0
    tau_min = daly_interval(delta_min, m_min)
    restart_min = faults.restart_fixed_min + write_s / 60.0  # reading the checkpoint back ~ writing it
    seg = tau_min + delta_min
    fraction = tau_min / seg / (1.0 + (restart_min + seg / 2.0) / m_min)
    return {
        "mtbf_h": mtbf_h,
        "checkpoint_write_s": write_s,
        "checkpoint_interval_min": tau_min,
        "restart_min": restart_min,
        "fraction": fraction,
        "checkpoint_bytes": ckpt,
    }
