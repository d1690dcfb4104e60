"""The eleventh set of real logs: NIC evidence (ibstat, ibv_devinfo, ibdev2netdev, `rdma link`, lspci;
fixtures/real/, origins in fixtures/real/SOURCES.md, "Eleventh set: NIC evidence"). Soft-RoCE `rxe_0` passed
as a RoCE port, ports whose rate `rdma link` does not print passed a 400G claim, ibdev2netdev counted IPoIB
virtual functions as ports, an active port cut before its Link layer line failed a 1-port claim, and lspci
counted a GB200 tray's BlueField-3 Ethernet functions as InfiniBand NICs, its Grace root ports as NVSwitches
and its ConnectX-7 internal bridges as NVLink-management bridges.

As in test_real_logs.py, every expected value was read off the log by hand.
"""

from __future__ import annotations

from typing import Any

from benchmarks.compare import compare
from benchmarks.parsers import parse

from .test_real_logs import REAL, _parse, _warned, approx

H100_POLLING = "ibstat/gpud-h100-8x400-ib-mlx5-polling-rate10-plus-eth.txt"
IBPANIC = "ibstat/gpud-a100-ibstat-39-ibpanic-exit255.txt"
AZURE_IBSTAT = "ibstat/gpud-a100-ibstat-47-all-active.txt"
PR482 = "ibstat/gpud-pr482-cx7-ndr-state-down-polling-rate10-description-T.txt"
KAUST = "ibstat/kaust-ibex-login-cx6-hdr100-ibv_devinfo-then-ibstat-rst-indent.txt"
SRIOV_POD = "ibstat/network-operator-249-sriov-pod-cx6-ib-state-down-physical-linkup-200-T.txt"
CX3_CUT = "ibstat/rdma-core-pr847-cx3-mlx4-ibwarn-debug-lines-port1-disabled-port2-fdr56-cut-T.txt"
DEEPEP = "ibv_devinfo/deepep-60-cx7-mlx5_0-port-down-ib-mlx5_1-cut-T.txt"
POD_INIT = "ibv_devinfo/network-operator-1646-pod-flattened-indent-port-init-twice-T.txt"
VFS = "ibdev2netdev/sriov-op-635-ib-vfs-down-then-lspci-grep-mellanox-vfs-T.txt"
RXE = "rdma-link/3fs-263-soft-roce-rxe0-active-T.txt"
CX6DX = "rdma-link/3fs-pr283-cx6dx-lspci-grep-net-then-rdma-link-2-active-T.txt"
AZURE_LSPCI = "lspci/gpud-azure-ndv4-a100-lspci-nn-cx6-vf-domains.txt"
GB200 = "lspci/gpud-gb200-lspci-cx7-bridges.txt"
VVV = "lspci/gpud-pkg-pci-lspci-vvv-full-host.txt"

H8X400_IB = {"gpu": "H100-SXM-80GB", "gpus_per_node": 8, "fabric": "infiniband", "gbps_per_nic": 400,
             "nics_per_node": 8}  # fmt: skip
H8X400_ROCE = dict(H8X400_IB, fabric="roce")
A8X200_IB = {"gpu": "A100-SXM-80GB", "gpus_per_node": 8, "fabric": "infiniband", "gbps_per_nic": 200,
             "nics_per_node": 8}  # fmt: skip
GB200_IB = {
    "gpu": "GB200",
    "gpus_per_node": 4,
    "fabric": "infiniband",
    "gbps_per_nic": 400,
    "nics_per_node": 4,
}


def _facts(base: dict[str, Any], **change: Any) -> dict[str, Any]:
    return dict(base, **change)


def _parse_text(text: str, name: str = "x.txt") -> dict[str, Any]:
    return parse(text.encode(), filename=name).as_dict()


def _verdicts(facts: dict[str, Any], result: dict[str, Any], rel: str = "x.txt") -> dict[str, dict[str, Any]]:
    item = dict(result, filename=rel)
    return {str(v["claim"]): v for v in compare(facts, item)}


def _row(facts: dict[str, Any], result: dict[str, Any], claim: str) -> dict[str, Any]:
    return _verdicts(facts, result)[claim]


# ---- ibstat ---------------------------------------------------------------------------------------------


def test_an_h100_ethernet_ibstat_with_a_polling_port_is_read_port_by_port() -> None:
    # 12 CAs, every `Link layer: Ethernet`; Rate 400 on mlx5_0, 10, 3, 4, 6, 9; Rate 100 on mlx5_1, 2, 7, 8;
    # mlx5_11 (`Port 1:` line 59, then 60-62) `State: Down`, `Physical state: Polling`, `Rate: 40`; mlx5_5
    # (128-130) Down, Disabled, Rate 40.
    r = _parse(H100_POLLING)
    s = r["summary"]
    assert r["kind"] == "ibstat"
    assert s["total_ports"] == 12 and s["active_infiniband_ports"] == 0
    assert s["active_ethernet_ports"] == 10 and s["inactive_ports"] == 2
    assert s["active_ethernet_rates_gbps"] == {"100.0": 4, "400.0": 6}
    down = {p["device"]: p for p in s["ports"] if p["state"] == "Down"}
    assert set(down) == {"mlx5_11", "mlx5_5"}
    assert down["mlx5_11"]["physical_state"] == "Polling" and down["mlx5_11"]["line"] == 59
    assert down["mlx5_5"]["physical_state"] == "Disabled"
    assert "software_rdma_ports" not in s


def test_the_h100_ethernet_ibstat_fails_8_x_400_roce_with_six_ports() -> None:
    row = _row(H8X400_ROCE, _parse(H100_POLLING), "Ethernet GPU-fabric ports")
    assert (row["expected"], row["measured"], row["verdict"]) == (8, 6, "fail")
    assert "slower ports" in row["detail"] and "mlx5_11/1 Down" in row["detail"]
    assert "GPU-fabric port rate (Gb/s)" not in _verdicts(H8X400_ROCE, _parse(H100_POLLING))


def test_an_ibstat_that_aborts_keeps_its_eight_ports_and_warns() -> None:
    # Lines 1-136: 8 CX-6 (MT4124) IB Active/LinkUp Rate 200; line 137 `ibpanic: ... stat of IB device
    # 'mlx5_8' failed: No such file or directory`.
    r = _parse(IBPANIC)
    s = r["summary"]
    assert s["active_infiniband_ports"] == 8 and s["active_infiniband_rates_gbps"] == {"200.0": 8}
    assert {p["ca_type"] for p in s["ports"]} == {"MT4124"}
    assert _warned(r, "line 137", "ibstat aborted", "mlx5_8")
    rows = _verdicts(A8X200_IB, r)
    assert rows["InfiniBand GPU-fabric ports"]["verdict"] == "pass"
    assert "GPU-fabric port rate (Gb/s)" not in rows


def test_an_azure_vm_ibstat_counts_its_eight_ib_vfs_and_sets_the_ethernet_one_apart() -> None:
    # 9 CAs of CA type MT4126 (ConnectX VF): mlx5_0 Link layer Ethernet, mlx5_1..8 InfiniBand, all Active 200.
    r = _parse(AZURE_IBSTAT)
    s = r["summary"]
    assert s["active_infiniband_ports"] == 8 and s["active_ethernet_ports"] == 1
    assert {p["ca_type"] for p in s["ports"]} == {"MT4126"}
    assert "virtual_functions" not in s  # ibstat names no netdev: a VM's VFs are its fabric NICs
    row = _row(A8X200_IB, r, "InfiniBand GPU-fabric ports")
    assert (row["measured"], row["verdict"]) == (8, "pass")


def test_a_down_polling_ndr_port_fails_the_claim() -> None:
    # `CA 'mlx5_10'`, CA type MT4129, `State: Down`, `Physical state: Polling`, `Rate: 10`; GUIDs `...`.
    r = _parse(PR482)
    (port,) = r["summary"]["ports"]
    assert (port["device"], port["state"], port["physical_state"], port["rate_gbps"]) == (
        "mlx5_10",
        "Down",
        "Polling",
        10.0,
    )
    assert port["link_layer"] == "InfiniBand" and port["base_lid"] == 868 and port["sm_lid"] == 334
    row = _row(H8X400_IB, r, "InfiniBand GPU-fabric ports")
    assert (row["measured"], row["verdict"]) == (0, "fail")


def test_an_rst_indented_devinfo_then_ibstat_keeps_the_ibstat_rate() -> None:
    # ibv_devinfo `PORT_ACTIVE (4)` (no rate), then ibstat `CA 'mlx5_0'`, CA type MT4123, Active, Rate 100.
    r = _parse(KAUST)
    assert r["kind"] == "ibstat"
    (port,) = r["summary"]["ports"]
    assert (port["device"], port["state"], port["rate_gbps"], port["link_layer"]) == (
        "mlx5_0",
        "Active",
        100.0,
        "InfiniBand",
    )
    row = _row(_facts(A8X200_IB, nics_per_node=1), r, "InfiniBand GPU-fabric ports")
    assert (row["measured"], row["verdict"]) == (0, "fail")
    assert "mlx5_0/1 100" in row["detail"]


def test_an_sriov_pod_port_down_with_its_link_up_fails() -> None:
    # `ibstat mlx5_7`: CA type MT4124, `State: Down`, `Physical state: LinkUp`, `Rate: 200`, Base lid 65535.
    r = _parse(SRIOV_POD)
    (port,) = r["summary"]["ports"]
    assert (port["state"], port["physical_state"], port["rate_gbps"], port["base_lid"]) == (
        "Down",
        "LinkUp",
        200.0,
        65535,
    )
    assert r["summary"]["inactive_ports"] == 1
    assert _row(A8X200_IB, r, "InfiniBand GPU-fabric ports")["verdict"] == "fail"


def test_an_active_port_cut_before_its_link_layer_line_is_unknown_not_missing() -> None:
    # `ibwarn:` lines 2-5; `CA 'mlx4_0'` (line 6), MT4099; Port 1 Down/Disabled Rate 10 `Link layer:
    # InfiniBand`; Port 2 (line 23) `State: Active`, `Physical state: LinkUp`, `Rate: 56`, then the end.
    r = _parse(CX3_CUT)
    s = r["summary"]
    port1, port2 = s["ports"]
    assert (port1["state"], port1["physical_state"], port1["link_layer"]) == (
        "Down",
        "Disabled",
        "InfiniBand",
    )
    assert (port2["state"], port2["rate_gbps"], port2["link_layer"], port2["line"]) == (
        "Active",
        56.0,
        None,
        23,
    )
    assert _warned(r, "mlx4_0 port 2", "no Link layer line")
    one = _row(
        {"fabric": "infiniband", "gbps_per_nic": 56, "nics_per_node": 1}, r, "InfiniBand GPU-fabric ports"
    )
    assert (one["measured"], one["verdict"]) == (0, "cannot-measure")
    assert "mlx4_0/2" in one["detail"] and "unknown link layer" in one["detail"]
    assert 23 in one["lines"]
    # Two ports claimed: the cut port cannot make up both, so the fail stands.
    two = _row(
        {"fabric": "infiniband", "gbps_per_nic": 56, "nics_per_node": 2}, r, "InfiniBand GPU-fabric ports"
    )
    assert two["verdict"] == "fail"
    # A cut port slower than the claim cannot make it up either.
    fast = _row(
        {"fabric": "infiniband", "gbps_per_nic": 100, "nics_per_node": 1}, r, "InfiniBand GPU-fabric ports"
    )
    assert fast["verdict"] == "fail"


# ---- ibv_devinfo ----------------------------------------------------------------------------------------


def test_a_devinfo_with_the_second_hca_cut_before_its_port_lists_one_port() -> None:
    # hca_id mlx5_0 (vendor_part_id 4129) `state: PORT_DOWN (1)`, link_layer InfiniBand; hca_id mlx5_1 ends
    # at board_id (no `port:` line).
    r = _parse(DEEPEP)
    (port,) = r["summary"]["ports"]
    assert (port["device"], port["state"], port["link_layer"], port["vendor_part_id"]) == (
        "mlx5_0",
        "Down",
        "InfiniBand",
        "4129",
    )
    assert _row(H8X400_IB, r, "InfiniBand GPU-fabric ports")["verdict"] == "fail"


def test_a_flattened_pod_devinfo_with_port_init_is_read() -> None:
    # Every line indented 4 spaces: hca_id mlx5_7, vendor_part_id 4126, `state: PORT_INIT (2)`, link_layer IB.
    r = _parse(POD_INIT)
    (port,) = r["summary"]["ports"]
    assert (port["device"], port["port"], port["state"], port["link_layer"]) == (
        "mlx5_7",
        1,
        "Init",
        "InfiniBand",
    )
    assert r["summary"]["inactive_ports"] == 1
    assert _row(A8X200_IB, r, "InfiniBand GPU-fabric ports")["verdict"] == "fail"


# ---- ibdev2netdev ---------------------------------------------------------------------------------------


def test_ipoib_virtual_functions_are_counted_apart_from_the_ports() -> None:
    # Lines 1-16: mlx5_19 ==> ibp75s0v7, mlx5_20..26 ==> ibp141s0v0..v6 (all Down): 8 VFs; the PFs ibp75s0,
    # ibp84s0, ibp97s0f1, ibp141s0, ibp148s0, ibp186s0, ibp204s0 (IPoIB) and enp97s0f0 (Ethernet).
    r = _parse(VFS)
    s = r["summary"]
    assert r["kind"] == "ibdev2netdev"
    assert s["total_ports"] == 16
    assert s["infiniband_ports"] == 7 and s["ethernet_ports"] == 1
    vfs = s["virtual_functions"]
    assert [v["netdev"] for v in vfs] == ["ibp75s0v7"] + [f"ibp141s0v{i}" for i in range(7)]
    assert [v["line"] for v in vfs] == [1, 3, 4, 5, 6, 7, 8, 9]
    assert _warned(r, "8 SR-IOV virtual functions", "ibp141s0v0")
    assert s["netdev_up"] == 3 and s["netdev_down"] == 13


def test_the_vf_listing_is_judged_on_its_physical_ports() -> None:
    row = _row(A8X200_IB, _parse(VFS), "InfiniBand ports per node")
    assert (row["measured"], row["verdict"]) == (7, "fail")  # the excerpt starts at mlx5_19: 7 PFs shown
    assert "mlx5_20/1" in row["detail"] and "virtual function" in row["detail"]
    assert 1 not in row["lines"] and 2 in row["lines"]


# ---- rdma link ------------------------------------------------------------------------------------------


def test_soft_roce_is_not_a_roce_gpu_fabric_port() -> None:
    # `link rxe_0/1 state ACTIVE physical_state LINK_UP netdev p1p1` in a VirtualBox VM.
    r = _parse(RXE)
    s = r["summary"]
    assert s["total_ports"] == 1 and s["active_ethernet_ports"] == 0
    assert s["software_rdma_ports"] == [{"device": "rxe_0", "port": 1, "netdev": "p1p1", "line": 2}]
    assert _warned(r, "rxe_0/1 (p1p1)", "software RDMA", "not counted")
    row = _row({"fabric": "roce", "gbps_per_nic": 100, "nics_per_node": 1}, r, "Ethernet GPU-fabric ports")
    assert (row["measured"], row["verdict"]) == (0, "fail")
    assert "rxe_0/1" in row["detail"]


def test_ports_whose_rate_rdma_link_does_not_print_cannot_pass_a_rate_claim() -> None:
    # `lspci |grep net`: 2 x `MT2892 Family [ConnectX-6 Dx]`; `link mlx5_0/1 ... netdev p1p1`, `mlx5_1/1 ...
    # netdev p1p2`, both ACTIVE LINK_UP, no lid (RoCE).
    r = _parse(CX6DX)
    s = r["summary"]
    assert r["kind"] == "rdma-link"
    assert s["active_ethernet_ports"] == 2 and [p["netdev"] for p in s["ports"]] == ["p1p1", "p1p2"]
    assert all(p["rate_gbps"] is None for p in s["ports"])
    for gbps in (100, 400):
        rows = _verdicts({"fabric": "roce", "gbps_per_nic": gbps, "nics_per_node": 2}, r)
        count, rate = rows["Ethernet GPU-fabric ports"], rows["GPU-fabric port rate (Gb/s)"]
        assert (count["measured"], count["verdict"]) == (2, "pass")
        assert ">=" not in count["detail"] and "rate not shown" in count["detail"]
        assert (rate["expected"], rate["measured"], rate["verdict"]) == (gbps, None, "cannot-measure")
        assert "2 of the 2 ports" in rate["detail"] and "ibstat" in rate["detail"]


# ---- lspci ----------------------------------------------------------------------------------------------


def test_an_azure_ndv4_lspci_counts_eight_ib_vfs_and_passes_without_a_layer_warning() -> None:
    # 8 `GA100 [A100 SXM4 80GB] [10de:20b2]`, 6 `Bridge [0680]: NVIDIA Corporation Device [10de:1af1]`,
    # 8 `Infiniband controller [0207]: ... [ConnectX-6 Virtual Function]`, 1 `Ethernet controller [0200]: ...
    # [ConnectX-4 Lx Virtual Function]` (c941:00:02.0, line 30), 8 Microsoft NVMe.
    r = _parse(AZURE_LSPCI)
    s = r["summary"]
    assert (s["gpus"], s["nvswitches"], s["rdma_nics"]) == (8, 6, 9)
    assert s["rdma_nics_by_link_layer"] == {"InfiniBand": 8, "Ethernet": 1}
    assert s["nvlink_management_bridges"] == 0 and "nic_internal_bridges" not in s
    rows = _verdicts(A8X200_IB, r)
    count = rows["RDMA NIC functions per node"]
    assert (count["measured"], count["verdict"]) == (8, "pass")
    assert "c941:00:02.0" in count["detail"] and "ConnectX-4 Lx" in count["detail"]
    assert "fabric link layer" not in rows


def test_a_gb200_tray_lspci_has_four_ib_nics_no_nvswitch_and_no_nvlink_management_bridge() -> None:
    # 4 `Infiniband controller: ... MT2910 Family [ConnectX-7]` (lines 5, 13, 54, 62); 4 `Ethernet controller:
    # ... BlueField-3 integrated ConnectX-7` (lines 34, 35, 72, 73); 24 `[ConnectX-7 PCIe Bridge]` and 16
    # `[BlueField-3 SoC PCIe Bridge]`; 12 `PCI bridge: NVIDIA Corporation Device 22b1/22b2/22b8`; 4 GPUs
    # `Device 2941`.
    r = _parse(GB200)
    s = r["summary"]
    assert s["rdma_nics"] == 8 and s["rdma_nics_by_link_layer"] == {"InfiniBand": 4, "Ethernet": 4}
    ib = [f["line"] for f in s["rdma_nic_functions"] if f["link_layer"] == "InfiniBand"]
    assert ib == [5, 13, 54, 62]
    assert s["gpus"] == 4
    assert s["nvswitches"] == 0
    assert s["nvlink_management_bridges"] == 0 and s["bridge_functions"] == []
    internal = s["nic_internal_bridges"]
    assert len(internal) == 40
    assert sum("ConnectX-7 PCIe Bridge" in b["device"] for b in internal) == 24
    assert sum("BlueField-3 SoC PCIe Bridge" in b["device"] for b in internal) == 16


def test_the_gb200_tray_is_judged_on_its_infiniband_functions() -> None:
    r = _parse(GB200)
    rows = _verdicts(GB200_IB, r)
    count = rows["RDMA NIC functions per node"]
    assert (count["measured"], count["verdict"]) == (4, "pass")
    assert "4 Ethernet functions not counted" in count["detail"] and "BlueField-3" in count["detail"]
    assert "fabric link layer" not in rows
    # 8 x IB claimed: 4 IB functions fail; the BlueField-3 Ethernet functions no longer make up the count.
    rows = _verdicts(_facts(GB200_IB, nics_per_node=8), r)
    assert (
        rows["RDMA NIC functions per node"]["measured"],
        rows["RDMA NIC functions per node"]["verdict"],
    ) == (
        4,
        "fail",
    )
    assert rows["fabric link layer"]["verdict"] == "warn"


def test_a_full_lspci_vvv_host_counts_its_ethernet_nics_and_four_nvswitches() -> None:
    # 8 `MT2910 Family [ConnectX-7]` + 4 `MT2892 Family [ConnectX-6 Dx]` functions, all Ethernet controller;
    # 8 `3D controller: NVIDIA Corporation Device 2330`; 4 `Bridge: NVIDIA Corporation Device 22a3`; the 16
    # `(downgraded)` LnkSta lines are on bridges, the BMC NIC and storage, none on a NIC or GPU.
    r = _parse(VVV)
    s = r["summary"]
    assert (s["rdma_nics"], s["gpus"], s["nvswitches"]) == (12, 8, 4)
    assert s["rdma_nics_by_link_layer"] == {"Ethernet": 12}
    assert "pcie_downgraded" not in s and not _warned(r, "LnkSta")
    assert (REAL / VVV).read_text().count("(downgraded)") == 16
    roce = _row(H8X400_ROCE, r, "RDMA NIC functions per node")
    assert (roce["measured"], roce["verdict"]) == (12, "pass")
    ib = _verdicts(H8X400_IB, r)
    assert (ib["RDMA NIC functions per node"]["measured"], ib["fabric link layer"]["verdict"]) == (0, "fail")


def test_a_nic_link_downgraded_in_lnksta_is_warned_per_device() -> None:
    # The vvv host with the first ConnectX-7 (1a:00.0, line 1568; its LnkSta on line 1588) at x8, and the
    # first GPU (19:00.0; LnkSta line 1504) at a lower speed only, as an idle GPU runs.
    lines = (REAL / VVV).read_text().splitlines(keepends=True)
    assert lines[1587].strip() == "LnkSta:\tSpeed 32GT/s (ok), Width x16 (ok)"
    lines[1587] = "\t\tLnkSta:\tSpeed 32GT/s (ok), Width x8 (downgraded)\n"
    lines[1503] = "\t\tLnkSta:\tSpeed 2.5GT/s (downgraded), Width x16 (ok)\n"
    r = _parse_text("".join(lines), "lspci-vvv.txt")
    (down,) = r["summary"]["pcie_downgraded"]
    assert (down["bdf"], down["width"], down["width_downgraded"], down["line"]) == (
        "1a:00.0",
        "x8",
        True,
        1588,
    )
    assert _warned(r, "line 1588", "1a:00.0", "width x8")
    assert not _warned(r, "19:00.0")


# ---- adversarial variants -------------------------------------------------------------------------------


def _ibstat_ca(index: int, rate: int = 400, layer: str = "InfiniBand") -> str:
    return (
        f"CA 'mlx5_{index}'\n\tCA type: MT4129\n\tNumber of ports: 1\n\tPort 1:\n\t\tState: Active\n"
        f"\t\tPhysical state: LinkUp\n\t\tRate: {rate}\n\t\tBase lid: {index + 1}\n\t\tSM lid: 1\n"
        f"\t\tLink layer: {layer}\n"
    )


def test_a_healthy_8_x_400_ibstat_is_unchanged() -> None:
    r = _parse_text("".join(_ibstat_ca(i) for i in range(8)))
    s = r["summary"]
    assert s["active_infiniband_ports"] == 8 and s["active_infiniband_rates_gbps"] == {"400.0": 8}
    assert "software_rdma_ports" not in s and "virtual_functions" not in s
    assert r["warnings"] == []
    rows = compare(H8X400_IB, dict(r, filename="x.txt"))
    assert [(str(v["claim"]), v["measured"], v["verdict"]) for v in rows] == [
        ("InfiniBand GPU-fabric ports", 8, "pass")
    ]
    assert rows[0]["detail"] == "Active + LinkUp + InfiniBand + >= 400 Gb/s"


def test_one_soft_roce_device_beside_eight_real_roce_ports() -> None:
    real = "".join(
        f"link mlx5_{i}/1 state ACTIVE physical_state LINK_UP netdev ens{i}np0\n" for i in range(8)
    )
    rxe = "link rxe0/1 state ACTIVE physical_state LINK_UP netdev eno1\n"
    r = _parse_text(real + rxe)
    s = r["summary"]
    assert s["active_ethernet_ports"] == 8 and s["total_ports"] == 9
    assert [p["device"] for p in s["software_rdma_ports"]] == ["rxe0"]
    count = _row(H8X400_ROCE, r, "Ethernet GPU-fabric ports")
    assert (count["measured"], count["verdict"]) == (8, "pass") and 9 not in count["lines"]
    assert _row(_facts(H8X400_ROCE, nics_per_node=9), r, "Ethernet GPU-fabric ports")["verdict"] == "fail"
    # The same in ibstat: rxe0 prints an empty CA type and `Link layer: Ethernet` (RHEL's Soft-RoCE guide).
    soft = "CA 'rxe0'\n\tCA type:\n\tPort 1:\n\t\tState: Active\n\t\tPhysical state: LinkUp\n\t\tRate: 100\n"
    soft += "\t\tLink layer: Ethernet\n"
    r = _parse_text("".join(_ibstat_ca(i, layer="Ethernet") for i in range(8)) + soft)
    assert r["summary"]["active_ethernet_ports"] == 8 and r["summary"]["active_ethernet_rates_gbps"] == {
        "400.0": 8
    }


def test_virtual_functions_beside_their_physical_functions() -> None:
    pfs = "".join(f"mlx5_{i} port 1 ==> ibp{20 + i}s0 (Up)\n" for i in range(8))
    vfs = "".join(f"mlx5_{8 + i} port 1 ==> ibp20s0v{i} (Up)\n" for i in range(8))
    eth_vf = "mlx5_16 port 1 ==> enp5s0f0v1 (Up)\n"
    r = _parse_text(pfs + vfs + eth_vf)
    s = r["summary"]
    assert s["infiniband_ports"] == 8 and s["ethernet_ports"] == 0
    assert len(s["virtual_functions"]) == 9
    row = _row(A8X200_IB, r, "InfiniBand ports per node")
    assert (row["measured"], row["verdict"]) == (8, "pass")
    assert _row(_facts(A8X200_IB, nics_per_node=9), r, "InfiniBand ports per node")["verdict"] == "fail"
    # A VM's own NICs (ib0..ib7, no `v<N>` suffix) are ports.
    vm = _parse_text("".join(f"mlx5_{i} port 1 ==> ib{i} (Up)\n" for i in range(8)))
    assert vm["summary"]["infiniband_ports"] == 8 and "virtual_functions" not in vm["summary"]


def test_a_rate_shown_for_every_port_gives_no_rate_row() -> None:
    r = _parse_text("".join(_ibstat_ca(i, rate=200) for i in range(8)))
    rows = _verdicts(H8X400_IB, r)
    assert rows["InfiniBand GPU-fabric ports"]["verdict"] == "fail"
    assert "GPU-fabric port rate (Gb/s)" not in rows
    assert rows["InfiniBand GPU-fabric ports"]["measured"] == 0
    assert approx(200.0) == r["summary"]["ports"][0]["rate_gbps"]


def test_an_nvidia_pci_bridge_is_not_an_nvswitch_but_an_nvidia_bridge_is() -> None:
    text = (
        "0000:00:00.0 PCI bridge: NVIDIA Corporation Device 22b2\n"
        "05:00.0 Bridge: NVIDIA Corporation Device 22a3 (rev a1)\n"
        "06:00.0 Bridge: NVIDIA Corporation GH100 [H100 NVSwitch] (rev a1)\n"
        "00:14.0 PCI bridge: NVIDIA Corporation MCP55 PCI bridge (rev a2)\n"
    )
    assert _parse_text(text)["summary"]["nvswitches"] == 2
