"""The tenth set of real logs, training part: 2024-2026 Megatron-Core, FlagScale, Ling-V2, Primus and NeMo 2
iteration lines (two wrapped by their authors right after a `|`), torchtitan 2025-2026 steps, DeepSpeed flops
profiler and timer logs, and two training tools that are not read (fixtures/real/, origins in
fixtures/real/SOURCES.md, "Tenth set: training logs").

As in test_real_logs.py, every expected value was read off the log by hand; the adversarial variants at the
end are built here from the real lines.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from benchmarks.parsers import parse

from .test_real_logs import _parse, _path, _warned, approx

FAIB = "megatron/faib-mdk-megatron-core08-gpt3-7b-1node-8gpu-fp16-skipped-812tflops.txt"
FLAGSCALE_ASCEND = "megatron/flagscale-ascend-qwen3-1npu-default0-prefix-two-iterations-26.8tflops.txt"
FLAGSCALE_PPU = "megatron/flagscale-ppu-8card-default7-one-iteration-line-num-zeros-huge.txt"
LING = "megatron/ling-v2-megatron-core013-moe-z-loss-mtp1-loss-first-iter-79s.txt"
PRIMUS = "megatron/primus-mi355-qwen3-235b-lora-sft-one-line-wrapped-6-lines-each-ending-pipe-654tflops.txt"
TITAN_GB200 = "torchtitan/gb200-4gpu-dsv3-debug-cudagraph-moe-mesh-pp-dp-tp-ep-10steps.txt"
NEMO_AWS = "nemo/aws-nemo25-perf-scripts-llama-tflops-per-gpu-key-elided-3-iterations.txt"
NEMO_WRAPPED = "nemo/awsome-nemo-perf-readme-one-line-wrapped-over-3-lines-epoch1-iter10-step29.txt"
DS_QWEN_MOE = (
    "deepspeed/qwen2moe-4gpu-custom-tqdm-rank0-microstep-timers-flops-profiler-4-ranks-interleaved.txt"
)
DS_CHAT = "deepspeed/dschat-step2-opt350m-ascend-npu-fp16-overflow-skipped-4-elided-middle.txt"
NOT_READ = (
    "unsupported/kubemark-ai/kubemark-ai-gb10-gpt2-step-elapsed-ms-model-tflops-tokens-sec.txt",
    "unsupported/libai/libai-pr551-npu-910b3-gpt2-lb-utils-events-iteration-colon-s-per-iter-T.txt",
)


def _rows(result: dict[str, Any]) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = result["summary"]["iteration_rows"]
    return rows


def _parse_text(text: str, name: str = "train.log") -> dict[str, Any]:
    return parse(text.encode(), filename=name).as_dict()


# ---- Megatron-Core / FlagScale / Ling-V2 ------------------------------------------------------------------


def test_megatron_core_fp16_warmup_skips_and_812_tflops_first_interval() -> None:
    # Iterations 10-100 (lines 3, 9, 11-18); ms 13035.3 12137.8 12068.8 12036.3 12056.1 12072.4 12090.5
    # 12099.3 12099.4 12104.3: 13035.3 is not 1.5x the rest's 12090.5, so all ten count; median (12090.5 +
    # 12099.3) / 2.
    # TFLOP/s 812.5 872.5 877.5 879.9 878.5 877.3 876.0 875.3 875.3 875.0: median (875.3 + 876.0) / 2.
    # Skipped 10 + 5 + 0 + 1; iteration 10 prints no `lm loss`.
    r = _parse(FAIB)
    s = r["summary"]
    assert r["kind"] == "megatron" and s["source_format"] == "megatron"
    assert s["iterations"] == 10 and s["total_iterations_planned"] == 500000
    assert s["warmup_iterations_excluded"] == []
    assert s["median_iteration_s"] == approx(12.0949)
    assert s["median_tflops_per_gpu"] == approx(875.65)
    assert s["median_tokens_per_s_per_gpu"] is None
    assert s["skipped_iterations"] == 16 and s["nan_iterations"] == 0
    assert s["first_line"] == 3 and s["last_line"] == 18
    rows = _rows(r)
    assert rows[0]["loss"] is None and rows[-1]["loss"] == approx(5.847192)
    assert all(row["global_batch_size"] == 1024 for row in rows)
    assert _warned(r, "skipped iterations: 16")
    assert s["world_size"] is None


def test_the_lines_between_megatron_iterations_are_not_joined_to_them() -> None:
    # Line 4 `Number of parameters in transformer layers in billions:  6.02` follows iteration 10 (which ends
    # on `|`) and line 10 `[Rank 0] (after 20 iterations) memory (MB) | allocated: ...` follows iteration 20.
    rows = _rows(_parse(FAIB))
    assert [row["line"] for row in rows] == [3, 9, 11, 12, 13, 14, 15, 16, 17, 18]
    assert rows[0]["tflops_per_gpu"] == 812.5 and rows[1]["time_s"] == approx(12.1378)


def test_flagscale_ascend_two_iterations_behind_a_default0_prefix() -> None:
    # Iterations 3 and 4 of 7629408: 24379.9 and 24386.9 ms, 26.8 TFLOP/s each, lm loss 1.107468E+01 and
    # 1.044366E+01.
    r = _parse(FLAGSCALE_ASCEND)
    s = r["summary"]
    assert r["kind"] == "megatron" and s["source_format"] == "megatron"
    assert s["iterations"] == 2 and s["total_iterations_planned"] == 7629408
    assert s["median_iteration_s"] == approx(24.3834)
    assert s["median_tflops_per_gpu"] == approx(26.8)
    assert [row["loss"] for row in _rows(r)] == [approx(11.07468), approx(10.44366)]
    assert [row["global_batch_size"] for row in _rows(r)] == [32, 32]
    assert s["skipped_iterations"] == 0 and s["nan_iterations"] == 0
    assert s["first_line"] == 1 and s["last_line"] == 2


def test_flagscale_ppu_one_iteration_line_with_a_huge_num_zeros() -> None:
    # One line: iteration 44/102400, 6922.3 ms, 62.0 TFLOP/s, global batch 8, lm loss 6.457796E+00,
    # `num zeros: 760881152.0` (not a figure of the summary).
    r = _parse(FLAGSCALE_PPU)
    s = r["summary"]
    assert r["kind"] == "megatron" and s["source_format"] == "megatron"
    assert s["iterations"] == 1 and s["total_iterations_planned"] == 102400
    assert s["median_iteration_s"] == approx(6.9223)
    assert s["median_tflops_per_gpu"] == approx(62.0)
    assert s["median_tokens_per_s_per_gpu"] is None
    (row,) = _rows(r)
    assert row["iteration"] == 44 and row["loss"] == approx(6.457796) and row["global_batch_size"] == 8
    assert s["skipped_iterations"] == 0


def test_ling_v2_loss_is_lm_loss_and_the_79s_first_iteration_is_warmup() -> None:
    # Iteration 1: 79489.9 ms / 18.0 TFLOP/s, lm loss 2.605958 (z_loss 10.91659, mtp_1 loss 2.828435 beside
    # it).
    # Iterations 2-10 ms: 11182.0 10883.5 10840.4 10765.6 10827.5 10767.4 10758.5 10727.4 10720.6 (median
    # 10767.4); TFLOP/s 128.2 131.7 132.2 133.1 132.4 133.1 133.2 133.6 133.7 (median 133.1).
    r = _parse(LING)
    s = r["summary"]
    assert r["kind"] == "megatron" and s["source_format"] == "megatron"
    assert s["iterations"] == 10 and s["total_iterations_planned"] == 2000
    assert s["warmup_iterations_excluded"] == [1] and s["steady_iterations"] == 9
    assert s["median_iteration_s"] == approx(10.7674)
    assert s["median_tflops_per_gpu"] == approx(133.1)
    rows = _rows(r)
    assert rows[0]["loss"] == approx(2.605958) and rows[-1]["loss"] == approx(2.557783)
    assert s["first_line"] == 1 and s["last_line"] == 11
    assert s["skipped_iterations"] == 0 and s["stalls"] == []
    assert _warned(r, "excluded 1 warm-up")


# ---- P3: an iteration line wrapped right after a `|` -------------------------------------------------------


def test_a_primus_line_wrapped_over_six_lines_after_separators_is_one_iteration() -> None:
    # iteration 11/500; `elapsed time per iteration (ms): 189172.8/188861.6 |` ends line 1; line 2
    # `throughput per GPU (TFLOP/s/GPU): 654.2/655.3 | tokens per GPU (tokens/s/GPU): 692.9/694.0 | ...`;
    # line 3 `global batch size: 8 | lm loss: 1.018988E+01 | ...`; line 6 ends without `|`.
    r = _parse(PRIMUS)
    s = r["summary"]
    assert r["kind"] == "megatron" and s["source_format"] == "megatron"
    assert s["iterations"] == 1 and s["total_iterations_planned"] == 500
    assert s["median_iteration_s"] == approx(189.1728)
    assert s["median_tflops_per_gpu"] == approx(654.2)
    assert s["median_tokens_per_s_per_gpu"] == approx(692.9)
    assert s["tokens_per_s_per_gpu_source"] == "printed"
    (row,) = _rows(r)
    assert row["loss"] == approx(10.18988) and row["global_batch_size"] == 8
    assert row["line"] == 1 and s["skipped_iterations"] == 0 and s["nan_iterations"] == 0
    assert _warned(r, "iteration 11 of 500")


def test_a_nemo_line_wrapped_after_separators_keeps_its_step_time_and_format() -> None:
    # `Training epoch 1, iteration 10/999 | lr: 4.498e-06 | global_batch_size: 512 | ` / `global_step: 29 |
    # reduced_train_loss: 11.03 | train_step_timing in s: 46.84 | ` / `consumed_samples: 15360`.
    r = _parse(NEMO_WRAPPED)
    s = r["summary"]
    assert r["kind"] == "megatron" and s["source_format"] == "nemo"
    assert s["iterations"] == 1 and s["total_iterations_planned"] == 999
    assert s["median_iteration_s"] == approx(46.84)
    assert s["median_tflops_per_gpu"] is None and s["median_tokens_per_s_per_gpu"] is None
    (row,) = _rows(r)
    assert row["iteration"] == 10 and row["loss"] == approx(11.03) and row["global_batch_size"] == 512


def test_nemo25_perf_script_lines_between_the_authors_ellipses() -> None:
    # Lines 2-4: iterations 74-76 of 99, train_step_timing in s 8.768 8.748 8.756, TFLOPS_per_GPU 865.7 867.7
    # 866.9, reduced_train_loss 11.87, global_batch_size 128.
    r = _parse(NEMO_AWS)
    s = r["summary"]
    assert r["kind"] == "megatron" and s["source_format"] == "nemo"
    assert s["iterations"] == 3 and s["total_iterations_planned"] == 99
    assert s["warmup_iterations_excluded"] == []
    assert s["median_iteration_s"] == approx(8.756)
    assert s["median_tflops_per_gpu"] == approx(866.9)
    assert [row["loss"] for row in _rows(r)] == [approx(11.87)] * 3
    assert s["first_line"] == 2 and s["last_line"] == 4


# ---- torchtitan -----------------------------------------------------------------------------------------


def test_torchtitan_gb200_world_from_the_2026_mesh_line_and_computed_step_time() -> None:
    # Mesh pp=1 dp_replicate=1 dp_shard=2 cp=1 tp=2 (ep=2 folds in): 4 GPUs; trainer: global batch 16 x
    # sequence 2048 = 32768 tokens per step, total steps 10. tps 339 and 31,371 (steps 1-2) are warm-up;
    # steps 3-10 tps median (125,180 + 129,655) / 2 = 127,417.5; tflops (67.96 + 70.39) / 2; mfu (2.72 +
    # 2.82) / 2 %; step time 32768 / (127417.5 x 4) = 0.06429 s.
    r = _parse(TITAN_GB200)
    s = r["summary"]
    assert r["kind"] == "torchtitan" and s["source_format"] == "torchtitan"
    assert s["world_size"] == 4 and s["total_iterations_planned"] == 10
    assert s["iterations"] == 10 and s["warmup_iterations_excluded"] == [1, 2]
    assert s["median_tokens_per_s_per_gpu"] == approx(127417.5)
    assert s["median_tflops_per_gpu"] == approx(69.175)
    assert s["mfu"] == approx(0.0277)
    assert s["median_iteration_s"] == approx(0.06429)
    assert s["median_iteration_s_source"].startswith("computed")
    assert _rows(r)[-1]["loss"] == approx(1.93761)
    assert s["stalls"] == [] and s["skipped_iterations"] == 0


# ---- DeepSpeed ------------------------------------------------------------------------------------------


def test_a_forward_only_profile_with_a_custom_bar_is_refused() -> None:
    # The four ranks' profiler blocks stop at `fwd latency: 653.07 ms` (no iter latency); the tqdm bar and
    # `[Rank 0] time (ms) | fwd_microstep: ...` lines are not iteration lines.
    r = _parse(DS_QWEN_MOE)
    assert r["kind"] is None
    (error,) = r["errors"]
    assert "deepspeed" in error and "no iteration/step line" in error


def test_deepspeed_chat_timer_lines_with_four_overflow_skips() -> None:
    # `step=10, skipped=4` ... `step=470, skipped=4`; CurrSamplesPerSec 25.704 (step 10), 25.812, 25.734,
    # 25.631: the median of the three after the first is 25.7338.
    r = _parse(DS_CHAT)
    s = r["summary"]
    assert r["kind"] == "deepspeed" and s["source_format"] == "deepspeed-timer"
    assert s["iterations"] == 4 and s["skipped_iterations"] == 4
    assert s["deepspeed_samples_per_s_median"] == approx(25.7338)
    assert s["deepspeed_samples_per_s_running_average_only"] is False
    assert s["median_iteration_s"] is None and s["median_tflops_per_gpu"] is None
    assert s["median_tokens_per_s_per_gpu"] is None and s["world_size"] is None
    assert _warned(r, "skipped 4 of 470")


# ---- not read ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("rel", NOT_READ)
def test_training_tools_of_the_tenth_set_stay_refused(rel: str) -> None:
    # kubemark-ai `step 5:  elapsed time per iteration (ms): 652.36 | 6.13 MODEL_TFLOP/s/GPU | tokens/sec:
    # 6279` (no `iteration N/M |`); LiBai `iteration: 19/10000 ... time: 7.5187 s/iter`.
    r = _parse(rel)
    assert r["kind"] is None
    (error,) = r["errors"]
    assert "no signature of a supported tool" in error


# ---- adversarial variants of the wrap rule ----------------------------------------------------------------


def _faib_iteration_lines() -> list[str]:
    lines = _path(FAIB).read_text().splitlines()
    return [line for line in lines if re.search(r"\biteration\s+\d+/", line)]


def test_a_log_whose_every_iteration_line_ends_on_a_pipe_is_not_merged() -> None:
    # The ten FAIB iteration lines back to back, each ending on `|`: ten rows, each its own figures.
    text = "\n".join(_faib_iteration_lines()) + "\n"
    r = _parse_text(text)
    rows = _rows(r)
    assert [row["iteration"] for row in rows] == [10, 20, 30, 40, 50, 60, 70, 80, 90, 100]
    assert [row["line"] for row in rows] == list(range(1, 11))
    assert [row["tflops_per_gpu"] for row in rows[:3]] == [812.5, 872.5, 877.5]
    assert r["summary"]["median_iteration_s"] == approx(12.0949)


def test_iteration_lines_of_several_ranks_ending_on_a_pipe_stay_apart() -> None:
    # Each iteration printed by two ranks (`[default0]:`/`[default7]:` prefixes), all lines ending on `|`.
    lines = [line.strip() for line in _faib_iteration_lines()[:3]]
    text = "\n".join(f"[default{rank}]: {line}" for line in lines for rank in (0, 7)) + "\n"
    rows = _rows(_parse_text(text))
    assert [row["iteration"] for row in rows] == [10, 20, 30]
    assert [row["time_s"] for row in rows] == [approx(13.0353), approx(12.1378), approx(12.0688)]


def test_a_megatron_line_wrapped_after_separators_over_four_lines_then_the_next_iteration() -> None:
    # The Primus line 1-3 split again after every `|` field group, then a second complete iteration.
    text = (
        "iteration       11/     500 | consumed samples:           88 |\n"
        "elapsed time per iteration (ms): 189172.8/188861.6 |\n"
        "throughput per GPU (TFLOP/s/GPU): 654.2/655.3 | tokens per GPU (tokens/s/GPU): 692.9/694.0 |\n"
        "global batch size: 8 | lm loss: 1.018988E+01 | number of skipped iterations: 2 |\n"
        "iteration       12/     500 | consumed samples:           96 | elapsed time per iteration (ms): "
        "189000.0 | throughput per GPU (TFLOP/s/GPU): 655.0 | lm loss: 1.0E+01 |\n"
        "learning rate: 4.4E-05 | number of skipped iterations: 1 |\n"
    )
    r = _parse_text(text)
    first, second = _rows(r)
    assert first["line"] == 1 and first["time_s"] == approx(189.1728)
    assert first["tflops_per_gpu"] == 654.2 and first["tokens_per_s_per_gpu"] == 692.9
    assert first["loss"] == approx(10.18988) and first["skipped"] == 2
    assert second["line"] == 5 and second["time_s"] == approx(189.0) and second["tflops_per_gpu"] == 655.0
    assert second["skipped"] == 1
    assert r["summary"]["skipped_iterations"] == 3


def test_a_line_after_a_pipe_that_is_not_an_iteration_field_is_not_joined() -> None:
    # `Theoretical memory footprints: ...` starts with `key:` but is no field of an iteration line; the
    # wrapped NeMo line's third line is its last: the next `lr: ...` line is not joined. (One planned total,
    # 100: a line with another total would start another run.)
    text = (
        " [2024-09-03 15:54:54] iteration       10/     100 | elapsed time per iteration (ms): 13035.3 |\n"
        "Theoretical memory footprints: weight and optimizer=46038.57 MB | lm loss: 9.9 |\n"
        "Training epoch 1, iteration 11/100 | lr: 4.498e-06 | global_batch_size: 512 | \n"
        "global_step: 29 | reduced_train_loss: 11.03 | train_step_timing in s: 46.84 | \n"
        "consumed_samples: 15360\n"
        "lr: 1.0 | train_step_timing in s: 99.0 |\n"
    )
    r = _parse_text(text)
    first, second = _rows(r)
    assert first["loss"] is None and first["time_s"] == approx(13.0353)
    assert second["line"] == 3 and second["time_s"] == approx(46.84) and second["loss"] == approx(11.03)
    assert r["summary"]["source_format"] == "nemo"


def test_nemo_lines_wrapped_after_separators_one_after_another() -> None:
    # Three copies of the wrapped NeMo line, iterations 10-12, step times 46.84, 46.0, 47.0.
    wrapped = _path(NEMO_WRAPPED).read_text()
    text = "".join(
        wrapped.replace("iteration 10/", f"iteration {n}/").replace("46.84", time)
        for n, time in ((10, "46.84"), (11, "46.0"), (12, "47.0"))
    )
    r = _parse_text(text)
    s = r["summary"]
    assert s["source_format"] == "nemo" and s["iterations"] == 3
    assert [row["line"] for row in _rows(r)] == [1, 4, 7]
    assert [row["time_s"] for row in _rows(r)] == [approx(46.84), approx(46.0), approx(47.0)]
    assert s["median_iteration_s"] == approx(46.84)
