"""DeepSpeed's own lines in a training log (FORMATS.md 6.3): the ThroughputTimer's samples/s, the engine's
step and skip counters, and the flops profiler's summary of the one step it profiled.

These are DeepSpeed's figures, not the framework's: a Megatron-DeepSpeed or GPT-NeoX log prints its own
iteration line beside them and training.py reads that one; DeepSpeed's samples/s is kept apart, since it
is defined differently (FORMATS.md 6.3: 27 against ~300 in one log). Samples are not tokens: they become
tokens/s per GPU only where the log prints the sequence length and the world size.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from hardware.messages import Msg, _, ngettext

from .runs import Runs
from .text import QUOTE_PREFIX_RE, median, strip_launcher_prefix, to_float

# ThroughputTimer.stop (deepspeed/utils/timer.py) has printed three shapes. CurrSamplesPerSec is the samples
# of the whole job in one step over that step's time (the train batch size since v0.8.0; micro batch x
# data-parallel size before): samples/s of the job, neither per GPU nor tokens.
# v0.8.0 on (0f0e38c52, 2022-12): `epoch=0/micro_step=3/global_step=3, RunningAvgSamplesPerSec=291.6,
# CurrSamplesPerSec=291.6, MemAllocated=...`.
DS_TIMER_RE = re.compile(
    r"global_step=(\d+),\s*RunningAvgSamplesPerSec=([\d.eE+-]+),\s*CurrSamplesPerSec=([\d.eE+-]+)"
)
# v0.7.0-v0.7.7 (5bd09a8f8, 2022-07): `[timer.py:198:stop] 0/20, RunningAvgSamplesPerSec=232.73...,
# CurrSamplesPerSec=227.48..., MemAllocated=...`: epoch/step, the step counted again in a new epoch.
DS_TIMER_07_RE = re.compile(
    r"\[timer\.py:\d+:stop\]\s*+(\d++)/(\d++),\s*+RunningAvgSamplesPerSec=([\d.eE+-]++),"
    r"\s*+CurrSamplesPerSec=([\d.eE+-]++)"
)
# Before v0.7 (2022): `[timer.py:189:stop] 0/40, SamplesPerSec=83.48, MemAllocated=...` (epoch/step and the
# running average only). Before v0.2.0 (e1ad8803e, 2020-06-05) the timer logged through the root logger, which
# deepspeed_light.py set to `[%(levelname)s %(asctime)s] %(message)s`: `[INFO 2020-06-08 05:26:19] 0/2650,
# SamplesPerSec=13.19...`.
DS_TIMER_OLD_RE = re.compile(
    r"(?:\[timer\.py:\d+:stop\]|\[INFO \d{4}-\d\d-\d\d \d\d:\d\d:\d\d\])"
    r"\s*+(\d+)/(\d+),\s*+SamplesPerSec=([\d.eE+-]+)"
)
# A timer line wrapped by a publisher or a terminal (a blog prints one broken at every `, ` over six lines:
# `[...] [timer.py:260:stop]` / `epoch=0/micro_step=2000/global_step=2000,` / `RunningAvgSamplesPerSec=...,`
# / `CurrSamplesPerSec=...,` / ...): a line holding the timer's tag (or a timer figure and `global_step=`)
# that reads as no timer line is joined with the next lines that start with a `key=` (or `epoch/step,`)
# fragment, MAX_WRAPPED_TIMER_LINES lines in all at most, until the joined text reads as one.
TIMER_TAG_RE = re.compile(r"\[timer\.py:\d++:stop\]")
TIMER_FRAGMENT_RE = re.compile(r"^\s*+(?:[A-Za-z_]\w*+=|\d++/\d++,)")
MAX_WRAPPED_TIMER_LINES = 8
# `[Rank 0] step=N, skipped=M` (engine.py): M counts the optimizer steps skipped so far, and the engine counts
# a step skipped only when the optimizer reports an overflow (`_take_model_step`: fp16 loss scaling).
DS_STEP_RE = re.compile(r"\[Rank \d+\] step=(\d+),\s*skipped=(\d+)")

# The flops profiler (deepspeed/profiling/flops_profiler/profiler.py, print_model_profile, since v0.4.0)
# prints a block headed `----- DeepSpeed Flops Profiler -----` and `Profile Summary at step 2:`, then one
# `label:  value` per line. With wall_clock_breakdown on it adds `iter latency` (forward + backward +
# optimizer step of the profiled step), `FLOPS per GPU = 3 * fwd flops per GPU / iter latency` (the factor
# is the backward factor + 1 since 2023) and `samples/second` (batch size per GPU x world size / iter
# latency).
# Values carry SI prefixes: `7.77 s`, `487.61 ms`, `13.63 TFLOPS` (number_to_string, duration_to_string).
PROFILER_HEADER = "DeepSpeed Flops Profiler"
PROFILER_STEP_RE = re.compile(r"Profile Summary at step (\d++)")
PROFILER_FIELD_RE = re.compile(
    r"^\s*+(world size|data parallel size|model parallel size|batch size per GPU|iter latency|samples/second"
    r"|fwd flops per GPU"
    r"|FLOPS per GPU = [\d.]++ \* fwd flops per GPU / iter latency):\s*+(\d[\d.]*+(?:e[+-]?\d++)?)"
    r"\s*+([A-Za-z]*+)"
)
# Any summary value printed negative (`iter latency: -2.86e+08 us`, `bwd latency: -2.96e+08 us` beside a
# positive iter latency, `samples/second: -0.01`: the profiler's timers read across a wrap or before the
# step's events were synchronised): the whole block is left out, and the warning says so (a block left out
# silently would read as a log without a profile). `label: -number` on a line of the block.
PROFILER_NEGATIVE_RE = re.compile(
    r"^\s*+[A-Za-z][^:\n]{0,120}:\s*+-\s*+\d[\d.]*+(?:e[+-]?\d++)?+(?:\s*+[A-Za-z]++)?+"
)
PROFILER_KEYS = {
    "world size": "world_size",
    "data parallel size": "data_parallel_size",
    "model parallel size": "model_parallel_size",
    "batch size per GPU": "batch_size_per_gpu",
    "iter latency": "iter_latency_s",
    "samples/second": "samples_per_s",
    "fwd flops per GPU": "fwd_flops_per_gpu",
}
# Before its `FLOPS per GPU = 3 * fwd flops per GPU / iter latency` line (2023) the profiler printed only
# the forward's flops (`fwd flops per GPU: 6279.86 G`) beside `iter latency`: the same figure is computed
# from them (DeepSpeed's own definition, the backward taken as twice the forward).
PROFILER_FLOPS_FACTOR = 3.0
# The summary runs from the header to `samples/second` in ~30 lines (more with MoE layers); a block that
# goes on past this without its summary lines is not read further.
PROFILER_MAX_LINES = 60
SI_PREFIXES = {"": 1.0, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15, "m": 1e-3, "u": 1e-6}


def _profiler_value(label: str, number: str, unit: str) -> float | int | None:
    """A profiler value in seconds (`ms`, `us`, `s`: `Ks` past 1,000 s), TFLOP/s (`GFLOPS`...), samples/s,
    or a count (world size, batch size per GPU)."""
    value = to_float(number)
    if value is None:
        return None
    if label == "iter latency":
        scale = SI_PREFIXES.get(unit[:-1]) if unit.endswith("s") else (1.0 if not unit else None)
        return round(value * scale, 9) if scale is not None else None
    if label.startswith("FLOPS per GPU"):
        scale = SI_PREFIXES.get(unit[: -len("FLOPS")]) if unit.endswith("FLOPS") else None
        return round(value * scale / 1e12, 9) if scale is not None else None
    if label == "samples/second":
        return value
    if label == "fwd flops per GPU":
        scale = SI_PREFIXES.get(unit)
        return value * scale if scale is not None else None
    return int(value) if value.is_integer() else None


@dataclass
class DeepSpeedLog:
    """What one pass collects of DeepSpeed's lines; each counter keeps the last run only (runs.py)."""

    # (step, running average, current samples/s, line) of each timer line of the current run
    timer: list[tuple[int, float, float, int]] = field(default_factory=list)
    timer_runs: Runs = field(default_factory=Runs)
    old_timer: bool = False
    # the `[Rank 0] step=N, skipped=M` counters of the current run
    steps: int = 0
    skipped_steps: int = 0
    step_runs: Runs = field(default_factory=Runs)
    # a counter went back since training.py last looked (it then takes the new run's set-up lines)
    restarted: bool = False
    # the last complete profiler block (with its iter latency), and how many were read
    profile: dict[str, Any] | None = None
    profiles: int = 0
    # blocks left out for a negative value: how many, and the first such value (line, text)
    negative_blocks: int = 0
    first_negative: tuple[int, str] | None = None
    _timer_keys: set[tuple[int, int]] = field(default_factory=set)
    _step_keys: set[int] = field(default_factory=set)
    _block: dict[str, Any] | None = None
    # a wrapped timer line being joined: (its first line, the text so far, lines joined)
    _wrapped: tuple[int, str, int] | None = None

    def samples_per_s_median(self) -> float | None:
        """The timer's current samples/s, the first timer line left out as a warm-up (None without one)."""
        currents = [current for _, _, current, _ in self.timer]
        return median(currents[1:] or currents) if currents else None

    def profiler_summary(self) -> dict[str, Any] | None:
        """The last complete profiler block as the summary reports it, with how many blocks were read."""
        return {**self.profile, "blocks": self.profiles} if self.profile is not None else None

    def read_line(self, line_no: int, line: str) -> bool:
        """One line that is no framework's iteration line; True when it is one of DeepSpeed's."""
        if self._wrapped is not None and self._continue_wrapped(line):
            return True
        if self._block is not None and self._read_profile_line(line_no, line):
            return True
        if "SamplesPerSec=" in line or ":stop]" in line:
            return self._read_timer(line_no, line) or self._start_wrapped(line_no, line)
        if "] step=" in line:
            return self._read_step(line_no, line)
        if PROFILER_HEADER in line:
            self._close_block()
            self._block = {"line": line_no, "last_line": line_no, "lines": 0}
            return True
        return False

    def _read_timer(self, line_no: int, line: str) -> bool:
        epoch, old = 0, False
        if found := DS_TIMER_RE.search(line):
            step, running, current = int(found.group(1)), found.group(2), found.group(3)
        elif found := DS_TIMER_07_RE.search(line):
            epoch, step = int(found.group(1)), int(found.group(2))
            running, current = found.group(3), found.group(4)
        elif found := DS_TIMER_OLD_RE.search(line):
            # Only the running average is printed: it stands for the current figure too.
            epoch, step, old = int(found.group(1)), int(found.group(2)), True
            running = current = found.group(3)
        else:
            return False
        average, now = to_float(running), to_float(current)
        if average is None or now is None:
            return False
        if self.timer_runs.add(step, line_no, (epoch, step) in self._timer_keys, epoch):
            self.timer.clear()
            self._timer_keys.clear()
            self.old_timer, self.restarted = False, True
        self._timer_keys.add((epoch, step))
        self.timer.append((step, average, now, line_no))
        self.old_timer = self.old_timer or old
        return True

    def _start_wrapped(self, line_no: int, line: str) -> bool:
        """A timer line's first part (its tag or `global_step=`, no figures yet): the next lines may complete
        it."""
        if "global_step=" not in line and not TIMER_TAG_RE.search(line):
            return False
        self._wrapped = (line_no, line, 1)
        return True

    def _continue_wrapped(self, line: str) -> bool:
        """The next fragment of a wrapped timer line; the timer is read once the joined text holds it."""
        if self._wrapped is None:
            return False
        first, text, joined = self._wrapped
        if joined >= MAX_WRAPPED_TIMER_LINES or not TIMER_FRAGMENT_RE.match(line):
            self._wrapped = None
            return False
        text = text.rstrip() + " " + line.strip()
        self._wrapped = None if self._read_timer(first, text) else (first, text, joined + 1)
        return True

    def _read_step(self, line_no: int, line: str) -> bool:
        found = DS_STEP_RE.search(line)
        if not found:
            return False
        step, skipped = int(found.group(1)), int(found.group(2))
        if self.step_runs.add(step, line_no, step in self._step_keys):
            # A fresh run counts from 0 again; one resumed from a checkpoint carries the counters on.
            self.steps, self.skipped_steps = step, skipped
            self._step_keys.clear()
            self.restarted = True
        self._step_keys.add(step)
        self.steps, self.skipped_steps = max(self.steps, step), max(self.skipped_steps, skipped)
        return True

    def _read_profile_line(self, line_no: int, line: str) -> bool:
        """A line of an open profiler block: its step, a summary value, or the end of the summary."""
        block = self._block
        if block is None:
            return False
        block["lines"] += 1
        if block["lines"] > PROFILER_MAX_LINES or "Aggregated Profile" in line or PROFILER_HEADER in line:
            self._close_block()
            return PROFILER_HEADER not in line and "Aggregated Profile" in line
        # a block quoted in markdown or e-mail (`> iter latency: ...`, `> > ...`, `> [rank0]: ...`), as notes
        # and issues paste it, and a launcher's prefix on either side of the quote marks
        text = strip_launcher_prefix(line)
        quoted = QUOTE_PREFIX_RE.match(text)
        text = text[quoted.end() :] if quoted else text
        if step := PROFILER_STEP_RE.search(text):
            block["step"] = int(step.group(1))
            return True
        if negative := PROFILER_NEGATIVE_RE.match(text):
            block.setdefault("negative", (line_no, " ".join(negative.group(0).split())))
            return True
        found = PROFILER_FIELD_RE.match(text)
        if not found:
            return False
        label = found.group(1)
        value = _profiler_value(label, found.group(2), found.group(3))
        key = "tflops_per_gpu" if label.startswith("FLOPS per GPU") else PROFILER_KEYS[label]
        if value is not None:
            block[key] = value
            block["last_line"] = line_no
        if label == "samples/second":
            self._close_block()
        return True

    def _close_block(self) -> None:
        """Keep a finished block when it has an iteration time (wall_clock_breakdown was on)."""
        block, self._block = self._block, None
        if block is not None and "negative" in block:
            self.negative_blocks += 1
            self.first_negative = self.first_negative or block["negative"]
            return
        if block is not None and block.get("iter_latency_s"):
            del block["lines"]
            self.profile = block
            self.profiles += 1

    def finish(self) -> None:
        self._close_block()


def samples_not_converted(seq_length: float | None, world_size: float | None) -> Msg:
    """Why DeepSpeed's samples/s was not turned into tokens/s per GPU: what the log does not print."""
    if not seq_length and not world_size:
        return _(
            "DeepSpeed samples/s not converted to tokens/s per GPU: the log prints neither the sequence "
            "length nor the world size"
        )
    if not seq_length:
        return _("DeepSpeed samples/s not converted to tokens/s per GPU: the log prints no sequence length")
    return _("DeepSpeed samples/s not converted to tokens/s per GPU: the log prints no world size")


def timer_fields(ds: DeepSpeedLog, seq_length: float | None, world_size: float | None) -> dict[str, Any]:
    """DeepSpeed's own ThroughputTimer only: samples/s of the job (the first timer line left out, as a
    warm-up), as tokens/s per GPU where the sequence length and the world size are printed."""
    samples = ds.samples_per_s_median()
    fields: dict[str, Any] = {
        "iterations": len(ds.timer),
        "median_iteration_s": None,
        "median_tflops_per_gpu": None,
        "median_tokens_per_s_per_gpu": None,
        "mfu": None,
        "deepspeed_samples_per_s_median": samples,
        # DeepSpeed before 0.7 prints only `SamplesPerSec=` (the running average since the start).
        "deepspeed_samples_per_s_running_average_only": ds.old_timer,
        "skipped_iterations": ds.skipped_steps,
        "first_line": ds.timer[0][3],
        "last_line": ds.timer[-1][3],
    }
    if samples and seq_length and world_size:
        fields["median_tokens_per_s_per_gpu"] = round(samples * seq_length / world_size, 2)
        fields["tokens_per_s_per_gpu_source"] = "computed: DeepSpeed samples/s x seq length / world size"
    return fields


def profile_fields(ds: DeepSpeedLog, seq_length: float | None) -> dict[str, Any]:
    """The profiled step's iteration time and TFLOP/s per GPU; tokens/s per GPU where the log prints the
    sequence length (batch size per GPU x data-parallel size x sequence / iter latency / world size: the
    profiler's own samples/second counts every GPU, model-parallel ones too)."""
    profile = ds.profile
    if profile is None:
        return {}
    latency, world = profile["iter_latency_s"], profile.get("world_size")
    batch, data_parallel = profile.get("batch_size_per_gpu"), profile.get("data_parallel_size")
    fields: dict[str, Any] = {
        "median_iteration_s": round(latency, 4),
        "median_iteration_s_source": "DeepSpeed flops profiler: iter latency of the profiled step",
        "median_tflops_per_gpu": round(profile["tflops_per_gpu"], 2) if "tflops_per_gpu" in profile else None,
        **_forward_flops_tflops(profile),
        "deepspeed_profiler_step": profile.get("step"),
        "deepspeed_profiler_samples_per_s": profile.get("samples_per_s"),
        "deepspeed_flops_profiler": ds.profiler_summary(),
    }
    if seq_length and world and batch and data_parallel:
        fields["median_tokens_per_s_per_gpu"] = round(batch * data_parallel * seq_length / latency / world, 2)
        fields["tokens_per_s_per_gpu_source"] = (
            "computed: batch per GPU x data parallel size x seq length / iter latency / world size"
        )
    return fields


def _forward_flops_tflops(profile: dict[str, Any]) -> dict[str, Any]:
    """TFLOP/s per GPU from an older block's forward flops and iter latency, where it prints no total."""
    if "tflops_per_gpu" in profile or not profile.get("fwd_flops_per_gpu"):
        return {}
    flops = PROFILER_FLOPS_FACTOR * profile["fwd_flops_per_gpu"] / profile["iter_latency_s"]
    return {
        "median_tflops_per_gpu": round(flops / 1e12, 2),
        "median_tflops_per_gpu_source": (
            "computed: 3 x fwd flops per GPU / iter latency (DeepSpeed's definition)"
        ),
    }


def profile_warnings(ds: DeepSpeedLog, seq_length: float | None) -> list[str]:
    """What a reader of the profiler's figures must know: one step, measured while profiling it."""
    profile = ds.profile
    if profile is None:
        return []
    warnings: list[str] = [
        _(
            "the DeepSpeed flops profiler measured one step (step %(step)s) while profiling it: the "
            "iteration time and TFLOP/s per GPU are that one step's, a median of one",
            step=profile.get("step", "?"),
        )
    ]
    world, data_parallel = profile.get("world_size"), profile.get("data_parallel_size")
    if world and data_parallel and world > data_parallel and profile.get("samples_per_s"):
        # model-parallel GPUs share their samples: the job trains batch x data-parallel size per step
        warnings.append(
            _(
                "the DeepSpeed flops profiler's samples/second counts the batch size per GPU on all "
                "%(world)s GPUs, not on the %(data_parallel)s data-parallel ranks: %(ratio)sx the samples "
                "the job trained",
                world=world,
                data_parallel=data_parallel,
                ratio=f"{world / data_parallel:g}",
            )
        )
    if not seq_length and not ds.timer:  # else the timer's samples/s warning says what is missing
        warnings.append(samples_not_converted(seq_length, world))
    if ds.profiles > 1:
        warnings.append(
            _(
                "%(count)s DeepSpeed flops profiler blocks: the last one is read",
                count=ds.profiles,
            )
        )
    return warnings


def negative_profile_warnings(ds: DeepSpeedLog) -> list[str]:
    """The profiler blocks left out because they printed a negative value."""
    if ds.first_negative is None:  # set with the first block left out
        return []
    line, text = ds.first_negative
    values = {"count": ds.negative_blocks, "line": line, "text": text}
    if ds.profile is not None:
        return [
            _(
                "DeepSpeed flops profiler blocks left out for a negative value, which no measured step can "
                "give: %(count)s (the first at line %(line)s: %(text)s); the figures are the last block "
                "without one (step %(step)s)",
                step=ds.profile.get("step", "?"),
                **values,
            )
        ]
    return [
        _(
            "DeepSpeed flops profiler blocks left out for a negative value, which no measured step can give: "
            "%(count)s (the first at line %(line)s: %(text)s)",
            **values,
        )
    ]


def skip_warnings(ds: DeepSpeedLog) -> list[str]:
    if not ds.skipped_steps:
        return []
    return [
        ngettext(
            "DeepSpeed skipped %(skipped)s of %(steps)s optimizer step (fp16 loss-scale overflow): those "
            "steps did no training",
            "DeepSpeed skipped %(skipped)s of %(steps)s optimizer steps (fp16 loss-scale overflow): those "
            "steps did no training",
            ds.steps,
            skipped=ds.skipped_steps,
            steps=ds.steps,
        )
    ]
