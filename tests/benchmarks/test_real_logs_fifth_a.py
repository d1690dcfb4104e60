"""Fifth set of real logs, part A: nccl-tests (fixtures/real/nccl-tests/, origins in fixtures/real/SOURCES.md,
"Fifth set"): a `-d all` run that sweeps twelve data types, an author's `--- some output truncated ---`
line between the Rank lines and the table, an unnamed scatter table (a root column of 0), a GB300 rank list
cut with `...`, and a build without MPI whose processes all print `Rank 0`.

As in test_real_logs.py, every expected value was read off the log by hand (the busbw column of the largest
size of each type, the Rank lines, the footer), not copied from a parser run. The synthetic logs check the
rules behind each reading, and that the block reading (blocks.py) gives what the line-by-line walk gives.
"""

from __future__ import annotations

from typing import Any

import pytest

from benchmarks.parsers import parse
from benchmarks.parsers.nccl import parse_nccl
from benchmarks.parsers.text import Text

from .test_nccl_blocks import walked
from .test_real_logs import _parse, _warned, approx

FIFTH = "nccl-tests/{}.txt".format
DATATYPE_ALL = FIFTH("dell-h200-2node-16gpu-datatype-all-12-type-sweeps-reducing-maxbytes")
TRUNCATED_NOTE = FIFTH("aws-efa-v100-2node-nccl248-output-truncated-note-between-ranks-and-table")
SCATTER = FIFTH("aws-slurm-scatter-16rank-srun-0-prefix-root-0-no-header-unnamed")
GB300_ELIDED = FIFTH("oci-gb300-16node-64rank-allreduce-rank-list-elided-largest-sizes-only")
NON_MPI = FIFTH("h100-2node-alltoall-non-mpi-build-12-rank0-lines-header-only-indented")


def _same_as_the_walk(log: str) -> dict[str, Any]:
    """parse() of a synthetic log, after checking that the block reading gives what `feed` gives."""
    lines = log.splitlines()
    assert parse_nccl(Text(lines=lines)).as_dict() == walked(lines)
    return parse(log).as_dict()


RANK = "#  Rank {r:2d} Group  0 Pid   1000 on {host} device {d:2d} [0000:{d:02x}:00] NVIDIA H100"
NAMES = "size count type redop root time algbw busbw #wrong time algbw busbw #wrong".split()
UNITS = "(B) (elements) . . . (us) (GB/s) (GB/s) . (us) (GB/s) (GB/s) .".replace(".", "").split(" ")
COLUMNS = ["#" + "".join(f"{name:>10}" for name in NAMES), "#" + "".join(f"{unit:>10}" for unit in UNITS)]
FOOTER = ["# Out of bounds values : 0 OK", "# Avg bus bandwidth    : 10", "#"]
HEADER = "# nThread 1 nGpus 2 minBytes 1048576 maxBytes 67108864 step: 4(factor) warmup iters: 5 iters: 20"


def _ranks(*ranks: tuple[int, str, int]) -> list[str]:
    """Rank lines of (rank, host, device)."""
    return [RANK.format(r=rank, host=host, d=device) for rank, host, device in ranks]


def _row(size: int, dtype: str, redop: str, root: int, algbw: float, busbw: float) -> str:
    """A table row whose time is size / algbw (the algbw check holds), both placements alike."""
    group = f"{size / algbw / 1e3:10.1f} {algbw:7.2f} {busbw:7.2f}      0"
    return f"{size:>12} {size // 4:>12} {dtype:>9} {redop:>6} {root:>6} {group} {group}"


# ---- `-d all`: one size sweep per data type ------------------------------------------------------------

# The out-of-place busbw of each type's 42949672960-byte (40 GiB) row, in the log's order (lines 35-70).
BUSBW_AT_40_GIB = {
    "int8": 390.12,
    "uint8": 390.08,
    "int32": 456.03,
    "uint32": 455.21,
    "int64": 436.65,
    "uint64": 436.31,
    "half": 483.49,
    "float": 487.06,
    "double": 467.23,
    "bfloat16": 484.17,
    "f8e4m3": 361.02,
    "f8e5m2": 363.85,
}


def test_datatype_all_is_read_per_type_and_summarised_on_float() -> None:
    result = _parse(DATATYPE_ALL)
    assert result["kind"] == "nccl-tests" and result["errors"] == []
    [run] = result["summary"]["runs"]
    # `# Collective test starting: all_reduce_perf`; 16 Rank lines, 8 on each of two hosts
    assert (run["collective"], run["ranks"], run["nodes"], run["gpus_per_node"]) == ("all_reduce", 16, 2, 8)
    # float's 40 GiB row: 487.06 out of place, 488.19 in place, the largest float busbw
    assert run["headline_data_type"] == "float"
    assert run["busbw_at_max_size_gbps"] == approx(487.06)
    assert (run["busbw_at_max_size_oop_gbps"], run["busbw_at_max_size_ip_gbps"]) == (
        approx(487.06),
        approx(488.19),
    )
    assert (run["peak_busbw_gbps"], run["peak_busbw_size_bytes"]) == (approx(488.19), 42949672960)
    assert (run["max_size_bytes"], run["min_size_bytes"]) == (42949672960, 10737418240)
    # three sizes (10, 20, 40 GiB) for each of 12 types, swept once: no `-N` cycles
    assert (run["rows"], run["cycles"], run["busbw_at_max_size_per_cycle_gbps"]) == (36, 1, [])
    assert {row["cycle"] for row in run["size_rows"]} == {0}
    assert (run["avg_busbw_reported"], run["reduced_max_bytes"]) == (approx(433.477), 48247057066)
    assert (run["failed"], run["bandwidth_collapses"]) == (False, [])


def test_datatype_all_gives_each_types_own_figures() -> None:
    [run] = _parse(DATATYPE_ALL)["summary"]["runs"]
    sweeps = run["data_type_sweeps"]
    assert [s["data_type"] for s in sweeps] == list(BUSBW_AT_40_GIB)
    assert {s["data_type"]: s["busbw_at_max_size_gbps"] for s in sweeps} == {
        name: approx(value) for name, value in BUSBW_AT_40_GIB.items()
    }
    assert {(s["redop"], s["rows"], s["cycles"], s["max_size_bytes"]) for s in sweeps} == {
        ("sum", 3, 1, 42949672960)
    }
    assert [s["data_type"] for s in sweeps if s["headline"]] == ["float"]
    # int8 starts on line 35, under the `(B) (elements)` line; f8e5m2 is the last sweep (lines 68-70)
    assert (sweeps[0]["first_line"], sweeps[-1]["first_line"]) == (35, 68)
    # uint32 peaks at 20 GiB (455.32) above its 40 GiB row (455.21)
    [uint32] = [s for s in sweeps if s["data_type"] == "uint32"]
    assert (uint32["peak_busbw_gbps"], uint32["peak_busbw_size_bytes"]) == (approx(455.32), 21474836480)


def test_datatype_all_warns_which_type_the_figures_are() -> None:
    result = _parse(DATATYPE_ALL)
    assert _warned(result, "sweeps 12 data types", "int8, uint8", "f8e5m2", "those of float")
    assert not any("cycle" in warning for warning in result["warnings"])


def _typed_log(sweeps: list[tuple[str, str, float]], sizes: tuple[int, ...] = (1 << 20, 1 << 30)) -> str:
    """A 4-rank all_reduce whose table sweeps `sizes` for each (type, op, busbw) in turn."""
    rows = [_row(size, dtype, op, -1, busbw / 1.5, busbw) for dtype, op, busbw in sweeps for size in sizes]
    ranks = _ranks(*((r, "node-a", r) for r in range(4)))
    return "\n".join(
        ["# Collective test starting: all_reduce_perf", "# Using devices", *ranks, *COLUMNS, *rows, ""]
    )


@pytest.mark.parametrize(
    ("sweeps", "headline", "at_max"),
    [
        # no float: bfloat16, the 2-byte training type, before half and the integer types
        ([("int8", "sum", 80.0), ("half", "sum", 95.0), ("bfloat16", "sum", 96.0)], "bfloat16", 96.0),
        # only integer types: the first in the log
        ([("uint8", "sum", 81.0), ("int8", "sum", 80.0)], "uint8", 81.0),
        # `-o all`: one type, five ops; sum stands for the run
        (
            [("float", op, 100.0 + i) for i, op in enumerate(("prod", "max", "sum", "min", "avg"))],
            "float",
            102.0,
        ),
    ],
)
def test_the_headline_of_a_sweep_of_types_or_ops(
    sweeps: list[tuple[str, str, float]], headline: str, at_max: float
) -> None:
    result = _same_as_the_walk(_typed_log(sweeps))
    [run] = result["summary"]["runs"]
    assert (run["headline_data_type"], run["busbw_at_max_size_gbps"], run["cycles"]) == (headline, at_max, 1)
    assert len(run["data_type_sweeps"]) == len(sweeps)
    assert _warned(result, f"sweeps {len(sweeps)} data types or reduction ops")


def test_op_sweep_names_the_headline_op() -> None:
    result = _same_as_the_walk(_typed_log([("float", "max", 90.0), ("float", "sum", 100.0)]))
    [run] = result["summary"]["runs"]
    assert [(s["redop"], s["headline"]) for s in run["data_type_sweeps"]] == [("max", False), ("sum", True)]
    assert (run["redop"], run["busbw_at_max_size_gbps"]) == ("sum", 100.0)
    assert _warned(result, "(float max, float)", "those of float")


def test_n_cycles_of_each_type_are_counted_within_the_type() -> None:
    """`-d all -N 2`: nccl-tests repeats each type's sweep before the next type (TimeTest's loop)."""
    log = _typed_log(
        [("float", "sum", 100.0), ("float", "sum", 98.0), ("int8", "sum", 80.0), ("int8", "sum", 79.0)]
    )
    [run] = _same_as_the_walk(log)["summary"]["runs"]
    assert (run["cycles"], run["busbw_at_max_size_per_cycle_gbps"]) == (2, [100.0, 98.0])
    assert run["busbw_at_max_size_gbps"] == 99.0  # the median of float's two cycles
    assert [(s["data_type"], s["cycles"]) for s in run["data_type_sweeps"]] == [("float", 2), ("int8", 2)]
    assert [row["cycle"] for row in run["size_rows"]] == [0, 0, 1, 1, 0, 0, 1, 1]


def test_types_of_one_size_each_are_not_a_collapse() -> None:
    """One size per type (`-b 1G -e 1G -d all`): the sizes never restart, and int8's lower busbw after
    float's is another type, not a fall in float's sweep."""
    log = _typed_log(
        [("float", "sum", 100.0), ("int8", "sum", 40.0), ("uint8", "sum", 40.0)], sizes=(1 << 30,)
    )
    [run] = _same_as_the_walk(log)["summary"]["runs"]
    assert (run["bandwidth_collapses"], run["headline_data_type"], run["rows"]) == ([], "float", 3)


def test_a_run_of_one_type_keeps_its_keys_as_before() -> None:
    [run] = _same_as_the_walk(_typed_log([("float", "sum", 100.0)]))["summary"]["runs"]
    assert "data_type_sweeps" not in run and "headline_data_type" not in run
    assert (run["data_type"], run["cycles"]) == ("float", 1)


# ---- a note between the Rank lines and the table -------------------------------------------------------


def test_an_output_truncated_line_inside_a_run_does_not_split_it() -> None:
    result = _parse(TRUNCATED_NOTE)
    assert result["kind"] == "nccl-tests" and result["errors"] == []
    [run] = result["summary"]["runs"]
    # 16 Rank lines (ranks 0-7 on ip-172-31-41-105, 8-15 on ip-172-31-41-36), all before the note (line 51)
    assert (run["ranks"], run["ranks_source"], run["nodes"], run["gpus_per_node"]) == (16, "rank-lines", 2, 8)
    # no name: busbw/algbw 8.82/4.71 = 1.87 = 2(n-1)/n of 16 ranks
    assert run["collective"] == "all_reduce"
    # the 1073741824 row: 8.82 out of place, 8.95 in place; `# Avg bus bandwidth    : 2.80613`
    assert run["busbw_at_max_size_gbps"] == approx(8.82)
    assert run["busbw_at_reference_sizes_gbps"] == {"1GiB": approx(8.82)}
    assert (run["peak_busbw_gbps"], run["avg_busbw_reported"]) == (approx(8.95), approx(2.80613))
    assert (run["rows"], run["failed"], run["first_line"], run["last_line"]) == (28, False, 1, 102)
    assert run["nccl_version"] == "2.4.8+cuda10.0"
    assert _warned(result, "line 51 is a note", "some output truncated")
    assert not _warned(result, "failed run")


RANKS_2 = _ranks((0, "node-a", 0), (1, "node-a", 1))
# a 2-rank all_reduce: busbw = algbw
ROWS_2 = [_row(size, "float", "sum", -1, 10.0, 10.0) for size in (1 << 20, 1 << 22, 1 << 24, 1 << 26)]


@pytest.mark.parametrize(
    "note",
    [
        "---------- snip ----------",
        "===== output omitted =====",
        "~~~~ [output trimmed] ~~~~",
        "---- host b ----",
    ],
)
def test_a_note_between_the_rank_lines_and_the_table_is_read_across(note: str) -> None:
    log = "\n".join([HEADER, "# Using devices", *RANKS_2, note, "#", *COLUMNS, *ROWS_2, *FOOTER, ""])
    result = _same_as_the_walk(log)
    [run] = result["summary"]["runs"]
    assert (run["ranks"], run["rows"], run["failed"], run["busbw_at_max_size_gbps"]) == (2, 4, False, 10.0)
    assert _warned(result, "line 5 is a note")


def test_a_cut_note_among_the_rows_keeps_one_sweep() -> None:
    log = "\n".join(
        [
            HEADER,
            "# Using devices",
            *RANKS_2,
            *COLUMNS,
            *ROWS_2[:2],
            "--- rows truncated ---",
            *ROWS_2[2:],
            *FOOTER,
        ]
    )
    result = _same_as_the_walk(log)
    [run] = result["summary"]["runs"]
    assert (run["rows"], run["cycles"], run["max_size_bytes"]) == (4, 1, 1 << 26)
    assert _warned(result, "line 9 is a note", "rows truncated")


def test_separators_between_tests_still_start_the_next_one() -> None:
    """A wrapper's label after a footer, and node counts between header-less tables (the aac11 grep excerpt
    of the corpus), are boundaries as before."""
    finished = "\n".join([HEADER, "# Using devices", *RANKS_2, *COLUMNS, *ROWS_2, *FOOTER])
    two_tests = _same_as_the_walk(f"{finished}\n==== second test ====\n{finished}\n")
    assert len(two_tests["summary"]["runs"]) == 2
    assert not _warned(two_tests, "is a note")
    by_nodes = _same_as_the_walk(
        "\n".join(["====== 1-node ======", *ROWS_2, "====== 2-node ======", *ROWS_2])
    )
    assert [(r["nodes"], r["rows"]) for r in by_nodes["summary"]["runs"]] == [(1, 4), (2, 4)]


# ---- a root of 0 with busbw = (n-1)/n algbw: scatter or gather ---------------------------------------


def test_an_unnamed_table_with_a_root_is_not_called_all_gather() -> None:
    result = _parse(SCATTER)
    [run] = result["summary"]["runs"]
    # `float none 0` on every row; 79.20 / 84.48 = 0.9375 = 15/16 at 2147483648
    assert run["collective"] == "scatter_or_gather"
    assert run["collective_source"].startswith("inferred")
    assert (run["ranks"], run["ranks_source"]) == (16, "busbw/algbw ratio")
    assert (run["busbw_at_max_size_gbps"], run["peak_busbw_gbps"]) == (approx(79.20), approx(79.63))
    assert (run["rows"], run["max_size_bytes"]) == (29, 2147483648)
    assert run["consistency_warnings"] == []
    assert _warned(result, "collective not named in the log", "scatter or gather")


# 16 ranks: busbw = 15/16 algbw
SCATTER_ROWS = [_row(size, "float", "none", 0, 10.0, 9.38) for size in (1 << 20, 1 << 22, 1 << 24)]


@pytest.mark.parametrize(
    ("before", "collective", "source"),
    [
        ("# Collective test starting: scatter_perf", "scatter", "starting-line"),
        ("$ srun -N 2 /opt/nccl-tests/build/gather_perf -b 1M -e 16M -f 4", "gather", "command-line"),
        ("Scatter", "scatter", "name-line"),
    ],
)
def test_a_rooted_table_named_in_the_log_takes_that_name(before: str, collective: str, source: str) -> None:
    result = _same_as_the_walk("\n".join([before, "#", *COLUMNS, *SCATTER_ROWS, *FOOTER]))
    [run] = result["summary"]["runs"]
    assert (run["collective"], run["collective_source"]) == (collective, source)
    assert not _warned(result, "not named")


@pytest.mark.parametrize(
    ("redop", "root", "busbw", "collective"),
    [
        ("sum", -1, 9.38, "reduce_scatter"),  # (n-1)/n with a reduction, no root
        ("none", -1, 9.38, "all_gather"),  # (n-1)/n, no reduction, no root: as before
        ("none", 3, 9.38, "scatter_or_gather"),  # (n-1)/n with a root
        ("sum", 0, 10.00, "reduce"),  # ratio 1 with a root and a reduction
        ("none", 0, 10.00, "broadcast"),  # ratio 1 with a root
    ],
)
def test_reduce_scatter_and_the_rooted_collectives_are_told_apart(
    redop: str, root: int, busbw: float, collective: str
) -> None:
    rows = [_row(size, "float", redop, root, 10.0, busbw) for size in (1 << 20, 1 << 22, 1 << 24)]
    ranks = _ranks(*((r, "node-a", r) for r in range(16)))
    [run] = _same_as_the_walk("\n".join(["# Using devices", *ranks, *COLUMNS, *rows, *FOOTER]))["summary"][
        "runs"
    ]
    assert (run["collective"], run["ranks"]) == (collective, 16)
    assert run["consistency_warnings"] == []


def test_reduce_scatter_perf_on_the_command_line_is_not_scatter() -> None:
    log = "\n".join(
        ["mpirun -np 16 ./build/reduce_scatter_perf -b 1M -e 16M -f 4", "#", *COLUMNS, *SCATTER_ROWS]
    )
    [run] = _same_as_the_walk(log)["summary"]["runs"]
    assert (run["collective"], run["collective_source"]) == ("reduce_scatter", "command-line")


# ---- a rank list cut with `...` ----------------------------------------------------------------------


def test_a_cut_rank_list_does_not_count_its_hosts_as_the_nodes() -> None:
    result = _parse(GB300_ELIDED)
    [run] = result["summary"]["runs"]
    # Ranks 0, 1 (devices 0, 1) on GPU-5705, `...`, ranks 62, 63 (devices 2, 3) on GPU-6569: 64 ranks, and
    # with blocks of g consecutive ranks on devices 0..g-1, 62 mod g = 2 and g | 64 leave only g = 4
    assert (run["ranks"], run["hosts"]) == (64, ["GPU-5705", "GPU-6569"])
    assert (run["nodes"], run["gpus_per_node"]) == (16, 4)
    assert run["nodes_source"].startswith("rank-lines (incomplete listing")
    # the 17179869184 row: 930.48 out of place, 930.60 in place; `# Avg bus bandwidth    : 455.539`
    assert (run["busbw_at_max_size_gbps"], run["peak_busbw_gbps"]) == (approx(930.48), approx(930.60))
    assert (run["avg_busbw_reported"], run["rows"]) == (approx(455.539), 2)
    assert _warned(result, "16 nodes x 4 GPUs assumed", "2 hosts shown")
    assert not _warned(result, "2 nodes")
    assert run["nvls_or_tree_suspected"] is False


def _listing(ranks: list[tuple[int, str, int]]) -> str:
    return "\n".join([HEADER, "# Using devices", *_ranks(*ranks), *COLUMNS, *ROWS_2, *FOOTER])


@pytest.mark.parametrize(
    "ranks",
    [
        # every rank shown on device 0 (a device per process): the devices say nothing of the node
        [(0, "node-a", 0), (15, "node-b", 0)],
        # devices not in rank order: no block layout fits
        [(0, "node-a", 1), (1, "node-a", 0), (15, "node-b", 7)],
        # ranks 0 and 8 on one host, 4 on another: not blocks of consecutive ranks
        [(0, "node-a", 0), (4, "node-b", 4), (8, "node-a", 0), (15, "node-b", 7)],
    ],
)
def test_a_cut_rank_list_that_no_single_layout_fits_leaves_the_nodes_unknown(
    ranks: list[tuple[int, str, int]],
) -> None:
    result = _same_as_the_walk(_listing(ranks))
    [run] = result["summary"]["runs"]
    assert (run["ranks"], run["nodes"], run["gpus_per_node"]) == (16, None, None)
    assert _warned(result, "the Rank listing is incomplete", "left unknown")
    assert not _warned(result, "2 nodes")


def test_a_filtered_rank_list_of_one_rank_per_node_takes_the_layout_that_fits() -> None:
    """Ranks 7 and 15 on two hosts, both device 7 (the nccl-test-web excerpt of the corpus): 8 per node."""
    [run] = _same_as_the_walk(_listing([(7, "node-a", 7), (15, "node-b", 7)]))["summary"]["runs"]
    assert (run["ranks"], run["nodes"], run["gpus_per_node"]) == (16, 2, 8)


def test_a_complete_rank_list_counts_its_hosts_as_before() -> None:
    result = _same_as_the_walk(_listing([(r, f"node-{r // 2}", r % 2) for r in range(4)]))
    [run] = result["summary"]["runs"]
    assert (run["nodes"], run["nodes_source"], run["gpus_per_node"]) == (2, "rank-lines", 2)
    assert not _warned(result, "incomplete")


# ---- a build without MPI: every process is rank 0 ----------------------------------------------------


def test_twelve_rank_0_lines_are_twelve_one_rank_jobs() -> None:
    result = _parse(NON_MPI)
    [run] = result["summary"]["runs"]
    # 12 `Rank  0` lines (Pids 223120-223125 on cnode2-002, 256264-256269 on cnode2-001), no table
    assert (run["collective"], run["ranks"], run["rows"], run["failed"]) == ("alltoall", 1, 0, True)
    assert _warned(result, "12 Rank lines all name rank 0", "its own 1-rank job")


def test_one_rank_0_line_is_a_one_gpu_run_without_that_warning() -> None:
    result = _same_as_the_walk(_listing([(0, "node-a", 0)]))
    assert result["summary"]["runs"][0]["ranks"] == 1
    assert not _warned(result, "all name rank 0")


def test_rank_0_lines_with_a_launcher_prefix_are_counted_by_the_walk_too() -> None:
    """Rank lines with an srun prefix are read one at a time (not by the block scan)."""
    lines = [
        f"{i}: #  Rank  0 Group  0 Pid {100 + i:6d} on node-a device  0 [0000:1b:00] NVIDIA H100"
        for i in range(3)
    ]
    result = _same_as_the_walk("\n".join([HEADER, "# Using devices", *lines, ""]))
    assert _warned(result, "3 Rank lines all name rank 0")


def test_the_busbw_chart_of_a_type_sweep_draws_the_headline_type_only() -> None:
    """The upload page's chart joined all 36 rows of the 12 types' sweeps into one zig-zag line; it draws the
    type whose figures the run reports (float's 3 sizes, 487.06 at 40 GiB), named with the type."""
    from benchmarks.models import Upload
    from benchmarks.selectors import upload_busbw_chart

    summary = _parse(DATATYPE_ALL)["summary"]
    (series,) = upload_busbw_chart(Upload(kind="nccl-tests", summary=summary))
    assert len(series["sizes"]) == 3 and series["sizes"][-1] == 42949672960
    assert series["busbw"][-1] == approx(BUSBW_AT_40_GIB["float"])
    assert series["name"].startswith("all_reduce float (")
