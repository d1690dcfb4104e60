from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest

from sizing.engine import constants as C
from sizing.engine.goodput import (
    _poisson_at_least,
    daly_interval,
    fault_model,
    goodput_arrays,
    young_interval,
)


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


def test_without_provider_spares_a_large_job_holds_a_few_spare_nodes_and_stops_waiting_for_tickets() -> None:
    """Little's law: at 16,384 GPUs (MTBF 3.1 h) and a 3 h ticket about one node is in repair at a time;
    a handful of spares (far under 1% of 2,048 nodes) takes the ticket out of nearly every restart."""
    manual = fault_model({})
    g = goodput_arrays(manual, 405e9, 16384, 2048)
    in_repair = 16384 * manual.rate_per_gpu_hour * C.REPLACEMENT_MANUAL_MIN / 60
    assert in_repair == pytest.approx(0.97, abs=0.02)
    spares = int(g["spare_nodes"])
    assert 2 <= spares <= 10
    assert float(g["repair_wait_min"]) < 1.0  # a failure rarely finds every spare in repair
    assert float(g["restart_min"]) < manual.restart_fixed_min - C.REPLACEMENT_MANUAL_MIN + 5
    # holding them pays: node-hours per unit of work fall against holding none
    none = goodput_arrays(fault_model({}, max_nodes=2048), 405e9, 16384, 2048)
    assert int(none["spare_nodes"]) == 0 and float(none["restart_min"]) >= C.REPLACEMENT_MANUAL_MIN
    assert (2048 + spares) / float(g["fraction"]) < 2048 / float(none["fraction"])


def test_a_small_job_holds_no_spares_and_a_provider_pool_needs_none() -> None:
    small = goodput_arrays(fault_model({}), 175e9, 16, 2)  # a failure every ~3,000 h: not worth a node
    assert int(small["spare_nodes"]) == 0
    assert float(small["repair_wait_min"]) == C.REPLACEMENT_MANUAL_MIN
    pool = fault_model({"spare_node_pool": True})
    g = goodput_arrays(pool, 405e9, 16384, 2048)
    assert int(g["spare_nodes"]) == 0 and float(g["repair_wait_min"]) == C.REPLACEMENT_SPARE_POOL_MIN


def test_spares_never_take_the_cluster_past_a_published_cap_and_are_vectorised() -> None:
    capped = goodput_arrays(fault_model({}, max_nodes=2050), 405e9, 16384, 2048)
    assert int(capped["spare_nodes"]) == 2
    many = goodput_arrays(fault_model({}), 405e9, np.array([16.0, 16384.0]), np.array([2.0, 2048.0]))
    assert many["spare_nodes"].tolist()[0] == 0 and many["spare_nodes"].tolist()[1] >= 2


@pytest.mark.parametrize("mean", [0.0, 1e-6, 0.3, 2.5, 17.0])
def test_poisson_tail_is_the_poisson_distribution(mean: float) -> None:
    """P(X >= k) for k = 0..32 against the closed form sum_{j<k} e^-m m^j / j!."""
    tail = _poisson_at_least(33, np.asarray(mean))
    for k in range(33):
        below = sum(math.exp(-mean) * mean**j / math.factorial(j) for j in range(k))
        assert tail[k] == pytest.approx(max(0.0, 1.0 - below), abs=1e-12)
    means = np.array([[0.2, 3.0], [9.0, 0.0]])
    grid = _poisson_at_least(5, means)
    assert grid.shape == (5, 2, 2)
    for i, j in np.ndindex(2, 2):  # each element as its own scalar
        assert np.array_equal(grid[:, i, j], _poisson_at_least(5, means[i, j]))


def test_one_cluster_size_is_computed_once_per_fault_model_and_handed_out_as_a_copy() -> None:
    faults = fault_model({})  # no spare pool: the buyer's spares are optimised
    first = goodput_arrays(faults, 175e9, 1024, 128)
    assert list(faults.scalar_figures) == [(175e9, 1024.0, 128.0)]
    first["fraction"] = -1.0  # a caller's change stays in its own dict
    again = goodput_arrays(faults, 175e9, np.int64(1024), 128.0)
    assert again["fraction"] > 0 and len(faults.scalar_figures) == 1
    as_array = goodput_arrays(faults, 175e9, np.array([1024.0, 2048.0]), np.array([128.0, 256.0]))
    for key, value in again.items():
        assert np.asarray(as_array[key]).reshape(-1)[0] == pytest.approx(
            float(np.asarray(value).reshape(-1)[0]), rel=1e-15
        )
    # another failure rate is another model: nothing carried over
    other = replace(faults, rate_per_gpu_hour=faults.rate_per_gpu_hour * 4)
    assert other.scalar_figures == {}
    assert goodput_arrays(other, 175e9, 1024, 128)["fraction"] < again["fraction"]
