"""The twenty-third stop's parser cases: training logs that carry no step time the parsers read are refused
with their own reason (Megatron validation-loss lines alone, a progress bar timed only by tqdm's rate), and
DeepSpeed flops-profiler blocks with a negative value are left out with a warning instead of silently.

fixtures/refusals23/ holds excerpts written for these cases: the validation lines in Megatron-LM's format
(training.py `evaluate_and_print_results`), the NeMo 1 bar from a real log's `41.36s/it` update without its
`train_step_timing in s` field, a Rich bar and a tqdm bar with scaled counts (typed in the shapes those
libraries print), and the profiler block of the real ALCF note (fixtures/real/deepspeed/
alcf-sunspot-...-quoted.txt) without its quote marks."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.utils import translation

from benchmarks.parsers import parse
from portal.i18n import shown

from .test_real_logs import _parse, _path, _warned, approx

CASES = Path(__file__).parent / "fixtures" / "refusals23"
ALCF_QUOTED = (
    "deepspeed/alcf-sunspot-meg-ds-iteration-equals-format-ds-timer-negative-flops-profiler-quoted.txt"
)
BERT_PROFILER = "deepspeed/ds-docs-flops-profiler-bert-large-old-format-no-total-flops-line-fwd-bwd-only.txt"


def _case(name: str) -> Any:
    return parse((CASES / name).read_bytes(), filename=name)


def _chinese(message: Any) -> str:
    with translation.override("zh-hans"):
        return shown(message)


def test_a_megatron_log_of_validation_lines_only_is_refused_with_its_reason() -> None:
    for name in ("megatron-validation-lines-only.txt", "megatron-validation-at-end-of-training-only.txt"):
        r = _case(name)
        assert r.kind is None, name
        assert "validation-loss lines only" in r.errors[0] and "no step time" in r.errors[0]
        assert "no signature of a supported tool" not in r.errors[0]
        assert "仅含验证损失行" in _chinese(r.errors[0])


def test_a_progress_bar_timed_only_by_its_rate_is_refused_with_its_reason() -> None:
    bars = ("nemo1-bar-tqdm-rate-only.txt", "lightning-bar-it-per-s-only.txt", "rich-bar-it-per-s-only.txt")
    for name in (*bars, "tqdm-unit-scale-bar-only.txt"):
        r = _case(name)
        assert r.kind is None, name
        assert "its rate (`s/it` or `it/s`)" in r.errors[0] and "train_step_timing in s" in r.errors[0]
        assert "进度条" in _chinese(r.errors[0])


def test_a_bar_with_the_step_timing_field_is_still_read() -> None:
    # the same update with NeMo's field: read, as before
    text = (
        (CASES / "nemo1-bar-tqdm-rate-only.txt")
        .read_text()
        .replace("consumed_samples=5120.0]", "consumed_samples=5120.0, train_step_timing in s=41.20]")
    )
    r = parse(text.encode(), filename="bar.txt").as_dict()
    assert r["kind"] == "megatron" and r["summary"]["median_iteration_s"] == approx(41.20)


def test_a_profiler_block_with_a_negative_latency_is_left_out_with_a_warning() -> None:
    # the quoted block is read now (`> iter latency: -2.86511e+08 us`), and left out for its sign; the
    # Megatron key=value lines beside it are read as before
    r = _parse(ALCF_QUOTED)
    assert r["summary"].get("deepspeed_flops_profiler") is None
    # the first negative value of the block is its bwd latency (line 75), before the iter latency (79)
    assert _warned(r, "negative value", "1 (the first at line 75: bwd latency: -2.9601e+08 us)")
    assert r["summary"]["median_iteration_s"] == approx(63.0369)


def test_a_log_of_a_negative_profiler_block_only_says_why_nothing_was_read() -> None:
    r = _case("deepspeed-profiler-only-negative-latency.txt")
    assert r.kind is None
    assert any("negative value" in e and "line 21: bwd latency" in e for e in r.errors)
    assert "舍弃" in _chinese(r.errors[-1])
    # the first reason too is in the page's language
    assert r.errors[0] == "deepspeed signature found but no iteration/step line could be read"
    assert "未能读取任何迭代" in _chinese(r.errors[0])


def test_a_profiler_block_quoted_in_markdown_reads_as_the_plain_one() -> None:
    plain = _parse(BERT_PROFILER)["summary"]
    quoted = _case("deepspeed-profiler-bert-quoted.txt").as_dict()["summary"]
    assert quoted["deepspeed_flops_profiler"] == plain["deepspeed_flops_profiler"]
    assert quoted["deepspeed_flops_profiler"]["iter_latency_s"] == approx(0.18473)


def _bert_block(step: int, prefix: str = "", bwd: str | None = None) -> str:
    """The plain BERT profiler block with its step, each line behind `prefix`, and a bwd latency line."""
    text = (
        _path(BERT_PROFILER)
        .read_text()
        .replace("Profile Summary at step 10:", f"Profile Summary at step {step}:")
    )
    if bwd is not None:
        text = text.replace(
            "iter latency:",
            f"bwd latency:                                                            {bwd}\niter latency:",
            1,
        )
    return "".join(prefix + line + "\n" for line in text.splitlines())


def test_a_negative_value_anywhere_in_a_block_leaves_it_out() -> None:
    # a negative bwd latency beside a positive iter latency: the block's figures are not a measured step
    r = parse(_bert_block(10, bwd="-2.9601e+08 us").encode(), filename="p.txt").as_dict()
    assert r["kind"] is None
    assert any("negative value" in e and "bwd latency: -2.9601e+08 us" in e for e in r["errors"])


def test_quote_marks_before_a_rank_prefix_and_nested_quotes_are_read() -> None:
    plain = _parse(BERT_PROFILER)["summary"]["deepspeed_flops_profiler"]
    for prefix in ("> [rank0]: ", "> > ", "[rank0]: > "):
        got = parse(_bert_block(10, prefix).encode(), filename="q.txt").as_dict()["summary"]
        assert got["deepspeed_flops_profiler"] == plain, prefix


def test_with_good_and_negative_blocks_the_warning_names_the_block_read() -> None:
    text = _bert_block(1) + _bert_block(2, bwd="-1.0 s") + _bert_block(3) + _bert_block(4, bwd="-1.0 s")
    r = parse(text.encode(), filename="m.txt").as_dict()
    assert r["summary"]["deepspeed_flops_profiler"]["step"] == 3
    assert _warned(r, "negative value", ": 2 (the first at line", "the last block without one (step 3)")
