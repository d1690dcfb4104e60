"""Seventh set of real logs, part A: training logs (fixtures/real/{megatron,nemo,torchtitan,deepspeed}/,
origins in fixtures/real/SOURCES.md, "Seventh set"): a 2021 DeepSpeedExamples Megatron-LM whose TFLOP/s per
GPU is on its own line after each iteration, a Megatron-DeepSpeed 3D run printing `lm-loss:`, 2019
Megatron-LM keys without a colon, a fork printing `iteration time: ... s samples/sec: ...` in one field, one
DeepSpeed timer line broken over six lines; and the logs of the same hunt that were read right.

As in test_real_logs.py, every expected value was read off the log by hand (the iteration lines, their
times sorted for the medians, the set-up lines), not copied from a parser run.
"""

from __future__ import annotations

from typing import Any

import pytest

from benchmarks.parsers import parse
from benchmarks.parsers.detect import detect
from benchmarks.parsers.megatron_line import field_pairs, megatron_fields
from benchmarks.parsers.text import decode

from .test_real_logs import _parse, _warned, approx

MEGATRON = "megatron/{}.txt".format
EFFECTIVE_TFLOPS = MEGATRON("bigscience-2021-meg-ds-zero-no-consumed-samples-no-gbs")
LM_HYPHEN_LOSS = MEGATRON("bigscience-2021-meg-ds-3d-ds-on-lm-loss-hyphen-loss-scale-minus1")
NO_COLON_KEYS = MEGATRON("bbuf-2019-megatron-gpt2-mp2-no-colon-keys-s-glued-iteration")
TWO_PAIRS_ONE_FIELD = MEGATRON("llm-jp-torch-profiler-stage-lines-iteration-time-s-samples-sec-no-pipe")
ALL_SKIPPED = MEGATRON(
    "bigscience-2021-megatron-gpt2-16node-1024gbs-all-iterations-skipped-loss-scale-halving"
)
TIME_BREAKDOWN = MEGATRON("bigscience-2021-megatron-4node-tp4-pp4-time-ms-breakdown")
CONSUMED_TOKENS = MEGATRON("cscs-cpt-srun-3-prefix-consumed-tokens-B-eta-tokens-sec-gpu-final-iteration")
SWIFT = MEGATRON(
    "ms-swift-megatron-2024-hf-map-progress-bars-min-max-timers-glued-training-save-checkpoint-between"
)
NEMO_GPUSTAT = "nemo/nemo2-b200-llama3-8b-gpustat-before-tflops-per-gpu-1.249e03.txt"
NEMO_WRAPPED = "nemo/nemo2509-nvfp4-b200-one-iteration-line-wrapped-over-3-lines-comment-prefix.txt"
NEMO_BRACKET_LOST = "nemo/deeplink-nemo2509-qwen3-30b-a3b-iso-timestamp-first-bracket-lost-val-loss.txt"
TITAN = "torchtitan/{}.txt".format
AURORA = TITAN("aurora-blendcorpus-llama2-7b-6layer-24xpu-ezpz-prefix-grad-norm-ctrl-c")
MINICODE = TITAN("minicode-h100-2gpu-viewer-timestamp-line-before-each-line-every-50-steps-elided")
QWEN_VL = TITAN("qwen3-vl-30b-moe-8xh200-rank0-erratic-tps-150-to-1764-trailing-blanks")
H200_EARLY = TITAN("h200-8gpu-early2025-rank0-no-titan-tag-ansi-residue-mmemory-log-every-10-indented")
DEEPSPEED = "deepspeed/{}.txt".format
TIMER_BROKEN = DEEPSPEED("brunomaga-blog-ds-timer-line-broken-over-6-lines-no-zero")
FATE = DEEPSPEED("fate-eggroll-hf-trainer-ds-zero2-timer-memallocated-split-by-spaces-loss-dicts")
T9K = DEEPSPEED("t9k-deepspeed-chat-sft-pod-name-prefix-epoch1-micro-step-926-global-1880-skipped-19")
HF_TRAINER = DEEPSPEED("bigscience-2021-hf-trainer-deepspeed-gpt2-16node-train-runtime-per-rank")


def _rows(result: dict[str, Any]) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = result["summary"]["iteration_rows"]
    return rows


# ---- the misreads ---------------------------------------------------------------------------------------


def test_effective_tera_flops_lines_give_the_tflops_of_the_iteration_before_them() -> None:
    # lines 331/335/338: iterations 1-3 (121899.8, 125912.4, 123907.8 ms, no `consumed samples`, no batch);
    # lines 334/337/340 after each one's `time (ms)` line: `Effective Tera Flops per GPU: 41.94 and total
    # parameters 52.005 B`, 40.6, 41.26. The TFLOP/s were null.
    out = _parse(EFFECTIVE_TFLOPS)
    assert out["kind"] == "deepspeed"
    summary = out["summary"]
    assert summary["source_format"] == "megatron" and summary["iterations"] == 3
    assert summary["median_iteration_s"] == approx(123.9078)
    assert summary["median_tflops_per_gpu"] == approx(41.26)
    assert [(r["iteration"], r["tflops_per_gpu"], r["tflops_line"]) for r in _rows(out)] == [
        (1, 41.94, 334),
        (2, 40.6, 337),
        (3, 41.26, 340),
    ]
    assert [r["loss"] for r in _rows(out)] == [approx(12.52221), approx(12.5177), approx(40.75231)]
    # world 64 and seq 1024 are printed, the global batch only in the DeepSpeed config dump: not computed
    assert summary["world_size"] == 64 and summary["median_tokens_per_s_per_gpu"] is None
    assert _warned(out, "log ends at iteration 3 of 1000")


def _effective(*lines: str) -> dict[str, Any]:
    return parse("\n".join(lines)).as_dict()


ITERATION = (
    " iteration {n:8d}/    1000 | elapsed time per iteration (ms): 2000.0 | learning rate: 1.0E-04 | "
    "lm loss: 5.0E+00 | loss scale: 1024.0 | number of skipped iterations: 0 | number of nan iterations: 0 |"
)


def test_an_effective_tflops_line_is_paired_once_and_never_before_its_iteration() -> None:
    out = _effective(
        "Effective Tera Flops per GPU: 9.99 and total parameters 1.0 B",  # before any iteration: not paired
        ITERATION.format(n=1),
        "Effective Tera Flops per GPU: 10.5 and total parameters 1.0 B",
        "Effective Tera Flops per GPU: 77.7 and total parameters 1.0 B",  # a second one: not paired
        ITERATION.format(n=2),
        ITERATION.format(n=3),
        "Effective Tera Flops per GPU: 11.5 and total parameters 1.0 B",
    )
    assert [r["tflops_per_gpu"] for r in _rows(out)] == [10.5, None, 11.5]
    assert out["summary"]["median_tflops_per_gpu"] == approx(11.0)


def test_an_iteration_line_that_prints_its_tflops_keeps_them() -> None:
    printed = ITERATION.format(n=1).replace("| learning rate", "| TFLOPs: 50.0 | learning rate")
    out = _effective(printed, "Effective Tera Flops per GPU: 10.5 and total parameters 1.0 B")
    assert [r["tflops_per_gpu"] for r in _rows(out)] == [50.0]


def test_a_hyphenated_lm_loss_key_is_the_loss() -> None:
    # 49 iteration lines from line 901: `... | global batch size:  1024 | lm-loss: 1.244238E+01 | loss scale:
    # -1.0 | grad norm: 0.000 | num zeros: 0.0 | ...`; the loss was null on every row
    out = _parse(LM_HYPHEN_LOSS)
    summary = out["summary"]
    assert summary["iterations"] == 49
    assert [r["loss"] for r in _rows(out)[:4]] == [
        approx(12.44238),
        approx(12.44502),
        approx(41.03157),
        approx(43.05696),
    ]
    assert all(r["loss"] is not None for r in _rows(out))
    # what was read right stays: the median of the 49 times (137138.4 ms), 1024 x 1024 / 137.1384 / 64
    assert summary["median_iteration_s"] == approx(137.1384)
    assert summary["median_tokens_per_s_per_gpu"] == approx(119.47)
    assert summary["parallelism"] == {
        "data_parallel_size": 1,
        "pipeline_model_parallel_size": 16,
        "tensor_model_parallel_size": 4,
    }


def test_2019_megatron_keys_without_a_colon_are_read() -> None:
    # `iteration 100/ 600 | elapsed time per iteration (ms): 810.9 | learning rate 1.444E-04 | lm loss
    # 5.023855E+00 | loss scale 8192.0 |` (a stray `s` before the first one); the loss was null
    out = _parse(NO_COLON_KEYS)
    assert out["kind"] == "megatron"
    summary = out["summary"]
    assert summary["iterations"] == 6 and summary["total_iterations_planned"] == 600
    assert [r["iteration"] for r in _rows(out)] == [100, 200, 300, 400, 500, 600]
    assert [r["loss"] for r in _rows(out)] == [
        approx(5.023855),
        approx(0.1112287),
        approx(8.868908e-3),
        approx(2.208042e-3),
        approx(8.129998e-4),
        approx(6.003926e-4),
    ]
    # 787.7 790.5 792.8 | 810.9 824.7 844.2 ms: (792.8 + 810.9) / 2
    assert summary["median_iteration_s"] == approx(0.80185)
    assert summary["world_size"] == 2 and summary["seq_length"] == 1024
    assert out["warnings"] == []


def test_two_key_value_pairs_in_one_field_are_both_read() -> None:
    # `| iteration time: 270.125 s samples/sec: 3.8 |` (1024 samples / 270.125 s); samples/s was null
    out = _parse(TWO_PAIRS_ONE_FIELD)
    summary = out["summary"]
    assert summary["iterations"] == 1
    assert summary["median_samples_per_s"] == approx(3.8)
    assert _rows(out)[0]["samples_per_s"] == approx(3.8)
    assert summary["median_iteration_s"] == approx(270.1254)
    assert summary["median_tflops_per_gpu"] == approx(449.6)
    assert _rows(out)[0]["loss"] == approx(2.12038)
    assert _warned(out, "log ends at iteration 4 of 25000")


@pytest.mark.parametrize(
    ("field", "pairs"),
    [
        (
            " iteration time: 270.125 s samples/sec: 3.8 ",
            [("iteration time", "270.125 s"), ("samples/sec", "3.8")],
        ),
        (" eta: 0:00:00 ", [("eta", "0:00:00")]),  # one value holding colons
        (" lm loss 5.023855E+00 ", [("lm loss", "5.023855E+00")]),
        (" number of skipped ", []),  # a wrapped field's first half: no number
        (" 12 ", []),
        (" time: 2024-08-21 10:19:42 ", [("time", "2024-08-21 10:19:42")]),
    ],
)
def test_the_pairs_of_one_field(field: str, pairs: list[tuple[str, str]]) -> None:
    assert field_pairs(field) == pairs


def test_keys_read_hyphens_and_underscores_as_spaces() -> None:
    fields = megatron_fields(" lm-loss: 1.2 | global_batch_size: 32 | loss scale 8192.0 |")
    assert fields == {"lm loss": "1.2", "global batch size": "32", "loss scale": "8192.0"}


def test_a_timer_line_broken_over_six_lines_is_one_deepspeed_timer_step() -> None:
    # `[2023-09-15 00:09:45,317] [INFO] [timer.py:260:stop]` / `epoch=0/micro_step=2000/global_step=2000,` /
    # `RunningAvgSamplesPerSec=502.1679292031866,` / `CurrSamplesPerSec=519.4063914924576,` /
    # `MemAllocated=...` / `MaxMemAllocated=...`: the file was "not recognised" (one DeepSpeed signature hit)
    out = _parse(TIMER_BROKEN)
    assert out["kind"] == "deepspeed"
    summary = out["summary"]
    assert summary["source_format"] == "deepspeed-timer"
    assert summary["iterations"] == 1 and summary["first_line"] == 1
    assert summary["deepspeed_samples_per_s_median"] == approx(519.4063914924576)
    assert summary["median_tokens_per_s_per_gpu"] is None
    assert _warned(out, "one DeepSpeed timer line", "not a median")
    assert _warned(out, "neither the sequence length nor the world size")


TIMER = (
    "[2023-09-15 00:09:45,317] [INFO] [timer.py:260:stop] epoch=0/micro_step=2000/global_step=2000, "
    "RunningAvgSamplesPerSec=502.1679292031866, CurrSamplesPerSec=519.4063914924576, MemAllocated=0.14GB, "
    "MaxMemAllocated=0.23GB"
)


def test_one_unbroken_timer_line_is_a_deepspeed_log() -> None:
    out = parse(TIMER).as_dict()
    assert out["kind"] == "deepspeed"
    assert out["summary"]["deepspeed_samples_per_s_median"] == approx(519.406)


def test_one_timer_line_does_not_take_another_tools_output() -> None:
    # a single timer line inside a GPU table, a topology matrix or an nccl-tests table leaves it that tool's
    smi = (
        "| NVIDIA-SMI 550.54.15              Driver Version: 550.54.15      CUDA Version: 12.4     |\n"
        "|   0  NVIDIA H100 80GB HBM3          On  |   00000000:18:00.0 Off |                    0 |\n"
    )
    assert detect(decode(smi + TIMER)).kind == "nvidia-smi"
    topo = "\tGPU0\tGPU1\tCPU Affinity\nGPU0\t X \tNV18\t0-55\nGPU1\tNV18\t X \t0-55\n"
    assert detect(decode(topo + TIMER)).kind == "nvidia-smi-topo"
    # two timer-signature hits were already a DeepSpeed log (score 88), one alone now scores below the tables
    assert detect(decode(TIMER)).score < detect(decode(smi)).score


def test_a_wrapped_timer_is_joined_only_from_key_value_fragments_and_a_few_lines() -> None:
    head = "[2023-09-15 00:09:45,317] [INFO] [timer.py:260:stop]"
    fragments = [
        "epoch=0/micro_step=2000/global_step=2000,",
        "RunningAvgSamplesPerSec=502.2,",
        "CurrSamplesPerSec=519.4,",
    ]
    # a line of another kind between the parts ends the join: no timer is made up of what follows
    interrupted = "\n".join([head, fragments[0], "some other line", *fragments[1:], TIMER])
    assert parse(interrupted).as_dict()["summary"]["iterations"] == 1
    # more fragment lines than a wrap gives before the figures: not joined
    padded = "\n".join([head, *[f"Key{i}=0," for i in range(8)], *fragments, TIMER])
    assert parse(padded).as_dict()["summary"]["iterations"] == 1


# ---- read right by the hunt, kept so -----------------------------------------------------------------------


def test_all_iterations_skipped_are_counted_and_warned() -> None:
    # three iterations, lr 0.000E+00, `number of skipped iterations: 1` each, no `lm loss`; 155483.8,
    # 129028.8, 128891.5 ms; 1024 x 1024 / 129.0288 s / 64 GPUs
    out = _parse(ALL_SKIPPED)
    summary = out["summary"]
    assert (summary["world_size"], summary["seq_length"], summary["iterations"]) == (64, 1024, 3)
    assert summary["median_iteration_s"] == approx(129.0288)
    assert summary["median_tokens_per_s_per_gpu"] == approx(126.98)
    assert summary["skipped_iterations"] == 3 and all(r["loss"] is None for r in _rows(out))
    assert _warned(out, "skipped iterations: 3")


def test_time_breakdown_lines_between_iterations_change_nothing() -> None:
    # 20 intervals; the first (2152.2 ms) left out; the median of the other 19 is 1380.6 ms;
    # 4 x 1024 / 1.3806 / 16
    out = _parse(TIME_BREAKDOWN)
    summary = out["summary"]
    assert summary["iterations"] == 20 and summary["warmup_iterations_excluded"] == [10]
    assert summary["median_iteration_s"] == approx(1.3806)
    assert summary["median_tokens_per_s_per_gpu"] == approx(185.43)
    assert summary["skipped_iterations"] == 19 and summary["world_size"] == 16


def test_a_final_iteration_with_consumed_tokens_and_eta() -> None:
    # srun `3:  ` prefix, iteration 300/300, `consumed tokens: 1.258B`, `eta: 0:00:00`,
    # `tokens/sec/gpu: 8000.5`
    out = _parse(CONSUMED_TOKENS)
    summary = out["summary"]
    assert summary["iterations"] == 1
    assert summary["median_iteration_s"] == approx(131.0641)
    assert summary["median_tflops_per_gpu"] == approx(412.3)
    assert summary["median_tokens_per_s_per_gpu"] == approx(8000.5)
    assert _rows(out)[0]["loss"] == approx(1.50459)
    assert not _warned(out, "log ends")


def test_progress_bars_and_min_max_timers_around_megatron_lines() -> None:
    # 12 intervals 10-120; the first 8195.9 ms left out; 11 others, median 719.8 ms; a checkpoint save
    # between 100 and 110 makes no stall
    out = _parse(SWIFT)
    summary = out["summary"]
    assert summary["iterations"] == 12 and summary["warmup_iterations_excluded"] == [10]
    assert summary["median_iteration_s"] == approx(0.7198)
    assert summary["stalls"] == []


def test_nemo_lines_after_a_gpustat_block() -> None:
    # iterations 45-49 of 99 (0-based), 6.08 6.061 6.082 6.071 6.06 s, TFLOPS_per_GPU 1.249e+03 ... 1.253e+03
    out = _parse(NEMO_GPUSTAT)
    summary = out["summary"]
    assert summary["source_format"] == "nemo" and summary["iterations"] == 5
    assert summary["median_iteration_s"] == approx(6.071)
    assert summary["median_tflops_per_gpu"] == approx(1250.0)
    assert [r["loss"] for r in _rows(out)] == [approx(11.96)] * 5


def test_a_nemo_line_wrapped_over_three_lines_behind_a_comment() -> None:
    out = _parse(NEMO_WRAPPED)
    summary = out["summary"]
    assert summary["iterations"] == 1 and summary["total_iterations_planned"] == 14
    assert summary["median_iteration_s"] == approx(3.684)
    assert summary["median_tflops_per_gpu"] == approx(1831.0)
    assert _rows(out)[0]["loss"] == approx(11.97)


def test_a_nemo_line_that_lost_its_opening_bracket() -> None:
    # iterations 527-529: 2.389 2.443 2.127 s, tokens_per_sec_per_gpu 6.859e+03 6.706e+03 7.702e+03
    out = _parse(NEMO_BRACKET_LOST)
    summary = out["summary"]
    assert summary["iterations"] == 3
    assert summary["median_iteration_s"] == approx(2.389)
    assert summary["median_tokens_per_s_per_gpu"] == approx(6859.0)
    assert [r["loss"] for r in _rows(out)] == [approx(2.792), approx(3.06), approx(3.221)]


def test_torchtitan_behind_ezpz_prefixes_cut_by_ctrl_c() -> None:
    # 1-D mesh [24], global batch 24 x 4096; steps 1-105, step 1 (tps 149) left out; median tps 6,633:
    # 24 x 4096 / (6633 x 24) = 0.6175 s
    out = _parse(AURORA)
    summary = out["summary"]
    assert (summary["world_size"], summary["seq_length"], summary["total_iterations_planned"]) == (
        24,
        4096,
        1000,
    )
    assert summary["iterations"] == 105 and summary["warmup_iterations_excluded"] == [1]
    assert summary["median_tokens_per_s_per_gpu"] == approx(6633.0)
    assert summary["median_tflops_per_gpu"] == approx(61.56)
    assert summary["mfu"] == approx(0.2064)
    assert summary["median_iteration_s"] == approx(0.6175)
    assert _warned(out, "log ends at iteration 105 of 1000")


def test_torchtitan_lines_each_behind_a_viewer_timestamp_line() -> None:
    out = _parse(MINICODE)
    summary = out["summary"]
    assert [r["iteration"] for r in _rows(out)] == [100, 150, 200]
    assert summary["median_tokens_per_s_per_gpu"] == approx(55069.0)
    assert summary["median_tflops_per_gpu"] == approx(410.23)
    assert summary["mfu"] == approx(0.4148)
    assert summary["median_iteration_s"] is None and summary["world_size"] is None


def test_torchtitan_erratic_throughput_leaves_two_warmup_steps_and_one_stall() -> None:
    # tps 150, 285 (left out), then 833 792 771 721 521 355 443 1764: median (721 + 771) / 2 = 746;
    # step 8 at 355 < 746 / 2
    out = _parse(QWEN_VL)
    summary = out["summary"]
    assert summary["warmup_iterations_excluded"] == [1, 2]
    assert summary["median_tokens_per_s_per_gpu"] == approx(746.0)
    assert summary["median_tflops_per_gpu"] == approx(30.455)
    assert [s["iteration"] for s in summary["stalls"]] == [8]


def test_early_2025_torchtitan_without_the_titan_tag() -> None:
    # steps 1, 10, ..., 100; 1 left out; tps median (7042 + 7051) / 2; 8 x 8192 / (7046.5 x 8) = 1.1626 s
    out = _parse(H200_EARLY)
    summary = out["summary"]
    assert (summary["world_size"], summary["seq_length"], summary["total_iterations_planned"]) == (
        8,
        8192,
        100,
    )
    assert summary["iterations"] == 11 and summary["warmup_iterations_excluded"] == [1]
    assert summary["median_tokens_per_s_per_gpu"] == approx(7046.5)
    assert summary["mfu"] == approx(0.41265)
    assert summary["median_iteration_s"] == approx(1.1626)
    assert not _warned(out, "log ends")


def test_deepspeed_timer_lines_with_a_split_key_between_trainer_dicts() -> None:
    # CurrSamplesPerSec 111.34 (left out), 111.13, 110.60, 109.53 at steps 10-40
    out = _parse(FATE)
    summary = out["summary"]
    assert summary["iterations"] == 4
    assert summary["deepspeed_samples_per_s_median"] == approx(110.5985)
    assert not _warned(out, "one DeepSpeed timer line")


def test_deepspeed_chat_behind_a_pod_name_with_skipped_steps() -> None:
    # CurrSamplesPerSec 6.368 (left out), 6.809, 6.820; `[Rank 0] step=1900, skipped=19`
    out = _parse(T9K)
    summary = out["summary"]
    assert summary["iterations"] == 3 and summary["skipped_iterations"] == 19
    assert summary["deepspeed_samples_per_s_median"] == approx(6.8145)
    assert _warned(out, "skipped 19 of 1900")


def test_hf_trainer_summaries_after_deepspeed_config_dumps_stay_refused() -> None:
    # three DeepSpeed config dumps and 64 `{'train_runtime': 273.0148, ...}` dicts: no timer, no iteration
    out = _parse(HF_TRAINER)
    assert out["kind"] is None
    assert out["errors"] == ["deepspeed signature found but no iteration/step line could be read"]
