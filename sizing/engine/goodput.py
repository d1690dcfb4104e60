"""Reliability and goodput: failure rate, job MTBF, checkpoint size and write time, Young/Daly interval,
restart time from the offering's fault-tolerance features (cal §4). numpy-friendly in `gpus`/`nodes`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from hardware.messages import _
from hardware.numbers import power_of_ten_text

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
    # The replacement part of restart_fixed_min: how long a failed node is out. Without a provider spare
    # pool the buyer may hold spare nodes so that the job waits for it only when every spare is in repair.
    repair_min: float = 0.0
    buyer_spares: bool = False
    max_nodes: int | None = None  # the offering's cluster cap: spares never take the cluster past it
    # goodput_arrays of one GPU and node count, by (total params, GPUs, nodes): a search reads the same
    # figures for its answer and every alternative; not an init field, so dataclasses.replace starts empty
    scalar_figures: dict[tuple[float, float, float], dict[str, Array]] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )


def fault_model(facts: dict[str, Any], *, max_nodes: int | None = None) -> FaultModel:
    """`max_nodes`: the offering's published cluster cap (spares never take the cluster past it); an
    assumed cap bounds the job's size only, not the few spares held beside it."""
    notes: list[str] = []
    rate = facts.get("failure_rate_per_gpu_hour")
    if rate is None:
        rate = C.DEFAULT_FAILURE_RATE_PER_GPU_HOUR
        notes.append(
            _(
                "failure rate not published: Llama 3's %(rate)s unexpected interruptions per GPU-hour "
                "(419 in 54 days on 16,384 GPUs) assumed",
                rate=power_of_ten_text(rate),
            )
        )
    auto_detect = bool(facts.get("auto_bad_node_detection") or facts.get("health_checks"))
    auto_replace = bool(facts.get("auto_replacement"))
    spare = bool(facts.get("spare_node_pool"))
    auto_restart = bool(facts.get("auto_checkpoint_restart"))
    published_replace = facts.get("replacement_time_min")
    detect = C.DETECTION_AUTO_MIN if auto_detect else C.DETECTION_MANUAL_MIN
    if spare:
        replace = C.REPLACEMENT_SPARE_POOL_MIN
        story = _("hot spare swapped in")
    elif auto_replace:
        replace = (
            float(published_replace) if published_replace is not None else C.REPLACEMENT_AUTO_DEFAULT_MIN
        )
        story = _("bad node replaced automatically")
        if published_replace is None:
            notes.append(
                _("automatic replacement time not published: %(min)s min assumed", min=f"{replace:.0f}")
            )
    else:
        replace = float(published_replace) if published_replace is not None else C.REPLACEMENT_MANUAL_MIN
        story = _("no automatic replacement: a support ticket (OPT-175B: hours)")
        if published_replace is None:
            notes.append(
                _(
                    "no automatic node replacement: %(hours)s h per failure assumed (manual ticket, as in "
                    "Meta's OPT-175B logbook)",
                    hours=f"{replace / 60:.0f}",
                )
            )
    relaunch = C.RESTART_JOB_MIN + (0.0 if auto_restart else 10.0)  # an operator relaunches by hand
    storage = facts.get("storage_write_gbytes_per_s")
    if storage is None:
        notes.append(
            _(
                "checkpoint write bandwidth not published: %(gbytes)s GB/s per node assumed (BLOOM wrote 2.3 "
                "TB in ~40 s on 48 nodes)",
                gbytes=f"{C.DEFAULT_STORAGE_GBYTES_PER_S_PER_NODE:.0f}",
            )
        )
    return FaultModel(
        rate_per_gpu_hour=float(rate),
        restart_fixed_min=detect + replace + relaunch,
        storage_bytes_per_s=None if storage is None else float(storage) * C.GB,
        assumptions=notes,
        restart_story=story,
        repair_min=replace,
        buyer_spares=not spare,
        max_nodes=max_nodes,
    )


def _poisson_at_least(count: int, mean: Array) -> Array:
    """P(X >= k) for X ~ Poisson(mean), k = 0 .. count-1 along the first axis of the result. One pass of
    cumulative products and sums over the k axis (pmf_k = pmf_(k-1) x mean / k), not a Python loop: this
    runs once per structure block and for every answer and alternative of a search."""
    mean = np.asarray(mean, dtype=float)
    steps = np.empty((count, *mean.shape))
    steps[0] = np.exp(-mean)
    if count > 1:
        steps[1:] = mean / np.arange(1.0, count).reshape(-1, *([1] * mean.ndim))
    pmf = np.cumprod(steps, axis=0)
    below = np.zeros_like(pmf)  # P(X < k)
    np.cumsum(pmf[:-1], axis=0, out=below[1:])
    return np.clip(1.0 - below, 0.0, 1.0)


def _spares_and_wait(
    faults: FaultModel, gpus: Array, nodes: Array, goodput_for: Callable[[Array], Array]
) -> tuple[Array, Array]:
    """The spare nodes the buyer holds and the expected wait for a repair per failure (minutes).

    `goodput_for(wait)` gives the goodput fraction for a per-failure wait; the count minimises the expected
    node-hours (nodes + spares) / goodput. Little's law: nodes in repair = failures/h x repair hours."""
    if not faults.buyer_spares or faults.repair_min <= 0:
        return np.zeros_like(nodes), np.full_like(nodes, faults.repair_min)
    in_repair = faults.rate_per_gpu_hour * gpus * faults.repair_min / 60.0
    ks = np.arange(C.SPARE_NODES_MAX + 1, dtype=float).reshape(-1, *([1] * np.ndim(nodes)))
    wait = (
        _poisson_at_least(C.SPARE_NODES_MAX + 1, in_repair) * faults.repair_min
    )  # k = 0: every failure waits
    node_hours = (nodes + ks) / goodput_for(wait)
    if faults.max_nodes is not None:  # holding none is always possible
        node_hours = np.where((nodes + ks <= faults.max_nodes) | (ks == 0), node_hours, np.inf)
    best = np.argmin(node_hours, axis=0)
    return best.astype(float), np.take_along_axis(wait, best[None, ...], axis=0)[0]


def goodput_arrays(faults: FaultModel, total_params: float, gpus: Array, nodes: Array) -> dict[str, Array]:
    """Job MTBF, checkpoint write time, Daly interval, restart time and the goodput fraction
    = tau / (tau + delta) / (1 + (R + (tau + delta) / 2) / M): checkpoint stalls, plus per failure the
    restart and on average half an interval of lost work. One GPU and node count is computed once per
    fault model (`FaultModel.scalar_figures`); the caller gets its own dict."""
    gpus = np.asarray(gpus, dtype=float)
    nodes = np.asarray(nodes, dtype=float)
    if gpus.ndim or nodes.ndim:
        return _goodput_arrays(faults, total_params, gpus, nodes)
    key = (float(total_params), float(gpus), float(nodes))
    figures = faults.scalar_figures.get(key)
    if figures is None:
        figures = faults.scalar_figures[key] = _goodput_arrays(faults, total_params, gpus, nodes)
    return dict(figures)


def _goodput_arrays(faults: FaultModel, total_params: float, gpus: Array, nodes: Array) -> dict[str, Array]:
    """goodput_arrays without the cache."""
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
    # without the repair wait: detection and relaunch, then reading the checkpoint back (~ writing it)
    restart_base = faults.restart_fixed_min - faults.repair_min + write_s / 60.0
    seg = tau_min + delta_min

    def fraction_for(wait: Array) -> Array:
        return tau_min / seg / (1.0 + (restart_base + wait + seg / 2.0) / m_min)

    spares, wait = _spares_and_wait(faults, gpus, nodes, fraction_for)
    return {
        "mtbf_h": mtbf_h,
        "checkpoint_write_s": write_s,
        "checkpoint_interval_min": tau_min,
        "restart_min": restart_base + wait,
        "fraction": fraction_for(wait),
        "checkpoint_bytes": ckpt,
        "spare_nodes": spares,
        "repair_wait_min": wait,
    }


def rounded_days(days: float) -> float:
    """Days as an answer states them: to two decimals; a run shorter than a day to three significant figures
    (a 10-minute run is 0.00694 days, not 0.0)."""
    return round(days, 2) if not 0 < days < 1 else float(f"{days:.3g}")
