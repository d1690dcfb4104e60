"""Part of stage 3 (summary.py): the bandwidth figures read from a run's rows, and the sweeps of a run that
tests several data types or reduction ops.

The figures: peak busbw, busbw at the largest size (DESIGN.md section 7: the figure claims are compared
with), the sizes reports quote, placements that moved no data, mid-sweep collapses.

nccl-tests prints one size sweep per data type and reduction op it was asked for, one after the other with
nothing between them but the `type` or `redop` column changing: `-d all` / `-o all` run `for type: for op:
TimeTest`, and TimeTest repeats its sweep `-N` times (NVIDIA/nccl-tests a0b82b2, src/all_reduce.cu
AllReduceRunTest, src/common.cu TimeTest). The assembler counts every restart of the sizes as a `-N` cycle;
a run whose rows hold several (type, op) pairs is read here per pair instead (`type_sweeps`): each pair's own
figures, its `-N` cycles counted within it, and the run's figures taken from one pair (HEADLINE_TYPES), since
a median over types (int8 390 GB/s, float 487 GB/s on one H200 pair of nodes) matches no row.
"""

from __future__ import annotations

from dataclasses import dataclass
from operator import attrgetter
from typing import Any

from hardware.messages import Msg, _, listed

from ..text import median
from .assembly import Run
from .reading import Row

REFERENCE_SIZES = (("1GiB", 1 << 30), ("8GiB", 8 << 30), ("16GiB", 16 << 30))


# Half the last printed digit of algbw and busbw (`%7.2f` in nccl-tests' common.cu): the true figures lie
# within this of the printed ones.
HALF_CENT = 0.005


RANKS_FITTED = "command line -np x -g (fits the busbw/algbw ratio)"
# The busbw/algbw family of each collective: 2(n-1)/n, or (n-1)/n (the scatter-or-gather guess included).
RATIO_FAMILIES = {"all_reduce": "all_reduce"} | dict.fromkeys(
    ("all_gather", "reduce_scatter", "alltoall", "alltoallv", "gather", "scatter", "scatter_or_gather"),
    "gather-family",
)


def command_line_ranks(run: Run, family: str) -> int | None:
    """The ranks a launcher line gives (`mpirun -np N ... -g G`, times the header's nThread), when the rows'
    busbw/algbw fits that count within the rounding of their printed two-decimal figures: below ~1 GB/s the
    ratio's median rounds to a neighbouring count (0.22 / 0.24 reads 12 ranks for the 16 of `-np 16 -g 1`).
    None without both -np and -g (or nThread), for a ratio family that does not tell the ranks, or when the
    count does not fit: then the ratio's count stands."""
    if not run.np_arg or not (run.gpus_arg or run.header.get("nThread")):
        return None
    ranks = (run.gpus_arg or 1) * (run.header.get("nThread") or 1) * run.np_arg
    factor = {"all_reduce": 2 * (ranks - 1) / ranks, "gather-family": (ranks - 1) / ranks}.get(family)
    if ranks < 2 or factor is None:
        return None
    fitted = False
    for row in run.rows:
        for m in (row.oop, row.ip):
            if m is None or m.algbw is None or m.busbw is None or m.algbw <= HALF_CENT:
                continue
            low = (m.busbw - HALF_CENT) / (m.algbw + HALF_CENT)
            high = (m.busbw + HALF_CENT) / (m.algbw - HALF_CENT)
            if not low - 1e-9 <= factor <= high + 1e-9:
                return None
            fitted = True
    return ranks if fitted else None


# ---- the figures of a list of rows -----------------------------------------------------------


def rows_at_max_size(rows: list[Row]) -> list[Row]:
    max_size = max((r.size for r in rows), default=None)
    return [r for r in rows if r.size == max_size] if rows else []


def _reference_sizes(rows: list[Row]) -> dict[str, float | None]:
    """Out-of-place busbw at 1, 8 and 16 GiB, the sizes reports quote."""
    reference = {}
    for label, size in REFERENCE_SIZES:
        matches = [r for r in rows if r.size == size and r.oop and r.oop.busbw is not None]
        if matches:
            reference[label] = matches[-1].oop.busbw if matches[-1].oop else None
    return reference


# A placement moves data when its time grows with size; one whose time stays within this factor from
# the smallest to a >= 64 MiB, >= 1024x larger size did not move the data (a one-rank in-place reduce:
# NCCL has nothing to copy, 0.19 us at every size, busbw 5.7 PB/s).
NOOP_TIME_FACTOR = 2.0
NOOP_MIN_SPAN = 1024
NOOP_MIN_BYTES = 64 << 20


def noop_placements(rows: list[Row]) -> list[tuple[str, float, float, int, int]]:
    """(placement, time at the smallest size, time at the largest, smallest, largest size) for each
    placement whose time does not grow with the size."""
    sized = [r for r in rows if r.size > 0]
    if not sized:
        return []
    small, big = min(sized, key=lambda r: r.size), max(sized, key=lambda r: r.size)
    if big.size < NOOP_MIN_BYTES or big.size < NOOP_MIN_SPAN * small.size:
        return []
    flat = []
    for name in ("out-of-place", "in-place"):
        first, last = (small.oop, big.oop) if name == "out-of-place" else (small.ip, big.ip)
        if (
            first
            and last
            and first.time_us
            and last.time_us
            and last.time_us <= NOOP_TIME_FACTOR * first.time_us
        ):
            flat.append((name, first.time_us, last.time_us, small.size, big.size))
    return flat


# nccl-tests' own tolerance on the old `error` column (the max relative error of a measurement), by data type:
# src/common.cu DeltaMaxValue in the releases that printed that column (2017-2022; half 1e-2, 5e-2 in some
# forks: the larger is taken, bfloat16 1e-2, float 1e-5, double 1e-12, integers exact). `1e-06` on a float
# sum is rounding; `1e+00` is every element wrong. The tool did not always count the latter: an in-place
# alltoall, which it did not support, printed 1e+00 with "Out of bounds values : 0 OK" (nccl-tests issue
# #78), so the footer stays the run's verdict and only the figures leave such a placement out.
ERROR_TOLERANCE = {"half": 5e-2, "bfloat16": 1e-2, "float": 1e-5, "double": 1e-12} | dict.fromkeys(
    ("int8", "uint8", "int32", "uint32", "int64", "uint64", "int", "char"), 0.0
)


def out_of_tolerance(rows: list[Row]) -> dict[str, list[int]]:
    """For a table with the old `error` column: each placement's lines whose error exceeds the tool's own
    tolerance for the row's data type (ERROR_TOLERANCE); a type not in the table is not judged."""
    beyond: dict[str, list[int]] = {}
    for row in rows:
        tolerance = ERROR_TOLERANCE.get(row.dtype.lower())
        for name, m in (("out-of-place", row.oop), ("in-place", row.ip)):
            error = m.wrong_value if m is not None and m.checked else None
            if tolerance is not None and error is not None and error > tolerance:
                beyond.setdefault(name, []).append(row.line)
    return beyond


def wholly_out_of_tolerance(rows: list[Row]) -> tuple[list[str], bool]:
    """(the placements to leave out of the figures, whether every checked measurement is wrong). A
    placement all of whose checked measurements are out of tolerance delivered no correct data, so its
    busbw is no measurement of the fabric (an in-place alltoall at 0.2 us and 300 TB/s, every element
    wrong: microsoft/msccl issue #48); when every placement is so, none is left out and the run says it."""
    beyond = out_of_tolerance(rows)
    checked = {
        name: sum(1 for r in rows if (m := r.oop if name == "out-of-place" else r.ip) and m.checked)
        for name in ("out-of-place", "in-place")
    }
    wrong = [name for name, lines in beyond.items() if len(lines) == checked[name]]
    every = bool(wrong) and all(name in wrong for name, count in checked.items() if count)
    return ([] if every else wrong), every


def out_of_tolerance_reason(rows: list[Row]) -> str:
    """Why a run without a footer failed: every measurement beyond the tool's tolerance."""
    return _(
        "old `error` column: every measurement's max relative error is above nccl-tests' own tolerance for "
        "%(type)s (first at line %(line)s): no row delivered correct data",
        type=rows[0].dtype,
        line=rows[0].line,
    )


def left_out_warnings(flat: list[tuple[str, float, float, int, int]], dropped: list[str]) -> list[Msg]:
    """The placements whose busbw the figures leave out: no data moved (noop_placements), or every
    measurement out of tolerance (wholly_out_of_tolerance)."""
    return [
        _(
            "%(placement)s time stays at %(first)s-%(last)s us from %(small)s B to %(big)s B: no data "
            "moved (one rank has nothing to copy in place), its busbw is left out of the figures",
            placement=name,
            first=first,
            last=last,
            small=small,
            big=big,
        )
        for name, first, last, small, big in flat
    ] + [
        _(
            "%(placement)s: every measurement out of tolerance, its busbw is left out of the figures",
            placement=name,
        )
        for name in dropped
    ]


def _kept_busbw(row: Row, ignored: frozenset[str]) -> list[float]:
    kept = [("out-of-place", row.oop), ("in-place", row.ip)]
    return [m.busbw for name, m in kept if m is not None and m.busbw is not None and name not in ignored]


def bandwidth_fields(rows: list[Row], ignored: frozenset[str] = frozenset()) -> dict[str, Any]:
    """Peak busbw, busbw at the largest size (out-of-place first) and the size range; placements in
    `ignored` (no data moved) are left out."""
    at_max = rows_at_max_size(rows)
    oop_at_max = [r.oop.busbw for r in at_max if r.oop and r.oop.busbw is not None]
    ip_at_max = [r.ip.busbw for r in at_max if r.ip and r.ip.busbw is not None]
    if "out-of-place" in ignored:
        oop_at_max = []
    if "in-place" in ignored:
        ip_at_max = []
    peak_row = max(rows, key=lambda r: max(_kept_busbw(r, ignored), default=-1.0)) if rows else None
    peak = max(_kept_busbw(peak_row, ignored), default=None) if peak_row else None
    return {
        "peak_busbw_gbps": peak,
        "peak_busbw_size_bytes": peak_row.size if peak_row and peak is not None else None,
        "busbw_at_max_size_gbps": median(oop_at_max) if oop_at_max else median(ip_at_max),
        "busbw_at_max_size_oop_gbps": median(oop_at_max) if oop_at_max else None,
        "busbw_at_max_size_ip_gbps": median(ip_at_max) if ip_at_max else None,
        "busbw_at_reference_sizes_gbps": _reference_sizes(rows),
        "max_size_bytes": max((r.size for r in rows), default=None),
        "min_size_bytes": min((r.size for r in rows), default=None),
        "noop_placements": sorted(ignored),
    }


def busbw_per_cycle(rows: list[Row], repeats: int) -> list[float]:
    """busbw at the largest size in each `-N` cycle (out-of-place when printed), when the sweep was
    repeated (`repeats`: the cycles after the first)."""
    cycle_values: list[float] = []
    if repeats and rows:
        for row in rows_at_max_size(rows):
            vals = [row.oop.busbw] if row.oop and row.oop.busbw is not None else row.busbw_values()
            cycle_values.extend(vals[:1])
    return cycle_values


# Sizes below this are latency-bound: their bandwidth is noisy and never a collapse.
COLLAPSE_MIN_BYTES = 1 << 20
COLLAPSE_FACTOR = 0.5
RECOVERY_FACTOR = 0.8


def bandwidth_collapses(run: Run, by_type: bool = True) -> list[dict[str, Any]]:
    """Rows (>= 1 MiB) whose bus bandwidth falls below half the best of the smaller sizes of the same
    sweep, with at least one larger size after it (a dip in the middle, not the end of the sweep). A sweep
    is one data type and op in one `-N` cycle: another type's sizes restart and are never compared
    (`by_type`: the run may hold several; without, the cycle alone tells the sweeps apart)."""
    found: list[dict[str, Any]] = []
    by_sweep: dict[object, list[tuple[Row, float]]] = {}
    for row in run.rows:
        values = row.busbw_values()
        if row.size >= COLLAPSE_MIN_BYTES and values:
            key = (row.dtype, row.redop, row.cycle) if by_type else row.cycle
            by_sweep.setdefault(key, []).append((row, values[0]))
    for rows in by_sweep.values():
        # Best busbw after each row, computed once (linear in the rows, whatever their number).
        best_after = [0.0] * len(rows)
        for i in range(len(rows) - 2, -1, -1):
            best_after[i] = max(best_after[i + 1], rows[i + 1][1])
        best = 0.0
        for i, (row, busbw) in enumerate(rows):
            if best > 0 and busbw < COLLAPSE_FACTOR * best and i < len(rows) - 1:
                found.append(
                    {
                        "size_bytes": row.size,
                        "line": row.line,
                        "busbw_gbps": busbw,
                        "before_gbps": best,
                        "recovered": best_after[i] >= RECOVERY_FACTOR * best,
                    }
                )
                break  # one per sweep: the first fall is the finding
            best = max(best, busbw)
    return found


# ---- a run that sweeps several data types or reduction ops -----------------------------------

# The data type whose figures stand for a run of several, in order of preference. float first: it is the
# type nccl-tests runs when none is asked for (`-d float`), so its figure compares with every other run and
# with the published results the busbw efficiencies are calibrated on (hardware/links.py
# NVSWITCH_BUSBW_EFFICIENCY, cal §5), and it is the widest training type, the one the sizing model reduces
# gradients in unless told otherwise (fp32 main gradients, sizing/engine/overlap.py reduces_grads_in_fp32).
# Then the 2-byte training types (bf16 gradient reduction, `--grad-reduce-in-bf16`), then double. Integer
# and fp8 types come last, in log order: their reduction costs more per byte (int8 390 against float 487
# GB/s at 40 GiB on the same two H200 nodes), which says nothing about the links.
HEADLINE_TYPES = ("float", "bfloat16", "half", "double")
# The reduction op likewise: sum is nccl-tests' default (`-o sum`) and the gradient reduction; `none` or no
# column for the collectives that reduce nothing.
HEADLINE_OPS = ("sum", "none", None)


@dataclass
class Sweep:
    """The rows of one data type and reduction op of a run, in log order, with each row's `-N` cycle
    counted among that type and op's rows alone."""

    data_type: str
    redop: str | None
    rows: list[Row]
    cycles: list[int]

    @property
    def label(self) -> str:
        return self.data_type if self.redop in HEADLINE_OPS else f"{self.data_type} {self.redop}"


@dataclass
class TypeSweeps:
    """The sweeps of a run of several data types or ops, in order of first appearance, the one whose
    figures stand for the run, and each row's `-N` cycle within its sweep (in the run's row order)."""

    sweeps: list[Sweep]
    headline: Sweep
    row_cycles: list[int]


# (data type, reduction op) of a row, read in C over a run's rows.
_TYPE_AND_OP = attrgetter("dtype", "redop")


def type_sweeps(rows: list[Row]) -> TypeSweeps | None:
    """The run's rows per (data type, reduction op); None for a run of one type and op (read as before)."""
    if len(set(map(_TYPE_AND_OP, rows))) < 2:
        return None
    by_key: dict[tuple[str, str | None], Sweep] = {}
    row_cycles = []
    for row in rows:
        sweep = by_key.get((row.dtype, row.redop))
        if sweep is None:
            sweep = by_key[(row.dtype, row.redop)] = Sweep(row.dtype, row.redop, [], [])
            cycle = 0
        else:  # the sizes of this type and op restart: `-N` repeats it
            cycle = sweep.cycles[-1] + (row.size < sweep.rows[-1].size)
        sweep.rows.append(row)
        sweep.cycles.append(cycle)
        row_cycles.append(cycle)
    sweeps = list(by_key.values())
    return TypeSweeps(sweeps, min(sweeps, key=_headline_rank), row_cycles)


def _headline_rank(sweep: Sweep) -> tuple[int, int]:
    """HEADLINE_TYPES, then HEADLINE_OPS order; the rest rank last (min keeps the first in log order)."""
    type_rank = (
        HEADLINE_TYPES.index(sweep.data_type) if sweep.data_type in HEADLINE_TYPES else len(HEADLINE_TYPES)
    )
    return type_rank, 0 if sweep.redop in HEADLINE_OPS else 1


def sweep_entries(typed: TypeSweeps) -> list[dict[str, Any]]:
    """The `data_type_sweeps` entries of a run: each type and op's own figures, the headline marked."""
    entries = []
    for sweep in typed.sweeps:
        ignored = frozenset(name for name, *_rest in noop_placements(sweep.rows))
        fields = bandwidth_fields(sweep.rows, ignored)
        entries.append(
            {
                "data_type": sweep.data_type,
                "redop": sweep.redop,
                "headline": sweep is typed.headline,
                "first_line": sweep.rows[0].line,
                "rows": len(sweep.rows),
                "cycles": sweep.cycles[-1] + 1,
                **{key: fields[key] for key in SWEEP_FIGURES},
            }
        )
    return entries


SWEEP_FIGURES = (
    "peak_busbw_gbps",
    "peak_busbw_size_bytes",
    "busbw_at_max_size_gbps",
    "busbw_at_max_size_oop_gbps",
    "busbw_at_max_size_ip_gbps",
    "max_size_bytes",
)


def type_sweeps_warning(typed: TypeSweeps | None) -> str | None:
    if typed is None:
        return None
    return _(
        "the run sweeps %(count)s data types or reduction ops one after the other (%(sweeps)s): its figures "
        "are those of %(headline)s (float first, the type nccl-tests runs by default, then bfloat16, half, "
        "double); each one's are in data_type_sweeps, and Avg bus bandwidth averages them all",
        count=len(typed.sweeps),
        sweeps=listed(sweep.label for sweep in typed.sweeps[:16]),
        headline=typed.headline.label,
    )
