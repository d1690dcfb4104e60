"""The eighth set of real logs, part D: perftest, topology, RDMA ports, dmesg, hccl_test, dcgmi and
nccl-tests (fixtures/real/, origins in fixtures/real/SOURCES.md, "Eighth set, part D").

As in test_real_logs.py, every expected value was read off the log by hand.
"""

from __future__ import annotations

from typing import Any

import pytest

from benchmarks.compare_fabric import compare_perftest, compare_ports

from .test_real_logs import _parse, _warned, approx

COMPLETION_ERROR = "perftest/gke-a3u-roce-write-bw-a-gbits-completion-error-status-10-after-64k.txt"
GLUED_HEADER = "nvidia-smi-topo/vllm-issue31594-b200-13nic-header-nic11nic12-glued-gpu0-3-T.txt"
NO_HEADER = "nvidia-smi-topo/vllm-issue16336-b200-gpu2-no-nvlink-node-sys-rows-only-no-header-T.txt"
TWO_HOSTS_TOPO = "nvidia-smi-topo/gdr114-run-cmd-2hosts-v100-2gpu-4nic-tabs-legend-differs-per-host.txt"
THREE_HOSTS = "ibdev2netdev/aihub-3-hosts-prompts-ip-br-then-ibdev2netdev-12-ports-each-two-bond0.txt"
EFA_CUT = "ibv_devinfo/aws-efa0-ibv-devinfo-head-10-transport-unspecified-port-cut.txt"
DEVINFO_GREP = "ibv_devinfo/dgx-spark-gb10-ibv-devinfo-v-grep-4-lines-2x-100g-no-hca-id.txt"
PROBE_FAILED = "dmesg/linux-stable-cx5-mlx5-load-one-failed-probe-error-22-both-ports-email-quoted.txt"
PCIE_X8 = "dmesg/cx5-blog-dmesg-grep-mlx5-pcie-x8-limited-63gbps-cable-plugged.txt"
HCCL_INIT = "hccl-test/ascend-faq-retcode-7-init-hcclcomm-4-ranks-no-table.txt"
DCGM_JSON = "dcgmi-diag/dcgm-jsonresult-test-real-output-3.1.0-j-r1-8gpu-warning-line-null-entries.txt"
WRAPPER_T = "nccl-tests/gke-a3u-h200-2pod-1gpu-allgather-run-nccl-tests-sh-ssh-hello-lines.txt"


def test_a_perftest_sweep_that_dies_on_a_completion_error_is_a_failed_run() -> None:
    # Lines 41-45: the 64 KiB row, then `Completion with error at client`, `Failed status 10`,
    # `Failed to complete run_iter_bw function successfully`: `-a` stopped at 64 KiB of an 8 MiB sweep.
    r = _parse(COMPLETION_ERROR)
    s = r["summary"]
    assert r["kind"] == "perftest"
    assert s["failed"] is True
    assert s["failed_after_bytes"] == 65536
    assert s["rows"] == 16 and s["max_size_bytes"] == 65536
    assert "Completion with error at client" in s["failure_reason"]
    assert "run_iter_bw" in s["failure_reason"]
    assert _warned(r, "65536 B row", "line 42")


def test_the_failed_perftest_run_is_not_passed_on_its_peak() -> None:
    r = _parse(COMPLETION_ERROR)
    item = {"kind": "perftest", "summary": r["summary"], "filename": COMPLETION_ERROR}
    facts = {"gbps_per_nic": 400, "fabric": "roce", "nics_per_node": 8}
    verdict = compare_perftest(facts, item)[0]
    assert verdict["verdict"] == "cannot-measure"
    assert "failed run" in str(verdict["detail"])


def test_a_header_label_run_together_is_split_into_its_nics() -> None:
    # Line 2: `... NIC10   NIC11NIC12    CPU Affinity`; rows carry 13 NIC cells.
    r = _parse(GLUED_HEADER)
    s = r["summary"]
    assert s["gpus"] == 8
    assert s["nics"] == 13
    assert s["nic_names"][-2:] == ["NIC11", "NIC12"]
    # GPU0 is PIX to NIC11 (12th NIC cell), GPU1 to NIC10, GPU2 to NIC9, GPU3 to NIC8; NIC12 NODE to all.
    details = {n["column"]: n for n in s["nic_details"]}
    assert details["NIC11"]["close_gpus"] == ["GPU0"]
    assert details["NIC12"]["best_gpu_path"] == "NODE"
    assert s["rail_nics"] == 4
    assert _warned(r, "column labels run together", "line 2")


def test_a_matrix_without_header_counts_its_nic_cells() -> None:
    # Each row: 8 GPU cells (NV18 up to the 8th), then 12 NIC cells (one PXB rail per GPU), then affinity.
    r = _parse(NO_HEADER)
    s = r["summary"]
    assert s["gpus"] == 8
    assert s["nics"] == 12
    assert s["rail_nics"] == 6  # the rails of GPU0-5, the rows shown
    assert s["full_nvlink_mesh"] is False and s["min_nvlinks_per_pair"] == 0
    assert {p["pair"] for p in s["pairs_not_nvlink"]} >= {"GPU0-GPU2", "GPU2-GPU7"}
    assert not _warned(r, "no NIC columns")
    assert _warned(r, "GPU rows missing", "GPU6, GPU7")


def test_each_topology_matrix_keeps_its_own_nic_legend() -> None:
    # s114's matrix (header line 4) with its legend (line 24 `NIC0: rocep4s0f0`); s116's follows at line 31.
    # Each host's matrix is read alone (thirty-fourth stop): the two are alike, and the first is shown.
    r = _parse(TWO_HOSTS_TOPO)
    s = r["summary"]
    assert s["header_line"] == 4
    assert s["nic_names"] == ["rocep4s0f0", "rocep4s0f1", "rocep137s0f0", "rocep137s0f1"]
    assert (s["host"], [h["host"] for h in s["per_host"]]) == ("s114", ["s114", "s116"])
    assert all(h["gpus"] == 2 and h["nics"] == 4 for h in s["per_host"])
    assert _warned(r, "`topo -m` matrices of 2 hosts", "s114, s116")


def test_three_hosts_ibdev2netdev_listings_are_kept_with_their_hosts() -> None:
    # Prompts at lines 19, 48, 80; 12 ports each, 10 Up and 2 Down on every host.
    r = _parse(THREE_HOSTS)
    s = r["summary"]
    assert s["total_ports"] == 36
    assert s["hosts"] == ["tpgds-aihub0008", "tpgds-aihub0009", "tpgds-aihub0012"]
    by_host: dict[str, list[dict[str, Any]]] = {}
    for p in s["ports"]:
        by_host.setdefault(p["host"], []).append(p)
    assert [len(v) for v in by_host.values()] == [12, 12, 12]
    assert [sum(p["netdev_state"] == "Up" for p in v) for v in by_host.values()] == [10, 10, 10]
    assert s["netdev_up"] == 30 and s["netdev_down"] == 6
    assert not _warned(r, "repeat an earlier one")
    assert _warned(r, "3 hosts", "tpgds-aihub0012")


def test_ports_of_several_hosts_are_judged_per_host() -> None:
    r = _parse(THREE_HOSTS)
    item = {"kind": "ibdev2netdev", "summary": r["summary"], "filename": THREE_HOSTS}
    verdict = compare_ports({"fabric": "roce", "nics_per_node": 12, "gbps_per_nic": 400}, item)[0]
    assert verdict["measured"] == 12  # one host's Ethernet ports, not 36


def test_a_port_cut_after_its_port_line_has_unknown_state() -> None:
    # Line 10 `\t\tport:\t1` is the last line (`ibv_devinfo | head`).
    r = _parse(EFA_CUT)
    s = r["summary"]
    assert s["total_ports"] == 1
    assert s["ports"][0]["device"] == "efa_0" and s["ports"][0]["state"] is None
    assert s["inactive_ports"] == 0
    assert s["unknown_state_ports"] == 1
    assert _warned(r, "efa_0 port 1", "no state line")


def test_an_ibv_devinfo_v_port_fragment_without_hca_id_is_read() -> None:
    # `PORT_ACTIVE (4)`, `LINK_UP (5)`, `active_width: 2X (16)`, `active_speed: 100.0 Gbps (128)`.
    r = _parse(DEVINFO_GREP)
    assert r["kind"] == "ibv_devinfo"
    port = r["summary"]["ports"][0]
    assert port["state"] == "Active" and port["physical_state"] == "LinkUp"
    assert port["rate_gbps"] == approx(200.0)
    assert _warned(r, "before any hca_id")


def test_mlx5_probe_failures_are_dmesg_evidence() -> None:
    # Lines 13-14 and 22-23: `mlx5_load_one failed with error code -22`, `probe of ... failed with error -22`.
    r = _parse(PROBE_FAILED)
    s = r["summary"]
    assert r["kind"] == "dmesg"
    assert [e["line"] for e in s["nic_errors"]] == [13, 14, 22, 23]
    assert {e["device"] for e in s["nic_errors"]} == {"0000:41:00.0", "0000:41:00.1"}
    assert s["nic_pcie_limited"] == []  # both at x16 (126.016 Gb/s, not limited)
    assert _warned(r, "2 NIC functions failed to load")


def test_a_pcie_link_narrower_than_the_nic_is_dmesg_evidence() -> None:
    r = _parse(PCIE_X8)
    s = r["summary"]
    assert r["kind"] == "dmesg"
    (limited,) = s["nic_pcie_limited"]
    assert limited["device"] == "0001:43:00.0" and limited["line"] == 2
    assert limited["available_gbps"] == approx(63.008) and limited["capable_gbps"] == approx(126.016)
    assert limited["limited_by"] == "8.0 GT/s PCIe x8"
    assert s["nic_errors"] == []
    assert _warned(r, "63.008 Gb/s", "126.016")


def test_an_hccl_test_that_failed_at_init_is_a_failed_run() -> None:
    r = _parse(HCCL_INIT)
    assert r["kind"] == "hccl-test"
    (run,) = r["summary"]["runs"]
    assert run["failed"] is True and run["rows"] == 0
    assert "retcode: 7" in run["failure_reason"] and "init_hcclComm" in run["failure_reason"]
    assert run["failure_line"] == 2
    assert run["requested_max_bytes"] == 2147483648
    assert r["summary"]["failed_runs"] == 1


def test_dcgmi_json_is_refused_with_its_own_reason() -> None:
    r = _parse(DCGM_JSON)
    assert r["kind"] is None
    assert "dcgmi diag -j" in r["errors"][0] and "without -j" in r["errors"][0]


def test_a_wrapper_scripts_t_option_names_the_collective() -> None:
    # Line 1: `... run_nccl_tests.sh -t all_gather -b 1K -g 1 -e 8G ...`.
    r = _parse(WRAPPER_T)
    (run,) = r["summary"]["runs"]
    assert run["collective"] == "all_gather"
    assert run["collective_source"] == "command-line"
    assert not _warned(r, "collective not named")


@pytest.mark.parametrize(
    ("rel", "expected"),
    [
        (
            "perftest/gke-a3u-h200-write-bw-a-use-cuda-dmabuf-roce-gid3-140gbps.txt",
            {"failed": False, "average_gbps": 140.4, "max_size_bytes": 8388608, "link_layer": "Ethernet"},
        ),
        (
            "perftest/dgx-spark-two-rails-concurrent-write-bw-two-rows-no-banner-13gbps.txt",
            {"failed": False, "average_gbps": 13.28, "rows": 2},
        ),
        (
            "perftest/sriov-k8s-roce-atomic-lat-fetch-and-add-8b-row-with-tabs.txt",
            {"failed": False, "latency_typical_usec": 2.65, "link_layer": "Ethernet"},
        ),
        (
            "perftest/sriov-k8s-roce-read-lat-zR-kubectl-two-commands-percentile-columns-cpufreq-x2.txt",
            {"failed": False, "latency_typical_usec": 2.69},
        ),
        (
            "ibstat/wiki-mt25418-ddr-rate20-port1-active-port2-down-polling.txt",
            {"total_ports": 2, "active_infiniband_ports": 1, "inactive_ports": 1},
        ),
        (
            "ibstat/linux-nfs-list-cx3-mlx4-port1-ib-down-polling-port2-eth-disabled-prompt.txt",
            {"total_ports": 2, "active_infiniband_ports": 0, "inactive_ports": 2},
        ),
        (
            "rdma-link/aac10-mi300x-module-load-prompt-8-roce-plus-bond0-all-active.txt",
            {"total_ports": 9, "active_ethernet_ports": 9},
        ),
        (
            "rdma-link/gke-a3u-rdma-system-shared-8-ports-one-netdev-no-lid.txt",
            {"total_ports": 8, "active_ethernet_ports": 8},
        ),
        (
            "rdma-link/openshift-oc-debug-roce-lag-bond0-active-bond1-down-disabled-ls-sys-empty-ibdev2netdev.txt",
            {"total_ports": 2, "active_ethernet_ports": 1, "inactive_ports": 1},
        ),
        (
            "dcgmi-diag/dcgm-issue253-4.2.3-4x-26b9-kubectl-exec-pcie-fail-internal-error-per-gpu-pass-no-closing-rule.txt",
            {"passed": False, "failed_tests": ["pcie"]},
        ),
        (
            "dcgmi-diag/dcgm-issue253-4.4.1-b200-8x-2901-slurm-pcie-fail-parse-error-per-gpu-pass.txt",
            {"passed": False, "failed_tests": ["pcie"]},
        ),
        (
            "dcgmi-nvlink/dcgm-issue198-h100-nvl-2gpu-all-18-links-down-no-nvswitch-T.txt",
            {"active_links_per_gpu": 0},
        ),
        (
            "dmesg/tinygrad-rtx4090-p2p-hack-nvassert-then-xid31-mmu-fault-ce3.txt",
            {"xid_codes": [31], "gpus_fallen_off_bus": [], "nic_errors": []},
        ),
    ],
)
def test_the_other_logs_of_the_set_keep_their_readings(rel: str, expected: dict[str, Any]) -> None:
    s = _parse(rel)["summary"]
    assert {k: s.get(k) for k in expected} == expected
