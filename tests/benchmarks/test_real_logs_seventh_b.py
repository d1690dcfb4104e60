"""The seventh set of real logs: evidence and collective tests (fixtures/real/, origins in
fixtures/real/SOURCES.md, "Seventh set").

As in test_real_logs.py, every expected value was read off the log by hand.
"""

from __future__ import annotations

from typing import Any

import pytest

from benchmarks.parsers import parse

from .test_real_logs import REAL, _parse, _warned, approx

WATCH = "nvidia-smi/v100-pcie-watch-5-snapshots-same-gpu-last-cut.txt"
KMD = "nvidia-smi/dell-xe9780-b300-7gpu-driver610-kmd-version-cuda-umd-header.txt"
CSV = "nvidia-smi/dell-xe9780-b300-7gpu-query-gpu-csv-driver-name-compute-cap.txt"
Q_FRAGMENT = (
    "nvidia-smi/ml-engineering-a100-q-fragment-elided-remapped-rows-pending-yes-dram-correctable-177.txt"
)
DELLA = "nvidia-smi/princeton-della-h100-a-one-gpu-driver560-replays-6-clocks-event-reasons.txt"
RCCL_2179 = "rccl-tests/vultr-8gpu-radeon-graphics-generic-name-docker-g8-rccl-tests-2.17.9.txt"
PATCHED = (
    "nccl-tests/v100-sxm2-4gpu-g4-c0-patched-build-tid-line-allreducerunccoll-debug-row-parallel-init.txt"
)
POST_LIST = "perftest/amd-pensando-ionic-post-list-write-bw-server-elided-then-client-pass.txt"
SEND_BIDIR = "perftest/roce-mlx5-ib-send-bw-b-a-qp8-msgrate-cut-at-16k-numactl-prompt.txt"


def _parse_text(text: str) -> dict[str, Any]:
    return parse(text).as_dict()


# ---- nvidia-smi: a table printed again --------------------------------------------------------------


def test_five_watch_snapshots_of_one_gpu_are_one_gpu() -> None:
    # five date lines and tables, each with the row `|   0  Tesla V100-PCIE-16GB  On  |   00000000:60:00.0
    # Off |` (lines 9, 29, 49, 69, 89); they were counted as 5 GPUs
    out = _parse(WATCH)
    assert out["kind"] == "nvidia-smi"
    summary = out["summary"]
    assert summary["gpus"] == 1
    assert summary["gpu_model_counts"] == {"Tesla V100-PCIE-16GB": 1}
    [gpu] = summary["gpu_list"]
    assert (gpu["index"], gpu["bus_id"], gpu["line"]) == (0, "00000000:60:00.0", 9)
    # the first reading: `239W /  250W |   14546MiB /  16384MiB`
    assert (gpu["memory_total_mib"], gpu["power_cap_w"]) == (16384, 250)
    assert summary["lines"] == [9]
    assert (summary["driver_version"], summary["cuda_version"]) == ("560.35.03", "12.6")
    assert _warned(out, "1 GPU shown up to 5 times", "counted once")


def _kmd_table() -> str:
    """The real 7-GPU table behind its `dell@dell:~$ nvidia-smi` prompt."""
    return (REAL / KMD).read_text()


def test_one_host_s_table_printed_twice_is_counted_once() -> None:
    out = _parse_text(_kmd_table() + _kmd_table())
    assert out["summary"]["gpus"] == 7 and out["summary"]["lines"] == [10, 14, 18, 22, 26, 30, 34]
    assert _warned(out, "7 GPUs shown up to 2 times")


def test_a_table_without_a_prompt_then_the_same_with_one_is_one_host() -> None:
    text = _kmd_table()
    out = _parse_text(text.split("\n", 1)[1] + text)
    assert out["summary"]["gpus"] == 7


def test_an_unprompted_table_is_the_first_prompted_host_s_and_not_the_second_s() -> None:
    text = _kmd_table()
    unprompted = text.split("\n", 1)[1]
    # the first table is dell's (its prompt follows); the last, after dell2's prompt, is dell2's again
    out = _parse_text(unprompted + text + text.replace("dell@dell:", "dell@dell2:") + unprompted)
    assert out["summary"]["gpus"] == 14
    assert _warned(out, "GPUs of 2 hosts (dell, dell2") and _warned(out, "14 GPUs shown up to 2 times")


def test_the_same_bus_ids_under_two_hosts_prompts_are_two_hosts_gpus() -> None:
    # identical servers print identical bus ids: the prompts say they are two machines
    text = _kmd_table()
    out = _parse_text(text + text.replace("dell@dell:", "dell@dell2:"))
    assert out["summary"]["gpus"] == 14
    assert _warned(out, "GPUs of 2 hosts (dell, dell2")
    assert not _warned(out, "shown up to")


def test_tables_of_different_bus_ids_are_all_counted() -> None:
    text = _kmd_table()
    # the second table's domains 00000010/00000011 where the first's are 00000000/00000001
    out = _parse_text(text + text.replace("0000000", "0000001"))
    assert out["summary"]["gpus"] == 14 and not _warned(out, "shown up to")


def test_a_gpu_list_printed_twice_counts_each_uuid_once() -> None:
    listing = "\n".join(
        f"GPU {i}: NVIDIA H100 80GB HBM3 (UUID: GPU-{i:08x}-1111-2222-3333-444444444444)" for i in range(8)
    )
    out = _parse_text(listing + "\n" + listing + "\n")
    assert out["summary"]["source"] == "nvidia-smi -L" and out["summary"]["gpus"] == 8
    assert _warned(out, "8 GPUs shown up to 2 times")


def test_an_unreachable_gpu_named_again_is_one_gpu() -> None:
    line = "Unable to determine the device handle for GPU0000:3B:00.0: Unknown Error\n"
    out = _parse_text(line * 3)
    assert out["kind"] == "nvidia-smi"
    assert [x["bus_id"] for x in out["summary"]["lost_gpus"]] == ["0000:3B:00.0"]


# ---- nvidia-smi: driver 610 header -------------------------------------------------------------------


def test_the_driver_610_header_gives_the_driver_and_cuda_versions() -> None:
    # `| NVIDIA-SMI 610.57.04   KMD Version: 610.57.04   CUDA UMD Version: 13.3 |`: both were null
    out = _parse(KMD)
    assert out["kind"] == "nvidia-smi"
    summary = out["summary"]
    assert (summary["driver_version"], summary["cuda_version"]) == ("610.57.04", "13.3")
    assert summary["gpus"] == 7 and summary["gpu_models"] == ["NVIDIA B300 SXM6 AC"]
    assert [g["bus_id"] for g in summary["gpu_list"]] == [
        "00000000:1A:00.0", "00000000:69:00.0", "00000000:DB:00.0",
        "00000001:1A:00.0", "00000001:69:00.0", "00000001:B5:00.0", "00000001:DB:00.0",
    ]  # fmt: skip
    assert {(g["memory_total_mib"], g["power_cap_w"]) for g in summary["gpu_list"]} == {(275040, 1100)}
    assert out["warnings"] == []


def test_a_driver_610_header_alone_is_nvidia_smi() -> None:
    out = _parse_text(
        "| NVIDIA-SMI 610.57.04              KMD Version: 610.57.04     CUDA UMD Version: 13.3     |\n"
        "No devices were found\n"
    )
    assert out["kind"] == "nvidia-smi" and out["summary"]["driver_version"] == "610.57.04"


# ---- nvidia-smi --query-gpu CSV ----------------------------------------------------------------------


def test_the_query_gpu_csv_is_read_by_its_header() -> None:
    # `driver_version, name, compute_cap` then 7 x `610.57.04, NVIDIA B300 SXM6 AC, 10.3`: it was refused
    out = _parse(CSV)
    assert out["kind"] == "nvidia-smi" and out["errors"] == []
    summary = out["summary"]
    assert summary["source"] == "nvidia-smi --query-gpu"
    assert summary["gpus"] == 7 and summary["gpu_model_counts"] == {"NVIDIA B300 SXM6 AC": 7}
    assert summary["driver_version"] == "610.57.04" and summary["cuda_version"] is None
    assert summary["lines"] == [3, 4, 5, 6, 7, 8, 9]
    assert {g["compute_cap"] for g in summary["gpu_list"]} == {"10.3"}
    # no id column: a `-l` loop could not be told from more GPUs
    assert _warned(out, "no index, uuid or pci.bus_id field")


LOOPED = """$ nvidia-smi --query-gpu=index,gpu_name,gpu_bus_id,memory.total,power.limit,\
pcie.link.width.current,pcie.link.width.max,driver_version --format=csv -l 1
index, name, pci.bus_id, memory.total [MiB], power.limit [W], pcie.link.width.current, pcie.link.width.max, \
driver_version
0, NVIDIA H100 80GB HBM3, 00000000:18:00.0, 81559 MiB, 700.00 W, 16, 16, 550.54.15
1, NVIDIA H100 80GB HBM3, 00000000:2A:00.0, 81559 MiB, [N/A], 8, 16, 550.54.15
0, NVIDIA H100 80GB HBM3, 00000000:18:00.0, 81559 MiB, 700.00 W, 16, 16, 550.54.15
1, NVIDIA H100 80GB HBM3, 00000000:2A:00.0, 81559 MiB, [N/A], 8, 16, 550.54.15
"""


def test_a_looped_query_counts_each_bus_id_once_and_reads_by_field_name() -> None:
    out = _parse_text(LOOPED)
    assert out["kind"] == "nvidia-smi"
    summary = out["summary"]
    assert summary["gpus"] == 2 and summary["driver_version"] == "550.54.15"
    first, second = summary["gpu_list"]
    assert (first["index"], first["bus_id"], first["memory_total_mib"], first["power_cap_w"]) == (
        0, "00000000:18:00.0", 81559, 700
    )  # fmt: skip
    assert second["power_cap_w"] is None and second["pcie_width_current"] == 8
    assert _warned(out, "2 GPUs shown up to 2 times")
    assert _warned(out, "GPU 00000000:2A:00.0 (line 4): PCIe link x8 of x16 (degraded)")


def test_the_same_fields_in_another_order_read_the_same() -> None:
    out = _parse_text(
        "memory.total [MiB], pci.bus_id, name\n81559 MiB, 00000000:18:00.0, NVIDIA H100 80GB HBM3\n"
    )
    [gpu] = out["summary"]["gpu_list"]
    assert (gpu["name"], gpu["bus_id"], gpu["memory_total_mib"]) == (
        "NVIDIA H100 80GB HBM3", "00000000:18:00.0", 81559
    )  # fmt: skip


def test_the_enforced_power_limit_is_the_cap_whichever_column_comes_first() -> None:
    for header, values in (
        ("power.limit [W], enforced.power.limit [W]", "700.00 W, 600.00 W"),
        ("enforced.power.limit [W], power.limit [W]", "600.00 W, 700.00 W"),
    ):
        out = _parse_text(f"index, name, {header}\n0, NVIDIA H100 80GB HBM3, {values}\n")
        assert out["summary"]["gpu_list"][0]["power_cap_w"] == 600


def test_a_query_without_its_header_is_refused_with_the_reason() -> None:
    out = _parse_text(
        "$ nvidia-smi --query-gpu=index,name --format=csv,noheader\n0, NVIDIA H100\n1, NVIDIA H100\n"
    )
    assert out["kind"] is None
    assert "--format=csv,noheader" in out["errors"][0] and "--format=csv`" in out["errors"][0]


@pytest.mark.parametrize(
    "text",
    [
        "name, value\nfoo, 1\nbar, 2\n",  # a CSV of other data
        "gpu_uuid, pid, process_name, used_gpu_memory [MiB]\nGPU-1, 12, python, 100 MiB\n",  # processes
        "power.limit [W], power.max_limit [W]\n170.00, 215.00\n",  # names no GPU
    ],
)
def test_other_comma_separated_lines_are_not_a_gpu_listing(text: str) -> None:
    assert _parse_text(text)["kind"] is None


def test_a_gpu_listing_inside_a_collective_test_log_leaves_it_a_collective_test() -> None:
    nccl = (REAL / PATCHED).read_text()
    out = _parse_text((REAL / CSV).read_text() + nccl)
    assert out["kind"] == "nccl-tests"


# ---- nvidia-smi reports read right before -------------------------------------------------------------


def test_q_fragment_with_elisions_keeps_the_attached_count_and_the_pending_remap() -> None:
    out = _parse(Q_FRAGMENT)
    summary = out["summary"]
    assert (summary["gpus"], summary["gpu_blocks"]) == (8, 1)
    assert (summary["driver_version"], summary["cuda_version"]) == ("510.73.08", "11.6")
    assert summary["gpu_list"][0]["row_remap_pending"] == "Yes"
    assert _warned(out, "row remapping pending")


def test_della_h100_full_report() -> None:
    out = _parse(DELLA)
    [gpu] = out["summary"]["gpu_list"]
    assert (gpu["bus_id"], gpu["name"]) == ("00000000:DB:00.0", "NVIDIA H100 80GB HBM3")
    assert (gpu["memory_total_mib"], gpu["power_cap_w"], gpu["max_power_limit_w"]) == (81559, 700, 700)
    assert (gpu["pcie_gen_max"], gpu["pcie_width_current"], gpu["fabric_state"]) == (5, 16, "Completed")
    assert out["summary"]["driver_version"] == "560.35.03" and out["warnings"] == []


def test_b300_nvlink_status_18_links_at_53_125() -> None:
    out = _parse("nvidia-smi-nvlink/dell-xe9780-b300-7gpu-18-links-53.125-prompt.txt")
    summary = out["summary"]
    assert out["kind"] == "nvidia-smi-nvlink"
    assert (summary["gpus"], summary["active_links_per_gpu"], summary["link_gbps"]) == (7, 18, 53.125)
    assert summary["inactive_links"] == 0


def test_topologies() -> None:
    b300 = _parse("nvidia-smi-topo/dell-xe9780-b300-7gpu-nv18-no-nic-gpu-numa-id-na.txt")["summary"]
    assert (b300["gpus"], b300["min_nvlinks_per_pair"], b300["nics"]) == (7, 18, 0)
    assert b300["full_nvlink_mesh"] is True
    a100 = _parse("nvidia-smi-topo/leonardo-a100-64gb-4gpu-nv4-4nic-pxb-numa-0-1.txt")["summary"]
    assert (a100["gpus"], a100["min_nvlinks_per_pair"], a100["nics"], a100["rail_nics"]) == (4, 4, 4, 4)
    assert {n["name"]: n["close_gpus"] for n in a100["nic_details"]} == {
        "mlx5_0": ["GPU0"], "mlx5_1": ["GPU1"], "mlx5_2": ["GPU2"], "mlx5_3": ["GPU3"]
    }  # fmt: skip
    # `topo -p2p r`: an OK/NS matrix, no link types
    p2p = _parse("nvidia-smi-topo/ml-engineering-h100-8gpu-topo-p2p-r-ok-matrix-not-topo-m.txt")
    assert p2p["kind"] is None


# ---- nccl-tests / rccl-tests -------------------------------------------------------------------------

# file -> (collective, ranks, peak, @max out-of-place, @max in-place, Avg bus bandwidth, rows, nccl version)
COLLECTIVES: dict[str, tuple[Any, ...]] = {
    RCCL_2179: ("all_reduce", 8, 402.55, 402.55, 401.90, 105.615, 29, "2.27.7"),
    PATCHED: ("all_reduce", 4, 7.24, 7.23, 7.22, 3.35322, 29, "2.26.2"),
    "nccl-tests/leonardo-a100-64gb-sendrecv-t2-g1-one-process-two-threads-nccl-info-inside-table.txt": (
        "sendrecv", 2, 73.83, 71.74, 72.88, 24.3607, 29, "2.22.3+cuda12.2"
    ),
    "nccl-tests/gke-a3-tcpx-nccl-benchmarks-wrapper-line-no-rank-list-iters-2-inplace-dip-1gib.txt": (
        "all_reduce", 16, 90.05, 89.54, 90.05, 49.6371, 14, None
    ),
    "rccl-tests/mi250x-4node-32gcd-srun-label-allgather-no-header-collapse-2-8mib.txt": (
        "all_gather", 32, 92.74, 92.66, 92.74, 37.9868, 17, None
    ),
    "rccl-tests/mi250x-4node-32gcd-srun-label-allreduce-no-rank-list-dip-8mib.txt": (
        "all_reduce", 32, 92.89, 92.89, 92.88, 43.7269, 17, None
    ),
}  # fmt: skip


@pytest.mark.parametrize("rel", sorted(COLLECTIVES))
def test_collective_runs_read_off_the_log(rel: str) -> None:
    coll, ranks, peak, at_max, at_max_ip, avg, rows, version = COLLECTIVES[rel]
    out = _parse(rel)
    assert out["kind"] == rel.split("/")[0] and out["errors"] == []
    [run] = out["summary"]["runs"]
    assert (run["collective"], run["ranks"], run["failed"], run["rows"]) == (coll, ranks, False, rows)
    assert run["peak_busbw_gbps"] == approx(peak)
    assert run["busbw_at_max_size_oop_gbps"] == approx(at_max)
    assert run["busbw_at_max_size_ip_gbps"] == approx(at_max_ip)
    assert run["avg_busbw_reported"] == approx(avg)
    assert run["nccl_version"] == version and out["summary"]["nccl_version"] == version


def test_rccl_tests_2_17_library_code_and_names() -> None:
    # `# rccl-tests version 2.17.9-develop:2596ca5f71 rccl-headers=22803 rccl-library=22707`: the library
    # (22707 = 2*10000 + 27*100 + 7), as nccl-tests' `nccl-library=`; it was null
    [run] = _parse(RCCL_2179)["summary"]["runs"]
    assert run["tests_version"] == "2.17.9-develop:2596ca5f71"
    assert (run["nodes"], run["gpus_per_node"], run["gpu_names"]) == (1, 8, ["AMD Radeon Graphics"])


def test_a_library_code_without_the_library_field_falls_back_to_the_headers() -> None:
    from benchmarks.parsers.nccl.reading import read_nccl_version, read_rccl_library

    assert read_rccl_library("# rccl-tests version 2.17.9 rccl-headers=22803") == "2.28.3"
    assert read_rccl_library("rccl-tests: Version develop:33cc4df") is None
    # a patched build's `NCCL version: 22602`; the INFO line's dotted version is kept as printed
    assert read_nccl_version("[gdr116] tid:1, main(), common.cu:699, NCCL version: 22602, CUDA") == "2.26.2"
    assert read_nccl_version("NCCL INFO NCCL version 2.22.3+cuda12.2") == "2.22.3+cuda12.2"


def test_a_collapse_and_the_gpu_names_of_the_other_collective_logs() -> None:
    gather = _parse("rccl-tests/mi250x-4node-32gcd-srun-label-allgather-no-header-collapse-2-8mib.txt")
    [run] = gather["summary"]["runs"]
    # 0.70 GB/s at 1 MiB, 0.03 at 2 MiB (line 8), 15.17 at 16 MiB
    assert [(c["size_bytes"], c["line"]) for c in run["bandwidth_collapses"]] == [(2097152, 8)]
    leonardo = _parse(
        "nccl-tests/leonardo-a100-64gb-sendrecv-t2-g1-one-process-two-threads-nccl-info-inside-table.txt"
    )
    [run] = leonardo["summary"]["runs"]
    assert (run["hosts"], run["gpu_names"]) == (["lrdn2296"], ["NVIDIA A100-SXM-64GB"])
    [run] = _parse(PATCHED)["summary"]["runs"]
    assert (run["hosts"], run["gpu_names"]) == (["gdr116"], ["Tesla V100-SXM2-16GB"])


# ---- perftest ----------------------------------------------------------------------------------------


def test_a_post_list_banner_is_the_banner() -> None:
    # `RDMA_Write Post List BW Test` (`--post_list 64`): the banner was null
    out = _parse(POST_LIST)
    summary = out["summary"]
    assert out["kind"] == "perftest"
    assert summary["banner"] == "RDMA_Write Post List BW Test" and summary["test"] == "ib_write_bw"
    assert (summary["device"], summary["qps"], summary["bidirectional"]) == ("ionic_4", 8, False)
    assert (summary["average_gbps"], summary["max_size_bytes"]) == (approx(397.44), 1048576)
    assert summary["first_line"] == 8


def test_banner_words_between_the_operation_and_test() -> None:
    from benchmarks.parsers.perftest import BANNER_RE, _banner_name

    for banner in (
        "RDMA_Write Bidirectional Post List BW Test",
        "Send BW Multicast Test",
        "Send Latency forwarding Test",
        "Atomic FETCH_AND_ADD BW Test",
    ):
        m = BANNER_RE.search(f"                    {banner}")
        assert m is not None and _banner_name(m) == banner


def test_send_bw_bidirectional_eight_qps_on_roce() -> None:
    out = _parse(SEND_BIDIR)
    summary = out["summary"]
    assert (summary["test"], summary["banner"]) == ("ib_send_bw", "Send Bidirectional BW Test")
    assert (summary["link_layer"], summary["gid_index"]) == ("Ethernet", 3)
    assert (summary["qps"], summary["mtu"]) == (8, 4096)
    assert summary["rows"] == 14 and summary["max_size_bytes"] == 16384
    assert summary["average_gbps"] == approx(194.33) and summary["bw_peak_column_max_gbps"] == approx(194.36)


# ---- fabric ports, diagnostics, kernel log, PCI ------------------------------------------------------


def test_ibstat_seven_disabled_cx8_and_four_active_cx7() -> None:
    summary = _parse("ibstat/dell-xe9780-b300-7-cx8-mt4131-disabled-rate10-4-cx7-ib-rate100.txt")["summary"]
    assert summary["total_ports"] == 11
    assert (summary["active_infiniband_ports"], summary["inactive_ports"]) == (4, 7)
    active = sorted(p["device"] for p in summary["ports"] if p["state"] == "Active")
    assert active == ["mlx5_2", "mlx5_3", "mlx5_4", "mlx5_5"]
    assert {p["rate_gbps"] for p in summary["ports"] if p["state"] == "Active"} == {100}
    assert {p["ca_type"] for p in summary["ports"] if p["state"] == "Down"} == {"MT4131"}


def test_dcgmi_r3_verbose_info_rows_joined() -> None:
    out = _parse("dcgmi-diag/v100-pcie-dcgm339-r3-v-info-rows-wrapped-mid-word-eud-skip.txt")
    summary = out["summary"]
    assert summary["passed"] is True and summary["skipped_tests"] == ["EUD Test"]
    assert summary["level"] == "3"
    assert (summary["dcgm_version"], summary["driver_version"]) == ("3.3.9", "560.35.03")
    details = {t["name"]: t.get("detail") for t in summary["tests"]}
    assert "GPU 0 GPU to Host latency:  2.028 us" in details["PCIe"]
    assert details["Diagnostic"].endswith("calculated at approximately 21688.18 gigaflops during this test")


@pytest.mark.parametrize(
    ("rel", "codes", "events", "bus_ids"),
    [
        ("dmesg/gb200-syslog-kernel-prefix-xid45-caused-by-previous-xid149-145-T.txt", [45], 7,
         {"0000:dc:00", "0000:ed:00", "0000:ba:00", "0000:97:00"}),
        ("dmesg/gpud-pr46-diff-plus-quote-prefix-ctime-xid13-x3-xid109-peermem-T.txt", [13, 109], 4,
         {"0000:cb:00"}),
        ("dmesg/gpud-scan-xid119-gsp-timeout-quoted-minutes-ago-T.txt", [119], 5, {"0000:9b:00"}),
    ],
)  # fmt: skip
def test_xid_lines(rel: str, codes: list[int], events: int, bus_ids: set[str]) -> None:
    out = _parse(rel)
    summary = out["summary"]
    assert out["kind"] == "dmesg"
    assert summary["xid_codes"] == codes and len(summary["xid_events"]) == events
    assert {e["bus_id"] for e in summary["xid_events"]} == bus_ids
    assert summary["gpus_fallen_off_bus"] == []


def test_lspci_one_unnamed_b200_function() -> None:
    summary = _parse("lspci/dstack-b200-lspci-k-d-10de-2901-one-function-devicename-elided.txt")["summary"]
    assert summary["gpus"] == 1 and summary["rdma_nics"] == 0
    assert summary["gpu_functions"][0]["bdf"] == "17:00.0"
