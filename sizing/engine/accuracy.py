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

from . import constants as C
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


def accuracy_figures(
    moe: bool,
    iteration_time_s: float,
    train_days: float | None,
    gpu: Any = None,
    settings_assumed: bool = False,
) -> dict[str, Any]:
    """The answer's `accuracy` block: the measured band of its kind, applied to its own figures; with the
    answer's `gpu` (hardware.GPU), whether published runs on its architecture are among those measured;
    whether the answer took the framework defaults (`settings_assumed`), and how far the same runs were
    with the defaults (`mean_abs_error_defaults`)."""
    kind = kind_of(moe)
    runs, mean_abs, low, high = C.MODEL_ACCURACY[kind]
    out: dict[str, Any] = {
        "kind": kind,
        "published_runs": runs,
        "mean_abs_error": mean_abs,
        "time_ratio_low": low,
        "time_ratio_high": high,
        "iteration_time_s_low": round(iteration_time_s * low, 4),
        "iteration_time_s_high": round(iteration_time_s * high, 4),
        "settings_assumed": settings_assumed,
        "mean_abs_error_defaults": C.MODEL_ACCURACY_DEFAULTS[kind][1],
    }
    if gpu is not None:
        out["gpu"] = gpu.name
        out["gpu_architecture_measured"] = gpu.architecture in C.MODEL_ACCURACY_ARCHITECTURES
        own = C.MODEL_ACCURACY_BY_ARCHITECTURE.get((kind, gpu.architecture))
        if own is not None:
            out["architecture_runs"], out["architecture_mean_error"] = own
    if train_days is not None and np.isfinite(train_days):
        out["train_days_low"] = rounded_days(train_days * low)
        out["train_days_high"] = rounded_days(train_days * high)
    return out


def _days_text(days: float) -> str:
    if days >= 10:
        return f"{days:,.0f}"
    return f"{days:.1f}" if days >= 1 else f"{days:.2g}"


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
    own = _architecture_sentence(figures)
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
        "days_low": _days_text(figures["train_days_low"]),
        "days_high": _days_text(figures["train_days_high"]),
    }
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
