"""The pipeline terms against a discrete-event simulation of Megatron's interleaved 1F1B order.

The simulation runs each rank's operations in Megatron-Core's order (forward_backward_pipelining_with_
interleaving: warm-up of 2(p - rank - 1) + (v - 1) p forward chunks, then one forward and one backward, then
the cool-down), each chunk waiting for the same micro-batch's chunk on the neighbouring rank (and the last
virtual stage's forward before its backward). It checks the two facts docs/MODEL.md builds on: the bubble is
exactly (p - 1)/(v m) of the ideal whenever m is a multiple of p, and asynchronous sends with a delay c cost
2 (p v - 1) c per step whatever m (model._pipeline_comm).
"""

from __future__ import annotations

from typing import Any

import pytest

FORWARD, BACKWARD = 1.0, 2.0  # per micro-batch through a whole stage


def simulate(p: int, v: int, m: int, delay: float = 0.0) -> float:
    """Makespan of one step: p ranks, v chunks per rank, m micro-batches; `delay` per cross-rank hop."""

    def forward_id(k: int) -> tuple[int, int]:
        return (k // (p * v)) * p + k % p, (k // p) % v

    def backward_id(k: int) -> tuple[int, int]:
        return (k // (p * v)) * p + k % p, v - 1 - (k // p) % v

    total = m * v
    ops = []
    for rank in range(p):
        warm = min((p - rank - 1) * 2 + (v - 1) * p, total) if v > 1 else min(p - rank - 1, m)
        seq = [("F", *forward_id(k)) for k in range(warm)]
        f, b = warm, 0
        while f < total:
            seq += [("F", *forward_id(f)), ("B", *backward_id(b))]
            f, b = f + 1, b + 1
        seq += [("B", *backward_id(k)) for k in range(b, total)]
        ops.append(seq)
    done: dict[tuple[int, str, int, int], float] = {}
    clock, pos = [0.0] * p, [0] * p
    moved = True
    while moved:
        moved = False
        for rank in range(p):
            while pos[rank] < len(ops[rank]):
                kind, mb, chunk = ops[rank][pos[rank]]
                if kind == "F":
                    dep = (
                        None
                        if rank == 0 and chunk == 0
                        else ((rank - 1, "F", mb, chunk) if rank > 0 else (p - 1, "F", mb, chunk - 1))
                    )
                elif rank == p - 1 and chunk == v - 1:
                    dep = (rank, "F", mb, chunk)
                else:
                    dep = (rank + 1, "B", mb, chunk) if rank < p - 1 else (0, "B", mb, chunk + 1)
                if dep is not None and dep not in done:
                    break
                ready = 0.0 if dep is None else done[dep] + (delay if dep[0] != rank else 0.0)
                clock[rank] = max(clock[rank], ready) + (FORWARD if kind == "F" else BACKWARD) / v
                done[(rank, kind, mb, chunk)] = clock[rank]
                pos[rank] += 1
                moved = True
    assert all(pos[r] == len(ops[r]) for r in range(p)), "the schedule deadlocked"
    return max(clock)


@pytest.mark.parametrize(
    ("p", "v", "m"), [(8, 1, 32), (8, 6, 8), (8, 6, 32), (16, 4, 16), (4, 5, 32), (2, 21, 8)]
)
def test_interleaved_bubble_is_exact_at_any_multiple_of_p(p: int, v: int, m: int) -> None:
    ideal = m * (FORWARD + BACKWARD)
    assert simulate(p, v, m) == pytest.approx(ideal * (1 + (p - 1) / (v * m)))


@pytest.mark.parametrize(("p", "v", "m"), [(8, 6, 8), (8, 6, 64), (16, 4, 16), (4, 2, 8)])
def test_asynchronous_sends_cost_a_chain_independent_of_the_micro_batches(p: int, v: int, m: int) -> None:
    delay = 0.01
    extra = simulate(p, v, m, delay) - simulate(p, v, m)
    assert extra == pytest.approx(2 * (p * v - 1) * delay)


def test_interleaving_needs_micro_batches_in_groups_of_p(a100_ib: dict[str, Any]) -> None:
    from sizing.engine import evaluate

    # 175B with a global batch of 1,000 on DP=20: 50 micro-batches per replica, not a multiple of PP=8
    wl = {"preset": "gpt3-175b", "global_batch": 1000}
    offering = {**a100_ib, "nodes": 256}
    bad = evaluate(wl, offering, {"tp": 8, "pp": 8, "dp": 20, "virtual_stages": 2}, gpus=1280)
    assert bad["micro_batches_per_iteration"] == 50 and not bad["feasible"]
    assert any("multiple of PP" in x for x in bad["reasons"])
    plain = evaluate(wl, offering, {"tp": 8, "pp": 8, "dp": 20, "virtual_stages": 1}, gpus=1280)
    assert not any("multiple of PP" in x for x in plain["reasons"])  # 1F1B takes any m
