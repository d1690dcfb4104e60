"""Published Selene runs (cal §2) as data, and the per-row error table of the time model.

Run `python -m sizing.engine.calibration` to print the tables that docs/MODEL.md reproduces: these 18 rows,
then the validation set (validation.py; the Llama 3 405B H100 checks that were here are rows there).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .hardware import hardware_from_facts
from .model import RECOMPUTE_CODES, evaluate_grid
from .workload import Workload

# Selene: DGX A100 80GB, NVSwitch, 8 x 200 Gb/s HDR InfiniBand per node, fat-tree (cal §2).
SELENE: dict[str, Any] = {
    "name": "Selene (DGX A100 80GB)",
    "gpu": "A100-SXM-80GB",
    "gpus_per_node": 8,
    "intra_node": "nvswitch",
    "fabric": "infiniband",
    "nics_per_node": 8,
    "gbps_per_nic": 200,
    "topology": "fat-tree",
    "oversubscription": 1.0,
    "nodes": 560,
}


@dataclass(frozen=True)
class Run:
    source: str
    label: str
    layers: int
    hidden: int
    heads: int
    tp: int
    pp: int
    dp: int
    v: int
    micro_batch: int
    global_batch: int
    recompute: str
    sp: bool
    published_s: float


_T1 = "Narayanan 2021 Table 1"
_K = "Korthikanti 2022 Tables 3/5"
RUNS: list[Run] = [
    Run(_T1, "1.7B", 24, 2304, 24, 1, 1, 32, 1, 1, 512, "full", False, 3.53),
    Run(_T1, "3.6B", 30, 3072, 32, 2, 1, 32, 1, 1, 512, "full", False, 3.70),
    Run(_T1, "7.5B", 36, 4096, 32, 4, 1, 32, 1, 1, 512, "full", False, 3.70),
    Run(_T1, "18.4B", 40, 6144, 48, 8, 1, 32, 1, 1, 1024, "full", False, 9.40),
    Run(_T1, "39.1B", 48, 8192, 64, 8, 2, 32, 1, 1, 1536, "full", False, 14.45),
    Run(_T1, "76.1B", 60, 10240, 80, 8, 4, 32, 1, 1, 1792, "full", False, 16.06),
    Run(_T1, "145.6B", 80, 12288, 96, 8, 8, 24, 1, 1, 2304, "full", False, 24.82),
    Run(_T1, "310.1B", 96, 16384, 128, 8, 16, 15, 1, 1, 2160, "full", False, 37.61),
    Run(_T1, "529.6B", 105, 20480, 128, 8, 35, 9, 1, 1, 2520, "full", False, 54.08),
    Run(_T1, "1008B", 128, 25600, 160, 8, 64, 6, 1, 1, 3072, "full", False, 102.63),
    Run(_K, "22B full", 48, 6144, 64, 8, 1, 1, 1, 4, 4, "full", False, 1.42),
    Run(_K, "22B SP+sel", 48, 6144, 64, 8, 1, 1, 1, 4, 4, "selective", True, 1.10),
    Run(_K, "175B full", 96, 12288, 96, 8, 8, 1, 3, 1, 64, "full", False, 18.13),
    Run(_K, "175B SP+sel", 96, 12288, 96, 8, 8, 1, 3, 1, 64, "selective", True, 13.75),
    Run(_K, "530B full", 105, 20480, 128, 8, 35, 1, 3, 1, 280, "full", False, 49.05),
    Run(_K, "530B SP+sel", 105, 20480, 128, 8, 35, 1, 3, 1, 280, "selective", True, 37.83),
    Run(_K, "1T full", 128, 25600, 160, 8, 64, 1, 1, 1, 512, "full", False, 94.42),
    Run(_K, "1T SP+sel", 128, 25600, 160, 8, 64, 1, 1, 1, 512, "selective", True, 71.49),
]


def run_workload(r: Run) -> Workload:
    # GPT shape as in the papers: MHA, 4h GeLU MLP, vocab 51,200, seq 2048, tied embeddings.
    return Workload(
        name=r.label,
        layers=r.layers,
        hidden=r.hidden,
        heads=r.heads,
        kv_heads=r.heads,
        ffn_hidden=4 * r.hidden,
        vocab=51200,
        seq_len=2048,
        global_batch=r.global_batch,
        train_tokens=1e12,
        tied_embeddings=True,
        attention="unfused",  # Megatron-LM 2021-22: scores materialised (no FlashAttention)
    )


# The framework settings of the 2021-22 Megatron-LM runs (Narayanan 2021, Korthikanti 2022), stated
# explicitly rather than taken from the A100 default: no TP, pipeline or parameter-gather overlap, the
# gradient all-reduce after the backward pass (grid keys of model.py, overlap.OVERLAP_GRID_KEYS).
MEGATRON_LM_2021_FLAGS = {"tpo": False, "ogr": False, "opg": False, "ppo": False}


def predict(r: Run) -> dict[str, Any]:
    hw = hardware_from_facts(SELENE)
    g = {
        "tp": r.tp,
        "pp": r.pp,
        "dp": r.dp,
        "cp": 1,
        "ep": 1,
        "zero": 1,
        "mb": r.micro_batch,
        "rec": RECOMPUTE_CODES[r.recompute],
        "sp": r.sp,
        "v": r.v,
        **MEGATRON_LM_2021_FLAGS,
    }
    res = evaluate_grid(run_workload(r), hw, g)
    return {k: float(v) for k, v in res.items()}


def error_table() -> list[dict[str, Any]]:
    rows = []
    for r in RUNS:
        p = predict(r)
        rows.append(
            {
                "source": r.source,
                "run": r.label,
                "layout": f"TP{r.tp} PP{r.pp} DP{r.dp} v{r.v} mb{r.micro_batch}",
                "recompute": r.recompute + (" + SP" if r.sp else ""),
                "published_s": r.published_s,
                "predicted_s": p["iteration"],
                "error_pct": 100.0 * (p["iteration"] / r.published_s - 1.0),
                "mfu": p["mfu"],
            }
        )
    return rows


def markdown_table() -> str:
    out = [
        "| source | run | layout | recompute | published s | predicted s | error | predicted MFU |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for row in error_table():
        out.append(
            f"| {row['source']} | {row['run']} | {row['layout']} | {row['recompute']} "
            f"| {row['published_s']:.2f} "
            f"| {row['predicted_s']:.2f} | {row['error_pct']:+.1f}% | {100 * row['mfu']:.1f}% |"
        )
    return "\n".join(out)


if __name__ == "__main__":
    from .validation import markdown_table as validation_table
    from .validation import statistics_by_split

    print(markdown_table())
    print()
    print(validation_table())
    print()
    for name, stats in statistics_by_split().items():
        mean, worst = 100 * stats["mean"], 100 * stats["max"]
        print(f"{name}: {stats['rows']} rows, mean |error| {mean:.1f}%, max {worst:.1f}%")
