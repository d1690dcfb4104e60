"""Review 19b, NIC side (fixtures/review19b/, from the review's cases): lspci passed a RoCE claim on a GB200
tray's front-end BlueField-3 functions while its GPU fabric, 4 ConnectX-7, runs InfiniBand (F1); lspci counted
SR-IOV virtual functions beside their physical functions, read no EFA and read nothing from `lspci -n`; the
Soft-RoCE warning did not say the device name is its only basis."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from benchmarks.compare import compare
from benchmarks.parsers import parse

from .test_real_logs import REAL

HERE = Path(__file__).parent / "fixtures" / "review19b"
GB200_ROCE = {"gpu": "GB200", "gpus_per_node": 4, "fabric": "roce", "gbps_per_nic": 400, "nics_per_node": 4}
GB200_IB = dict(GB200_ROCE, fabric="infiniband")
IB8 = {"gpu": "H100-SXM-80GB", "gpus_per_node": 8, "fabric": "infiniband", "gbps_per_nic": 400,
       "nics_per_node": 8}  # fmt: skip
ROCE8 = dict(IB8, fabric="roce")
EFA4 = {"gpu": "A100-SXM-40GB", "gpus_per_node": 8, "fabric": "efa", "gbps_per_nic": 100, "nics_per_node": 4}
COUNT = "RDMA NIC functions per node"
LAYER = "fabric link layer"


def _parsed(name: str) -> dict[str, Any]:
    return parse((HERE / name).read_bytes(), filename=name).as_dict()


def _rows(facts: dict[str, Any], result: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {str(v["claim"]): v for v in compare(facts, dict(result, filename="x.txt"))}


def _row(facts: dict[str, Any], name: str, claim: str = COUNT) -> dict[str, Any]:
    return _rows(facts, _parsed(name))[claim]


# ---- F1: the other link layer holds the GPU fabric -----------------------------------------------------


def test_the_fixture_is_the_real_gb200_listing() -> None:
    real = REAL / "lspci/gpud-gb200-lspci-cx7-bridges.txt"
    assert (HERE / "lspci-gb200-fixture.txt").read_bytes() == real.read_bytes()


def test_a_roce_claim_on_a_gb200_tray_fails_its_bluefield_dpus_are_not_the_fabric() -> None:
    # 4 `Infiniband controller ... [ConnectX-7]` (one adapter each) and 2 dual-port BlueField-3 DPUs in
    # Ethernet (4 functions): the GPU fabric is the ConnectX-7s, in InfiniBand mode.
    rows = _rows(GB200_ROCE, _parsed("lspci-gb200-fixture.txt"))
    count = rows[COUNT]
    assert (count["measured"], count["verdict"]) == (0, "fail")
    assert "4 BlueField functions not counted, taken as DPUs" in count["detail"]
    assert "the GPU fabric's by their number" in count["detail"]
    assert (rows[LAYER]["measured"], rows[LAYER]["verdict"]) == ("InfiniBand", "fail")


def test_an_infiniband_claim_on_the_gb200_tray_still_passes_with_no_layer_row() -> None:
    rows = _rows(GB200_IB, _parsed("lspci-gb200-fixture.txt"))
    assert (rows[COUNT]["measured"], rows[COUNT]["verdict"]) == (4, "pass")
    assert "4 Ethernet functions not counted" in rows[COUNT]["detail"]
    assert LAYER not in rows


def test_front_end_connectx_meeting_a_roce_claim_warns_when_the_ib_adapters_could_be_the_fabric() -> None:
    # 4 CX-7 in InfiniBand, 2 dual-port CX-6 Dx in Ethernet (4 functions): no BlueField to set apart, so the
    # count passes and the layer is warned.
    rows = _rows(GB200_ROCE, _parsed("lspci-4cx7ib-2cx6dx-frontend.txt"))
    assert (rows[COUNT]["measured"], rows[COUNT]["verdict"]) == (4, "pass")
    assert rows[LAYER]["verdict"] == "warn"
    assert "4 InfiniBand adapters, as many as the claim, could be the GPU fabric" in rows[LAYER]["detail"]


def test_two_dual_port_front_end_adapters_do_not_warn_an_infiniband_claim_of_four() -> None:
    # The same host on an InfiniBand claim: the 4 Ethernet functions are 2 adapters, fewer than 4.
    rows = _rows(GB200_IB, _parsed("lspci-4cx7ib-2cx6dx-frontend.txt"))
    assert (rows[COUNT]["measured"], rows[COUNT]["verdict"]) == (4, "pass")
    assert LAYER not in rows


def test_eight_bluefield_supernics_in_ethernet_still_pass_roce_and_fail_infiniband() -> None:
    assert (
        _row(ROCE8, "lspci-8bf3-supernic-eth.txt")["measured"],
        _row(ROCE8, "lspci-8bf3-supernic-eth.txt")["verdict"],
    ) == (8, "pass")
    rows = _rows(IB8, _parsed("lspci-8bf3-supernic-eth.txt"))
    assert (rows[COUNT]["measured"], rows[COUNT]["verdict"], rows[LAYER]["verdict"]) == (0, "fail", "fail")


def test_eight_cx7_ib_with_a_bluefield_dpu() -> None:
    ib = _rows(IB8, _parsed("lspci-h100-8cx7ib-bf3eth.txt"))
    assert (ib[COUNT]["measured"], ib[COUNT]["verdict"]) == (8, "pass") and LAYER not in ib
    roce = _rows(ROCE8, _parsed("lspci-h100-8cx7ib-bf3eth.txt"))
    # The DPU's 2 functions no longer count towards the RoCE claim: 8 ConnectX-7 adapters are on InfiniBand.
    assert (roce[COUNT]["measured"], roce[COUNT]["verdict"], roce[LAYER]["verdict"]) == (0, "fail", "fail")


# ---- P-a: SR-IOV virtual functions beside their physical functions -------------------------------------


def test_virtual_functions_beside_physical_ones_are_not_counted() -> None:
    count = _row(IB8, "lspci-4pf-12vf-ib.txt")
    assert (count["measured"], count["verdict"]) == (4, "fail")
    assert "12 SR-IOV virtual functions not counted" in count["detail"]
    assert _row(dict(IB8, nics_per_node=4), "lspci-4pf-12vf-ib.txt")["verdict"] == "pass"


def test_a_vms_own_virtual_functions_still_count() -> None:
    # Azure NDv4: 8 IB VFs and no physical function (test_real_logs_eleventh_nic keeps 8/8 pass).
    text = "".join(
        f"{b}:00.0 Infiniband controller: Mellanox Technologies MT28908 Family "
        "[ConnectX-6 Virtual Function]\n"
        for b in ("01", "02", "03", "04", "05", "06", "07", "08")
    )
    rows = _rows(dict(IB8, nics_per_node=8), parse(text.encode(), filename="x.txt").as_dict())
    assert (rows[COUNT]["measured"], rows[COUNT]["verdict"]) == (8, "pass")
    assert "virtual function" not in rows[COUNT]["detail"]


# ---- P-b: EFA --------------------------------------------------------------------------------------------


def test_efa_functions_count_for_an_efa_claim_and_not_for_roce() -> None:
    r = _parsed("lspci-efa.txt")
    assert r["summary"]["rdma_nics_by_link_layer"] == {"EFA": 4}
    assert (_rows(EFA4, r)[COUNT]["measured"], _rows(EFA4, r)[COUNT]["verdict"]) == (4, "pass")
    assert _rows(dict(EFA4, nics_per_node=32), r)[COUNT]["verdict"] == "fail"
    roce = _rows(ROCE8, r)
    assert (roce[COUNT]["measured"], roce[LAYER]["measured"], roce[LAYER]["verdict"]) == (0, "EFA", "fail")
    assert "a DPU or the front-end network" not in roce[COUNT]["detail"]


def test_the_ena_front_end_is_not_an_rdma_nic() -> None:
    text = "00:05.0 Ethernet controller: Amazon.com, Inc. Elastic Network Adapter (ENA)\n"
    assert parse(text.encode(), filename="x.txt").as_dict()["summary"]["rdma_nics"] == 0


# ---- P-c: lspci -n ---------------------------------------------------------------------------------------


def test_lspci_n_is_read_by_class_code_and_vendor_id() -> None:
    r = _parsed("lspci-n-8cx7.txt")
    assert r["summary"]["rdma_nics_by_link_layer"] == {"InfiniBand": 8}
    assert any("`lspci -n` prints ids" in str(w) for w in r["warnings"])
    assert (_rows(IB8, r)[COUNT]["measured"], _rows(IB8, r)[COUNT]["verdict"]) == (8, "pass")
    roce = _rows(ROCE8, r)
    assert (roce[COUNT]["verdict"], roce[LAYER]["verdict"]) == ("fail", "fail")


def test_lspci_n_reads_vfs_efa_gpus_and_nvswitches_by_id() -> None:
    text = (
        "18:00.0 0207: 15b3:1021\n18:00.1 0207: 15b3:101e\n"
        "19:00.0 0302: 10de:2330 (rev a1)\n05:00.0 0680: 10de:22a3 (rev a1)\n"
        "20:00.0 0200: 1d0f:efa1\n00:05.0 0200: 1d0f:ec20\n"
    )
    s = parse(text.encode(), filename="x.txt").as_dict()["summary"]
    assert (s["rdma_nics"], s["gpus"], s["nvswitches"]) == (3, 1, 1)
    vf = [f["virtual_function"] for f in s["rdma_nic_functions"]]
    assert vf == [False, True, False]
    assert s["rdma_nics_by_link_layer"] == {"InfiniBand": 2, "EFA": 1}
    assert "unread_network_functions" not in s


def test_lspci_n_network_functions_of_other_vendors_make_a_short_count_cannot_measure() -> None:
    # Broadcom (14e4) functions are not read by id: they may be Thor RDMA NICs.
    text = "".join(f"{b}:00.0 0200: 14e4:1760\n" for b in ("18", "2a", "3a", "5d", "9a", "ab", "ba", "db"))
    r = parse(text.encode(), filename="x.txt").as_dict()
    assert len(r["summary"]["unread_network_functions"]) == 8
    count = _rows(ROCE8, r)[COUNT]
    assert (count["measured"], count["verdict"]) == (0, "cannot-measure")
    assert "8 network functions of vendors not read by id" in count["detail"]


# ---- P-d: Soft-RoCE by name only -------------------------------------------------------------------------


def test_soft_roce_named_rxe_is_set_apart_and_the_warning_says_the_name_is_the_basis() -> None:
    r = _parsed("rdma-link-rxe-named.txt")
    assert any("told by the device name" in str(w) for w in r["warnings"])
    count = _rows(ROCE8, r)["Ethernet GPU-fabric ports"]
    assert (count["measured"], count["verdict"]) == (0, "fail")


def test_soft_roce_with_custom_names_is_a_documented_limit() -> None:
    # `rdma link add roce0 type rxe netdev eth0`: `rdma link` prints no link type or driver, so it counts.
    r = _parsed("rdma-link-softroce-custom-names.txt")
    assert "software_rdma_ports" not in r["summary"]
    assert _rows(dict(ROCE8, gbps_per_nic=None), r)["Ethernet GPU-fabric ports"]["verdict"] == "pass"
