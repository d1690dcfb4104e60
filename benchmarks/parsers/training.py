"""Training logs: Megatron-LM (and ROCm/Primus, Megatron-DeepSpeed), torchtitan, DeepSpeed (FORMATS.md 6).

Per-iteration figures come from the lines the frameworks print every `--log-interval` steps. The
first logged interval includes compilation and warm-up (15-50x slower in the AMD logs), so it is
always excluded, as are leading intervals still over 1.5x the median of the rest; later intervals
over 2x the median are reported as stalls.
"""

from __future__ import annotations

import re
from typing import Any

from .result import ParseResult
from .text import RANK_PREFIX_RE, Text, median, strip_launcher_prefix, to_float

ITER_RE = re.compile(r"\biteration\s+(\d+)\s*/\s*(\d+)\s*\|(.*)$")
ARG_RE = re.compile(
    r"(?:^|[\s:\-])(seq_length|encoder_seq_length|world_size|global_batch_size|micro_batch_size"
    r"|tensor_model_parallel_size|pipeline_model_parallel_size|data_parallel_size)\s*(?:\.{2,}|:)\s*(\S+)"
)
WORLD_RE = re.compile(r"using world size:\s*(\d+)|dist_world_size=(\d+)")
TITAN_RE = re.compile(r"(?<!validate )\bstep:\s*(\d+)\s+(.*)$")
TITAN_KV_RE = re.compile(r"\b(loss|grad_norm|memory|tps|wps|tflops|mfu)\s*:\s*([^\s]+)")
DS_TIMER_RE = re.compile(
    r"global_step=(\d+),\s*RunningAvgSamplesPerSec=([\d.eE+-]+),\s*CurrSamplesPerSec=([\d.eE+-]+)"
)
DS_STEP_RE = re.compile(r"\[Rank \d+\] step=(\d+),\s*skipped=(\d+)")
STALL_FACTOR = 2.0
WARMUP_FACTOR = 1.5


def _first_number(value: str) -> float | None:
    """`946.6/946.6` (Primus current/running-average) -> 946.6; `x (avg y)` -> x."""
    token = value.strip().split()[0] if value.strip() else ""
    if "/" in token:
        token = token.split("/")[0]
    return to_float(token)


def _megatron_fields(rest: str) -> dict[str, str]:
    fields: dict[str, str] = {}
    for part in rest.split("|"):
        if ":" not in part:
            continue
        key, _, value = (
            part.rpartition(":") if part.count(":") > 1 and "/" not in part else part.partition(":")
        )
        fields[key.strip().lower()] = value.strip()
    return fields


def _pick(fields: dict[str, str], *needles: str) -> float | None:
    for key, value in fields.items():
        if all(n in key for n in needles):
            return _first_number(value)
    return None


def _exclude_warmup(times: list[float]) -> int:
    """How many leading intervals are warm-up."""
    if len(times) < 2:
        return 0
    skip = 1
    while skip < len(times) - 1:
        rest = median(times[skip + 1 :]) or 0.0
        if rest and times[skip] > WARMUP_FACTOR * rest:
            skip += 1
        else:
            break
    return skip


def _steady(rows: list[dict[str, Any]], key: str) -> list[dict[str, Any]]:
    return [r for r in rows if r.get(key) is not None]


def parse_training(text: Text, kind: str) -> ParseResult:
    result = ParseResult(kind=kind)
    args: dict[str, float] = {}
    megatron: dict[int, dict[str, Any]] = {}
    titan: dict[int, dict[str, Any]] = {}
    ds_timer: list[tuple[int, float, float, int]] = []
    skipped_steps = 0
    total_iterations = None
    for no, raw in enumerate(text.lines, start=1):
        if not raw.strip():
            continue
        line = raw
        for m in ARG_RE.finditer(line):
            value = to_float(m.group(2))
            if value is not None and m.group(1) not in args:
                args[m.group(1)] = value
        wm = WORLD_RE.search(line)
        if wm and "world_size" not in args:
            args["world_size"] = float(wm.group(1) or wm.group(2))
        im = ITER_RE.search(line)
        if im:
            it = int(im.group(1))
            total_iterations = int(im.group(2))
            if it in megatron:
                continue  # every rank may print the same line
            fields = _megatron_fields(im.group(3))
            time_ms = _pick(fields, "elapsed time per iteration")
            megatron[it] = {
                "iteration": it,
                "line": no,
                "time_s": time_ms / 1000 if time_ms is not None else None,
                "tflops_per_gpu": _pick(fields, "tflop/s/gpu") or _pick(fields, "tflops"),
                "tokens_per_s_per_gpu": _pick(fields, "tokens", "/gpu") or _pick(fields, "tok/s/gpu"),
                "samples_per_s": _pick(fields, "samples per second"),
                "global_batch_size": _pick(fields, "global batch size"),
                "skipped": _pick(fields, "number of skipped iterations") or 0,
                "nan": _pick(fields, "number of nan iterations") or 0,
                "loss": _pick(fields, "lm loss"),
            }
            continue
        tm = TITAN_RE.search(line)
        if tm and ("tps:" in line or "wps:" in line):
            stripped = RANK_PREFIX_RE.sub("", strip_launcher_prefix(line))
            tm = TITAN_RE.search(stripped) or tm
            step = int(tm.group(1))
            if step in titan:
                continue
            kv = dict(TITAN_KV_RE.findall(tm.group(2)))
            tps = to_float(kv.get("tps") or kv.get("wps") or "")
            mfu = to_float(kv.get("mfu", ""))
            titan[step] = {
                "iteration": step,
                "line": no,
                "time_s": None,
                "tflops_per_gpu": to_float(kv.get("tflops", "")),
                "tokens_per_s_per_gpu": tps,
                "mfu": mfu / 100 if mfu is not None else None,
                "loss": to_float(kv.get("loss", "")),
                "skipped": 0,
                "nan": 1 if kv.get("loss", "").lower() in ("nan", "-nan") else 0,
            }
            continue
        dm = DS_TIMER_RE.search(line)
        if dm:
            ds_timer.append((int(dm.group(1)), float(dm.group(2)), float(dm.group(3)), no))
            continue
        sm = DS_STEP_RE.search(line)
        if sm:
            skipped_steps = max(skipped_steps, int(sm.group(2)))

    source = "megatron" if megatron else ("torchtitan" if titan else "deepspeed-timer")
    rows = sorted((megatron or titan).values(), key=lambda r: r["iteration"])
    summary: dict[str, Any] = {"source_format": source, "total_iterations_planned": total_iterations}
    world = args.get("world_size")
    seq = args.get("seq_length") or args.get("encoder_seq_length")
    summary.update(
        {
            "world_size": int(world) if world else None,
            "seq_length": int(seq) if seq else None,
            "parallelism": {
                k: int(v)
                for k, v in args.items()
                if k in ("tensor_model_parallel_size", "pipeline_model_parallel_size", "data_parallel_size")
            },
        }
    )
    if not rows and ds_timer:
        # DeepSpeed's own ThroughputTimer only: samples/s, no iteration time per GPU.
        currents = [c for _, _, c, _ in ds_timer]
        summary.update(
            {
                "iterations": len(ds_timer),
                "median_iteration_s": None,
                "median_tflops_per_gpu": None,
                "median_tokens_per_s_per_gpu": None,
                "mfu": None,
                "deepspeed_samples_per_s_median": median(currents[1:] or currents),
                "skipped_iterations": skipped_steps,
                "first_line": ds_timer[0][3],
                "last_line": ds_timer[-1][3],
            }
        )
        result.warnings.append("only DeepSpeed timer lines: samples/s reported, no per-GPU throughput")
        result.summary = summary
        return result
    if not rows:
        result.kind = None
        result.errors.append(f"{kind} signature found but no iteration/step line could be read")
        return result

    times = [r["time_s"] for r in rows]
    if all(t is not None for t in times):
        warm = _exclude_warmup([t for t in times if t is not None])
    else:
        warm = 1 if len(rows) > 1 else 0
    steady = rows[warm:] if len(rows) > warm else rows
    med_time = median([r["time_s"] for r in steady if r["time_s"] is not None])
    med_tflops = median([r["tflops_per_gpu"] for r in steady if r["tflops_per_gpu"] is not None])
    tokens = [r["tokens_per_s_per_gpu"] for r in steady if r["tokens_per_s_per_gpu"] is not None]
    tokens_source = "printed" if tokens else None
    if not tokens and med_time and seq and world:
        batches = [r.get("global_batch_size") for r in steady if r.get("global_batch_size")]
        gbs = median([b for b in batches if b is not None])
        if gbs:
            tokens = [gbs * seq / med_time / world]
            tokens_source = "computed: global batch x seq length / iteration time / world size"
    mfus = [r["mfu"] for r in steady if r.get("mfu") is not None]
    stalls = [
        {"iteration": r["iteration"], "time_s": r["time_s"], "line": r["line"]}
        for r in steady
        if med_time and r["time_s"] is not None and r["time_s"] > STALL_FACTOR * med_time
    ]
    if not med_time and tokens:
        med_tok = median(tokens) or 0.0
        stalls = [
            {
                "iteration": r["iteration"],
                "tokens_per_s_per_gpu": r["tokens_per_s_per_gpu"],
                "line": r["line"],
            }
            for r in steady
            if r["tokens_per_s_per_gpu"] is not None and r["tokens_per_s_per_gpu"] < med_tok / STALL_FACTOR
        ]
    skipped = sum(int(r.get("skipped") or 0) for r in rows)
    nans = sum(int(r.get("nan") or 0) for r in rows)
    samples = [r["samples_per_s"] for r in steady if r.get("samples_per_s") is not None]
    summary.update(
        {
            "iterations": len(rows),
            "steady_iterations": len(steady),
            "warmup_iterations_excluded": [r["iteration"] for r in rows[:warm]],
            "median_iteration_s": round(med_time, 4) if med_time else None,
            "median_tflops_per_gpu": round(med_tflops, 2) if med_tflops is not None else None,
            "median_tokens_per_s_per_gpu": round(median(tokens) or 0.0, 2) if tokens else None,
            "tokens_per_s_per_gpu_source": tokens_source,
            "mfu": round(median(mfus) or 0.0, 4) if mfus else None,
            "median_samples_per_s": median(samples) if samples else None,
            "stalls": stalls,
            "skipped_iterations": skipped,
            "nan_iterations": nans,
            "first_line": rows[0]["line"],
            "last_line": rows[-1]["line"],
            "iteration_rows": rows[:5000],
        }
    )
    if ds_timer:
        summary["deepspeed_samples_per_s_median"] = median(
            [c for _, _, c, _ in ds_timer[1:]] or [ds_timer[0][2]]
        )
        result.warnings.append(
            "DeepSpeed timer samples/s uses a different definition from the Megatron line; not mixed"
        )
    if warm:
        result.warnings.append(
            f"excluded {warm} warm-up iteration interval(s) from the medians: "
            f"{', '.join(str(r['iteration']) for r in rows[:warm])}"
        )
    if stalls:
        result.warnings.append(f"{len(stalls)} stall(s): intervals slower than {STALL_FACTOR}x the median")
    if skipped or nans:
        result.warnings.append(f"skipped iterations: {skipped}, nan iterations: {nans}")
    if total_iterations and rows and rows[-1]["iteration"] < total_iterations:
        result.warnings.append(
            f"log ends at iteration {rows[-1]['iteration']} of {total_iterations} "
            "(cut, failed or still running)"
        )
    result.summary = summary
    return result
