"""The GEMM efficiency curve's half point is a fixed time per GEMM, not a fixed size
(timing.gemm_efficiency, constants.GEMM_HALF_SIZE / GEMM_HALF_SIZE_RATE; docs/MODEL.md, "The GEMM curve's
half point is a time")."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from sizing.engine import constants as C
from sizing.engine import evaluate, workload_preset
from sizing.engine import timing as T
from sizing.engine.calibration import SELENE
from sizing.engine.hardware import Hardware, hardware_from_facts
from sizing.engine.model import _linear_peak
from tests.sizing.conftest import GB200


def _hw(gpu: str) -> Hardware:
    return hardware_from_facts({**SELENE, "gpu": gpu, "nodes": 4})


def _rate(hw: Hardware, precision: str) -> float:
    """The peak the model runs a linear GEMM at, before the plateau."""
    return _linear_peak(replace(workload_preset("13b"), precision=precision), hw)


def _half_point(hw: Hardware, peak: float) -> float:
    """The GEMM size at which the curve reaches half its plateau, found by bisection on the curve itself."""
    lo, hi = 1e6, 1e13
    for _ in range(200):
        mid = (lo * hi) ** 0.5
        if float(T.gemm_efficiency(hw, mid, peak)) < hw.gemm_efficiency_max / 2:
            lo = mid
        else:
            hi = mid
    return lo


def test_on_the_a100_in_bf16_the_curve_is_the_fitted_one() -> None:
    hw = _hw("A100-SXM-80GB")
    for x in (1e8, 7.5e8, 1e10, 1e12):
        expected = hw.gemm_efficiency_max * x / (x + C.GEMM_HALF_SIZE)
        assert float(T.gemm_efficiency(hw, x, _rate(hw, "bf16"))) == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize(
    ("gpu", "precision"),
    [
        ("A100-SXM-80GB", "bf16"),
        ("H100-SXM-80GB", "bf16"),
        ("H100-SXM-80GB", "fp8"),
        ("H200-SXM-141GB", "fp8"),
        ("B200-180GB", "fp8"),
        ("GB200-186GB", "fp8"),
        ("GB300-288GB", "fp8"),
        ("MI325X-256GB", "bf16"),
    ],
)
def test_the_half_point_is_the_same_time_on_every_gpu_and_precision(gpu: str, precision: str) -> None:
    # the A100 fit read as a time: 2 x 7.5e8 FLOP... at 312 TFLOP/s x 0.72, 6.7 us per GEMM
    hw = _hw(gpu)
    peak = _rate(hw, precision)
    half = _half_point(hw, peak)
    seconds = 2.0 * half / (peak * hw.gemm_efficiency_max)
    assert seconds == pytest.approx(2.0 * C.GEMM_HALF_SIZE / C.GEMM_HALF_SIZE_RATE, rel=1e-6)
    assert seconds == pytest.approx(6.7e-6, abs=0.05e-6)


def test_the_same_gemm_sits_lower_on_the_curve_on_a_faster_gpu() -> None:
    # Azure's cuBLASLt fp8 sweeps: at 2048^3 H200 reaches 0.87 of its 16384^3 rate, GB200 0.59; both reach
    # 0.96 at 4096^3. The model's curve falls the same way (further for GB200), and both saturate
    h200, gb200 = _hw("H200-SXM-141GB"), _hw("GB200-186GB")

    def share(hw: Hardware, n: int) -> float:
        return float(T.gemm_efficiency(hw, float(n) ** 3, _rate(hw, "fp8"))) / hw.gemm_efficiency_max

    assert share(gb200, 2048) < share(h200, 2048) < 0.9
    assert 0.4 < share(gb200, 2048)
    assert share(gb200, 16384) > 0.99 and share(h200, 16384) > 0.99


def _compute(facts: dict[str, Any], layout: dict[str, Any], gpus: int, precision: str) -> float:
    # Llama 3.1 8B's shape (the MLPerf v5.1 rows), 64 sequences of 8,192 tokens per step
    llama8b = {"layers": 32, "hidden": 4096, "heads": 32, "kv_heads": 8, "ffn_hidden": 14336, "vocab": 128256}
    wl = {**workload_preset("13b").to_dict(), **llama8b, "seq_len": 8192, "global_batch": 64}
    wl = {**wl, "name": "Llama 3.1 8B", "precision": precision, "activation": "swiglu", "params": None}
    r = evaluate(wl, facts, layout, gpus=gpus)
    assert r["feasible"], r["reasons"]
    return float(r["iteration_breakdown_s"]["compute"])


def test_splitting_a_short_sequence_costs_more_compute_on_a_fast_gpu() -> None:
    # the same global batch on 8 GPUs, whole 8,192-token sequences per GPU (TP1 DP8) against each sequence
    # split over TP2 (DP4): the same FLOPs per GPU in smaller GEMMs, so the split's compute is longer, and
    # longer in fp8 on a GB200 (a faster rate, a larger half point) than in bf16 on an A100
    whole = {"tp": 1, "pp": 1, "dp": 8, "micro_batch": 1}
    split = {"tp": 2, "pp": 1, "dp": 4, "micro_batch": 1, "sequence_parallel": True}

    def ratio(facts: dict[str, Any], precision: str) -> float:
        return _compute(facts, split, 8, precision) / _compute(facts, whole, 8, precision)

    a100 = ratio({**SELENE, "nodes": 1}, "bf16")
    gb200 = ratio({**GB200, "nodes": 2}, "fp8")
    assert 1.0 < a100 < 1.02 < gb200 < 1.3
