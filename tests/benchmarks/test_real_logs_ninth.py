"""The ninth set of real logs: cloud nccl-tests, MSCCL++'s test, GH200/GB200 evidence, 2025-2026 training
logs and the AMD and training tools that are not read (fixtures/real/, origins in fixtures/real/SOURCES.md,
"Ninth set").

As in test_real_logs.py, every expected value was read off the log by hand.
"""

from __future__ import annotations

import pytest

from benchmarks.parsers import parse

from .test_real_logs import _parse, _warned, approx

MSCCLPP = "nccl-tests/mscclpp-pr114-2node-16rank-mpi-tag-inplace-first-no-type-redop-columns-T.txt"
AWS_EFA = "nccl-tests/aws-efa-eks-p4d-2node-16gpu-mpi-tag-output-nccl299-efa-info-interleaved.txt"
A3_MEGA = "nccl-tests/gcp-a3mega-h100-2node-16gpu-blockquote-mpirun-8g-338gbps.txt"
DGX_SPARK = "nccl-tests/dgx-spark-gb10-2node-1gpu-nccl-tests-2.20.0-unalign-header-4-rows-cut-T.txt"
NIXPKGS = "nccl-tests/nixpkgs-rtx4090-1gpu-all-gather-single-size-inplace-0.05us-619657-gbs-T.txt"
GB200_TOPO = "nvidia-smi-topo/openshift-gb200-4gpu-nvidia-smi-then-topo-m-nv18-8nic-sys-sh-prompt.txt"
GH200_TWICE = (
    "nvidia-smi/gh200-bench-report-two-snapshots-2-stale-processes-then-clean-tilde-fences-joined.txt"
)
GB200_SLINKY = "nvidia-smi/slinky-gb200-4gpu-kubectl-exec-srun-echo-host-line-then-table.txt"
NEMO2 = "nemo/bionemo-pr740-nemo2-text-logger-training-epoch-iteration-pipes-val-loss-T.txt"
TITAN_GC = "torchtitan/torchtitan-pr1287-rank0-gc-and-profiler-lines-every-10-steps-T.txt"
AMD_TOOLS = (
    "unsupported/rocm-smi/mi300x-8gpu-concise-info-gpu7-NA-unsupported-monitor-errors.txt",
    "unsupported/rocm-smi/roc-smi-issue86-rocm33-old-concise-one-gpu-T.txt",
    "unsupported/rocm-smi/vllm-collect-env-mi300x-showtopo-weight-hops-linktype-xgmi-indented.txt",
    "unsupported/amd-smi/powerjoular-issue67-amd-smi-metric-gpu0-usage-power-clock-cut-T.txt",
)
TRAINING_TOOLS = (
    "unsupported/composer/awsome-mpt7b-slurm-srun-0-prefix-batch1-metrics-elided.txt",
    "unsupported/hf/llamafactory-pr10488-hf-trainer-train-metrics-block-T.txt",
    "unsupported/maxtext/maxtext-pr4847-tpu-metric-logger-completed-step-lines-profiler-noise-T.txt",
    "unsupported/nanochat/nanochat-pr147-a100-step-of-total-pct-tok-sec-mfu-pipes-T.txt",
)


# ---- MSCCL++'s test: the table without type, redop and root ------------------------------------------


def test_an_mscclpp_test_row_is_read_by_its_header_not_failed() -> None:
    # Line 7: `3221225472  805306368  28286  113.88  213.53  0` under `size count time algbw busbw #wrong`
    # twice; line 4 names the blocks `in-place ... out-of-place`; line 9: `Out of bounds values : 0 OK`.
    r = _parse(MSCCLPP)
    assert r["kind"] == "nccl-tests"
    (run,) = r["summary"]["runs"]
    assert run["failed"] is False and run["failure_reason"] is None
    assert r["summary"]["failed_runs"] == 0
    assert run["rows"] == 1
    assert run["out_of_bounds"] == 0
    (row,) = run["size_rows"]
    assert row["line"] == 7
    assert row["size_bytes"] == 3221225472 and row["count"] == 805306368
    assert row["type"] is None and row["redop"] is None and row["root"] is None
    assert row["time_ip_us"] == 28286 and row["algbw_ip"] == 113.88 and row["busbw_ip"] == 213.53
    assert row["wrong_ip"] == "0"
    assert row["busbw_oop"] is None and row["time_oop_us"] is None
    assert run["busbw_at_max_size_gbps"] == 213.53
    assert run["busbw_at_max_size_ip_gbps"] == 213.53
    assert run["max_size_bytes"] == 3221225472
    assert run["data_type"] is None


def test_an_mscclpp_test_run_says_which_tool_it_is() -> None:
    r = _parse(MSCCLPP)
    (run,) = r["summary"]["runs"]
    assert run["tool"] == "mscclpp-test"
    assert r["summary"]["tool"] == "mscclpp-test"
    assert _warned(r, "MSCCL++", "read as nccl-tests")
    assert not _warned(r, "no nccl-tests/rccl-tests marker")


def test_the_mscclpp_collective_and_ranks_come_from_the_busbw_ratio() -> None:
    # 213.53 / 113.88 = 1.875 = 2(n-1)/n for n = 16: all_reduce on 16 ranks; no command line, no Rank lines.
    r = _parse(MSCCLPP)
    (run,) = r["summary"]["runs"]
    assert run["busbw_algbw_ratio"] == approx(1.875)
    assert run["collective"] == "all_reduce"
    assert run["collective_source"] == "inferred: busbw/algbw ratio 2(n-1)/n"
    assert run["ranks"] == 16 and run["ranks_source"] == "busbw/algbw ratio"
    assert run["nodes"] is None


MSCCLPP_HEAD = """\
# Initializing MSCCL++
# Setting up the connection in MSCCL++
#
#                                        in-place                       out-of-place
#       size         count     time   algbw   busbw  #wrong     time   algbw   busbw  #wrong
#        (B)    (elements)     (us)  (GB/s)  (GB/s)             (us)  (GB/s)  (GB/s)
"""


def test_an_mscclpp_row_padded_into_the_second_block_is_out_of_place() -> None:
    # common.cc BaseTestEngine::runTest: an out-of-place-only test prints 33 blanks for the first block.
    row = "     1048576        262144" + " " * 33 + "    10.50   99.86   49.93      0\n"
    (run,) = parse(MSCCLPP_HEAD + row + "# Out of bounds values : 0 OK\n").as_dict()["summary"]["runs"]
    (size_row,) = run["size_rows"]
    assert size_row["busbw_oop"] == 49.93 and size_row["busbw_ip"] is None


def test_an_mscclpp_row_without_wrong_counts_is_read_unchecked() -> None:
    # `-c 0`: no data check, so the tool prints no #wrong under the header's #wrong.
    row = "     1048576        262144    10.50   99.86   99.86\n"
    (run,) = parse(MSCCLPP_HEAD + row + "# Out of bounds values : 0 OK\n").as_dict()["summary"]["runs"]
    (size_row,) = run["size_rows"]
    assert size_row["busbw_ip"] == 99.86 and size_row["wrong_ip"] == "N/A"
    assert run["failed"] is False


def test_rows_that_do_not_fit_their_header_are_not_read_and_not_a_failure() -> None:
    text = (
        "#  out-of-place   in-place\n"
        "#  size count type redop root time algbw busbw #wrong time algbw busbw #wrong\n"
        " 1024 256 12.0 1.2 3.4 0 5.6\n"
        " 2048 512 12.0 1.2 3.4 0 5.6\n"
        "# Out of bounds values : 0 OK\n"
    )
    r = parse(text).as_dict()
    (run,) = r["summary"]["runs"]
    assert run["rows"] == 0
    assert run["failed"] is False and r["summary"]["failed_runs"] == 0
    assert _warned(r, "2 table lines", "line 3", "not read", "not a failure")


def test_a_header_without_any_row_is_still_a_failed_run() -> None:
    text = "#  size count type redop root time algbw busbw #wrong time algbw busbw #wrong\n# done\n"
    (run,) = parse(text).as_dict()["summary"]["runs"]
    assert run["failed"] is True and "without result rows" in run["failure_reason"]


# ---- nccl-tests read right (kept) ------------------------------------------------------------------------


def test_an_mpi_operator_log_with_interleaved_efa_info_lines() -> None:
    # Lines 14-29: Rank 0-15 on nccl-tests-efa-16-worker-0/1, A100-SXM4-40GB; line 35 `NCCL version
    # 2.9.9+cuda11.2`; line 593: 4 GiB, busbw 43.81 / 43.72; line 595 `Avg bus bandwidth : 11.2432`.
    r = _parse(AWS_EFA)
    (run,) = r["summary"]["runs"]
    assert run["ranks"] == 16 and run["nodes"] == 2 and run["gpus_per_node"] == 8
    assert run["gpu_names"] == ["A100-SXM4-40GB"]
    assert run["nccl_version"] == "2.9.9+cuda11.2"
    assert run["rows"] == 30
    assert run["max_size_bytes"] == 4294967296 and run["min_size_bytes"] == 8
    assert run["busbw_at_max_size_oop_gbps"] == 43.81 and run["busbw_at_max_size_ip_gbps"] == 43.72
    assert run["busbw_at_reference_sizes_gbps"]["1GiB"] == 42.48
    assert run["avg_busbw_reported"] == approx(11.2432)
    assert run["collective"] == "all_reduce" and run["collective_source"].startswith("inferred")
    assert run["failed"] is False
    assert run["nvls_or_tree_suspected"] is True


def test_a_blockquoted_a3_mega_run_reads_its_mpirun_line() -> None:
    # Line 5: `>    /opt/src/nccl-tests/build/all_reduce_perf -b 8 -e 8G -f 2 -g 1`; line 60: 8 GiB, 338.82.
    r = _parse(A3_MEGA)
    (run,) = r["summary"]["runs"]
    assert run["collective"] == "all_reduce" and run["collective_source"] == "command-line"
    assert run["ranks"] == 16 and run["nodes"] == 2
    assert run["gpu_names"] == ["NVIDIA H100 80GB HBM3"]
    assert run["rows"] == 31
    assert run["busbw_at_max_size_gbps"] == 338.82 and run["busbw_at_max_size_ip_gbps"] == 337.35
    assert run["busbw_at_reference_sizes_gbps"] == {"1GiB": 297.86, "8GiB": 338.82}
    assert run["avg_busbw_reported"] == approx(70.742)
    assert run["failed"] is False


def test_a_dgx_spark_excerpt_cut_after_four_rows() -> None:
    # Line 1: `nccl-tests version 2.20.0 (b4d5bee) nccl-headers=23102 nccl-library=23102`; two hosts, one GB10
    # each at the same BDF 000f:01:00; rows 8 KiB-64 KiB, the last 0.96 / 1.01; no footer.
    r = _parse(DGX_SPARK)
    (run,) = r["summary"]["runs"]
    assert run["tests_version"] == "2.20.0" and run["nccl_version"] == "2.31.2"
    assert run["header"]["unalign"] == 0
    assert run["ranks"] == 2 and run["nodes"] == 2 and run["gpus_per_node"] == 1
    assert run["hosts"] == ["spark-d708", "spark-dbf4"]
    assert run["rows"] == 4 and run["max_size_bytes"] == 65536
    assert run["busbw_at_max_size_oop_gbps"] == 0.96 and run["busbw_at_max_size_ip_gbps"] == 1.01
    assert run["truncated"] is True and run["failed"] is False
    assert _warned(r, "no footer")


def test_a_one_gpu_all_gather_of_one_size() -> None:
    # Line 1 names all_gather_perf; line 10: 32 MiB, busbw 0.00 both ways (one rank).
    r = _parse(NIXPKGS)
    (run,) = r["summary"]["runs"]
    assert run["collective"] == "all_gather" and run["collective_source"] == "command-line"
    assert run["ranks"] == 1 and run["rows"] == 1
    assert run["max_size_bytes"] == 33554432
    assert run["header"]["step"] == 1048576 and run["header"]["step_kind"] == "bytes"
    assert run["busbw_at_max_size_gbps"] == 0.0
    assert run["measures_fabric"] is False
    assert run["failed"] is False and run["out_of_bounds"] == 0


# ---- evidence and training logs read right (kept) --------------------------------------------------------


def test_gb200_topology_after_an_nvidia_smi_table() -> None:
    # Lines 37-40: GPU0-3 `NV18` to each other and `SYS` to all eight NICs (mlx5_0-7 in the legend).
    r = _parse(GB200_TOPO)
    s = r["summary"]
    assert r["kind"] == "nvidia-smi-topo"
    assert s["gpus"] == 4 and s["full_nvlink_mesh"] is True
    assert s["min_nvlinks_per_pair"] == 18 and s["max_nvlinks_per_pair"] == 18
    assert s["nics"] == 8 and s["nic_names"] == [f"mlx5_{i}" for i in range(8)]
    assert s["rail_nics"] == 0
    assert {nic["best_gpu_path"] for nic in s["nic_details"]} == {"SYS"}


def test_one_gh200_shown_twice_is_counted_once() -> None:
    # Lines 9 and 30: GPU 0 `NVIDIA GH200 480GB` at 00000000:DD:00.0, 97871 MiB, 700 W cap, in both tables.
    r = _parse(GH200_TWICE)
    s = r["summary"]
    assert r["kind"] == "nvidia-smi"
    assert s["gpus"] == 1 and s["gpu_models"] == ["NVIDIA GH200 480GB"]
    (gpu,) = s["gpu_list"]
    assert gpu["bus_id"] == "00000000:DD:00.0"
    assert gpu["memory_total_mib"] == 97871 and gpu["power_cap_w"] == 700
    assert s["driver_version"] == "580.105.08" and s["cuda_version"] == "13.0"
    assert _warned(r, "shown up to 2 times")


def test_four_gb200_behind_a_kubectl_srun_echo_line() -> None:
    # Line 2: `GPU Devices Available on validation-k8s-headnode:`; lines 12-24: 4 GB200, 189471 MiB, 1200 W.
    r = _parse(GB200_SLINKY)
    s = r["summary"]
    assert r["kind"] == "nvidia-smi"
    assert s["gpus"] == 4 and s["gpu_model_counts"] == {"NVIDIA GB200": 4}
    assert {g["memory_total_mib"] for g in s["gpu_list"]} == {189471}
    assert {g["power_cap_w"] for g in s["gpu_list"]} == {1200}
    assert s["driver_version"] == "590.48.01" and s["cuda_version"] == "13.1"
    assert r["warnings"] == []


def test_nemo2_text_logger_iterations() -> None:
    # Iterations 120-125 of 149; train_step_timing in s 0.03146 ... 0.03147: median (0.03157 + 0.03163) / 2.
    r = _parse(NEMO2)
    s = r["summary"]
    assert r["kind"] == "megatron" and s["source_format"] == "nemo"
    assert s["iterations"] == 6 and s["total_iterations_planned"] == 149
    assert s["median_iteration_s"] == approx(0.0316) and s["median_iteration_s_source"] == "printed"
    assert [row["loss"] for row in s["iteration_rows"]] == [1.233, 1.288, 1.333, 1.245, 1.375, 1.34]
    assert s["median_tflops_per_gpu"] is None
    assert _warned(r, "125 of 149")


def test_torchtitan_steps_between_gc_and_profiler_lines() -> None:
    # Steps 200-250: tflops median (339.48 + 339.59) / 2, tps (5862 + 5864) / 2, mfu (34.33 + 34.34) / 2 %.
    r = _parse(TITAN_GC)
    s = r["summary"]
    assert r["kind"] == "torchtitan"
    assert [row["iteration"] for row in s["iteration_rows"]] == [200, 210, 220, 230, 240, 250]
    assert s["median_tflops_per_gpu"] == approx(339.535)
    assert s["median_tokens_per_s_per_gpu"] == approx(5863)
    assert s["mfu"] == approx(0.34335)
    assert r["warnings"] == []


# ---- refused, each with its reason -----------------------------------------------------------------------


@pytest.mark.parametrize("rel", AMD_TOOLS)
def test_amd_gpu_tool_output_is_refused_with_its_own_reason(rel: str) -> None:
    r = _parse(rel)
    assert r["kind"] is None
    (error,) = r["errors"]
    assert "rocm-smi / amd-smi output" in error and "not read" in error and "rccl-tests" in error


@pytest.mark.parametrize("rel", TRAINING_TOOLS)
def test_training_tools_that_are_not_read_stay_refused(rel: str) -> None:
    r = _parse(rel)
    assert r["kind"] is None
    (error,) = r["errors"]
    assert "no signature of a supported tool" in error


def test_an_rccl_tests_log_with_rocm_smi_output_is_still_read() -> None:
    text = (
        "$ rocm-smi\n"
        "========================ROCm System Management Interface========================\n"
        "# nThread 1 nGpus 8 minBytes 8 maxBytes 128 step: 2(factor) warmup iters: 5 iters: 20\n"
        "#  size  count  type  redop  root  time  algbw  busbw  #wrong  time  algbw  busbw  #wrong\n"
        "   128     32  float    sum    -1  20.00  0.01  0.01  0  20.00  0.01  0.01  0\n"
    )
    assert parse(text).kind in ("nccl-tests", "rccl-tests")
