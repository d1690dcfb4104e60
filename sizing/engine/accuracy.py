"""How close an answer is: the band every feasible answer states, measured on the validation set.

`constants.MODEL_ACCURACY` holds, by kind (dense or MoE), how far the model's iteration time has been from
published runs evaluated with their published layouts (validation.yaml). An answer carries it as
`accuracy`: the band applied to its own iteration time and training days, and a sentence in words.

Run `python -m sizing.engine.accuracy` to print the band from the set (what the constant must hold).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hardware.messages import Msg, _
from hardware.numbers import about_days_text

from . import constants as C
from .architectures import shape_group
from .goodput import rounded_days

PERCENTILES = (0.10, 0.90)  # "8 in 10 of the published runs"


def kind_of(moe: bool) -> str:
    return "moe" if moe else "dense"


def measured() -> dict[str, tuple[int, float, float, float]]:
    """The band of each kind, computed from the validation set as it stands (slow: evaluates every row)."""
    from .validation import results  # the set evaluates through the engine: imported only when asked

    bands: dict[str, tuple[int, float, float, float]] = {}
    for kind in C.MODEL_ACCURACY:
        errors = np.array([r.error for r in results() if r.row.compared and r.row.kind == kind])
        ratios = 1.0 / (1.0 + errors)
        low, high = np.quantile(ratios, PERCENTILES)
        mean_abs = round(float(np.abs(errors).mean()), 3)
        bands[kind] = (len(errors), mean_abs, round(float(low), 2), round(float(high), 2))
    return bands


def measured_with_defaults() -> dict[str, tuple[int, float]]:
    """By kind, the compared rows and their mean |error| from the size contract's keys alone (the framework
    settings and the other unstated facts left to the defaults; what MODEL_ACCURACY_DEFAULTS must hold)."""
    from .validation import contract_results

    out: dict[str, tuple[int, float]] = {}
    for kind in C.MODEL_ACCURACY_DEFAULTS:
        errors = np.array([r.error for r in contract_results() if r.row.kind == kind])
        out[kind] = (len(errors), round(float(np.abs(errors).mean()), 3))
    return out


def measured_architectures() -> tuple[str, ...]:
    """The GPU architectures of the compared rows of the validation set (what the constant must hold)."""
    from hardware import GPUS

    from .validation import results

    return tuple(sorted({GPUS[r.row.offering["gpu"]].architecture for r in results() if r.row.compared}))


def measured_by_architecture() -> dict[tuple[str, str], tuple[int, float]]:
    """(kind, GPU architecture) -> the compared rows and their mean signed error (what the constant must
    hold)."""
    from hardware import GPUS

    from .validation import results

    errors: dict[tuple[str, str], list[float]] = {}
    for r in results():
        if r.row.compared:
            key = (r.row.kind, GPUS[r.row.offering["gpu"]].architecture)
            errors.setdefault(key, []).append(r.error)
    return {key: (len(v), round(float(np.mean(v)), 3)) for key, v in sorted(errors.items())}


def published_model(wl: Any) -> str | None:
    """The published models of a workload's shape (architectures.shape_group), or None: whose band of its
    own (MODEL_ACCURACY_BY_MODEL) the answer states, where it has one."""
    shape = (wl.layers, wl.hidden, wl.heads, wl.kv_heads, wl.ffn_hidden, wl.activation)
    return shape_group(shape, wl.moe.counts if wl.moe else None)


def measured_by_model() -> dict[str, tuple[int, int, float, float, float, float, float]]:
    """Published model (architectures.shape_group) -> (runs, publications, mean |error|, mean signed error,
    published/predicted at the 10th and 90th percentiles, mean |error| from the size contract's keys alone)
    over the compared rows of that model's shape, for the models with at least MODEL_BAND_MIN_RUNS runs from
    MODEL_BAND_MIN_PUBLICATIONS publications (what MODEL_ACCURACY_BY_MODEL must hold)."""
    from .validation import contract_results, results
    from .workload import workload_from_dict

    errors: dict[str, list[float]] = {}
    defaults: dict[str, list[float]] = {}
    publications: dict[str, set[str]] = {}
    # contract_results holds the same compared rows, each from the contract's keys alone
    by_id = {r.row.id: r.error for r in contract_results()}
    for r in results():
        if not r.row.compared:
            continue
        model = published_model(workload_from_dict(dict(r.row.workload)))
        if model is not None:
            errors.setdefault(model, []).append(r.error)
            defaults.setdefault(model, []).append(by_id[r.row.id])
            publications.setdefault(model, set()).add(r.row.publication)
    out: dict[str, tuple[int, int, float, float, float, float, float]] = {}
    for model, values in sorted(errors.items()):
        if len(values) < C.MODEL_BAND_MIN_RUNS or len(publications[model]) < C.MODEL_BAND_MIN_PUBLICATIONS:
            continue
        e = np.array(values)
        low, high = np.quantile(1.0 / (1.0 + e), PERCENTILES)
        out[model] = (
            len(values),
            len(publications[model]),
            round(float(np.abs(e).mean()), 3),
            round(float(e.mean()), 3),
            round(float(low), 2),
            round(float(high), 2),
            round(float(np.abs(np.array(defaults[model])).mean()), 3),
        )
    return out


def accuracy_figures(
    moe: bool,
    iteration_time_s: float,
    train_days: float | None,
    gpu: Any = None,
    settings_assumed: bool = False,
    model: str | None = None,
) -> dict[str, Any]:
    """The answer's `accuracy` block: the measured band of its kind, applied to its own figures; with the
    answer's `gpu` (hardware.GPU), whether published runs on its architecture are among those measured;
    whether the answer took the framework defaults (`settings_assumed`), and how far the same runs were
    with the defaults (`mean_abs_error_defaults`). A workload of a published model's shape (`model`,
    published_model) that has its own band (MODEL_ACCURACY_BY_MODEL) states that band too and
    applies it to its figures (`band`: "model"; else "kind")."""
    kind = kind_of(moe)
    runs, mean_abs, low, high = C.MODEL_ACCURACY[kind]
    own_model = C.MODEL_ACCURACY_BY_MODEL.get(model) if model is not None else None
    # the band applied to this answer's figures: its model's where it has one, else its kind's
    applied = (own_model[4], own_model[5]) if own_model is not None else (low, high)
    out: dict[str, Any] = {
        "kind": kind,
        "published_runs": runs,
        "mean_abs_error": mean_abs,
        "time_ratio_low": low,
        "time_ratio_high": high,
        "iteration_time_s_low": round(iteration_time_s * applied[0], 4),
        "iteration_time_s_high": round(iteration_time_s * applied[1], 4),
        "settings_assumed": settings_assumed,
        "mean_abs_error_defaults": C.MODEL_ACCURACY_DEFAULTS[kind][1],
        "band": "kind" if own_model is None else "model",
    }
    if own_model is not None:
        model_runs, publications, model_abs, model_mean, _low, _high, model_defaults = own_model
        out.update(
            model=model,
            model_runs=model_runs,
            model_publications=publications,
            model_mean_abs_error=model_abs,
            model_mean_error=model_mean,
            model_time_ratio_low=applied[0],
            model_time_ratio_high=applied[1],
            model_mean_abs_error_defaults=model_defaults,
        )
    if gpu is not None:
        out["gpu"] = gpu.name
        out["gpu_architecture_measured"] = gpu.architecture in C.MODEL_ACCURACY_ARCHITECTURES
        own = C.MODEL_ACCURACY_BY_ARCHITECTURE.get((kind, gpu.architecture))
        if own is not None:
            out["architecture_runs"], out["architecture_mean_error"] = own
    if train_days is not None and np.isfinite(train_days):
        out["train_days_low"] = rounded_days(train_days * applied[0])
        out["train_days_high"] = rounded_days(train_days * applied[1])
    return out


def accuracy_sentence(figures: dict[str, Any] | None) -> Msg | None:
    """The band in words, for the result page (None for an answer stored before it was reported); for a GPU
    whose architecture no measured run used, followed by what that means."""
    if not figures or "train_days_low" not in figures:
        return None
    band = _band_sentence(figures)
    if figures.get("gpu_architecture_measured") is False:
        return _(
            "%(band)s None of those runs used the %(gpu)s or another GPU of its architecture: its "
            "efficiency is assumed, so this range is not measured for it. Ask the provider for a training "
            "benchmark on it.",
            band=band,
            gpu=figures.get("gpu") or "",
        )
    # a model's own band is its runs' whatever their GPU; the architecture's figure is over the kind's runs
    own = _architecture_sentence(figures) if figures.get("band") != "model" else None
    return _("%(band)s %(own)s", band=band, own=own) if own is not None else band


def _architecture_sentence(figures: dict[str, Any]) -> Msg | None:
    """How the model did on the runs of the answer's own GPU architecture: their number and which way it
    missed them on average (a band measured mostly on other GPUs can hide a one-sided miss)."""
    runs, mean = figures.get("architecture_runs"), figures.get("architecture_mean_error")
    if not runs or mean is None:
        return None
    values = {"runs": runs, "gpu": figures.get("gpu") or "", "pct": f"{100 * abs(mean):.0f}"}
    # a mean that rounds to 0% is said as right: "0% shorter ... may be slower" would point a way it does not
    right = values["pct"] == "0"
    if runs == 1:
        # one run is no average: say what it was
        if right:
            return _(
                "One of those runs used the architecture of the %(gpu)s; on it the predicted step time was "
                "right.",
                **values,
            )
        if mean > 0:
            return _(
                "One of those runs used the architecture of the %(gpu)s; on it the predicted step time was "
                "%(pct)s%% longer than published: this run may be faster than predicted.",
                **values,
            )
        return _(
            "One of those runs used the architecture of the %(gpu)s; on it the predicted step time was "
            "%(pct)s%% shorter than published: this run may be slower than predicted.",
            **values,
        )
    if right:
        return _(
            "%(runs)s of those runs used the architecture of the %(gpu)s; on them the predicted step time "
            "was right on average.",
            **values,
        )
    if mean > 0:
        return _(
            "%(runs)s of those runs used the architecture of the %(gpu)s; on them the predicted step time "
            "was %(pct)s%% longer than published on average: this run may be faster than predicted.",
            **values,
        )
    return _(
        "%(runs)s of those runs used the architecture of the %(gpu)s; on them the predicted step time was "
        "%(pct)s%% shorter than published on average: this run may be slower than predicted.",
        **values,
    )


def _band_sentence(figures: dict[str, Any]) -> Msg:
    values = {
        "runs": figures["published_runs"],
        "error": f"{100 * figures['mean_abs_error']:.0f}",
        "low": f"{figures['time_ratio_low']:.2f}",
        "high": f"{figures['time_ratio_high']:.2f}",
        "days_low": about_days_text(figures["train_days_low"]),
        "days_high": about_days_text(figures["train_days_high"]),
    }
    if figures.get("band") == "model":
        return _model_band_sentence(figures, values)
    if figures.get("settings_assumed") and figures.get("mean_abs_error_defaults") is not None:
        return _defaults_band_sentence(figures, values)
    if figures["kind"] == "moe":
        return _(
            "How close this estimate is: on %(runs)s published mixture-of-experts training runs, the model's "
            "step time was off by %(error)s%% on average, and 8 in 10 of those runs took %(low)s to %(high)s "
            "times the predicted time (models with many small experts the most: they ran slower than "
            "predicted, for reasons not yet established). For this run: about %(days_low)s to %(days_high)s "
            "days.",
            **values,
        )
    return _(
        "How close this estimate is: on %(runs)s published dense training runs, the model's step time was "
        "off by %(error)s%% on average, and 8 in 10 of those runs took %(low)s to %(high)s times the "
        "predicted time. For this run: about %(days_low)s to %(days_high)s days.",
        **values,
    )


def _model_band_sentence(figures: dict[str, Any], values: dict[str, Any]) -> Msg:
    """The band of an answer whose workload has a published model's shape with a band of its own: that
    model's published runs, their mean |error|, the share of them in the band; and, where the answer took
    the framework defaults, how far runs of its kind were with the defaults."""
    values = {
        **values,
        "runs": figures["model_runs"],
        "model": figures["model"],
        "error": f"{100 * figures['model_mean_abs_error']:.0f}",
        "low": f"{figures['model_time_ratio_low']:.2f}",
        "high": f"{figures['model_time_ratio_high']:.2f}",
        "publications": figures["model_publications"],
    }
    if not (figures.get("settings_assumed") and figures.get("model_mean_abs_error_defaults") is not None):
        return _(
            "How close this estimate is: on %(runs)s published training runs of %(model)s (runs of this "
            "model's shape, from %(publications)s publications or releases), the model's step time was off "
            "by %(error)s%% on average, and 8 in 10 of those runs took %(low)s to %(high)s times the "
            "predicted time. For this run: about %(days_low)s to %(days_high)s days.",
            **values,
        )
    values["defaults"] = f"{100 * figures['model_mean_abs_error_defaults']:.0f}"
    if figures["kind"] == "moe":
        return _(
            "How close this estimate is: on %(runs)s published training runs of %(model)s (runs of this "
            "model's shape, from %(publications)s publications or releases), the model's step time was off "
            "by %(error)s%% on average with each run's own training-stack settings, and 8 in 10 of those "
            "runs took %(low)s to %(high)s times the predicted time. With those settings left to the "
            "defaults this estimate assumes (communication overlap, token dispatcher, routing balance), the "
            "same runs were off by %(defaults)s%% on average. For this run: about %(days_low)s to "
            "%(days_high)s days.",
            **values,
        )
    return _(
        "How close this estimate is: on %(runs)s published training runs of %(model)s (runs of this "
        "model's shape, from %(publications)s publications or releases), the model's step time was off by "
        "%(error)s%% on average with each run's own training-stack settings, and 8 in 10 of those runs "
        "took %(low)s to %(high)s times the predicted time. With those settings left to the defaults this "
        "estimate assumes (communication overlap, dropout, attention kernels), the same runs were off by "
        "%(defaults)s%% on average. For this run: about %(days_low)s to %(days_high)s days.",
        **values,
    )


def _defaults_band_sentence(figures: dict[str, Any], values: dict[str, Any]) -> Msg:
    """The band of an answer that took the framework defaults: measured with each run's own settings, and
    how far the same runs were with the defaults this answer assumes."""
    values = {**values, "defaults": f"{100 * figures['mean_abs_error_defaults']:.0f}"}
    if figures["kind"] == "moe":
        return _(
            "How close this estimate is: on %(runs)s published mixture-of-experts training runs, the model's "
            "step time was off by %(error)s%% on average with each run's own training-stack settings, and 8 "
            "in 10 of those runs took %(low)s to %(high)s times the predicted time (models with many small "
            "experts the most: they ran slower than predicted, for reasons not yet established). With those "
            "settings left to the defaults this estimate assumes (communication overlap, token dispatcher, "
            "routing balance), the same runs were off by %(defaults)s%% on average. For this run: about "
            "%(days_low)s to %(days_high)s days.",
            **values,
        )
    return _(
        "How close this estimate is: on %(runs)s published dense training runs, the model's step time was "
        "off by %(error)s%% on average with each run's own training-stack settings, and 8 in 10 of those "
        "runs took %(low)s to %(high)s times the predicted time. With those settings left to the defaults "
        "this estimate assumes (communication overlap, dropout, attention kernels), the same runs were off "
        "by %(defaults)s%% on average. For this run: about %(days_low)s to %(days_high)s days.",
        **values,
    )


if __name__ == "__main__":
    for kind, (runs, mean_abs, low, high) in measured().items():
        print(f"{kind}: {runs} runs, mean |error| {mean_abs:.3f}, published/predicted {low:.2f}-{high:.2f}")
    for (kind, arch), (runs, mean) in measured_by_architecture().items():
        print(f"{kind} on {arch}: {runs} runs, mean signed error {mean:+.3f}")
    for kind, (runs, mean_abs) in measured_with_defaults().items():
        print(f"{kind} from the contract's keys (defaults taken): {runs} runs, mean |error| {mean_abs:.3f}")
    for model, (runs, pubs, mean_abs, mean, low, high, defaults) in measured_by_model().items():
        print(
            f"{model}: {runs} runs from {pubs} publications, mean |error| {mean_abs:.3f}, mean {mean:+.3f}, "
            f"published/predicted {low:.2f}-{high:.2f}, mean |error| from the contract's keys {defaults:.3f}"
        )
