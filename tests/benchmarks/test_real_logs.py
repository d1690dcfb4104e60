"""Real logs the parsers were not written against (fixtures/real/, origins in fixtures/real/SOURCES.md).

Every expected value was read off the log by hand (the busbw column, the rank list, the `Link N:` lines,
the iteration lines), not copied from a parser run.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from benchmarks.parsers import _parser_for, parse
from benchmarks.parsers.text import decode

from ._shared import FIXTURES

REAL = FIXTURES / "real"


def _path(rel: str) -> Path:
    return REAL / rel


def _parse(rel: str) -> dict[str, Any]:
    return parse(_path(rel).read_bytes(), filename=rel).as_dict()


def _parse_as(kind: str, rel: str) -> dict[str, Any]:
    """The parser of `kind` on the file, bypassing detection (for logs detection misses)."""
    return _parser_for(kind)(decode(_path(rel).read_bytes())).as_dict()


def approx(value: float, rel: float = 1e-3) -> Any:
    return pytest.approx(value, rel=rel)


def _warned(result: dict[str, Any], *words: str) -> bool:
    return any(all(w in warning for w in words) for warning in result["warnings"])


def test_every_real_fixture_is_listed_in_sources() -> None:
    listed = (REAL / "SOURCES.md").read_text()
    files = sorted(p.relative_to(REAL).as_posix() for p in REAL.rglob("*.txt"))
    assert len(files) >= 25
    assert [f for f in files if f"`{f}`" not in listed] == []


# ---- nccl-tests / rccl-tests -------------------------------------------------------------------------

# file (the folder is the kind) -> per run: (collective, ranks, nodes, gpus/node, peak, @max out-of-place,
# @max in-place, Avg bus bandwidth line, rows)
COLLECTIVES: dict[str, list[tuple[Any, ...]]] = {
    "nccl-tests/oke-a100-2node-16gpu-kubectl-logs-mpi-operator.txt": [
        ("all_reduce", 16, 2, 8, 237.94, 237.94, 237.52, 66.4834, 31)
    ],
    "nccl-tests/openshift-l40s-2node-2runs-socket-then-ib.txt": [
        ("all_reduce", 2, 2, 1, 8.14, 8.11, 8.12, 3.98762, 31),
        ("all_reduce", 4, 2, 2, 9.63, 9.63, 9.62, 4.74277, 31),
    ],
    "nccl-tests/rtx5090-2rank-1gpu-socket-mpi-tag-output-3reps.txt": [
        ("all_reduce", 2, 1, None, peak, 2.30, peak, avg, 8)
        for peak, avg in ((2.31, 1.57614), (2.31, 1.58183), (2.33, 1.58058))
    ],
    "nccl-tests/h100-2node-16gpu-srun-prefix-validation-off-then-ring-rerun.txt": [
        ("all_reduce", 16, 2, 8, 167.87, 155.57, 155.56, 142.735, 11),
        ("all_reduce", 16, 2, 8, 102.27, 89.90, 89.40, 85.5294, 11),
    ],
    "rccl-tests/radeon-r9700-2node-1gpu-2runs-gdr-on-off.txt": [
        ("all_reduce", 2, 2, 1, 10.77, 10.77, 10.77, 3.51213, 25),
        ("all_reduce", 2, 2, 1, 10.83, 10.82, 10.83, 3.53671, 25),
    ],
    "rccl-tests/azure-mi300x-vf-1node-8gpu-version-colon-plus.txt": [
        ("all_reduce", 8, 1, 8, 293.07, 293.07, 289.60, 54.8575, 25)
    ],
    # 8 B-16 GiB: 32 sizes.
    "nccl-tests/dell-xe9680-h100-2node-16gpu-mpi-binary-xpmem-help-lines.txt": [
        ("all_reduce", 16, 2, 8, 469.21, 469.21, 469.10, 139.56, 32)
    ],
    "nccl-tests/vmware-h100-4node-32gpu-right-aligned-hosts-run-banner.txt": [
        ("all_reduce", 32, 4, 8, 365.84, 365.84, 365.46, 107.51, 32)
    ],
}


@pytest.mark.parametrize("rel", sorted(COLLECTIVES))
def test_collective_runs_read_off_the_log(rel: str) -> None:
    kind, expected = rel.split("/")[0], COLLECTIVES[rel]
    result = _parse(rel)
    assert result["kind"] == kind and result["errors"] == []
    runs = result["summary"]["runs"]
    assert len(runs) == len(expected)
    for run, (coll, ranks, nodes, per_node, peak, at_max, at_max_ip, avg, rows) in zip(
        runs, expected, strict=True
    ):
        assert (run["collective"], run["ranks"], run["nodes"], run["failed"]) == (coll, ranks, nodes, False)
        if per_node is not None:
            assert run["gpus_per_node"] == per_node
        assert run["peak_busbw_gbps"] == approx(peak)
        assert run["busbw_at_max_size_oop_gbps"] == approx(at_max)
        assert run["busbw_at_max_size_ip_gbps"] == approx(at_max_ip)
        assert run["avg_busbw_reported"] == approx(avg)
        assert run["rows"] == rows


def test_versions_gpu_names_and_reduced_max_bytes() -> None:
    rtx = _parse("nccl-tests/rtx5090-2rank-1gpu-socket-mpi-tag-output-3reps.txt")["summary"]["runs"]
    # `# nccl-tests version 2.18.0 nccl-headers=22907`: 22907 = 2*10000 + 29*100 + 7.
    assert {(r["tests_version"], r["nccl_version"]) for r in rtx} == {("2.18.0", "2.29.7")}
    assert rtx[0]["measures_fabric"] is False  # both ranks on host `lab`
    openshift = _parse("nccl-tests/openshift-l40s-2node-2runs-socket-then-ib.txt")["summary"]["runs"]
    assert [r["nccl_version"] for r in openshift] == ["2.27.3+cuda12.9"] * 2
    assert [r["reduced_max_bytes"] for r in openshift] == [15534478677] * 2
    assert openshift[0]["gpu_names"] == ["NVIDIA L40S"]
    oke = _parse("nccl-tests/oke-a100-2node-16gpu-kubectl-logs-mpi-operator.txt")["summary"]["runs"][0]
    assert oke["gpu_names"] == ["NVIDIA A100-SXM4-40GB"]
    assert oke["hosts"] == ["nccl-allreduce-job0-mpiworker-0", "nccl-allreduce-job0-mpiworker-1"]
    radeon = _parse("rccl-tests/radeon-r9700-2node-1gpu-2runs-gdr-on-off.txt")["summary"]["runs"]
    assert [r["tests_version"] for r in radeon] == ["develop:33cc4df"] * 2
    assert radeon[0]["gpu_names"] == ["AMD Radeon AI PRO R9700"]
    vf = _parse("rccl-tests/azure-mi300x-vf-1node-8gpu-version-colon-plus.txt")["summary"]["runs"][0]
    assert vf["gpu_names"] == ["AMD Instinct MI300X VF"] and vf["measures_fabric"] is False


def test_cuda_failure_before_any_row_is_a_failed_run_with_its_reason() -> None:
    result = _parse("nccl-tests/h100-8gpu-cuda-failure-system-not-yet-initialized.txt")
    assert result["kind"] == "nccl-tests"
    [run] = result["summary"]["runs"]
    assert run["failed"] is True and run["rows"] == 0
    assert "system not yet initialized" in run["failure_reason"]
    assert run["ranks"] == 8  # `-g 8`, one process (`nGpus 8`)
    assert result["summary"]["failed_runs"] == 1


def test_two_ranks_on_one_gpu_count_one_gpu() -> None:
    result = _parse("nccl-tests/rtx5090-2rank-1gpu-socket-mpi-tag-output-3reps.txt")
    run = result["summary"]["runs"][0]
    assert (run["ranks"], run["nodes"], run["gpus_per_node"]) == (2, 1, 1)
    assert _warned(result, "2 ranks ran on 1 GPU")


def test_ranks_printing_device_0_on_distinct_bus_ids_are_distinct_gpus() -> None:
    """One GPU per process (CUDA_VISIBLE_DEVICES): every rank prints device 0, each on its own bus id."""
    rank_lines = [
        f"#  Rank {r} Group  0 Pid {100 + r} on node{r // 2} device  0 [0000:{0x19 + r % 2:02x}:00] H100"
        for r in range(4)
    ]
    columns = "size count type redop root time algbw busbw #wrong time algbw busbw #wrong".split()
    rows = [
        "1048576 262144 float sum -1 93.25 11.24 16.86 0 82.98 12.64 18.96 0",
        "2097152 524288 float sum -1 150.10 13.97 20.96 0 148.00 14.17 21.26 0",
    ]
    log = [
        "# nThread 1 nGpus 1 minBytes 1048576 maxBytes 2097152 step: 2(factor) warmup iters: 5 iters: 20",
        "#",
        "# Using devices",
        *rank_lines,
        "#",
        "#" + "".join(f"{c:>10}" for c in columns),
        *("".join(f"{v:>10}" for v in row.split()) for row in rows),
        "# Out of bounds values : 0 OK",
        "# Avg bus bandwidth    : 19.5",
    ]
    result = parse("\n".join(log) + "\n").as_dict()
    run = result["summary"]["runs"][0]
    assert (run["ranks"], run["nodes"], run["gpus_per_node"]) == (4, 2, 2)
    assert not _warned(result, "ranks ran on")


AUTODL = "nccl-tests/autodl-2080ti-2gpu-g2-5colls-prompts-reduce-g1-inplace-noop.txt"


def test_six_runs_behind_prompts_and_a_one_gpu_in_place_no_op() -> None:
    result = _parse(AUTODL)
    assert result["kind"] == "nccl-tests" and result["errors"] == []
    runs = result["summary"]["runs"]
    # (collective, ranks, peak, @max out-of-place, @max in-place, Avg bus bandwidth), 28 sizes each.
    expected = [
        ("all_reduce", 2, 4.00, 4.00, 4.00, 2.05774),
        ("all_gather", 2, 3.84, 3.79, 3.84, 1.6651),
        ("broadcast", 2, 11.09, 11.09, 11.09, 5.07658),
        ("reduce", 2, 11.14, 11.14, 11.13, 5.23248),
        ("reduce", 1, 267.37, 267.37, None, 202818),
        ("alltoall", 2, 4.73, 4.61, 4.73, 2.06935),
    ]
    assert len(runs) == len(expected)
    for run, (coll, ranks, peak, at_max, at_max_ip, avg) in zip(runs, expected, strict=True):
        assert (run["collective"], run["ranks"], run["nodes"], run["rows"]) == (coll, ranks, 1, 28)
        assert run["peak_busbw_gbps"] == approx(peak)
        assert run["busbw_at_max_size_oop_gbps"] == approx(at_max)
        assert run["busbw_at_max_size_ip_gbps"] == (approx(at_max_ip) if at_max_ip is not None else None)
        assert run["avg_busbw_reported"] == approx(avg)
    # `./build/reduce_perf -b 8 -e 1024M -f 2` on one GPU: in-place 0.19 us at every size, nothing copied.
    assert runs[4]["noop_placements"] == ["in-place"]
    assert [r["noop_placements"] for r in runs[:4] + runs[5:]] == [[]] * 5
    assert _warned(result, "run 4 (reduce", "in-place time stays at 0.19-0.19 us", "no data moved")


def test_wrong_values_at_one_size_fail_the_run() -> None:
    result = _parse("nccl-tests/slingshot-gh200-2node-1gpu-wrong-96-32-at-1mib-out-of-bounds-failed.txt")
    [run] = result["summary"]["runs"]
    assert (run["ranks"], run["nodes"], run["rows"], run["failed"], run["out_of_bounds"]) == (
        2,
        2,
        25,
        True,
        4,
    )
    assert [
        (r["size_bytes"], r["wrong_oop"], r["wrong_ip"]) for r in run["size_rows"] if r["wrong_oop"] != "0"
    ] == [(1048576, "96", "32")]
    assert run["peak_busbw_gbps"] == approx(22.87) and run["avg_busbw_reported"] == approx(4.79995)
    assert (run["tests_version"], run["nccl_version"]) == ("2.17.8", "2.29.2")  # nccl-headers=22902


def test_device_busy_failure_after_the_rank_list_has_no_inflation_warning() -> None:
    result = _parse("nccl-tests/slingshot-gh200-2node-8rank-exclusive-process-device-busy-failure.txt")
    [run] = result["summary"]["runs"]
    assert (run["ranks"], run["nodes"], run["gpus_per_node"], run["rows"], run["failed"]) == (
        8,
        2,
        4,
        0,
        True,
    )
    assert "CUDA-capable device(s) is/are busy or unavailable" in run["failure_reason"]
    assert run["gpu_names"] == ["NVIDIA GH200 120GB"]
    # No row was measured: nothing for tree/NVLSTree to inflate.
    assert run["nvls_or_tree_suspected"] is False and not _warned(result, "inflate")


# ---- perftest ------------------------------------------------------------------------------------------


def test_perftest_row_after_a_cpu_frequency_warning() -> None:
    result = _parse("perftest/cx5-roce-write-bidir-D5-cpufreq-warning-row.txt")
    s = result["summary"]
    assert result["kind"] == "perftest"
    assert (s["test"], s["bidirectional"], s["link_layer"], s["device"]) == (
        "ib_write_bw",
        True,
        "Ethernet",
        "mlx5_0",
    )
    assert (s["gid_index"], s["mtu"], s["rows"], s["max_size_bytes"]) == (4, 4096, 1, 65536)
    assert s["average_gbps"] == approx(98.02) and s["unit_reported"] == "Gb/sec"
    assert s["duration_mode"] is True and s["failed"] is False
    assert _warned(result, "bidirectional")


def test_perftest_latency_server_and_client_tables_in_one_file() -> None:
    result = _parse("perftest/connectx3-ib-write-lat-server-then-client-prompts.txt")
    s = result["summary"]
    assert result["kind"] == "perftest" and result["errors"] == []
    assert (s["test"], s["latency"], s["link_layer"], s["device"], s["mtu"]) == (
        "ib_write_lat",
        True,
        "InfiniBand",
        "mlx4_0",
        2048,
    )
    # server row: 0.96 1.25 0.98 0.98 ...; client row: 0.96 1.02 0.98 0.98 ... (2 bytes, 1000 iterations)
    assert s["rows"] == 2 and s["min_size_bytes"] == 2
    assert (s["latency_typical_usec"], s["latency_avg_usec"]) == (0.98, 0.98)


def test_perftest_repeated_runs_of_one_size_on_hns_roce() -> None:
    result = _parse("perftest/hisilicon-hns-roce-ib-read-bw-n5-three-runs-kernel-bug-lines.txt")
    s = result["summary"]
    assert (s["test"], s["device"], s["link_layer"], s["gid_index"], s["mtu"]) == (
        "ib_read_bw",
        "hns_2",
        "Ethernet",
        2,
        1024,
    )
    # BW average 6468.60, 9044.77, 8966.88 MB/sec (2^20 B/s) at 65536 B: best and median.
    mb = 1048576 * 8 / 1e9
    assert s["rows"] == 3 and s["unit_reported"] == "MB/sec"
    assert s["peak_gbps"] == approx(9044.77 * mb) and s["average_gbps"] == approx(8966.88 * mb)


def test_perftest_rows_behind_email_quote_marks() -> None:
    result = _parse("perftest/qemu-devel-ib-send-bw-a-server-email-quoted.txt")
    s = result["summary"]
    assert result["kind"] == "perftest" and s["failed"] is False
    assert (s["test"], s["link_layer"], s["rows"], s["max_size_bytes"]) == (
        "ib_send_bw",
        "InfiniBand",
        23,
        8388608,
    )
    mb = 1048576 * 8 / 1e9
    assert s["peak_gbps"] == approx(11526.45 * mb) and s["average_gbps"] == approx(11511.01 * mb)


def test_perftest_four_tests_in_one_file_are_listed_separately() -> None:
    result = _parse("perftest/cx7-ndr-dac-send-bw-mib-send-lat-read-write-gbits-four-tests.txt")
    s = result["summary"]
    assert result["kind"] == "perftest" and result["errors"] == []
    # The summary is the first bandwidth test: ib_send_bw, 46557.03 MiB/sec.
    assert (s["test"], s["unit_reported"], s["rows"]) == ("ib_send_bw", "MiB/sec", 1)
    assert s["average_gbps"] == approx(46557.03 * 1048576 * 8 / 1e9)
    assert [(t["test"], t["unit_reported"], t["rows"]) for t in s["tests"]] == [
        ("ib_send_bw", "MiB/sec", 1),
        ("ib_send_lat", "usec", 1),
        ("ib_read_bw", "Gb/sec", 1),
        ("ib_write_bw", "Gb/sec", 1),
    ]
    assert [t["average_gbps"] for t in s["tests"][2:]] == [approx(328.61), approx(392.34)]
    assert (s["tests"][1]["latency_typical_usec"], s["tests"][1]["latency_avg_usec"]) == (1.27, 1.27)
    assert _warned(result, "4 perftest tests in one file")


def test_perftest_bandwidth_sweep_then_latency_sweep() -> None:
    result = _parse("perftest/connectx3-fdr-ib-read-bw-a-then-read-lat-a-wrapped-command.txt")
    s = result["summary"]
    mb = 1048576 * 8 / 1e9
    assert (s["test"], s["rows"], s["max_size_bytes"], s["mtu"]) == ("ib_read_bw", 23, 8388608, 2048)
    assert s["peak_gbps"] == approx(3667.10 * mb) and s["average_gbps"] == approx(3666.44 * mb)
    [_bw, lat] = s["tests"]
    assert (lat["test"], lat["rows"], lat["min_size_bytes"]) == ("ib_read_lat", 23, 2)
    assert (lat["latency_typical_usec"], lat["latency_avg_usec"]) == (1.99, 2.01)


def test_perftest_e810_irdma_roce_row() -> None:
    s = _parse("perftest/intel-e810-irdma-loopback-ib-write-bw-roce-mb.txt")["summary"]
    assert (s["test"], s["device"], s["link_layer"], s["gid_index"], s["rows"]) == (
        "ib_write_bw",
        "irdma1",
        "Ethernet",
        1,
        1,
    )
    assert s["average_gbps"] == approx(1103.38 * 1048576 * 8 / 1e9)


def test_hccl_test_multi_size_sweep_with_npus_per_node() -> None:
    result = _parse("hccl-test/ascend-docs-allreduce-8npu-8k-64m-avg-time-header.txt")
    assert result["kind"] == "hccl-test"
    [run] = result["summary"]["runs"]
    assert (run["collective"], run["ranks"], run["npus_per_node"], run["nodes"]) == ("all_reduce", 8, 8, 1)
    assert (run["rows"], run["max_size_bytes"], run["requested_max_bytes"]) == (14, 67108864, 67108864)
    assert (run["iters"], run["warmup_iters"], run["failed"]) == (20, 5, False)
    assert run["algbw_at_max_size_gbps"] == approx(23.76245)
    assert run["busbw_at_max_size_gbps"] == approx(23.76245 * 2 * 7 / 8)  # all_reduce on 8 ranks


# ---- GPU evidence ---------------------------------------------------------------------------------------


def test_nvidia_smi_560_table() -> None:
    s = _parse("nvidia-smi/h100-8x-driver560-cuda126-new-layout.txt")["summary"]
    assert (s["gpus"], s["gpu_models"], s["driver_version"], s["cuda_version"]) == (
        8,
        ["NVIDIA H100 80GB HBM3"],
        "560.35.03",
        "12.6",
    )
    assert {g["power_cap_w"] for g in s["gpu_list"]} == {700}
    assert {g["memory_total_mib"] for g in s["gpu_list"]} == {81559}
    assert [g["bus_id"] for g in s["gpu_list"]][:2] == ["00000000:19:00.0", "00000000:3B:00.0"]


SMI_Q = "nvidia-smi/a100-sxm4-40gb-8gpu-smi-a-first-gpu-block-only.txt"


def test_nvidia_smi_q_report_first_gpu_block() -> None:
    result = _parse_as("nvidia-smi", SMI_Q)
    s = result["summary"]
    assert (s["source"], s["gpus"], s["gpu_blocks"]) == ("nvidia-smi -q", 8, 1)  # `Attached GPUs : 8`
    assert (s["driver_version"], s["cuda_version"], s["gpu_models"]) == (
        "535.129.03",
        "12.2",
        ["NVIDIA A100-SXM4-40GB"],
    )
    [gpu] = s["gpu_list"]
    assert (gpu["bus_id"], gpu["memory_total_mib"], gpu["power_cap_w"]) == ("00000000:2F:00.0", 40960, 400)
    assert (gpu["pcie_gen_max"], gpu["pcie_gen_host_max"], gpu["pcie_width_current"]) == (4, 3, 16)
    assert gpu["row_remap_pending"] == "No" and gpu["ecc_uncorrectable_volatile"] == 0
    assert _warned(result, "Attached GPUs: 8, but 1 GPU block")
    assert _warned(result, "host slot allows PCIe Gen3, the GPU Gen4")


def test_nvidia_smi_q_section_filter_without_product_names() -> None:
    result = _parse_as("nvidia-smi", "nvidia-smi/kepler-2gpu-q-d-clock-no-product-name.txt")
    s = result["summary"]
    assert (s["gpus"], s["gpu_blocks"], s["gpu_models"]) == (2, 2, [])
    assert [g["bus_id"] for g in s["gpu_list"]] == ["00000000:06:00.0", "00000000:07:00.0"]
    assert _warned(result, "no Product Name")


def test_nvidia_smi_q_report_is_detected() -> None:
    assert _parse(SMI_Q)["kind"] == "nvidia-smi"


def test_dcgmi_diag_cuinit_failure_with_wrapped_warnings_and_long_run_option() -> None:
    result = _parse("dcgmi-diag/h100-8x-dcgm338-r3-cuinit-fail-wrapped.txt")
    s = result["summary"]
    assert result["kind"] == "dcgmi-diag"
    assert s["passed"] is False and s["failed_tests"] == ["GPU Memory"]
    assert s["skipped_tests"] == ["PCIe", "Memory Bandwidth", "EUD Test"]
    assert (s["dcgm_version"], s["driver_version"]) == ("3.3.8", "560.35.03")
    assert s["level"] == "3"  # `dcgmi diag --run 3`


def test_dcgmi_diag_pcie_failure_in_a_pod() -> None:
    result = _parse("dcgmi-diag/rtx3090-8x-dcgm330-r2-pcie-fail-unsupported-driver-combination.txt")
    s = result["summary"]
    assert result["kind"] == "dcgmi-diag" and s["level"] == "2" and s["dcgm_version"] == "3.3.0"
    assert (s["passed"], s["failed_tests"], s["skipped_tests"]) == (False, ["PCIe"], ["GPU Memory"])
    [pcie] = [t for t in s["tests"] if t["name"] == "PCIe"]
    assert "unsupported display driver / cuda" in pcie["detail"]


def test_dcgmi_diag_second_result_row_fails_the_test() -> None:
    s = _parse_as(
        "dcgmi-diag", "dcgmi-diag/ml-engineering-r2-gpu-memory-pass-7-fail-gpu0-thermal-fragment.txt"
    )["summary"]
    [memory] = s["tests"]
    assert (s["passed"], s["failed_tests"], memory["result"], memory["gpus"]) == (
        False,
        ["GPU Memory"],
        "Fail",
        "GPU: 0",
    )
    assert [r["result"] for r in memory["results"]] == ["Pass", "Fail"]
    assert "Thermal violations" in memory["detail"]


def test_topo_one_gpu_ten_nics_all_node() -> None:
    result = _parse("nvidia-smi-topo/dell-r760xa-l40s-1gpu-10nic-topo-mp.txt")
    s = result["summary"]
    assert result["kind"] == "nvidia-smi-topo"
    assert (s["gpus"], s["nics"], s["rail_nics"]) == (1, 10, 0)
    assert s["nic_names"] == [f"mlx5_{i}" for i in range(10)]
    assert {n["best_gpu_path"] for n in s["nic_details"]} == {"NODE"}


def test_topo_matrix_is_not_overwritten_by_a_following_p2p_matrix() -> None:
    result = _parse("nvidia-smi-topo/autodl-2080ti-2gpu-pix-no-nic-then-p2p-matrix.txt")
    s = result["summary"]
    assert result["kind"] == "nvidia-smi-topo"
    assert (s["gpus"], s["nics"], s["full_nvlink_mesh"]) == (2, 0, False)
    # `GPU0 X PIX` from `topo -m`, not `GPU0 X NS` from `topo -p2p p` further down.
    assert s["pairs_not_nvlink"] == [{"pair": "GPU0-GPU1", "connection": "PIX"}]
    assert s["lines"] == [3, 4]


def test_nvidia_smi_two_geforce_cards() -> None:
    s = _parse("nvidia-smi/autodl-2080ti-2gpu-driver550-fan-na-ecc.txt")["summary"]
    assert (s["gpus"], s["gpu_models"], s["driver_version"], s["cuda_version"]) == (
        2,
        ["NVIDIA GeForce RTX 2080 Ti"],
        "550.90.07",
        "12.4",
    )
    assert [(g["bus_id"], g["memory_total_mib"], g["power_cap_w"]) for g in s["gpu_list"]] == [
        ("00000000:B4:00.0", 11264, 250),
        ("00000000:B5:00.0", 11264, 250),
    ]


def test_dmesg_old_xid_32_format() -> None:
    s = _parse("dmesg/gtx550ti-xid32-old-format-channel-id-gpu-at-line.txt")["summary"]
    assert s["xid_codes"] == [32] and [e["line"] for e in s["xid_events"]] == [2, 3]
    assert {e["bus_id"] for e in s["xid_events"]} == {"0000:01:00"} and s["gpus_fallen_off_bus"] == []


def test_nvlink_h100_pcie_bridge_uses_12_of_18_links() -> None:
    result = _parse("nvidia-smi-nvlink/hpe-dl380a-2x-h100-pcie-bridge-12-of-18-indented-prompt.txt")
    s = result["summary"]
    assert (s["gpus"], s["gpu_models"]) == (2, ["NVIDIA H100 PCIe"])
    assert (s["active_links_per_gpu"], s["inactive_links"], s["link_gbps"]) == (12, 12, 26.562)


def test_dmesg_xid_120_in_journalctl() -> None:
    s = _parse("dmesg/fedora-journalctl-xid120-gsp-crashcat-elided.txt")["summary"]
    assert s["xid_codes"] == [120]
    assert s["xid_events"][0]["bus_id"] == "0000:23:00" and s["gpus_fallen_off_bus"] == []


def test_dmesg_fallen_off_the_bus_over_three_syslog_lines() -> None:
    result = _parse("dmesg/hgx-h100-syslog-fallen-off-bus-multiline-probe-failed.txt")
    s = result["summary"]
    assert [g["bus_id"] for g in s["gpus_fallen_off_bus"]] == ["0000:5d:00.0"]
    assert s["probe_failures"] == 1 and s["xid_codes"] == []


def test_dmesg_xid_79_and_fallen_off_bus() -> None:
    s = _parse("dmesg/hgx-h100-dmesg-xid79-crash-dump.txt")["summary"]
    assert s["xid_codes"] == [79] and s["xid_events"][0]["bus_id"] == "0000:5d:00"
    assert [g["bus_id"] for g in s["gpus_fallen_off_bus"]] == ["0000:5d:00.0"]


def test_lspci_unnamed_h100_and_nvswitch_ids() -> None:
    s = _parse("lspci/hgx-h100-4gpu-4nvswitch-unnamed-device-ids.txt")["summary"]
    assert (s["gpus"], s["nvswitches"], s["rdma_nics"]) == (4, 4, 0)


def test_lspci_rev_ff_function_does_not_count() -> None:
    result = _parse("lspci/cx6-rev-ff-unknown-header-overheated.txt")
    s = result["summary"]
    assert s["rdma_nics"] == 0
    assert [f["bdf"] for f in s["unresponsive_functions"]] == ["01:00.0"]
    assert _warned(result, "01:00.0", "revision ff")


# ---- RDMA ports ---------------------------------------------------------------------------------


def test_ibstat_initializing_port_warns_about_the_subnet_manager() -> None:
    result = _parse("ibstat/talos-cx4-ib-initializing-no-sm.txt")
    s = result["summary"]
    [port] = s["ports"]
    assert (port["state"], port["physical_state"], port["link_layer"], port["rate_gbps"]) == (
        "Init",
        "LinkUp",
        "InfiniBand",
        100,
    )
    assert s["active_infiniband_ports"] == 0 and s["inactive_ports"] == 1
    assert _warned(result, "mlx5_0 port 1", "subnet manager")


def test_ibstat_e810_irdma_ports_with_spaces_and_empty_ca_type() -> None:
    result = _parse("ibstat/intel-e810-irdma-2port-spaces-empty-ca-type-rate-fdr10.txt")
    s = result["summary"]
    assert result["kind"] == "ibstat"
    assert [
        (p["device"], p["state"], p["physical_state"], p["link_layer"], p["rate_gbps"]) for p in s["ports"]
    ] == [
        ("irdma0", "Active", "LinkUp", "Ethernet", 25),
        ("irdma1", "Active", "LinkUp", "Ethernet", 10),  # printed `Rate: 10 (FDR10)`
    ]
    assert (s["active_ethernet_ports"], s["active_infiniband_ports"], s["inactive_ports"]) == (2, 0, 0)


def test_soft_iwarp_ports_are_not_roce_ports() -> None:
    result = _parse("ibv_devinfo/softiwarp-siw-3-devices-tabs.txt")
    s = result["summary"]
    assert s["devices"] == ["siw_docker0", "siw_enp0s25", "siw_lo"]
    assert {(p["state"], p["link_layer"], p["transport"]) for p in s["ports"]} == {
        ("Active", "Ethernet", "iWARP (1)")
    }
    assert (s["active_ethernet_ports"], s["active_iwarp_ports"]) == (0, 3)
    assert _warned(result, "3 ports use the iWARP transport")


def test_ibstatus_two_ethernet_ports_down() -> None:
    s = _parse("ibstatus/ws950t-cx6-2port-200g-eth-both-down-prompt.txt")["summary"]
    assert [(p["device"], p["state"], p["physical_state"]) for p in s["ports"]] == [
        ("mlx5_0", "Down", "Disabled"),
        ("mlx5_1", "Down", "Disabled"),
    ]
    assert {p["link_layer"] for p in s["ports"]} == {"Ethernet"}
    assert (s["active_ethernet_ports"], s["inactive_ports"]) == (0, 2)


def test_ibdev2netdev_two_runs_keep_the_last_listing() -> None:
    result = _parse("ibdev2netdev/azure-nd-h100-renamed-down-then-up-two-outputs.txt")
    s = result["summary"]
    assert s["total_ports"] == 9 and s["netdev_up"] == 9 and s["netdev_down"] == 0
    assert (s["infiniband_ports"], s["ethernet_ports"]) == (8, 1)
    assert _warned(result, "9 port listings repeat")


def test_ibdev2netdev_up_down_is_not_reported_as_port_state() -> None:
    s = _parse("ibdev2netdev/cx4-server-5-eth-1-ib-mixed.txt")["summary"]
    assert (s["total_ports"], s["netdev_up"], s["netdev_down"]) == (6, 4, 2)
    assert (s["infiniband_ports"], s["ethernet_ports"]) == (1, 5)
    assert s["inactive_ports"] is None


RDMA_LINK_OLD = "rdma-link/cx4-server-index-prefix-ib-and-eth.txt"


def test_rdma_link_index_prefix_format_is_read() -> None:
    s = _parse_as("rdma-link", RDMA_LINK_OLD)["summary"]
    assert [(p["device"], p["state"]) for p in s["ports"]] == [
        ("mlx5_0", "Down"),
        ("mlx5_2", "Active"),
        ("mlx5_4", "Down"),
        ("mlx5_5", "Active"),
        ("mlx5_3", "Active"),
        ("mlx5_1", "Active"),
    ]
    assert s["active_infiniband_ports"] == 1  # mlx5_5 prints `lid 12 sm_lid 4`


def test_rdma_link_index_prefix_format_is_detected() -> None:
    assert _parse(RDMA_LINK_OLD)["kind"] == "rdma-link"


# ---- training logs ------------------------------------------------------------------------------


def test_torchtitan_xpu_run_indented_with_clipped_sections() -> None:
    result = _parse("torchtitan/aurora-sunspot-xpu-7b-2node-24gpu-indented-clipped.txt")
    s = result["summary"]
    assert result["kind"] == "torchtitan"
    assert s["iterations"] == 28  # steps 2..29
    assert s["median_tokens_per_s_per_gpu"] == approx(1436)
    assert s["median_tflops_per_gpu"] == approx(59.235)
    assert s["mfu"] == approx(0.19865)


TITAN_OF_TOTAL = "torchtitan/aixsim-step-of-total-percent-then-abort.txt"


def test_torchtitan_step_of_total_line_is_read() -> None:
    result = _parse_as("torchtitan", TITAN_OF_TOTAL)
    s = result["summary"]
    assert (s["iterations"], s["total_iterations_planned"]) == (1, 644)
    assert s["median_tokens_per_s_per_gpu"] == approx(52142) and s["mfu"] == approx(0.0309)
    assert _warned(result, "iteration 640 of 644")


def test_torchtitan_step_of_total_line_is_detected() -> None:
    assert _parse(TITAN_OF_TOTAL)["kind"] == "torchtitan"


# file -> (kind, source_format, iterations, median s, median TFLOP/s/GPU, median tokens/s/GPU, planned)
TRAINING: dict[str, tuple[Any, ...]] = {
    "nemo/bionemo-esm2-2node-p5-srun-prefix.txt": ("megatron", "nemo", 7, 0.1902, None, None, 99),
    "nemo/nemo2509-llama3-8b-8gpu-iso-timestamp-tokens-per-gpu.txt": (
        "megatron",
        "nemo",
        3,
        12.21,
        None,
        10730,
        99,
    ),
    "nemo/nemo-run-local-default0-prefix-first-steps.txt": ("megatron", "nemo", 2, 2.008, None, None, 99),
    "megatron/epfllm-megatron-llm-1024gbs-126s-iterations.txt": (
        "megatron",
        "megatron",
        4,
        127.3999,
        None,
        None,
        250000,
    ),
    "megatron/bigscience-megatron-deepspeed-grad-norm-nan-tflops-key.txt": (
        "megatron",
        "megatron",
        3,
        4.2292,
        78.71,
        None,
        250000,
    ),
    "megatron/mixtral-8x7b-16xh100-timestamped-moe-loss.txt": (
        "megatron",
        "megatron",
        3,
        5.4707,
        238.7,
        None,
        100,
    ),
    # 1147.6, 820.7, 821.8, 849.8, 904.5, 837.6, 840.3, 849.5, 832.5, 869.1, 1069.8 ms: median 849.5.
    "megatron/gpt2-1gpu-fp16-skipped-first-iterations-eval-checkpoint.txt": (
        "megatron",
        "megatron",
        11,
        0.8495,
        None,
        None,
        1000,
    ),
    "megatron/alcf-polaris-megatron-deepspeed-tgs-with-ds-timer-indented.txt": (
        "deepspeed",
        "megatron",
        2,
        14.41445,
        69.24,
        1136.723,
        317892,
    ),
}


def assert_training_read(rel: str, expected: tuple[Any, ...]) -> None:
    """A training log's reading, as read off the log by hand: (kind, source_format, iterations, median s,
    median TFLOP/s/GPU, median tokens/s/GPU, planned iterations); no parse error."""
    kind, source, iterations, median_s, tflops, tokens, planned = expected
    result = _parse(rel)
    s = result["summary"]
    assert result["errors"] == []
    assert (result["kind"], s["source_format"], s["iterations"]) == (kind, source, iterations)
    assert s["median_iteration_s"] == approx(median_s)
    assert s["median_tflops_per_gpu"] == (approx(tflops) if tflops is not None else None)
    assert s["median_tokens_per_s_per_gpu"] == (approx(tokens) if tokens is not None else None)
    assert s["total_iterations_planned"] == planned


@pytest.mark.parametrize("rel", sorted(TRAINING))
def test_training_iterations_read_off_the_log(rel: str) -> None:
    assert_training_read(rel, TRAINING[rel])


def test_nemo_first_step_is_warm_up() -> None:
    s = _parse("nemo/nemo-run-local-default0-prefix-first-steps.txt")["summary"]
    assert s["warmup_iterations_excluded"] == [0]  # 5.276 s, then 2.008 s


def test_megatron_skipped_iterations_are_summed_over_the_intervals() -> None:
    result = _parse("megatron/gpt2-1gpu-fp16-skipped-first-iterations-eval-checkpoint.txt")
    s = result["summary"]
    assert s["skipped_iterations"] == 21  # 10 + 6 + 5
    assert s["warmup_iterations_excluded"] == []  # 1147.6 ms is < 1.5 x the median of the rest
    assert _warned(result, "skipped iterations: 21")


def test_megatron_nan_grad_norm_is_warned() -> None:
    result = _parse("megatron/bigscience-megatron-deepspeed-grad-norm-nan-tflops-key.txt")
    assert result["summary"]["nan_grad_norm_iterations"] == [5426, 5427, 5428]
    assert result["summary"]["nan_iterations"] == 0  # Megatron's own counter says 0
    assert _warned(result, "grad norm is nan", "3 of 3")


def test_deepspeed_skipped_steps_are_warned() -> None:
    alcf = _parse("megatron/alcf-polaris-megatron-deepspeed-tgs-with-ds-timer-indented.txt")
    assert alcf["summary"]["deepspeed_skipped_steps"] == 4
    assert _warned(alcf, "skipped 4 of 200")
    hello = _parse("deepspeed/hellodeepspeed-bert-fp16-overflow-skipped-steps.txt")
    s = hello["summary"]
    assert hello["kind"] == "deepspeed" and s["source_format"] == "deepspeed-timer"
    assert s["iterations"] == 4 and s["skipped_iterations"] == 17
    # CurrSamplesPerSec after the first timer line: 139.10, 144.44, 141.28.
    assert s["deepspeed_samples_per_s_median"] == approx(141.283)
    assert _warned(hello, "skipped 17 of 40")
