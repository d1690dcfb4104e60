"""The eighth set of real logs, part C: nvidia-smi tables, nvlink listings and lspci (fixtures/real/, origins
in fixtures/real/SOURCES.md, "Eighth set, part C").

As in test_real_logs.py, every expected value was read off the log by hand.
"""

from __future__ import annotations

from typing import Any

from benchmarks.compare import compare
from benchmarks.parsers import parse

from .test_real_logs import REAL, _parse, _warned

TWO_HOSTS = "nvidia-smi/gdr114-run-cmd-2hosts-v100-2gpu-each-timestamp-host-lines-same-bus-08.txt"
MIG = "nvidia-smi/gpu-operator-notes-a100-pcie-40gb-mig-enabled-7x-1g5gb-table-no-processes.txt"
DGX_A100 = (
    "nvidia-smi/gmu-dgx-a100-driver450-gpu7-mig-disabled-star-ecc-on-no-mig-devices-edited-processes.txt"
)
FABRIC = "nvidia-smi/zenn-aws-p5-q-i0-grep-fabric-state-in-progress-fragment.txt"
A100_CUT = "nvidia-smi-nvlink/nccl-tests-issue228-a100-80gb-tabs-25-gbs-integer-gpu2-elided-after-link0-T.txt"
GB200_CUT = "nvidia-smi-nvlink/k8s-test-infra-issue371-gb200-s-gpu1-elided-after-2-links-then-info-T.txt"
V100_DOTS = "nvidia-smi-nvlink/azhpc-diag-issue73-v100-gpu3-links-3-5-inactive-dots-T.txt"
LSPCI_NOTE = "lspci/gke-a3-lab11-gvnic-plus-gpus-elided-8-total-note.txt"
LSPCI_PP = "lspci/nvidia-gpu-admin-tools-hgx-b200-lspci-PP-nn-path-bdfs-12-cx7-8-gpus.txt"
LSPCI_P5 = "lspci/zenn-aws-p5-rhel9-lspci-grep-h100-8-gpus-4-nvswitch-bridges.txt"


def _parse_text(text: str) -> dict[str, Any]:
    return parse(text).as_dict()


# ---- nvidia-smi: tables of two hosts, told apart by their GPUs and drivers ---------------------------------


def test_two_hosts_tables_named_by_run_cmd_lines_are_four_gpus() -> None:
    # `2025/05/21 09:56:31 s114 nvidia-smi` (line 3): 08:00.0, 85:00.0 on driver 570.133.20;
    # `2025/05/21 09:56:32 s116 nvidia-smi` (line 30): 08:00.0, 82:00.0 on 550.144.03. Was 3 GPUs, "watch".
    out = _parse(TWO_HOSTS)
    summary = out["summary"]
    assert out["kind"] == "nvidia-smi" and summary["gpus"] == 4
    assert [g["bus_id"] for g in summary["gpu_list"]] == [
        "00000000:08:00.0",
        "00000000:85:00.0",
        "00000000:08:00.0",
        "00000000:82:00.0",
    ]
    assert summary["lines"] == [12, 16, 39, 43]
    assert summary["gpu_model_counts"] == {"Tesla V100-SXM2-16GB": 4}
    assert (summary["driver_version"], summary["cuda_version"]) == ("570.133.20", "12.8")
    assert summary["driver_versions"] == ["570.133.20", "550.144.03"]
    assert _warned(out, "GPUs of 2 hosts (s114, s116")
    assert _warned(out, "different driver versions", "570.133.20 (s114)", "550.144.03 (s116)")
    assert not _warned(out, "shown up to")


def test_two_tables_of_different_drivers_without_host_lines_are_two_machines() -> None:
    # the same file without the run_cmd lines: only the gdr114 prompt names a host
    lines = (REAL / TWO_HOSTS).read_text().splitlines()
    text = "\n".join(line for line in lines if not line.startswith("2025/05/21")) + "\n"
    out = _parse_text(text)
    assert out["summary"]["gpus"] == 4
    assert _warned(out, "tables of 2 machines") and _warned(out, "different driver versions")
    assert not _warned(out, "shown up to")


def _table_rows(*bus_ids: str, driver: str = "570.133.20") -> str:
    header = f"| NVIDIA-SMI {driver}    Driver Version: {driver}     CUDA Version: 12.8     |\n"
    rows = "".join(
        f"|   {i}  Tesla V100-SXM2-16GB           Off |   00000000:{bus}.0 Off |                    0 |\n"
        f"| N/A   29C    P0             20W /  300W |       5MiB /  16384MiB |      0%      Default |\n"
        for i, bus in enumerate(bus_ids)
    )
    return header + rows


def test_a_table_sharing_some_ids_but_not_all_is_another_machine() -> None:
    out = _parse_text(_table_rows("08:00", "85:00") + "\n" + _table_rows("08:00", "82:00"))
    assert out["summary"]["gpus"] == 4 and _warned(out, "tables of 2 machines")
    assert "driver_versions" not in out["summary"]


def test_a_table_cut_short_is_the_same_table_again() -> None:
    out = _parse_text(_table_rows("08:00", "85:00") + _table_rows("08:00"))
    assert out["summary"]["gpus"] == 2 and _warned(out, "1 GPU shown up to 2 times")
    assert not _warned(out, "machines")


def test_tables_of_other_ids_on_one_host_add_gpus_without_a_hosts_warning() -> None:
    out = _parse_text(_table_rows("08:00") + _table_rows("85:00"))
    assert out["summary"]["gpus"] == 2 and out["warnings"] == []


def test_ssh_and_pdsh_commands_name_the_host_of_the_table_after_them() -> None:
    table = _table_rows("08:00", "85:00")
    out = _parse_text("me@login:~$ ssh node1 nvidia-smi\n" + table + "pdsh -w node2 nvidia-smi\n" + table)
    assert out["summary"]["gpus"] == 4 and _warned(out, "GPUs of 2 hosts (node1, node2")


def test_launch_words_are_not_hosts() -> None:
    table = _table_rows("08:00", "85:00")
    text = "2025/05/21 09:56:31 sudo nvidia-smi\n" + table + "watch -n 1 nvidia-smi\n" + table
    out = _parse_text(text)
    assert out["summary"]["gpus"] == 2 and not _warned(out, "hosts")


# ---- nvidia-smi: MIG devices --------------------------------------------------------------------------


def test_the_mig_devices_section_counts_seven_slices_of_one_a100() -> None:
    # `MIG M.` Enabled (line 12), `MIG devices:` (line 15), 7 rows `|  0    7   0   0  |  5MiB /  4864MiB  |
    # 14      0 |` (GI 7-13, lines 21-39); mig_devices was 0
    out = _parse(MIG)
    summary = out["summary"]
    assert summary["gpus"] == 1 and summary["gpu_list"][0]["memory_total_mib"] == 40960
    assert summary["mig_devices"] == 7
    migs = summary["mig_device_list"]
    assert [m["gpu_instance"] for m in migs] == list(range(7, 14))
    assert [m["mig_device"] for m in migs] == list(range(7))
    assert {(m["gpu"], m["compute_instance"], m["memory_total_mib"], m["sms"]) for m in migs} == {
        (0, 0, 4864, 14)
    }
    assert [m["line"] for m in migs] == [21, 24, 27, 30, 33, 36, 39]
    assert _warned(out, "GPU 0 is split into 7 MIG devices (7 x 4864 MiB)")


def test_mig_list_lines_give_the_profile() -> None:
    text = (
        "GPU 0: NVIDIA A100-SXM4-40GB (UUID: GPU-5c89852c-d268-c3f3-1b07-005d5ae1dc3f)\n"
        "  MIG 3g.20gb     Device  0: (UUID: MIG-aaaaaaaa-1111-2222-3333-444444444444)\n"
        "  MIG 3g.20gb     Device  1: (UUID: MIG-bbbbbbbb-1111-2222-3333-444444444444)\n"
    )
    out = _parse_text(text)
    assert out["summary"]["mig_devices"] == 2
    assert [m["profile"] for m in out["summary"]["mig_device_list"]] == ["3g.20gb", "3g.20gb"]
    assert _warned(out, "GPU 0 is split into 2 MIG devices (2 x 3g.20gb)")


def test_no_mig_devices_found_is_no_mig_device() -> None:
    # driver 450 DGX A100: `Disabled*` on GPU 7, `No MIG devices found` (line 51)
    out = _parse(DGX_A100)
    summary = out["summary"]
    assert summary["gpus"] == 8 and summary["mig_devices"] == 0 and "mig_device_list" not in summary
    assert summary["gpu_model_counts"] == {"A100-SXM4-40GB": 8}
    assert {g["memory_total_mib"] for g in summary["gpu_list"]} == {40537}
    assert {g["power_cap_w"] for g in summary["gpu_list"]} == {400}
    assert summary["driver_version"] == "450.102.04" and out["warnings"] == []


def test_the_fabric_grep_fragment_is_still_refused() -> None:
    # R5: three lines of `nvidia-smi -q | grep -A 2 Fabric`, no `Attached GPUs` (not accepted: see SOURCES)
    assert _parse(FABRIC)["kind"] is None


# ---- nvidia-smi nvlink: listings cut by the author -----------------------------------------------------


def test_a_gpu_cut_after_link_0_is_left_out_of_the_per_gpu_minimum() -> None:
    # GPU 0 and 1: 12 x `Link n: 25 GB/s`; GPU 2 (line 27): `Link 0: 25 GB/s`, then `......`. Was 1 per GPU.
    out = _parse(A100_CUT)
    summary = out["summary"]
    assert summary["gpus"] == 3 and summary["active_links_per_gpu"] == 12
    assert summary["max_active_links_per_gpu"] == 12 and summary["link_gbps"] == 25.0
    per_gpu = {p["index"]: p for p in summary["per_gpu"]}
    assert per_gpu[2]["active_links"] == 1 and per_gpu[2]["listing_cut"] is True
    assert "listing_cut" not in per_gpu[0]
    assert _warned(out, "GPU 2 (line 27)", "elided", "after 1 link line", "shows 12")


def test_the_cut_gpu_does_not_fail_the_links_per_gpu_verdict() -> None:
    # the A100 SXM4 has 12 NVLinks: the listing's 12 pass where the cut GPU's 1 failed the node
    facts = {"gpu": "NVIDIA A100-SXM4-80GB", "intra_node": "nvswitch"}
    [links] = [v for v in compare(facts, _parse(A100_CUT)) if v["claim"] == "active NVLinks per GPU"]
    assert (links["expected"], links["measured"], links["verdict"]) == (12, 12, "pass")


def test_a_gb200_cut_after_two_links_then_nvlink_info() -> None:
    # GPU 0: 18 x 53.125 GB/s; GPU 1 (line 21): 2 links, `...`; then `nvidia-smi nvlink -info` under the same
    # GPU headers (NVLE, firmware lines: no links). Was 2 per GPU.
    out = _parse(GB200_CUT)
    summary = out["summary"]
    assert summary["gpus"] == 2 and summary["gpu_models"] == ["NVIDIA GB200"]
    assert summary["active_links_per_gpu"] == 18 and summary["link_gbps"] == 53.125
    assert summary["inactive_links"] == 0
    assert [p.get("listing_cut", False) for p in summary["per_gpu"]] == [False, True]
    assert _warned(out, "GPU 1 (line 21)", "after 2 link lines", "shows 18")


def test_a_gpu_header_with_an_elided_uuid_is_read() -> None:
    # `....`, then `GPU 3: Tesla V100-SXM2-32GB (UUID: ...)`, links 0-2 and 4 at 25.781, 3 and 5 inactive
    out = _parse(V100_DOTS)
    summary = out["summary"]
    [gpu] = summary["per_gpu"]
    assert (gpu["index"], gpu["name"], gpu["line"]) == (3, "Tesla V100-SXM2-32GB", 3)
    assert (gpu["active_links"], gpu["inactive_links"]) == (4, 2) and "listing_cut" not in gpu
    assert summary["gpu_models"] == ["Tesla V100-SXM2-32GB"] and summary["link_gbps"] == 25.781
    assert not _warned(out, "cut at the top") and _warned(out, "2 inactive NVLinks")


def test_an_elision_after_a_whole_gpu_leaves_its_count() -> None:
    links = "".join(f"         Link {i}: 26.562 GB/s\n" for i in range(18))
    text = (
        "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-11111111-2222-3333-4444-555555555555)\n" + links + "...\n"
        "GPU 7: NVIDIA H100 80GB HBM3 (UUID: GPU-71111111-2222-3333-4444-555555555555)\n" + links
    )
    out = _parse_text(text)
    assert out["summary"]["active_links_per_gpu"] == 18
    assert not any("listing_cut" in p for p in out["summary"]["per_gpu"])


# ---- lspci ---------------------------------------------------------------------------------------------


def test_an_lspci_note_of_8_total_gpus_is_kept_beside_the_2_counted() -> None:
    # line 3 `... (8 total GH100 devices) ...` between 04:00.0 and 8b:00.0; was 2 GPUs without a warning
    out = _parse(LSPCI_NOTE)
    summary = out["summary"]
    assert summary["gpus"] == 2 and summary["rdma_nics"] == 0 and summary["devices"] == 3
    assert summary["elided_lines"] == [3]
    assert summary["stated_totals"] == [{"count": 8, "what": "GH100 devices", "line": 3}]
    assert _warned(out, "lines left out by the author", "a minimum")
    assert _warned(out, "line 3", "states 8 GH100 devices")


def test_lspci_pp_path_addresses_12_cx7_and_8_b200() -> None:
    # `lspci -PP -nn`: 4 CX-7 functions 05:00.0-3 and 8 behind the GPU switches (lines 1-12), 8 x 10de:2901
    # (lines 14-21); was not recognised
    out = _parse(LSPCI_PP)
    assert out["kind"] == "lspci"
    summary = out["summary"]
    assert summary["rdma_nics"] == 12 and summary["rdma_nics_by_link_layer"] == {"InfiniBand": 12}
    assert summary["gpus"] == 8 and summary["devices"] == 20 and summary["nvswitches"] == 0
    assert summary["lines"] == list(range(1, 13))
    nic = summary["rdma_nic_functions"][4]
    assert nic["bdf"] == "0000:18:00.0" and nic["pci_path"] == "0000:15:01.0/16:00.0/17:00.0/18:00.0"
    assert [g["bdf"] for g in summary["gpu_functions"]][:2] == ["0000:1b:00.0", "0000:43:00.0"]
    assert [g["line"] for g in summary["gpu_functions"]] == list(range(14, 22))
    assert "elided_lines" not in summary


def test_lspci_grep_h100_eight_gpus_four_nvswitches() -> None:
    out = _parse(LSPCI_P5)
    summary = out["summary"]
    assert (summary["gpus"], summary["nvswitches"], summary["rdma_nics"]) == (8, 4, 0)
    assert "elided_lines" not in summary
