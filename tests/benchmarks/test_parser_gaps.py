"""Gaps seen on real logs (issue 18 item 5), each on a reconstructed excerpt of the real format."""

from __future__ import annotations

from pathlib import Path

from benchmarks.parsers import parse

from ._shared import shared_dir

NCCL_HEAD = """# nThread 1 nGpus 8 minBytes 1048576 maxBytes 67108864 step: 2(factor) iters: 20
#
# Using devices
#  Rank  0 Group  0 Pid  1000 on node-a device  0 [0x18] NVIDIA H100 80GB HBM3
#
#                                          out-of-place                       in-place
#   size    count  type redop root     time   algbw   busbw #wrong     time   algbw   busbw #wrong
#    (B) (elements)                    (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)
"""
NCCL_FOOT = """# Out of bounds values : 0 OK
# Avg bus bandwidth    : 100.1
#
"""


def _rows(busbw: list[float]) -> str:
    rows = []
    for i, bw in enumerate(busbw):
        size = (1 << 20) << i
        algbw = round(bw / 1.75, 2)
        time_us = round(size / (algbw * 1e3), 1)
        rows.append(
            f"{size:>12} {size // 4:>13}     float     sum      -1 {time_us:>8} {algbw:>7} {bw:>7}      0"
            f" {time_us:>8} {algbw:>7} {bw:>7}      0"
        )
    return "\n".join(rows) + "\n"


def test_a_bandwidth_collapse_in_the_middle_of_a_sweep_is_warned_with_its_line() -> None:
    log = NCCL_HEAD + _rows([150.0, 180.0, 40.0, 185.0, 190.0, 191.0, 192.0]) + NCCL_FOOT
    result = parse(log)
    assert result.kind == "nccl-tests", result.errors
    [run] = result.summary["runs"]
    [collapse] = run["bandwidth_collapses"]
    assert collapse["size_bytes"] == 4 << 20 and collapse["busbw_gbps"] == 40.0 and collapse["recovered"]
    assert collapse["line"] == NCCL_HEAD.count("\n") + 3
    assert any("collapses mid-sweep at 4194304 B" in w and "then recovers" in w for w in result.warnings)


def test_a_steady_sweep_and_a_slow_last_size_raise_no_collapse() -> None:
    for busbw in ([150.0, 180.0, 185.0, 190.0, 191.0], [150.0, 180.0, 185.0, 190.0, 60.0]):
        result = parse(NCCL_HEAD + _rows(busbw) + NCCL_FOOT)
        assert result.summary["runs"][0]["bandwidth_collapses"] == []
        assert not any("collapses" in w for w in result.warnings)


NVLINK_NO_UUID = """GPU 0: NVIDIA H100 80GB HBM3
\t Link 0: 26.562 GB/s
\t Link 1: 26.562 GB/s
GPU 1: NVIDIA H100 80GB HBM3
\t Link 0: 26.562 GB/s
\t Link 1: <inactive>
"""


def test_nvlink_status_without_the_uuid_on_the_gpu_line_still_splits_by_gpu() -> None:
    result = parse(NVLINK_NO_UUID)
    assert result.kind == "nvidia-smi-nvlink"
    assert result.summary["gpus"] == 2
    assert [g["active_links"] for g in result.summary["per_gpu"]] == [2, 1]
    assert result.summary["gpu_models"] == ["NVIDIA H100 80GB HBM3"]
    assert not any("before any" in w for w in result.warnings)


DCGMI_NO_HEADER = """|-----  Deployment  --------+------------------------------------------------|
| Denylist                  | Pass                                           |
| NVML Library              | Pass                                           |
+-----  Hardware  ----------+------------------------------------------------+
| GPU Memory                | Fail - GPU 3                                   |
+---------------------------+------------------------------------------------+
"""
DCGMI_ERROR = """+---------------------------+------------------------------------------------+
| Diagnostic                | Result                                         |
+===========================+================================================+
| Error                     | Unable to create a DCGM group: the GPUs are    |
|                           | in use by another process                      |
+---------------------------+------------------------------------------------+
"""


def test_dcgmi_diag_without_its_header_is_recognised_and_read() -> None:
    result = parse(DCGMI_NO_HEADER)
    assert result.kind == "dcgmi-diag", result.errors
    assert result.summary["failed_tests"] == ["GPU Memory"]
    assert result.summary["passed"] is False


def test_a_top_level_dcgmi_error_row_fails_the_diagnostic_and_says_why() -> None:
    result = parse(DCGMI_ERROR)
    assert result.kind == "dcgmi-diag"
    assert result.summary["passed"] is False
    assert result.summary["errors"][0]["line"] == 4
    assert "Unable to create a DCGM group" in result.summary["errors"][0]["detail"]
    assert any("reported 1 error (line 4)" in w for w in result.warnings)


def _megatron(times_ms: list[float], marked: int = 0) -> str:
    lines = []
    for i, ms in enumerate(times_ms, start=1):
        tag = " (warmup) |" if i <= marked else ""
        lines.append(
            f" [2024-05-01 10:00:{i:02d}] iteration {i * 10:>8}/ 1000 | consumed samples: {i * 5120} |"
            f" elapsed time per iteration (ms): {ms} | throughput per GPU (TFLOP/s/GPU): {400000 / ms:.1f} |"
            f"{tag} lm loss: 2.5E+00 | number of skipped iterations:   0 |"
        )
    return "\n".join(lines) + "\n"


def test_the_first_training_interval_is_kept_when_it_is_steady() -> None:
    result = parse(_megatron([1000.0, 1010.0, 990.0, 1000.0, 1005.0]))
    assert result.kind == "megatron", result.errors
    assert result.summary["warmup_iterations_excluded"] == []
    assert result.summary["median_iteration_s"] == 1.0


def test_the_first_training_interval_is_dropped_when_it_is_an_outlier_or_marked() -> None:
    outlier = parse(_megatron([9000.0, 1010.0, 990.0, 1000.0, 1005.0]))
    assert outlier.summary["warmup_iterations_excluded"] == [10]
    marked = parse(_megatron([1100.0, 1010.0, 990.0, 1000.0, 1005.0], marked=1))
    assert marked.summary["warmup_iterations_excluded"] == [10]


def test_the_real_amd_megatron_logs_still_drop_their_slow_first_iteration() -> None:
    shared = shared_dir()
    assert shared is not None
    for path in sorted(Path(shared, "benchlogs", "megatron").glob("*.txt")):
        result = parse(path.read_bytes())
        assert result.summary["warmup_iterations_excluded"], path.name


ATOMIC = """---------------------------------------------------------------------------------------
                    Atomic FETCH_AND_ADD BW Test
 Dual-port       : OFF		Device         : mlx5_0
 Number of qps   : 1		Transport type : IB
 Connection type : RC		Using SRQ      : OFF
 Link type       : IB
---------------------------------------------------------------------------------------
 #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]
 8          1000             41.07              40.92                5.363498
---------------------------------------------------------------------------------------
"""


def test_an_atomic_perftest_banner_names_the_test() -> None:
    result = parse(ATOMIC)
    assert result.kind == "perftest", result.errors
    assert result.summary["banner"] == "Atomic FETCH_AND_ADD BW Test"
    assert result.summary["test"] == "ib_atomic_bw"
    assert result.summary["link_layer"] == "InfiniBand"


def _old_all_gather(errors: list[str], oob: int) -> str:
    """An nccl-tests all_gather log from before 2020-06: busbw = algbw = size x (n-1)/n / time, and the
    `error` column holds the max relative error in exponent notation."""
    lines = [
        "$ ./build/all_gather_perf -b 1M -e 8M -f 2 -g 8",
        "# nThread 1 nGpus 8 minBytes 1048576 maxBytes 8388608 step: 2(factor) warmup iters: 5 iters: 20",
        *(
            f"#  Rank {r:2d} Pid  4242 on     node-a device {r:2d} [0x07] Tesla V100-SXM2-32GB"
            for r in range(8)
        ),
        "#                                         out-of-place                    in-place",
        "#       size         count    type     time   algbw   busbw  error     time   algbw   busbw  error",
        "#        (B)    (elements)             (us)  (GB/s)  (GB/s)             (us)  (GB/s)  (GB/s)",
    ]
    for i, error in enumerate(errors):
        size = (1 << 20) << i
        time_us = 40.0 * (1 << i)
        bw = round(size * 7 / 8 / time_us / 1e3, 2)
        lines.append(f"{size:>12} {size // 32:>13}   float {time_us:>8} {bw:>7} {bw:>7} {error}"
                     f" {time_us:>8} {bw:>7} {bw:>7} {error}")  # fmt: skip
    lines += [
        f"# Out of bounds values : {oob} {'OK' if oob == 0 else 'FAILED'}",
        "# Avg bus bandwidth    : 23.1",
    ]
    return "\n".join(lines) + "\n"


def test_the_old_all_gather_definition_and_exponent_errors_raise_no_noisy_warnings() -> None:
    result = parse(_old_all_gather(["0e+00", "1e-06", "2e-07", "0e+00"], oob=0))
    assert result.kind == "nccl-tests", result.errors
    [run] = result.summary["runs"]
    assert run["collective"] == "all_gather" and run["old_busbw_definition"] is True
    assert run["consistency_warnings"] == []
    assert run["failed"] is False
    assert not any("error" in w.lower() or "busbw/algbw" in w for w in result.warnings), result.warnings


def test_old_error_values_still_warn_when_the_tool_counted_values_out_of_bounds() -> None:
    result = parse(_old_all_gather(["0e+00", "3e-02", "0e+00", "0e+00"], oob=12))
    [run] = result.summary["runs"]
    assert run["failed"] is True
    assert any("old `error` column" in w for w in result.warnings)


def test_newer_rccl_tests_version_lines_mark_the_log_as_rccl() -> None:
    for version_line, version in (
        ("rccl-tests: Version develop:b1a4d8e", "develop:b1a4d8e"),
        ("# rccl-tests version 2.13.0 (4ab1c2d) rccl-headers=22203", "2.13.0"),
    ):
        log = NCCL_HEAD.replace("#\n# Using devices", f"{version_line}\n# Using devices", 1)
        result = parse(log + _rows([150.0, 180.0, 185.0]) + NCCL_FOOT)
        assert result.kind == "rccl-tests", version_line
        assert result.summary["runs"][0]["tests_version"] == version, version_line


def test_a_line_that_only_names_the_collective_names_the_next_run() -> None:
    log = "==> AllReduce\n" + NCCL_HEAD + _rows([150.0, 180.0, 185.0]) + NCCL_FOOT
    log += "Running: all_gather_perf\n" + NCCL_HEAD + _rows([150.0, 180.0, 185.0]) + NCCL_FOOT
    runs = parse(log).summary["runs"]
    assert [(r["collective"], r["collective_source"]) for r in runs] == [
        ("all_reduce", "name-line"),
        ("all_gather", "name-line"),
    ]


def test_an_nccl_algorithm_table_row_is_not_a_collective_name_line() -> None:
    from benchmarks.parsers.nccl.reading import read_collective_name_line

    assert read_collective_name_line("    AllReduce |        1         2         1   |") is None
    assert read_collective_name_line("sum") is None
