"""Pitfall no-fault-tolerance: failures recovered by hand, on the whole cluster's clock (DESIGN section 6).

Expected failures over the job (the sizing's MTBF, else a failure rate per GPU-hour), times what each
costs: the restart (minutes when automatic, hours by ticket) plus half a checkpoint interval of lost work.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from checks.rules.base import Finding, Msg, Signal, _, claim, joined, merge, model, to_float
from checks.rules.context import Context
from checks.rules.thresholds import (
    AUTO_RESTART_MIN,
    DEFAULT_CHECKPOINT_WRITE_MIN,
    FAILURES_CRITICAL,
    MANUAL_RESTART_H,
    REFERENCE_MFU,
    REFERENCE_TOKENS,
)
from checks.severity import Severity
from hardware import GPUS
from hardware.numbers import days_text
from hardware.reliability import DEFAULT_FAILURE_RATE_PER_GPU_HOUR

_MISSING_WORDS = {
    "auto_bad_node_detection": _("automatic bad-node detection"),
    "auto_checkpoint_restart": _("automatic checkpoint/restart"),
}


@dataclass(frozen=True)
class _FailureEstimate:
    failures: float  # expected over the job
    wall_h: float  # the job's wall-clock hours
    gpu_hours_source: Msg
    mtbf_h: float  # of the whole job
    rate_text: Msg  # where the failure rate comes from, for the impact text


def _job_gpu_hours(ctx: Context) -> tuple[float, Msg]:
    cost = (ctx.sizing or {}).get("cost") or {}
    gpu_hours = to_float(cost.get("gpu_hours")) if isinstance(cost, dict) else None
    if gpu_hours:
        return gpu_hours, _("sizing result")
    days = to_float((ctx.sizing or {}).get("train_days"))
    if days:
        return days * 24 * ctx.gpus, _("sizing result")
    tokens = to_float((ctx.workload or {}).get("train_tokens")) or REFERENCE_TOKENS
    peak = (ctx.spec.bf16_tflops if ctx.spec else GPUS["H100-SXM-80GB"].bf16_tflops) * 1e12
    # 6 x active params x tokens (DESIGN section 5) at the reference MFU.
    hours = 6 * ctx.params_active * tokens / (peak * REFERENCE_MFU) / 3600
    return hours, _("estimate 6 x params x tokens at %(mfu)s MFU", mfu=f"{REFERENCE_MFU:.0%}")


def _expected_failures(ctx: Context, goodput: dict) -> _FailureEstimate:
    days = to_float((ctx.sizing or {}).get("train_days"))
    if days:
        # Expected failures = training hours / job MTBF (issue 6); GPU-hours follow from the job's GPUs.
        wall_h, how = days * 24, _("sizing result")
        gpu_hours = wall_h * ctx.gpus
    else:
        gpu_hours, how = _job_gpu_hours(ctx)
        wall_h = gpu_hours / max(ctx.gpus, 1)
    mtbf = to_float(goodput.get("mtbf_h"))
    if mtbf:
        return _FailureEstimate(
            wall_h / mtbf, wall_h, how, mtbf, _("job MTBF %(mtbf)s h (sizing)", mtbf=f"{mtbf:g}")
        )
    rate = to_float(ctx.offering.get("failure_rate_per_gpu_hour")) or DEFAULT_FAILURE_RATE_PER_GPU_HOUR
    rate_text = (
        _("%(rate)s failures per GPU-hour (offering)", rate=f"{rate:.3g}")
        if ctx.offering.get("failure_rate_per_gpu_hour")
        else _("%(rate)s failures per GPU-hour (Llama 3)", rate=f"{rate:.3g}")
    )
    return _FailureEstimate(
        failures=rate * gpu_hours,
        wall_h=wall_h,
        gpu_hours_source=how,
        mtbf_h=1 / (rate * max(ctx.gpus, 1)),
        rate_text=rate_text,
    )


def _checkpoint_interval_min(goodput: dict, mtbf_h: float) -> float:
    interval_min = to_float(goodput.get("checkpoint_interval_min"))
    if interval_min:
        return interval_min
    write_min = (to_float(goodput.get("checkpoint_write_s")) or DEFAULT_CHECKPOINT_WRITE_MIN * 60) / 60
    return math.sqrt(2 * write_min * mtbf_h * 60)  # Young (1974), calibration.md section 4


def _restart_hours(offering: dict) -> float:
    """Hours from a failure to the job running again, as the offering's recovery allows."""
    if not (offering.get("auto_bad_node_detection") and offering.get("auto_replacement")):
        return MANUAL_RESTART_H
    replacement_min = to_float(offering.get("replacement_time_min"))
    restart_h = (replacement_min / 60) if replacement_min else AUTO_RESTART_MIN / 60
    if not offering.get("auto_checkpoint_restart"):
        restart_h += 0.5  # someone must resubmit the job from the last checkpoint
    return restart_h


def _both(*parts: Msg) -> Msg:
    """One part, or two joined by "and" (each translated on its own)."""
    return (
        _("%(first)s and %(second)s", first=parts[0], second=parts[1]) if len(parts) > 1 else joined(*parts)
    )


def _severity(failures: float, missing: list[str]) -> Severity:
    if failures > FAILURES_CRITICAL:
        return Severity.CRITICAL if len(missing) == 2 else Severity.WARNING
    return Severity.WARNING if failures >= 1 else Severity.INFO


def rule_no_fault_tolerance(ctx: Context) -> list[Finding]:
    """Fires when auto bad-node detection or checkpoint/restart is missing for a job expecting failures."""
    offering = ctx.offering
    if offering.get("auto_bad_node_detection") is True and offering.get("auto_checkpoint_restart") is True:
        return []
    goodput = (ctx.sizing or {}).get("goodput") or {}
    goodput = goodput if isinstance(goodput, dict) else {}
    estimate = _expected_failures(ctx, goodput)
    failures = estimate.failures
    interval_min = _checkpoint_interval_min(goodput, estimate.mtbf_h)
    restart_h = _restart_hours(offering)
    lost_gpu_hours = failures * ctx.gpus * (restart_h + interval_min / 60 / 2)
    avoidable_gpu_hours = failures * ctx.gpus * max(restart_h - AUTO_RESTART_MIN / 60, 0.0)
    usd = lost_gpu_hours * ctx.price if ctx.price else None
    avoidable_usd = avoidable_gpu_hours * ctx.price if ctx.price else None
    missing = [name for name in _MISSING_WORDS if not offering.get(name)]
    text = _(
        "Expected %(failures)s failures over %(days)s days (%(rate)s; GPU-hours from %(source)s). Each costs "
        "~%(restart_h)s h of restart plus half a %(interval)s-min checkpoint interval on %(gpus)s GPUs: "
        "%(lost)s GPU-hours%(usd)s, of which %(avoidable)s would be saved by automatic recovery in "
        "~%(auto_min)s min.",
        failures=f"{failures:.1f}",
        days=days_text(estimate.wall_h / 24),
        rate=estimate.rate_text,
        source=estimate.gpu_hours_source,
        restart_h=f"{restart_h:.1f}",
        interval=f"{interval_min:.0f}",
        gpus=ctx.gpus,
        lost=f"{lost_gpu_hours:,.0f}",
        usd=f" (${usd:,.0f})" if usd is not None else "",
        avoidable=f"{avoidable_gpu_hours:,.0f}",
        auto_min=f"{AUTO_RESTART_MIN:.0f}",
    )
    published = (
        _("not published") if all(offering.get(name) is None for name in missing) else _("not offered")
    )
    signal = Signal(
        _severity(failures, missing),
        _(
            "No %(missing)s (%(published)s)",
            missing=_both(*(_MISSING_WORDS[name] for name in missing)),
            published=published,
        ),
        [
            *(
                claim(offering, name)
                for name in (
                    "auto_bad_node_detection",
                    "auto_checkpoint_restart",
                    "auto_replacement",
                    "spare_node_pool",
                    "replacement_time_min",
                )
            ),
            model(ctx.job_words),
            model(
                _("expected failures = %(value)s", value=f"{failures:.2f}"),
                "expected_failures",
                round(failures, 2),
            ),
        ],
        _(
            "Ask: how is a failed GPU or node detected, how fast is it drained and replaced (API or ticket), "
            "is there a hot-spare pool on the same spine, and will the platform restart the job from the "
            "last checkpoint? Put the replacement time in the contract."
        ),
        {
            "expected_failures": round(failures, 2),
            "gpu_hours_lost": round(lost_gpu_hours, 1),
            "usd_lost": round(usd, 2) if usd is not None else None,
            "gpu_hours_avoidable": round(avoidable_gpu_hours, 1),
            "usd_avoidable": round(avoidable_usd, 2) if avoidable_usd is not None else None,
            "restart_h": round(restart_h, 2),
            "checkpoint_interval_min": round(interval_min, 1),
            "text": text,
        },
    )
    return merge("no-fault-tolerance", [signal])
