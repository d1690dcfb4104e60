"""Vectorised layout search: numpy arrays over the whole grid (TP, PP, DP, CP, EP, ZeRO, micro-batch,
recompute, sequence parallel, virtual stages, cluster size), no Python loop per layout.

The grid is a product of "structures" (tp, cp, pp, dp, ep, nodes; shape (S, 1)) and "options" (zero,
micro-batch, recompute, sp, v; shape (1, O)); numpy broadcasting evaluates S x O layouts at once.
Options the model proves dominated are not evaluated and are reported as such: ZeRO-0 is never better
than ZeRO-1 (same traffic, more memory), and ZeRO-2/3 are not combined with pipeline parallelism (Megatron
and DeepSpeed do not support it). ZeRO-1, 2 and 3 are all evaluated without pipeline stages: 2 and 3 save
memory but communicate every micro-batch (model._dp_comm), so none dominates.

Ranking is by the objective, with one rule inside the model's error band (constants.CALIBRATION_MAX_ERROR):
on full-mesh nodes, a layout that pipelines across nodes before TP fills the node gives way to the best
layout that fills it first (Narayanan et al. 2021, takeaway #1) when that one is within the band on the
same cluster size; the model's own best stays the first alternative and `search.selection` says so.
"""

from __future__ import annotations

import itertools
import time
from typing import Any

import numpy as np

from . import constants as C
from .api import as_workload, build_result, reason_texts
from .errors import InputError
from .goodput import fault_model, goodput_arrays
from .hardware import Hardware, allow_requested_gpus, hardware_from_facts
from .layout import Layout
from .model import (
    R_BATCH,
    R_MEMORY,
    R_NODES,
    R_STAGES,
    R_ZERO_PP,
    RECOMPUTE_NAMES,
    WorkloadShape,
    evaluate_grid,
    feasible_subgrid,
    uses_flash_attention,
)
from .workload import Workload

OBJECTIVES = ("fastest", "cheapest", "cheapest-within-deadline")
REASON_ORDER = [
    (R_NODES, "needs more nodes than the offering has"),
    (R_BATCH, "global batch too small for this data-parallel size and micro-batch"),
    (R_STAGES, "more pipeline stages than layers"),
    (R_ZERO_PP, "ZeRO-2/3 with pipeline parallelism"),
    (R_MEMORY, "does not fit memory"),
]


def node_ladder(max_nodes: int) -> list[int]:
    """1, 2, 3, 4, 6, 8, 12, ... up to max_nodes, plus max_nodes: every cluster size a buyer would
    plausibly rent, at ~1.5x steps."""
    out = {max_nodes}
    p = 1
    while p <= max_nodes:
        out.add(p)
        if p * 3 // 2 <= max_nodes and p >= 2:
            out.add(p * 3 // 2)
        p *= 2
    return sorted(out)


def _pow2_divisors(n: int, limit: int) -> list[int]:
    out = []
    d = 1
    while d <= limit and n % d == 0:
        out.append(d)
        d *= 2
    return out


def tp_degrees(wl: Workload, hw: Hardware) -> list[int]:
    """Tensor-parallel degrees the search tries: powers of 2 dividing the KV heads and the heads, up to
    two nodes' width."""
    return [t for t in _pow2_divisors(wl.kv_heads, 2 * hw.gpus_per_node) if wl.heads % t == 0]


NODE_FIRST_MESHES = ("nvswitch", "nvlink-mesh")


def fills_node_first(wl: Workload, hw: Hardware, tp: Any, cp: Any, ep: Any, pp: Any, dp: Any) -> Any:
    """Narayanan et al. 2021 section 3.3, takeaway #1: with g-GPU full-mesh servers, use tensor
    parallelism up to degree g, then pipeline parallelism across servers. True (elementwise) for layouts
    whose pipeline does not cross nodes (no stages, or the whole job in one node), or whose
    bandwidth-hungry dimensions inside the node (TP x CP x EP, placed first in rank order) fill it, or
    whose TP is already the widest the heads allow inside a node. On
    PCIe or bridged nodes the rule does not apply (TP inside the node is not cheap there): always True."""
    if hw.intra_node not in NODE_FIRST_MESHES:
        return np.ones(np.shape(tp), dtype=bool)
    gpn = hw.gpus_per_node
    widest = max([t for t in tp_degrees(wl, hw) if t <= gpn] or [1])
    return (pp == 1) | (tp * cp * pp * dp <= gpn) | (tp >= widest) | (tp * cp * ep >= gpn)


def structures(wl: Workload, hw: Hardware, gpu_counts: list[int]) -> dict[str, np.ndarray]:
    """All (tp, cp, pp, dp, ep) with tp*cp*pp*dp equal to one of the GPU counts (vectorised over pp and
    GPU counts)."""
    tps = tp_degrees(wl, hw)
    cps = [1]
    if wl.seq_len >= 8192:
        cps += [c for c in (2, 4, 8) if wl.seq_len % c == 0 and (c <= 2 or wl.seq_len >= 32768)]
    eps = [1] if wl.moe is None else _pow2_divisors(wl.moe.experts, 256)
    counts = np.asarray(sorted(set(gpu_counts)), dtype=np.int64)
    pps = np.arange(1, min(wl.layers, C.SEARCH_MAX_PP) + 1, dtype=np.int64)
    cols: dict[str, list[np.ndarray]] = {k: [] for k in ("tp", "cp", "pp", "dp", "ep")}
    for tp, cp in itertools.product(tps, cps):
        G, P = np.meshgrid(counts, pps, indexing="ij")
        ok = (G % (tp * cp * P)) == 0
        g, p = G[ok], P[ok]
        dp = g // (tp * cp * p)
        for ep in eps:
            sel = (dp * cp) % ep == 0
            n = int(sel.sum())
            cols["tp"].append(np.full(n, tp))
            cols["cp"].append(np.full(n, cp))
            cols["pp"].append(p[sel])
            cols["dp"].append(dp[sel])
            cols["ep"].append(np.full(n, ep))
    return {k: (np.concatenate(v) if v else np.zeros(0, dtype=np.int64)) for k, v in cols.items()}


def _options(
    zeros: tuple[int, ...], sps: tuple[bool, ...], vs: tuple[int, ...], recs: tuple[int, ...] = (0, 1, 2)
) -> dict[str, np.ndarray]:
    combos = list(itertools.product(zeros, C.SEARCH_MICRO_BATCHES, recs, sps, vs))
    arr = np.asarray(combos, dtype=np.int64)
    return {
        "zero": arr[:, 0],
        "mb": arr[:, 1],
        "rec": arr[:, 2],
        "sp": arr[:, 3].astype(bool),
        "v": arr[:, 4],
    }


def search(
    workload: Workload | dict[str, Any] | str,
    offering_facts: dict[str, Any],
    *,
    objective: str = "fastest",
    gpus: int | None = None,
    deadline_days: float | None = None,
    top: int = 5,
    node_counts: list[int] | None = None,
    optimizer: str = "megatron",
    zero_stages: tuple[int, ...] | None = None,
) -> dict[str, Any]:
    """Search layouts and cluster sizes; return the best as a full result dict plus `search`,
    `alternatives` and `rejected`. A search with no feasible layout is still an answer."""
    t0 = time.perf_counter()
    if objective not in OBJECTIVES:
        raise InputError("objective", f"must be one of {', '.join(OBJECTIVES)}, got {objective!r}")
    wl = as_workload(workload)
    hw = hardware_from_facts(offering_facts)
    fm = fault_model(offering_facts)
    if gpus is not None and (isinstance(gpus, bool) or not isinstance(gpus, int) or gpus <= 0):
        raise InputError("gpus", f"must be a positive integer, got {gpus!r}")
    hw = allow_requested_gpus(hw, gpus)
    deadline = deadline_days if deadline_days is not None else wl.deadline_days
    if objective == "cheapest-within-deadline" and deadline is None:
        raise InputError("deadline_days", "the cheapest-within-deadline objective needs a deadline")
    if deadline is not None and deadline <= 0:
        raise InputError("deadline_days", f"must be positive, got {deadline}")
    gpn = hw.gpus_per_node
    if gpus is not None:
        gpu_counts = [gpus]
    else:
        gpu_counts = [n * gpn for n in (node_counts or node_ladder(hw.max_nodes))]
    st = structures(wl, hw, gpu_counts)
    shape = WorkloadShape(wl)
    price = None
    from .cost import cheapest_price

    price = cheapest_price(hw.facts)
    # goodput depends only on the cluster size: compute it per structure
    st_gpus = st["tp"] * st["cp"] * st["pp"] * st["dp"]
    st_nodes = np.ceil(st_gpus / gpn)
    gp = goodput_arrays(fm, wl.total_params(), st_gpus, st_nodes)

    # with fused attention selective recomputation has nothing to recompute: it equals "none" (same memory,
    # same time) and is not evaluated
    recs = (0, 2) if uses_flash_attention(wl, hw) else (0, 1, 2)
    blocks = []
    for pp_multi, tp_multi in itertools.product((True, False), (True, False)):
        sel = ((st["pp"] > 1) == pp_multi) & ((st["tp"] > 1) == tp_multi)
        if not sel.any():
            continue
        if zero_stages is None:
            zeros: tuple[int, ...] = (1,) if pp_multi else (1, 2, 3)
        else:  # caller restricts ZeRO (e.g. (0,) = Megatron 2021 without the distributed optimizer)
            zeros = tuple(z for z in zero_stages if z <= 1) if pp_multi else tuple(zero_stages)
            if not zeros:
                continue
        sps = (False, True) if tp_multi else (False,)
        vs = C.SEARCH_VIRTUAL_STAGES if pp_multi else (1,)
        blocks.append((np.nonzero(sel)[0], _options(zeros, sps, vs, recs)))

    def objective_of(res: dict[str, Any], rows_all: np.ndarray) -> np.ndarray:
        """The objective of evaluated layouts `res` on structures `rows_all`; inf = over the deadline."""
        days = wl.train_tokens / res["tokens_per_s"] / 86400.0 / gp["fraction"][rows_all]
        gpus_ = st_gpus[rows_all]
        if objective == "fastest":
            return days + 1e-9 * gpus_  # ties: fewer GPUs
        flat = days * 24.0 * gpus_ * (price if price is not None else 1.0)
        if objective == "cheapest-within-deadline":
            flat = np.where(days <= deadline, flat, np.inf)
        return flat

    s_best: list[float] = []  # per evaluated structure: best objective, block, row in the block
    s_block: list[int] = []
    s_row: list[int] = []
    s_struct: list[int] = []  # and its index in `st`
    evaluated = 0
    dominated = 0
    n_feasible = 0
    reason_counts: dict[str, int] = {}
    # per block, its top + 1 feasible candidates (enough for the answer and the alternatives)
    c_score: list[np.ndarray] = []
    c_block: list[np.ndarray] = []
    c_row: list[np.ndarray] = []
    c_col: list[np.ndarray] = []
    for bi, (idx, opt) in enumerate(blocks):
        g = {k: st[k][idx][:, None] for k in ("tp", "cp", "pp", "dp", "ep")}
        g.update({k: v[None, :] for k, v in opt.items()})
        # memory and the other constraints on the whole block, the time model on its feasible layouts only
        reasons, ok_flat, sub = feasible_subgrid(wl, hw, g, optimizer, shape)
        evaluated += reasons.size
        # ZeRO-0 is dominated; ZeRO-2/3 with PP not supported: not evaluated
        n_zero = len(set(opt["zero"].tolist()))
        dominated += reasons.size // n_zero * (4 - n_zero) + reasons.size * (3 - len(recs)) // len(recs)
        remaining = np.ones(reasons.shape, dtype=bool)
        for bit, text in REASON_ORDER:
            hit = remaining & ((reasons & bit) != 0)
            c = int(hit.sum())
            if c:
                reason_counts[text] = reason_counts.get(text, 0) + c
            remaining &= ~hit
        n_feasible += int(ok_flat.size)
        if not ok_flat.size:
            continue
        res = evaluate_grid(wl, hw, sub, optimizer, shape)
        rows_in = ok_flat // reasons.shape[1]  # non-decreasing: feasible layouts come row by row
        flat = objective_of(res, idx[rows_in])
        # each structure's best objective (one O(n) segmented minimum), for the node-first rule below
        # (kept as Python lists: small numpy buffers that outlive the block fragment the C heap between the
        # big grid arrays, which then cost fresh page faults; measured +30% on the 100-offering benchmark)
        starts = np.flatnonzero(np.r_[True, rows_in[1:] != rows_in[:-1]])
        s_best.extend(np.minimum.reduceat(flat, starts).tolist())
        s_block.extend([bi] * int(starts.size))
        s_row.extend(rows_in[starts].tolist())
        s_struct.extend(idx[rows_in[starts]].tolist())
        k = min(top + 1, flat.size)
        part = np.argpartition(flat, k - 1)[:k] if flat.size > k else np.arange(flat.size)
        part = part[np.isfinite(flat[part])]
        rows, colsx = np.divmod(ok_flat[part], reasons.shape[1])
        c_score.append(flat[part])
        c_block.append(np.full(part.size, bi))
        c_row.append(rows)
        c_col.append(colsx)
    scores = np.concatenate(c_score) if c_score else np.zeros(0)
    refs = np.stack(
        [np.concatenate(c) if c else np.zeros(0, dtype=np.int64) for c in (c_block, c_row, c_col)]
    )
    order = np.argsort(scores, kind="stable")
    order = order[np.isfinite(scores[order])]
    picks = [_ref(refs, int(o)) for o in order[: top + 1]]
    node_first = None  # the model's best by the objective alone, when the node-first rule replaced it
    if order.size:
        w = int(order[0])
        w_block, w_row, _ = _ref(refs, w)
        w_struct = blocks[w_block][0][w_row]
        follows = fills_node_first(wl, hw, st["tp"], st["cp"], st["ep"], st["pp"], st["dp"])
        if not follows[w_struct]:
            # within the model's largest calibration error of the best, on the same cluster size, prefer the
            # best layout that fills the node with TP before pipelining: the structure every published
            # multi-node calibration run used (TP = 8 on 8-GPU nodes, PP across nodes). The rule is a
            # property of the structure: take the best structure that follows it on the winner's cluster
            # size from the per-structure minima, then find its best options column.
            band = scores[w] * (1.0 + C.CALIBRATION_MAX_ERROR)
            sb, sbk, sr, srow = (np.asarray(a) for a in (s_best, s_block, s_row, s_struct))
            cand = np.flatnonzero((st_gpus[srow] == st_gpus[w_struct]) & (sb <= band) & follows[srow])
            if cand.size:
                k = int(cand[np.argmin(sb[cand])])
                bi, r = int(sbk[k]), int(sr[k])
                idx, opt = blocks[bi]
                g = {key: st[key][idx[r : r + 1]][:, None] for key in ("tp", "cp", "pp", "dp", "ep")}
                g.update({key: v[None, :] for key, v in opt.items()})
                _, ok_flat, sub = feasible_subgrid(wl, hw, g, optimizer, shape)
                flat = objective_of(
                    evaluate_grid(wl, hw, sub, optimizer, shape), np.full(ok_flat.size, idx[r])
                )
                chosen = (bi, r, int(ok_flat[int(np.argmin(flat))]))
                node_first = _ref(refs, w)
                rest = [_ref(refs, int(x)) for x in order[: top + 1]]
                picks = [chosen] + [p for p in rest if p != chosen][:top]

    notes: list[str] = []
    answered_feasible = True
    if not picks and n_feasible and objective == "cheapest-within-deadline":
        # nothing meets the deadline: answer with the fastest layout, flagged
        over_deadline = n_feasible
        res = search(
            wl,
            offering_facts,
            objective="fastest",
            gpus=gpus,
            top=top,
            node_counts=node_counts,
            optimizer=optimizer,
            zero_stages=zero_stages,
        )
        res["feasible"] = False
        res["reasons"] = [f"no layout finishes within the {deadline:g}-day deadline; the fastest is shown"]
        res["rejected"]["over deadline"] = over_deadline
        res["search"]["seconds"] = round(time.perf_counter() - t0, 4)
        return res

    if picks:
        # the answer and its alternatives in one vectorised evaluation
        lays = [_layout_at(st, blocks, p) for p in picks]
        grids = [lay.grid() for lay in lays]
        many = evaluate_grid(
            wl, hw, {k: np.asarray([gr[k] for gr in grids]) for k in grids[0]}, optimizer, shape
        )
        done = [build_result(wl, hw, fm, lay, many, i, notes) for i, lay in enumerate(lays)]
        best, alts = done[0], done[1 : top + 1]
    else:
        answered_feasible = False
        # show the layout that came closest to fitting: the smallest memory overshoot at the largest size
        best = _closest_infeasible(wl, hw, fm, st, blocks, optimizer, shape, notes)
        alts = []
    if not answered_feasible:
        best["feasible"] = False
        summary = ", ".join(f"{v} {k}" for k, v in sorted(reason_counts.items(), key=lambda kv: -kv[1]))
        best["reasons"] = [f"no feasible layout among {evaluated} evaluated ({summary})"] + best["reasons"]
    rejected = dict(reason_counts)
    slower_key = {
        "fastest": "slower",
        "cheapest": "more expensive",
        "cheapest-within-deadline": "more expensive or over deadline",
    }[objective]
    if n_feasible > 1:
        rejected[slower_key] = n_feasible - 1
    rejected["dominated (same time, more memory) or unsupported ZeRO stage, not evaluated"] = dominated
    best["objective"] = objective
    if deadline is not None:
        best["deadline_days"] = deadline
        best["meets_deadline"] = bool(best["train_days"] <= deadline)
    best["search"] = {
        "evaluated": int(evaluated),
        "feasible": int(n_feasible),
        "seconds": round(time.perf_counter() - t0, 4),
        "gpu_counts": [int(x) for x in sorted(set(gpu_counts))][:64],
    }
    best["alternatives"] = [_alt(a) for a in alts]
    best["rejected"] = rejected
    if answered_feasible and best["explanation"]:
        if node_first is not None:
            raw = alts[0]  # the model's best by the objective alone is the first alternative
            gap = _gap(objective, price, best, raw)
            best["search"]["selection"] = {
                "rule": "node-first",
                "source": NODE_FIRST_SOURCE,
                "model_best": _alt(raw),
                "objective_gap": round(gap, 4),
                "band": C.CALIBRATION_MAX_ERROR,
            }
            best["explanation"].append(_why_node_first(objective, hw, best, raw, gap))
        else:
            best["explanation"].append(_why_not(objective, price, best, alts))
    return best


NODE_FIRST_SOURCE = (
    "Narayanan et al. 2021 (Megatron-LM, SC21) section 3.3, takeaway #1: tensor parallelism up to the GPUs "
    "of a server, then pipeline parallelism across servers"
)


def _gap(objective: str, price: float | None, best: dict[str, Any], other: dict[str, Any]) -> float:
    """How much better `other` is than `best` by the objective (0.04 = 4% faster or cheaper)."""
    b, o = _objective_value(objective, price, best), _objective_value(objective, price, other)
    return (b - o) / o if o > 0 else 0.0


def _why_node_first(
    objective: str, hw: Hardware, best: dict[str, Any], raw: dict[str, Any], gap: float
) -> str:
    what = "faster" if objective == "fastest" else "cheaper"
    lay = best["layout"]
    inside = lay["tp"] * lay["cp"] * lay["ep"]
    raw_text = f"{_layout_text(raw['layout'])} v={raw['layout']['virtual_stages']}"
    inside_text = f"{'TP' if inside == lay['tp'] else 'TP x CP x EP'}={inside}"
    return (
        f"Chosen over the model's own best, {raw_text} ({raw['train_days']:.2f} days, "
        f"MFU {100 * raw['mfu']:.1f}%), which it predicts {100 * gap:.1f}% {what}: less than the model's "
        f"largest calibration error ({100 * C.CALIBRATION_MAX_ERROR:.1f}%), so the model cannot rank the "
        f"two, and that layout pipelines across nodes before tensor parallelism fills the "
        f"{hw.gpus_per_node}-GPU node. This one ({inside_text} inside the node, then PP) follows "
        "Megatron-LM's rule (Narayanan et al. 2021, takeaway #1), the regime of every published multi-node "
        "run the model is calibrated on (the structure whose predictions were checked); the other is the "
        "first alternative."
    )


def _layout_at(st: dict[str, np.ndarray], blocks: list[Any], ref: tuple[int, int, int]) -> Layout:
    """The layout at (block, structure row, option column) of the search grid."""
    bi, r, c = ref
    idx, opt = blocks[bi]
    s = idx[r]
    return Layout(
        tp=int(st["tp"][s]),
        pp=int(st["pp"][s]),
        dp=int(st["dp"][s]),
        cp=int(st["cp"][s]),
        ep=int(st["ep"][s]),
        zero=int(opt["zero"][c]),
        micro_batch=int(opt["mb"][c]),
        recompute=RECOMPUTE_NAMES[int(opt["rec"][c])],
        sequence_parallel=bool(opt["sp"][c]),
        virtual_stages=int(opt["v"][c]),
    )


def _ref(refs: np.ndarray, i: int) -> tuple[int, int, int]:
    """(block, row, column) of candidate i."""
    return int(refs[0, i]), int(refs[1, i]), int(refs[2, i])


def _alt(a: dict[str, Any]) -> dict[str, Any]:
    out = {
        "layout": a["layout"],
        "gpus": a["gpus"],
        "nodes": a["nodes"],
        "iteration_time_s": a["iteration_time_s"],
        "mfu": a["mfu"],
        "train_days": a["train_days"],
        "memory_gib_per_gpu": a["memory_gib_per_gpu"]["total"],
    }
    if "cost" in a:
        out["cost_total_usd"] = a["cost"]["total_usd"]
    return out


def _layout_text(lay: dict[str, Any]) -> str:
    text = f"TP={lay['tp']} PP={lay['pp']} DP={lay['dp']}"
    if lay["cp"] > 1:
        text += f" CP={lay['cp']}"
    if lay["ep"] > 1:
        text += f" EP={lay['ep']}"
    return text + f" ZeRO-{lay['zero']}"


def _objective_value(objective: str, price: float | None, r: dict[str, Any]) -> float:
    if objective == "fastest":
        return float(r["train_days"])
    usd = r.get("cost", {}).get("total_usd")
    if price is not None and isinstance(usd, int | float):
        return float(usd)
    return float(r["train_days"] * 24 * r["gpus"])


def _why_not(objective: str, price: float | None, best: dict[str, Any], alts: list[dict[str, Any]]) -> str:
    if not alts:
        return "No other feasible layout was found."
    a = alts[0]
    lay = a["layout"]
    diff = {k: v for k, v in lay.items() if best["layout"][k] != v}
    d = ", ".join(f"{k}={v}" for k, v in diff.items()) or "a different cluster size"
    text = (
        f"Runner-up ({d}, {a['gpus']} GPUs): {a['train_days']:.2f} days, MFU {100 * a['mfu']:.1f}% "
        f"vs {best['train_days']:.2f} days, MFU {100 * best['mfu']:.1f}%."
    )
    # the model's largest calibration error (docs/MODEL.md): closer alternatives are not ranked by it
    gap = _gap(objective, price, a, best)
    if gap < C.CALIBRATION_MAX_ERROR:
        what = "time" if objective == "fastest" else "cost"
        text += (
            f" The {what} differs by {100 * gap:.1f}%, less than the model's largest calibration error "
            f"({100 * C.CALIBRATION_MAX_ERROR:.1f}%): the model cannot rank the two."
        )
    return text


def _closest_infeasible(
    wl: Workload,
    hw: Hardware,
    fm: Any,
    st: dict[str, np.ndarray],
    blocks: list[Any],
    optimizer: str,
    shape: WorkloadShape,
    notes: list[str],
) -> dict[str, Any]:
    best_ref = None
    best_mem = np.inf
    for bi, (idx, opt) in enumerate(blocks):
        g = {k: st[k][idx][:, None] for k in ("tp", "cp", "pp", "dp", "ep")}
        g.update({k: v[None, :] for k, v in opt.items()})
        res = evaluate_grid(wl, hw, g, optimizer, shape)
        mem = np.broadcast_to(res["mem_total"], (len(idx), len(opt["zero"])))
        i = int(np.argmin(mem))
        if mem.ravel()[i] < best_mem:
            best_mem = float(mem.ravel()[i])
            rr, cc = np.unravel_index(i, mem.shape)
            best_ref = (bi, int(rr), int(cc))
    if best_ref is None:
        raise InputError("gpus", "no layout can be formed for this GPU count and workload")
    lay = _layout_at(st, blocks, best_ref)
    one = evaluate_grid(wl, hw, lay.grid(), optimizer, shape)
    out = build_result(wl, hw, fm, lay, one, (), notes)
    out["reasons"] = reason_texts(int(one["reasons"]), one, (), hw)
    return out
