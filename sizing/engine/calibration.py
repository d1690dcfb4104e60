"""Published Selene runs (cal §2) as data, and the per-row error table of the time model.

Run `python -m sizing.engine.calibration` to print the table that docs/MODEL.md reproduces.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .hardware import hardware_from_facts
from .model import RECOMPUTE_CODES, RECOMPUTE_NONE, evaluate_grid
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


# Out-of-sample check on Hopper, not used to fit anything: Llama 3 405B pre-training (Dubey et al. 2024,
# arXiv 2407.21783, Table 4: GPUs, TP, CP, PP, DP, sequence length, batch per DP, 16M tokens per batch,
# TFLOPs/GPU, BF16 MFU). 126 layers x 16384, 128 heads / 8 KV heads, SwiGLU 53248, vocab 128256, H100 SXM,
# RoCE 400 Gb/s per GPU, fused attention. The paper does not publish its interleaving depth or recompute
# settings: v = 4 (the search's largest) and no recompute are used, which is an assumption of this check.
@dataclass(frozen=True)
class PublishedMFU:
    source: str
    label: str
    gpus: int
    tp: int
    cp: int
    pp: int
    dp: int
    seq_len: int
    global_batch: int
    published_mfu: float


_L3 = "Llama 3 (arXiv 2407.21783) Table 4"
H100_CHECKS: list[PublishedMFU] = [
    PublishedMFU(_L3, "405B 8K on 8,192", 8192, 8, 1, 16, 64, 8192, 2048, 0.43),
    PublishedMFU(_L3, "405B 8K on 16,384", 16384, 8, 1, 16, 128, 8192, 2048, 0.41),
    PublishedMFU(_L3, "405B 128K on 16,384", 16384, 8, 16, 16, 8, 131072, 128, 0.38),
]
LLAMA3_CLUSTER: dict[str, Any] = {
    "name": "Meta RoCE cluster (H100 SXM, 8 x 400G RoCE)",
    "gpu": "H100-SXM-80GB",
    "gpus_per_node": 8,
    "intra_node": "nvswitch",
    "fabric": "roce",
    "nics_per_node": 8,
    "gbps_per_nic": 400,
    "topology": "clos",
    "oversubscription": 1.0,
    "nodes": 3072,
}


def predict_mfu(c: PublishedMFU) -> dict[str, Any]:
    from .workload import workload_preset

    wl = workload_preset("llama3-405b")
    wl = Workload(**{**wl.to_dict(), "moe": None, "seq_len": c.seq_len, "global_batch": c.global_batch})
    hw = hardware_from_facts(LLAMA3_CLUSTER)
    g = {
        "tp": c.tp,
        "pp": c.pp,
        "dp": c.dp,
        "cp": c.cp,
        "ep": 1,
        "zero": 1,
        "mb": 1,
        "rec": RECOMPUTE_NONE,
        "sp": True,
        "v": 4,
    }
    res = evaluate_grid(wl, hw, g)
    return {k: float(v) for k, v in res.items()}


def mfu_table() -> str:
    out = [
        "| source | run | layout | published MFU | predicted MFU | error |",
        "|---|---|---|---|---|---|",
    ]
    for c in H100_CHECKS:
        m = predict_mfu(c)["mfu"]
        out.append(
            f"| {c.source} | {c.label} | TP{c.tp} CP{c.cp} PP{c.pp} DP{c.dp} v4 mb1, seq {c.seq_len} "
            f"| {100 * c.published_mfu:.0f}% | {100 * m:.1f}% | {100 * (m / c.published_mfu - 1):+.1f}% |"
        )
    return "\n".join(out)


if __name__ == "__main__":
    print(markdown_table())
    print()
    print(mfu_table())
