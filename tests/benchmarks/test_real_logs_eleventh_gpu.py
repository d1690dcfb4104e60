"""The eleventh set of real logs: GPU evidence (nvidia-smi tables and reports, topology, NVLink, kernel logs,
dcgmi) and the GPU-side files that are refused (fixtures/real/, origins in fixtures/real/SOURCES.md,
"Eleventh set: GPU evidence").

As in test_real_logs.py, every expected value was read off the log by hand.
"""

from __future__ import annotations

from typing import Any

import pytest

from benchmarks.compare import compare
from benchmarks.parsers import parse

from .test_real_logs import REAL, _parse, _warned

A40_ERR = "nvidia-smi/gpu-operator-559-a40-gpu0-name-ERR-all-fields-T.txt"
FAN_ERR = "nvidia-smi/gpud-geforce-1gpu-fan-ERR-525.txt"
H100_TABLE = "nvidia-smi/gpud-h100-8gpu-550.90-table.txt"
CBIO_LOST = "nvidia-smi/cbio-39-gpu-2-12-lost-a-gpu-3-gtx-titan-driver325-T.txt"
NO_DEVICES = "nvidia-smi/gpu-operator-649-kubelet-startup-probe-no-devices-were-found-T.txt"
Q_CUT = "nvidia-smi/gpud-h100-8gpu-q-535.183-cut-after-first-gpu.txt"
Q_FULL = "nvidia-smi/gpud-535.161-q-full.txt"
Q_TITAN = "nvidia-smi/gpud-560.35-q.txt"
H800_TOPO = "nvidia-smi-topo/nccl-933-h800-nv8-9nic-gpu0-6-rows-gpu7-cut-T.txt"
DGX_TOPO = "nvidia-smi-topo/dcgm-149-dgx-a100-nv12-10nic-pxb-pairs-gpu0-5-T.txt"
P2P_ONLY = "nvidia-smi-topo/club3090-1124-2x5090-topo-p2p-rw-GNS-only-T.txt"
A100_NVLINK = "nvidia-smi-nvlink/gpud-azure-a100-sxm4-80gb-8gpu-12-links.txt"
NVLINK_R = "nvidia-smi-nvlink/nccl-1182-h100-nvlink-R-remote-device-gpu0-18-links-T.txt"
PROBE = "dmesg/aicr-1858-azure-nd-h100-gpu-000a-not-supported-probe-failed-T.txt"
XID119 = "dmesg/gpud-dmesg-xid119-gsp-timeout.txt"
PEERMEM = "dmesg/gpud-dmesg-peermem.txt"
MLX5_OK = "dmesg/arm-nas-16-cx5-mlx5_core-63gbps-pcie-x8-no-limited-by-T.txt"
DCGM49 = "dcgmi-diag/dcgm-49-a100-pcie-no-nvlink-pcie-fail-all-wrapped-warning-author-dots-T.txt"
FABRIC_MANAGER = "unsupported/nvidia-fabricmanager/gpud-fabric-manager-log.txt"

H100 = {"gpu": "H100-SXM-80GB", "gpus_per_node": 8, "intra_node": "nvswitch", "nics_per_node": 8,
        "fabric": "infiniband", "gbps_per_nic": 400}  # fmt: skip
A100 = {**H100, "gpu": "A100-SXM-80GB", "gbps_per_nic": 200}


def _rows(facts: dict[str, Any], result: dict[str, Any], claim: str) -> list[dict[str, Any]]:
    return [v for v in compare(facts, result) if v["claim"] == claim]


# ---- nvidia-smi: ERR! ---------------------------------------------------------------------------------


def test_a_gpu_whose_name_and_sensors_read_err_is_present_but_not_usable() -> None:
    # Line 10: `|   0  ERR!   On   | 00000000:19:00.0 Off |   ERR! |`, line 11 every sensor `ERR!`, line 12
    # MIG `ERR!`; line 14: GPU 1 `NVIDIA A40`, healthy.
    r = _parse(A40_ERR)
    s = r["summary"]
    assert r["kind"] == "nvidia-smi" and s["gpus"] == 2
    assert s["gpu_models"] == ["NVIDIA A40"] and s["gpu_model_counts"] == {"NVIDIA A40": 1}
    (bad,) = s["gpus_in_error"]
    assert bad["index"] == 0 and bad["bus_id"] == "00000000:19:00.0" and bad["line"] == 10
    assert {"name", "ecc", "fan", "temperature", "power_draw", "gpu_util"} <= set(bad["fields"])
    assert _warned(r, "GPU 0", "00000000:19:00.0", "ERR!", "not usable")


def test_an_err_gpu_fails_usable_gpus_and_is_not_counted_per_node() -> None:
    r = _parse(A40_ERR)
    facts = {"gpu": "A40", "gpus_per_node": 2, "intra_node": "pcie"}
    (usable,) = _rows(facts, r, "usable GPUs")
    assert usable["verdict"] == "fail" and usable["measured"] == 1 and usable["lines"] == [10]
    assert "GPU 0 (00000000:19:00.0, line 10)" in usable["detail"]
    (per_node,) = _rows(facts, r, "GPUs per node")
    assert per_node["verdict"] == "fail" and per_node["measured"] == 1


def test_a_fan_that_reads_err_is_warned_and_the_gpu_stays_usable() -> None:
    # Line 8: GPU 0 `NVIDIA GeForce ...` 00000000:01:00.0; line 9: `|ERR!   38C    P5    49W / 450W |`.
    r = _parse(FAN_ERR)
    s = r["summary"]
    assert s["gpus"] == 1 and s["driver_version"] == "525.125.06" and s["cuda_version"] == "12.0"
    assert s["gpu_list"][0]["error_fields"] == ["fan"]
    assert "gpus_in_error" not in s
    assert _warned(r, "GPU 0", "line 8", "fan", "ERR!")
    assert _rows({"gpus_per_node": 1}, r, "usable GPUs") == []


# ---- nvidia-smi: healthy, lost, none -----------------------------------------------------------------


def test_the_h100_550_table_reads_8_gpus_and_passes() -> None:
    # Line 3: `NVIDIA-SMI 550.90.07  Driver Version: 550.90.07  CUDA Version: 12.4`; GPU rows 0 (line 9,
    # 00000000:19:00.0) to 7 (line 37, 00000000:DB:00.0), all `NVIDIA H100 80GB HBM3`.
    r = _parse(H100_TABLE)
    s = r["summary"]
    assert s["gpus"] == 8 and s["gpu_models"] == ["NVIDIA H100 80GB HBM3"]
    assert s["driver_version"] == "550.90.07" and s["cuda_version"] == "12.4"
    assert s["gpu_list"][0]["line"] == 9 and s["gpu_list"][7]["bus_id"] == "00000000:DB:00.0"
    assert "gpus_in_error" not in s and r["warnings"] == []
    verdicts = {v["claim"]: v["verdict"] for v in compare(H100, r)}
    assert verdicts == {"GPUs per node": "pass", "GPU model": "pass"}


def test_one_err_gpu_of_eight_fails_usable_gpus() -> None:
    text = (REAL / H100_TABLE).read_text()
    lines = text.splitlines()
    # GPU 3's rows (its name and the sensor row after it) as gpu-operator issue 559 prints a failed GPU.
    row = next(i for i, line in enumerate(lines) if line.startswith("|   3  NVIDIA H100"))
    lines[row] = lines[row].replace("NVIDIA H100 80GB HBM3", "ERR!                 ")
    lines[row + 1] = "| ERR!  ERR!  ERR!   ERR! /  ERR! |  0MiB /  81559MiB |   ERR!      Default |"
    r = parse("\n".join(lines)).as_dict()
    s = r["summary"]
    assert s["gpus"] == 8 and s["gpu_models"] == ["NVIDIA H100 80GB HBM3"]
    assert [g["index"] for g in s["gpus_in_error"]] == [3]
    (usable,) = _rows(H100, r, "usable GPUs")
    assert usable["verdict"] == "fail" and usable["lines"] == [row + 1]
    (per_node,) = _rows(H100, r, "GPUs per node")
    assert per_node["verdict"] == "fail" and per_node["measured"] == 7


def test_the_cbio_node_that_lost_a_gpu_shows_3_gtx_titans() -> None:
    # Lines 9, 12, 15: GPUs 0-2 `GeForce GTX TITAN` (0000:03:00.0, 0000:04:00.0, 0000:84:00.0); driver 325.15.
    r = _parse(CBIO_LOST)
    s = r["summary"]
    assert s["gpus"] == 3 and s["gpu_models"] == ["GeForce GTX TITAN"]
    assert s["driver_version"] == "325.15"
    (row,) = _rows({"gpus_per_node": 4}, r, "GPUs per node")
    assert row["verdict"] == "fail" and row["measured"] == 3


def test_no_devices_were_found_fails_the_gpu_count() -> None:
    # One kubelet event: `Startup probe failed: No devices were found`.
    r = _parse(NO_DEVICES)
    assert r["kind"] == "nvidia-smi" and r["summary"]["gpus"] == 0
    assert _warned(r, "No devices were found")
    (row,) = _rows(H100, r, "GPUs per node")
    assert row["verdict"] == "fail"


# ---- nvidia-smi -q ------------------------------------------------------------------------------------


def test_a_q_report_cut_after_its_first_gpu_counts_the_attached_gpus() -> None:
    # Line 4 `Driver Version : 535.183.01`, line 7 `Attached GPUs : 8`, one GPU block.
    r = _parse(Q_CUT)
    s = r["summary"]
    assert s["source"] == "nvidia-smi -q" and s["gpus"] == 8 and s["gpu_blocks"] == 1
    assert s["driver_version"] == "535.183.01"
    assert _warned(r, "Attached GPUs: 8", "1 GPU block")


def test_the_full_q_report_of_8_h100_is_clean() -> None:
    # Line 8 `Attached GPUs : 8`; Product Name at lines 10, 215, ..., 1445; remapped rows No, fabric
    # Completed.
    r = _parse(Q_FULL)
    s = r["summary"]
    assert s["gpus"] == 8 and s["gpu_blocks"] == 8 and s["driver_version"] == "535.161.08"
    assert s["gpu_models"] == ["NVIDIA H100 80GB HBM3"]
    assert {g["row_remap_pending"] for g in s["gpu_list"]} == {"No"}
    assert {g["fabric_state"] for g in s["gpu_list"]} == {"Completed"}
    assert {g["ecc_uncorrectable_volatile"] for g in s["gpu_list"]} == {0}
    assert r["warnings"] == []
    assert {v["verdict"] for v in compare(H100, r)} == {"pass"}


def test_the_titan_v_report_fails_an_h100_claim() -> None:
    # Line 7 `Attached GPUs : 1`, line 9 `Product Name : NVIDIA TITAN V`, driver 560.35.03.
    r = _parse(Q_TITAN)
    s = r["summary"]
    assert s["gpus"] == 1 and s["gpu_models"] == ["NVIDIA TITAN V"] and s["driver_version"] == "560.35.03"
    verdicts = {v["claim"]: v["verdict"] for v in compare(H100, r)}
    assert verdicts["GPU model"] == "fail" and verdicts["GPUs per node"] == "fail"


# ---- topology -----------------------------------------------------------------------------------------


def test_an_h800_topology_cut_before_gpu7_cannot_measure_the_nics() -> None:
    # Header GPU0-GPU7, NIC0-NIC8; rows GPU0-GPU6 each with one PIX NIC (NIC2, 4, 6, 8, 1, 3, 5); GPU7 cut.
    r = _parse(H800_TOPO)
    s = r["summary"]
    assert s["gpus"] == 8 and s["nics"] == 9 and s["rail_nics"] == 7
    assert s["gpu_rows_missing"] == ["GPU7"] and s["min_nvlinks_per_pair"] == 8
    assert _warned(r, "GPU rows missing for GPU7")
    (nics,) = _rows(H100, r, "GPU-fabric NICs per node")
    assert nics["verdict"] == "cannot-measure" and nics["measured"] == 7 and "GPU7" in nics["detail"]
    (mesh,) = _rows(H100, r, "full NVLink mesh")
    assert mesh["verdict"] == "pass"


def test_a_dgx_a100_topology_cut_before_gpu6_cannot_measure_nics_or_the_mesh() -> None:
    # Rows GPU0-GPU5 (NV12), 10 NIC columns; NIC pairs PXB to GPU pairs: NIC0-5 behind GPU0-5.
    r = _parse(DGX_TOPO)
    s = r["summary"]
    assert s["gpus"] == 8 and s["nics"] == 10 and s["rail_nics"] == 6
    assert s["gpu_rows_missing"] == ["GPU6", "GPU7"] and s["min_nvlinks_per_pair"] == 12
    (nics,) = _rows(A100, r, "GPU-fabric NICs per node")
    assert nics["verdict"] == "cannot-measure"
    (mesh,) = _rows(A100, r, "full NVLink mesh")
    assert mesh["verdict"] == "cannot-measure" and "GPU6, GPU7" in mesh["detail"]
    (pair,) = _rows(A100, r, "NVLinks per GPU pair")
    assert pair["verdict"] == "pass"


def test_the_complete_h800_topology_passes_its_8_nics() -> None:
    text = (REAL / H800_TOPO).read_text().rstrip("\n")
    # GPU7's row as the pattern of the others gives it: NV8 to every GPU, PIX to NIC7.
    cells = ["NV8"] * 7 + ["X"] + ["SYS", "NODE", "SYS", "NODE", "SYS", "NODE", "SYS", "PIX", "SYS"]
    row = "GPU7\t" + "\t".join(cells) + "\t48-95,144-191\t1"
    r = parse(text + "\n" + row + "\n").as_dict()
    s = r["summary"]
    assert s["rail_nics"] == 8 and "gpu_rows_missing" not in s
    (nics,) = _rows(H100, r, "GPU-fabric NICs per node")
    assert nics["verdict"] == "pass"


def test_a_p2p_matrix_alone_is_refused() -> None:
    # `nvidia-smi topo -p2p rw`: 2 x RTX 5090, `GNS` cells, no `CPU Affinity` header.
    r = _parse(P2P_ONLY)
    assert r["kind"] is None and r["errors"]


# ---- NVLink -------------------------------------------------------------------------------------------


def test_the_azure_a100_nvlink_status_shows_12_links_of_25_gbs() -> None:
    # Line 1 `GPU 0: NVIDIA A100-SXM4-80GB`, 8 GPUs x 12 `Link n: 25 GB/s` lines (96).
    r = _parse(A100_NVLINK)
    s = r["summary"]
    assert r["kind"] == "nvidia-smi-nvlink" and s["gpus"] == 8
    assert s["active_links_per_gpu"] == 12 and s["link_gbps"] == 25 and s["inactive_links"] == 0
    (links,) = _rows(A100, r, "active NVLinks per GPU")
    assert links["verdict"] == "pass"


def test_nvlink_r_is_not_read_as_nvidia_smi_l() -> None:
    # `nvidia-smi nvlink -R`: `GPU 0: NVIDIA H100 80GB HBM3 (UUID: ...)` then 18 `Link n: Remote Device ...`.
    r = _parse(NVLINK_R)
    assert r["kind"] is None
    assert any("nvlink -R" in e and "nvlink -s" in e for e in r["errors"])


def test_a_real_nvidia_smi_l_listing_is_still_read() -> None:
    listing = "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-257d8671-d0e6-d1a7-dea9-952249a668fa)\n"
    r = parse(listing).as_dict()
    assert r["kind"] == "nvidia-smi" and r["summary"]["gpus"] == 1


# ---- dmesg --------------------------------------------------------------------------------------------


def test_a_gpu_the_driver_does_not_support_fails_usable_gpus() -> None:
    # Line 1 `NVRM: The NVIDIA GPU 000a:00:00.0 (PCI ID: 10de:2330) installed in this system`, line 2 `is not
    # supported by the NVIDIA 580.126.09 driver release.`, line 3 `probe routine failed for 1 device(s).`
    r = _parse(PROBE)
    s = r["summary"]
    assert s["probe_failures"] == 1 and s["probe_failed_devices"] == 1
    assert s["gpus_probe_failed"] == [{"bus_id": "000a:00:00.0", "line": 1}]
    (row,) = _rows(H100, r, "usable GPUs (kernel log)")
    assert row["verdict"] == "fail" and row["measured"] == 1 and "000a:00:00.0" in row["detail"]


def test_probe_failure_on_one_of_eight_gpus_fails() -> None:
    text = "".join(
        f"[   5.0{i}] nvidia 0000:{bus}:00.0: enabling device (0000 -> 0003)\n"
        for i, bus in enumerate(("18", "2a", "3a", "5d", "9a", "ab", "ba", "db"))
    )
    text += (
        "[   6.10] NVRM: GPU 0000:ab:00.0: RmInitAdapter failed! (0x22:0x56:742)\n"
        "[   6.11] nvidia: probe of 0000:ab:00.0 failed with error -1\n"
        "[   6.20] NVRM: The NVIDIA probe routine failed for 1 device(s).\n"
    )
    r = parse(text).as_dict()
    assert r["kind"] == "dmesg"
    assert [g["bus_id"] for g in r["summary"]["gpus_probe_failed"]] == ["0000:ab:00.0"]
    (row,) = _rows(H100, r, "usable GPUs (kernel log)")
    assert row["verdict"] == "fail" and row["measured"] == 1


def test_repeated_xid_119_warns_usable_gpus_naming_the_gpu() -> None:
    # Lines 3, 38, 40, 42, 43: `NVRM: Xid (PCI:0000:9b:00): 119, ... Timeout after 6s of waiting for RPC
    # response from GPU4 GSP!`.
    r = _parse(XID119)
    s = r["summary"]
    assert s["xid_codes"] == [119] and [x["line"] for x in s["xid_events"]] == [3, 38, 40, 42, 43]
    (reset,) = s["xids_needing_reset"]
    assert reset == {"xid": 119, "name": "GSP_RPC_TIMEOUT", "bus_id": "0000:9b:00", "count": 5,
                     "lines": [3, 38, 40, 42, 43]}  # fmt: skip
    (row,) = _rows(H100, r, "usable GPUs (kernel log)")
    assert row["verdict"] == "warn" and "Xid 119 (GSP_RPC_TIMEOUT) x5 on 0000:9b:00" in row["detail"]


@pytest.mark.parametrize(
    ("line", "verdict"),
    [
        ("NVRM: Xid (PCI:0000:18:00): 48, pid=1, name=python, An uncorrectable double bit error", "warn"),
        ("NVRM: Xid (PCI:0000:18:00): 94, pid=1, name=python, Contained: SM (0x1). RST: No", "pass"),
        ("NVRM: Xid (PCI:0000:18:00): 63, Row Remapper: New row marked for remapping, reset gpu", "pass"),
        (
            "NVRM: Xid (PCI:0000:18:00): 154, GPU recovery action changed from 0x0 (None) to 0x1 (GPU Reset "
            "Required)",
            "warn",
        ),
        (
            "NVRM: Xid (PCI:0000:18:00): 154, GPU recovery action changed from 0x1 (GPU Reset Required) to "
            "0x0 (None)",
            "pass",
        ),
        (
            "NVRM: Xid (PCI:0000:18:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.",
            "fail",
        ),
    ],
)
def test_xids_by_nvidias_catalogue(line: str, verdict: str) -> None:
    r = parse(line + "\n").as_dict()
    (row,) = _rows(H100, r, "usable GPUs (kernel log)")
    assert row["verdict"] == verdict


def test_the_peermem_errors_and_a_healthy_mlx5_log_are_refused() -> None:
    # gpud's peermem log: 7 `nvidia-peermem nv_get_p2p_free_callback:127 ERROR ...` lines, no NVRM line;
    # arm-nas: `mlx5_core ... 63.008 Gb/s available PCIe bandwidth (8.0 GT/s PCIe x8 link)`, no `limited by`.
    for rel in (PEERMEM, MLX5_OK):
        r = _parse(rel)
        assert r["kind"] is None and r["errors"], rel


# ---- dcgmi, fabric manager -----------------------------------------------------------------------------


def test_dcgm_24_integration_pcie_fail_all_fails_gpu_health() -> None:
    # Line 2: `| PCIe | Fail - All |`, then a Warning wrapped over the next rows.
    r = _parse(DCGM49)
    s = r["summary"]
    assert r["kind"] == "dcgmi-diag" and s["passed"] is False and "PCIe" in s["failed_tests"]
    (row,) = _rows(A100, r, "GPU health (dcgmi diag)")
    assert row["verdict"] == "fail"


def test_a_fabric_manager_log_is_refused() -> None:
    # `[Feb 25 2025 13:59:45] [INFO] [tid 1803] Received an inband message: ...` (nv-fabricmanager).
    r = _parse(FABRIC_MANAGER)
    assert r["kind"] is None and r["errors"]
