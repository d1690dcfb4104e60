"""Activations held by each pipeline rank (Megatron's warm-up counts), uneven first/last stages, and the
published layouts they make fit (Llama 3 405B on 16,384 H100, gpt-oss-120b on 64 H100)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from sizing.engine import evaluate
from sizing.engine import memory as M
from sizing.engine.errors import InputError
from sizing.engine.validation import by_id, predict


def peak_chunks_in_flight(p: int, v: int, m: int, rank: int) -> int:
    """Walk Megatron-Core's order for one rank (schedules.py: warm-up forwards, then one forward and one
    backward, then the cool-down backwards) and return the most chunks whose backward has not run."""
    total = m * v
    warm = min((p - rank - 1) * 2 + (v - 1) * p, total) if v > 1 else min(p - rank - 1, m)
    order = ["F"] * warm
    forwards = warm
    while forwards < total:
        order += ["F", "B"]
        forwards += 1
    order += ["B"] * (total - order.count("B"))
    held = peak = 0
    for op in order:
        held += 1 if op == "F" else -1
        peak = max(peak, held)
    return peak


@pytest.mark.parametrize("p", [2, 4, 8, 16])
@pytest.mark.parametrize("v", [1, 2, 4, 8])
@pytest.mark.parametrize("groups", [1, 2, 4])
def test_in_flight_factor_is_megatrons_peak_on_every_rank(p: int, v: int, groups: int) -> None:
    m = groups * p  # the interleaved schedule needs a multiple of p (1F1B takes any m)
    for rank in range(p):
        expected = peak_chunks_in_flight(p, v, m, rank) / v
        assert float(M.in_flight_factor(p, v, m, rank)) == pytest.approx(expected), (p, v, m, rank)


def test_with_as_many_micro_batches_as_stages_every_forward_runs_before_the_first_backward() -> None:
    # p = 16, v = 4: the warm-up (2 x 15 + 3 x 16 = 78 chunks) exceeds the 64 chunks of 16 micro-batches
    assert float(M.in_flight_factor(16, 4, 16)) == 16
    assert float(M.in_flight_factor(16, 4, 32)) == 16 + 15 / 4
    assert float(M.in_flight_factor(16, 4, 32, rank=1)) == 16 + 13 / 4


def test_llama3_405b_published_16k_layout_fits_an_h100() -> None:
    # Llama 3 paper sec. 3.3.2 / Table 4: TP8 PP16 DP128, 16 micro-batches of one 8K sequence per replica,
    # no recompute; FSDP shards gradients and optimizer state (ZeRO-2); first and last stages one layer fewer
    r = predict(by_id("llama3-405b-h100-16384"))
    assert r["feasible"], r["reasons"]
    mem = r["memory_gib_per_gpu"]
    assert mem["total"] == pytest.approx(75.2, abs=0.1)
    assert mem["total"] < r["hbm_gib_per_gpu"] == pytest.approx(81559 / 1024, abs=0.001)
    # the gradients are sharded over the 128 replicas: 2 bytes x the stage's parameters / 128
    assert mem["grads"] == pytest.approx(mem["weights"] / 128, rel=0.01)
    # the same layout with ZeRO-1 keeps whole bf16 gradients and does not fit
    zero1 = predict(by_id("llama3-405b-h100-16384"), zero=1)
    assert not zero1["feasible"]
    assert zero1["memory_gib_per_gpu"]["grads"] == pytest.approx(mem["weights"], rel=0.01)


def test_a_lighter_first_stage_moves_the_peak_to_the_second_rank() -> None:
    slots_off = {
        "account_for_embedding_in_pipeline_split": False,
        "account_for_loss_in_pipeline_split": False,
    }
    even = predict(by_id("llama3-405b-h100-8192"), **slots_off, first_stage_layers=8, last_stage_layers=6)
    ends = predict(by_id("llama3-405b-h100-8192"), **slots_off, first_stage_layers=7, last_stage_layers=7)
    # 8 x 15 / 6: the first rank, 8 layers x 19.75 micro-batches; 7/8x14/7: the second, 8 x 19.25
    ratio = ends["memory_gib_per_gpu"]["activations"] / even["memory_gib_per_gpu"]["activations"]
    assert ratio == pytest.approx(19.25 / 19.75, rel=1e-4)  # the report rounds to 1 MiB
    # the slowest stage still holds 8 layers (the last, 7 + the output layer, does not bind): the time moves
    # only with the parameters the largest stage holds (8 layers instead of 8 + the embedding)
    assert ends["layers_per_stage_max"] == even["layers_per_stage_max"] == 8
    assert ends["iteration_time_s"] == pytest.approx(even["iteration_time_s"], rel=0.005)
    assert ends["memory_gib_per_gpu"]["weights"] < even["memory_gib_per_gpu"]["weights"]
    # the published row counts the embedding and the loss as pipeline layers instead (Megatron-Core refuses
    # 7-layer ends with v = 4): the same 7, 8 x 14, 7 layers, rank 1 binds with the same 77 two-layer chunks
    row = predict(by_id("llama3-405b-h100-8192"))
    assert row["layout"]["account_for_embedding_in_pipeline_split"] is True
    assert row["memory_gib_per_gpu"] == ends["memory_gib_per_gpu"]
    assert row["iteration_time_s"] == pytest.approx(ends["iteration_time_s"], rel=1e-12)


def test_gpt_oss_120b_published_h100_recipe_fits() -> None:
    # Megatron-Bridge 25.11 recipe: micro-batch 1 (the table's MBS 4 was copied from its B200 row)
    r = predict(by_id("bridge2511-h100-gptoss-120b-64"))
    assert r["feasible"], r["reasons"]
    # 60.1 GiB: its attention core is wider than h (64 heads x 64 = 4,096 against 2,880)
    assert r["memory_gib_per_gpu"]["total"] < 62
    assert not predict(by_id("bridge2511-h100-gptoss-120b-64"), micro_batch=4)["feasible"]


@pytest.mark.parametrize(
    "layout",
    [
        {"pp": 1, "dp": 8, "first_stage_layers": 3},
        {"pp": 4, "dp": 2, "first_stage_layers": 30, "last_stage_layers": 9},
        {"pp": 2, "dp": 4, "first_stage_layers": 10, "last_stage_layers": 10},
    ],
)
def test_impossible_stage_ends_are_refused_naming_the_field(layout: dict[str, Any]) -> None:
    wl = {"preset": "13b", "global_batch": 64}  # 40 layers
    offering = {**dict(by_id("llama3-405b-h100-16384").offering), "nodes": 1}
    with pytest.raises(InputError) as err:
        evaluate(wl, offering, layout, gpus=8)
    assert err.value.field == "layout.first_stage_layers"


def test_a_heavier_last_stage_sets_the_pace() -> None:
    wl = {"preset": "13b", "global_batch": 64}  # 40 layers: 10 per stage on 4 stages
    offering = {**dict(by_id("llama3-405b-h100-16384").offering), "nodes": 1}
    lay = {"tp": 1, "pp": 4, "dp": 2, "micro_batch": 1, "recompute": "full"}
    even = evaluate(wl, offering, lay, gpus=8)
    heavy = evaluate(wl, offering, {**lay, "first_stage_layers": 8, "last_stage_layers": 14}, gpus=8)
    assert heavy["layout"]["last_stage_layers"] == 14
    assert heavy["layers_per_stage_max"] == 14 and even["layers_per_stage_max"] == 10
    # the binding stage runs 14 layers and the output layer instead of 10: at least 1.3x the stage time
    assert heavy["iteration_time_s"] > 1.3 * even["iteration_time_s"]


def test_the_default_split_takes_the_layers_short_of_even_off_both_ends() -> None:
    # 126 layers on 16 stages, no ends set: one layer off the first stage, the other off the last, as the
    # Llama 3 paper did (sec. 3.3.2), not 8 on every stage but a last of 6
    slots_off = {
        "account_for_embedding_in_pipeline_split": False,
        "account_for_loss_in_pipeline_split": False,
    }
    default = predict(by_id("llama3-405b-h100-8192"), **slots_off)
    ends = predict(by_id("llama3-405b-h100-8192"), **slots_off, first_stage_layers=7, last_stage_layers=7)
    assert default["memory_gib_per_gpu"] == ends["memory_gib_per_gpu"]
    assert default["iteration_time_s"] == ends["iteration_time_s"]
    # 127 layers: one short, off the first stage only (the last keeps 8 beside the output layer)
    row = by_id("llama3-405b-h100-8192")
    one_short = dict(row.workload, layers=127)
    lay = {**row.layout, **slots_off}
    default = evaluate(one_short, dict(row.offering), lay)
    first7 = evaluate(one_short, dict(row.offering), {**lay, "first_stage_layers": 7, "last_stage_layers": 8})
    assert default["memory_gib_per_gpu"] == first7["memory_gib_per_gpu"]


def test_the_three_ranks_at_once_are_in_flight_factor_of_each() -> None:
    """memory.in_flight_factors (ranks 0, 1, p - 1, what the memory model takes on every grid) is
    in_flight_factor of each rank to the bit, 1F1B and interleaved, capped and not."""
    pp = np.arange(1, 33, dtype=float)[:, None]
    v = np.array([1, 2, 3, 4, 6, 8, 12], dtype=float)[None, :]
    for micro in (1.0, 4.0, 16.0, 1000.0, np.arange(1, 32 * 7 + 1, dtype=float).reshape(32, 7)):
        three = M.in_flight_factors(pp, v, micro)
        each = [M.in_flight_factor(pp, v, micro, rank=r) for r in (0, 1, pp - 1.0)]
        for got, want in zip(three, each, strict=True):
            assert np.array_equal(got, want)
