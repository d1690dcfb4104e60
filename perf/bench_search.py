"""Benchmark of the sizing search (docs/PERFORMANCE.md, "Sizing search").

Measures, in one run on one core:
  1. layouts evaluated per second by sizing.engine's vectorised search (175B, one offering, 1-512 nodes);
  2. the wall time of that 1-512 node sweep;
  3. the wall time to size the 175B workload on 100 offerings (default node ladder);
  4. side by side, the PyPI package llm-analysis evaluating a sample of the same layouts one by one.

Run (llm-analysis lives only in the benchmark's own venv, never a project dependency):
  python3 -m venv perf/.venv-bench && perf/.venv-bench/bin/pip install llm-analysis numpy
  OMP_NUM_THREADS=1 perf/.venv-bench/bin/python perf/bench_search.py
"""

from __future__ import annotations

import json
import os
import platform
import sys
import time
from typing import Any

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from sizing.engine import search  # noqa: E402
from sizing.engine.calibration import SELENE  # noqa: E402

OFFERING: dict[str, Any] = {
    **SELENE,
    "name": "A100 IB 512 nodes",
    "nodes": 512,
    "price_usd_per_gpu_hour": 1.8,
}


def catalog(n: int) -> list[dict[str, Any]]:
    gpus = ["A100-SXM-80GB", "H100-SXM-80GB", "H200-SXM-141GB", "B200-180GB", "MI300X-192GB"]
    fabrics = ["infiniband", "roce", "efa", "ethernet"]
    out = []
    for i in range(n):
        out.append(
            {
                "name": f"offering-{i}",
                "gpu": gpus[i % len(gpus)],
                "gpus_per_node": 8,
                "intra_node": "nvlink-mesh" if gpus[i % len(gpus)].startswith("MI") else "nvswitch",
                "fabric": fabrics[i % len(fabrics)],
                "nics_per_node": 8,
                "gbps_per_nic": 400 if i % 3 else 200,
                "topology": "rail-optimized",
                "oversubscription": 1.0 + (i % 2),
                "nodes": 16 * (1 + i % 32),
                "price_usd_per_gpu_hour": 1.5 + 0.05 * i,
            }
        )
    return out


def bench_ours() -> dict[str, Any]:
    search("gpt3-175b", OFFERING, gpus=1024)  # warm-up (imports, caches)
    t0, c0 = time.perf_counter(), time.process_time()
    r = search("gpt3-175b", OFFERING, node_counts=list(range(1, 513)))
    sweep, sweep_cpu = time.perf_counter() - t0, time.process_time() - c0
    offerings = catalog(100)
    t0, c0 = time.perf_counter(), time.process_time()
    evaluated = 0
    for facts in offerings:
        evaluated += search("gpt3-175b", facts)["search"]["evaluated"]
    cat, cat_cpu = time.perf_counter() - t0, time.process_time() - c0
    return {
        "sweep_1_512_nodes_s": round(sweep, 3),
        "sweep_1_512_nodes_cpu_s": round(sweep_cpu, 3),  # CPU time: robust when the machine is shared
        "sweep_layouts": r["search"]["evaluated"],
        "sweep_layouts_per_s": round(r["search"]["evaluated"] / sweep),
        "sweep_best": r["layout"],
        "sweep_best_gpus": r["gpus"],
        "catalog_100_s": round(cat, 3),
        "catalog_100_cpu_s": round(cat_cpu, 3),
        "catalog_layouts": evaluated,
        "catalog_layouts_per_s": round(evaluated / cat),
    }


def bench_llm_analysis(sample: int = 2000) -> dict[str, Any]:
    """llm-analysis evaluates one layout per call (Python objects); time a sample of our grid's layouts."""
    try:
        import logging

        logging.disable(logging.CRITICAL)
        from llm_analysis.analysis import ActivationRecomputation, DSZeRO, LLMAnalysis
        from llm_analysis.config import (
            DtypeConfig,
            GPUConfig,
            ModelConfig,
            ParallelismConfig,
        )
    except Exception as e:  # noqa: BLE001 - report exactly what failed
        return {"error": f"import failed: {type(e).__name__}: {e}"}
    model = ModelConfig(
        name="gpt3-175b",
        max_seq_len=2048,
        num_layers=96,
        n_head=96,
        hidden_dim=12288,
        vocab_size=51200,
        ffn_embed_dim=49152,
    )
    gpu = GPUConfig(
        name="a100-sxm-80gb",
        mem_per_GPU_in_GB=80,
        hbm_bandwidth_in_GB_per_sec=2039,
        intra_node_bandwidth_in_GB_per_sec=300,
        intra_node_min_message_latency=8e-06,
        peak_fp16_TFLOPS=312,
        peak_i8_TFLOPS=624,
        peak_i4_TFLOPS=1248,
        inter_node_bandwidth_in_GB_per_sec=200,
    )
    dtype = DtypeConfig(name="w16a16e16", weight_bits=16, activation_bits=16, embedding_bits=16)
    layouts = []
    for nodes in range(1, 513):
        g = nodes * 8
        for tp in (1, 2, 4, 8):
            for pp in (1, 2, 4, 8, 16, 32, 64):
                if g % (tp * pp):
                    continue
                dp = g // (tp * pp)
                for mb in (1, 2, 4):
                    for rec in (ActivationRecomputation.NONE, ActivationRecomputation.FULL):
                        layouts.append((tp, pp, dp, mb, rec))
    layouts = layouts[:: max(1, len(layouts) // sample)][:sample]
    ok = 0
    errors: dict[str, int] = {}
    t0 = time.perf_counter()
    for tp, pp, dp, mb, rec in layouts:
        try:
            a = LLMAnalysis(
                model,
                gpu,
                dtype,
                ParallelismConfig(tp_size=tp, pp_size=pp, dp_size=dp),
                flops_efficiency=0.5,
                hbm_memory_efficiency=0.9,
            )
            a.training(
                batch_size_per_gpu=mb,
                global_batch_size=1536,
                seq_len=2048,
                total_num_tokens=300e9,
                activation_recomputation=rec,
                ds_zero=DSZeRO.STAGE_1,
            )
            ok += 1
        except Exception as e:  # noqa: BLE001 - infeasible layouts raise in llm-analysis
            key = type(e).__name__
            errors[key] = errors.get(key, 0) + 1
    dt = time.perf_counter() - t0
    per_s = len(layouts) / dt
    return {
        "layouts": len(layouts),
        "answered": ok,
        "raised": errors,
        "seconds": round(dt, 3),
        "layouts_per_s": round(per_s, 1),
        "extrapolated_sweep_s": None,
    }


def main() -> None:
    ours = bench_ours()
    theirs = bench_llm_analysis()
    if "layouts_per_s" in theirs:
        theirs["extrapolated_sweep_s"] = round(ours["sweep_layouts"] / theirs["layouts_per_s"], 1)
    print(
        json.dumps(
            {
                "python": platform.python_version(),
                "machine": platform.machine(),
                "omp_threads": os.environ.get("OMP_NUM_THREADS"),
                "sizing_engine": ours,
                "llm_analysis": theirs,
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
