"""A/B of one fixed sizing search between two source trees (docs/PERFORMANCE.md, "Sizing search").

Times `sizing.engine.search` for a dense and an MoE workload at a fixed 1,024 GPUs on an H100 offering, and
the search issue 17 holds to its speed (GPT-3 175B at a fixed 1,024 GPUs on perf/bench_search.py's 512-node
A100 offering), in CPU seconds (`time.process_time`), in the tree given on the command line. A tree without
the MoE preset (before the model's second version) skips it. Alternate the trees process
by process, e.g. with a worktree of the commit before a change:

  git worktree add /tmp/before <commit>
  for i in 1 2 3; do
    OMP_NUM_THREADS=1 .venv/bin/python perf/ab_search.py /tmp/before
    OMP_NUM_THREADS=1 .venv/bin/python perf/ab_search.py .
  done
"""

from __future__ import annotations

import os
import statistics
import sys
import time

TREE = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".")
sys.path.insert(0, TREE)

from sizing.engine import search  # noqa: E402
from sizing.engine.calibration import SELENE  # noqa: E402

# Selene's node layout with H100 GPUs and 400 Gb/s NICs
OFFERING = {**SELENE, "name": "H100 IB", "gpu": "H100-SXM-80GB", "gbps_per_nic": 400, "nodes": 256}
# perf/bench_search.py's offering: Selene's A100 nodes, 512 of them
A100_OFFERING = {**SELENE, "name": "A100 IB 512 nodes", "nodes": 512, "price_usd_per_gpu_hour": 1.8}

CALLS = 15


def cpu_seconds(workload: str, offering: dict, gpus: int) -> float:
    start = time.process_time()
    search(workload, offering, gpus=gpus)
    return time.process_time() - start


def main() -> None:
    cases = [("deepseek-v3-671b", OFFERING, "H100"), ("gpt3-175b", OFFERING, "H100")]
    cases.append(("gpt3-175b", A100_OFFERING, "A100"))
    for workload, offering, label in cases:
        try:
            search(workload, offering, gpus=1024)  # warm-up (imports, caches)
        except Exception as exc:  # a tree that predates the preset
            print(f"{TREE} {workload} {label}: skipped ({type(exc).__name__})")
            continue
        times = [cpu_seconds(workload, offering, 1024) for _ in range(CALLS)]
        print(f"{TREE} {workload} {label}: best {min(times):.4f} s, median {statistics.median(times):.4f} s")


if __name__ == "__main__":
    main()
