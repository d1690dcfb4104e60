"""compare() and scaling() verdicts, on hand-built items (no corpus needed)."""

from __future__ import annotations

from typing import Any

import pytest

from benchmarks.compare import compare
from benchmarks.parsers import parse
from benchmarks.scaling import scaling
from hardware import fabric_efficiency, intra_node_busbw_efficiency

from ._shared import FIXTURES

H100_IB = {
    "gpu": "H100-SXM-80GB",
    "gpus_per_node": 8,
    "intra_node": "nvswitch",
    "fabric": "infiniband",
    "nics_per_node": 8,
    "gbps_per_nic": 400,
}


def _nccl_item(**run: Any) -> dict[str, Any]:
    base = {
        "collective": "all_reduce", "ranks": 16, "nodes": 2, "gpus_per_node": 8, "failed": False,
        "busbw_at_max_size_gbps": 380.0, "max_size_bytes": 1 << 34, "first_line": 3, "last_line": 40,
        "nvls_or_tree_suspected": False,
    }  # fmt: skip
    base.update(run)
    return {
        "kind": "nccl-tests",
        "filename": "run.log",
        "summary": {"runs": [base]},
        "nodes": None,
        "gpus": None,
    }


def _one(facts: dict[str, Any], item: dict[str, Any]) -> dict[str, Any]:
    verdicts = compare(facts, item)
    assert verdicts
    for v in verdicts:
        assert set(v) >= {
            "claim",
            "expected",
            "measured",
            "percent_of_expected",
            "verdict",
            "detail",
            "file",
            "lines",
        }
        assert v["verdict"] in {"pass", "warn", "fail", "cannot-measure"}
    return verdicts[0]


@pytest.mark.parametrize(("busbw", "verdict"), [(380.0, "pass"), (250.0, "warn"), (150.0, "fail")])
def test_inter_node_thresholds(busbw: float, verdict: str) -> None:
    # NCCL_ALGO=Ring: a 2-node all_reduce left to NCCL's choice may be tree-inflated (its pass not judged)
    v = _one(H100_IB, _nccl_item(busbw_at_max_size_gbps=busbw, algorithm_hint="ring"))
    assert v["verdict"] == verdict
    assert v["expected"] == pytest.approx(400 * fabric_efficiency("infiniband"))
    assert v["file"] == "run.log" and v["lines"] == [3, 40]


def test_one_gpu_per_node_expects_one_rail() -> None:
    v = _one(H100_IB, _nccl_item(ranks=2, gpus_per_node=1, busbw_at_max_size_gbps=15.0))
    assert v["expected"] == pytest.approx(50 * fabric_efficiency("infiniband"))
    assert v["verdict"] == "fail"


def test_two_node_tree_inflation_cannot_measure() -> None:
    v = _one(H100_IB, _nccl_item(busbw_at_max_size_gbps=488.0, nvls_or_tree_suspected=True))
    assert v["verdict"] == "cannot-measure" and "NCCL_ALGO=Ring" in v["detail"]


def test_intra_node_against_nvlink() -> None:
    v = _one(H100_IB, _nccl_item(ranks=8, nodes=1, collective="all_gather", busbw_at_max_size_gbps=366.0))
    assert v["expected"] == pytest.approx(450 * intra_node_busbw_efficiency("nvswitch"))
    assert v["verdict"] == "pass"
    nvls = _one(
        H100_IB, _nccl_item(ranks=8, nodes=1, busbw_at_max_size_gbps=482.0, nvls_or_tree_suspected=True)
    )
    assert "NVLS" in nvls["detail"]


def test_published_intra_node_rate_wins_over_the_gpu_table() -> None:
    facts = dict(H100_IB, gpu="unknown-gpu", intra_node_gbytes_per_s=300.0)
    v = _one(facts, _nccl_item(ranks=8, nodes=1, busbw_at_max_size_gbps=235.0))
    assert (
        v["expected"] == pytest.approx(300 * intra_node_busbw_efficiency("nvswitch"))
        and v["verdict"] == "pass"
    )


@pytest.mark.parametrize(
    ("run", "reason"),
    [
        ({"failed": True, "failure_reason": "Test NCCL failure", "failure_line": 19}, "failed run"),
        ({"ranks": 1, "nodes": 1}, "one rank"),
        ({"nodes": None}, "node count unknown"),
        ({"collective": "sendrecv"}, "not judged"),
    ],
)
def test_runs_that_cannot_measure(run: dict[str, Any], reason: str) -> None:
    v = _one(H100_IB, _nccl_item(**run))
    assert v["verdict"] == "cannot-measure" and reason in v["detail"]


def test_missing_offering_facts_cannot_measure() -> None:
    v = _one({"gpu": "H100-SXM-80GB"}, _nccl_item())
    assert v["verdict"] == "cannot-measure"


def _parsed(name: str) -> dict[str, Any]:
    result = parse((FIXTURES / name).read_bytes()).as_dict()
    return dict(result, filename=name, nodes=None, gpus=None)


def test_ports_and_link_layer() -> None:
    verdicts = compare(dict(H100_IB, nics_per_node=1), _parsed("ibv_devinfo-v-ib.txt"))
    assert verdicts[0]["verdict"] == "pass" and verdicts[0]["lines"] == [7]
    roce = compare(dict(H100_IB, fabric="roce"), _parsed("ibv_devinfo-v-ib.txt"))
    assert roce[0]["verdict"] == "fail"
    assert any(v["claim"] == "fabric link layer" and v["verdict"] == "fail" for v in roce)


def test_topology_against_full_mesh_claim() -> None:
    verdicts = {
        v["claim"]: v
        for v in compare(dict(H100_IB, gpus_per_node=4), _parsed("topo-old-driver-soc-mlx4.txt"))
    }
    assert verdicts["GPUs per node"]["verdict"] == "pass"
    assert verdicts["full NVLink mesh"]["verdict"] == "fail"
    assert verdicts["GPU-fabric NICs per node"]["verdict"] == "fail"


def test_nvlink_links_and_gpus() -> None:
    verdicts = {v["claim"]: v for v in compare(H100_IB, _parsed("nvlink-some-inactive.txt"))}
    assert verdicts["active NVLinks per GPU"]["verdict"] == "fail"
    assert verdicts["GPUs evidenced"]["verdict"] == "warn"


def test_dcgmi_and_lost_gpus_fail() -> None:
    assert compare(H100_IB, _parsed("dcgmi-diag-dcgm3-fail-wrapped.txt"))[0]["verdict"] == "fail"
    lost = compare(H100_IB, _parsed("nvidia-smi-lost-gpu.txt"))
    assert any(v["claim"] == "usable GPUs" and v["verdict"] == "fail" for v in lost)


def test_training_stalls_warn() -> None:
    v = compare(H100_IB, _parsed("megatron-stall-skipped.txt"))[0]
    assert v["verdict"] == "warn" and v["lines"] == [7]


def test_cycle_stability_is_judged() -> None:
    verdicts = compare(H100_IB, _parsed("nccl-broadcast-cycles-timestamps.txt"))
    stability = [v for v in verdicts if "stability" in v["claim"]]
    assert stability and stability[0]["verdict"] == "warn"  # 282.56 -> 233.42: a 17 % drop


def test_scaling_efficiency() -> None:
    # runs forced to Ring (NCCL_ALGO=Ring, as the acceptance kit runs them): the 2-node run is the base
    items = [
        _nccl_item(nodes=2, ranks=16, busbw_at_max_size_gbps=380.0, algorithm_hint="Ring"),
        _nccl_item(nodes=4, ranks=32, busbw_at_max_size_gbps=370.0, algorithm_hint="Ring"),
        _nccl_item(nodes=8, ranks=64, busbw_at_max_size_gbps=250.0, algorithm_hint="Ring"),
    ]
    result = {r["detail"].split(" nodes")[0]: r for r in scaling(items)}
    assert result["4"]["verdict"] == "pass"
    assert result["8"]["verdict"] == "fail"
    assert result["8"]["measured"] == pytest.approx(250 / 380, abs=1e-3)


def test_scaling_drops_a_2_node_all_reduce_base_by_the_verdicts_rule() -> None:
    # one rule for the verdicts and the curves (internode.tree_may_inflate): a 2-node all_reduce NCCL may run
    # as a tree is no base, whether or not the parser flagged it; the curve starts at 4 nodes
    free = [
        _nccl_item(nodes=2, ranks=16, busbw_at_max_size_gbps=480.0),
        _nccl_item(nodes=4, ranks=32, busbw_at_max_size_gbps=370.0),
        _nccl_item(nodes=8, ranks=64, busbw_at_max_size_gbps=350.0),
    ]
    result = {r["detail"].split(" nodes")[0]: r for r in scaling(free)}
    assert set(result) == {"8"} and result["8"]["measured"] == pytest.approx(350 / 370, abs=1e-3)
    assert _one(H100_IB, free[0])["verdict"] == "cannot-measure"  # the same run's verdict
    # excluding Tree and NVLS/NVLSTree leaves Ring: a base; all_gather is never a tree: a base
    excluded = [dict(i) for i in free]
    excluded[0] = _nccl_item(
        nodes=2, ranks=16, busbw_at_max_size_gbps=380.0, algorithm_hint="^Tree,NVLS,NVLSTree"
    )
    assert "4" in {r["detail"].split(" nodes")[0] for r in scaling(excluded)}
    gathers = [
        _nccl_item(collective="all_gather", nodes=n, ranks=8 * n, busbw_at_max_size_gbps=v)
        for n, v in ((2, 380.0), (4, 370.0))
    ]
    assert {r["detail"].split(" nodes")[0] for r in scaling(gathers)} == {"4"}
    # one GPU per node: a tree of two ranks is a ring; a base
    single = [
        _nccl_item(nodes=n, ranks=n, gpus_per_node=1, busbw_at_max_size_gbps=v)
        for n, v in ((2, 45.0), (4, 44.0))
    ]
    assert {r["detail"].split(" nodes")[0] for r in scaling(single)} == {"4"}


def test_unknown_kind() -> None:
    assert compare(H100_IB, {"kind": "mystery", "summary": {}})[0]["verdict"] == "cannot-measure"


def test_a_run_inside_a_multi_node_nvlink_domain_is_judged_against_nvlink() -> None:
    # GB300 NVL72: 64 ranks on 16 trays of 4 GPUs reached 930 GB/s of all_reduce busbw, over multi-node
    # NVLink, over twice what the trays' 4 x 800 Gb/s NICs carry; it says nothing about the NICs
    # (compare._nvlink_domain_run)
    nvl72 = {
        "gpu": "GB300-288GB", "gpus_per_node": 4, "intra_node": "nvswitch", "fabric": "infiniband",
        "nics_per_node": 4, "gbps_per_nic": 800, "nvlink_domain_gpus": 72,
    }  # fmt: skip
    inside = _one(nvl72, _nccl_item(ranks=64, nodes=16, gpus_per_node=4, busbw_at_max_size_gbps=930.48))
    assert inside["claim"] == "intra-node bandwidth (NVLink) per GPU"
    assert "NVLink domain of 72 GPUs" in inside["detail"] and "NVLS" in inside["detail"]
    assert inside["verdict"] == "pass"
    # past the domain (two racks), the NICs carry it; an offering without a domain is unchanged
    across = _one(nvl72, _nccl_item(ranks=144, nodes=36, gpus_per_node=4, busbw_at_max_size_gbps=90.0))
    assert across["claim"] == "inter-node bandwidth (NICs x Gb/s)"
    plain = _one(H100_IB, _nccl_item())
    assert plain["claim"] == "inter-node bandwidth (NICs x Gb/s)"
    # 32 trays with one rank each: 32 ranks fit 72, but 32 trays are more than one domain's 18, so the NICs
    one_per_tray = _one(nvl72, _nccl_item(ranks=32, nodes=32, gpus_per_node=1, busbw_at_max_size_gbps=90.0))
    assert one_per_tray["claim"] == "inter-node bandwidth (NICs x Gb/s)"
    # an NVL72 offering that does not publish its domain: the class's 72 (hardware.norms), said so
    unpublished = {k: v for k, v in nvl72.items() if k != "nvlink_domain_gpus"}
    typical = _one(
        unpublished, _nccl_item(ranks=64, nodes=16, gpus_per_node=4, busbw_at_max_size_gbps=930.48)
    )
    assert typical["claim"] == "intra-node bandwidth (NVLink) per GPU"
    assert "does not publish its NVLink domain: 72 GPUs is typical" in typical["detail"]


# A GB200 NVL72 compute tray's real topology (4 GPUs on NV18, 8 NIC ports, every GPU-NIC cell SYS): its NICs
# hang off the Grace CPUs, so the topology cannot tell the GPU-fabric NICs there.
GB200_TRAY_TOPO = (
    "        GPU0    GPU1    GPU2    GPU3    NIC0    NIC1    NIC2    NIC3    CPU Affinity    NUMA Affinity   "
    "GPU NUMA ID\n"
    "GPU0     X      NV18    NV18    NV18    SYS     SYS     SYS     SYS     0-71    0,2-17          N/A\n"
    "GPU1    NV18     X      NV18    NV18    SYS     SYS     SYS     SYS     0-71    0,2-17          N/A\n"
    "GPU2    NV18    NV18     X      NV18    SYS     SYS     SYS     SYS     72-143  1,18-33         N/A\n"
    "GPU3    NV18    NV18    NV18     X      SYS     SYS     SYS     SYS     72-143  1,18-33         N/A\n"
    "NIC0    SYS     SYS     SYS     SYS      X      SYS     SYS     SYS\n"
    "NIC1    SYS     SYS     SYS     SYS     SYS      X      SYS     SYS\n"
    "NIC2    SYS     SYS     SYS     SYS     SYS     SYS      X      PIX\n"
    "NIC3    SYS     SYS     SYS     SYS     SYS     SYS     PIX      X \n"
)


def test_a_grace_superchip_topology_cannot_measure_its_fabric_nics_where_an_hgx_one_fails() -> None:
    item = parse(GB200_TRAY_TOPO.encode(), "topo.txt").as_dict()
    assert item["kind"] == "nvidia-smi-topo" and item["summary"]["rail_nics"] == 0
    gb200 = dict(H100_IB, gpu="GB200-186GB", gpus_per_node=4, nics_per_node=4)
    verdicts = {v["claim"]: v for v in compare(gb200, item)}
    nics = verdicts["GPU-fabric NICs per node"]
    assert nics["verdict"] == "cannot-measure" and "Grace" in nics["detail"]
    assert verdicts["GPUs per node"]["verdict"] == "pass"
    assert verdicts["full NVLink mesh"]["verdict"] == "pass"
    # the same cells on an HGX H100 node: no NIC behind a GPU's switch is a real finding
    hgx = {v["claim"]: v for v in compare(dict(H100_IB, gpus_per_node=4, nics_per_node=4), item)}
    assert hgx["GPU-fabric NICs per node"]["verdict"] == "fail"


def test_a_log_of_other_gpus_fails_the_gpu_model_and_its_bandwidth_is_not_judged() -> None:
    # An A100 log filed under an H100 offering was judged "below claim" against the H100's links, and an
    # acceptance report then failed on bandwidth; the log's Rank lines say which GPUs it ran on.
    item = _nccl_item(gpu_names=["NVIDIA A100-SXM4-40GB"], busbw_at_max_size_gbps=150.0)
    model, bandwidth = compare(H100_IB, item)
    assert (model["claim"], model["verdict"], model["measured"]) == (
        "GPU model",
        "fail",
        "NVIDIA A100-SXM4-40GB",
    )
    assert "H100" in model["expected"]
    assert bandwidth["verdict"] == "cannot-measure" and "ran on NVIDIA A100-SXM4-40GB" in bandwidth["detail"]
    # the offering's own GPU, or a name the hardware table does not know, is judged as before
    unnamed = [(v["claim"], v["verdict"]) for v in compare(H100_IB, _nccl_item(collective="all_gather"))]
    assert unnamed == [("inter-node bandwidth (NICs x Gb/s)", "pass")]
    for names in (["NVIDIA H100 80GB HBM3"], ["NVIDIA Graphics Device"]):
        named = compare(H100_IB, _nccl_item(collective="all_gather", gpu_names=names))
        assert [(v["claim"], v["verdict"]) for v in named] == unnamed


def test_a_real_a100_log_under_an_h100_offering() -> None:
    verdicts = compare(H100_IB, _parsed("real/nccl-tests/oke-a100-2node-16gpu-kubectl-logs-mpi-operator.txt"))
    assert verdicts[0]["claim"] == "GPU model" and verdicts[0]["verdict"] == "fail"
    assert all(v["verdict"] == "cannot-measure" for v in verdicts[1:])


ROCE_8 = {**H100_IB, "fabric": "roce"}


def _rdma_host(host: int, ports: int) -> str:
    rows = "".join(
        f"link mlx5_{i}/1 state ACTIVE physical_state LINK_UP netdev ens{i}np0\n" for i in range(ports)
    )
    return f"[u@node{host} ~]$ rdma link\n{rows}"


def _count_rows(facts: dict[str, Any], text: str) -> list[dict[str, Any]]:
    parsed = dict(parse(text.encode()).as_dict(), filename="ports.txt", nodes=None, gpus=None)
    verdicts = compare(facts, parsed)
    return [v for v in verdicts if str(v["claim"]).endswith("ports") or "ports per" in v["claim"]]


def _count_row(facts: dict[str, Any], text: str) -> dict[str, Any]:
    return _count_rows(facts, text)[0]


def test_an_elision_leaves_open_only_the_listing_it_is_in() -> None:
    # review: a `...` after node2's complete listing (other hosts left out) turned node1's full listing of 7
    # of 8 ports from a fail into cannot-measure; only a mark inside a host's listing makes it a minimum
    assert _count_row(ROCE_8, _rdma_host(1, 7) + _rdma_host(2, 8) + "...\n")["verdict"] == "fail"
    told, inside = _count_rows(ROCE_8, _rdma_host(1, 5) + "...\n" + _rdma_host(2, 8))
    assert told["verdict"] == "pass" and "host node2" in told["detail"]
    assert (
        inside["verdict"] == "cannot-measure" and "may go on past line 7: 5 is a minimum" in inside["detail"]
    )


def _ibdev_hosts(*ports: int) -> str:
    return "".join(
        f"[u@node{h} ~]$ ibdev2netdev\n" + "".join(f"mlx5_{i} port 1 ==> ibp{i}s0 (Up)\n" for i in range(n))
        for h, n in enumerate(ports, start=1)
    )


def test_a_report_read_to_its_line_limit_leaves_its_last_host_open(monkeypatch: pytest.MonkeyPatch) -> None:
    # review: the read limit cut node3's listing after 3 ports, and node3 then failed "8 vs 3"; and then the
    # cut host, having the fewest ports, stood for the file: the complete hosts were not judged on their own
    import benchmarks.parsers as parsers

    monkeypatch.setattr(parsers, "MAX_REPORT_LINES", 22)
    told, cut = _count_rows(H100_IB, _ibdev_hosts(8, 8, 8))
    assert told["verdict"] == "pass" and told["measured"] == 8
    assert cut["verdict"] == "cannot-measure" and cut["measured"] == 3
    assert "host node3, its listing cut short" in cut["detail"]
    assert "may go on past line 22: 3 is a minimum" in cut["detail"]


def test_a_cut_host_does_not_hide_a_complete_hosts_fail(monkeypatch: pytest.MonkeyPatch) -> None:
    import benchmarks.parsers as parsers

    monkeypatch.setattr(parsers, "MAX_REPORT_LINES", 21)
    # node2 lists 7 of 8 ports in full; node3's listing is cut after 3 (fewer, but only a minimum)
    rows = _count_rows(H100_IB, _ibdev_hosts(8, 7, 8))
    assert [(r["verdict"], r["measured"]) for r in rows] == [("fail", 7), ("cannot-measure", 3)]
    assert "host node2, the fewest of 3 hosts" in rows[0]["detail"]


def test_when_every_host_is_cut_short_the_weakest_stands_for_the_file() -> None:
    rows = _count_rows(ROCE_8, _rdma_host(1, 5) + "...\n" + _rdma_host(2, 6) + "...\n")
    assert [(r["verdict"], r["measured"]) for r in rows] == [("cannot-measure", 5)]
