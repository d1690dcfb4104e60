"""The hardware package against published figures: a change to a link, fabric or GPU number that moves it
away from what was measured in public must fail here, whichever part of the portal reads it."""

from __future__ import annotations

import pytest

from benchmarks.compare import compare
from hardware import (
    GPUS,
    MIB,
    expected_node_busbw_gbytes,
    fabric_efficiency,
    gpu_by_name,
    gpu_from_text,
    intra_node_busbw_efficiency,
)
from sizing.engine.hardware import hardware_from_facts


@pytest.mark.parametrize(
    ("nics", "gbps", "fabric", "published_gbytes", "source"),
    [
        (8, 200, "infiniband", 192.0, "DGX A100 8 x 200G HDR multi-node all-reduce ~192 (cal §5)"),
        (8, 400, "infiniband", 377.0, "NDR 400G: 46-48 GB/s per NIC, 8 rails ~370-384 (cal §5)"),
        (16, 200, "efa", 365.0, "AWS p5en (EFA, 4 nodes) 365 (cal §5)"),
    ],
)
def test_expected_node_busbw_matches_published_multi_node_runs(
    nics: int, gbps: float, fabric: str, published_gbytes: float, source: str
) -> None:
    assert expected_node_busbw_gbytes(nics, gbps, fabric) == pytest.approx(published_gbytes, rel=0.025), (
        source
    )


@pytest.mark.parametrize(
    ("gpu", "published_gbytes", "source"),
    [
        ("A100-SXM-80GB", 235.0, "8 x A100 NVLink3 all-reduce 235 (cal §5)"),
        ("H100-SXM-80GB", 365.0, "8 x H100 ring ~365 (cal §5)"),
    ],
)
def test_expected_intra_node_busbw_matches_published_single_node_runs(
    gpu: str, published_gbytes: float, source: str
) -> None:
    expected = GPUS[gpu].scale_up_gbytes_per_s * intra_node_busbw_efficiency("nvswitch")
    assert expected == pytest.approx(published_gbytes, rel=0.05), source


def test_tcp_ethernet_is_far_below_rdma() -> None:
    # cal §5: NCCL's socket transport is CPU-bound; an RDMA fabric reaches 0.9+ of the line rate.
    assert fabric_efficiency("ethernet") < 0.5 * fabric_efficiency("roce")
    assert min(fabric_efficiency(f) for f in ("infiniband", "roce", "efa")) >= 0.9


def test_the_sizing_model_and_the_evidence_verdicts_expect_the_same_fabric_bandwidth() -> None:
    facts = {"gpu": "H100-SXM-80GB", "gpus_per_node": 8, "intra_node": "nvswitch", "fabric": "roce"}
    facts |= {"nics_per_node": 8, "gbps_per_nic": 400}
    model_gbytes = hardware_from_facts(facts).node_busbw / 1e9
    item = {
        "kind": "nccl-tests",
        "filename": "run.log",
        "nodes": None,
        "gpus": None,
        "summary": {
            "runs": [
                {
                    "collective": "all_reduce",
                    "ranks": 16,
                    "nodes": 2,
                    "gpus_per_node": 8,
                    "failed": False,
                    "busbw_at_max_size_gbps": 300.0,
                    "max_size_bytes": 1 << 34,
                    "first_line": 1,
                    "last_line": 2,
                    "nvls_or_tree_suspected": False,
                }
            ]
        },
    }
    verdict = compare(facts, item)[0]
    assert verdict["expected"] == pytest.approx(model_gbytes)


@pytest.mark.parametrize(
    ("key", "reported_gb"),
    # nvidia-smi memory.total in GB (1e9 bytes), as listed with their sources in hardware/gpus.py
    [
        ("H100-SXM-80GB", 85.52),
        ("A100-SXM-80GB", 85.90),
        ("A100-SXM-40GB", 42.95),
        ("H200-SXM-141GB", 150.75),
    ],
)
def test_memory_as_the_device_reports_it(key: str, reported_gb: float) -> None:
    assert GPUS[key].hbm_bytes_reported == pytest.approx(reported_gb * 1e9, rel=1e-3)


def test_every_reported_memory_is_close_to_its_datasheet_capacity() -> None:
    # A typo of a digit in either figure shows up as a gap far beyond the GB/GiB difference (7.4%).
    for gpu in GPUS.values():
        if gpu.hbm_mib_reported is not None:
            ratio = gpu.hbm_mib_reported * MIB / (gpu.hbm_gb * 1e9)
            assert 0.95 < ratio < 1.10, gpu.key


def test_every_gpu_number_has_a_source() -> None:
    for gpu in GPUS.values():
        assert gpu.sources.get("peaks") and gpu.sources.get("reported") and gpu.sources.get("pcie"), gpu.key
        assert gpu.confirmed or "UNCONFIRMED" in gpu.sources["peaks"], gpu.key


def test_scale_up_rates_are_links_times_the_link_rate() -> None:
    assert GPUS["A100-SXM-80GB"].scale_up_gbytes_per_s == 300.0  # 12 x 25 (cal §1)
    assert GPUS["H100-SXM-80GB"].scale_up_gbytes_per_s == 450.0  # 18 links (cal §1)
    assert GPUS["H800-SXM-80GB"].scale_up_gbytes_per_s == 200.0  # 8 links (cal §1)
    assert GPUS["B200-180GB"].scale_up_gbytes_per_s == 900.0  # NVLink 5 (cal §1)
    assert GPUS["MI300X-192GB"].scale_up_gbytes_per_s == 448.0  # 7 x 64 (cal §1)
    assert GPUS["H100-PCIe-80GB"].scale_up_gbytes_per_s == 0.0


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("NVIDIA H100 80GB HBM3", "H100-SXM-80GB"),
        ("NVIDIA H100 PCIe", "H100-PCIe-80GB"),
        ("NVIDIA H100 NVL", "H100-PCIe-80GB"),
        ("NVIDIA A100-SXM4-40GB", "A100-SXM-40GB"),
        ("NVIDIA A800-SXM4-80GB", "A800-SXM-80GB"),
        ("NVIDIA H20", "H20-96GB"),
        ("NVIDIA H200 141GB HBM3e", "H200-SXM-141GB"),
        ("NVIDIA GB200", "GB200-186GB"),
        ("NVIDIA B200", "B200-180GB"),
        ("AMD Instinct MI300X", "MI300X-192GB"),
        ("Huawei Ascend 910B", "Ascend-910B-64GB"),
        ("NVIDIA H100 80GB HGX", "H100-SXM-80GB"),
    ],
)
def test_published_names_find_their_row(text: str, key: str) -> None:
    found = gpu_from_text(text)
    assert found is not None and found.key == key


@pytest.mark.parametrize(
    "text",
    ["NVIDIA H100 SXM / B200", "NVIDIA GB200 / GB300 NVL72", "NVIDIA L40S", "", None, "A100 80GB PCIe"],
)
def test_names_of_several_or_unknown_gpus_find_none(text: str | None) -> None:
    assert gpu_from_text(text) is None


def test_the_strict_lookup_takes_keys_and_published_names_only() -> None:
    assert gpu_by_name("H100-SXM-80GB") is GPUS["H100-SXM-80GB"]
    assert gpu_by_name("NVIDIA H800") is GPUS["H800-SXM-80GB"]
    assert gpu_by_name("some H100 box") is None


def test_other_gpu_names_are_told_only_for_gpus_of_the_table():
    from hardware import other_gpu_names

    assert other_gpu_names("H100-SXM-80GB", ["NVIDIA A100-SXM4-40GB"]) == ["NVIDIA A100-SXM4-40GB"]
    assert other_gpu_names("A100-SXM-80GB", ["NVIDIA A100-SXM4-40GB"]) == [
        "NVIDIA A100-SXM4-40GB"
    ]  # another row
    assert other_gpu_names("H100-SXM-80GB", ["NVIDIA H100 80GB HBM3"]) == []
    assert other_gpu_names("H100-SXM-80GB", ["NVIDIA Graphics Device", "NVIDIA A100-SXM4-40GB"]) == []
    assert (
        other_gpu_names(None, ["NVIDIA A100-SXM4-40GB"]) == [] and other_gpu_names("H100-SXM-80GB", []) == []
    )
