"""Review findings (fixes G): the kernel log's NIC lines judged, an lspci listing the author cut judged as a
minimum, a headerless topology whose NIC columns cannot be told, a perftest error after a complete table,
and the weakest host of a port listing chosen by its good ports. The inputs are the review's probes, inline.
"""

from __future__ import annotations

from typing import Any

from benchmarks.compare import compare
from benchmarks.compare_fabric import compare_ports
from benchmarks.parsers import parse

from .test_compare import H100_IB

A100_2NIC = {**H100_IB, "gpu": "A100-SXM-80GB", "nics_per_node": 2, "gbps_per_nic": 200}


def _verdicts(text: str, facts: dict[str, Any]) -> dict[str, dict[str, Any]]:
    result = parse(text).as_dict()
    item = {"kind": result["kind"], "filename": "probe.txt", "summary": result["summary"]}
    return {str(row["claim"]): row for row in compare(facts, item)}


DMESG_NIC_ONLY = "\n".join(
    [
        "[    7.412345] mlx5_core 0000:41:00.0: firmware version: 28.39.1002",
        "[    9.876600] mlx5_core 0000:41:00.0: init_one:1371:(pid 803): mlx5_load_one failed with error "
        "code -110",
        "[    9.876700] mlx5_core: probe of 0000:41:00.0 failed with error -110",
        "[   10.100000] mlx5_core 0000:c1:00.0: 63.008 Gb/s available PCIe bandwidth, limited by 8.0 GT/s "
        "PCIe x8 link at 0000:c0:01.0 (capable of 504.112 Gb/s with 32.0 GT/s PCIe x16 link)",
    ]
)


def test_a_kernel_log_with_only_nic_failures_fails_the_nics_and_cannot_measure_the_gpus() -> None:
    rows = _verdicts(DMESG_NIC_ONLY, H100_IB)
    assert rows["usable GPUs (kernel log)"]["verdict"] == "cannot-measure"
    failed = rows["RDMA NICs that failed to load"]
    assert (failed["verdict"], failed["measured"], failed["lines"]) == ("fail", 1, [2, 3])
    pcie = rows["NIC PCIe bandwidth (Gb/s)"]
    assert (pcie["verdict"], pcie["expected"], pcie["measured"]) == ("fail", 400, 63.008)


def test_a_nic_whose_pcie_link_carries_the_offered_rate_passes() -> None:
    line = (
        "mlx5_core 0000:c1:00.0: 252.048 Gb/s available PCIe bandwidth, limited by 16.0 GT/s PCIe x16 link "
        "at 0000:c0:01.0 (capable of 504.112 Gb/s with 32.0 GT/s PCIe x16 link)"
    )
    rows = _verdicts(line, A100_2NIC)
    assert rows["NIC PCIe bandwidth (Gb/s)"]["verdict"] == "pass"
    assert "RDMA NICs that failed to load" not in rows
    no_rate = _verdicts(line, {**A100_2NIC, "gbps_per_nic": None})
    assert no_rate["NIC PCIe bandwidth (Gb/s)"]["verdict"] == "cannot-measure"


def test_a_kernel_log_with_gpu_lines_still_judges_the_gpus_and_adds_no_nic_rows() -> None:
    log = "[ 100.0] NVRM: GPU at PCI:0000:5d:00: GPU-1234\n[ 100.1] NVRM: Xid (PCI:0000:5d:00): 31, pid=1\n"
    rows = _verdicts(log, H100_IB)
    assert parse(log).summary["nvrm_lines"] == 2
    assert rows["usable GPUs (kernel log)"]["verdict"] == "pass"
    assert list(rows) == ["usable GPUs (kernel log)"]


LSPCI_ELIDED = """$ lspci | grep -i mellanox
18:00.0 Infiniband controller: Mellanox Technologies MT2910 Family [ConnectX-7]
29:00.0 Infiniband controller: Mellanox Technologies MT2910 Family [ConnectX-7]
... (8 total ConnectX-7 devices) ...
db:00.0 Infiniband controller: Mellanox Technologies MT2910 Family [ConnectX-7]
"""


def test_an_lspci_listing_the_author_cut_is_a_minimum_not_a_fail() -> None:
    row = _verdicts(LSPCI_ELIDED, H100_IB)["RDMA NIC functions per node"]
    assert (row["verdict"], row["measured"]) == ("cannot-measure", 3)
    assert "8 ConnectX-7 devices" in row["detail"] and "minimum" in row["detail"]
    enough = _verdicts(LSPCI_ELIDED, A100_2NIC)["RDMA NIC functions per node"]
    assert enough["verdict"] == "pass" and "minimum" in enough["detail"]


def test_a_wrapped_lspci_name_starting_with_dots_is_not_an_elision() -> None:
    listing = (
        "e1:00.0 Ethernet controller: Broadcom Inc. and subsidiaries BCM57414 NetXtreme-E 10Gb/25Gb RDMA\n"
        "...Device 1021 (rev 01), 2 ports in total\n"
        "18:00.0 Infiniband controller: Mellanox Technologies MT2910 Family [ConnectX-7]\n"
        "... (2 total devices) ...\n"
        "…\n"
    )
    summary = parse(listing).summary
    assert summary["elided_lines"] == [4, 5]
    assert summary["stated_totals"] == [{"count": 2, "what": "devices", "line": 4}]


TOPO_PCIE_NO_HEADER = """GPU0\t X \tPIX\tSYS\tSYS\tPIX\tSYS\t0-31\t0\t\tN/A
GPU1\tPIX\t X \tSYS\tSYS\tPIX\tSYS\t0-31\t0\t\tN/A
GPU2\tSYS\tSYS\t X \tPIX\tSYS\tPIX\t32-63\t1\t\tN/A
GPU3\tSYS\tSYS\tPIX\t X \tSYS\tPIX\t32-63\t1\t\tN/A
"""
TOPO_BRIDGE_PAIR_NO_HEADER = """GPU0\t X \tNV4\tSYS\tSYS\tPIX\tSYS\t0-31\t0\t\tN/A
GPU1\tNV4\t X \tSYS\tSYS\tPIX\tSYS\t0-31\t0\t\tN/A
"""


def test_a_headerless_topology_whose_nic_columns_cannot_be_told_cannot_measure_the_nics() -> None:
    for text in (TOPO_PCIE_NO_HEADER, TOPO_BRIDGE_PAIR_NO_HEADER):
        summary = parse(text).summary
        assert (summary["nics"], summary["rail_nics"]) == (None, None)
        row = _verdicts(text, A100_2NIC)["GPU-fabric NICs per node"]
        assert (row["verdict"], row["measured"]) == ("cannot-measure", None)


def test_a_headerless_topology_on_an_nvlink_switch_still_tells_its_nics() -> None:
    gpus = 4
    rows = []
    for g in range(gpus):
        cells = ["X" if i == g else "NV18" for i in range(gpus)] + [
            "PIX" if i == g else "SYS" for i in range(gpus)
        ]
        rows.append(f"GPU{g}\t" + "\t".join(cells) + "\t0-31\t0\t\tN/A")
    summary = parse("\n".join(rows)).summary
    assert (summary["gpus"], summary["nics"], summary["rail_nics"]) == (4, 4, 4)


PERFTEST_HEAD = [
    "                    RDMA_Write BW Test",
    " Link type       : IB",
    "---------------------------------------------------------------------------------------",
    " #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]",
    " 4194304    5000             140.57             140.34               0.004182",
    " 8388608    5000             140.55             140.40               0.002092",
]
RULE = "---------------------------------------------------------------------------------------"
FLUSH_ERROR = [" Completion with error at server", " Failed status 5: wr_id 0 syndrom 0xf9"]


def test_a_perftest_error_after_the_closed_table_is_warned_and_the_figures_are_judged() -> None:
    text = "\n".join([*PERFTEST_HEAD, RULE, "deallocating GPU buffer 000078e9f8800000", *FLUSH_ERROR])
    result = parse(text)
    assert result.summary["failed"] is False
    assert result.summary["errors_after_results"] == {"line": 9, "text": "Completion with error at server"}
    assert any("did not stop the sweep" in w for w in result.warnings)
    row = _verdicts(text, H100_IB)["NIC port bandwidth (Gb/s)"]
    assert (row["verdict"], row["measured"]) == ("fail", 140.4)


def test_a_perftest_error_before_the_table_closed_still_fails_the_run() -> None:
    result = parse("\n".join([*PERFTEST_HEAD, *FLUSH_ERROR]))
    assert result.summary["failed"] is True and result.summary["failed_after_bytes"] == 8388608
    assert "errors_after_results" not in result.summary


def _ports(host: str, active: int, layer: str) -> list[dict[str, Any]]:
    return [
        {"device": f"mlx5_{i}", "port": 1, "state": "Active", "physical_state": "LinkUp",
         "link_layer": layer, "rate_gbps": 400, "line": i + 1, "host": host}
        for i in range(active)
    ]  # fmt: skip


def test_the_weakest_host_is_chosen_by_its_good_ports_then_by_its_worse_verdicts() -> None:
    # node-b has as many good ports (none) as node-a, but its active ports are on the wrong link layer.
    ports = _ports("node-a", 0, "InfiniBand") + [
        {**p, "state": "Down"} for p in _ports("node-a", 2, "InfiniBand")
    ] + _ports("node-b", 2, "Ethernet")  # fmt: skip
    rows = compare_ports(H100_IB, {"kind": "ibstat", "summary": {"ports": ports}})
    assert "node-b" in rows[0]["detail"]
    assert [row["verdict"] for row in rows] == ["fail", "fail"]
    fewer = _ports("node-a", 8, "InfiniBand") + _ports("node-b", 7, "InfiniBand")
    rows = compare_ports(H100_IB, {"kind": "ibstat", "summary": {"ports": fewer}})
    assert rows[0]["measured"] == 7 and "node-b" in rows[0]["detail"]
