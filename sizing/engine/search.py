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

A candidate is named by its grid reference (block, structure row in the block, option column).
"""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from hardware.messages import Msg, _, joined
from hardware.numbers import value_text
from providers.facts import billable_rate

from . import constants as C
from . import loss as LOSS
from .api import as_workload, brief_result, build_result, check_gpus, faults_for, reason_texts
from .bounds import GPUS_MAX, check_deadline, check_top
from .cost import billed_rate
from .errors import InputError
from .explain import setting_text
from .goodput import FaultModel, goodput_arrays
from .hardware import Hardware, allow_requested_gpus, hardware_from_facts
from .layout import Layout, default_expert_tp, tp_aligned
from .model import (
    RECOMPUTE_FULL,
    RECOMPUTE_NAMES,
    RECOMPUTE_NONE,
    RECOMPUTE_SELECTIVE,
    GridModel,
    uses_flash_attention,
)
from .overlap import (
    checked_optimizer,
    default_optimizer,
    dispatcher_note,
    ep_overlap_note,
    expert_tp_note,
    folds_experts,
    framework_defaults,
    framework_note,
    grad_reduce_in_fp32_by_default,
    grad_reduce_note,
    muon_note,
    optimizer_note,
    resolve_dispatcher,
    zero3_note,
)
from .scan import GridRef, Scan
from .workload import Workload

OBJECTIVES = ("fastest", "cheapest", "cheapest-within-deadline")
# what `rejected` calls the feasible layouts that lost, by objective
LOST_BY_OBJECTIVE = {
    "fastest": "slower",
    "cheapest": "more expensive",
    "cheapest-within-deadline": "more expensive or over deadline",
}
NOT_EVALUATED = "dominated (same time, more memory) or unsupported ZeRO stage, not evaluated"
STRUCTURE_KEYS = ("tp", "cp", "pp", "dp", "ep", "etp")
Block = tuple[np.ndarray, dict[str, np.ndarray]]  # (indices into the structures, option arrays)


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
    two nodes' width, placed as a given layout must be (layout.tp_aligned: no group straddles two nodes)."""
    node = hw.gpus_per_node
    return [
        t
        for t in _pow2_divisors(wl.kv_heads, 2 * node)
        if wl.heads % t == 0 and tp_aligned(t, node, hw.scale_up_domain_gpus)
    ]


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
    gpus_per_node = hw.gpus_per_node
    widest = max([t for t in tp_degrees(wl, hw) if t <= gpus_per_node] or [1])
    return (pp == 1) | (tp * cp * pp * dp <= gpus_per_node) | (tp >= widest) | (tp * cp * ep >= gpus_per_node)


def structures(wl: Workload, hw: Hardware, gpu_counts: list[int]) -> dict[str, np.ndarray]:
    """All (tp, cp, pp, dp, ep, etp) with tp*cp*pp*dp equal to one of the GPU counts (vectorised over pp and
    GPU counts). Experts fold over the dense ranks (Megatron-Core expert tensor parallelism): EP x ETP must
    divide tp*dp*cp, with ETP = TP (experts split like the dense layers) or, with TP > 1, ETP = 1 (whole
    experts per rank, the setting NVIDIA's MoE recipes use): only the one a layout that does not state `etp`
    takes on this GPU generation (layout.default_expert_tp), so that the answer given back with the
    contract's keys is the same layout."""
    fold = folds_experts(hw)
    tps = tp_degrees(wl, hw)
    cps = [1]
    if wl.seq_len >= 8192:
        cps += [c for c in (2, 4, 8) if wl.seq_len % c == 0 and (c <= 2 or wl.seq_len >= 32768)]
    eps = [1] if wl.moe is None else _pow2_divisors(wl.moe.experts, 256)
    counts = np.asarray(sorted(set(gpu_counts)), dtype=np.int64)
    pps = np.arange(1, min(wl.layers, C.SEARCH_MAX_PP) + 1, dtype=np.int64)
    cols: dict[str, list[np.ndarray]] = {k: [] for k in STRUCTURE_KEYS}
    for tp, cp in itertools.product(tps, cps):
        G, P = np.meshgrid(counts, pps, indexing="ij")
        ok = (G % (tp * cp * P)) == 0
        g, p = G[ok], P[ok]
        dp = g // (tp * cp * p)
        for ep in eps:
            etp = default_expert_tp(wl.moe is not None, tp, ep, tp * dp * cp, fold)
            sel = (tp * dp * cp) % (ep * etp) == 0
            n = int(sel.sum())
            cols["tp"].append(np.full(n, tp))
            cols["cp"].append(np.full(n, cp))
            cols["pp"].append(p[sel])
            cols["dp"].append(dp[sel])
            cols["ep"].append(np.full(n, ep))
            cols["etp"].append(etp[sel])
    return {k: (np.concatenate(v) if v else np.zeros(0, dtype=np.int64)) for k, v in cols.items()}


def _options(
    zeros: tuple[int, ...], sps: tuple[bool, ...], vs: tuple[int, ...], recompute_modes: tuple[int, ...]
) -> dict[str, np.ndarray]:
    """Every combination of the option values (ZeRO stages, micro-batches, recompute codes, sequence
    parallel, virtual stages) as the grid's option columns."""
    combos = list(itertools.product(zeros, C.SEARCH_MICRO_BATCHES, recompute_modes, sps, vs))
    arr = np.asarray(combos, dtype=np.int64)
    return {
        "zero": arr[:, 0],
        "mb": arr[:, 1],
        "rec": arr[:, 2],
        "sp": arr[:, 3].astype(bool),
        "v": arr[:, 4],
    }


def _option_blocks(
    structs: dict[str, np.ndarray], zero_stages: tuple[int, ...] | None, recompute_modes: tuple[int, ...]
) -> list[Block]:
    """The structures grouped by (pipelined or not, tensor-parallel or not), each group with the options
    worth evaluating on it: ZeRO-1 only with pipeline stages (ZeRO-0 is dominated, 2/3 unsupported),
    sequence parallelism only with TP, virtual stages only with pipeline stages."""
    blocks = []
    for pipelined, tensor_parallel in itertools.product((True, False), (True, False)):
        sel = ((structs["pp"] > 1) == pipelined) & ((structs["tp"] > 1) == tensor_parallel)
        if not sel.any():
            continue
        if zero_stages is None:
            zeros: tuple[int, ...] = (1,) if pipelined else (1, 2, 3)
        else:  # caller restricts ZeRO (e.g. (0,) = Megatron 2021 without the distributed optimizer)
            zeros = tuple(z for z in zero_stages if z <= 1) if pipelined else tuple(zero_stages)
            if not zeros:
                continue
        sequence_parallel = (False, True) if tensor_parallel else (False,)
        virtual_stages = C.SEARCH_VIRTUAL_STAGES if pipelined else (1,)
        options = _options(zeros, sequence_parallel, virtual_stages, recompute_modes)
        blocks.append((np.nonzero(sel)[0], options))
    return blocks


def _block_grid(
    structs: dict[str, np.ndarray], rows: np.ndarray, options: dict[str, np.ndarray]
) -> dict[str, np.ndarray]:
    """The broadcast grid of structures `rows` (a column) by `options` (a row)."""
    g = {k: structs[k][rows][:, None] for k in STRUCTURE_KEYS}
    g.update({k: v[None, :] for k, v in options.items()})
    return g


@dataclass(frozen=True)
class _Space:
    """What one search evaluates: the structures, their option blocks and what the model needs."""

    wl: Workload
    hw: Hardware
    structs: dict[str, np.ndarray]
    structure_gpus: np.ndarray
    blocks: list[Block]
    recompute_modes: tuple[int, ...]
    model: GridModel

    def feasible(self, block: int, rows: np.ndarray) -> tuple[Any, Any, dict[str, Any]]:
        """GridModel.feasible_throughput of structure `rows` of `block` by the block's options: (reasons,
        flat indices of the feasible layouts, their tokens_per_s)."""
        return self.model.feasible_throughput(_block_grid(self.structs, rows, self.blocks[block][1]))

    def evaluate(self, grid: dict[str, Any]) -> dict[str, Any]:
        return self.model.evaluate(grid)

    def layout_at(self, ref: GridRef) -> Layout:
        """The layout at (block, structure row, option column) of the search grid."""
        block, row, column = ref
        rows, options = self.blocks[block]
        s = rows[row]
        tp, etp = int(self.structs["tp"][s]), int(self.structs["etp"][s])
        zero = int(options["zero"][column])
        defaults = framework_defaults(self.hw, zero, self.model.convention)
        lay = Layout(
            tp=tp,
            pp=int(self.structs["pp"][s]),
            dp=int(self.structs["dp"][s]),
            cp=int(self.structs["cp"][s]),
            ep=int(self.structs["ep"][s]),
            zero=zero,
            micro_batch=int(options["mb"][column]),
            recompute=RECOMPUTE_NAMES[int(options["rec"][column])],
            sequence_parallel=bool(options["sp"][column]),
            virtual_stages=int(options["v"][column]),
            etp=None if etp == tp else etp,
            # the search does not toggle the overlap settings: it evaluates the framework default of the
            # GPU (what Layout.with_overlap and overlap.resolve_grad_reduce fill in, set here at once)
            tp_comm_overlap=defaults["tp_comm_overlap"],
            overlap_grad_reduce=defaults["overlap_grad_reduce"],
            overlap_param_gather=defaults["overlap_param_gather"],
            overlap_p2p_comm=defaults["overlap_p2p_comm"],
            grad_reduce_in_fp32=grad_reduce_in_fp32_by_default(self.model.convention, self.hw, zero),
            cross_entropy=LOSS.default_for(self.hw),
        )
        return resolve_dispatcher(lay, self.hw, self.wl.moe is not None)[0]


def _search_space(
    wl: Workload, hw: Hardware, gpu_counts: list[int], optimizer: str, zero_stages: tuple[int, ...] | None
) -> _Space:
    structs = structures(wl, hw, gpu_counts)
    # with fused attention selective recomputation has nothing to recompute: it equals "none" (same memory,
    # same time) and is not evaluated
    if uses_flash_attention(wl, hw):
        recompute_modes: tuple[int, ...] = (RECOMPUTE_NONE, RECOMPUTE_FULL)
    else:
        recompute_modes = (RECOMPUTE_NONE, RECOMPUTE_SELECTIVE, RECOMPUTE_FULL)
    return _Space(
        wl=wl,
        hw=hw,
        structs=structs,
        structure_gpus=structs["tp"] * structs["cp"] * structs["pp"] * structs["dp"],
        blocks=_option_blocks(structs, zero_stages, recompute_modes),
        recompute_modes=recompute_modes,
        model=GridModel(wl, hw, optimizer),
    )


@dataclass(frozen=True)
class _Objective:
    """The objective of evaluated layouts, lower is better: training days (ties: fewer GPUs), or its
    cost: the GPU-hours billed (the spare nodes' included) at the rate of the plan each run is billed at,
    the `total_usd` of its cost block (cost.billed_rate); GPU-hours when no price is published (the
    `gpu_hours` an answer and its alternatives show); inf = over the deadline."""

    name: str
    train_tokens: float
    goodput_fraction: np.ndarray  # per structure: goodput depends only on the cluster size
    structure_gpus: np.ndarray
    billed_gpus: np.ndarray  # per structure: the job's GPUs and the spare nodes' (goodput.py)
    price: float | None  # the lowest billable rate: None when nothing is priced
    deadline: float | None
    facts: dict[str, Any]
    gpus_per_node: int

    def __call__(self, res: dict[str, Any], structure_indices: np.ndarray) -> np.ndarray:
        """The objective of evaluated layouts `res` on structures `structure_indices`."""
        fraction = self.goodput_fraction[structure_indices]
        with np.errstate(over="ignore", divide="ignore"):  # goodput ~0 (extreme failure rates): inf days
            days = self.train_tokens / res["tokens_per_s"] / 86400.0 / fraction
        gpus = self.structure_gpus[structure_indices]
        if self.name == "fastest":
            return days + 1e-9 * gpus  # ties: fewer GPUs
        billed = self.billed_gpus[structure_indices]
        gpu_hours = days * 24.0 * billed
        if self.price is None:
            flat = gpu_hours
        else:  # inf hours (goodput ~0) bill inf on every plan (cost.billed_rate)
            flat = gpu_hours * billed_rate(self.facts, billed, self.gpus_per_node, days * 24.0)
        if self.name == "cheapest-within-deadline":
            flat = np.where(days <= self.deadline, flat, np.inf)
        return flat


def _objective_for(
    name: str, space: _Space, faults: FaultModel, price: float | None, deadline: float | None
) -> _Objective:
    # the goodput of each distinct GPU count once (a fixed-size search has one), then per structure
    counts, structure_count = np.unique(space.structure_gpus, return_inverse=True)
    nodes = np.ceil(counts / space.hw.gpus_per_node)
    if counts.size == 1:  # as one scalar, which the fault model keeps for the answer's own figures
        one = goodput_arrays(faults, space.wl.total_params(), counts[0], nodes[0])
        fraction = np.full(structure_count.shape, one["fraction"])
        spares = np.full(structure_count.shape, one["spare_nodes"])
    else:
        goodput = goodput_arrays(faults, space.wl.total_params(), counts, nodes)
        fraction, spares = goodput["fraction"][structure_count], goodput["spare_nodes"][structure_count]
    billed = space.structure_gpus + spares * space.hw.gpus_per_node
    return _Objective(
        name,
        space.wl.train_tokens,
        fraction,
        space.structure_gpus,
        billed,
        price,
        deadline,
        space.hw.facts,
        space.hw.gpus_per_node,
    )


def _scan(space: _Space, objective: _Objective, top: int) -> Scan:
    """Every block: memory and the other constraints on the whole block, the time model on its feasible
    layouts only (GridModel.feasible_throughput: the memory is computed once)."""
    scan = Scan()
    for block, (rows, options) in enumerate(space.blocks):
        reasons, feasible, res = space.feasible(block, rows)
        scan.count(reasons, options, space.recompute_modes)
        scan.feasible += int(feasible.size)
        if not feasible.size:
            continue
        feasible_rows = feasible // reasons.shape[1]  # non-decreasing: feasible layouts come row by row
        scores = objective(res, rows[feasible_rows])
        scan.add_structure_minima(block, rows, feasible, reasons.shape[1], scores)
        scan.add_candidates(block, feasible, reasons.shape[1], scores, top)
    return scan


def _ref(refs: np.ndarray, i: int) -> GridRef:
    """(block, row, column) of candidate i."""
    return int(refs[0, i]), int(refs[1, i]), int(refs[2, i])


def _best_filling_node(
    space: _Space, scan: Scan, objective: _Objective, follows: np.ndarray, winner_structure: int, band: float
) -> GridRef | None:
    """The best layout within `band` on the winner's cluster size whose structure fills the node first.

    The rule is a property of the structure: take the best structure that follows it on the winner's
    cluster size from the per-structure minima, then find its best options column."""
    best, blocks, rows, indices = (
        np.asarray(a)
        for a in (scan.structure_best, scan.structure_block, scan.structure_row, scan.structure_index)
    )
    gpus = space.structure_gpus
    same_size = gpus[indices] == gpus[winner_structure]
    candidates = np.flatnonzero(same_size & (best <= band) & follows[indices])
    if not candidates.size:
        return None
    k = int(candidates[np.argmin(best[candidates])])
    block, row = int(blocks[k]), int(rows[k])
    if scan.structure_column[k] >= 0:  # its best column, kept by the scan
        return (block, row, scan.structure_column[k])
    structure_rows = space.blocks[block][0]
    _, feasible, res = space.feasible(block, structure_rows[row : row + 1])
    scores = objective(res, np.full(feasible.size, structure_rows[row]))
    return (block, row, int(feasible[int(np.argmin(scores))]))


def _picks(space: _Space, scan: Scan, objective: _Objective, top: int) -> tuple[list[GridRef], bool]:
    """The answer and its alternatives, best first; and whether the node-first rule replaced the model's
    own best (which is then the first alternative)."""
    scores, refs, order = scan.ranked()
    picks = [_ref(refs, int(o)) for o in order[: top + 1]]
    if not order.size:
        return picks, False
    winner = int(order[0])
    block, row, _ = _ref(refs, winner)
    winner_structure = space.blocks[block][0][row]
    structs = space.structs
    follows = fills_node_first(
        space.wl, space.hw, structs["tp"], structs["cp"], structs["ep"], structs["pp"], structs["dp"]
    )
    if follows[winner_structure]:
        return picks, False
    # within the model's largest calibration error of the best, on the same cluster size, prefer the best
    # layout that fills the node with TP before pipelining: the structure every published multi-node
    # calibration run used (TP = 8 on 8-GPU nodes, PP across nodes)
    band = scores[winner] * (1.0 + C.CALIBRATION_MAX_ERROR)
    chosen = _best_filling_node(space, scan, objective, follows, winner_structure, band)
    if chosen is None:
        return picks, False
    return [chosen] + [p for p in picks if p != chosen][:top], True


def _closest_infeasible(space: _Space, faults: FaultModel, notes: list[str]) -> dict[str, Any]:
    """The layout that came closest to fitting: the smallest memory per GPU."""
    best_ref = None
    best_mem = np.inf
    for block, (rows, options) in enumerate(space.blocks):
        res = space.evaluate(_block_grid(space.structs, rows, options))
        mem = np.broadcast_to(res["mem_total"], (len(rows), len(options["zero"])))
        i = int(np.argmin(mem))
        if mem.ravel()[i] < best_mem:
            best_mem = float(mem.ravel()[i])
            row, column = np.unravel_index(i, mem.shape)
            best_ref = (block, int(row), int(column))
    if best_ref is None:
        raise InputError("gpus", _("no layout can be formed for this GPU count and workload"))
    lay = space.layout_at(best_ref)
    one = space.evaluate(lay.grid())
    out = build_result(
        space.wl, space.hw, faults, lay, one, (), notes + _default_notes(lay), space.model.convention
    )
    out["reasons"] = reason_texts(int(one["reasons"]), one, (), space.hw)
    return out


def _default_notes(lay: Layout) -> list[str]:
    """The notes on framework defaults that hold for this layout only: ZeRO-3's own data-parallel overlap
    and, with expert parallelism, the all-to-all overlap left off (the search takes every default)."""
    notes = [zero3_note()] if lay.zero >= 3 else []
    if lay.ep > 1:
        notes.append(ep_overlap_note())
    if lay.grad_reduce_in_fp32:  # the search states none: the convention's (overlap.resolve_grad_reduce)
        notes.append(grad_reduce_note())
    return notes


def _answer(
    space: _Space, faults: FaultModel, scan: Scan, picks: list[GridRef], notes: list[str]
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """(the answer as a full result, the runners-up picked): with no feasible layout, the closest to
    fitting and why none fits."""
    if picks:
        # the answer and its alternatives in one vectorised evaluation
        lays = [space.layout_at(p) for p in picks]
        grids = [lay.grid() for lay in lays]
        many = space.evaluate({k: np.asarray([gr[k] for gr in grids]) for k in grids[0]})
        notes_0 = notes + _default_notes(lays[0])
        best = build_result(space.wl, space.hw, faults, lays[0], many, 0, notes_0, space.model.convention)
        alts = [brief_result(space.wl, space.hw, faults, lay, many, i) for i, lay in enumerate(lays[1:], 1)]
        return best, alts
    best = _closest_infeasible(space, faults, notes)
    best["feasible"] = False
    counts = sorted(scan.reason_counts.items(), key=lambda kv: -kv[1])
    summary = joined(*(Msg("%(count)s %(reason)s", count=v, reason=k) for k, v in counts), sep=_(", "))
    best["reasons"] = [
        _("no feasible layout among %(count)s evaluated (%(summary)s)", count=scan.evaluated, summary=summary)
    ] + best["reasons"]
    return best, []


def _rejected(scan: Scan, objective: str) -> dict[str, int]:
    """How many layouts were rejected, by reason; lost to the answer; or not evaluated."""
    rejected = dict(scan.reason_counts)
    if scan.feasible > 1:
        rejected[LOST_BY_OBJECTIVE[objective]] = scan.feasible - 1
    rejected[NOT_EVALUATED] = scan.dominated
    return rejected


def _record_objective(best: dict[str, Any], objective: _Objective) -> None:
    """The objective, and the deadline with whether the answer meets it."""
    best["objective"] = objective.name
    if objective.deadline is not None:
        best["deadline_days"] = objective.deadline
        best["meets_deadline"] = bool(best["train_days"] <= objective.deadline)


def _search_record(scan: Scan, gpu_counts: list[int], started: float) -> dict[str, Any]:
    return {
        "evaluated": int(scan.evaluated),
        "feasible": int(scan.feasible),
        "seconds": round(time.perf_counter() - started, 4),
        "gpu_counts": [int(x) for x in sorted(set(gpu_counts))][:64],
    }


def _explain_choice(
    best: dict[str, Any], alts: list[dict[str, Any]], node_first: bool, objective: _Objective, hw: Hardware
) -> None:
    """Why this layout and not the next: the node-first rule's record, or the runner-up's numbers."""
    if not node_first:
        best["explanation"].append(_why_not(objective.name, objective.price, best, alts))
        return
    raw = alts[0]  # the model's best by the objective alone is the first alternative
    gap = _gap(objective.name, objective.price, best, raw)
    best["search"]["selection"] = {
        "rule": "node-first",
        "source": NODE_FIRST_SOURCE,
        "model_best": _alt(raw),
        "objective_gap": round(gap, 4),
        "band": C.CALIBRATION_MAX_ERROR,
    }
    best["explanation"].append(_why_node_first(objective.name, hw, best, raw, gap))


def _deadline(objective: str, deadline_days: float | None, wl: Workload) -> float | None:
    deadline = deadline_days if deadline_days is not None else wl.deadline_days
    if objective == "cheapest-within-deadline" and deadline is None:
        raise InputError("deadline_days", _("the cheapest-within-deadline objective needs a deadline"))
    if deadline is not None and deadline <= 0:
        raise InputError("deadline_days", _("must be positive, got %(got)s", got=value_text(deadline)))
    return deadline


def _fastest_instead(
    wl: Workload,
    offering_facts: dict[str, Any],
    deadline: float | None,
    over_deadline: int,
    started: float,
    **options: Any,
) -> dict[str, Any]:
    """Nothing meets the deadline: answer with the fastest layout, flagged."""
    res = search(wl, offering_facts, objective="fastest", **options)
    res["feasible"] = False
    res["reasons"] = [
        _("no layout finishes within the %(days)s-day deadline; the fastest is shown", days=f"{deadline:g}")
    ]
    res["rejected"]["over deadline"] = over_deadline
    res["deadline_days"], res["meets_deadline"] = deadline, False  # as a deadline met is recorded
    res["search"]["seconds"] = round(time.perf_counter() - started, 4)
    return res


def search(
    workload: Workload | dict[str, Any] | str,
    offering_facts: dict[str, Any],
    *,
    objective: str = "fastest",
    gpus: int | None = None,
    deadline_days: float | None = None,
    top: int = 5,
    node_counts: list[int] | None = None,
    optimizer: str | None = None,
    zero_stages: tuple[int, ...] | None = None,
) -> dict[str, Any]:
    """Search layouts and cluster sizes; return the best as a full result dict plus `search`,
    `alternatives` and `rejected`. A search with no feasible layout is still an answer."""
    started = time.perf_counter()
    if objective not in OBJECTIVES:
        raise InputError(
            "objective",
            _(
                "must be one of %(allowed)s, got %(got)s",
                allowed=", ".join(OBJECTIVES),
                got=value_text(objective),
            ),
        )
    wl = as_workload(workload)
    hw = hardware_from_facts(offering_facts)
    faults = faults_for(hw)
    check_gpus(gpus)
    check_top(top)
    check_deadline("deadline_days", deadline_days)
    hw = allow_requested_gpus(hw, gpus)
    deadline = _deadline(objective, deadline_days, wl)
    if gpus is not None:
        gpu_counts = [gpus]
    else:
        # no larger than a job the engine sizes (bounds.GPUS_MAX): an answer's layout must evaluate as given
        ladder = [n * hw.gpus_per_node for n in (node_counts or node_ladder(hw.max_nodes))]
        gpu_counts = [g for g in ladder if g <= GPUS_MAX] or [min(ladder)]
    notes = [framework_note(hw), LOSS.note(hw)]
    notes += [dispatcher_note(hw), expert_tp_note(hw)] if wl.moe is not None else []
    if optimizer is None:
        optimizer = default_optimizer(hw)
        notes.append(optimizer_note(hw))
    optimizer = checked_optimizer(optimizer, "optimizer")
    if optimizer in C.MUON_CONVENTIONS:
        notes.append(muon_note())
    space = _search_space(wl, hw, gpu_counts, optimizer, zero_stages)
    price = billable_rate(hw.facts)
    objective_of = _objective_for(objective, space, faults, price, deadline)
    # one runner-up at least, listed or not (top 0): the explanation and the node-first record compare it
    runners_up = max(top, 1)
    scan = _scan(space, objective_of, runners_up)
    picks, node_first = _picks(space, scan, objective_of, runners_up)
    if not picks and scan.feasible and objective == "cheapest-within-deadline":
        return _fastest_instead(
            wl,
            offering_facts,
            deadline,
            scan.feasible,
            started,
            gpus=gpus,
            top=top,
            node_counts=node_counts,
            optimizer=optimizer,
            zero_stages=zero_stages,
        )
    best, alts = _answer(space, faults, scan, picks, notes)
    _record_objective(best, objective_of)
    best["search"] = _search_record(scan, gpu_counts, started)
    best["alternatives"] = [_alt(a) for a in alts[:top]]
    best["rejected"] = _rejected(scan, objective)
    if picks and best["explanation"]:
        _explain_choice(best, alts, node_first, objective_of, hw)
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
    lay = best["layout"]
    inside = lay["tp"] * lay["cp"] * lay["ep"]
    head = _(
        "Chosen over the model's own best, %(raw)s (%(days)s days, MFU %(mfu)s%%), which it predicts "
        "%(gap)s%% %(what)s: less than the band within which the model cannot rank two layouts "
        "(%(max)s%%, its largest error over NVIDIA's 18 published runs of one cluster, Selene), and that "
        "layout pipelines across nodes before tensor parallelism fills the %(node)s-GPU node (against "
        "Megatron-LM's rule, Narayanan et al. 2021, takeaway #1). ",
        raw=f"{_layout_text(raw['layout'])} v={raw['layout']['virtual_stages']}",
        days=f"{raw['train_days']:.2f}",
        mfu=f"{100 * raw['mfu']:.1f}",
        gap=f"{100 * gap:.1f}",
        what=_("faster") if objective == "fastest" else _("cheaper"),
        max=f"{100 * C.CALIBRATION_MAX_ERROR:.1f}",
        node=hw.gpus_per_node,
    )
    if lay["pp"] == 1 or lay["tp"] * lay["cp"] * lay["pp"] * lay["dp"] <= hw.gpus_per_node:
        # the rule only says what not to do; a layout without a pipeline across nodes does not follow its
        # structure (TP inside the node, then PP), it just avoids what the rule warns against
        return _(
            "%(head)sThis one has no pipeline across nodes, so the rule's concern does not arise; it is not "
            "the TP-then-PP structure of the calibration runs either. The other is the first alternative.",
            head=head,
        )
    return _(
        "%(head)sThis one (%(inside)s inside the node, then PP) follows the rule, the regime of every "
        "published multi-node run the model is calibrated on (the structure whose predictions were checked); "
        "the other is the first alternative.",
        head=head,
        inside=f"{'TP' if inside == lay['tp'] else 'TP x CP x EP'}={inside}",
    )


def _alt(a: dict[str, Any]) -> dict[str, Any]:
    out = {
        "layout": a["layout"],
        "gpus": a["gpus"],
        "nodes": a["nodes"],
        "iteration_time_s": a["iteration_time_s"],
        "mfu": a["mfu"],
        "train_days": a["train_days"],
        "memory_gib_per_gpu": a["memory_gib_per_gpu"]["total"],
        # what a cost objective ranked: the GPUs billed with the spare nodes held, their GPU-hours
        "spare_nodes": a["spare_nodes"],
        "billed_gpus": a["billed_gpus"],
        "gpu_hours": a["gpu_hours"],
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


def _bill_usd(price: float | None, r: dict[str, Any]) -> float | None:
    """The layout's bill when the offering has a price, else None (cost objectives then rank GPU-hours)."""
    usd = r.get("cost", {}).get("total_usd")
    return float(usd) if price is not None and isinstance(usd, int | float) else None


def _objective_value(objective: str, price: float | None, r: dict[str, Any]) -> float:
    """The figure of an answer or alternative its objective ranked it on (_Objective): days; or the bill, else
    the GPU-hours billed, spare nodes included."""
    if objective == "fastest":
        return float(r["train_days"])
    usd = _bill_usd(price, r)
    return usd if usd is not None else float(r["gpu_hours"])


def _why_not(objective: str, price: float | None, best: dict[str, Any], alts: list[dict[str, Any]]) -> str:
    if not alts:
        return _("No other feasible layout was found.")
    a = alts[0]
    lay = a["layout"]
    diff = {k: v for k, v in lay.items() if best["layout"][k] != v}
    d = (
        joined(*(setting_text(k, v) for k, v in diff.items()), sep=_(", "))
        if diff
        else _("a different cluster size")
    )
    text = _(
        "Runner-up (%(diff)s, %(gpus)s GPUs): %(days)s days, MFU %(mfu)s%% vs %(best_days)s days, MFU "
        "%(best_mfu)s%%.",
        diff=d,
        gpus=a["gpus"],
        days=f"{a['train_days']:.2f}",
        mfu=f"{100 * a['mfu']:.1f}",
        best_days=f"{best['train_days']:.2f}",
        best_mfu=f"{100 * best['mfu']:.1f}",
    )
    # the model's largest calibration error (docs/MODEL.md): closer alternatives are not ranked by it
    gap = _gap(objective, price, a, best)
    if gap < C.CALIBRATION_MAX_ERROR:
        values = {"runner_up": text, "gap": f"{100 * gap:.1f}", "max": f"{100 * C.CALIBRATION_MAX_ERROR:.1f}"}
        if objective == "fastest":
            return _(
                "%(runner_up)s The time differs by %(gap)s%%, less than the band within which the "
                "model cannot rank two layouts (%(max)s%%, its largest error over NVIDIA's 18 published "
                "runs of one cluster, Selene).",
                **values,
            )
        if _bill_usd(price, a) is None:  # no price: the GPU-hours billed were ranked, spare nodes included
            return _(
                "%(runner_up)s The GPU-hours billed, spare nodes included (%(hours)s vs %(best_hours)s), "
                "differ by %(gap)s%%, less than the band within which the model cannot rank two layouts "
                "(%(max)s%%, its largest error over NVIDIA's 18 published runs of one cluster, Selene).",
                hours=f"{a['gpu_hours']:,.0f}",
                best_hours=f"{best['gpu_hours']:,.0f}",
                **values,
            )
        return _(
            "%(runner_up)s The cost differs by %(gap)s%%, less than the band within which the model cannot "
            "rank two layouts (%(max)s%%, its largest error over NVIDIA's 18 published runs of one cluster, "
            "Selene).",
            **values,
        )
    # one message, so a page shows it in its language (no space after "。" in Chinese)
    return _("%(runner_up)s %(loses)s", runner_up=text, loses=_runner_up_loses(objective, price, a, gap))


def _runner_up_loses(objective: str, price: float | None, runner_up: dict[str, Any], gap: float) -> str:
    """What the runner-up gives up by the objective (else a faster runner-up reads as the better pick)."""
    pct = f"{100 * gap:.1f}"
    if objective == "fastest":
        return _("It takes %(pct)s%% longer.", pct=pct)
    if _bill_usd(price, runner_up) is not None:
        return _("It costs %(pct)s%% more.", pct=pct)
    return _(
        "It takes %(pct)s%% more GPU-hours billed, spare nodes included (%(hours)s).",
        pct=pct,
        hours=f"{runner_up['gpu_hours']:,.0f}",
    )
