"""The thirteenth set of real logs: combined cluster-validation files, several tools' output in one file
(fixtures/real/mixed/, origins in fixtures/real/SOURCES.md, "Thirteenth set"). One tool is read per file;
the others detection sees are named in a warning ("also holds output of ..."). `ibdev2netdev -v` (PCI
address, adapter, firmware and the RDMA port state before the netdev) was refused as no supported tool.

As in test_real_logs.py, every expected value was read off the log by hand.
"""

from __future__ import annotations

from typing import Any

import pytest

from benchmarks.compare import compare
from benchmarks.parsers import detect_kind, parse

from .test_real_logs import _parse, _parse_as, _warned, approx

XINGHE = "mixed/sysuest-xinghe-2x-a100-pcie-nvidia-smi-then-topo-m-mlx5.txt"
V100 = "mixed/sysuest-4x-v100-sxm2-nvidia-smi-418-then-topo-m-4-mlx5-pix.txt"
DEVLOG = "mixed/devlog035-2x-quadro-rtx8000-nvlink-s-topo-m-nvlink-e-dmesg-annotated.txt"
IB_GUIDE = "mixed/ib-guide-ibv-devices-ibv-devinfo-d-then-ibstat-mlx5-0-comments.txt"
RDMA_MANUAL = "mixed/rdma-manual-cx4-ibstat-eth-and-ib-then-show-gids.txt"
ROCE_RUNBOOK = "mixed/roce-runbook-topo-m-2gpu-nv18-nic0-nic1-then-ethtool-S-annotated.txt"
GROMACS = "mixed/md-gromacs-numactl-hardware-then-topo-m-4gpu-nv4-4mlx5-rst-indented.txt"
IMBUE = "mixed/imbue-cluster-health-4-h100-ibdev2netdev-column-t-with-comments-T.txt"
AZURE_V = "mixed/nccl-tests-36-azure-nc24rsv3-lspci-tv-ibdev2netdev-v-ib-write-bw-banner-T.txt"
NGC_CUT = "mixed/ngc-multinode-perf-108-ngc-rdma-test-info-lines-bidir-banner-cut-T.txt"
DS_LAUNCHER = "mixed/ml-engineering-deepspeed-pdsh-torch-distributed-gpu-test-2workers-is-ok.txt"
GENESIS = "mixed/genesiscloud-torch-distributed-gpu-test-2node-rank0-rank1-quoted.txt"
ALL_REDUCE_BENCH = "mixed/ml-engineering-all-reduce-bench-4node-markdown-busbw-algbw-table.txt"
SUPERBENCH = "mixed/superbench-results-summary-md-kernel-launch-nccl-bw-ib-loopback.txt"

ALSO = "the file also holds output of"


def _verdicts(facts: dict[str, Any], result: dict[str, Any], rel: str) -> dict[str, dict[str, Any]]:
    return {str(v["claim"]): v for v in compare(facts, dict(result, filename=rel))}


def _also(result: dict[str, Any]) -> list[str]:
    """The "also holds output of ..." warnings (the other tools detection saw)."""
    return [w for w in result["warnings"] if ALSO in w]


def _parse_text(text: str) -> dict[str, Any]:
    return parse(text.encode(), filename="x.txt").as_dict()


# ---- nvidia-smi table, then topo -m: topo is read, the table named ----------------------------------------


def test_xinghe_2x_a100_pcie_topo_is_read_and_the_nvidia_smi_table_named() -> None:
    # Lines 1-25 `$ nvidia-smi` (455.32.00, 2x A100-PCIE-40GB), lines 26-40 `$ nvidia-smi topo -m`:
    # line 28 `GPU0  X  NODE  NODE  32-63  1`, line 29 `GPU1  NODE  X  NODE`, one NIC column mlx5_0 (NODE).
    r = _parse(XINGHE)
    assert r["kind"] == "nvidia-smi-topo"
    s = r["summary"]
    assert s["header_line"] == 27
    assert s["nics"] == 1 and s["nic_names"] == ["mlx5_0"]
    assert s["rail_nics"] == 0  # NODE to both GPUs: no PIX/PXB NIC
    assert s["nic_details"][0]["best_gpu_path"] == "NODE"
    assert s["full_nvlink_mesh"] is False and s["max_nvlinks_per_pair"] == 0
    assert s["pairs_not_nvlink"] == [{"pair": "GPU0-GPU1", "connection": "NODE"}]
    (also,) = _also(r)
    assert "nvidia-smi," in also and "here nvidia-smi-topo" in also
    facts = {"gpu": "A100-PCIE-40GB", "gpus_per_node": 2, "intra_node": "pcie", "fabric": "infiniband",
             "gbps_per_nic": 100, "nics_per_node": 1}  # fmt: skip
    v = _verdicts(facts, r, XINGHE)
    assert v["GPUs per node"]["verdict"] == "pass" and v["GPUs per node"]["lines"] == [28, 29]
    # The matrix's rule: a NIC only NODE-near to every GPU is no GPU-fabric NIC.
    nics = v["GPU-fabric NICs per node"]
    assert nics["verdict"] == "fail" and nics["measured"] == 0 and nics["expected"] == 1


def test_xinghe_nvidia_smi_table_is_readable_on_its_own() -> None:
    # What the warning asks for: the table, read by the nvidia-smi parser, shows what the file holds.
    s = _parse_as("nvidia-smi", XINGHE)["summary"]
    assert s["gpu_model_counts"] == {"A100-PCIE-40GB": 2}
    assert s["driver_version"] == "455.32.00" and s["cuda_version"] == "11.1"
    assert [g["bus_id"] for g in s["gpu_list"]] == ["00000000:CA:00.0", "00000000:E3:00.0"]
    assert [g["line"] for g in s["gpu_list"]] == [10, 14]


def test_sysuest_4x_v100_topo_mesh_fails_on_the_two_node_pairs_and_the_table_is_named() -> None:
    # Lines 30-33: GPU0-GPU1 NV2, GPU0-GPU2 NV1, GPU0-GPU3 NODE, GPU1-GPU3 NV2, GPU1-GPU2 NODE, GPU2-GPU3 NV2;
    # mlx5_0/1 PIX to GPU0/1, mlx5_2/3 PIX to GPU2/3. Lines 1-27: nvidia-smi 418.67, 4x `Tesla V100-SXM2...`.
    r = _parse(V100)
    assert r["kind"] == "nvidia-smi-topo"
    s = r["summary"]
    assert s["header_line"] == 29
    assert s["min_nvlinks_per_pair"] == 0 and s["max_nvlinks_per_pair"] == 2
    assert s["gpu_pair_connections"] == {"NV#": 4, "NODE": 2}
    assert s["pairs_not_nvlink"] == [
        {"pair": "GPU0-GPU3", "connection": "NODE"},
        {"pair": "GPU1-GPU2", "connection": "NODE"},
    ]
    assert s["nic_names"] == ["mlx5_0", "mlx5_1", "mlx5_2", "mlx5_3"] and s["rail_nics"] == 4
    assert [d["close_gpus"] for d in s["nic_details"]] == [["GPU0", "GPU1"]] * 2 + [["GPU2", "GPU3"]] * 2
    (also,) = _also(r)
    assert "nvidia-smi," in also
    facts = {"gpus_per_node": 4, "intra_node": "nvlink-mesh", "fabric": "infiniband", "gbps_per_nic": 100,
             "nics_per_node": 4}  # fmt: skip
    v = _verdicts(facts, r, V100)
    assert v["GPUs per node"]["verdict"] == "pass"
    mesh = v["full NVLink mesh"]
    assert mesh["verdict"] == "fail"
    assert "GPU0-GPU3=NODE" in mesh["detail"] and "GPU1-GPU2=NODE" in mesh["detail"]
    nics = v["GPU-fabric NICs per node"]
    assert nics["verdict"] == "pass" and nics["measured"] == 4


def test_sysuest_4x_v100_nvidia_smi_table_is_readable_on_its_own() -> None:
    s = _parse_as("nvidia-smi", V100)["summary"]
    assert s["gpu_model_counts"] == {"Tesla V100-SXM2...": 4}
    assert s["driver_version"] == "418.67" and s["cuda_version"] == "10.1"
    assert [g["memory_total_mib"] for g in s["gpu_list"]] == [16130] * 4


# ---- four NVLink tools in one block -----------------------------------------------------------------------


def test_devlog_nvlink_status_is_read_and_topo_named_the_rest_is_not_a_supported_tool() -> None:
    # Lines 1-7 `nvlink --status`: 2x Quadro RTX 8000, Link 0/1 at 25.781 GB/s each; lines 9-12 a topo -m
    # (GPU0-GPU1 NV2, annotated `← ...`); lines 14-18 a hand-summed `nvlink -e` (no `Link N:` rows); lines
    # 20-22 `dmesg | grep -i nvlink` with only an init line (no NVRM/Xid): topo is the one other tool.
    r = _parse(DEVLOG)
    assert r["kind"] == "nvidia-smi-nvlink"
    s = r["summary"]
    assert s["gpu_models"] == ["Quadro RTX 8000"]
    assert s["active_links_per_gpu"] == 2 and s["inactive_links"] == 0
    assert s["link_gbps"] == approx(25.781) and s["link_speed_unit"] == "GB/s"
    assert [g["line"] for g in s["per_gpu"]] == [2, 5]
    assert [g["gbytes_per_s_total"] for g in s["per_gpu"]] == [approx(51.562)] * 2
    (also,) = _also(r)
    assert "output of nvidia-smi-topo," in also and "dmesg" not in also
    v = _verdicts({"gpu": "RTX8000", "gpus_per_node": 2, "intra_node": "nvlink-mesh"}, r, DEVLOG)
    assert v["active NVLinks per GPU"]["measured"] == 2


def test_devlog_topo_block_is_readable_on_its_own() -> None:
    s = _parse_as("nvidia-smi-topo", DEVLOG)["summary"]
    assert s["full_nvlink_mesh"] is True and s["min_nvlinks_per_pair"] == 2 and s["nics"] == 0


# ---- RDMA port listings -----------------------------------------------------------------------------------


def test_ib_guide_ibstat_is_read_and_ibv_devinfo_named() -> None:
    # Lines 2-5 `ibv_devices` (not a supported tool), 8-25 `ibv_devinfo -d mlx5_0` (PORT_ACTIVE, InfiniBand),
    # 28-45 `ibstat mlx5_0`: Port 1 (line 36) Active, LinkUp, Rate 100, InfiniBand. Both listings agree.
    r = _parse(IB_GUIDE)
    assert r["kind"] == "ibstat"
    s = r["summary"]
    assert s["total_ports"] == 1 and s["devices"] == ["mlx5_0"]
    assert s["active_infiniband_ports"] == 1 and s["inactive_ports"] == 0
    assert s["active_infiniband_rates_gbps"] == {"100.0": 1}
    (also,) = _also(r)
    assert "output of ibv_devinfo," in also
    v = _verdicts({"fabric": "infiniband", "gbps_per_nic": 100, "nics_per_node": 1}, r, IB_GUIDE)
    row = v["InfiniBand GPU-fabric ports"]
    assert row["verdict"] == "pass" and row["measured"] == 1 and row["lines"] == [36]
    alone = _parse_as("ibv_devinfo", IB_GUIDE)["summary"]
    assert alone["active_infiniband_ports"] == 1 and alone["devices"] == ["mlx5_0"]


def test_rdma_manual_ibstat_eth_active_ib_down_show_gids_not_a_tool() -> None:
    # mlx5_0 Port 1 (line 9): Active, LinkUp, 100, Ethernet; mlx5_1 Port 1 (line 26): Down, Disabled, 10,
    # InfiniBand. Lines 41-47 `show_gids` (no supported tool): no "also holds" warning.
    r = _parse(RDMA_MANUAL)
    assert r["kind"] == "ibstat"
    s = r["summary"]
    assert s["total_ports"] == 2 and s["devices"] == ["mlx5_0", "mlx5_1"]
    assert s["active_ethernet_ports"] == 1 and s["active_infiniband_ports"] == 0 and s["inactive_ports"] == 1
    assert s["active_ethernet_rates_gbps"] == {"100.0": 1}
    assert _also(r) == []
    v = _verdicts({"fabric": "roce", "gbps_per_nic": 100, "nics_per_node": 2}, r, RDMA_MANUAL)
    row = v["Ethernet GPU-fabric ports"]
    assert row["verdict"] == "fail" and row["measured"] == 1 and row["lines"] == [9]
    assert "mlx5_1/1 Down" in row["detail"]


# ---- topo -m with unsupported tools around it -------------------------------------------------------------


def test_roce_runbook_topo_nv18_two_pix_nics_ethtool_not_a_tool() -> None:
    # Lines 2-6: GPU0-GPU1 NV18, NIC0 PIX to GPU0, NIC1 PIX to GPU1 (no NIC legend); lines 8-14 `ethtool -S`.
    r = _parse(ROCE_RUNBOOK)
    assert r["kind"] == "nvidia-smi-topo"
    s = r["summary"]
    assert s["header_line"] == 2 and s["min_nvlinks_per_pair"] == 18 and s["full_nvlink_mesh"] is True
    assert s["nic_names"] == ["NIC0", "NIC1"] and s["rail_nics"] == 2
    assert [d["close_gpus"] for d in s["nic_details"]] == [["GPU0"], ["GPU1"]]
    assert _also(r) == []
    facts = {"gpus_per_node": 2, "intra_node": "nvlink-mesh", "fabric": "roce", "gbps_per_nic": 400,
             "nics_per_node": 2}  # fmt: skip
    v = _verdicts(facts, r, ROCE_RUNBOOK)
    assert [v[c]["verdict"] for c in ("GPUs per node", "full NVLink mesh", "GPU-fabric NICs per node")] == [
        "pass"
    ] * 3


def test_gromacs_numactl_then_indented_topo_nv4_four_pxb_nics() -> None:
    # Lines 1-12 `numactl --hardware`, prose, then a 4-space-indented topo -m (header line 24): NV4 between
    # all four GPUs, mlx5_N PXB to GPUN only.
    r = _parse(GROMACS)
    assert r["kind"] == "nvidia-smi-topo"
    s = r["summary"]
    assert s["header_line"] == 24
    assert s["gpu_pair_connections"] == {"NV#": 6} and s["min_nvlinks_per_pair"] == 4
    assert s["nic_names"] == ["mlx5_0", "mlx5_1", "mlx5_2", "mlx5_3"] and s["rail_nics"] == 4
    assert {d["best_gpu_path"] for d in s["nic_details"]} == {"PXB"}
    assert _also(r) == []
    facts = {"gpus_per_node": 4, "intra_node": "nvlink-mesh", "fabric": "infiniband", "gbps_per_nic": 200,
             "nics_per_node": 4}  # fmt: skip
    v = _verdicts(facts, r, GROMACS)
    assert v["GPUs per node"]["lines"] == [25, 26, 27, 28]
    assert v["full NVLink mesh"]["verdict"] == "pass" and v["GPU-fabric NICs per node"]["verdict"] == "pass"


# ---- ibdev2netdev, plain and -v ---------------------------------------------------------------------------


def test_imbue_plain_ibdev2netdev_column_t_with_comments_keeps_the_state_unknown() -> None:
    # Lines 2-13: 8 `ibp*` (IPoIB, CX-7) and 4 `enp*` (CX-6 Ethernet) netdevs; only mlx5_1 and mlx5_7
    # (Ethernet) are (Up). Trailing `# CX-7 n/8` comments are the author's.
    r = _parse(IMBUE)
    assert r["kind"] == "ibdev2netdev"
    s = r["summary"]
    assert s["total_ports"] == 12 and s["infiniband_ports"] == 8 and s["ethernet_ports"] == 4
    assert s["netdev_up"] == 2 and s["netdev_down"] == 10
    assert s["active_infiniband_ports"] is None and s["inactive_ports"] is None
    assert all(p["state"] is None for p in s["ports"])
    assert _warned(r, "netdev carrier (Up/Down), not the RDMA port state")
    assert _also(r) == []
    facts = {"gpu": "H100-SXM-80GB", "gpus_per_node": 8, "fabric": "infiniband", "gbps_per_nic": 400,
             "nics_per_node": 8}  # fmt: skip
    row = _verdicts(facts, r, IMBUE)["InfiniBand ports per node"]
    assert row["verdict"] == "pass" and row["measured"] == 8
    assert row["lines"] == [2, 4, 5, 7, 8, 9, 10, 13]
    assert "does not show the RDMA port state" in row["detail"]


def test_azure_ibdev2netdev_v_is_read_with_its_port_state() -> None:
    # Line 14: `0002:00:02.0 mlx4_0 (MT4100 - NA)  fw 2.43.7008 port 1 (ACTIVE) ==> ib0 (Down)`: the RDMA
    # port is ACTIVE, the IPoIB netdev's carrier Down. Lines 1-11 `lspci -tv` (a tree: not read), lines 16-22
    # the start of an ib_write_bw banner, cut before any result: neither is a tool detection scores.
    r = _parse(AZURE_V)
    assert r["kind"] == "ibdev2netdev"
    s = r["summary"]
    (port,) = s["ports"]
    assert port["device"] == "mlx4_0" and port["port"] == 1 and port["line"] == 14
    assert port["state"] == "Active" and port["netdev"] == "ib0" and port["netdev_state"] == "Down"
    assert port["link_layer"] == "InfiniBand"
    assert s["active_infiniband_ports"] == 1 and s["inactive_ports"] == 0 and s["unknown_state_ports"] == 0
    assert s["netdev_up"] == 0 and s["netdev_down"] == 1
    assert _warned(r, "ibdev2netdev -v", "(STATE)")
    assert not _warned(r, "not the RDMA port state")
    assert _also(r) == []
    facts = {"gpu": "V100-PCIE-16GB", "gpus_per_node": 4, "fabric": "infiniband", "gbps_per_nic": 56,
             "nics_per_node": 1}  # fmt: skip
    v = _verdicts(facts, r, AZURE_V)
    ports = v["InfiniBand GPU-fabric ports"]
    assert ports["verdict"] == "pass" and ports["measured"] == 1 and ports["lines"] == [14]
    # ibdev2netdev prints no rate.
    assert v["GPU-fabric port rate (Gb/s)"]["verdict"] == "cannot-measure"


VERBOSE = (
    "0000:03:00.0 mlx5_0 (MT4119 - MT1822X00433) CX556A - ConnectX-5 QSFP28 fw 16.25.1020 port 1 (ACTIVE) "
    "==> ib0 (Up)\n"
    "0000:03:00.1 mlx5_1 (MT4119 - MT1822X00433) CX556A - ConnectX-5 QSFP28 fw 16.25.1020 port 1 (DOWN) "
    "==> ib1 (Down)\n"
    "0000:82:00.0 mlx5_2 (MT4119 - MT1822X00433) CX556A - ConnectX-5 QSFP28 fw 16.25.1020 port 1 (INIT) "
    "==> ib2 (Up)\n"
)


def test_ibdev2netdev_v_with_a_description_judges_down_and_init_ports_not_active() -> None:
    # The MLNX_OFED form with the board description between the part and `fw`; INIT is no working port.
    r = _parse_text(VERBOSE)
    assert r["kind"] == "ibdev2netdev"
    s = r["summary"]
    assert [p["state"] for p in s["ports"]] == ["Active", "Down", "Init"]
    assert [p["device"] for p in s["ports"]] == ["mlx5_0", "mlx5_1", "mlx5_2"]
    assert s["active_infiniband_ports"] == 1 and s["inactive_ports"] == 2 and s["netdev_up"] == 2
    row = _verdicts({"fabric": "infiniband", "nics_per_node": 3}, r, "x.txt")["InfiniBand GPU-fabric ports"]
    assert row["verdict"] == "fail" and row["measured"] == 1
    assert "mlx5_1/1 Down" in row["detail"] and "mlx5_2/1 Init" in row["detail"]


def test_plain_ibdev2netdev_lines_with_a_verbose_one_keep_the_netdev_reading() -> None:
    # A port without its state: the counts stay unknown and the ports are judged from netdev names.
    r = _parse_text("mlx5_0 port 1 ==> ib0 (Up)\n" + VERBOSE.splitlines()[1] + "\n")
    s = r["summary"]
    assert [p["state"] for p in s["ports"]] == [None, "Down"]
    assert s["active_infiniband_ports"] is None and s["inactive_ports"] is None
    assert _warned(r, "not the RDMA port state")
    row = _verdicts({"fabric": "infiniband", "nics_per_node": 2}, r, "x.txt")["InfiniBand ports per node"]
    assert row["measured"] == 2


@pytest.mark.parametrize(
    "line",
    [
        "0002:00:02.0 mlx4_0 (MT4100 - NA)  fw 2.43.7008 port 1 (ACTIVE) ==> ib0 (Down)",
        "mlx5_0 (MT4123 - MT1916X01234) fw 20.31.1014 port 1 (ARMED) ==> ibp12s0 (Down)",
        "0000:c1:00.0 mlx5_3 (MT4129 - NA) ConnectX-7 (dual port) fw 28.39.1002 port 1 (ACTIVE) ==> ib3 (Up)",
    ],
)
def test_ibdev2netdev_v_lines_are_detected(line: str) -> None:
    assert detect_kind(line + "\n").kind == "ibdev2netdev"


def test_a_board_description_with_brackets_is_read_through_to_fw() -> None:
    # The VPD product name may hold brackets (`HDR IB (200Gb/s)`): the port is still read, its state too.
    r = _parse_text(
        "0000:c1:00.0 mlx5_3 (MT4123 - MT2004X00001) ConnectX-6 VPI adapter card, HDR IB (200Gb/s) and "
        "200GbE, single-port QSFP56 fw 20.31.1014 port 1 (ACTIVE) ==> ib3 (Up)\n"
    )
    assert r["kind"] == "ibdev2netdev"
    (port,) = r["summary"]["ports"]
    assert (port["device"], port["port"], port["state"], port["netdev"]) == ("mlx5_3", 1, "Active", "ib3")


# ---- refused: no supported tool, or one cut before its result ---------------------------------------------


def test_ngc_rdma_test_wrapper_cut_before_the_table_is_refused() -> None:
    # Lines 5-8 `INFO: run ib_write_bw ...`, line 11 `RDMA_Write Bidirectional BW Test`, banner to line 18:
    # no result row. Refused; the reason is the generic one (the hunt's P4: it could name the cut banner).
    r = _parse(NGC_CUT)
    assert r["kind"] is None
    assert "no signature of a supported tool" in r["errors"][0]


def test_deepspeed_launcher_of_a_torch_distributed_check_is_refused() -> None:
    # Lines 2-14 DeepSpeed runner/launch lines, lines 17-18 `[hope-0] is OK (global rank: N/2)`: no training.
    r = _parse(DS_LAUNCHER)
    assert r["kind"] is None
    assert "deepspeed signature found but no iteration/step line could be read" in r["errors"][0]


@pytest.mark.parametrize("rel", [GENESIS, ALL_REDUCE_BENCH, SUPERBENCH])
def test_unsupported_reports_are_refused_with_the_generic_reason(rel: str) -> None:
    # torch-distributed-gpu-test output (`is OK (global rank: 0/2)`), all_reduce_bench.py's markdown table
    # (`| 32MiB | 98.34GBps | 50.76GBps |`) and a SuperBench summary (`nccl-bw/allreduce_8388608_busbw:0 |
    # mean | 89.51`): no tool ClusterScout reads, nothing measured.
    r = _parse(rel)
    assert r["kind"] is None and r["summary"] == {}
    assert "no signature of a supported tool" in r["errors"][0]
