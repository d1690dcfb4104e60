"""Review 2 fixes in the acceptance report and benchmarks.scaling (hand-built items, no database)."""

from __future__ import annotations

from typing import Any

from acceptance.report import build_report
from benchmarks.scaling import SATURATION_BYTES, scaling
from tests.benchmarks.test_compare import H100_IB, _nccl_item


def nitem(name: str, nodes_item: int | None = None, **run: Any) -> dict[str, Any]:
    return {**_nccl_item(**run), "filename": name, "nodes": nodes_item}


def test_a_failing_nvlink_run_fails_the_bandwidth_and_the_verdict_with_a_finding() -> None:
    one = nitem("one.log", ranks=8, nodes=1, busbw_at_max_size_gbps=150.0)
    for items in ([one], [one, nitem("two.log", busbw_at_max_size_gbps=480.0, nvls_or_tree_suspected=True)]):
        report = build_report(H100_IB, items)
        assert report["indicators"]["collective_bandwidth"]["verdict"] == "fail"
        assert report["verdict"] == "fail"
        assert any("one.log" in f and "150.0 GB/s on 1 node" in f for f in report["findings"])


def test_a_one_gpu_per_node_run_is_not_the_headline_nor_on_the_curve() -> None:
    full = nitem("full.log", ranks=32, nodes=4, busbw_at_max_size_gbps=365.8)
    thin = nitem("thin.log", ranks=10, nodes=10, gpus_per_node=1, busbw_at_max_size_gbps=48.9)
    report = build_report(H100_IB, [full, thin])
    bandwidth = report["indicators"]["collective_bandwidth"]
    assert (bandwidth["nodes"], bandwidth["busbw_gbps"]) == (4, 365.8)
    assert bandwidth["partial_node"]["file"] == "thin.log"
    scaling_ind = report["indicators"]["scaling_efficiency"]
    assert scaling_ind["verdict"] == "cannot-measure" and [p["nodes"] for p in scaling_ind["curve"]] == [4]
    only_thin = build_report(H100_IB, [thin])["indicators"]["collective_bandwidth"]
    assert only_thin["verdict"] == "cannot-measure" and "fewer GPUs per node" in only_thin["basis"]


def test_stability_drift_leaves_out_a_run_cut_below_saturation() -> None:
    sizes = [(370.0, 1 << 34), (368.0, 1 << 34), (369.0, 1 << 33), (250.0, 1 << 26)]
    items = [nitem(f"r{i}.log", ranks=32, nodes=4, busbw_at_max_size_gbps=b, max_size_bytes=s)
             for i, (b, s) in enumerate(sizes)]  # fmt: skip
    stab = build_report(H100_IB, items)["indicators"]["stability"]
    assert stab["samples"] == 3 and stab["verdict"] == "pass"


def _training(nan: int, skipped: int) -> dict[str, Any]:
    summary = {"iterations": 50, "nan_iterations": nan, "skipped_iterations": skipped, "stalls": []}
    return {"kind": "megatron", "filename": "train.log", "summary": summary, "nodes": 8}


def test_nan_iterations_of_the_training_probe_fail_stability_and_few_skips_do_not() -> None:
    steady = [nitem(f"{n}.log", ranks=32, nodes=4, busbw_at_max_size_gbps=370.0) for n in "abc"]
    bad = build_report(H100_IB, [_training(1, 0), *steady])
    assert bad["indicators"]["stability"]["verdict"] == "fail" and bad["verdict"] == "fail"
    assert any("1 nan" in f for f in bad["findings"])
    few = build_report(H100_IB, [_training(0, 2), *steady])["indicators"]["stability"]  # 4 % <= 10 %
    assert few["verdict"] == "pass" and few["training_skipped_iterations"] == 2
    many = build_report(H100_IB, [_training(0, 40), *steady])["indicators"]["stability"]
    assert many["verdict"] == "fail"


def test_scaling_skips_unknown_layouts_small_sweeps_and_an_unchecked_2_node_all_reduce() -> None:
    small = scaling([
        nitem("a", collective="all_gather", busbw_at_max_size_gbps=370.0),
        nitem("b", ranks=32, nodes=4, collective="all_gather", busbw_at_max_size_gbps=20.0,
              max_size_bytes=SATURATION_BYTES // 256),
    ])  # fmt: skip
    assert small == []
    unknown = scaling([
        nitem("a", gpus_per_node=None, collective="all_gather", busbw_at_max_size_gbps=370.0),
        nitem("b", ranks=4, nodes=4, gpus_per_node=None, collective="all_gather", busbw_at_max_size_gbps=48),
    ])  # fmt: skip
    assert [r["verdict"] for r in unknown] == ["cannot-measure"] and "unknown" in unknown[0]["detail"]
    from_upload = scaling([
        nitem("a", nodes=None, nodes_item=2, busbw_at_max_size_gbps=488.0),
        nitem("b", ranks=32, nodes=4, busbw_at_max_size_gbps=370.0),
        nitem("c", ranks=64, nodes=8, busbw_at_max_size_gbps=360.0),
    ])  # fmt: skip
    assert [r["detail"].split(" vs ")[1] for r in from_upload] == ["4 nodes 370.0"]
