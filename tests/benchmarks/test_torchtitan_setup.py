"""torchtitan's set-up lines give the world size, the tokens of one step and the planned steps, so the step
time can be derived from the tokens/s per GPU it prints (it prints no step time).

The lines follow torchtitan's own log calls: the device mesh (torchtitan/distributed/parallel_dims.py; the
`Building N-D device mesh with [names], [sizes]` form before 2026) and the trainer line in its three shapes
(torchtitan/trainer.py @12983cc48 2025-03, @9810191bb 2026-02, and the 2026-08 `tokens per train step` form).
"""

from __future__ import annotations

from typing import Any

import pytest

from benchmarks.parsers import parse

PREFIX = "[rank0]:[titan] 2026-08-20 10:01:05,000 - root - INFO - "
MEM = "memory: 50.12GiB(52.76%)"
STEPS = [
    "step:  1  loss: 12.24430  grad_norm: 15.2141  memory: 42.01GiB(44.22%)  tps: 1,058  tflops: 61.27  "
    "mfu: 6.20%",
    f"step: 10  loss:  9.91320  grad_norm:  3.0521  {MEM}  tps: 6,921  tflops: 400.79  mfu: 40.52%",
    f"step: 20  loss:  8.10320  grad_norm:  1.5321  {MEM}  tps: 6,930  tflops: 401.29  mfu: 40.58%",
    f"validate step: 20  loss:  8.2100  {MEM}  tps: 21,000",
    f"step: 30  loss:  7.50320  grad_norm:  1.1321  {MEM}  tps: 6,925  tflops: 401.01  mfu: 40.55%",
]
MESH_2026 = "Building device mesh with parallelism: pp=2, dp_replicate=1, dp_shard=4, cp=1, tp=2, ep=8"
MESH_2025 = "Building 3-D device mesh with ['pp', 'dp_shard', 'tp'], [2, 4, 2]"
TRAINER = {
    "2025-03": "Trainer is initialized with local batch size 2, global batch size 8, sequence length 8192, "
    "total steps 100 (warmup 10).",
    "2026-02": "Trainer is initialized with local batch size 1, global batch size 8, gradient accumulation "
    "steps 2, sequence length 8192, total steps 100 (warmup 10)",
    "2026-08": "Trainer is initialized with 16384 tokens per DP rank, 65536 tokens per train step, gradient "
    "accumulation steps 1, maximum context length 8192, total steps 100 (warmup 10)",
}


def _summary(*lines: str) -> dict[str, Any]:
    result = parse("\n".join(PREFIX + line for line in lines)).as_dict()
    assert result["kind"] == "torchtitan", result
    return result["summary"]


@pytest.mark.parametrize("mesh", [MESH_2026, MESH_2025])
@pytest.mark.parametrize("shape", sorted(TRAINER))
def test_the_step_time_follows_from_tokens_per_step_and_the_mesh(mesh: str, shape: str) -> None:
    summary = _summary(mesh, TRAINER[shape], "Training starts at step 1", *STEPS)
    assert summary["world_size"] == 16  # pp 2 x dp 4 x tp 2; expert parallelism folds into them
    assert summary["seq_length"] == 8192 and summary["total_iterations_planned"] == 100
    assert summary["median_tokens_per_s_per_gpu"] == 6925.0  # the validation step's tps is not a step
    # 8 sequences of 8,192 tokens per step / (6,925 tokens/s per GPU x 16 GPUs)
    assert summary["median_iteration_s"] == pytest.approx(65536 / (6925 * 16), abs=1e-4)
    assert summary["median_iteration_s_source"].startswith("computed")


def test_without_the_mesh_no_step_time_is_made_up() -> None:
    summary = _summary(TRAINER["2026-08"], *STEPS)
    assert summary["world_size"] is None and summary["median_iteration_s"] is None
    assert summary["median_iteration_s_source"] is None
    assert summary["median_tokens_per_s_per_gpu"] == 6925.0


def test_a_log_that_stops_before_its_planned_steps_says_so() -> None:
    result = parse("\n".join(PREFIX + line for line in (MESH_2026, TRAINER["2026-08"], *STEPS))).as_dict()
    assert "log ends at iteration 30 of 100 (cut, failed or still running)" in result["warnings"]
