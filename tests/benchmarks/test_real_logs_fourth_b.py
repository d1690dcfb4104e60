"""Fourth set of real logs, part B (fixtures/real/, origins in fixtures/real/SOURCES.md, "Fourth set"):
training logs. DeepSpeed 0.7's timer lines and its flops profiler block, a file holding two torchtitan
runs, a NeMo progress bar of a finished run, and a Megatron-DeepSpeed run ending in a traceback.

As in test_real_logs.py, every expected value was read off the log by hand (the timer and step lines, the
profiler's summary lines, the step lines of each run), not copied from a parser run. The made-up logs at
the end check the same rules where no real log was found: a Megatron or DeepSpeed counter going back, a
rank printing late, an exception without its traceback.
"""

from __future__ import annotations

from typing import Any

import pytest

from benchmarks.parsers import parse
from benchmarks.parsers.deepspeed import _profiler_value

from .test_real_logs import _parse, _warned, approx

# ---- DeepSpeed 0.7 timer lines -----------------------------------------------------------------------

DS07 = "deepspeed/cscs-bert-squad-ds07-timer-epoch-step-running-current-skipped-17-of-40.txt"


def test_deepspeed_07_timer_lines_are_read() -> None:
    result = _parse(DS07)
    s = result["summary"]
    assert result["kind"] == "deepspeed" and result["errors"] == []
    # `0/20`, `0/30`, `0/40` on lines 4, 6, 8: CurrSamplesPerSec 227.48..., 227.45..., 227.72...; the first
    # timer line is left out, as in every timer-only log (fixtures/deepspeed-timer-only.txt).
    assert (s["source_format"], s["iterations"], s["first_line"], s["last_line"]) == (
        "deepspeed-timer",
        3,
        4,
        8,
    )
    assert s["deepspeed_samples_per_s_median"] == approx((227.45044884073528 + 227.7217889790298) / 2, 1e-9)
    assert s["deepspeed_samples_per_s_running_average_only"] is False  # CurrSamplesPerSec is printed


def test_deepspeed_07_skipped_steps_and_samples_not_taken_for_tokens() -> None:
    result = _parse(DS07)
    s = result["summary"]
    # `[Rank 0] step=40, skipped=17`: the 17 were skipped by step 20 (`step=20, skipped=17`).
    assert s["skipped_iterations"] == 17
    assert _warned(result, "skipped 17 of 40", "fp16 loss-scale overflow")
    # No sequence length, no world size anywhere in the excerpt: samples/s stays samples/s.
    assert s["median_tokens_per_s_per_gpu"] is None and s["median_iteration_s"] is None
    assert _warned(
        result, "not converted to tokens/s per GPU", "neither the sequence length nor the world size"
    )


# ---- DeepSpeed flops profiler ------------------------------------------------------------------------

# file -> (iter latency s, TFLOP/s per GPU, samples/second, world, data parallel, model parallel, batch per
# GPU, header line, samples/second line)
PROFILER: dict[str, tuple[Any, ...]] = {
    # `iter latency: 7.77 s`, `FLOPS per GPU = 3 * fwd flops per GPU / iter latency: 13.63 TFLOPS`.
    "deepspeed/alcf-perlmutter-gpt1t-64gpu-flops-profiler-mp8-seconds.txt": (
        7.77,
        13.63,
        32.93,
        64,
        8,
        8,
        4,
        2,
        27,
    ),
    # `iter latency: 487.61 ms`, `2.35 TFLOPS`, values padded with trailing blanks.
    "deepspeed/cml-t5-small-3node-zero1-flops-profiler-milliseconds.txt": (
        0.48761,
        2.35,
        196.88,
        3,
        3,
        1,
        32,
        3,
        29,
    ),
}


@pytest.mark.parametrize("rel", sorted(PROFILER))
def test_flops_profiler_block_is_read_off_the_log(rel: str) -> None:
    latency, tflops, samples, world, data_parallel, model_parallel, batch, first, last = PROFILER[rel]
    result = _parse(rel)
    s = result["summary"]
    assert result["kind"] == "deepspeed" and result["errors"] == []
    assert (s["source_format"], s["iterations"], s["world_size"]) == ("deepspeed-flops-profiler", 1, world)
    assert s["median_iteration_s"] == approx(latency)
    assert s["median_tflops_per_gpu"] == approx(tflops)
    assert s["deepspeed_profiler_samples_per_s"] == approx(samples)
    assert s["deepspeed_profiler_step"] == 2  # `Profile Summary at step 2:`
    profile = s["deepspeed_flops_profiler"]
    assert (profile["data_parallel_size"], profile["model_parallel_size"]) == (data_parallel, model_parallel)
    assert profile["batch_size_per_gpu"] == batch and profile["iter_latency_s"] == approx(latency)
    assert (s["first_line"], s["last_line"]) == (first, last)
    assert _warned(result, "measured one step (step 2)", "a median of one")
    # No sequence length printed: no tokens/s per GPU.
    assert s["median_tokens_per_s_per_gpu"] is None
    assert _warned(result, "not converted to tokens/s per GPU", "no sequence length")


def test_flops_profiler_samples_per_second_counts_model_parallel_gpus_too() -> None:
    # 4 per GPU x 64 GPUs / 7.77 s = 32.9 = the printed 32.93; the job trained 4 x 8 data-parallel ranks.
    gpt = _parse("deepspeed/alcf-perlmutter-gpt1t-64gpu-flops-profiler-mp8-seconds.txt")
    assert _warned(gpt, "on all 64 GPUs", "8 data-parallel ranks", "8x the samples")
    t5 = _parse("deepspeed/cml-t5-small-3node-zero1-flops-profiler-milliseconds.txt")
    assert not _warned(t5, "data-parallel ranks")  # 3 GPUs, 3 data-parallel ranks


@pytest.mark.parametrize(
    ("label", "number", "unit", "value"),
    [
        ("iter latency", "7.77", "s", 7.77),
        ("iter latency", "487.61", "ms", 0.48761),
        ("iter latency", "950", "us", 0.00095),
        ("iter latency", "1.2", "Ks", 1200.0),
        ("FLOPS per GPU = 3 * fwd flops per GPU / iter latency", "13.63", "TFLOPS", 13.63),
        ("FLOPS per GPU = 4 * fwd flops per GPU / iter latency", "812.5", "GFLOPS", 0.8125),
        ("iter latency", "7.77", "min", None),
    ],
)
def test_profiler_values_carry_their_si_prefix(label: str, number: str, unit: str, value: Any) -> None:
    """deepspeed/profiling/flops_profiler/profiler.py number_to_string: K/M/G/T up, m/u down."""
    found = _profiler_value(label, number, unit)
    assert found == (approx(value, 1e-9) if value is not None else None)


# ---- torchtitan: two runs in one file ---------------------------------------------------------------

TWO_RUNS = "torchtitan/uw-hyak-llama2-7b-wps-two-runs-117-130-then-1-10-fence-glued.txt"


def test_torchtitan_second_run_is_summarised_with_its_own_warm_up() -> None:
    result = _parse(TWO_RUNS)
    s = result["summary"]
    assert result["kind"] == "torchtitan"
    # Steps 117-130 (lines 6-19), then steps 1-10 (lines 32-41): the last run only.
    assert (s["iterations"], s["first_line"], s["last_line"]) == (10, 32, 41)
    # Step 1: wps 1,176 against ~1,954 after it (1.66x slower): warm-up of the compiled run.
    assert s["warmup_iterations_excluded"] == [1] and s["steady_iterations"] == 9
    # Steps 2-10: wps 1,962 1,954 1,944 1,956 1,957 1,950 1,952 1,948 1,955 -> 1,954; mfu 26.95 26.85 26.71
    # 26.87 26.89 26.79 26.82 26.77 26.86 -> 26.85% (step 10's `26.86%```: the fence glued to the line).
    assert s["median_tokens_per_s_per_gpu"] == approx(1954)
    assert s["mfu"] == approx(0.2685)


def test_torchtitan_two_runs_are_warned_and_listed() -> None:
    result = _parse(TWO_RUNS)
    s = result["summary"]
    assert s["runs_in_log"] == 2
    assert s["earlier_runs"] == [
        {"first_iteration": 117, "last_iteration": 130, "first_line": 6, "last_line": 19}
    ]
    assert _warned(
        result, "holds 2 runs", "goes back at line 32", "iterations 1-10, is summarised", "117-130"
    )


# ---- NeMo 1 progress bar of a finished run ----------------------------------------------------------


def test_nemo_progress_bar_global_step_counts_from_zero() -> None:
    result = _parse("nemo/dgxc-nemotron4-15b-progress-bar-100-of-100-global-step-99-grep.txt")
    s = result["summary"]
    # `100/100 [10:48<00:00, ..., global_step=99.00, ..., train_step_timing in s=3.130]`: the 100th step.
    assert (result["kind"], s["source_format"], s["iterations"]) == ("megatron", "nemo", 1)
    assert s["median_iteration_s"] == approx(3.13) and s["total_iterations_planned"] == 100
    [row] = s["iteration_rows"]
    assert (row["iteration"], row["line"], row["counts_from_zero"]) == (99, 3, True)
    assert not _warned(result, "log ends at iteration")
    # A bar cut mid-run still says so: `7/15 [..., global_step=5.000, ...]`.
    assert _warned(_parse("nemo/nemo1-launcher-a3mega-llama2-7b-progress-bar-tail.txt"), "iteration 5 of 15")


# ---- a traceback after the last iteration -----------------------------------------------------------


def test_megatron_deepspeed_checkpoint_save_traceback_is_quoted() -> None:
    result = _parse("megatron/alcf-polaris-megatron-deepspeed-checkpoint-save-attributeerror-traceback.txt")
    s = result["summary"]
    assert (result["kind"], s["iterations"], s["last_line"]) == ("deepspeed", 2, 8)  # iterations 199 and 200
    # Two `Traceback (most recent call last):` lines (16, 17: two ranks), one exception line (36).
    assert _warned(
        result,
        "traceback follows the last iteration (line 16)",
        "AttributeError: 'GPTModel' object has no attribute '_get_tp_replicated_param_patterns'",
    )
    assert _warned(result, "log ends at iteration 200 of 317892")


def test_an_abort_after_training_completed_is_an_error_line() -> None:
    result = _parse("torchtitan/aixsim-step-of-total-percent-then-abort.txt")
    # `Training completed` (line 5), then `[rank0]:Fatal Python error: Aborted` (line 7).
    assert _warned(result, "error line follows the last iteration (line 7): Fatal Python error: Aborted")


# ---- the same rules on made-up logs -------------------------------------------------------------------


def _megatron(iterations: list[int], ms: float, total: int = 100) -> list[str]:
    return [
        f" iteration {i:>8}/ {total:>6} | consumed samples: {i * 512} |"
        f" elapsed time per iteration (ms): {ms} | global batch size:   512 | lm loss: 2.5E+00 |"
        " number of skipped iterations:   0 |"
        for i in iterations
    ]


def _text(lines: list[str]) -> bytes:
    return ("\n".join(lines) + "\n").encode()


def test_megatron_rerun_with_the_same_iteration_numbers_is_a_second_run() -> None:
    first = _megatron([10, 20, 30, 40], 2000.0)
    second = ["using world size: 16", "    seq_length ...................................... 4096"]
    result = parse(_text(first + second + _megatron([10, 20, 30, 40, 50], 1000.0)))
    s = result.summary
    assert result.kind == "megatron" and s["iterations"] == 5 and s["median_iteration_s"] == 1.0
    assert (s["first_line"], s["last_line"], s["runs_in_log"]) == (7, 11, 2)
    # The second run's own set-up: 512 x 4096 / 1 s / 16 GPUs.
    assert s["world_size"] == 16 and s["median_tokens_per_s_per_gpu"] == approx(512 * 4096 / 16)
    assert any("holds 2 runs" in w and "iterations 10-50" in w for w in result.warnings)


def test_megatron_resumed_from_an_earlier_checkpoint_is_a_second_run() -> None:
    lines = _megatron([10, 20, 30, 40, 50], 2000.0) + _megatron([30, 40, 50, 60], 1000.0)
    s = parse(_text(lines)).summary
    assert (s["iterations"], s["median_iteration_s"], s["runs_in_log"]) == (4, 1.0, 2)


def test_a_rank_printing_one_interval_late_is_no_new_run() -> None:
    lines = _megatron([10, 20, 30], 1000.0) + _megatron([20], 5000.0) + _megatron([40], 1000.0)
    result = parse(_text(lines))
    assert result.summary["iterations"] == 4 and "runs_in_log" not in result.summary
    assert result.summary["iteration_rows"][1]["time_s"] == 1.0  # the first print of iteration 20 is kept
    assert not any("runs" in w for w in result.warnings)


def _ds_timer(step: int, current: float, skipped: int) -> list[str]:
    return [
        f"[2024-05-01 10:00:00,000] [INFO] [logging.py:96:log_dist] [Rank 0] step={step}, skipped={skipped}, "
        "lr=[1e-05], mom=[(0.9, 0.95)]",
        f"[2024-05-01 10:00:00,100] [INFO] [timer.py:260:stop] epoch=0/micro_step={step}/global_step={step}, "
        f"RunningAvgSamplesPerSec={current}, CurrSamplesPerSec={current}, MemAllocated=10.0GB, "
        "MaxMemAllocated=20.0GB",
    ]


def test_deepspeed_timer_restart_keeps_the_last_run_and_its_skip_counter() -> None:
    first = [line for step in (10, 20, 30) for line in _ds_timer(step, 100.0, 5)]
    second = [line for step in (10, 20, 30, 40) for line in _ds_timer(step, 300.0, 1)]
    result = parse(_text(first + second))
    s = result.summary
    assert result.kind == "deepspeed" and s["iterations"] == 4 and s["runs_in_log"] == 2
    assert s["deepspeed_samples_per_s_median"] == 300.0 and s["skipped_iterations"] == 1
    assert any("skipped 1 of 40" in w for w in result.warnings)


def test_deepspeed_timer_samples_become_tokens_where_sequence_and_world_size_are_printed() -> None:
    head = [
        "[2024-05-01 09:59:00,000] [INFO] [launch.py:163:main] dist_world_size=8",
        "  seq_length ..... 2048",
    ]
    timer = [line for step in (10, 20, 30) for line in _ds_timer(step, 64.0, 0)]
    result = parse(_text(head + timer))
    s = result.summary
    assert s["median_tokens_per_s_per_gpu"] == approx(64.0 * 2048 / 8)
    assert s["tokens_per_s_per_gpu_source"] == "computed: DeepSpeed samples/s x seq length / world size"
    assert not any("not converted" in w for w in result.warnings)


def test_old_deepspeed_timer_steps_counted_again_in_a_new_epoch_are_one_run() -> None:
    lines = [
        f"[2022-03-11 02:06:58,985] [INFO] [timer.py:189:stop] {epoch}/{step}, SamplesPerSec=80.0, "
        "MemAllocated=0.26GB, MaxMemAllocated=9.02GB"
        for epoch, step in ((0, 40), (0, 50), (1, 10), (1, 20))
    ]
    lines += [
        f"[2022-03-11 02:07:29,274] [INFO] [logging.py:69:log_dist] [Rank 0] step={step}, skipped=2, "
        "lr=[5e-05]"
        for step in (60, 70)
    ]
    s = parse(_text(lines)).summary
    assert s["iterations"] == 4 and "runs_in_log" not in s


def test_a_traceback_with_iterations_after_it_is_not_warned() -> None:
    lines = _megatron([10, 20], 1000.0) + ["Traceback (most recent call last):", "ValueError: bad batch"]
    lines += _megatron([30, 40], 1000.0)
    assert not any("follows the last iteration" in w for w in parse(_text(lines)).warnings)


def test_an_exception_without_its_traceback_or_a_traceback_cut_short() -> None:
    prefixed = _megatron([10, 20], 1000.0) + [
        "[rank3]: torch.OutOfMemoryError: CUDA out of memory. " + "x" * 300
    ]
    [warning] = [w for w in parse(_text(prefixed)).warnings if "follows the last iteration" in w]
    assert (
        "error line follows the last iteration (line 3): torch.OutOfMemoryError: CUDA out of memory."
        in warning
    )
    assert warning.endswith("x…") and len(warning.split(": ", 1)[1]) == 201  # 200 characters and the mark
    cut = _megatron([10, 20], 1000.0) + ["Traceback (most recent call last):", '  File "train.py", line 5']
    assert any("(line 3); its exception line is not in the log" in w for w in parse(_text(cut)).warnings)


def test_a_deepspeed_timer_log_ending_in_a_keyboard_interrupt_says_so() -> None:
    lines = [line for step in (10, 20, 30) for line in _ds_timer(step, 64.0, 0)]
    lines += [
        "Traceback (most recent call last):",
        '  File "train.py", line 9, in <module>',
        "KeyboardInterrupt",
    ]
    result = parse(_text(lines))
    assert result.kind == "deepspeed" and result.summary["iterations"] == 3
    assert any(
        "traceback follows the last iteration (line 7): KeyboardInterrupt" in w for w in result.warnings
    )
