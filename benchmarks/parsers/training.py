"""Training logs: Megatron-LM (ROCm/Primus, Megatron-DeepSpeed, NeMo), torchtitan, DeepSpeed (FORMATS.md 6).

Per-iteration figures come from the lines the frameworks print every `--log-interval` steps. The
first logged interval usually includes compilation and warm-up (15-50x slower in the AMD logs): the
leading intervals over 1.5x the median of the rest are excluded (_exclude_warmup; one already steady is
kept, and a lone interval is used as it is); later intervals over 2x the median are reported as stalls.
A Megatron line's fields are read in megatron_line.py, DeepSpeed's own lines in deepspeed.py; a file
holding several runs is summarised on its last one (runs.py, _TrainingLog); a traceback after the
last iteration is warned about. A TFLOP/s per GPU above every GPU's peak is left out, with a warning.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any

from hardware import GPUS
from hardware.messages import _, listed, ngettext

from .deepspeed import (
    DeepSpeedLog,
    negative_profile_warnings,
    profile_fields,
    profile_warnings,
    samples_not_converted,
    skip_warnings,
    timer_fields,
)
from .megatron_line import continues_fields, marked_warmup, megatron_fields, megatron_row, row_from_fields
from .result import ParseResult
from .runs import Runs, runs_fields
from .text import RANK_PREFIX_RE, SRUN_PREFIX_RE, Text, median, strip_launcher_prefix, to_float, to_int

# `iteration 10/ 500 | ...` (Megatron-LM and its forks) or `iteration=  10/ 500 | key=value | ...` (the
# key=value fork of Megatron-DeepSpeed run at ALCF: fixtures/real/megatron/, megatron_line.field_pairs)
ITER_RE = re.compile(r"\biteration(?:\s+|=\s*)(\d+)\s*/\s*(\d+)\s*\|(.*)$")
ARG_RE = re.compile(
    r"(?:^|[\s:\-])(seq_length|encoder_seq_length|world_size|global_batch_size|micro_batch_size"
    r"|tensor_model_parallel_size|pipeline_model_parallel_size|data_parallel_size)\s*(?:\.{2,}|:)\s*(\S+)"
)
WORLD_RE = re.compile(r"using world size:\s*(\d+)|dist_world_size=(\d+)")
# torchtitan's set-up lines (torchtitan/distributed/parallel_dims.py, trainer.py): the device mesh gives the
# world size (`pp=1, dp_replicate=1, dp_shard=8, cp=1, tp=1, ep=1`: ep folds into the others; before 2026
# `Building 2-D device mesh with ['dp_shard', 'tp'], [4, 2]`), the trainer line the tokens of one train step
# and the context length.
TITAN_MESH_RE = re.compile(
    r"Building device mesh with parallelism:\s*((?:[a-z_]{1,20}=-?\d{1,7},?\s*){1,10})"
)
TITAN_MESH_OLD_RE = re.compile(r"Building \d-D device mesh with \[[^\]]{0,300}\],\s*\[([\d,\s]{1,80})\]")
# The trainer line has had three shapes (2025-03: local/global batch size, sequence length, total steps;
# 2026-02: the same with gradient accumulation steps; 2026-08: tokens per DP rank and per train step,
# maximum context length): each figure is read by its own words.
TITAN_SETUP_RES = {
    "global_batch_size": re.compile(r"global batch size (\d{1,9})\b"),
    "seq_length": re.compile(r"(?:sequence length|maximum context length) (\d{1,9})\b"),
    "tokens_per_step": re.compile(r"\b(\d{1,15}) tokens per train step"),
    "total_steps": re.compile(r"total steps (\d{1,12})\b"),
}
TITAN_WORLD_DIMS = ("pp", "dp_replicate", "dp_shard", "cp", "tp")
# torchtitan `step: 12  loss: ...`; forks print the run length too: `step: 640/644 = 99.3789%  loss: ...`.
TITAN_RE = re.compile(r"(?<!validate )\bstep:\s*(\d+)(?:/(\d+)(?:\s*=\s*[\d.]+%)?)?\s+(.*)$")
# A value ends at a backtick too: a markdown fence glued to the last line (`mfu: 23.46%```).
TITAN_KV_RE = re.compile(r"\b(loss|grad_norm|memory|tps|wps|tflops|mfu)\s*:\s*([^\s`]+)")
# NeMo 1 (PyTorch Lightning) prints no iteration lines, only its progress bar, whose postfix carries the step
# time: `Epoch 0: :  47%|████▋     | 7/15 [06:19<07:13, reduced_train_loss=11.50, global_step=5.000,
# consumed_samples=12288.0, train_step_timing in s=49.50]`. Read by string search (the bar's updates run
# together on one line once the carriage returns are gone), never by a regex over the line.
NEMO_BAR_KEY = "train_step_timing in s="
# NeMo's performance callback (perf_metrics_utils, as NVIDIA's benchmark harness cloudai prints it) lists
# every step's time at the end of a run: `train_step_timing in s: [11.85, 6.98, 5.36, ..., 2.13]`.
NEMO_STEP_LIST_RE = re.compile(r"train_step_timing in s:\s*+\[([\d.,\s eE+-]{1,200000}+)\]")
# A Python traceback or error line after the last iteration: the run stopped there, or failed at its
# teardown (`Fatal Python error: Aborted` after `Training completed`). Exception lines are read as Python
# prints them (`AttributeError: ...`, `torch.distributed.DistBackendError: ...`, `KeyboardInterrupt`); the
# quote is cut to MAX_QUOTED_CHARS.
TRACEBACK_HEAD = "Traceback (most recent call last)"
FATAL_PYTHON_ERROR = "Fatal Python error:"
EXCEPTION_RE = re.compile(r"^(?:[A-Za-z_]\w*+\.)*+\w*?(?:Error|Exception|Interrupt|Exit)(?::.*)?$")
MAX_QUOTED_CHARS = 200
# Megatron-Bridge (NeMo's training library, NVIDIA-NeMo/Megatron-Bridge src/megatron/bridge/training/utils/
# train_utils.py training_log) prints on rank 0, every log interval and before the last rank's iteration line,
# `Step Time : 2.22s GPU utilization: 1179.6MODEL_TFLOP/s/GPU`: the interval's mean iteration time and model
# TFLOP/s per GPU (`TFLOP/s/GPU` before 23fc54521, 2025-11). The line carries no iteration number.
BRIDGE_STEP_RE = re.compile(
    r"Step Time\s*+:\s*+(\d++(?:\.\d++)?)s\s++GPU utilization:\s*+(\d++(?:\.\d++)?)\s*+(?:MODEL_)?TFLOP/s/GPU"
)
# DeepSpeedExamples' Megatron-LM copies (v1.1.5 ZeRO-3 and 3D, 2021: megatron/training.py training_log,
# then flops_calculator) print after each iteration line and its `time (ms)` breakdown `Effective Tera Flops
# per GPU: 41.94 and total parameters 52.005 B`: the TFLOP/s per GPU of that interval, from the same elapsed
# time.
EFFECTIVE_TFLOPS_KEY = "Effective Tera Flops per GPU:"
EFFECTIVE_TFLOPS_RE = re.compile(r"Effective Tera Flops per GPU:\s*+(\d++(?:\.\d++)?+(?:[eE][+-]?+\d++)?+)")
# No GPU reaches more TFLOP/s than the highest dense peak in hardware/gpus.py (fp8 on the newest): a figure
# above it is a miscount, not a measurement (Megatron-Bridge printed 59892.5 for a 1B-parameter model:
# fixtures/real/megatron/megatron-bridge-nemo2509-llama1b-step-time-59892-tflops-beside-iteration-line.txt).
MAX_TFLOPS_PER_GPU = max(max(gpu.bf16_tflops, gpu.fp8_tflops or 0.0) for gpu in GPUS.values())
# A publisher's or terminal's wrap of a Megatron line (inside a field, or after a `|` when the next line
# starts with an iteration line's field: Primus's line over 6 lines): at most this many lines joined.
MAX_WRAPPED_LINES = 8
STALL_FACTOR = 2.0
WARMUP_FACTOR = 1.5


def _exclude_warmup(times: list[float]) -> int:
    """How many leading intervals are warm-up: each one slower than WARMUP_FACTOR x the median of the
    intervals after it. The first interval is not dropped on principle (a log whose first interval is
    already steady keeps it)."""
    if len(times) < 2:
        return 0
    skip = 0
    while skip < len(times) - 1:
        rest = median(times[skip + 1 :]) or 0.0
        if rest and times[skip] > WARMUP_FACTOR * rest:
            skip += 1
        else:
            break
    return skip


def _steady(rows: list[dict[str, Any]], key: str) -> list[dict[str, Any]]:
    return [r for r in rows if r.get(key) is not None]


def _read_args(line: str, args: dict[str, float]) -> None:
    """Launch arguments (`seq_length ....... 4096`, `using world size: 64`); the first print wins."""
    for m in ARG_RE.finditer(line):
        value = to_float(m.group(2))
        if value is not None and m.group(1) not in args:
            args[m.group(1)] = value
    world = WORLD_RE.search(line)
    if world and "world_size" not in args:
        args["world_size"] = float(world.group(1) or world.group(2))


def _read_titan_setup(line: str, args: dict[str, float]) -> None:
    """torchtitan's device mesh (world size) and trainer line (tokens per step, context, steps)."""
    if "device mesh" in line and "world_size" not in args:
        mesh = TITAN_MESH_RE.search(line)
        if mesh:
            dims = dict(re.findall(r"([a-z_]+)=(-?\d+)", mesh.group(1)))
            sizes = [int(dims[d]) for d in TITAN_WORLD_DIMS if d in dims]
        else:
            old = TITAN_MESH_OLD_RE.search(line)
            sizes = [int(n) for n in re.findall(r"\d+", old.group(1))] if old else []
        if sizes and all(n > 0 for n in sizes):
            args["world_size"] = float(math.prod(sizes))
        return
    if "Trainer is initialized" in line or "Training starts at step" in line:
        for key, pattern in TITAN_SETUP_RES.items():
            found = pattern.search(line)
            if found and key not in args:
                args[key] = float(found.group(1))
        if "tokens_per_step" not in args and "global_batch_size" in args and "seq_length" in args:
            args["tokens_per_step"] = args["global_batch_size"] * args["seq_length"]


def _titan_row(step: int, rest: str, line_no: int) -> dict[str, Any]:
    """One torchtitan `step: N  loss: ... tps: ... mfu: ...%` line."""
    kv = dict(TITAN_KV_RE.findall(rest))
    tps = to_float(kv.get("tps") or kv.get("wps") or "")
    mfu = to_float(kv.get("mfu", ""))
    tflops = to_float(kv.get("tflops", ""))
    # `tflops: 0.00  mfu: 0.00%` beside a throughput: torchtitan has no FLOP count for the model (a
    # diffusion model's trainer prints zeros), not a measurement of zero (warned: _uncounted_flops)
    uncounted = bool(tps) and tflops == 0.0 and mfu == 0.0
    return {
        "iteration": step,
        "line": line_no,
        "warmup": marked_warmup(rest),
        "time_s": None,
        "tflops_per_gpu": None if uncounted else tflops,
        "tokens_per_s_per_gpu": tps,
        "mfu": None if uncounted or mfu is None else mfu / 100,
        "flops_uncounted": uncounted,
        "loss": to_float(kv.get("loss", "")),
        "skipped": 0,
        "nan": 1 if kv.get("loss", "").lower() in ("nan", "-nan") else 0,
    }


def _nemo_bar_rows(line: str, line_no: int) -> list[dict[str, Any]]:
    """Each NeMo 1 progress-bar update on a line: `N/M [elapsed<left, key=value, ...]` (or `Nit [...]`, a
    bar without a length), the step being the postfix's `global_step` (else N) and the run length M."""
    rows: list[dict[str, Any]] = []
    pos = 0
    while (at := line.find(NEMO_BAR_KEY, pos)) >= 0:
        opening = line.rfind("[", pos, at)
        closing = line.find("]", at, at + 2000)
        pos = at + len(NEMO_BAR_KEY)
        if opening < 0:
            continue
        counter = line[max(opening - 40, 0) : opening].split()
        done, _, total = counter[-1].partition("/") if counter else ("", "", "")
        # `1it [00:04, ...]`: a bar without a length (a dataloader sized by max_steps), no total
        unsized = not total and done.endswith("it")
        if unsized:
            done = done[: -len("it")]
        postfix = line[opening + 1 : closing if closing >= 0 else at + 40]
        fields = {}
        for item in postfix.split(","):
            key, sep, value = item.partition("=")
            if sep:
                fields[" ".join(key.replace("_", " ").lower().split())] = value.strip()
        global_step = to_float(fields.get("global step", ""))
        step = global_step if global_step is not None else to_float(done)
        if step is None or (to_int(total) is None and not unsized):
            continue
        row = row_from_fields(int(step), fields, postfix, line_no, {})
        row["nemo"] = True
        row["total"] = None if unsized else to_int(total)
        # Lightning's global_step is the index of the step being run, from 0: the bar's last update of a
        # finished 100-step run reads `100/100 [..., global_step=99.00, ...]`. The bar's own N counts from 1.
        row["counts_from_zero"] = global_step is not None
        rows.append(row)
    return rows


def _bridge_row(number: int, found: re.Match[str], line_no: int) -> dict[str, Any]:
    """One Megatron-Bridge `Step Time` line, numbered in print order (it prints no iteration number)."""
    time_s, tflops = to_float(found.group(1)), to_float(found.group(2))
    return {"iteration": number, "line": line_no, "warmup": False, "time_s": time_s, "tflops_per_gpu": tflops,
            "tokens_per_s_per_gpu": None, "skipped": 0, "nan": 0}  # fmt: skip


@dataclass
class _TrainingLog:
    """What one pass over the lines collects; every rank may print the same iteration line, so
    rows are keyed by iteration and the first print is kept.

    Where an iteration counter goes back, a new run starts (runs.py) and only the last run is kept: the end
    of the file is where the uploader stopped, a restart usually follows a fix or a crash (the earlier run
    is then a configuration given up or a failure), and the end-of-log checks (a cut run, a traceback) are
    about that run, so the summary and those warnings describe the same run. The set-up lines printed
    before the new run's first iteration replace the earlier run's; a run pasted without them keeps them.
    """

    args: dict[str, float] = field(default_factory=dict)
    # Arguments printed since the last iteration line: the next run's set-up if that line starts one.
    pending_args: dict[str, float] = field(default_factory=dict)
    restarted: bool = False
    megatron: dict[int, dict[str, Any]] = field(default_factory=dict)
    megatron_runs: Runs = field(default_factory=Runs)
    titan: dict[int, dict[str, Any]] = field(default_factory=dict)
    titan_runs: Runs = field(default_factory=Runs)
    # Megatron-Bridge `Step Time` lines in print order, and the last one no iteration line has followed yet.
    bridge: list[dict[str, Any]] = field(default_factory=list)
    bridge_pending: dict[str, Any] | None = None
    # The iteration of the last Megatron line, until an `Effective Tera Flops per GPU` line is paired with it.
    flops_pending: int | None = None
    ds: DeepSpeedLog = field(default_factory=DeepSpeedLog)
    total_iterations: int | None = None
    # The planned total of the last Megatron iteration line (`iteration N/ M`): a change is a new launch.
    megatron_total: int | None = None
    # The last Megatron line, perhaps wrapped: (iteration, prefix, text so far, lines joined).
    wrapped: tuple[int, str, str, int] | None = None
    # The first Python traceback and the first exception line since the last training line.
    traceback_line: int | None = None
    error: tuple[int, str] | None = None

    def _continue_wrapped(self, line: str) -> bool:
        """Join the next line of an iteration line wrapped by a publisher or terminal: after a line cut
        inside a field (not ending on `|`), a line of `key: value |` fields; after a line ending on `|`, a
        line starting with an iteration line's field (megatron_line.continues_fields), the last of which may
        end without `|` (`consumed_samples: 15360`). A line holding an iteration is never joined."""
        if self.wrapped is None:
            return False
        iteration, prefix, rest, joined = self.wrapped
        cut = not rest.endswith("|")
        fits = ("|" in line and ":" in line) if cut else continues_fields(line)
        # a line repeating a key the iteration line already has is another record (`lm loss: ...` of a
        # validation or a second logger), never the rest of this one
        repeats = not cut and fits and bool(megatron_fields(line).keys() & megatron_fields(rest).keys())
        if not fits or repeats or joined >= MAX_WRAPPED_LINES or ITER_RE.search(line):
            self.wrapped = None
            return False
        rest = rest + " " + line.strip()
        before = self.megatron[iteration]
        row = self.megatron[iteration] = megatron_row(iteration, rest, before["line"], prefix)
        if row["tflops_per_gpu"] is None and "tflops_line" in before:  # Megatron-Bridge's, kept
            row.update(tflops_per_gpu=before["tflops_per_gpu"], tflops_line=before["tflops_line"])
        # a line after a separator that ends without one is the wrapped line's last
        self.wrapped = (iteration, prefix, rest, joined + 1) if cut or rest.endswith("|") else None
        return True

    def read_line(self, line_no: int, line: str) -> None:
        """One non-empty line; a line is an iteration line of one format at most."""
        if self._continue_wrapped(line):
            return
        _read_args(line, self.pending_args)
        _read_titan_setup(line, self.pending_args)
        if self._read_progress(line_no, line) or self.ds.read_line(line_no, line):
            self.traceback_line, self.error = None, None
            self._settle_args()
        elif self.error is None:
            self._read_error(line_no, line)

    def _new_print(
        self,
        rows: dict[int, dict[str, Any]],
        runs: Runs,
        iteration: int,
        line_no: int,
        relaunched: bool = False,
    ) -> bool:
        """Whether this print of `iteration` is its first in the run; a counter going back (or a line that
        says it is another launch) drops the rows of the run before."""
        if runs.add(iteration, line_no, iteration in rows, relaunched=relaunched):
            rows.clear()
            self.restarted = True
        return iteration not in rows

    def _read_progress(self, line_no: int, line: str) -> bool:
        """A Megatron/NeMo iteration line, a Megatron-Bridge step line, a NeMo progress bar, a
        DeepSpeedExamples TFLOP/s line or a torchtitan step line."""
        iteration_line = ITER_RE.search(line)
        if iteration_line:
            iteration, total = int(iteration_line.group(1)), int(iteration_line.group(2))
            relaunched = self.megatron_total is not None and total != self.megatron_total
            self.total_iterations = self.megatron_total = total
            bridge_step, self.bridge_pending = self.bridge_pending, None
            self.flops_pending = iteration
            if self._new_print(self.megatron, self.megatron_runs, iteration, line_no, relaunched):
                rest, prefix = iteration_line.group(3), line[: iteration_line.start()]
                row = self.megatron[iteration] = megatron_row(iteration, rest, line_no, prefix)
                if bridge_step is not None and row["tflops_per_gpu"] is None:
                    # the interval's TFLOP/s from Bridge's step line when the iteration line has none
                    row.update(tflops_per_gpu=bridge_step["tflops_per_gpu"], tflops_line=bridge_step["line"])
                # wrapped inside a field or right after a `|`: _continue_wrapped reads the next line
                self.wrapped = (iteration, prefix, rest.rstrip(), 1)
            return True
        if "Step Time" in line and (found := BRIDGE_STEP_RE.search(line)):
            self.bridge_pending = _bridge_row(len(self.bridge) + 1, found, line_no)
            self.bridge.append(self.bridge_pending)
            return True
        if "train_step_timing in s: [" in line and self._read_step_list(line_no, line):
            return True
        if NEMO_BAR_KEY in line:
            for row in _nemo_bar_rows(line, line_no):
                self.total_iterations = row.pop("total")
                if self._new_print(self.megatron, self.megatron_runs, row["iteration"], line_no):
                    self.megatron[row["iteration"]] = row
            return True
        if EFFECTIVE_TFLOPS_KEY in line:
            return self._read_effective_tflops(line_no, line)
        step_line = TITAN_RE.search(line)
        if step_line and ("tps:" in line or "wps:" in line):
            stripped = RANK_PREFIX_RE.sub("", strip_launcher_prefix(line))
            step_line = TITAN_RE.search(stripped) or step_line
            step = int(step_line.group(1))
            if step_line.group(2):
                self.total_iterations = int(step_line.group(2))
            if self._new_print(self.titan, self.titan_runs, step, line_no):
                self.titan[step] = _titan_row(step, step_line.group(3), line_no)
            return True
        return False

    def _read_step_list(self, line_no: int, line: str) -> bool:
        """NeMo's list of every step's time (NEMO_STEP_LIST_RE): one row per step, numbered from 1."""
        listed = NEMO_STEP_LIST_RE.search(line)
        if listed is None:
            return False
        for number, value in enumerate(listed.group(1).split(","), start=1):
            if to_float(value.strip()) is None:
                continue
            if self._new_print(self.megatron, self.megatron_runs, number, line_no):
                row = row_from_fields(number, {"train step timing in s": value.strip()}, "", line_no, {})
                self.megatron[number] = {**row, "nemo": True}
        return True

    def _read_effective_tflops(self, line_no: int, line: str) -> bool:
        """The TFLOP/s per GPU of the iteration line before, unless it prints its own; one such line per
        iteration line (one printed before its iteration line, by another rank, is not paired)."""
        found = EFFECTIVE_TFLOPS_RE.search(line)
        row = self.megatron.get(self.flops_pending) if self.flops_pending is not None else None
        self.flops_pending = None
        if found is None or row is None:
            return False
        if row["tflops_per_gpu"] is None:
            row.update(tflops_per_gpu=to_float(found.group(1)), tflops_line=line_no)
        return True

    def _settle_args(self) -> None:
        """The arguments printed before this iteration line: a new run's own when it starts one, else
        added to the run's (the first print wins)."""
        if (self.restarted or self.ds.restarted) and self.pending_args:
            self.args = self.pending_args
        else:
            for key, value in self.pending_args.items():
                self.args.setdefault(key, value)
        self.pending_args, self.restarted, self.ds.restarted = {}, False, False

    def _read_error(self, line_no: int, line: str) -> None:
        """A Python traceback's first line, or an exception (`AttributeError: ...`) or fatal-error line."""
        if TRACEBACK_HEAD in line:
            if self.traceback_line is None:
                self.traceback_line = line_no
            return
        if "Error" not in line and "Exception" not in line and "Interrupt" not in line and "Exit" not in line:
            if FATAL_PYTHON_ERROR not in line:
                return
        prefix = SRUN_PREFIX_RE.match(line) or RANK_PREFIX_RE.match(line)
        text = (line[prefix.end() :] if prefix else line).strip()
        if text.startswith(FATAL_PYTHON_ERROR) or EXCEPTION_RE.match(text):
            quoted = text if len(text) <= MAX_QUOTED_CHARS else text[:MAX_QUOTED_CHARS] + "…"
            self.error = (line_no, quoted)

    def finish(self) -> None:
        self.ds.finish()
        self._settle_args()
        if self.total_iterations is None and self.args.get("total_steps"):
            self.total_iterations = int(self.args["total_steps"])  # torchtitan's trainer line

    @property
    def world_size(self) -> float | None:
        profiled = self.ds.profile.get("world_size") if self.ds.profile else None
        return self.args.get("world_size") or profiled

    @property
    def seq_length(self) -> float | None:
        return self.args.get("seq_length") or self.args.get("encoder_seq_length")


def _job_fields(log: _TrainingLog) -> dict[str, Any]:
    """Which format the figures come from and the job's shape (world size, sequence, parallelism)."""
    source = "megatron" if log.megatron else ("torchtitan" if log.titan else "deepspeed-timer")
    if not log.megatron and not log.titan and log.bridge:
        source = "megatron-bridge"
    elif not log.megatron and not log.titan and not log.ds.timer:
        source = "deepspeed-flops-profiler"
    if log.megatron and any(r.get("nemo") for r in log.megatron.values()):
        source = "nemo"
    world, seq = log.world_size, log.seq_length
    return {
        "source_format": source,
        "total_iterations_planned": log.total_iterations,
        "world_size": int(world) if world else None,
        "seq_length": int(seq) if seq else None,
        "parallelism": {
            k: int(v)
            for k, v in log.args.items()
            if k in ("tensor_model_parallel_size", "pipeline_model_parallel_size", "data_parallel_size")
        },
    }


def _warmup_count(rows: list[dict[str, Any]]) -> int:
    """Leading intervals left out of the medians: those marked warm-up by the log, then the outliers."""
    marked = 0
    while marked < len(rows) - 1 and rows[marked].get("warmup"):
        marked += 1
    # Interval time, or its inverse from throughput when the log prints no time (torchtitan).
    times = [
        r["time_s"]
        if r["time_s"] is not None
        else (1 / r["tokens_per_s_per_gpu"] if r.get("tokens_per_s_per_gpu") else None)
        for r in rows[marked:]
    ]
    if all(t is not None for t in times):
        return marked + _exclude_warmup([t for t in times if t is not None])
    return marked


def _tokens_per_gpu(
    steady: list[dict[str, Any]], median_time: float | None, log: _TrainingLog
) -> tuple[list[float], str | None]:
    """Tokens/s per GPU as printed, or computed from batch, sequence and iteration time."""
    tokens = [r["tokens_per_s_per_gpu"] for r in steady if r["tokens_per_s_per_gpu"] is not None]
    if tokens:
        return tokens, "printed"
    seq, world = log.seq_length, log.world_size
    if median_time and seq and world:
        batches = [r.get("global_batch_size") for r in steady if r.get("global_batch_size")]
        gbs = median([b for b in batches if b is not None])
        if gbs:
            return [gbs * seq / median_time / world], (
                "computed: global batch x seq length / iteration time / world size"
            )
    return tokens, None


def _stalls(
    steady: list[dict[str, Any]], median_time: float | None, tokens: list[float]
) -> list[dict[str, Any]]:
    """Intervals slower than STALL_FACTOR x the median time (or tokens/s, when no time is printed)."""
    if not median_time and tokens:
        median_tokens = median(tokens) or 0.0
        return [
            {
                "iteration": r["iteration"],
                "tokens_per_s_per_gpu": r["tokens_per_s_per_gpu"],
                "line": r["line"],
            }
            for r in steady
            if r["tokens_per_s_per_gpu"] is not None
            and r["tokens_per_s_per_gpu"] < median_tokens / STALL_FACTOR
        ]
    return [
        {"iteration": r["iteration"], "time_s": r["time_s"], "line": r["line"]}
        for r in steady
        if median_time and r["time_s"] is not None and r["time_s"] > STALL_FACTOR * median_time
    ]


def _iteration_fields(rows: list[dict[str, Any]], log: _TrainingLog) -> dict[str, Any]:
    """Medians over the steady iterations, stalls, skipped and nan counts, the rows themselves."""
    warm = _warmup_count(rows)
    steady = rows[warm:] if len(rows) > warm else rows
    median_time = median([r["time_s"] for r in steady if r["time_s"] is not None])
    median_tflops = median([r["tflops_per_gpu"] for r in steady if r["tflops_per_gpu"] is not None])
    tokens, tokens_source = _tokens_per_gpu(steady, median_time, log)
    time_source = "printed" if median_time else None
    step_tokens, world, rate = log.args.get("tokens_per_step"), log.world_size, median(tokens)
    if not median_time and rate and step_tokens and world:
        # torchtitan prints tokens/s per GPU, not the step time: one step is tokens per step / (tps x GPUs)
        median_time = step_tokens / (rate * world)
        time_source = "computed: tokens per train step / (tokens/s per GPU x world size)"
    mfus = [r["mfu"] for r in steady if r.get("mfu") is not None]
    samples = [r["samples_per_s"] for r in steady if r.get("samples_per_s") is not None]
    return {
        "iterations": len(rows),
        "steady_iterations": len(steady),
        "warmup_iterations_excluded": [r["iteration"] for r in rows[:warm]],
        "median_iteration_s": round(median_time, 4) if median_time else None,
        "median_iteration_s_source": time_source,
        "median_tflops_per_gpu": round(median_tflops, 2) if median_tflops is not None else None,
        "median_tokens_per_s_per_gpu": round(median(tokens) or 0.0, 2) if tokens else None,
        "tokens_per_s_per_gpu_source": tokens_source,
        "mfu": round(median(mfus) or 0.0, 4) if mfus else None,
        "median_samples_per_s": median(samples) if samples else None,
        "stalls": _stalls(steady, median_time, tokens),
        "skipped_iterations": sum(int(r.get("skipped") or 0) for r in rows),
        "nan_iterations": sum(int(r.get("nan") or 0) for r in rows),
        "nan_grad_norm_iterations": [r["iteration"] for r in rows if r.get("nan_grad_norm")],
        "first_line": rows[0]["line"],
        "last_line": rows[-1]["line"],
        "iteration_rows": rows[:5000],
    }


def _iteration_warnings(summary: dict[str, Any], log: _TrainingLog, last: dict[str, Any]) -> list[str]:
    """What a reader of the medians must know: mixed sources, warm-up left out, stalls, skips, a cut log."""
    warnings: list[str] = []
    if log.ds.timer:
        warnings.append(
            _("DeepSpeed timer samples/s uses a different definition from the Megatron line; not mixed")
        )
    warmup = summary["warmup_iterations_excluded"]
    if warmup:
        warnings.append(
            ngettext(
                "excluded %(count)s warm-up iteration interval from the medians: %(iterations)s",
                "excluded %(count)s warm-up iteration intervals from the medians: %(iterations)s",
                len(warmup),
                count=len(warmup),
                iterations=listed(warmup),
            )
        )
    if summary["stalls"]:
        warnings.append(
            ngettext(
                "%(count)s stall: intervals slower than %(factor)sx the median",
                "%(count)s stalls: intervals slower than %(factor)sx the median",
                len(summary["stalls"]),
                count=len(summary["stalls"]),
                factor=STALL_FACTOR,
            )
        )
    skipped, nans = summary["skipped_iterations"], summary["nan_iterations"]
    if skipped or nans:
        warnings.append(
            _("skipped iterations: %(skipped)s, nan iterations: %(nans)s", skipped=skipped, nans=nans)
        )
    nan_norms = summary.get("nan_grad_norm_iterations") or []
    if nan_norms:
        warnings.append(
            ngettext(
                "grad norm is nan/inf on %(count)s of %(iterations)s logged iteration (first: %(first)s): "
                "the optimizer step is not healthy",
                "grad norm is nan/inf on %(count)s of %(iterations)s logged iterations (first: %(first)s): "
                "the optimizer step is not healthy",
                summary["iterations"],
                count=len(nan_norms),
                iterations=summary["iterations"],
                first=nan_norms[0],
            )
        )
    warnings.extend(skip_warnings(log.ds))
    # A NeMo progress bar's global_step counts from 0: step 99 is the last of 100.
    done = last["iteration"] + 1 if last.get("counts_from_zero") else last["iteration"]
    if log.total_iterations and done < log.total_iterations:
        warnings.append(
            _(
                "log ends at iteration %(last)s of %(total)s (cut, failed or still running)",
                last=last["iteration"],
                total=log.total_iterations,
            )
        )
    return warnings


def _error_warnings(log: _TrainingLog) -> list[str]:
    """A Python traceback or error line after the last training line: the run ended there (or failed at
    its teardown). The first exception is quoted: when every rank fails, the first to print is usually the
    cause and the later ones (NCCL timeouts, torchrun's ChildFailedError) its consequences."""
    if log.error is not None and log.traceback_line is not None:
        return [
            _(
                "a Python traceback follows the last iteration (line %(line)s): %(error)s",
                line=log.traceback_line,
                error=log.error[1],
            )
        ]
    if log.error is not None:
        return [
            _(
                "an error line follows the last iteration (line %(line)s): %(error)s",
                line=log.error[0],
                error=log.error[1],
            )
        ]
    if log.traceback_line is not None:
        return [
            _(
                "a Python traceback follows the last iteration (line %(line)s); its exception line is not in "
                "the log",
                line=log.traceback_line,
            )
        ]
    return []


def _implausible_tflops(rows: list[dict[str, Any]]) -> list[str]:
    """TFLOP/s per GPU above MAX_TFLOPS_PER_GPU, left out of the medians (kept on the row as printed)."""
    above = [r for r in rows if (r.get("tflops_per_gpu") or 0.0) > MAX_TFLOPS_PER_GPU]
    for row in above:
        row["tflops_per_gpu_implausible"], row["tflops_per_gpu"] = row["tflops_per_gpu"], None
    if not above:
        return []
    return [
        ngettext(
            "%(count)s TFLOP/s per GPU figure above %(limit)s, more than the dense peak of any GPU (first: "
            "%(value)s on line %(line)s): not a measurement, left out of the median",
            "%(count)s TFLOP/s per GPU figures above %(limit)s, more than the dense peak of any GPU (first: "
            "%(value)s on line %(line)s): not a measurement, left out of the median",
            len(above),
            count=len(above),
            limit=f"{MAX_TFLOPS_PER_GPU:g}",
            value=f"{above[0]['tflops_per_gpu_implausible']:g}",
            line=above[0].get("tflops_line", above[0]["line"]),
        )
    ]


def _uncounted_flops(rows: list[dict[str, Any]]) -> list[str]:
    """torchtitan's `tflops: 0.00  mfu: 0.00%` beside a throughput (_titan_row): no figure, a warning."""
    uncounted = [r for r in rows if r.get("flops_uncounted")]
    if not uncounted:
        return []
    return [
        ngettext(
            "torchtitan printed `tflops: 0.00` and `mfu: 0.00%%` beside its tokens/s on %(count)s step "
            "(first: line %(line)s): it counted no FLOPs for this model, so TFLOP/s and MFU are unknown",
            "torchtitan printed `tflops: 0.00` and `mfu: 0.00%%` beside its tokens/s on %(count)s steps "
            "(first: line %(line)s): it counted no FLOPs for this model, so TFLOP/s and MFU are unknown",
            len(uncounted),
            count=len(uncounted),
            line=uncounted[0]["line"],
        )
    ]


def _deepspeed_only(log: _TrainingLog, summary: dict[str, Any]) -> list[str]:
    """A log of DeepSpeed's own lines only: its timer's samples/s (tokens/s per GPU where the sequence length
    and world size are printed), the profiled step's iteration time and TFLOP/s; the warnings to go with
    them."""
    ds, seq, world = log.ds, log.seq_length, log.world_size
    warnings: list[str] = []
    if ds.timer:
        summary.update(timer_fields(ds, seq, world))
        if summary["median_tokens_per_s_per_gpu"] is None:
            warnings.append(_("only DeepSpeed timer lines: samples/s reported, no per-GPU throughput"))
            warnings.append(samples_not_converted(seq, world))
        if len(ds.timer) == 1 and ds.old_timer:  # before 0.7 the figure is the run's running average
            warnings.append(
                _(
                    "one DeepSpeed timer line: its samples/s is the running average up to that step, "
                    "not a median"
                )
            )
        elif len(ds.timer) == 1:  # nothing to leave out as warm-up, nothing to take a median of
            warnings.append(_("one DeepSpeed timer line: its samples/s is that one step's, not a median"))
        runs, runs_warnings = runs_fields(ds.timer_runs)
        summary.update(runs)
        warnings.extend(runs_warnings)
    elif ds.profile:
        for key in ("median_iteration_s", "median_tflops_per_gpu", "median_tokens_per_s_per_gpu", "mfu"):
            summary[key] = None
        summary.update(iterations=1, skipped_iterations=ds.skipped_steps)
        summary.update(first_line=ds.profile["line"], last_line=ds.profile["last_line"])
    for key, value in profile_fields(ds, seq).items():
        if summary.get(key) is None:  # the timer's figures first: they are of many steps
            summary[key] = value
    warnings.extend(profile_warnings(ds, seq))
    warnings.extend(negative_profile_warnings(ds))
    warnings.extend(skip_warnings(ds))
    return list(dict.fromkeys(warnings))


def parse_training(text: Text, kind: str) -> ParseResult:
    result = ParseResult(kind=kind)
    log = _TrainingLog()
    for line_no, line in enumerate(text.lines, start=1):
        if line.strip():
            log.read_line(line_no, line)
    log.finish()
    rows = sorted((log.megatron or log.titan).values(), key=lambda r: r["iteration"]) or log.bridge
    summary = _job_fields(log)
    if not rows and (log.ds.timer or log.ds.profile):
        result.warnings.extend(_deepspeed_only(log, summary))
        result.warnings.extend(_error_warnings(log))
        result.summary = summary
        return result
    if not rows:
        result.kind = None
        result.errors.append(
            _("%(kind)s signature found but no iteration/step line could be read", kind=kind)
        )
        result.errors.extend(negative_profile_warnings(log.ds))
        return result
    implausible = _implausible_tflops(rows) + _uncounted_flops(rows)
    summary.update(_iteration_fields(rows, log))
    if log.ds.steps:
        summary["deepspeed_skipped_steps"] = log.ds.skipped_steps
    if log.ds.timer:
        summary["deepspeed_samples_per_s_median"] = log.ds.samples_per_s_median()
    if log.ds.profile:
        summary["deepspeed_flops_profiler"] = log.ds.profiler_summary()
    runs, runs_warnings = runs_fields(log.megatron_runs if log.megatron else log.titan_runs)
    summary.update(runs)
    result.warnings.extend(_iteration_warnings(summary, log, rows[-1]))
    result.warnings.extend(implausible)
    if summary["source_format"] == "megatron-bridge":
        result.warnings.append(
            _(
                "Megatron-Bridge `Step Time` lines carry no iteration number: they are numbered 1 to "
                "%(count)s in print order (one line per log interval), so a second launch in the file "
                "cannot be told from them (its first steps show as stalls)",
                count=len(rows),
            )
        )
    result.warnings.extend(runs_warnings)
    result.warnings.extend(negative_profile_warnings(log.ds))
    result.warnings.extend(_error_warnings(log))
    result.summary = summary
    return result
