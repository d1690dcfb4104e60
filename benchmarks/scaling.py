"""Scaling efficiency across node counts, from the parsed uploads of one offering (benchmarks.compare reads
one upload against the claims; this reads several together)."""

from __future__ import annotations

from typing import Any

from benchmarks.compare import run_nodes

SCALING_PASS = 0.90
SCALING_WARN = 0.70


def scaling(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Scaling efficiency where the same collective (or training throughput) exists at several node counts.

    Efficiency = per-GPU figure at N nodes / the same at the smallest multi-node count measured (busbw
    for collectives; tokens/s per GPU, else TFLOP/s per GPU, for training). >= 0.9 pass, 0.7-0.9 warn.
    """
    series: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for item in items:
        kind = item.get("kind")
        summary = item.get("summary", {})
        if kind in ("nccl-tests", "rccl-tests"):
            for run in summary.get("runs", []):
                nodes = run_nodes(run, item)
                value = run.get("busbw_at_max_size_gbps")
                if run.get("failed") or not nodes or value is None or not run.get("collective"):
                    continue
                if run.get("nvls_or_tree_suspected") and nodes == 2:
                    continue  # inflated 2-node all_reduce would distort the base of the ratio
                # busbw per GPU depends on the GPUs per node, so only like is compared with like.
                label = f"{run['collective']} ({run.get('gpus_per_node') or '?'} GPU/node)"
                series.setdefault(("busbw_gbps", label), []).append(
                    {
                        "nodes": nodes,
                        "value": value,
                        "file": item.get("filename"),
                        "lines": [run.get("first_line"), run.get("last_line")],
                    }  # fmt: skip
                )
        elif kind in ("megatron", "torchtitan", "deepspeed"):
            value = summary.get("median_tokens_per_s_per_gpu") or summary.get("median_tflops_per_gpu")
            nodes = item.get("nodes")
            if nodes and value:
                metric = (
                    "tokens_per_s_per_gpu" if summary.get("median_tokens_per_s_per_gpu") else "tflops_per_gpu"
                )
                series.setdefault((metric, kind), []).append(
                    {
                        "nodes": int(nodes),
                        "value": value,
                        "file": item.get("filename"),
                        "lines": [summary.get("first_line"), summary.get("last_line")],
                    }  # fmt: skip
                )
    out = []
    for (metric, name), points in series.items():
        multi = sorted((p for p in points if p["nodes"] >= 2), key=lambda p: p["nodes"])
        counts = {p["nodes"] for p in multi}
        if len(counts) < 2:
            continue
        base = multi[0]
        for p in multi[1:]:
            if p["nodes"] == base["nodes"]:
                continue
            eff = p["value"] / base["value"] if base["value"] else None
            verdict = (
                "cannot-measure"
                if eff is None
                else ("pass" if eff >= SCALING_PASS else ("warn" if eff >= SCALING_WARN else "fail"))
            )
            out.append(
                {
                    "claim": f"scaling {name} {metric}",
                    "expected": f">= {SCALING_PASS:g} of the {base['nodes']}-node figure",
                    "measured": round(eff, 3) if eff is not None else None,
                    "percent_of_expected": round(eff * 100, 1) if eff is not None else None,
                    "verdict": verdict,
                    "detail": f"{p['nodes']} nodes {p['value']} vs {base['nodes']} nodes {base['value']}",
                    "file": p["file"],
                    "lines": [x for x in p["lines"] + base["lines"] if x],
                    "base_file": base["file"],
                }
            )
    return out
