"""layout.pipeline_schedules (thirtieth stop): gradient accumulation outside the pipeline schedule, as NeMo
AutoModel's benchmark recipe and torchtitan run it, fills and drains the pipeline once per accumulation step:
each run has its own bubble and send chain, and holds at most its own micro-batches in flight."""

from __future__ import annotations

from typing import Any

import pytest

from sizing.engine import InputError, evaluate

WORKLOAD = {"preset": "llama3-70b", "global_batch": 64}
# 64 sequences over DP 2 at micro-batch 1: 32 micro-batches per replica and step
LAYOUT = {
    "tp": 8,
    "pp": 4,
    "dp": 2,
    "zero": 1,
    "micro_batch": 1,
    "recompute": "selective",
    "virtual_stages": 2,
}


def _eval(h100_ib: dict[str, Any], **layout: Any) -> dict[str, Any]:
    return evaluate(WORKLOAD, h100_ib, {**LAYOUT, **layout})


def test_each_run_of_the_schedule_pays_its_own_bubble_and_send_chain(h100_ib: dict[str, Any]) -> None:
    once, four = _eval(h100_ib), _eval(h100_ib, pipeline_schedules=4)
    b1, b4 = once["iteration_breakdown_s"], four["iteration_breakdown_s"]
    assert b4["bubble"] == pytest.approx(4 * b1["bubble"], rel=1e-3)
    assert b4["compute"] == b1["compute"] and b4["ep_comm"] == b1["ep_comm"]
    assert four["iteration_time_s"] > once["iteration_time_s"] + 2.9 * b1["bubble"]
    assert four["layout"]["pipeline_schedules"] == 4
    assert "pipeline_schedules" not in once["layout"]  # unset stays out of the answer, as before the key
    assert any("4 fills and drains of the pipeline" in line for line in four["explanation"])


def test_a_run_holds_at_most_its_own_micro_batches_in_flight(h100_ib: dict[str, Any]) -> None:
    # 1F1B on 4 stages: the first holds min(p, m) micro-batches; 8 runs of 4 micro-batches hold 4, 16 runs
    # of 2 hold 2: half the activations
    layout = {"virtual_stages": 1}
    four = _eval(h100_ib, **layout, pipeline_schedules=8)["memory_gib_per_gpu"]["activations"]
    two = _eval(h100_ib, **layout, pipeline_schedules=16)["memory_gib_per_gpu"]["activations"]
    assert _eval(h100_ib, **layout)["memory_gib_per_gpu"]["activations"] == four
    assert two == pytest.approx(four / 2, rel=0.02)


def test_the_interleaved_order_needs_each_run_to_be_a_multiple_of_the_stages(h100_ib: dict[str, Any]) -> None:
    # 32 micro-batches in 16 runs of 2, on 4 stages with virtual stages: Megatron's interleaved order cannot
    # run them
    r = _eval(h100_ib, pipeline_schedules=16)
    assert not r["feasible"]
    assert any("multiple of PP" in reason for reason in r["reasons"])


def test_the_runs_must_divide_the_micro_batches(h100_ib: dict[str, Any]) -> None:
    with pytest.raises(InputError) as err:
        _eval(h100_ib, pipeline_schedules=3)
    assert err.value.field == "layout.pipeline_schedules"
    assert "must divide the 32 micro-batches" in str(err.value)
    for bad in (0, 2.5, True, "4"):
        with pytest.raises(InputError) as err:
            _eval(h100_ib, pipeline_schedules=bad)
        assert err.value.field == "layout.pipeline_schedules"


def test_without_pipeline_stages_the_runs_change_nothing_and_it_is_said(h100_ib: dict[str, Any]) -> None:
    flat = {"tp": 8, "pp": 1, "dp": 8, "zero": 1, "micro_batch": 1, "recompute": "full"}
    plain = evaluate(WORKLOAD, h100_ib, flat)
    runs = evaluate(WORKLOAD, h100_ib, {**flat, "pipeline_schedules": 4})
    assert runs["iteration_time_s"] == plain["iteration_time_s"]
    assert "pipeline_schedules" not in runs["layout"]
    assert any("pipeline_schedules > 1 without pipeline parallelism" in a for a in runs["assumptions"])
