from __future__ import annotations

import pytest

from sizing.engine import constants as C
from sizing.engine.goodput import daly_interval, fault_model, goodput_arrays, young_interval


@pytest.mark.parametrize(
    ("mtbf_min", "daly", "young"), [(24 * 60, 116.7, 120.0), (6 * 60, 56.7, 60.0), (15, 9.1, 12.2)]
)
def test_young_daly_vectors(mtbf_min: float, daly: float, young: float) -> None:
    assert round(float(daly_interval(5.0, mtbf_min)), 1) == daly
    assert round(float(young_interval(5.0, mtbf_min)), 1) == young


def test_daly_interval_is_mtbf_when_the_checkpoint_is_longer_than_twice_mtbf() -> None:
    assert float(daly_interval(30.0, 10.0)) == 10.0


def test_llama3_failure_rate_gives_a_3_1_hour_job_mtbf_at_16384_gpus() -> None:
    fm = fault_model({})
    assert fm.rate_per_gpu_hour == pytest.approx(1.97e-5, rel=0.01)
    g = goodput_arrays(fm, 405e9, 16384, 2048)
    assert float(g["mtbf_h"]) == pytest.approx(3.1, abs=0.05)


def test_manual_replacement_costs_hours_and_lowers_goodput() -> None:
    auto = fault_model(
        {"auto_bad_node_detection": True, "auto_replacement": True, "auto_checkpoint_restart": True}
    )
    manual = fault_model({})
    assert auto.restart_fixed_min < 30
    assert manual.restart_fixed_min >= C.REPLACEMENT_MANUAL_MIN
    ga = goodput_arrays(auto, 175e9, 4096, 512)
    gm = goodput_arrays(manual, 175e9, 4096, 512)
    assert float(gm["fraction"]) < float(ga["fraction"]) < 1.0
    assert any("manual ticket" in a for a in manual.assumptions)
