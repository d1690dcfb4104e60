"""The tenth set of real logs: nccl-tests and rccl-tests (fixtures/real/, origins in fixtures/real/SOURCES.md,
"Tenth set: nccl-tests and rccl-tests").

As in test_real_logs.py, every expected value was read off the log by hand (the rank list, the busbw column,
the version line, the footer). The synthetic tables below each turn one of the set's fixes around: a table
trimmed of `#wrong` is read unchecked (and one that keeps it is read as before), a wrapper's reformatted
table is not a failed run (a run that did fail still is), an in-place block that is not there is not an
unchecked one, and the file's NCCL version is that of the runs that measured.
"""

from __future__ import annotations

import time
from typing import Any

import pytest

from benchmarks.parsers import parse
from benchmarks.parsers.nccl import parse_nccl
from benchmarks.parsers.text import decode

from .test_real_logs import _parse, _warned, approx

ISSUE355 = "nccl-tests/issue355-h800-2node-16rank-alltoall-D1-R2-V24-illegal-memory-access-2.17.6.txt"
KUBEMARK = "nccl-tests/kubemark-ai-dgx-spark-gb10-1gpu-custom-table-no-count-type-columns.txt"
K8S_MPIJOB = "nccl-tests/k8s-mpijob-h100-2node-16gpu-kubectl-orted-trace-512m-8g-196gbps.txt"
OLIVIA = "nccl-tests/olivia-gh200-4node-16rank-slingshot-ll128-corruption-wrong-counts-no-footer-2.17.9.txt"
OCI_1NODE = "nccl-tests/oci-a100-1node-8gpu-singularity-10g-single-size-2.17.6.txt"
OCI_2NODE = "nccl-tests/oci-a100-2node-16gpu-mpirun-x-set-lines-16-hcas-10g-single-size-2.17.6.txt"
HOMELAB_1NODE = "nccl-tests/homelab-v100-pcie-1node-g2-2.17.8-edited-rows-no-root-column.txt"
HOMELAB_KEY_PARTS = "nccl-tests/homelab-v100-pcie-2node-4rank-cx3-roce-key-parts-no-busid-one-row.txt"
GKE_GB300 = "nccl-tests/gke-gb300-1node-4gpu-2.19.6-trimmed-header-no-ranks-custom-avg-footer.txt"
H200_RERUN = (
    "nccl-tests/h200-1node-g4-2.19.7-nccl2.18.3-illegal-memory-access-then-nccl2.31.2-rerun-two-rows.txt"
)
DGX_SPARK = "nccl-tests/dgx-spark-2node-1gpu-allgather-2.19.6-roce-merged-nics-512m-16g-23.74.txt"
DSTACK = "nccl-tests/dstack-gcp-a3high-tcpx-2node-no-hash-prefix-no-ranks-redop-none-c0.txt"
RCCL_ALLREDUCE = (
    "rccl-tests/aliyun-mi355-pollara-2node-16gpu-allreduce-16b-16g-ucx-warn-lines-rccl2.27.7-386gbps.txt"
)
RCCL_ALLTOALL = (
    "rccl-tests/aliyun-mi355-pollara-2node-16gpu-alltoall-zero-byte-first-rows-inplace-NA-91gbps.txt"
)


def _only_run(r: dict[str, Any]) -> dict[str, Any]:
    (run,) = r["summary"]["runs"]
    return run


def _runs_of(text: str) -> list[dict[str, Any]]:
    return list(parse(text).as_dict()["summary"]["runs"])


# ---- P4: a header trimmed of `#wrong` (and root) -----------------------------------------------------


def test_a_table_without_wrong_or_root_columns_is_read_unchecked() -> None:
    # Line 2: `#  size  count  type  redop  time  algbw  busbw`; lines 3-13: 11 rows, 1 MiB to 1 GiB;
    # line 13: `1073741824  268435456  float  sum  2489.71  431.27  646.91`;
    # line 14 `# Avg bus bandwidth: 390.79 GB/s`.
    r = _parse(GKE_GB300)
    assert r["kind"] == "nccl-tests" and r["errors"] == []
    run = _only_run(r)
    assert run["rows"] == 11
    assert run["failed"] is False and r["summary"]["failed_runs"] == 0
    assert run["max_size_bytes"] == 1073741824 and run["min_size_bytes"] == 1048576
    assert run["busbw_at_max_size_gbps"] == 646.91 and run["peak_busbw_gbps"] == 646.91
    assert run["busbw_at_reference_sizes_gbps"]["1GiB"] == 646.91
    assert run["tests_version"] == "2.19.6" and run["nccl_version"] is None
    assert run["avg_busbw_reported"] == 390.79
    assert run["truncated"] is False
    assert run["data_type"] == "float" and run["redop"] == "sum"
    first, last = run["size_rows"][0], run["size_rows"][-1]
    assert first["line"] == 3 and first["busbw_oop"] == 62.06 and first["algbw_oop"] == 41.37
    assert first["time_oop_us"] == 25.35 and first["wrong_oop"] == "N/A"
    assert first["root"] is None and first["busbw_ip"] is None
    assert last["line"] == 13 and last["busbw_oop"] == 646.91
    assert not _warned(r, "not read")


def test_the_trimmed_table_gives_ranks_and_collective_from_the_ratio() -> None:
    # 62.06 / 41.37 = 1.5 = 2(n-1)/n for n = 4 (the text says 单节点 4 GPU); no Rank lines, no host.
    r = _parse(GKE_GB300)
    run = _only_run(r)
    assert run["ranks"] == 4 and run["ranks_source"] == "busbw/algbw ratio"
    assert run["busbw_algbw_ratio"] == approx(1.5)
    assert run["collective"] == "all_reduce" and "2(n-1)/n" in run["collective_source"]
    assert run["nodes"] is None
    assert _warned(r, "collective not named in the log")


HEADER_3 = "#       size         count      type   redop     time   algbw   busbw\n"


def test_a_three_wide_table_of_eight_ranks() -> None:
    # busbw / algbw = 1.75 = 2(n-1)/n for n = 8
    rows = "".join(
        f"  {size:>10}  {size // 4:>10}  float  sum  {time:8.2f}  {algbw:6.2f}  {algbw * 1.75:6.2f}\n"
        for size, time, algbw in ((1048576, 20.0, 52.43), (2097152, 30.0, 69.91), (4194304, 40.0, 104.86))
    )
    (run,) = _runs_of(HEADER_3 + rows + "# Avg bus bandwidth    : 120.0\n")
    assert run["rows"] == 3 and run["failed"] is False
    assert run["ranks"] == 8 and run["collective"] == "all_reduce"
    assert run["busbw_at_max_size_gbps"] == approx(183.5, rel=1e-3)
    assert [row["wrong_oop"] for row in run["size_rows"]] == ["N/A"] * 3


def test_a_three_wide_table_of_two_blocks_reads_both_placements() -> None:
    text = (
        "#                                   out-of-place             in-place\n"
        "#  size  count  type  redop  root  time  algbw  busbw  time  algbw  busbw\n"
        "  1048576  262144  float  sum  -1  20.00  52.43  91.75  21.00  49.93  87.38\n"
        "  2097152  524288  float  sum  -1  30.00  69.91  122.34  31.00  67.65  118.39\n"
    )
    (run,) = _runs_of(text)
    assert run["rows"] == 2 and run["failed"] is False
    last = run["size_rows"][-1]
    assert last["busbw_oop"] == 122.34 and last["busbw_ip"] == 118.39
    assert last["wrong_oop"] == "N/A" and last["wrong_ip"] == "N/A" and last["root"] == -1
    assert run["ranks"] == 8


def test_a_three_wide_table_without_redop_is_read() -> None:
    # `size count type time algbw busbw`: six tokens a row; (n-1)/n = 0.875 for n = 8, no redop column.
    text = "#  size  count  type  time  algbw  busbw\n  1048576  262144  float  20.00  52.43  45.88\n"
    (run,) = _runs_of(text)
    assert run["rows"] == 1 and run["ranks"] == 8
    assert run["collective"] == "all_gather"
    assert run["size_rows"][0]["busbw_oop"] == 45.88


def test_a_normal_table_keeps_its_wrong_column() -> None:
    text = (
        "#       size         count      type   redop     time   algbw   busbw  #wrong\n"
        "     1048576        262144     float     sum     25.35   41.37   62.06       0\n"
        "     2097152        524288     float     sum     25.65   81.76  122.63       3\n"
    )
    (run,) = _runs_of(text)
    assert [row["wrong_oop"] for row in run["size_rows"]] == ["0", "3"]
    assert (
        run["failed"] is True and "non-zero #wrong on 1 measurement, first at line 3" in run["failure_reason"]
    )


def test_rows_that_kept_their_wrong_count_under_a_trimmed_header_are_read_as_printed() -> None:
    # The author cut `#wrong` from the header but not from the rows: the rows are read with their four
    # columns, a time printed as an integer (`18927`) never taken for a root.
    text = (
        HEADER_3
        + "     1048576        262144     float     sum     25.35   41.37   62.06       0\n"
        + "   134217728      33554432     float     sum     18927    7.09   10.64       2\n"
    )
    r = parse(text).as_dict()
    run = _only_run(r)
    assert run["rows"] == 2
    first, last = run["size_rows"]
    assert first["busbw_oop"] == 62.06 and first["wrong_oop"] == "0"
    assert last["time_oop_us"] == 18927 and last["busbw_oop"] == 10.64 and last["wrong_oop"] == "2"
    assert last["root"] is None
    assert run["failed"] is True and "first at line 3" in run["failure_reason"]


# ---- P5 (a): a wrapper's reformatted table is not a failed run ------------------------------------------


def test_a_wrappers_reformatted_table_is_not_a_failed_run() -> None:
    # Line 2: one Rank line (157ce8b34214, NVIDIA GB10); line 3 `NCCL version 2.29.2+cuda12.9`; line 5
    # `#  size  time  algbw  busbw` (no count, type or #wrong); lines 7-12: six rows, the last
    # `17179869184 164061.0 104.72 104.72` (busbw = algbw on one rank: not nccl-tests' busbw, not read).
    r = _parse(KUBEMARK)
    assert r["kind"] == "nccl-tests"
    run = _only_run(r)
    assert run["failed"] is False and run["failure_reason"] is None
    assert r["summary"]["failed_runs"] == 0
    assert run["rows"] == 0
    assert run["ranks"] == 1 and run["nodes"] == 1
    assert run["gpu_names"] == ["NVIDIA GB10"]
    assert run["nccl_version"] == "2.29.2+cuda12.9" and r["summary"]["nccl_version"] == "2.29.2+cuda12.9"
    assert run["busbw_at_max_size_gbps"] is None and run["peak_busbw_gbps"] is None
    assert run["measures_fabric"] is False
    assert _warned(r, "6 table lines", "first at line 7", "not read", "not a failure")
    assert not _warned(r, "failed run") and not _warned(r, "without result rows")


RANK_LINE = "#  Rank  0 Group  0 Pid  88 on host-a device  0 [000f:01:00] NVIDIA GB10\n"
WRAPPER_TABLE = "#       size      time   algbw   busbw\n     1048576     11.32   92.67   92.67\n"


def test_a_rank_list_and_a_real_header_without_rows_is_still_a_failed_run() -> None:
    text = RANK_LINE + "#  size count type redop root time algbw busbw #wrong time algbw busbw #wrong\n"
    (run,) = _runs_of(text)
    assert run["failed"] is True and "without result rows" in run["failure_reason"]


def test_a_rank_list_alone_is_still_a_failed_run() -> None:
    (run,) = _runs_of(RANK_LINE + "# (nothing more)\n")
    assert run["failed"] is True and "without result rows" in run["failure_reason"]


def test_a_wrapper_table_after_a_cuda_failure_is_still_a_failed_run() -> None:
    text = RANK_LINE + "host-a: Test CUDA failure common.cu:502 'an illegal memory access was encountered'\n"
    (run,) = _runs_of(text + WRAPPER_TABLE)
    assert run["failed"] is True and "illegal memory access" in run["failure_reason"]


def test_a_wrapper_summary_after_a_read_table_adds_no_run() -> None:
    text = (
        RANK_LINE
        + "#       size         count      type   redop     time   algbw   busbw  #wrong\n"
        + "     1048576        262144     float     sum     11.32   92.67   92.67       0\n"
        + "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 92.67\n"
        + WRAPPER_TABLE
    )
    r = parse(text).as_dict()
    run = _only_run(r)
    assert run["rows"] == 1 and run["failed"] is False and run["busbw_at_max_size_gbps"] == 92.67
    assert not _warned(r, "not read")


# ---- P5 (b): the refusal of an author-edited excerpt says why ---------------------------------------------


def test_an_edited_excerpt_is_refused_saying_its_lines_are_not_in_the_format() -> None:
    # Lines 2-5: `#  Rank  0 Group  0 Pid  15326 on gpuserver1 device  0 Tesla V100-PCIE-16GB` (no bus id);
    # line 13 `#  size  time  algbw  busbw  #wrong`; line 14 `134217728  107800  1.25  1.87  0`.
    r = _parse(HOMELAB_KEY_PARTS)
    assert r["kind"] is None and r["summary"] in ({}, None)
    (error,) = r["errors"]
    assert "not in nccl-tests' format" in error and "first at line 2" in error
    assert "no test header, rank list or result row" not in error


def test_a_file_with_nothing_that_looks_like_a_table_keeps_the_plain_reason() -> None:
    result = parse_nccl(decode(b"# nccl-tests notes\nnothing here\n"))
    assert result.kind is None
    assert result.errors == ["nccl-tests signature found but no test header, rank list or result row"]


# ---- P6: a missing in-place block is not an unchecked one --------------------------------------------------


def test_an_out_of_place_only_excerpt_of_two_ranks_is_an_ambiguous_all_reduce() -> None:
    # Line 1 `# nccl-tests version 2.17.8`; lines 3-4: Rank 0 and 1 on gpuserver2, Tesla V100-PCIE-16GB;
    # line 6: one block `time algbw busbw #wrong`; line 13 `134217728 33554432 float sum 18927.2 7.09 7.09 0`;
    # line 14 `# Avg bus bandwidth    : 2.97489` (no Out of bounds line).
    r = _parse(HOMELAB_1NODE)
    run = _only_run(r)
    assert run["collective"] == "all_reduce"
    assert "ambiguous" in run["collective_source"] and "in-place unchecked" not in run["collective_source"]
    assert run["ranks"] == 2 and run["nodes"] == 1 and run["hosts"] == ["gpuserver2"]
    assert run["rows"] == 6
    assert run["busbw_at_max_size_gbps"] == 7.09 and run["peak_busbw_gbps"] == 7.09
    assert run["max_size_bytes"] == 134217728 and run["min_size_bytes"] == 8
    assert run["tests_version"] == "2.17.8" and run["nccl_version"] is None
    assert run["avg_busbw_reported"] == 2.97489 and run["truncated"] is False
    assert run["failed"] is False and run["measures_fabric"] is False
    assert _warned(r, "all_reduce or sendrecv: ambiguous")


def test_an_unchecked_in_place_block_on_two_ranks_is_still_sendrecv() -> None:
    text = (
        "#  Rank  0 Group  0 Pid  1 on host-a device  0 [0000:02:00] Tesla V100-PCIE-16GB\n"
        "#  Rank  1 Group  0 Pid  1 on host-a device  1 [0000:03:00] Tesla V100-PCIE-16GB\n"
        "#  size count type redop root time algbw busbw #wrong time algbw busbw #wrong\n"
        "   1048576  262144  float  sum  -1  165.33  6.34  6.34  0  165.10  6.35  6.35  N/A\n"
        "   8388608  2097152  float  sum  -1  1201.02  6.98  6.98  0  1200.11  6.99  6.99  N/A\n"
    )
    (run,) = _runs_of(text)
    assert run["collective"] == "sendrecv" and "in-place unchecked" in run["collective_source"]


def test_an_mscclpp_out_of_place_only_table_is_still_alltoall() -> None:
    # mscclpp-test pads the first (in-place) block of an out-of-place-only test with blanks: the tool left it
    # out, so the in-place unchecked clue stands; 49.93 / 53.26 = 0.9375 = (n-1)/n for n = 16.
    head = (
        "# Initializing MSCCL++\n#\n"
        "#                                        in-place                       out-of-place\n"
        "#       size         count     time   algbw   busbw  #wrong     time   algbw   busbw  #wrong\n"
    )
    row = "     1048576        262144" + " " * 33 + "    19.69   53.26   49.93      0\n"
    (run,) = _runs_of(head + row + "# Out of bounds values : 0 OK\n")
    assert run["collective"] == "alltoall" and "in-place unchecked" in run["collective_source"]


# ---- P7: the file's NCCL version is that of the runs that measured ----------------------------------------


def test_a_failed_run_then_a_rerun_on_another_nccl() -> None:
    # Run 0: line 2 `nccl-library=21803`, line 15 `Test CUDA failure ... illegal memory access`, no row.
    # Run 1: line 29 `nccl-library=23102`; lines 42-43: 1 GiB rows, 356.04 then 353.35 GB/s out-of-place at
    # 1074790400 B; no footer. 4 x H200 on nccltest08192.
    r = _parse(H200_RERUN)
    failed, rerun = r["summary"]["runs"]
    assert r["summary"]["nccl_version"] == "2.31.2"
    assert failed["nccl_version"] == "2.18.3" and rerun["nccl_version"] == "2.31.2"
    assert failed["tests_version"] == rerun["tests_version"] == "2.19.7"
    assert failed["failed"] is True and "illegal memory access" in failed["failure_reason"]
    assert failed["failure_line"] == 15 and failed["rows"] == 0
    assert r["summary"]["failed_runs"] == 1
    assert rerun["failed"] is False and rerun["rows"] == 2
    assert rerun["collective"] == "all_reduce" and rerun["collective_source"] == "starting-line"
    assert rerun["ranks"] == 4 and rerun["nodes"] == 1 and rerun["gpu_names"] == ["NVIDIA H200"]
    assert rerun["max_size_bytes"] == 1074790400
    assert rerun["busbw_at_max_size_gbps"] == 353.35 and rerun["peak_busbw_gbps"] == 356.04
    assert rerun["truncated"] is True and _warned(r, "no footer")
    assert rerun["nvls_or_tree_suspected"] is True


VERSION_LINE = "# nccl-tests version 2.19.7 nccl-headers={code} nccl-library={code}\n"
TABLE_HEAD = "#  size count type redop root time algbw busbw #wrong time algbw busbw #wrong\n"
GOOD_ROW = "  1073741824  268435456  float  sum  -1  4523.62  237.36  356.04  0  4539.85  236.51  354.77  0\n"
FAILURE = "host: Test CUDA failure common.cu:502 'an illegal memory access was encountered'\n"


def test_an_nccl_version_line_of_a_failed_run_is_not_the_files_version() -> None:
    text = (
        "NCCL version 2.18.3+cuda12.2\n" + VERSION_LINE.format(code=21803) + TABLE_HEAD + FAILURE
        + VERSION_LINE.format(code=23102) + TABLE_HEAD + GOOD_ROW
    )  # fmt: skip
    r = parse(text).as_dict()
    assert r["summary"]["nccl_version"] == "2.31.2"
    assert [run["nccl_version"] for run in r["summary"]["runs"]] == ["2.18.3", "2.31.2"]


def test_the_files_nccl_version_line_stays_when_the_measured_run_used_it() -> None:
    text = "NCCL version 2.31.2+cuda13.0\n" + VERSION_LINE.format(code=23102) + TABLE_HEAD + GOOD_ROW
    r = parse(text).as_dict()
    assert r["summary"]["nccl_version"] == "2.31.2+cuda13.0"
    assert r["summary"]["runs"][0]["nccl_version"] == "2.31.2"


def test_a_file_of_one_failed_run_keeps_its_version() -> None:
    # Line 1 `nccl-library=22807`, line 22 `NCCL version 2.28.7+cuda13.0`; the run failed at line 27.
    r = _parse(ISSUE355)
    run = _only_run(r)
    assert r["summary"]["nccl_version"] == "2.28.7+cuda13.0" and run["nccl_version"] == "2.28.7"
    assert run["failed"] is True and run["failure_line"] == 27
    assert "illegal memory access" in run["failure_reason"]
    assert run["collective"] == "alltoall" and run["collective_source"] == "starting-line"
    assert run["ranks"] == 16 and run["nodes"] == 2 and run["gpu_names"] == ["NVIDIA H800"]
    assert run["tests_version"] == "2.17.6" and run["rows"] == 0
    assert run["busbw_at_max_size_gbps"] is None and run["peak_busbw_gbps"] is None
    assert run["nvls_or_tree_suspected"] is False
    assert _warned(r, "failed run", "illegal memory access")


def test_two_good_runs_on_two_libraries_give_the_first() -> None:
    text = (
        VERSION_LINE.format(code=22807) + TABLE_HEAD + GOOD_ROW + "# Avg bus bandwidth    : 356.04\n"
        + VERSION_LINE.format(code=23102) + TABLE_HEAD + GOOD_ROW + "# Avg bus bandwidth    : 356.04\n"
    )  # fmt: skip
    r = parse(text).as_dict()
    assert r["summary"]["nccl_version"] == "2.28.7"
    assert [run["nccl_version"] for run in r["summary"]["runs"]] == ["2.28.7", "2.31.2"]


# ---- the other logs of the set, read right (kept) --------------------------------------------------------


def test_a_kubectl_mpijob_launcher_log_with_orted_traces() -> None:
    # Lines 12-27: Rank 0-15 on nccl-tests-h100-worker-0/1, NVIDIA H100 80GB HBM3; no version line, no
    # starting line;
    # lines 32-36: 512 MiB to 8 GiB, line 36 `8589934592 ... 104.81 196.52 0 ... 104.81 196.51 0`;
    # 193.50 / 103.20 = 1.875 = 2(n-1)/n for 16; line 38 `# Avg bus bandwidth    : 194.675`.
    r = _parse(K8S_MPIJOB)
    run = _only_run(r)
    assert run["collective"] == "all_reduce" and run["collective_source"].startswith("inferred")
    assert run["ranks"] == 16 and run["nodes"] == 2
    assert run["hosts"] == ["nccl-tests-h100-worker-0", "nccl-tests-h100-worker-1"]
    assert run["gpu_names"] == ["NVIDIA H100 80GB HBM3"]
    assert run["rows"] == 5 and run["min_size_bytes"] == 536870912 and run["max_size_bytes"] == 8589934592
    assert run["busbw_at_max_size_gbps"] == 196.52 and run["peak_busbw_gbps"] == 196.52
    assert run["avg_busbw_reported"] == 194.675 and run["out_of_bounds"] == 0
    assert run["failed"] is False and run["truncated"] is False
    assert run["nccl_version"] is None and run["tests_version"] is None
    assert run["measures_fabric"] is True and run["nvls_or_tree_suspected"] is True
    assert _warned(r, "all_reduce on 2 nodes")


def test_corrupted_data_over_slingshot_is_a_failed_run() -> None:
    # Lines 6-21: 16 ranks, 4 per host gpu-1-43/47/49/51, GH200 120GB; line 1 `nccl-library=22902`;
    # non-zero #wrong: lines 47-51 in both blocks (10) and line 52 out-of-place (1) = 11, first line 47;
    # line 53 (128 MiB): 89.85 out-of-place, 83.23 in-place, #wrong 0; no footer.
    r = _parse(OLIVIA)
    run = _only_run(r)
    assert run["failed"] is True
    assert run["failure_reason"] == "non-zero #wrong on 11 measurements, first at line 47"
    assert r["summary"]["failed_runs"] == 1
    assert run["collective"] == "all_reduce" and run["data_type"] == "int8"
    assert run["ranks"] == 16 and run["nodes"] == 4 and run["gpus_per_node"] == 4
    assert run["rows"] == 28 and run["min_size_bytes"] == 1 and run["max_size_bytes"] == 134217728
    assert run["busbw_at_max_size_gbps"] == 89.85 and run["peak_busbw_gbps"] == 89.85
    assert run["busbw_at_max_size_ip_gbps"] == 83.23
    assert run["nccl_version"] == "2.29.2" and run["tests_version"] == "2.17.9"
    assert r["summary"]["nccl_version"] == "2.29.2"
    assert run["truncated"] is True and _warned(r, "no footer")
    assert _warned(r, "failed run", "non-zero #wrong")


def test_one_a100_node_one_size_under_singularity() -> None:
    # Line 2: `mpirun -n 8 singularity exec ... all_reduce_perf -b 10G -e 10G -t 1 -g 1`; line 3
    # `nccl-library=22605`; 8 ranks on inst-3egdh-ao-ol905; line 20: 10737418240 B, 233.29 / 233.29 GB/s.
    r = _parse(OCI_1NODE)
    run = _only_run(r)
    assert run["collective"] == "all_reduce" and run["ranks"] == 8 and run["nodes"] == 1
    assert run["gpu_names"] == ["NVIDIA A100-SXM4-40GB"]
    assert run["rows"] == 1 and run["max_size_bytes"] == 10737418240
    assert run["busbw_at_max_size_gbps"] == 233.29 and run["peak_busbw_gbps"] == 233.29
    assert run["avg_busbw_reported"] == 233.291 and run["concluded"] is True
    assert run["nccl_version"] == "2.26.5" and run["tests_version"] == "2.17.6"
    assert run["failed"] is False and run["measures_fabric"] is False
    assert run["nvls_or_tree_suspected"] is False
    assert r["warnings"] == []


def test_two_a100_nodes_one_size_behind_mpirun_set_lines() -> None:
    # Lines 2-5: `[inst-wth6t-ao-ol905:87032] SET NCCL_...`; 8 ranks on each of inst-wth6t/inst-0seu6;
    # line 31: 10737418240 B, 222.88 out-of-place, 218.96 in-place; line 33 `Avg bus bandwidth : 220.921`.
    r = _parse(OCI_2NODE)
    run = _only_run(r)
    assert run["collective"] == "all_reduce" and run["ranks"] == 16 and run["nodes"] == 2
    assert run["gpus_per_node"] == 8
    assert run["busbw_at_max_size_gbps"] == 222.88 and run["peak_busbw_gbps"] == 222.88
    assert run["busbw_at_max_size_ip_gbps"] == 218.96
    assert run["max_size_bytes"] == 10737418240 and run["rows"] == 1
    assert run["avg_busbw_reported"] == 220.921 and run["concluded"] is True
    assert run["nccl_version"] == "2.26.5" and run["tests_version"] == "2.17.6"
    assert run["failed"] is False and run["measures_fabric"] is True
    assert run["nvls_or_tree_suspected"] is True


def test_two_dgx_sparks_all_gather() -> None:
    # Lines 6-7: Rank 0 on spark-101, Rank 1 on spark-102, one GB10 each; line 1 `nccl-library=22809`;
    # line 17 (16 GiB): 23.74 out-of-place, 24.20 in-place; line 19 `Avg bus bandwidth : 22.1205`.
    r = _parse(DGX_SPARK)
    run = _only_run(r)
    assert run["collective"] == "all_gather" and run["collective_source"] == "starting-line"
    assert run["ranks"] == 2 and run["nodes"] == 2 and run["hosts"] == ["spark-101", "spark-102"]
    assert run["rows"] == 6 and run["min_size_bytes"] == 536870912 and run["max_size_bytes"] == 17179869184
    assert run["busbw_at_max_size_gbps"] == 23.74 and run["peak_busbw_gbps"] == 24.2
    assert run["avg_busbw_reported"] == 22.1205
    assert run["nccl_version"] == "2.28.9" and run["tests_version"] == "2.19.6"
    assert run["failed"] is False and run["measures_fabric"] is True
    assert run["nvls_or_tree_suspected"] is False


def test_a_dstack_log_without_hash_prefixes() -> None:
    # Every `#` stripped; no Rank lines; line 4 `validation: 0`; 10.02 / 10.69 = 0.937 = (n-1)/n for 16;
    # line 19 (8 GiB): 50.17 out-of-place, 50.29 in-place; line 18 in-place 51.05 is the highest;
    # line 20 `Out of bounds values : 0 OK`, line 21 `Avg bus bandwidth    : 40.6043`.
    r = _parse(DSTACK)
    run = _only_run(r)
    assert run["collective"] == "all_gather" and "ambiguous" in run["collective_source"]
    assert run["ranks"] == 16 and run["ranks_source"] == "busbw/algbw ratio"
    assert run["nodes"] is None and run["redop"] == "none"
    assert run["rows"] == 11 and run["min_size_bytes"] == 8388608 and run["max_size_bytes"] == 8589934592
    assert run["busbw_at_max_size_gbps"] == 50.17 and run["peak_busbw_gbps"] == 51.05
    assert run["avg_busbw_reported"] == 40.6043 and run["out_of_bounds"] == 0
    assert run["failed"] is False and run["truncated"] is False
    assert run["tests_version"] is None and run["nccl_version"] is None
    assert _warned(r, "all_gather or alltoall: ambiguous")
    assert _warned(r, "no nccl-tests/rccl-tests marker")


def test_rccl_all_reduce_on_two_mi355_nodes_between_ucx_warnings() -> None:
    # Lines 1-16: UCX WARN lines; line 17 `rccl-tests version 2.17.9-develop:4a65e8d ... rccl-library=22707`;
    # 8 ranks on each of Aliyun3/Aliyun1; line 38 `RCCL version : 2.27.7-HEAD:96a25b5`; lines 47-77:
    # 16 B to 16 GiB, line 77: 385.98 / 385.95; line 79 `Avg bus bandwidth    : 129.28`.
    r = _parse(RCCL_ALLREDUCE)
    assert r["kind"] == "rccl-tests"
    run = _only_run(r)
    assert run["tool"] == "rccl-tests" and r["summary"]["tool"] == "rccl-tests"
    assert run["collective"] == "all_reduce" and run["collective_source"] == "starting-line"
    assert run["ranks"] == 16 and run["nodes"] == 2 and run["gpus_per_node"] == 8
    assert run["rows"] == 31 and run["min_size_bytes"] == 16 and run["max_size_bytes"] == 17179869184
    assert run["busbw_at_max_size_gbps"] == 385.98 and run["peak_busbw_gbps"] == 385.98
    assert run["busbw_at_max_size_ip_gbps"] == 385.95
    assert run["avg_busbw_reported"] == 129.28 and run["concluded"] is True
    assert run["nccl_version"] == "2.27.7" and r["summary"]["nccl_version"] == "2.27.7"
    assert run["tests_version"].startswith("2.17.9")
    assert run["failed"] is False and run["measures_fabric"] is True
    assert run["nvls_or_tree_suspected"] is True


def test_rccl_alltoall_with_zero_byte_rows_and_unchecked_in_place() -> None:
    # Lines 31-34: four 0-byte rows; every in-place #wrong `N/A`; line 61 (16 GiB): 91.09 out-of-place,
    # 91.10 in-place; line 62 `Out of bounds values : 0 OK`, line 63 `Avg bus bandwidth : 36.0754`.
    r = _parse(RCCL_ALLTOALL)
    run = _only_run(r)
    assert run["collective"] == "alltoall" and run["collective_source"] == "starting-line"
    assert run["ranks"] == 16 and run["nodes"] == 2
    assert run["rows"] == 31 and run["max_size_bytes"] == 17179869184
    assert run["busbw_at_max_size_gbps"] == 91.09 and run["peak_busbw_gbps"] == 91.1
    assert {row["wrong_ip"] for row in run["size_rows"]} == {"N/A"}
    assert {row["wrong_oop"] for row in run["size_rows"]} == {"0"}
    assert run["failed"] is False and run["out_of_bounds"] == 0
    assert run["avg_busbw_reported"] == 36.0754 and run["concluded"] is True
    assert run["nccl_version"] == "2.27.7"
    assert run["measures_fabric"] is True and run["nvls_or_tree_suspected"] is False


@pytest.mark.parametrize(
    "rel",
    [ISSUE355, KUBEMARK, K8S_MPIJOB, OLIVIA, OCI_1NODE, OCI_2NODE, HOMELAB_1NODE, GKE_GB300, H200_RERUN,
     DGX_SPARK, DSTACK, RCCL_ALLREDUCE, RCCL_ALLTOALL],
)  # fmt: skip
def test_every_read_log_of_the_set_is_an_nccl_kind_with_runs(rel: str) -> None:
    r = _parse(rel)
    assert r["kind"] in ("nccl-tests", "rccl-tests") and r["errors"] == []
    assert r["summary"]["runs"]


def test_lines_that_only_look_like_rank_lines_cost_linear_time() -> None:
    # The refusal's reason looks for Rank-like lines: once per line, from its first `Rank N` (CPU time, the
    # bound of test_linear_time.py: 0.05 s per KB, hundreds of times a linear pass).
    line = "# Rank 1 on " * 160 + "x"
    data = "# nccl-tests version 2.19.6\n" + "\n".join([line] * 100) + "\n"
    start = time.process_time()
    result = parse(data)
    seconds = time.process_time() - start
    assert result.kind is None or result.kind == "nccl-tests"
    assert seconds < 0.05 * len(data) / 1024
