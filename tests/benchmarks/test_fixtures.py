"""Hand-written fixtures (tests/benchmarks/fixtures) for formats and edge cases the corpus lacks."""

from __future__ import annotations

from typing import Any

import pytest

from benchmarks.parsers import parse

from ._shared import FIXTURES


def _parse(name: str, transform: Any = None) -> dict[str, Any]:
    data = (FIXTURES / name).read_bytes()
    if transform is not None:
        data = transform(data)
    return parse(data, filename=name).as_dict()


def _run(result: dict[str, Any], index: int = 0) -> dict[str, Any]:
    return result["summary"]["runs"][index]


def test_2019_format_with_srun_prefix_and_float_error_column() -> None:
    result = _parse("nccl-2019-error-column-srun.txt")
    run = _run(result)
    assert result["kind"] == "nccl-tests"
    assert (run["collective"], run["ranks"], run["nodes"], run["gpus_per_node"]) == ("all_reduce", 4, 2, 2)
    assert run["busbw_at_max_size_gbps"] == pytest.approx(15.73)
    assert run["avg_busbw_reported"] == pytest.approx(12.0267)
    assert run["failed"] is False
    # A float max error of 2e-07 with `Out of bounds values : 0` is rounding: no warning (issue 18 item 5).
    assert not any("error" in w for w in result["warnings"])


@pytest.mark.parametrize(
    "transform",
    [
        lambda b: b.replace(b"\n", b"\r\n"),
        lambda b: b.replace(b"    ", b"\t"),
        lambda b: b"\n".join(b"\x1b[32m" + line + b"\x1b[0m" for line in b.split(b"\n")),
        lambda b: b"\n".join(b"[1,0]<stdout>:" + line for line in b.split(b"\n")),
    ],
    ids=["crlf", "tabs", "ansi", "mpi-tags"],
)
def test_line_ends_tabs_colours_and_tags_do_not_change_the_reading(transform: Any) -> None:
    run = _run(_parse("nccl-2019-error-column-srun.txt", transform))
    assert (run["collective"], run["ranks"], run["rows"]) == ("all_reduce", 4, 3)
    assert run["busbw_at_max_size_gbps"] == pytest.approx(15.73)


def test_in_place_only_table_with_wrong_values_is_a_failed_run() -> None:
    run = _run(_parse("nccl-inplace-only-wrong.txt"))
    assert run["collective"] == "reduce_scatter"
    assert run["failed"] is True
    assert "#wrong" in run["failure_reason"] and "Out of bounds" in run["failure_reason"]
    assert run["busbw_at_max_size_oop_gbps"] is None
    assert run["busbw_at_max_size_gbps"] == pytest.approx(62.91)
    assert run["nccl_version"] == "2.28.3"


def test_repeated_cycles_with_timestamps_and_a_root_infer_broadcast() -> None:
    run = _run(_parse("nccl-broadcast-cycles-timestamps.txt"))
    assert run["collective"] == "broadcast"
    assert run["cycles"] == 2
    assert run["busbw_at_max_size_per_cycle_gbps"] == [282.56, 233.42]
    assert run["peak_busbw_gbps"] == pytest.approx(284.06)


def test_one_rank_cannot_measure() -> None:
    run = _run(_parse("nccl-one-rank.txt"))
    assert run["ranks"] == 1
    assert run["measures_fabric"] is False
    assert run["peak_busbw_gbps"] == 0.0


def test_header_without_rows_is_a_failed_run() -> None:
    text = (FIXTURES / "nccl-one-rank.txt").read_text().split("#        (B)")[0]
    run = _run(parse(text).as_dict())
    assert run["failed"] is True and run["rows"] == 0


def test_headerless_rows_still_parse_and_infer_ranks_from_the_ratio() -> None:
    rows = "\n".join(
        line
        for line in (FIXTURES / "nccl-2019-error-column-srun.txt").read_text().splitlines()
        if "float" in line
    )
    result = parse(rows).as_dict()
    run = _run(result)
    assert result["kind"] == "nccl-tests"
    assert (run["collective"], run["ranks"]) == ("all_reduce", 4)


def test_perftest_latency() -> None:
    result = _parse("perftest-write-lat.txt")
    s = result["summary"]
    assert result["kind"] == "perftest"
    assert (s["test"], s["latency"], s["link_layer"], s["rows"]) == ("ib_write_lat", True, "InfiniBand", 1)


def test_torchtitan_dedupes_ranks_strips_colours_and_reads_thousands() -> None:
    result = _parse("torchtitan-ranks-ansi.txt")
    s = result["summary"]
    assert result["kind"] == "torchtitan"
    assert s["iterations"] == 5  # steps 1, 10, 20, 30, 40; rank 1 copy and validation ignored
    assert s["warmup_iterations_excluded"] == [1]
    assert s["median_tokens_per_s_per_gpu"] == pytest.approx(9797.5)
    assert s["mfu"] == pytest.approx(0.4554, abs=1e-3)
    assert [x["iteration"] for x in s["stalls"]] == [30]


def test_megatron_stall_and_skipped_iterations() -> None:
    result = _parse("megatron-stall-skipped.txt")
    s = result["summary"]
    assert s["iterations"] == 5
    assert s["warmup_iterations_excluded"] == [10]
    assert [x["iteration"] for x in s["stalls"]] == [40]
    assert s["skipped_iterations"] == 1
    assert s["median_tokens_per_s_per_gpu"] == pytest.approx(
        64 * 4096 / s["median_iteration_s"] / 16, rel=1e-3
    )
    assert any("log ends at iteration 50 of 100" in w for w in result["warnings"])


def test_deepspeed_timer_only() -> None:
    result = _parse("deepspeed-timer-only.txt")
    assert result["kind"] == "deepspeed"
    assert result["summary"]["skipped_iterations"] == 1
    assert result["summary"]["deepspeed_samples_per_s_median"] == pytest.approx(200.0)


def test_dcgmi_failure_with_wrapped_detail() -> None:
    s = _parse("dcgmi-diag-dcgm3-fail-wrapped.txt")["summary"]
    assert s["passed"] is False
    assert s["failed_tests"] == ["PCIe"]
    assert s["skipped_tests"] == ["Targeted Stress"]
    assert s["dcgm_version"] == "3.3.5"
    pcie = next(t for t in s["tests"] if t["name"] == "PCIe")
    assert "link is degraded on GPU 2" in pcie["detail"]


def test_nvidia_smi_lost_gpu() -> None:
    result = _parse("nvidia-smi-lost-gpu.txt")
    assert result["kind"] == "nvidia-smi"
    assert result["summary"]["lost_gpus"][0]["bus_id"] == "0000:B3:00.0"


def test_old_topology_vocabulary() -> None:
    s = _parse("topo-old-driver-soc-mlx4.txt")["summary"]
    assert (s["gpus"], s["full_nvlink_mesh"], s["nics"], s["nic_names"]) == (4, False, 1, ["mlx4_0"])
    assert {p["connection"] for p in s["pairs_not_nvlink"]} == {"PIX", "SOC"}


def test_ibv_devinfo_verbose_rate() -> None:
    s = _parse("ibv_devinfo-v-ib.txt")["summary"]
    assert s["active_infiniband_ports"] == 1
    assert s["ports"][0]["rate_gbps"] == 400.0
    assert s["ports"][1]["state"] == "Down"


def test_hccl_busbw_from_the_command_line() -> None:
    result = _parse("hccl-allreduce-8npu.txt")
    run = _run(result)
    assert (run["collective"], run["ranks"], run["rows"]) == ("all_reduce", 8, 3)
    assert run["busbw_at_max_size_gbps"] == pytest.approx(95.86981 * 1.75, rel=1e-4)
    assert run["failed"] is True


def test_nvlink_inactive_links() -> None:
    s = _parse("nvlink-some-inactive.txt")["summary"]
    assert (s["gpus"], s["active_links_per_gpu"], s["inactive_links"], s["link_gbps"]) == (2, 2, 1, 26.562)


def test_unrecognised_text_says_why() -> None:
    result = parse(b"hello world\nthis is not a log\n").as_dict()
    assert result["kind"] is None
    assert result["errors"] and "not recognised" in result["errors"][0]


def test_detection_ignores_the_file_name() -> None:
    data = (FIXTURES / "topo-old-driver-soc-mlx4.txt").read_bytes()
    assert parse(data, filename="all_reduce_perf.log").kind == "nvidia-smi-topo"
