"""Randomised checks of the `size` command and the engine over the input space the contract accepts.

Workloads (dense and MoE, 1B-2T parameters, GQA, MLA head widths, 2k-128k context, bf16/fp8, shapes given or
derived from a parameter count), offerings (every GPU of the hardware table, every intra-node kind, fabric
and topology, 1-16 GPUs per node, NVL72 racks, 1 to 8,192 nodes) and layouts (given, published-style, and
searched) are drawn from a fixed seed, so a failure reproduces. Every answer must hold these invariants:

- bad input is an InputError naming a field (`workload.*`, `offering.*`, `layout.*`, `gpus`, `top`,
  `deadline_days`, `objective`) with a reason; nothing else is raised;
- every number in the answer is finite; times, memory, days, GPU-hours and cost are not negative;
- GPUs = TP x PP x DP x CP, and the nodes hold them;
- feasible means no reasons and memory within HBM; infeasible comes with at least one reason;
- the memory lines add up to the total; MFU of a feasible layout is at most 1; goodput in (0, 1];
  days with failures are not fewer than without;
- a search for the cheapest layout within a deadline states the deadline and whether it is met, and a
  feasible answer meets it;
- a search's answer, evaluated again as a layout on its GPU count, gives the same step time and memory;
- doubling DP of the same layout on a non-blocking fat tree (both sizes multi-node, one GPU type per node)
  does not make the step much slower (1.5x);
- one evaluation takes well under a second, one search a few seconds;
- the CLI exits 0 with the contract's JSON keys, or 2 with one line `error: <field>: <reason>` and the
  JSON `{"error", "field"}`.
"""

from __future__ import annotations

import io
import json
import math
import random
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from hardware import FABRICS, GPUS, INTRA_NODE_KINDS, TOPOLOGIES
from sizing.engine import InputError, evaluate, search
from sizing.engine.cli import main
from tests.sizing.conftest import SIZE_ANSWER_KEYS

SEED = 20240611
ROOT = Path(__file__).resolve().parents[2]
INPUT_FIELDS = ("workload", "offering", "layout", "gpus", "top", "deadline_days", "objective", "arguments")
# numbers that may be below zero: none of the answer's; the listed paths are differences or signed errors
SIGNED = ("error", "delta", "gap", "low")


def _pick(r: random.Random, xs: list[Any] | tuple[Any, ...]) -> Any:
    return xs[r.randrange(len(xs))]


def random_workload(r: random.Random) -> dict[str, Any]:
    if r.random() < 0.1:
        return {
            "name": "derived",
            "params": _pick(r, [1e9, 7e9, 13e9, 70e9, 175e9, 405e9, 1e12, 2e12]),
            "seq_len": _pick(r, [2048, 4096, 8192, 32768]),
            "global_batch": _pick(r, [64, 512, 2048]),
            "train_tokens": _pick(r, [1e11, 2e12, 15e12]),
        }
    head_dim = _pick(r, [64, 96, 128, 128, 128, 256])
    heads = _pick(r, [8, 16, 24, 32, 40, 48, 56, 64, 96, 128])
    kv_heads = _pick(r, [k for k in (1, 2, 4, 8, heads) if heads % k == 0])
    hidden = head_dim * heads
    seq = _pick(r, [2048, 4096, 8192, 16384, 32768, 131072])
    d: dict[str, Any] = {
        "name": "fuzz",
        "layers": _pick(r, [2, 12, 24, 32, 40, 61, 80, 96, 126]),
        "hidden": hidden,
        "heads": heads,
        "kv_heads": kv_heads,
        "ffn_hidden": max(64, int(hidden * _pick(r, [2.6875, 3.5, 4.0])) // 64 * 64),
        "vocab": _pick(r, [32000, 51200, 128256, 151936, 256000]),
        "seq_len": seq,
        "global_batch": max(1, int(_pick(r, [0.5e6, 4e6, 16e6]) // seq)),
        "train_tokens": _pick(r, [1e10, 1e12, 15e12]),
        "precision": _pick(r, ["bf16", "fp8"]),
        "activation": _pick(r, ["gelu", "swiglu"]),
    }
    if r.random() < 0.2:
        d["attention"] = _pick(r, ["auto", "flash", "unfused"])
    if r.random() < 0.35:
        experts = _pick(r, [8, 16, 64, 128, 256])
        d["moe"] = {
            "experts": experts,
            "top_k": min(experts, _pick(r, [1, 2, 4, 8])),
            "expert_ffn_hidden": _pick(r, [768, 1408, 2048, 4096]),
            "shared_experts": _pick(r, [0, 1]),
            "dense_layers": min(d["layers"] - 1, _pick(r, [0, 1, 3])),
        }
        if r.random() < 0.3:
            d["qk_head_dim"], d["v_head_dim"] = 192, 128
    return d


def random_offering(r: random.Random) -> dict[str, Any]:
    gpu = _pick(r, list(GPUS))
    o: dict[str, Any] = {
        "name": "fuzz offering",
        "gpu": gpu,
        "gpus_per_node": _pick(r, [1, 2, 4, 8, 8, 16]),
        "intra_node": _pick(r, INTRA_NODE_KINDS),
        "fabric": _pick(r, FABRICS),
        "nics_per_node": _pick(r, [1, 2, 4, 8]),
        "gbps_per_nic": _pick(r, [25, 100, 200, 400, 800]),
        "topology": _pick(r, TOPOLOGIES),
        "nodes": _pick(r, [1, 2, 4, 16, 128, 1024, 8192]),
    }
    if o["intra_node"] in ("nvswitch", "nvlink-mesh") and not GPUS[gpu].scale_up_links:
        o["intra_node"] = "pcie"
    if gpu.startswith("GB") and r.random() < 0.5:
        o.update(gpus_per_node=4, nvlink_domain_gpus=72, intra_node="nvswitch")
    if r.random() < 0.5:
        o["price_usd_per_gpu_hour"] = _pick(r, [0.8, 2.5, 6.0])
    for key in ("intra_node", "fabric", "topology", "nodes"):
        if r.random() < 0.05:
            del o[key]  # unpublished: the class norm is assumed and stated
    return o


def random_layout(r: random.Random, wl: dict[str, Any]) -> dict[str, Any]:
    heads, kv_heads = wl.get("heads", 8), wl.get("kv_heads", wl.get("heads", 8))
    lay: dict[str, Any] = {
        "tp": _pick(r, [t for t in (1, 2, 4, 8) if heads % t == 0 and kv_heads % t == 0]),
        "pp": _pick(r, [1, 1, 2, 4, 8]),
        "dp": _pick(r, [1, 2, 8, 32]),
        "zero": _pick(r, [0, 1, 1, 2, 3]),
        "micro_batch": _pick(r, [1, 1, 2]),
        "recompute": _pick(r, ["none", "selective", "full"]),
        "sequence_parallel": r.random() < 0.5,
        "virtual_stages": _pick(r, [1, 1, 2]),
    }
    if wl.get("moe"):
        lay["ep"] = _pick(r, [e for e in (1, 2, 4, 8) if wl["moe"]["experts"] % e == 0])
    if wl.get("seq_len", 2048) >= 16384 and r.random() < 0.4:
        lay["cp"] = _pick(r, [2, 4])
    return lay


def _numbers(x: Any, path: str = "") -> Any:
    if isinstance(x, dict):
        for k, v in x.items():
            yield from _numbers(v, f"{path}.{k}")
    elif isinstance(x, list):
        for i, v in enumerate(x):
            yield from _numbers(v, f"{path}[{i}]")
    elif isinstance(x, int | float) and not isinstance(x, bool):
        yield path, x


def violations(res: dict[str, Any]) -> list[str]:
    """The invariants an answer breaks (empty: none)."""
    bad = []
    for path, v in _numbers(res):
        if not math.isfinite(v):
            bad.append(f"{path} = {v}")
        elif v < 0 and not any(word in path.lower() for word in SIGNED):
            bad.append(f"{path} = {v} < 0")
    lay, mem = res["layout"], res["memory_gib_per_gpu"]
    if lay["tp"] * lay["pp"] * lay["dp"] * lay["cp"] != res["gpus"]:
        bad.append(f"{res['gpus']} GPUs but TP x PP x DP x CP of {lay}")
    if res["nodes"] * res["offering"]["gpus_per_node"] < res["gpus"]:
        bad.append(f"{res['nodes']} nodes cannot hold {res['gpus']} GPUs")
    if res["feasible"] == bool(res["reasons"]):
        bad.append(f"feasible {res['feasible']} with reasons {res['reasons']}")
    if res["feasible"] and mem["total"] > res["hbm_gib_per_gpu"]:
        bad.append(f"feasible with {mem['total']} GiB > {res['hbm_gib_per_gpu']} GiB HBM")
    lines = sum(v for k, v in mem.items() if k != "total")
    if abs(lines - mem["total"]) > 0.01 + 1e-3 * mem["total"]:
        bad.append(f"memory lines {lines} != total {mem['total']}")
    if res["feasible"] and not (0 < res["mfu"] <= 1 and res["iteration_time_s"] > 0):
        bad.append(f"feasible with MFU {res['mfu']}, step {res['iteration_time_s']} s")
    if not 0 < res["goodput"]["fraction"] <= 1:
        bad.append(f"goodput {res['goodput']['fraction']}")
    if res["train_days"] < res["train_days_no_failures"]:
        bad.append(f"{res['train_days']} days with failures < {res['train_days_no_failures']} without")
    return bad


def _input_error_ok(e: InputError) -> bool:
    return e.field.split(".")[0] in INPUT_FIELDS and bool(str(e.reason).strip())


def test_evaluate_random_layouts_hold_the_invariants() -> None:
    r = random.Random(SEED)
    answered = 0
    for _ in range(300):
        wl, off = random_workload(r), random_offering(r)
        lay = random_layout(r, wl)
        started = time.perf_counter()
        try:
            res = evaluate(wl, off, lay)
        except InputError as e:
            assert _input_error_ok(e), (wl, off, lay, e.field, e.reason)
            continue
        assert time.perf_counter() - started < 1.0, (wl, off, lay)
        assert not violations(res), (wl, off, lay, violations(res))
        answered += 1
    assert answered > 150  # most draws are valid inputs: the invariants were checked on answers


def test_search_random_workloads_hold_the_invariants_and_re_evaluate() -> None:
    r = random.Random(SEED + 1)
    feasible = 0
    for _ in range(30):
        wl, off = random_workload(r), random_offering(r)
        objective = _pick(r, ["fastest", "cheapest", "cheapest-within-deadline"])
        gpus = _pick(r, [None, None, 64])
        started = time.perf_counter()
        try:
            res = search(wl, off, objective=objective, gpus=gpus, deadline_days=60.0, top=2)
        except InputError as e:
            assert _input_error_ok(e), (wl, off, e.field, e.reason)
            continue
        assert time.perf_counter() - started < 5.0, (wl, off)
        assert not violations(res), (wl, off, violations(res))
        if objective == "cheapest-within-deadline":  # the deadline and whether it is met, met or not
            assert res["deadline_days"] == 60.0 and "meets_deadline" in res, (wl, off)
            assert not res["feasible"] or (res["meets_deadline"] and res["train_days"] <= 60.0), (wl, off)
        for alt in res["alternatives"]:
            assert alt["gpus"] > 0 and alt["iteration_time_s"] > 0 and alt["train_days"] > 0, alt
        if not res["feasible"]:
            continue
        feasible += 1
        again = evaluate(wl, off, res["layout"], gpus=res["gpus"])
        assert again["feasible"], (wl, off, res["layout"], again["reasons"])
        assert again["iteration_time_s"] == pytest.approx(res["iteration_time_s"], rel=1e-3, abs=1e-4)
        assert again["memory_gib_per_gpu"]["total"] == pytest.approx(
            res["memory_gib_per_gpu"]["total"], abs=0.01
        )
    assert feasible >= 10


def test_doubling_data_parallelism_does_not_slow_the_step_much() -> None:
    """Same layout, twice the replicas on a non-blocking fat tree of 8-GPU nodes (both sizes multi-node, the
    scale-up domain one node): per-GPU work halves and
    the gradient all-reduce moves about the same bytes per GPU, so the step may not get much slower."""
    r = random.Random(SEED + 2)
    compared = 0
    for _ in range(200):
        wl, off = random_workload(r), random_offering(r)
        # the scale-up domain is the node (an NVL72 rack's norm would put 64 GPUs on NVLink, 128 not)
        off.update(
            gpus_per_node=8, nvlink_domain_gpus=8, topology="fat-tree", oversubscription=1.0, nodes=8192
        )
        heads, kv_heads = wl.get("heads", 8), wl.get("kv_heads", wl.get("heads", 8))
        tp = _pick(r, [t for t in (1, 2, 4, 8) if heads % t == 0 and kv_heads % t == 0])
        lay = {"tp": tp, "pp": 1, "dp": (8 // tp) * _pick(r, [2, 8]), "zero": 1, "recompute": "full"}
        try:
            one, two = evaluate(wl, off, lay), evaluate(wl, off, {**lay, "dp": 2 * lay["dp"]})
        except InputError:
            continue
        if one["feasible"] and two["feasible"]:
            compared += 1
            assert two["iteration_time_s"] <= 1.5 * one["iteration_time_s"], (wl, off, lay, one, two)
    assert compared >= 30


def _cli(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(argv, stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def test_cli_answers_or_refuses_by_the_contract() -> None:
    r = random.Random(SEED + 3)
    for i in range(40):
        wl, off = random_workload(r), random_offering(r)
        argv = ["--workload", json.dumps(wl), "--offering", json.dumps(off), "--json"]
        if i % 2:
            argv += ["--layout", json.dumps(random_layout(r, wl))]
        else:
            argv += ["--top", "1"]
        if i % 7 == 0:  # a corrupted input: one number made absurd
            target = _pick(r, ["workload", "offering"])
            doc = wl if target == "workload" else off
            key = _pick(
                r, [k for k, v in doc.items() if isinstance(v, int | float) and not isinstance(v, bool)]
            )
            doc[key] = _pick(r, [-1, 0, float("nan"), float("inf"), "12"])
            argv[1 if target == "workload" else 3] = json.dumps(doc)
        code, out, err = _cli(argv)
        assert code in (0, 2), (argv, code)
        if code == 0:
            res = json.loads(out)
            assert SIZE_ANSWER_KEYS <= set(res), (argv, SIZE_ANSWER_KEYS - set(res))
            assert not violations(res), (argv, violations(res))
            assert err == ""
        else:
            line = err.strip()
            assert "\n" not in line and line.startswith("error: "), (argv, err)
            body = json.loads(out)
            assert set(body) == {"error", "field"}
            assert body["field"].split(".")[0] in INPUT_FIELDS, body
            assert line == f"error: {body['error']}"


def test_manage_py_size_exit_codes() -> None:
    """The Django command itself: 0 with JSON for an answer, 2 with one line for a NaN in an offering."""
    off = {
        "name": "x",
        "gpu": "H100-SXM-80GB",
        "gpus_per_node": 8,
        "intra_node": "nvswitch",
        "fabric": "infiniband",
        "nics_per_node": 8,
        "gbps_per_nic": 400,
        "nodes": 4,
    }
    base = [sys.executable, "manage.py", "size", "--workload", "13b", "--json"]
    ok = subprocess.run(
        [*base, "--offering", json.dumps(off)], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert ok.returncode == 0, ok.stderr
    assert SIZE_ANSWER_KEYS <= set(json.loads(ok.stdout))
    bad = subprocess.run(
        [*base, "--offering", json.dumps(off).replace('"nodes": 4', '"nodes": NaN')],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert bad.returncode == 2
    assert bad.stderr.strip().startswith("error: offering.nodes: ")
    assert "\n" not in bad.stderr.strip()
