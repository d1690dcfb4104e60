"""Stage 3 of the nccl-tests parser: an assembled run becomes one `runs` entry (DESIGN.md section 7).

What the log does not say outright (the rank count, the node count, the collective) is inferred here,
and every inference names its source (`ranks_source`, `nodes_source`, `collective_source`).
"""

from __future__ import annotations

from dataclasses import dataclass
from operator import itemgetter
from typing import Any

from hardware import gpu_from_text
from hardware.messages import _, joined, listed, ngettext

from ..result import ParseResult
from ..text import median
from .assembly import Run
from .blocks import Ranks
from .figures import (
    RANKS_FITTED,
    RATIO_FAMILIES,
    TypeSweeps,
    bandwidth_collapses,
    bandwidth_fields,
    busbw_per_cycle,
    command_line_ranks,
    left_out_warnings,
    noop_placements,
    out_of_tolerance_reason,
    sweep_entries,
    type_sweeps,
    type_sweeps_warning,
    wholly_out_of_tolerance,
)
from .listing import (
    BLOCK_LAYOUT_SOURCE,
    block_layout,
    listing_complete,
    listing_nodes_warning,
    one_rank_jobs_warning,
    partial_rank_listing_warning,
)
from .reading import MSCCLPP_TEST, Row, ring_forced

REDUCTION_OPS = {"sum", "prod", "max", "min", "avg", "mulsum", "premulsum"}
# What a run of (n-1)/n with a root is called when the log does not name it: nccl-tests prints a root (>= 0)
# only for the rooted tests (broadcast, reduce, scatter, gather: every other test passes -1), and scatter and
# gather print the same size, count and busbw factor (src/scatter.cu, src/gather.cu ScatterGetBw/GatherGetBw).
SCATTER_OR_GATHER = "scatter_or_gather"
# Fields of Run.ranks' values (host, device, GPU name, bus id), read in C over a run's hundreds of ranks.
_HOST, _NAME, _BUS, _HOST_AND_BUS = itemgetter(0), itemgetter(2), itemgetter(3), itemgetter(0, 3)
_HOST_DEVICE_AND_BUS = itemgetter(0, 1, 3)


# ---- the busbw/algbw ratio and what it tells -------------------------------------------------


def _ratio(rows: list[Row]) -> float | None:
    """Median busbw/algbw over rows large enough for two-decimal rounding not to matter."""
    for floor in (5.0, 1.0, 0.1):
        ratios = []
        for row in rows:
            for m in (row.oop, row.ip):
                if m is not None and m.algbw is not None and m.busbw is not None and m.algbw >= floor:
                    ratios.append(m.busbw / m.algbw)
        if ratios:
            return median(ratios)
    return None


def _ranks_from_ratio(ratio: float) -> tuple[str, int | None]:
    if abs(ratio - 1.0) < 0.01:
        return "one", None
    if 1.0 < ratio < 1.999:
        return "all_reduce", round(2.0 / (2.0 - ratio))
    if 0.0 < ratio < 0.99:
        return "gather-family", round(1.0 / (1.0 - ratio))
    if ratio <= 0.0:
        return "zero", 1
    return "unknown", None


def _family_for(ratio: float, n: int) -> str:
    expected = {"all_reduce": 2 * (n - 1) / n, "gather-family": (n - 1) / n, "one": 1.0}
    if n == 1:
        return "zero"
    if n == 2 and abs(ratio - 1.0) < 0.02:
        return "one"  # 2(n-1)/n is 1 on two ranks: let the column clues decide
    return min(expected, key=lambda k: abs(expected[k] - ratio))


def _inferred_collective(
    run: Run, ratio: float | None, n: int | None
) -> tuple[str | None, str | None, tuple[str, ...] | None]:
    """The collective the ratio busbw/algbw and the table's columns point to, why, and the collectives the
    figures fit equally when the clues do not tell them apart (None when one is told)."""
    if ratio is None:
        return None, None, None
    family = _family_for(ratio, n) if n else _ranks_from_ratio(ratio)[0]
    redops = {r.redop for r in run.rows}
    roots = {r.root for r in run.rows if r.root is not None}
    reduction = bool(redops & REDUCTION_OPS)
    layout = run.layout
    # Only an in-place block that is there can be unchecked: a header of one block (a table its author cut
    # to the out-of-place half) says nothing of it. A row of one block under a header of two (mscclpp-test's
    # padding for an out-of-place-only test) is an in-place block left out by the tool.
    ip_block = (layout is not None and layout.groups == 2) or any(r.ip is not None for r in run.rows)
    ip_unchecked = (
        ip_block
        and any(r.oop and r.oop.checked for r in run.rows)
        and all(r.ip is None or not r.ip.checked for r in run.rows)
    )
    if family == "all_reduce":
        return "all_reduce", _("busbw/algbw ratio 2(n-1)/n"), None
    if family == "gather-family":
        if reduction:
            return "reduce_scatter", _("busbw/algbw ratio (n-1)/n with a reduction op"), None
        if any(r >= 0 for r in roots):
            why = _("busbw/algbw ratio (n-1)/n with a root: scatter or gather, not all_gather")
            return SCATTER_OR_GATHER, why, None
        if ip_unchecked:
            return "alltoall", _("busbw/algbw ratio (n-1)/n, in-place unchecked"), None
        if layout and layout.has_redop and redops <= {None}:
            return "alltoall", _("busbw/algbw ratio (n-1)/n, blank redop (2021 alltoall header)"), None
        if layout and layout.has_redop is False:
            why = _("busbw/algbw ratio (n-1)/n, no redop column (2021 all_gather header)")
            return "all_gather", why, None
        why = _("busbw/algbw ratio (n-1)/n (all_gather or alltoall: ambiguous)")
        return "all_gather", why, ("all_gather", "alltoall")
    if family == "one":
        if any(r >= 0 for r in roots):
            if reduction:
                return "reduce", _("busbw/algbw ratio 1 with a root and a reduction op"), None
            return "broadcast", _("busbw/algbw ratio 1 with a root"), None
        if ip_unchecked:
            return "sendrecv", _("busbw/algbw ratio 1, in-place unchecked"), None
        if n == 2:
            why = _("busbw/algbw ratio 1 on 2 ranks (all_reduce or sendrecv: ambiguous)")
            return "all_reduce", why, ("all_reduce", "sendrecv")
        why = _("busbw/algbw ratio 1 (sendrecv, broadcast or reduce: ambiguous)")
        return "sendrecv", why, ("sendrecv", "broadcast", "reduce")
    return None, None, None


def _collective(
    run: Run, ratio: float | None, ranks: int | None
) -> tuple[str | None, str | None, str | None, list[str] | None]:
    """The collective, where it was read or how it was inferred, a warning when inferred, and the
    collectives an inference could not tell apart (`collective_candidates`)."""
    if run.collective is not None:
        return run.collective, run.collective_source, None, None
    guess, why, candidates = _inferred_collective(run, ratio, ranks)
    source = f"inferred: {why}" if why else None
    warning = _("collective not named in the log; %(why)s", why=why) if guess else None
    return guess, source, warning, (list(candidates) if candidates else None)


# ---- how many ranks and nodes ----------------------------------------------------------------


@dataclass
class _Scale:
    """How many ranks and nodes a run used, and where each number comes from."""

    ranks: int | None
    ranks_source: str | None
    nodes: int | None
    nodes_source: str | None
    hosts: list[str]
    gpu_names: list[str]
    # the distinct GPUs of a complete rank listing (_shared_gpus), when ranks share one
    gpus: int | None = None

    @property
    def gpus_per_node(self) -> int | None:
        gpus, nodes = self.gpus or self.ranks, self.nodes
        return gpus // nodes if gpus and nodes and gpus % nodes == 0 else None


def _rank_count(run: Run, ratio: float | None) -> tuple[int | None, str | None]:
    """Ranks from the best source the log offers, in order of trust."""
    if run.ranks:
        return max(run.ranks) + 1, "rank-lines"
    if run.world_size_hint:
        return run.world_size_hint, "wrapper world_size"
    family, ratio_ranks = _ranks_from_ratio(ratio) if ratio is not None else (None, None)
    if ratio_ranks:
        told = command_line_ranks(run, family) if family else None
        if told is not None and told != ratio_ranks:
            return told, RANKS_FITTED
        return ratio_ranks, "busbw/algbw ratio"
    if run.gpus_arg:
        threads = run.header.get("nThread", 1) or 1
        return run.gpus_arg * threads * (run.np_arg or 1), "command line -g"
    rows = run.rows
    if rows and all(b == 0 for r in rows for b in r.busbw_values()):
        if any(m.algbw for r in rows for m in (r.oop, r.ip) if m is not None and m.algbw):
            return 1, "busbw is 0 everywhere"
    return None, None


def _hosts(ranks: Ranks) -> list[str]:
    """Host names in rank order, each once."""
    return list(dict.fromkeys(map(_HOST, map(ranks.__getitem__, sorted(ranks)))))


def _node_count(
    run: Run, hosts: list[str], complete: bool, ranks: tuple[int | None, str | None]
) -> tuple[int | None, str | None]:
    """Nodes from the best source the log offers, in order of trust. The hosts of an incomplete listing
    (rank ids missing: filtered, or cut by a `...`) are not the node count, 2 hosts shown of a 16-node
    listing: the one block layout that fits the lines shown is taken (listing.block_layout), or none."""
    total, ranks_source = ranks
    if hosts and complete:
        return len(hosts), "rank-lines"
    if run.nodes_hint:
        return run.nodes_hint, run.nodes_source
    per_node = block_layout(run.ranks, total) if hosts and total else None
    if per_node is not None and total:
        return total // per_node, BLOCK_LAYOUT_SOURCE
    if ranks_source == "command line -g" and not run.np_arg:
        return 1, "single process (-g, no launcher)"
    return None, None


@dataclass(frozen=True)
class _RankFacts:
    """What the summary reads from a run's ranks: hosts in rank order, GPU names, whether the listing is
    complete, and the GPUs behind it when ranks share them (_shared_gpus)."""

    hosts: tuple[str, ...]
    gpu_names: tuple[str, ...]
    complete: bool
    gpus: int | None


def _facts_of(ranks: Ranks) -> _RankFacts:
    names = set(map(_NAME, ranks.values()))
    names.discard("")
    return _RankFacts(
        tuple(_hosts(ranks)), tuple(sorted(names)), listing_complete(ranks), _shared_gpus(ranks)
    )


# The facts of the last rank tables shared by runs (Run.rank_table), by the table's id; the table is kept
# with them, so its id is not reused while it is here.
_FACTS: dict[int, tuple[Ranks, _RankFacts]] = {}


def _rank_facts(run: Run) -> _RankFacts:
    """_facts_of(run.ranks), read once per shared rank table: the runs of a job's tests hold the same ranks
    (~20 us a run of 80 ranks). Only when the run's ranks are that table's (a dict comparison, its values
    being the same objects)."""
    table = run.rank_table
    if table is None or run.ranks != table:
        return _facts_of(run.ranks)
    entry = _FACTS.get(id(table))
    if entry is not None and entry[0] is table:
        return entry[1]
    facts = _facts_of(table)
    if len(_FACTS) >= 16:
        _FACTS.clear()
    _FACTS[id(table)] = (table, facts)
    return facts


def _scale(run: Run, ratio: float | None) -> _Scale:
    ranks, ranks_source = _rank_count(run, ratio)
    facts = _rank_facts(run)
    hosts = list(facts.hosts)
    nodes, nodes_source = _node_count(run, hosts, facts.complete, (ranks, ranks_source))
    return _Scale(ranks, ranks_source, nodes, nodes_source, hosts, list(facts.gpu_names), facts.gpus)


def _shared_gpus(ranks: Ranks) -> int | None:
    """The GPUs behind a complete rank listing when fewer than its ranks: each Rank line names its host and
    the GPU's PCI bus id (`device 0 [0000:19:00]`; the device index alone is per process, so two ranks on
    one host may both print device 0 for two GPUs). None when every rank has a GPU of its own.

    Before nccl-tests b4300cc (2025-02, benchlogs/FORMATS.md 1.5) the id is the bus number only
    (`[0x%02x]` of pciBusID). On a VM whose GPUs differ by PCI domain alone (Azure ND: nvidia-smi lists
    0000000N:00:00.0) every rank prints `[0x00]`, so a bus number is told apart by the device index too:
    ranks share a GPU there only when they print the same host, device index and bus. The full id
    (`[domain:bus:dev]`) names one GPU per host whatever index a process gives it, so it is enough alone."""
    if not listing_complete(ranks) or not all(buses := set(map(_BUS, ranks.values()))):
        return None
    key = _HOST_AND_BUS if all(":" in bus for bus in buses) else _HOST_DEVICE_AND_BUS
    gpus = len(set(map(key, ranks.values())))
    return gpus if gpus < len(ranks) else None


def _shared_gpu_warning(scale: _Scale) -> str | None:
    if scale.gpus is None:
        return None
    return ngettext(
        "%(ranks)s ranks ran on %(gpus)s GPU (Rank lines name the same host and bus id): ranks sharing a "
        "GPU measure far less than one rank per GPU, so this is not a measure of the cluster",
        "%(ranks)s ranks ran on %(gpus)s GPUs (Rank lines name the same host and bus id): ranks sharing a "
        "GPU measure far less than one rank per GPU, so this is not a measure of the cluster",
        scale.gpus,
        ranks=scale.ranks,
        gpus=scale.gpus,
    )


# ---- checks on the numbers -------------------------------------------------------------------


def _ratio_mismatch(ratio: float | None, ranks: int | None, collective: str | None) -> str | None:
    """Sanity check n against the ratio for the named collective (FORMATS.md 1.6 item 11)."""
    if ratio is None or not ranks or ranks <= 1 or not collective:
        return None
    if _old_gather_definition(ratio, collective):
        return None  # the pre-2020 definition: busbw is still comparable (FORMATS.md 1, history)
    factor = {
        "all_reduce": 2 * (ranks - 1) / ranks,
        "all_gather": (ranks - 1) / ranks,
        "reduce_scatter": (ranks - 1) / ranks,
        "alltoall": (ranks - 1) / ranks,
        "alltoallv": (ranks - 1) / ranks,
        "gather": (ranks - 1) / ranks,
        "scatter": (ranks - 1) / ranks,
        SCATTER_OR_GATHER: (ranks - 1) / ranks,
        "sendrecv": 1.0,
        "broadcast": 1.0,
        "reduce": 1.0,
        "hypercube": 1.0,
    }.get(collective)
    if factor and abs(ratio - factor) / factor > 0.02:
        return _(
            "busbw/algbw = %(ratio)s but %(collective)s on %(ranks)s ranks should give %(factor)s",
            ratio=f"{ratio:.4f}",
            collective=collective,
            ranks=ranks,
            factor=f"{factor:.4f}",
        )
    return None


def _old_gather_definition(ratio: float | None, collective: str | None) -> bool:
    """all_gather / reduce_scatter from nccl-tests before 2020-06 (ec1b5e2): busbw = algbw, and algbw is
    count x typesize x (n-1) / time, so busbw is numerically the same as today's."""
    return collective in ("all_gather", "reduce_scatter") and ratio is not None and abs(ratio - 1.0) < 0.02


def _algbw_mismatch(rows: list[Row], scale_factor: float = 1.0) -> str | None:
    """algbw is size/time by definition (x `scale_factor` for the old all_gather definition); a row
    where it is not was misread or mangled."""
    bad_algbw = 0
    for row in rows:
        for m in (row.oop, row.ip):
            if m is None or not m.time_us or not m.algbw or m.algbw < 1.0 or m.time_us < 10:
                continue
            expected = row.size / m.time_us / 1e3 * scale_factor
            if abs(expected - m.algbw) / m.algbw > 0.03 and "e" not in f"{m.time_us}":
                bad_algbw += 1
    return (
        ngettext(
            "%(count)s measurement where algbw != size/time within 3%%",
            "%(count)s measurements where algbw != size/time within 3%%",
            bad_algbw,
            count=bad_algbw,
        )
        if bad_algbw
        else None
    )


def _nonzero_wrong_lines(rows: list[Row]) -> list[int]:
    """Lines of checked measurements with a non-zero #wrong (or old `error`) value, one per measurement."""
    # `0` (most measurements) is checked and zero: no property call for it.
    return [
        r.line
        for r in rows
        for m in (r.oop, r.ip)
        if m is not None and m.wrong != "0" and m.checked and (m.wrong_value or 0) > 0
    ]


def _error_column(run: Run) -> bool:
    return bool(run.layout and run.layout.error_column)


def _failure_reasons(run: Run) -> list[str]:
    """Why the run counts as failed; empty when it did not fail."""
    reasons: list[str] = []
    if run.failures:
        reasons.append(run.failures[0])
    wrong_lines = [] if _error_column(run) else _nonzero_wrong_lines(run.rows)
    if wrong_lines:
        reasons.append(
            ngettext(
                "non-zero #wrong on %(count)s measurement, first at line %(line)s",
                "non-zero #wrong on %(count)s measurements, first at line %(line)s",
                len(wrong_lines),
                count=len(wrong_lines),
                line=wrong_lines[0],
            )
        )
    if _error_column(run) and run.oob is None and wholly_out_of_tolerance(run.rows)[1]:
        reasons.append(out_of_tolerance_reason(run.rows))
    if run.oob:
        reasons.append(_("Out of bounds values: %(count)s", count=run.oob))
    elif run.oob_flag == "FAILED":
        reasons.append(_("Out of bounds values FAILED"))
    if run.avg_flag == "FAILED":
        reasons.append(_("Avg bus bandwidth FAILED (below NCCL_TESTS_MIN_BW)"))
    if not run.rows and not run.failures and not run.unread_rows:
        reasons.append(_("test header without result rows (aborted or cut before the table)"))
    return reasons


def _error_column_warning(run: Run) -> str | None:
    error_lines = _nonzero_wrong_lines(run.rows) if _error_column(run) else []
    if not error_lines or run.oob == 0:
        # `1e-06`-style relative errors within the tool's own tolerance (Out of bounds 0) are rounding.
        return None
    return ngettext(
        "old `error` column: non-zero max relative error on %(count)s measurement (first at line %(line)s); "
        "counts as a failure only with Out of bounds > 0",
        "old `error` column: non-zero max relative error on %(count)s measurements (first at line "
        "%(line)s); counts as a failure only with Out of bounds > 0",
        len(error_lines),
        count=len(error_lines),
        line=error_lines[0],
    )


def _is_truncated(run: Run) -> bool:
    return bool(run.rows) and run.avg is None and run.oob is None


SWEEP_CUT_FACTOR = 16


def _sweep_cut(run: Run) -> tuple[int, int] | None:
    """(smallest size shown, the header's minBytes) when the table starts well above the sweep the header
    asked for: rows were cut from the log (a publisher keeping the largest sizes), so the footer's Avg bus
    bandwidth, an average over every size run, is not an average of the rows shown."""
    asked = run.header.get("minBytes")
    sizes = [r.size for r in run.rows if r.size > 0]
    if not isinstance(asked, int) or asked <= 0 or not sizes:
        return None
    first = min(sizes)
    # nccl-tests rounds each size up to a whole number of elements per rank (at most 72 ranks x 8 bytes), so
    # only a first row far above max(minBytes, 4 KiB) is a cut, never that rounding
    return (first, asked) if first >= SWEEP_CUT_FACTOR * max(asked, 4096) else None


def _table_warnings(run: Run, collapses: list[dict[str, Any]]) -> list[str]:
    """What is missing from or odd about the table: no footer, reduced sizes, split rows, cut rows."""
    warnings: list[str] = []
    if _is_truncated(run):
        warnings.append(_("no footer (Out of bounds / Avg bus bandwidth): log cut or run killed"))
    cut = _sweep_cut(run)
    if cut is not None:
        warnings.append(
            _(
                "the table starts at %(first)s B but the run swept from minBytes %(asked)s B: rows were cut "
                "from the log, so Avg bus bandwidth (over every size run) does not describe the rows shown",
                first=cut[0],
                asked=cut[1],
            )
        )
    if run.reduced_max_bytes:
        warnings.append(
            _("maxBytes reduced to %(bytes)s for lack of GPU memory", bytes=run.reduced_max_bytes)
        )
    if run.unread_rows and not run.rows:
        warnings.append(
            ngettext(
                "%(count)s table line (first at line %(line)s) does not fit the columns of the header above "
                "it and was not read: the run's figures are unknown, not a failure",
                "%(count)s table lines (first at line %(line)s) do not fit the columns of the header above "
                "them and were not read: the run's figures are unknown, not a failure",
                run.unread_rows,
                count=run.unread_rows,
                line=run.unread_row_line,
            )
        )
    if run.skipped_fragments:
        warnings.append(
            ngettext(
                "%(count)s split row fragment skipped (first at line %(line)s)",
                "%(count)s split row fragments skipped (first at line %(line)s)",
                len(run.skipped_fragments),
                count=len(run.skipped_fragments),
                line=run.skipped_fragments[0],
            )
        )
    for collapse in collapses[:3]:
        values = {k: collapse[k] for k in ("size_bytes", "line", "busbw_gbps", "before_gbps")}
        warnings.append(
            _(
                "bus bandwidth collapses mid-sweep at %(size_bytes)s B (line %(line)s): "
                "%(busbw_gbps)s GB/s after %(before_gbps)s GB/s at smaller sizes, then recovers",
                **values,
            )
            if collapse["recovered"]
            else _(
                "bus bandwidth collapses mid-sweep at %(size_bytes)s B (line %(line)s): "
                "%(busbw_gbps)s GB/s after %(before_gbps)s GB/s at smaller sizes, and stays low",
                **values,
            )
        )
    return warnings


# ---- what the figures can be used for --------------------------------------------------------


def _nvls_or_tree_suspected(run: Run, collective: str | None, scale: _Scale) -> tuple[bool, str | None]:
    """Whether busbw may be inflated by tree or NVLS algorithms rather than measured on the wire."""
    forced = ring_forced(run.algorithm, collective)
    # A run with no measured row has no busbw to be inflated (failed before the first size).
    if collective != "all_reduce" or forced or not run.rows:
        return False, None
    nvls_capable = any(
        (gpu := gpu_from_text(name)) is not None and gpu.nvls_capable for name in scale.gpu_names
    )
    if scale.nodes == 2 and (scale.gpus_per_node or 2) > 1:
        return True, _("all_reduce on 2 nodes: tree/NVLSTree inflate busbw (use NCCL_ALGO=Ring)")
    if scale.nodes == 1 and (nvls_capable or run.nvls_seen) and (scale.ranks or 0) > 2:
        return True, _("all_reduce on one NVSwitch node: NVLS can push busbw above the NVLink wire rate")
    return False, None


def _disabled_transports_warning(run: Run) -> str | None:
    if not run.disabled_transports:
        return None
    return _(
        "the run disabled %(paths)s (NCCL_P2P_DISABLE, NCCL_SHM_DISABLE, NCCL_IB_DISABLE or "
        "NCCL_NET_GDR_LEVEL): a debug setting that routes traffic off those paths, so it does not measure "
        "the cluster's NVLink/RDMA",
        paths=listed(run.disabled_transports),
    )


def _fabric_reach(scale: _Scale, failed: bool) -> tuple[bool | None, str | None]:
    """Whether the run measures the inter-node fabric, and why not when it cannot."""
    measures_fabric: bool | None = None
    cannot_measure = None
    if scale.ranks == 1:
        measures_fabric, cannot_measure = False, "one rank: busbw is 0 by definition"
    elif scale.nodes == 1:
        measures_fabric, cannot_measure = False, "one node: measures NVLink/xGMI, not the inter-node fabric"
    elif scale.nodes and scale.nodes >= 2:
        measures_fabric = True
    if failed:
        cannot_measure = cannot_measure or "failed run"
    return measures_fabric, cannot_measure


# ---- the figures -----------------------------------------------------------------------------


def _table_fields(run: Run, file_nccl: str | None, typed: TypeSweeps | None) -> dict[str, Any]:
    """What was tested (type, op, versions, sizes asked for) and how much of it the log shows. A run of
    several data types or ops (`typed`) counts the `-N` cycles of its headline type and op alone, and adds
    `headline_data_type` and each type and op's figures (`data_type_sweeps`)."""
    dtypes = sorted({r.dtype for r in run.rows if r.dtype})  # "": the table has no type column
    rows, repeats = (typed.headline.rows, typed.headline.cycles[-1]) if typed else (run.rows, run.cycles)
    by_type = {"headline_data_type": typed.headline.data_type} if typed else {}
    return {
        "data_type": dtypes[0] if len(dtypes) == 1 else (dtypes or None),
        **by_type,
        "redop": next((r.redop for r in rows if r.redop), None),
        "nccl_version": run.nccl_version or file_nccl,
        "tests_version": run.tests_version,
        "header": run.header,
        "requested_max_bytes": run.header.get("maxBytes"),
        "reduced_max_bytes": run.reduced_max_bytes,
        "cycles": repeats + 1 if run.rows else 0,
        "busbw_at_max_size_per_cycle_gbps": busbw_per_cycle(rows, repeats),
        **({"data_type_sweeps": sweep_entries(typed)} if typed else {}),
        "truncated": _is_truncated(run),
        "concluded": run.concluded,
    }


def _interpretation_fields(
    run: Run, ratio: float | None, scale: _Scale, collective: str | None, failed: bool
) -> dict[str, Any]:
    """What the figures mean: the ratio, suspected inflation, fabric reach, consistency checks."""
    suspected, why_suspected = _nvls_or_tree_suspected(run, collective, scale)
    measures_fabric, cannot_measure = _fabric_reach(scale, failed)
    old_definition = _old_gather_definition(ratio, collective)
    factor = (scale.ranks - 1) / scale.ranks if old_definition and scale.ranks and scale.ranks > 1 else 1.0
    # Ranks fitted to the rows within their printing's rounding: the ratio of rounded figures is not checked.
    fitted = scale.ranks_source == RANKS_FITTED and ratio and RATIO_FAMILIES.get(collective or "")
    checked = None if fitted == _ranks_from_ratio(ratio or 0.0)[0] else ratio
    consistency = [_ratio_mismatch(checked, scale.ranks, collective), _algbw_mismatch(run.rows, factor)]
    return {
        "busbw_algbw_ratio": round(ratio, 5) if ratio is not None else None,
        "old_busbw_definition": old_definition,
        "algorithm_hint": run.algorithm,
        **({"disabled_transports": list(run.disabled_transports)} if run.disabled_transports else {}),
        "nvls_or_tree_suspected": suspected,
        "nvls_or_tree_reason": why_suspected,
        "measures_fabric": measures_fabric,
        "cannot_measure_reason": cannot_measure,
        "consistency_warnings": [warning for warning in consistency if warning],
    }


def _size_row(row: Row, cycle: int) -> dict[str, Any]:
    oop, ip = row.oop, row.ip
    return {
        "line": row.line,
        "cycle": cycle,
        "size_bytes": row.size,
        "count": row.count,
        "type": row.dtype or None,
        "redop": row.redop,
        "root": row.root,
        "busbw_oop": oop.busbw if oop else None,
        "busbw_ip": ip.busbw if ip else None,
        "algbw_oop": oop.algbw if oop else None,
        "algbw_ip": ip.algbw if ip else None,
        "time_oop_us": oop.time_us if oop else None,
        "time_ip_us": ip.time_us if ip else None,
        "wrong_oop": oop.wrong if oop else None,
        "wrong_ip": ip.wrong if ip else None,
    }


def _notes_warnings(run: Run) -> list[str]:
    """The publisher's notes inside the run (assembly._is_note_of), the first three, and another tool's
    output pasted inside its table (assembly.RunAssembler.resume), the first three."""
    return [
        *(
            _(
                "line %(line)s is a note, not nccl-tests output (`%(note)s`): the run is read across it",
                line=line,
                note=note,
            )
            for line, note in run.notes[:3]
        ),
        *(
            _(
                "lines %(first)s-%(last)s are another tool's output (`%(label)s`), not nccl-tests: the run "
                "is read across them, its sizes continue after them",
                first=first,
                last=last,
                label=label,
            )
            for first, last, label in run.interruptions[:3]
        ),
    ]


def summarise_run(run: Run, index: int, file_tool: str | None, file_nccl: str | None) -> dict[str, Any]:
    """One `runs` entry; its `warnings` are taken out and prefixed by `summarise_log`. The figures of a run
    of several data types or ops are those of its headline type and op (figures.type_sweeps)."""
    ratio = _ratio(run.rows)
    scale = _scale(run, ratio)
    collective, collective_source, collective_warning, candidates = _collective(run, ratio, scale.ranks)
    reasons = _failure_reasons(run)
    typed = type_sweeps(run.rows)
    collapses = bandwidth_collapses(run, by_type=typed is not None)
    rows = typed.headline.rows if typed else run.rows
    flat = noop_placements(rows)
    dropped = wholly_out_of_tolerance(rows)[0] if _error_column(run) else []
    warnings = [
        partial_rank_listing_warning(run),
        listing_nodes_warning(run, len(scale.hosts), (scale.nodes, scale.nodes_source), scale.gpus_per_node),
        one_rank_jobs_warning(run),
        _shared_gpu_warning(scale),
        collective_warning,
        _error_column_warning(run),
        type_sweeps_warning(typed),
        *left_out_warnings(flat, dropped),
        *_notes_warnings(run),
        _disabled_transports_warning(run),
    ]
    return {
        "index": index,
        "tool": run.tool or file_tool or "nccl-tests",
        "collective": collective,
        "collective_source": collective_source,
        "collective_candidates": candidates,
        "ranks": scale.ranks,
        "ranks_source": scale.ranks_source,
        "nodes": scale.nodes,
        "nodes_source": scale.nodes_source,
        "gpus_per_node": scale.gpus_per_node,
        "hosts": scale.hosts[:256],
        "gpu_names": scale.gpu_names,
        **bandwidth_fields(rows, frozenset([name for name, *_rest in flat] + dropped)),
        "avg_busbw_reported": run.avg,
        "avg_busbw_flag": run.avg_flag,
        "out_of_bounds": run.oob,
        "rows": len(run.rows),
        "failed": bool(reasons),
        "failure_reason": joined(*reasons, sep=_("; ")) if reasons else None,
        "failure_line": run.failure_line,
        "first_line": run.first_line,
        "last_line": run.last_line,
        **_table_fields(run, file_nccl, typed),
        **_interpretation_fields(run, ratio, scale, collective, failed=bool(reasons)),
        "nccl_warnings": run.debug_warns,
        "bandwidth_collapses": collapses,
        "warnings": [warning for warning in warnings if warning] + _table_warnings(run, collapses),
        "size_rows": (
            list(map(_size_row, run.rows[:5000], typed.row_cycles))
            if typed
            else [_size_row(r, r.cycle) for r in run.rows[:5000]]
        ),
    }


# ---- the whole log ---------------------------------------------------------------------------


def _run_warnings(summary: dict[str, Any]) -> list[str]:
    """A run's warnings, each prefixed with the run it is about; takes `warnings` out of the entry."""
    name = summary["collective"] or _("unknown collective")
    messages: list[str] = summary.pop("warnings") + summary["consistency_warnings"]
    if summary["failed"]:
        messages.append(_("failed run: %(reason)s", reason=summary["failure_reason"]))
    if summary["nvls_or_tree_suspected"]:
        messages.append(summary["nvls_or_tree_reason"])
    return [
        _(
            "run %(index)s (%(name)s, lines %(first)s-%(last)s): %(warning)s",
            index=summary["index"],
            name=name,
            first=summary["first_line"],
            last=summary["last_line"],
            warning=message,
        )
        for message in messages
    ]


def summarise_log(
    runs: list[Run], file_tool: str | None, file_nccl: str | None, lookalike_line: int | None = None
) -> ParseResult:
    """The ParseResult of a whole log: one `runs` entry per run that shows a table, rank or failure.
    `lookalike_line`: the first line that looks like a Rank line, a column header or a row but was not read
    (RunAssembler.lookalike_line), named when nothing was read."""
    runs = [r for r in runs if r.rows or r.failures or r.ranks or r.layout or r.unread_rows]
    tool = file_tool or "nccl-tests"
    result = ParseResult(kind=tool)
    if not runs:
        result.kind = None
        result.errors.append(_no_run_reason(lookalike_line))
        return result
    summaries = [summarise_run(run, i, file_tool, file_nccl) for i, run in enumerate(runs)]
    for summary in summaries:
        result.warnings.extend(_run_warnings(summary))
    tools = {summary["tool"] for summary in summaries}
    if MSCCLPP_TEST in tools:
        result.warnings.append(
            _(
                "MSCCL++ test output (mscclpp-test, `# Initializing MSCCL++`): read as nccl-tests, whose "
                "table and busbw definition it shares (busbw = algbw x 2(n-1)/n for all_reduce, (n-1)/n for "
                "all_gather and alltoall, 1 for sendrecv)"
            )
        )
    elif file_tool is None and not any(r.tests_version for r in runs) and not any(r.ranks for r in runs):
        result.warnings.append(
            _(
                "no nccl-tests/rccl-tests marker (version line, rank list): reported as nccl-tests, "
                "the table format is the same for both"
            )
        )
    result.summary = {
        "runs": summaries,
        "tool": tools.pop() if len(tools) == 1 else tool,
        "collectives": [s["collective"] for s in summaries],
        "failed_runs": sum(1 for s in summaries if s["failed"]),
        "nccl_version": _file_nccl_version(summaries, file_nccl),
    }
    return result


def _no_run_reason(lookalike_line: int | None) -> str:
    if lookalike_line is None:
        return _("nccl-tests signature found but no test header, rank list or result row")
    return _(
        "nccl-tests signature found, but its rank lines, column header or rows (first at line %(line)s) "
        "are not in nccl-tests' format (edited or reformatted by a wrapper or the log's author): nothing "
        "was read",
        line=lookalike_line,
    )


def _file_nccl_version(summaries: list[dict[str, Any]], file_nccl: str | None) -> str | None:
    """The library the file's measurements ran on: the file's `NCCL version` line (`2.30.3+cuda13.0`) when a
    run that did not fail used it, else the first such run's; a run that failed before measuring may have
    used another (a failed build, then the rerun with a new NCCL). Each run keeps its own `nccl_version`."""
    measured = [s["nccl_version"] for s in summaries if s["nccl_version"] and not s["failed"]]
    if file_nccl and (not measured or file_nccl.split("+")[0] in {v.split("+")[0] for v in measured}):
        return file_nccl
    return next(iter(measured), None) or next(
        (s["nccl_version"] for s in summaries if s["nccl_version"]), None
    )
