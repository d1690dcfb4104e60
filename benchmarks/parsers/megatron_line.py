"""What one Megatron-family iteration line says (FORMATS.md 6.1): Megatron-LM, Megatron-DeepSpeed,
Primus, NeMo 2, GPT-NeoX, AscendSpeed print `iteration N/ M | key: value | ... |`; training.py finds the
line and keeps the rows, this module reads the fields of one.

Fields are read as a `key: value` list, never by position: forks add, rename and drop keys (Primus
`current/running-average` values, GPT-NeoX's `samples/sec:` before the iteration, 2019 Megatron-LM's keys
without a colon, a fork's two pairs in one `|` field).
"""

from __future__ import annotations

import re
from typing import Any

from .text import to_float

# GPT-NeoX `approx flops per GPU: 112.9TFLOPS` (human-readable unit suffix).
FLOPS_UNITS = {"GFLOPS": 1e-3, "TFLOPS": 1.0, "PFLOPS": 1e3}

# One `key=value` field of the key=value fork of Megatron-DeepSpeed (`tokens_per_gpu_per_second_tgs=3118.9`).
KEY_EQUALS_RE = re.compile(r"^\s*+([A-Za-z][\w\-/() ]{0,80}?)\s*=\s*(\S.{0,80})$")

# A unit word that belongs to the value before it when a field holds two pairs (`270.125 s samples/sec: 3.8`).
VALUE_UNITS = ("s", "ms", "us", "sec", "%")


# The keys an iteration line's fields start with (Megatron-LM, Megatron-DeepSpeed, Primus, NeMo 2; `_` and `-`
# read as a space). A line after an iteration line ending on `|` that starts with one of them is that line
# wrapped right after a separator by a publisher or terminal (Primus `throughput per GPU (TFLOP/s/GPU): ...`,
# NeMo `global_step: 29 | ...`), never a line of its own; any other line (`Number of parameters ...: 6.02`,
# `[Rank 0] ... memory (MB) | ...`, ` time (ms) | ...`, Megatron-Bridge's `Step Time :`) is not.
CONTINUATION_KEY_RE = re.compile(
    r"(?:consumed (?:samples|tokens)|elapsed time per iteration|throughput per gpu|tokens per (?:gpu|sec)"
    r"|learning rate|lr|global (?:batch size|step)|(?:lm|z|mtp \d+|reduced train|load balancing) loss"
    r"|loss scale|grad norm|num zeros|params norm|number of (?:skipped|nan) iterations|train step timing"
    r"|tflops|max memory|(?:hip|rocm) mem|rank \d+ (?:hip|rocm)|samples per second)\b"
)
MAX_CONTINUATION_KEY_CHARS = 80


def continues_fields(line: str) -> bool:
    """Whether a line starts with a `key: value` field of an iteration line (CONTINUATION_KEY_RE)."""
    head = line.strip().split("|", 1)[0]
    key, colon, _ = head.partition(":")
    if not colon or len(key) > MAX_CONTINUATION_KEY_CHARS:
        return False
    words = " ".join(key.replace("_", " ").replace("-", " ").lower().split())
    return CONTINUATION_KEY_RE.match(words) is not None


def first_number(value: str) -> float | None:
    """`946.6/946.6` (Primus current/running-average) -> 946.6; `x (avg y)` -> x."""
    token = value.strip().split()[0] if value.strip() else ""
    if "/" in token:
        token = token.split("/")[0]
    return to_float(token)


def field_pairs(part: str) -> list[tuple[str, str]]:
    """The `key: value` pairs of one `|` field, stripped. Usually one; a Megatron fork prints two in one field
    (`iteration time: 270.125 s samples/sec: 3.8`): a value that is a number (with a unit word) followed
    by words and a colon ends there, the words being the next key. Megatron-LM before 2020 printed keys
    without a colon (`lm loss 5.023855E+00`): words then one number."""
    if ":" not in part:
        keyed = KEY_EQUALS_RE.match(part)
        if keyed:  # `elapsed_time_per_iteration_ms=67212.1` (a key=value fork)
            return [(keyed.group(1), keyed.group(2))]
        words = part.split()
        if len(words) > 1 and words[0][:1].isalpha() and to_float(words[-1]) is not None:
            return [(" ".join(words[:-1]), words[-1])]
        return []
    pairs: list[tuple[str, str]] = []
    segments = part.split(":")
    key = segments[0]
    for at, segment in enumerate(segments[1:-1], start=1):
        words = segment.split()
        if len(words) < 2 or to_float(words[0]) is None:  # `eta: 0:00:00`: one value with colons
            return [*pairs, (key.strip(), ":".join(segments[at:]).strip())]
        take = 2 if len(words) > 2 and words[1] in VALUE_UNITS else 1
        pairs.append((key.strip(), " ".join(words[:take])))
        key = " ".join(words[take:])
    return [*pairs, (key.strip(), segments[-1].strip())]


def megatron_fields(rest: str) -> dict[str, str]:
    """`key: value` pairs between `|`; keys lower-cased with `_` and `-` read as a space, so NeMo's
    `global_batch_size` / `tokens_per_sec_per_gpu` meet Megatron's `global batch size`, and a 2021
    Megatron-DeepSpeed's `lm-loss` its `lm loss`."""
    fields: dict[str, str] = {}
    for part in rest.split("|"):
        for key, value in field_pairs(part):
            fields[" ".join(key.replace("_", " ").replace("-", " ").lower().split())] = value.strip()
    return fields


def pick(fields: dict[str, str], *needles: str) -> float | None:
    for key, value in fields.items():
        if all(n in key for n in needles):
            return first_number(value)
    return None


def marked_warmup(rest: str) -> bool:
    """A line the training script itself labels as warm-up."""
    lowered = rest.lower()
    return "(warmup)" in lowered or "[warmup]" in lowered or "(warm-up)" in lowered


# The unit Megatron forks print in the key: `elapsed time per iteration (ms)` (Megatron-LM), `(s)` (some
# Megatron-DeepSpeed forks, fixtures/real/megatron/...-seconds-key...); milliseconds when none is printed.
ITERATION_TIME_UNITS = {"(ms)": 1e3, "(s)": 1.0, "(sec)": 1.0, "(us)": 1e6}  # per second


def iteration_time_s(fields: dict[str, str]) -> float | None:
    """Megatron `elapsed time per iteration (ms)` or `(s)`; NeMo `train_step_timing in s` (seconds)."""
    for key, value in fields.items():
        if "elapsed time per iteration" in key:
            number = first_number(value)
            if number is None:
                return None
            # `(ms)`, or the key=value fork's bare `ms` suffix (`elapsed_time_per_iteration_ms`)
            per_second = next(
                (
                    f
                    for unit, f in ITERATION_TIME_UNITS.items()
                    if key.endswith((unit, " " + unit.strip("()")))
                ),
                1e3,
            )
            return number / per_second
    return pick(fields, "train step timing in s")


def grad_norm_is_nan(fields: dict[str, str]) -> bool:
    value = fields.get("grad norm", "").split()
    return bool(value) and value[0].lower() in ("nan", "-nan", "inf", "-inf")


def flops_with_unit(fields: dict[str, str]) -> float | None:
    """GPT-NeoX `approx flops per GPU: 112.9TFLOPS` -> 112.9 (TFLOP/s per GPU)."""
    for key, value in fields.items():
        if "flops per gpu" not in key:
            continue
        token = value.split()[0] if value.split() else ""
        for unit, scale in FLOPS_UNITS.items():
            if token.upper().endswith(unit):
                number = to_float(token[: -len(unit)])
                return number * scale if number is not None else None
    return None


def megatron_row(iteration: int, rest: str, line_no: int, prefix: str = "") -> dict[str, Any]:
    """One `iteration N/ M | key: value | ...` line (Megatron, Megatron-DeepSpeed, Primus, NeMo, GPT-NeoX,
    whose `samples/sec:` comes before the iteration; a fork prints it after)."""
    fields = megatron_fields(rest)
    return row_from_fields(iteration, fields, rest, line_no, megatron_fields(prefix) if prefix else {})


def row_from_fields(
    iteration: int, fields: dict[str, str], rest: str, line_no: int, before: dict[str, str]
) -> dict[str, Any]:
    """The row of one iteration from its fields (`before`: those printed ahead of `iteration`)."""
    return {
        "iteration": iteration,
        "line": line_no,
        "warmup": marked_warmup(rest),
        "time_s": iteration_time_s(fields),
        "tflops_per_gpu": pick(fields, "tflop/s/gpu") or pick(fields, "tflops") or flops_with_unit(fields),
        # Megatron `tokens per GPU (tokens/s/GPU)`, Megatron-DeepSpeed `tokens per gpu per second
        # (tgs)`, NeMo `tokens_per_sec_per_gpu`; never `consumed tokens` (a running total).
        "tokens_per_s_per_gpu": pick(fields, "tokens", "/gpu")
        or pick(fields, "tokens per gpu")
        or pick(fields, "tokens per sec per gpu")
        or pick(fields, "tok/s/gpu"),
        "samples_per_s": pick(fields, "samples per second")
        or pick(fields, "samples/sec")
        or pick(before, "samples/sec"),
        "global_batch_size": pick(fields, "global batch size"),
        "skipped": pick(fields, "number of skipped iterations") or 0,
        "nan": pick(fields, "number of nan iterations") or 0,
        "nan_grad_norm": grad_norm_is_nan(fields),
        "loss": pick(fields, "lm loss") or pick(fields, "reduced train loss"),
        "nemo": "train step timing in s" in fields,
    }
