"""The twenty-fifth round's defects (fixtures/round25/ and two real excerpts in fixtures/real/): a GPU
name stating a memory size the table has no row of its model for, vGPU profiles taken for whole GPUs, iWARP
ports counted inactive, a lone NVSwitch SXid continuation line giving no event."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from benchmarks.compare import compare
from benchmarks.parsers import parse
from hardware import GPU_MODEL_CLAIM, gpu_from_text, off_table_memory_gb, other_gpu_names, vgpu_profile

from .test_real_logs import _parse, _warned

ROUND = Path(__file__).parent / "fixtures" / "round25"
A100_64 = "nvidia-smi-leonardo-4x-a100-sxm-64gb-driver530.txt"
LEONARDO_NCCL = (
    "nccl-tests/leonardo-a100-64gb-sendrecv-t2-g1-one-process-two-threads-nccl-info-inside-table.txt"
)
VGPU_TABLE = "nvidia-smi-vm-vgpu-2x-grid-a100-40c-driver470.txt"
VGPU_L = "nvidia-smi-L-vm-vgpu-mig-backed-2x-a100-4-20c.txt"
VGPU_NCCL = "nccl-tests-vm-vgpu-h100xm-80c-2-ranks-all-reduce.txt"
I40IW = "rdma-link/pmof-guide-i40iw-iwarp-nop-and-mlx5-roce.txt"
CXGB3 = "ibv_devinfo/ompi-users-2009-cxgb3-iwarp-no-transport-no-link-layer-phys-state-0.txt"
CXGB4_RDMA = "rdma-link-chelsio-t6-cxgb4-iwarp-2-ports-active.txt"
CXGB4_IBSTAT = "ibstat-chelsio-cxgb4-iwarp-port-no-state-change.txt"
SXID_DATA = "dmesg-cut-lone-nvswitch-sxid-12028-data-line-then-nvrm.txt"
SXID_CUT = "dmesg-cut-nvswitch-sxid-22013-severity-and-data-lines-then-full-event.txt"


def _round(name: str) -> dict[str, Any]:
    return parse((ROUND / name).read_bytes(), filename=name).as_dict()


def _claim(facts: dict[str, Any], result: dict[str, Any], claim: str) -> dict[str, Any]:
    return next(v for v in compare(facts, dict(result, filename="f.txt")) if str(v["claim"]) == claim)


# ---- 1. a memory size no row of the model has ---------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "key"),
    [
        # size-suffixed names whose size the table has: resolved as before
        ("NVIDIA A100-SXM4-40GB", "A100-SXM-40GB"),
        ("NVIDIA A100-SXM4-80GB", "A100-SXM-80GB"),
        ("A100 40GB", "A100-SXM-40GB"),
        ("A100 80GB", "A100-SXM-80GB"),
        ("NVIDIA A800-SXM4-80GB", "A800-SXM-80GB"),
        ("NVIDIA H100 80GB HBM3", "H100-SXM-80GB"),
        ("NVIDIA H800 80GB HBM3", "H800-SXM-80GB"),
        ("NVIDIA H20 96GB", "H20-96GB"),
        ("NVIDIA H200 141GB HBM3e", "H200-SXM-141GB"),
        ("NVIDIA B200 SXM 180GB", "B200-180GB"),
        ("NVIDIA B200 192GB", "B200-180GB"),  # published both ways (provider-catalog-addendum)
        ("NVIDIA B300 SXM 270GB", "B300-288GB"),
        ("MI355X 288 GB", "MI355X-288GB"),
        ("Ascend 910B 64GB", "Ascend-910B-64GB"),
        ("H100 with 8 x 400 Gb", "H100-SXM-80GB"),  # gigabits, no memory size
        # sizes no row of the model has: unknown to the table, never another row
        ("NVIDIA A100-SXM-64GB", None),
        ("NVIDIA A800-SXM4-40GB", None),
        ("H100 NVL 94GB", None),
        ("NVIDIA H100 96GB HBM3", None),
        # no row at all, as before
        ("NVIDIA L40S 48GB", None),
        ("NVIDIA A100-PCIE-40GB", None),
    ],
)
def test_a_stated_memory_size_picks_the_row_of_that_size_or_none(name: str, key: str | None) -> None:
    found = gpu_from_text(name)
    assert (found.key if found else None) == key


def test_an_a100_64gb_table_is_reported_with_its_memory_and_fails_an_a100_80gb_model_check() -> None:
    r = _round(A100_64)
    s = r["summary"]
    assert (s["gpus"], s["gpu_models"]) == (4, ["NVIDIA A100-SXM-64GB"])
    assert s["gpu_names_not_in_table"] == [{"name": "NVIDIA A100-SXM-64GB", "stated_memory_gb": 64}]
    assert _warned(r, "NVIDIA A100-SXM-64GB (64 GB)", "not taken for a GPU of another memory size")
    row = _claim({"gpu": "A100-SXM-80GB", "gpus_per_node": 4}, r, str(GPU_MODEL_CLAIM))
    assert row["verdict"] == "fail"  # it passed as the 80 GB A100
    assert off_table_memory_gb("NVIDIA A100-SXM4-80GB") is None


def test_an_a100_64gb_nccl_log_is_judged_as_an_unknown_gpu_not_as_another_row() -> None:
    r = _parse(LEONARDO_NCCL)
    assert r["summary"]["runs"][0]["gpu_names"] == ["NVIDIA A100-SXM-64GB"]
    assert r["summary"]["gpu_names_not_in_table"][0]["stated_memory_gb"] == 64
    # a memory size the table lacks is no other GPU by itself: under an A100 80GB offering its links are
    # the A100's, judged; under an H100 offering it is an A100, another GPU (not the claim's links)
    assert other_gpu_names("A100-SXM-80GB", ["NVIDIA A100-SXM-64GB"]) == []
    assert other_gpu_names("H100-SXM-80GB", ["NVIDIA A100-SXM-64GB"]) == ["NVIDIA A100-SXM-64GB"]
    # the same for a form factor's off-table size (an H100 NVL 94GB is an NVL card, not the SXM module)
    assert other_gpu_names("H100-SXM-80GB", ["NVIDIA H100 NVL 94GB"]) == ["NVIDIA H100 NVL 94GB"]
    assert other_gpu_names("H100-SXM-80GB", ["NVIDIA A800-SXM4-40GB"]) == ["NVIDIA A800-SXM4-40GB"]
    # a vGPU profile stays unknown here (its GPU-model row fails on its own)
    assert other_gpu_names("H100-SXM-80GB", ["GRID A100-40C"]) == []


# ---- 2. vGPU profiles -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "board", "gb", "slices"),
    [
        ("GRID A100-40C", "A100", 40, None),
        ("NVIDIA A100-4-20C", "A100", 20, 4),
        ("NVIDIA H100XM-80C", "H100XM", 80, None),
        ("GRID A100D-80C", "A100D", 80, None),
        ("NVIDIA H100L-1-12C", "H100L", 12, 1),
    ],
)
def test_vgpu_profile_names_are_no_gpu_of_the_table(
    name: str, board: str, gb: int, slices: int | None
) -> None:
    profile = vgpu_profile(name)
    assert profile is not None
    assert (profile["board"], profile["frame_buffer_gb"], profile["mig_slices"]) == (board, gb, slices)
    assert gpu_from_text(name) is None


@pytest.mark.parametrize("name", ["NVIDIA A100-SXM4-40GB", "NVIDIA H100 80GB HBM3", "NVIDIA A100-PCIE-40GB"])
def test_whole_gpu_names_are_no_vgpu_profile(name: str) -> None:
    assert vgpu_profile(name) is None


def test_a_vgpu_table_is_reported_as_virtual_profiles_and_fails_the_gpu_model_check() -> None:
    r = _round(VGPU_TABLE)
    s = r["summary"]
    assert (s["gpus"], s["gpu_models"]) == (2, ["GRID A100-40C"])
    assert [(p["board"], p["frame_buffer_gb"], p["series"]) for p in s["vgpu_profiles"]] == [
        ("A100", 40, "C")
    ]
    assert _warned(r, "NVIDIA vGPU profiles (GRID A100-40C)", "not whole GPUs")
    row = _claim({"gpu": "A100-SXM-80GB", "gpus_per_node": 2}, r, str(GPU_MODEL_CLAIM))
    assert row["verdict"] == "fail" and "vGPU" in str(row["detail"])  # it passed as a whole A100


def test_nvidia_smi_l_of_mig_backed_vgpus() -> None:
    r = _round(VGPU_L)
    assert r["summary"]["gpus"] == 2
    assert r["summary"]["vgpu_profiles"][0]["mig_slices"] == 4
    assert _warned(r, "NVIDIA vGPU profiles (NVIDIA A100-4-20C)")


def test_nccl_rank_lines_on_vgpus_are_warned_and_not_judged_as_the_whole_gpu() -> None:
    r = _round(VGPU_NCCL)
    s = r["summary"]
    assert s["runs"][0]["gpu_names"] == ["NVIDIA H100XM-80C"]
    assert s["vgpu_profiles"][0]["board"] == "H100XM"
    assert _warned(r, "NVIDIA vGPU profiles (NVIDIA H100XM-80C)")
    assert not any(gpu_from_text(n) for n in s["runs"][0]["gpu_names"])


# ---- 3. iWARP ports -------------------------------------------------------------------------------------


def test_rdma_link_i40iw_iwarp_port_with_nop_physical_state_is_active() -> None:
    r = _parse(I40IW)
    s = r["summary"]
    states = [(p["device"], p["state"], p["physical_state"], p.get("transport")) for p in s["ports"]]
    assert states == [
        ("i40iw0", "Down", "NOP", "iWARP"),
        ("i40iw1", "Active", "NOP", "iWARP"),
        ("mlx5_0", "Down", "Disabled", None),
        ("mlx5_1", "Active", "LinkUp", None),
    ]
    # i40iw1 was counted inactive (3 inactive); it is an active iWARP port, not a RoCE one
    assert (s["active_iwarp_ports"], s["active_ethernet_ports"], s["inactive_ports"]) == (1, 1, 2)
    assert _warned(r, "i40iw0/1, i40iw1/1: iWARP devices")


def test_old_ibv_devinfo_of_a_cxgb3_without_transport_or_link_layer() -> None:
    r = _parse(CXGB3)
    s = r["summary"]
    assert [(p["state"], p["physical_state"], p["link_layer"]) for p in s["ports"]] == [
        ("Active", "NOP", None)
    ] * 2
    assert (s["active_iwarp_ports"], s["inactive_ports"]) == (2, 0)


@pytest.mark.parametrize(("name", "active", "inactive"), [(CXGB4_RDMA, 2, 0), (CXGB4_IBSTAT, 1, 1)])
def test_chelsio_iwarp_ports_count_by_their_state(name: str, active: int, inactive: int) -> None:
    s = _round(name)["summary"]
    assert (s["active_iwarp_ports"], s["inactive_ports"], s["active_ethernet_ports"]) == (active, inactive, 0)


def test_an_iwarp_port_is_not_a_good_roce_port() -> None:
    facts = {
        "gpu": "H100-SXM-80GB",
        "gpus_per_node": 8,
        "fabric": "roce",
        "gbps_per_nic": 400,
        "nics_per_node": 2,
    }
    row = _claim(facts, _parse(I40IW), "Ethernet GPU-fabric ports")
    assert row["measured"] == 1  # mlx5_1 only


SF_TUTORIAL = "rdma-link/sigcomm26-bluefield3-tutorial-two-sf-rdma-devices-in-namespaces-enp3s0f0s0.txt"
SF_KERNEL_DOC = "rdma-link/kernel-doc-mlx5-switchdev-subfunction-devlink-then-rdma-link-p0sf88.txt"


@pytest.mark.parametrize(
    ("name", "netdevs"), [(SF_TUTORIAL, ["enp3s0f0s0", "enp3s0f1s0"]), (SF_KERNEL_DOC, ["p0sf88"])]
)
def test_mlx5_sub_functions_are_not_counted_as_ports(name: str, netdevs: list[str]) -> None:
    r = _parse(name)
    s = r["summary"]
    assert [p["netdev"] for p in s["sub_functions"]] == netdevs
    assert s["active_ethernet_ports"] == 0  # 2 and 1 before: a sub-function shares its physical port
    assert all(p["sub_function"] for p in s["ports"])
    assert _warned(r, f"{len(netdevs)} sub-function" + ("s" if len(netdevs) != 1 else ""))
    facts = {
        "gpu": "H100-SXM-80GB",
        "gpus_per_node": 8,
        "fabric": "roce",
        "gbps_per_nic": 100,
        "nics_per_node": 1,
    }
    assert _claim(facts, r, "Ethernet GPU-fabric ports")["verdict"] != "pass"


# ---- 4. an SXid continuation line whose first line was cut ---------------------------------------------


def test_a_lone_sxid_data_line_is_an_event_of_unknown_severity() -> None:
    r = _round(SXID_DATA)
    events = r["summary"]["nvswitch_sxid_events"]
    assert [(e["switch"], e["bus_id"], e["sxid"], e["fatal"], e["line"]) for e in events] == [
        ("nvidia-nvswitch2", "0000:07:00.0", 12028, None, 1)
    ]
    assert events[0]["header_missing"] is True and events[0]["detail"].startswith(
        "Data {0x00000000, 0x00000002"
    )
    assert _warned(r, "1 SXid event read from continuation lines", "first at line 1")
    assert r["summary"]["xid_codes"] == [74]


def test_a_cut_severity_and_data_pair_is_one_event_with_its_severity() -> None:
    r = _round(SXID_CUT)
    events = r["summary"]["nvswitch_sxid_events"]
    assert [(e["line"], e["fatal"], e.get("header_missing", False)) for e in events] == [
        (1, False, True),
        (3, False, False),  # the whole event after it: its Severity and Data lines are not events
    ]
    assert _warned(r, "2 NVSwitch errors (SXid), 0 fatal")


# ---- 5. nccl-tests rows behind rank tags: the same result for less work ---------------------------------


TAGGED = "nccl-tests/nccl1453-h100-mpich-prepend-rank-tags-glued-in-rows-1m-512m-T.txt"


def _tagged_rows(copies: int) -> bytes:
    from .test_real_logs import _path

    return _path(TAGGED).read_bytes() * copies


def test_rows_past_the_rows_held_are_counted_not_built(monkeypatch: pytest.MonkeyPatch) -> None:
    import benchmarks.parsers.nccl.blocks as blocks

    built = 0
    make_row = blocks.make_row

    def counting(line_no: int, g: tuple[str, ...]) -> Any:
        nonlocal built
        built += 1
        return make_row(line_no, g)

    monkeypatch.setattr(blocks, "make_row", counting)
    r = parse(_tagged_rows(4000), filename="tagged.txt").as_dict()  # 40,000 rows in one run (-N cycles)
    assert r["kind"] == "nccl-tests" and r["summary"]["runs"][0]["rows"] == 20_000
    assert _warned(r, "20000")  # the rows read and not held are still counted and said
    # 40,000 before: every row was built, the last 20,000 then only counted; now the rows held and the
    # rest of the block of lines (BLOCK_LINES, 8,192) that reached the limit
    assert built <= 20_000 + 8192


def test_detection_reads_usual_rows_without_parsing_them(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib

    detect_module = importlib.import_module("benchmarks.parsers.detect")
    calls = 0
    parse_row = detect_module.parse_row

    def counting(*args: Any) -> Any:
        nonlocal calls
        calls += 1
        return parse_row(*args)

    monkeypatch.setattr(detect_module, "parse_row", counting)
    from benchmarks.parsers.text import decode

    detection = detect_module.detect(decode(_tagged_rows(300)))  # 3,000 rows, no header: read to the end
    assert detection.kind == "nccl-tests" and "'nccl_row': 3000" in detection.reason
    assert calls == 0  # 3,000 before


def test_a_usual_row_match_is_a_row_parse_row_reads() -> None:
    # what detection's shortcut relies on, over every line of the nccl-tests corpus
    from benchmarks.parsers.detect import USUAL_ROW_RE
    from benchmarks.parsers.nccl import parse_row

    from .test_real_logs import REAL

    matched = 0
    for path in sorted((REAL / "nccl-tests").glob("*.txt")):
        for line in path.read_text(errors="replace").splitlines():
            if USUAL_ROW_RE.match(line):
                matched += 1
                assert parse_row(line, 0, None) is not None, (path.name, line)
    assert matched > 500


@pytest.mark.parametrize("name", ["NVIDIA A100 (40GB)", "A100/40GB", "8x A100, 40GB", "A100 SXM4 (40 GB)"])
def test_a_size_after_a_bracket_slash_or_comma_is_the_names_size(name: str) -> None:
    # review: the size reader stopped at a bracket, slash or comma, so these fell back to the 80 GB A100
    gpu = gpu_from_text(name)
    assert gpu is not None and gpu.key == "A100-SXM-40GB"
    # a size after a list separator belongs to the next name, not to this one
    assert gpu_from_text("A100 / H100 80GB") is None
    # and a size after the name's comma that no row of the model has is another part of the text (RAM)
    h100 = gpu_from_text("NVIDIA H100, 512GB RAM")
    assert (
        h100 is not None
        and h100.key == "H100-SXM-80GB"
        and off_table_memory_gb("NVIDIA H100, 512GB RAM") is None
    )
