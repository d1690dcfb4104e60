"""Review of 577abe8's evidence verdicts, GPU side (F2-F9): the review's inputs (fixtures/review19b/, copied
from its cases) with the verdicts the review found right, and the eleventh set's fixtures keeping theirs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from benchmarks.compare import compare
from benchmarks.parsers import parse

from .test_real_logs import _parse, _warned

REVIEW = Path(__file__).parent / "fixtures" / "review19b"
H100 = {"gpu": "H100-SXM-80GB", "gpus_per_node": 8, "intra_node": "nvswitch", "nics_per_node": 8,
        "fabric": "infiniband", "gbps_per_nic": 400}  # fmt: skip
PCIE2 = {"gpus_per_node": 2, "intra_node": "pcie"}


def _review(name: str) -> dict[str, Any]:
    return parse((REVIEW / name).read_bytes(), filename=name).as_dict()


def _rows(facts: dict[str, Any], result: dict[str, Any], claim: str) -> list[dict[str, Any]]:
    return [v for v in compare(facts, result) if v["claim"] == claim]


def _verdicts(facts: dict[str, Any], result: dict[str, Any]) -> dict[str, str]:
    return {v["claim"]: v["verdict"] for v in compare(facts, result)}


# ---- F2: fan and power ERR! are board sensors: warned, the GPU counts --------------------------------------


@pytest.mark.parametrize("name", ["smi-2080ti-gpu1-fan-power-ERR.txt", "smi-2080ti-gpu1-power-ERR.txt"])
def test_fan_and_power_err_warn_and_the_gpu_stays_usable(name: str) -> None:
    # Line 14, GPU 1 (00000000:B5:00.0): `| ERR!  31C    P8    ERR! /  ERR! | ...` (or `ERR! /  250W`).
    r = _review(name)
    s = r["summary"]
    assert s["gpus"] == 2 and "gpus_in_error" not in s
    assert _verdicts(PCIE2, r) == {"GPUs per node": "pass"}
    assert _warned(r, "GPU 1", "00000000:B5:00.0", "power read ERR!", "usable")
    # `ERR! / ERR!` is one power sensor, named once.
    assert not _warned(r, "power, power")


def test_a_gpu_side_field_reading_err_makes_the_gpu_unusable() -> None:
    text = (REVIEW / "smi-2080ti-gpu1-fan-power-ERR.txt").read_text()
    # The same GPU with its temperature ERR! as well: read from the GPU itself, so NVML fails on it.
    r = parse(text.replace("| ERR!  31C ", "| ERR!  ERR!")).as_dict()
    (bad,) = r["summary"]["gpus_in_error"]
    assert bad["index"] == 1 and "temperature" in bad["fields"]
    (usable,) = _rows(PCIE2, r, "usable GPUs")
    assert usable["verdict"] == "fail" and usable["measured"] == 1
    assert _rows(PCIE2, r, "GPUs per node")[0]["measured"] == 1


# ---- F3: repeated tables are judged on each GPU's latest reading ------------------------------------------


def test_a_gpu_that_reads_err_in_the_latest_snapshot_is_not_usable() -> None:
    r = _review("smi-2080ti-watch-healthy-then-err.txt")
    s = r["summary"]
    (bad,) = s["gpus_in_error"]
    assert bad["index"] == 1 and bad["line"] == 39 and "name" in bad["fields"]
    assert s["gpu_models"] == ["NVIDIA GeForce RTX 2080 Ti"]
    verdicts = _verdicts(PCIE2, r)
    assert verdicts == {"GPUs per node": "fail", "usable GPUs": "fail"}
    assert _warned(r, "GPU 1", "line 39", "not usable")


def test_a_gpu_that_read_err_and_reads_healthy_later_passes_with_a_warning() -> None:
    r = _review("smi-2080ti-watch-err-then-healthy.txt")
    s = r["summary"]
    assert "gpus_in_error" not in s and s["gpus"] == 2
    # The first reading's name was ERR!: the model is the later reading's.
    assert s["gpu_model_counts"] == {"NVIDIA GeForce RTX 2080 Ti": 2}
    assert _verdicts(PCIE2, r) == {"GPUs per node": "pass"}
    assert _warned(r, "GPU 1", "line 14", "latest reading (line 39)", "usable")


# ---- F4: a cut topology whose header shows fewer NICs than claimed fails -----------------------------------


def test_a_cut_topology_with_fewer_nic_columns_than_claimed_fails_the_nics() -> None:
    # Header GPU0-7, NIC0-3; rows GPU0-6, GPU7 cut.
    r = _review("topo-8gpu-4nic-gpu7-cut.txt")
    s = r["summary"]
    assert s["nics"] == 4 and s["gpu_rows_missing"] == ["GPU7"]
    (nics,) = _rows(H100, r, "GPU-fabric NICs per node")
    assert nics["verdict"] == "fail" and nics["measured"] == 4
    # A claim the header's NIC columns reach stays cannot-measure.
    (four,) = _rows({**H100, "nics_per_node": 4}, r, "GPU-fabric NICs per node")
    assert four["verdict"] == "pass"


def test_the_eleventh_set_cut_topologies_stay_cannot_measure() -> None:
    for rel in (
        "nvidia-smi-topo/nccl-933-h800-nv8-9nic-gpu0-6-rows-gpu7-cut-T.txt",
        "nvidia-smi-topo/dcgm-149-dgx-a100-nv12-10nic-pxb-pairs-gpu0-5-T.txt",
    ):
        (nics,) = _rows(H100, _parse(rel), "GPU-fabric NICs per node")
        assert nics["verdict"] == "cannot-measure", rel


# ---- F5, F6: driver probe failures ---------------------------------------------------------------------


def test_a_probe_failure_a_later_driver_load_took_back_warns() -> None:
    # Line 1: 470 refuses 0000:9b:00.0; line 4: `probe routine failed for 1 device(s)`; line 8:
    # `nvidia 0000:9b:00.0: enabling device` under the 550 driver, no failure after it.
    r = _review("dmesg-probe-failed-old-driver-then-new-driver-loaded.txt")
    s = r["summary"]
    assert s["gpus_probe_failed"] == [] and s["probe_failed_devices"] == 0
    assert s["gpus_probe_recovered"] == [{"bus_id": "0000:9b:00.0", "line": 1, "loaded_line": 8}]
    (row,) = _rows(H100, r, "usable GPUs (kernel log)")
    assert row["verdict"] == "warn" and "0000:9b:00.0" in row["detail"] and "line 8" in row["detail"]


def test_a_probe_that_fails_again_after_the_reload_fails() -> None:
    text = (REVIEW / "dmesg-probe-failed-old-driver-then-new-driver-loaded.txt").read_text()
    text += "[  902.0] nvidia: probe of 0000:9b:00.0 failed with error -1\n"
    r = parse(text).as_dict()
    assert [g["bus_id"] for g in r["summary"]["gpus_probe_failed"]] == ["0000:9b:00.0"]
    (row,) = _rows(H100, r, "usable GPUs (kernel log)")
    assert row["verdict"] == "fail" and row["measured"] == 1


def test_a_probe_failure_names_only_the_gpu_the_driver_named() -> None:
    # Line 1 `NVRM: GPU 0000:18:00.0: RmInitAdapter succeeded` (healthy), line 2 `The NVIDIA GPU 0000:9b:00.0
    # ... is not supported`, line 3 `probe routine failed for 1 device(s)`.
    r = _review("dmesg-probe-neighbour-within-4-lines.txt")
    s = r["summary"]
    assert s["gpus_probe_failed"] == [{"bus_id": "0000:9b:00.0", "line": 2}]
    assert s["probe_failed_devices"] == 1
    (row,) = _rows(H100, r, "usable GPUs (kernel log)")
    assert row["verdict"] == "fail" and row["measured"] == 1 and "0000:18:00.0" not in row["detail"]


def test_the_named_gpus_are_capped_at_the_drivers_count_keeping_the_last() -> None:
    text = (
        "NVRM: The NVIDIA GPU 0000:18:00.0 (PCI ID: 10de:2330) installed in this system is not supported\n"
        "NVRM: The NVIDIA GPU 0000:9b:00.0 (PCI ID: 10de:2330) installed in this system is not supported\n"
        "NVRM: The NVIDIA probe routine failed for 1 device(s).\n"
    )
    s = parse(text).as_dict()["summary"]
    assert [g["bus_id"] for g in s["gpus_probe_failed"]] == ["0000:9b:00.0"]


def test_the_eleventh_set_probe_failure_still_fails() -> None:
    r = _parse("dmesg/aicr-1858-azure-nd-h100-gpu-000a-not-supported-probe-failed-T.txt")
    assert r["summary"]["gpus_probe_failed"] == [{"bus_id": "000a:00:00.0", "line": 1}]
    (row,) = _rows(H100, r, "usable GPUs (kernel log)")
    assert row["verdict"] == "fail" and row["measured"] == 1


# ---- F7, F8: Xids ---------------------------------------------------------------------------------------


def test_xid_154_back_to_none_after_a_reset_passes_with_the_history() -> None:
    r = _review("dmesg-xid154-reset-then-none.txt")
    s = r["summary"]
    assert s["xids_needing_reset"] == []
    assert s["xids_recovered"] == [{"bus_id": "0000:18:00", "line": 4, "xids": [154]}]
    (row,) = _rows(H100, r, "usable GPUs (kernel log)")
    assert row["verdict"] == "pass" and "recovered" in row["detail"]
    (lone,) = _rows(H100, _review("dmesg-xid154-none-only.txt"), "usable GPUs (kernel log)")
    assert lone["verdict"] == "pass"


def test_a_reset_xid_after_the_recovery_went_back_to_none_still_warns() -> None:
    text = (REVIEW / "dmesg-xid154-reset-then-none.txt").read_text()
    text += "[ 4000.0] NVRM: Xid (PCI:0000:18:00): 119, Timeout after 6s of waiting for RPC response\n"
    (row,) = _rows(H100, parse(text).as_dict(), "usable GPUs (kernel log)")
    assert row["verdict"] == "warn" and "Xid 119" in row["detail"] and "not usable" in row["detail"]


def test_an_nvlink5_xid_warns_without_calling_the_gpu_unusable() -> None:
    r = _review("dmesg-xid144-nonfatal.txt")
    (entry,) = r["summary"]["xids_needing_reset"]
    assert entry["xid"] == 144 and entry["nvlink_decode"] is True
    (row,) = _rows(H100, r, "usable GPUs (kernel log)")
    assert row["verdict"] == "warn"
    assert "may need a reset" in row["detail"] and "NVLink error decode" in row["detail"]
    assert "not usable" not in row["detail"]


def test_the_eleventh_set_xid_119_still_says_not_usable() -> None:
    (row,) = _rows(H100, _parse("dmesg/gpud-dmesg-xid119-gsp-timeout.txt"), "usable GPUs (kernel log)")
    assert row["verdict"] == "warn" and "not usable until then" in row["detail"]


# ---- F9: nvidia-smi nvlink -R ------------------------------------------------------------------------


def test_a_complete_nvlink_r_listing_gives_the_gpu_count_and_model() -> None:
    r = _review("nvlink-R-8gpu-complete.txt")
    s = r["summary"]
    assert r["kind"] == "nvidia-smi" and s["source"] == "nvidia-smi nvlink -R" and s["gpus"] == 8
    assert _verdicts(H100, r) == {"GPUs per node": "pass", "GPU model": "pass"}
    assert _warned(r, "nvlink -R", "-i", "neither NVLink state nor speed")


def test_an_nvlink_r_listing_of_fewer_gpus_than_claimed_cannot_measure() -> None:
    lines = (REVIEW / "nvlink-R-8gpu-complete.txt").read_text().splitlines()
    # The first two GPUs' blocks (1 prompt line, then 19 lines per GPU).
    r = parse("\n".join(lines[:39]) + "\n").as_dict()
    assert r["summary"]["gpus"] == 2
    (row,) = _rows(H100, r, "GPUs per node")
    assert row["verdict"] == "cannot-measure" and row["measured"] == 2


def test_the_eleventh_set_one_gpu_nvlink_r_stays_refused() -> None:
    r = _parse("nvidia-smi-nvlink/nccl-1182-h100-nvlink-R-remote-device-gpu0-18-links-T.txt")
    assert r["kind"] is None
    assert any("nvlink -R" in e and "nvlink -s" in e for e in r["errors"])


def test_a_table_beside_nvlink_r_is_read_as_the_table() -> None:
    r = _review("smi-table-plus-nvlink-R.txt")
    assert r["summary"]["source"] == "nvidia-smi"
    assert _verdicts(H100, r) == {"GPUs per node": "pass", "GPU model": "pass"}


# ---- the eleventh set's nvidia-smi fixtures keep their verdicts -----------------------------------------


def test_the_eleventh_set_err_fixtures_keep_their_verdicts() -> None:
    a40 = _parse("nvidia-smi/gpu-operator-559-a40-gpu0-name-ERR-all-fields-T.txt")
    assert _verdicts({"gpu": "A40", "gpus_per_node": 2, "intra_node": "pcie"}, a40) == {
        "GPUs per node": "fail",
        "usable GPUs": "fail",
    }
    fan = _parse("nvidia-smi/gpud-geforce-1gpu-fan-ERR-525.txt")
    assert _verdicts({"gpus_per_node": 1}, fan) == {"GPUs per node": "pass"}
