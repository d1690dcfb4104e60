"""The pipeline engine setting: DeepSpeed's 2021 PipelineEngine against Megatron's 1F1B schedule.

A discrete-event simulation runs each stage's instructions in order with rendezvous transfers (a blocking
send completes only when its peer reaches the matching receive, and both then take `delay`):
- DeepSpeed: `TrainSchedule` (deepspeed/runtime/pipe/schedule.py, 2021): 2 (m + p - 1) steps, forward steps
  `RecvActivation, SendGrad, ForwardPass`, backward steps `SendActivation, RecvGrad, BackwardPass`;
- Megatron: forward_backward_pipelining_without_interleaving, whose steady state exchanges both directions in
  one batched call (`send_forward_recv_backward`, `send_backward_recv_forward`).
It checks the facts sizing/engine/pipeline.py builds on: with free transfers both orders give the 1F1B
makespan (m + p - 1)(F + B); with a delay per transfer Megatron pays 2 per micro-batch, DeepSpeed 4.
"""

from __future__ import annotations

from typing import Any

import pytest

from sizing.engine import InputError, evaluate
from sizing.engine.calibration import SELENE

FORWARD, BACKWARD = 1.0, 3.0  # full recompute: the backward pass reruns the forward
MIRROR = {"SA": "RA", "RA": "SA", "SG": "RG", "RG": "SG"}
PEER = {"SA": 1, "RG": 1, "RA": -1, "SG": -1}  # which neighbour each transfer talks to


def deepspeed_ops(p: int, m: int, s: int) -> list[tuple[str, ...]]:
    """Stage s's instructions, TrainSchedule's order (_step_to_micro_batch and steps())."""
    ops: list[tuple[str, ...]] = []
    prev = -1
    for step in range(2 * (m + p - 1)):
        forward = step % 2 == s % 2
        if forward:
            mb = (step if step % 2 == 0 else step - 1) // 2 - s // 2
        elif step % 2 == 0:
            mb = step // 2 - p + (s + 1) // 2
        else:
            mb = (step - 1) // 2 - p + 1 + s // 2
        valid, prev_valid = 0 <= mb < m, 0 <= prev < m
        if forward:
            ops += [("RA",)] if valid and s > 0 else []
            ops += [("SG",)] if prev_valid and s > 0 else []
        else:
            ops += [("SA",)] if prev_valid and s < p - 1 else []
            ops += [("RG",)] if valid and s < p - 1 else []
        ops += [("F" if forward else "B",)] if valid else []
        prev = mb
    return ops


def megatron_ops(p: int, m: int, s: int) -> list[tuple[str, ...]]:
    """Stage s's operations in Megatron's non-interleaved 1F1B order (batched exchanges as one op)."""
    first, last = s == 0, s == p - 1
    warm = min(p - s - 1, m)
    ops: list[tuple[str, ...]] = []
    for _ in range(warm):
        ops += ([] if first else [("RA",)]) + [("F",)] + ([] if last else [("SA",)])
    steady = m - warm
    ops += [("RA",)] if steady and not first else []
    for i in range(steady):
        ops += [("F",)] + ([] if last else [("SA", "RG")]) + [("B",)]
        if not first:
            ops += [("SG",)] if i == steady - 1 else [("SG", "RA")]
    for _ in range(warm):
        ops += ([] if last else [("RG",)]) + [("B",)] + ([] if first else [("SG",)])
    return ops


def simulate(schedule: Any, p: int, m: int, delay: float = 0.0) -> float:
    """Makespan of one step: every op in order; a transfer op waits for its peer's mirror op."""
    ops = [schedule(p, m, s) for s in range(p)]
    clock, pos = [0.0] * p, [0] * p

    def advance(s: int) -> bool:
        """Run stage s's next op if it can; False if it waits for its peer or has finished."""
        if pos[s] == len(ops[s]):
            return False
        op = ops[s][pos[s]]
        if op in (("F",), ("B",)):
            clock[s] += FORWARD if op == ("F",) else BACKWARD
            pos[s] += 1
            return True
        q = s + PEER[op[0]]
        if pos[q] == len(ops[q]) or sorted(ops[q][pos[q]]) != sorted(MIRROR[k] for k in op):
            return False
        clock[s] = clock[q] = max(clock[s], clock[q]) + delay
        pos[s], pos[q] = pos[s] + 1, pos[q] + 1
        return True

    while sum(advance(s) for s in range(p)):
        pass
    assert pos == [len(o) for o in ops], "the schedule deadlocked"
    return max(clock)


@pytest.mark.parametrize(("p", "m"), [(4, 8), (8, 32), (12, 128), (35, 240)])
def test_both_engines_have_the_1f1b_makespan_with_free_transfers(p: int, m: int) -> None:
    ideal = (m + p - 1) * (FORWARD + BACKWARD)
    assert simulate(deepspeed_ops, p, m) == pytest.approx(ideal)
    assert simulate(megatron_ops, p, m) == pytest.approx(ideal)


@pytest.mark.parametrize("p", [4, 8, 12, 35])
def test_deepspeed_pays_four_transfers_per_micro_batch_megatron_two(p: int) -> None:
    delay = 0.01

    def transfers_per_micro_batch(schedule: Any) -> float:
        """What one more micro-batch adds to the time the transfers take, in transfers."""
        extra = [simulate(schedule, p, m, delay) - simulate(schedule, p, m) for m in (2 * p, 2 * p + 8)]
        return (extra[1] - extra[0]) / (8 * delay)

    assert transfers_per_micro_batch(megatron_ops) == pytest.approx(2.0)
    assert transfers_per_micro_batch(deepspeed_ops) == pytest.approx(4.0)


MTNLG = {
    "layers": 105,
    "hidden": 20480,
    "heads": 128,
    "ffn_hidden": 81920,
    "vocab": 50272,
    "seq_len": 2048,
    "global_batch": 1920,
    "train_tokens": 1e12,
    "tied_embeddings": True,
    "attention": "unfused",
}
LAYOUT = {"tp": 8, "pp": 35, "dp": 8, "micro_batch": 1, "recompute": "full", "sequence_parallel": False}


def test_the_deepspeed_engine_adds_pipeline_time_and_megatron_is_the_default() -> None:
    default = evaluate(MTNLG, SELENE, LAYOUT, gpus=2240)
    megatron = evaluate(MTNLG, SELENE, {**LAYOUT, "pipeline_engine": "megatron"}, gpus=2240)
    deepspeed = evaluate(MTNLG, SELENE, {**LAYOUT, "pipeline_engine": "deepspeed"}, gpus=2240)
    assert default["layout"]["pipeline_engine"] == "megatron"
    assert default["iteration_time_s"] == megatron["iteration_time_s"]
    b_meg, b_ds = megatron["iteration_breakdown_s"], deepspeed["iteration_breakdown_s"]
    # more than twice the pipeline traffic (4 transfers instead of 2, metadata messages, one more gather) ...
    assert b_ds["pp_comm"] > 2.0 * b_meg["pp_comm"]
    # ... and only that, with the bubble that carries it: compute, TP and DP terms are the same
    for key in ("compute", "recompute", "tp_comm", "dp_comm", "other"):
        assert b_ds[key] == b_meg[key]
    assert deepspeed["iteration_time_s"] > megatron["iteration_time_s"]


def test_the_pipeline_engine_is_checked() -> None:
    with pytest.raises(InputError) as err:
        evaluate(MTNLG, SELENE, {**LAYOUT, "pipeline_engine": "gpipe"}, gpus=2240)
    assert err.value.field == "layout.pipeline_engine"
    with pytest.raises(InputError) as err:
        evaluate(MTNLG, SELENE, {**LAYOUT, "pipeline_engine": "deepspeed", "virtual_stages": 3}, gpus=2240)
    assert "no interleaved schedule" in str(err.value)
