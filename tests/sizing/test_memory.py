"""Exact memory test vectors of calibration.md §3."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

import pytest

from sizing.engine import constants as C
from sizing.engine import memory as M

PSI = 7.5e9
GRID = {  # stage -> GB for Nd = 1, 4, 16, 64, 256, 1024 (ZeRO paper, cal §3)
    1: [120, 52.5, 35.6, 31.4, 30.4, 30.1],
    2: [120, 41.3, 21.6, 16.6, 15.4, 15.1],
    3: [120, 30, 7.5, 1.88, 0.47, 0.12],
}


@pytest.mark.parametrize("stage", [1, 2, 3])
def test_it_reproduces_the_zero_paper_grid(stage: int) -> None:
    for nd, want in zip([1, 4, 16, 64, 256, 1024], GRID[stage], strict=True):
        got = Decimal(float(M.zero_paper_bytes(PSI, nd, stage))) / Decimal(10**9)
        quantum = Decimal(str(want)) if "." in str(want) else Decimal(1)
        # the paper rounds half up (41.25 -> 41.3)
        assert got.quantize(quantum.normalize() if "." in str(want) else quantum, ROUND_HALF_UP) == Decimal(
            str(want)
        ), (stage, nd, got)


def test_it_reproduces_the_zero_paper_baseline_and_1t_row() -> None:
    assert float(M.zero_paper_bytes(PSI, 64, 0)) / 1e9 == 120
    got = [round(float(M.zero_paper_bytes(1e12, 64, s)) / 1e9, 1) for s in (1, 2, 3)]
    assert got == [4187.5, 2218.8, 250.0]


def test_megatron_convention_is_18_bytes_and_6_plus_12_over_dp_with_distributed_optimizer() -> None:
    w, g, o = M.model_state_bytes(1.0, 8, 0, "megatron")
    assert float(w + g + o) == 18.0
    w, g, o = M.model_state_bytes(1.0, 8, 1, "megatron")
    assert float(w + g + o) == 6.0 + 12.0 / 8


# Korthikanti Figure 1 per-GPU GiB (cal §3): (layers, hidden, heads, t, p, v, micro-batch)
KORTHIKANTI = [
    ((48, 6144, 64, 8, 1, 1, 4), 45.5625, 59.25, 9.5625),
    ((96, 12288, 96, 8, 8, 3, 1), 45.5625, 66.84375, 12.3515625),
    ((105, 20480, 128, 8, 35, 3, 1), 31.640625, 114.0234375, 23.076171875),
    ((128, 25600, 160, 8, 64, 1, 1), 32.958984375, 131.25, 26.5625),
]


@pytest.mark.parametrize(("shape", "states", "tp_only", "sp_sel"), KORTHIKANTI)
def test_it_reproduces_korthikanti_figure_1_exactly(
    shape: tuple[int, ...], states: float, tp_only: float, sp_sel: float
) -> None:
    layers, h, a, t, p, v, b = shape
    s = 2048
    coeffs = M.activation_coefficients(h, a, h, 16.0)  # MHA, 4h GeLU MLP
    # the first stage holds L/p layers x p micro-batches in flight (x interleaving factor)
    held = layers / p * float(M.in_flight_factor(p, v, 10**6))
    act_tp = float(M.activation_bytes_per_layer(s, b, h, coeffs, t, False, 0)) * held
    act_sel = float(M.activation_bytes_per_layer(s, b, h, coeffs, t, True, 1)) * held
    w, g, o = M.model_state_bytes(12 * layers * h * h / (t * p), 1, 0, "megatron")
    assert float(w + g + o) / C.GIB == states
    assert act_tp / C.GIB == tp_only
    assert act_sel / C.GIB == sp_sel


def test_full_recompute_keeps_2sbh_per_layer() -> None:
    coeffs = M.activation_coefficients(4096, 32, 4096, 16.0)
    assert float(M.activation_bytes_per_layer(2048, 1, 4096, coeffs, 8, False, 2)) == 2 * 2048 * 4096


def test_it_reproduces_the_deepspeed_t5_3b_estimates() -> None:
    # t5-3b: 2851M params; largest layer is the 32128 x 1024 embedding (32.9M, printed as "32M")
    assert round(M.deepspeed_zero2_bytes(2851e6, 8) / C.GIB, 2) == 15.93
    assert round(M.deepspeed_zero3_bytes(2851e6, 32128 * 1024, 8) / C.GIB, 2) == 6.10


def test_in_flight_is_capped_by_the_number_of_micro_batches() -> None:
    assert float(M.in_flight_factor(16, 1, 4)) == 4
    assert float(M.in_flight_factor(16, 1, 64)) == 16
