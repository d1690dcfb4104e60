"""One test per rule for firing and for not firing: claims alone, sizing results, and hand-made evidence."""

from __future__ import annotations

import pytest

from checks.rules import RULES, SEVERITIES, Finding, run_rules, workload_params
from hardware import gpu_from_text as gpu_spec
from tests.checks.helpers import (
    WORKLOAD_7B,
    WORKLOAD_175B,
    codes,
    ev,
    find,
    good_offering,
    ib_ports,
    nccl_run,
    port,
    rules_for,
    sizing_result,
)

# --- the whole pipeline ---------------------------------------------------------------------------


def test_a_fully_published_h100_infiniband_offering_raises_nothing():
    assert run_rules(good_offering()) == []
    assert run_rules(good_offering(), workload=WORKLOAD_175B, sizing=sizing_result()) == []


def test_findings_are_sorted_by_severity_and_serialise():
    bad = good_offering(fabric="ethernet", usable_gpu_guarantee_pct=None, proprietary_fabric_plugin=True)
    findings = run_rules(bad, workload=WORKLOAD_175B)
    ranks = [SEVERITIES.index(f.severity) for f in findings]
    assert ranks == sorted(ranks)
    for finding in findings:
        d = finding.as_dict()
        assert set(d) == {"code", "severity", "title", "evidence", "advice", "impact"}
        assert d["evidence"] and d["advice"] and "text" in d["impact"]
        assert all(ref["source"] in ("claim", "evidence", "model") for ref in d["evidence"])


def test_every_rule_is_registered_with_a_one_line_docstring():
    assert {
        "fabric-not-rdma",
        "usable-gpus-short",
        "no-fault-tolerance",
        "ecosystem-lock-in",
        "intra-node-not-full-mesh",
        "hidden-fees",
    } <= set(RULES)
    for fn in RULES.values():
        doc = (fn.__doc__ or "").strip()
        assert doc.startswith("Fires") and "\n" not in doc


def test_it_survives_an_empty_offering_and_junk_evidence():
    junk = [
        {"kind": "ibstat", "summary": None},
        {"kind": None},
        {"summary": {"runs": [None, {"ranks": "x"}]}},
        ev("nccl-tests", {"runs": [{"collective": "all_reduce"}]}),
        "not a dict",
    ]
    findings = run_rules({}, evidence=junk)  # type: ignore[arg-type]
    assert all(isinstance(f, Finding) for f in findings)


def test_params_are_estimated_from_the_shape_when_missing():
    total, active = workload_params({"layers": 96, "hidden": 12288, "vocab": 51200})
    assert total == pytest.approx(12 * 96 * 12288**2 + 51200 * 12288)
    assert workload_params({"name": "x"}, {"params": {"total": 671e9, "active": 37e9}}) == (671e9, 37e9)


def test_gpu_lookup_reads_nvidia_smi_model_strings():
    assert gpu_spec("NVIDIA H100 80GB HBM3").nvlinks == 18
    assert gpu_spec("NVIDIA A100-SXM4-80GB").nvlinks == 12
    assert gpu_spec("H800-SXM-80GB").nvlinks == 8
    assert gpu_spec("NVIDIA H100 PCIe").nvlinks == 0


# --- fabric-not-rdma --------------------------------------------------------------------------------


def test_tcp_ethernet_for_a_multi_node_100b_job_is_critical():
    found = find(rules_for("fabric-not-rdma", good_offering(fabric="ethernet")), "fabric-not-rdma")
    assert found.severity == "critical"
    assert any(r.fact == "fabric" and r.value == "ethernet" for r in found.evidence)


def test_tcp_ethernet_for_a_small_single_node_job_is_not_critical():
    findings = rules_for("fabric-not-rdma", good_offering(fabric="ethernet"), workload=WORKLOAD_7B)
    assert codes(findings) == {"fabric-not-rdma": "info"}


def test_tcpx_is_a_warning_not_critical():
    assert codes(rules_for("fabric-not-rdma", good_offering(fabric="tcpx"))) == {"fabric-not-rdma": "warning"}


def test_unknown_fabric_under_a_high_speed_claim_is_a_warning():
    off = good_offering(fabric=None, fabric_label="3.2 Tbps high-speed networking")
    assert codes(rules_for("fabric-not-rdma", off)) == {"fabric-not-rdma": "warning"}


@pytest.mark.parametrize("fabric", ["infiniband", "roce", "efa"])
def test_rdma_fabrics_do_not_fire_on_claims(fabric):
    assert rules_for("fabric-not-rdma", good_offering(fabric=fabric)) == []


def test_ibstat_showing_only_ethernet_under_an_infiniband_claim_is_critical():
    item = ev(
        "ibstat",
        {
            "ports": [
                port("mlx5_0", layer="Ethernet", rate=100, line=14),
                port("mlx5_1", layer="Ethernet", rate=100, line=31),
            ]
        },
        "node1-ibstat.txt",
    )
    found = find(rules_for("fabric-not-rdma", good_offering(), evidence=[item]), "fabric-not-rdma")
    assert found.severity == "critical"
    ref = next(r for r in found.evidence if r.source == "evidence")
    assert ref.file == "node1-ibstat.txt" and ref.lines == [[14, 14], [31, 31]]


def test_front_end_ethernet_ports_beside_eight_active_ib_rails_do_not_fire():
    ports = ib_ports(8) + [
        port("mlx5_bond_0", layer="Ethernet", rate=200),
        port("mlx5_9", state="Down", layer="Ethernet", rate=40),
    ]
    assert rules_for("fabric-not-rdma", good_offering(), evidence=[ev("ibstat", {"ports": ports})]) == []
    assert rules_for("usable-gpus-short", good_offering(), evidence=[ev("ibstat", {"ports": ports})]) == []


def test_ib_ports_slower_than_claimed_fire():
    item = ev("ibstatus", {"ports": ib_ports(8, rate=200)})
    found = find(rules_for("fabric-not-rdma", good_offering(), evidence=[item]), "fabric-not-rdma")
    assert found.severity == "critical" and "200" in found.title


def test_roce_claim_with_ethernet_ports_does_not_fire():
    ports = [port(f"mlx5_{i}", layer="Ethernet", rate=400) for i in range(8)]
    assert (
        rules_for(
            "fabric-not-rdma", good_offering(fabric="roce"), evidence=[ev("ibv_devinfo", {"ports": ports})]
        )
        == []
    )


def test_missing_roce_ports_are_named_by_the_fabric_and_its_layer_not_their_codes():
    ports = [port(f"mlx5_{i}", layer="Ethernet", rate=400) for i in range(4)]
    item = ev("ibv_devinfo", {"ports": ports})
    findings = rules_for("fabric-not-rdma", good_offering(fabric="roce"), evidence=[item])
    found = find(findings, "fabric-not-rdma")
    assert found.title == "upload.txt: 4 RoCE ports found, 8 claimed per node"
    assert any(r.text == "4 active Ethernet ports" for r in found.evidence)


def test_lspci_ethernet_controllers_under_an_ib_claim_fire():
    item = ev(
        "lspci", {"rdma_nics": [{"line": 3, "class": "Ethernet controller", "name": "MT2910 [ConnectX-7]"}]}
    )
    assert codes(rules_for("fabric-not-rdma", good_offering(), evidence=[item])) == {
        "fabric-not-rdma": "critical"
    }
    ok = ev(
        "lspci", {"rdma_nics": [{"line": 3, "class": "Infiniband controller", "name": "MT2910 [ConnectX-7]"}]}
    )
    assert rules_for("fabric-not-rdma", good_offering(), evidence=[ok]) == []


def test_measured_inter_node_busbw_far_below_line_rate_is_critical_and_quantified():
    item = ev("nccl-tests", {"runs": [nccl_run(busbw=120.0)]}, "allreduce-2n.log")
    found = find(
        rules_for("fabric-not-rdma", good_offering(), evidence=[item], sizing=sizing_result()),
        "fabric-not-rdma",
    )
    assert found.severity == "critical"
    assert found.impact["expected_busbw_gbps"] == 400.0
    assert found.impact["measured_ratio"] == pytest.approx(0.3)
    assert found.impact["slowdown_pct"] > 0
    assert next(r for r in found.evidence if r.source == "evidence").lines == [[20, 60]]


def test_measured_busbw_between_half_and_80pct_is_a_warning():
    item = ev("nccl-tests", {"runs": [nccl_run(busbw=280.0)]})
    assert codes(rules_for("fabric-not-rdma", good_offering(), evidence=[item])) == {
        "fabric-not-rdma": "warning"
    }


def test_healthy_busbw_failed_runs_single_rank_and_intra_node_runs_do_not_fire():
    runs = [
        nccl_run(busbw=380.0),
        nccl_run(busbw=1.0, failed=True),
        nccl_run(ranks=1, nodes=1, busbw=0.0),
        nccl_run(ranks=8, nodes=1, busbw=360.0),
        nccl_run(busbw=2.0, max_size_bytes=1 << 20),
    ]
    assert rules_for("fabric-not-rdma", good_offering(), evidence=[ev("nccl-tests", {"runs": runs})]) == []


def test_one_gpu_per_node_runs_are_compared_with_one_rail():
    # 2 nodes x 1 GPU on an 8 x 400G node: one 50 GB/s rail; 48.9 GB/s is healthy (FORMATS.md section 8).
    good = ev("nccl-tests", {"runs": [nccl_run(ranks=2, nodes=2, busbw=48.9)]})
    bad = ev("nccl-tests", {"runs": [nccl_run(ranks=2, nodes=2, busbw=15.0)]})
    assert rules_for("fabric-not-rdma", good_offering(), evidence=[good]) == []
    assert codes(rules_for("fabric-not-rdma", good_offering(), evidence=[bad])) == {
        "fabric-not-rdma": "critical"
    }


def test_an_inflated_two_node_run_does_not_hide_a_slow_ring_run():
    runs = [
        nccl_run(busbw=470.0, nvls_or_tree_suspected=True),
        nccl_run(collective="all_gather", busbw=150.0),
    ]
    found = rules_for("fabric-not-rdma", good_offering(), evidence=[ev("nccl-tests", {"runs": runs})])
    assert codes(found) == {"fabric-not-rdma": "critical"}


# --- intra-node-not-full-mesh ----------------------------------------------------------------------


@pytest.mark.parametrize("intra", ["pcie", "nvlink-bridge"])
def test_pcie_or_bridged_gpus_for_tensor_parallel_jobs_are_critical(intra):
    found = rules_for(
        "intra-node-not-full-mesh",
        good_offering(intra_node=intra),
        workload=WORKLOAD_175B,
        sizing=sizing_result(),
    )
    assert codes(found) == {"intra-node-not-full-mesh": "critical"}
    assert found[0].impact["slowdown_pct"] > 0


def test_pcie_is_only_a_warning_when_the_job_fits_with_tp_1():
    sizing = sizing_result(
        layout={"tp": 1, "pp": 1, "dp": 8}, gpus=8, nodes=1, params={"total": 7e9, "active": 7e9}
    )
    found = rules_for(
        "intra-node-not-full-mesh", good_offering(intra_node="pcie"), workload=WORKLOAD_7B, sizing=sizing
    )
    assert codes(found) == {"intra-node-not-full-mesh": "warning"}


def test_nvswitch_claim_does_not_fire_on_claims():
    assert rules_for("intra-node-not-full-mesh", good_offering()) == []


def test_topology_with_pcie_pairs_under_nvswitch_claim_is_critical():
    item = ev(
        "nvidia-smi-topo",
        {"gpus": 8, "full_nvlink_mesh": False, "min_nvlinks_per_pair": 0, "lines": [2, 3, 4]},
        "topo.txt",
    )
    found = find(
        rules_for("intra-node-not-full-mesh", good_offering(), evidence=[item]), "intra-node-not-full-mesh"
    )
    assert found.severity == "critical"
    assert next(r for r in found.evidence if r.source == "evidence").lines == [[2, 2], [3, 3], [4, 4]]


def test_nv8_where_nv18_is_expected_is_critical_and_nv18_passes():
    nv8 = ev("nvidia-smi-topo", {"gpus": 8, "full_nvlink_mesh": True, "min_nvlinks_per_pair": 8})
    nv18 = ev("nvidia-smi-topo", {"gpus": 8, "full_nvlink_mesh": True, "min_nvlinks_per_pair": 18})
    assert codes(rules_for("intra-node-not-full-mesh", good_offering(), evidence=[nv8])) == {
        "intra-node-not-full-mesh": "critical"
    }
    assert rules_for("intra-node-not-full-mesh", good_offering(), evidence=[nv18]) == []


def test_inactive_nvlinks_fire_and_all_links_up_do_not():
    down = ev("nvidia-smi-nvlink", {"gpus": 2, "active_links_per_gpu": [0, 0], "link_gbps": None})
    partial = ev(
        "nvidia-smi-nvlink", {"gpus": 8, "active_links_per_gpu": [18] * 7 + [12], "link_gbps": 26.562}
    )
    up = ev("nvidia-smi-nvlink", {"gpus": 8, "active_links_per_gpu": [18] * 8, "link_gbps": 26.562})
    assert codes(rules_for("intra-node-not-full-mesh", good_offering(), evidence=[down])) == {
        "intra-node-not-full-mesh": "critical"
    }
    assert codes(rules_for("intra-node-not-full-mesh", good_offering(), evidence=[partial])) == {
        "intra-node-not-full-mesh": "warning"
    }
    assert rules_for("intra-node-not-full-mesh", good_offering(), evidence=[up]) == []


def test_low_intra_node_busbw_fires_and_healthy_a100_busbw_does_not():
    a100 = good_offering(gpu="A100-SXM-80GB", intra_node_gbytes_per_s=300.0)
    healthy = ev("nccl-tests", {"runs": [nccl_run(ranks=8, nodes=1, busbw=235.0)]})
    slow = ev("nccl-tests", {"runs": [nccl_run(ranks=8, nodes=1, busbw=150.0)]})
    assert rules_for("intra-node-not-full-mesh", a100, evidence=[healthy]) == []
    assert codes(rules_for("intra-node-not-full-mesh", a100, evidence=[slow])) == {
        "intra-node-not-full-mesh": "warning"
    }


def test_a_run_of_other_gpus_than_the_offering_s_is_no_measurement_of_it():
    # an A100 log filed under an H100 offering was "intra-node busbw 67% of the expected 351 GB/s" (and its
    # inter-node figure a fabric finding): its Rank lines name the GPUs it ran on
    h100 = good_offering()
    a100_intra = nccl_run(ranks=8, nodes=1, busbw=235.0, gpu_names=["NVIDIA A100-SXM4-40GB"])
    a100_inter = nccl_run(busbw=120.0, gpu_names=["NVIDIA A100-SXM4-40GB"])
    assert (
        rules_for("intra-node-not-full-mesh", h100, evidence=[ev("nccl-tests", {"runs": [a100_intra]})]) == []
    )
    assert rules_for("fabric-not-rdma", h100, evidence=[ev("nccl-tests", {"runs": [a100_inter]})]) == []
    # its own GPUs' names, or a name the table does not know, are judged as before
    for names in (["NVIDIA H100 80GB HBM3"], ["NVIDIA Graphics Device"]):
        slow = ev("nccl-tests", {"runs": [nccl_run(busbw=120.0, gpu_names=names)]})
        assert codes(rules_for("fabric-not-rdma", h100, evidence=[slow])) == {"fabric-not-rdma": "critical"}


# --- usable-gpus-short -----------------------------------------------------------------------------


def test_no_published_guarantee_is_a_warning():
    off = good_offering(usable_gpu_guarantee_pct=None)
    assert codes(rules_for("usable-gpus-short", off)) == {"usable-gpus-short": "warning"}


def test_a_guarantee_under_90pct_is_quantified_in_gpus():
    found = rules_for(
        "usable-gpus-short", good_offering(usable_gpu_guarantee_pct=85.0), sizing=sizing_result()
    )
    assert found[0].severity == "warning" and found[0].impact["gpus_short"] == 154  # ceil(1024 x 0.15)


def test_shared_tenancy_fires_and_dedicated_with_95pct_does_not():
    assert codes(rules_for("usable-gpus-short", good_offering(exclusivity="shared"))) == {
        "usable-gpus-short": "warning"
    }
    assert rules_for("usable-gpus-short", good_offering(usable_gpu_guarantee_pct=95.0)) == []


def test_fewer_gpus_than_contracted_per_node_is_critical():
    item = ev("nvidia-smi", {"gpus": 6, "gpu_models": ["NVIDIA H100 80GB HBM3"], "lines": [9, 12]})
    found = rules_for("usable-gpus-short", good_offering(), evidence=[item])
    assert codes(found) == {"usable-gpus-short": "critical"} and found[0].impact["gpus_short"] == 2
    full = ev("nvidia-smi", {"gpus": 8, "gpu_models": ["NVIDIA H100 80GB HBM3"]})
    assert rules_for("usable-gpus-short", good_offering(), evidence=[full]) == []


def test_ib_ports_down_among_the_claimed_rails_are_critical():
    ports = ib_ports(7) + [port("mlx5_7", state="Down", rate=40, line=200)]
    found = rules_for("usable-gpus-short", good_offering(), evidence=[ev("ibstat", {"ports": ports})])
    assert codes(found) == {"usable-gpus-short": "critical"} and found[0].impact["gpus_short"] == 1


def test_failed_dcgmi_diag_is_critical_and_a_pass_is_not():
    bad = ev("dcgmi-diag", {"passed": False, "failed_tests": ["Memory"]})
    good = ev("dcgmi-diag", {"passed": True, "failed_tests": []})
    assert codes(rules_for("usable-gpus-short", good_offering(), evidence=[bad])) == {
        "usable-gpus-short": "critical"
    }
    assert rules_for("usable-gpus-short", good_offering(), evidence=[good]) == []


# --- no-fault-tolerance ----------------------------------------------------------------------------

NO_FT = {
    "auto_bad_node_detection": False,
    "auto_checkpoint_restart": False,
    "auto_replacement": False,
    "spare_node_pool": False,
}


def test_no_fault_tolerance_for_a_long_large_job_is_critical_and_costed():
    found = rules_for(
        "no-fault-tolerance", good_offering(**NO_FT), workload=WORKLOAD_175B, sizing=sizing_result()
    )
    f = found[0]
    assert f.severity == "critical"
    # 30 days x 24 h / 49.6 h MTBF = 14.5 failures; each: 4 h restart + 30 min (half the 60-min interval).
    assert f.impact["expected_failures"] == pytest.approx(720 / 49.6, rel=1e-3)
    assert f.impact["gpu_hours_lost"] == pytest.approx(720 / 49.6 * 1024 * 4.5, rel=1e-3)
    assert f.impact["usd_lost"] == pytest.approx(f.impact["gpu_hours_lost"] * 3.0, rel=1e-3)
    assert f.impact["gpu_hours_avoidable"] < f.impact["gpu_hours_lost"]


def test_without_sizing_it_uses_the_llama3_rate_on_the_reference_job():
    f = rules_for("no-fault-tolerance", good_offering(**NO_FT))[0]
    assert f.severity == "critical" and f.impact["expected_failures"] > 3
    assert "Llama 3" in f.impact["text"]


def test_a_short_small_job_is_not_critical():
    sizing = sizing_result(gpus=8, nodes=1, train_days=2.0, goodput={"mtbf_h": 6345.0})
    f = rules_for("no-fault-tolerance", good_offering(**NO_FT), workload=WORKLOAD_7B, sizing=sizing)[0]
    assert f.severity == "info"


def test_automatic_detection_and_restart_do_not_fire():
    assert (
        rules_for("no-fault-tolerance", good_offering(), workload=WORKLOAD_175B, sizing=sizing_result()) == []
    )


def test_detection_without_automatic_restart_is_a_warning():
    off = good_offering(auto_checkpoint_restart=False)
    assert codes(rules_for("no-fault-tolerance", off, sizing=sizing_result())) == {
        "no-fault-tolerance": "warning"
    }


# --- ecosystem-lock-in -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("facts", "severity"),
    [
        ({"accelerator_stack": "cann"}, "critical"),
        ({"accelerator_stack": "rocm"}, "warning"),
        ({"standard_containers": False}, "warning"),
        ({"proprietary_fabric_plugin": True}, "info"),
    ],
)
def test_lock_in_fires(facts, severity):
    assert codes(rules_for("ecosystem-lock-in", good_offering(**facts))) == {"ecosystem-lock-in": severity}


def test_a_non_cuda_stack_is_named_not_shown_as_its_code():
    titles = {
        stack: rules_for("ecosystem-lock-in", good_offering(accelerator_stack=stack))[0].title
        for stack in ("rocm", "other")
    }
    assert titles == {
        "rocm": "Non-CUDA accelerator stack (ROCm)",
        "other": "Non-CUDA accelerator stack (other)",
    }


def test_cuda_with_standard_containers_is_not_lock_in():
    assert rules_for("ecosystem-lock-in", good_offering()) == []


# --- hidden-fees ------------------------------------------------------------------------------------


def test_unpublished_storage_egress_traffic_prices_fire():
    off = good_offering(storage_price_usd_per_gb_month=None, egress_price_usd_per_gb=None)
    found = rules_for("hidden-fees", off)
    assert codes(found) == {"hidden-fees": "warning"}
    assert {r.fact for r in found[0].evidence} >= {
        "storage_price_usd_per_gb_month",
        "egress_price_usd_per_gb",
    }


def test_published_fees_do_not_fire():
    assert rules_for("hidden-fees", good_offering()) == []


def test_bill_share_of_unpublished_fees_is_reported_and_critical_above_10pct():
    bill = {
        "lines": [
            {"item": "compute", "usd": 800_000.0, "published": True, "note": ""},
            {"item": "checkpoint_storage", "usd": 150_000.0, "published": False, "note": "default price"},
            {"item": "egress", "usd": 50_000.0, "published": True, "note": ""},
        ],
        "total_usd": 1_000_000.0,
        "complete": True,
    }
    f = rules_for("hidden-fees", good_offering(storage_price_usd_per_gb_month=None), bill=bill)[0]
    assert f.severity == "critical"
    assert f.impact["unpublished_share_pct"] == 15.0 and f.impact["fees_share_pct"] == 20.0
    assert f.impact["bill_complete"] is True


def test_a_bill_with_an_unpriced_line_is_incomplete():
    bill = {
        "lines": [
            {"item": "compute", "usd": 1000.0, "published": True},
            {"item": "traffic", "usd": None, "published": False},
        ],
        "total_usd": 1000.0,
        "complete": False,
    }
    f = rules_for("hidden-fees", good_offering(traffic_price_usd_per_gb=None), bill=bill)[0]
    assert f.impact["bill_complete"] is False and "incomplete" in f.impact["text"]


def test_fees_note_billed_separately_fires():
    found = rules_for("hidden-fees", good_offering(fees_note="Storage is billed separately."))
    assert codes(found) == {"hidden-fees": "warning"}
    # the evidence cites the note in the rule's default wording, which pages show with the fact's label
    from checks.display import evidence_rows

    rows = evidence_rows("x", [ref.as_dict() for ref in found[0].evidence])
    texts = [str(row["text"]) for row in rows]
    assert "Fee notes = Storage is billed separately." in texts, texts
    assert not any("fees_note" in text for text in texts)


# --- sizing rules ----------------------------------------------------------------------------------


def test_fabric_too_slow_from_the_sizing_comm_share():
    sizing = sizing_result(iteration_breakdown_s={"compute": 5.0, "dp_comm": 4.0, "pp_comm": 1.0})
    off = good_offering(nics_per_node=4, gbps_per_nic=200.0)
    f = rules_for("fabric-too-slow", off, sizing=sizing)[0]
    assert f.severity == "warning" and f.impact["comm_share_pct"] == 50.0 and f.impact["slowdown_pct"] > 0
    assert rules_for("fabric-too-slow", good_offering(), sizing=sizing_result()) == []


def test_fabric_too_slow_falls_back_to_the_seed_thresholds():
    assert codes(rules_for("fabric-too-slow", good_offering(gbps_per_nic=100.0))) == {
        "fabric-too-slow": "critical"
    }
    assert codes(rules_for("fabric-too-slow", good_offering(gbps_per_nic=200.0))) == {
        "fabric-too-slow": "warning"
    }
    mid = {"params": 50e9}
    assert rules_for("fabric-too-slow", good_offering(gbps_per_nic=200.0), workload=mid) == []
    # AWS EFA: 32 x 100 Gb/s per 8-GPU node is 400 Gb/s per GPU.
    assert (
        rules_for("fabric-too-slow", good_offering(fabric="efa", nics_per_node=32, gbps_per_nic=100.0)) == []
    )


def test_ring_topology_and_oversubscription_past_one_leaf_fire():
    assert codes(
        rules_for("topology-wont-scale", good_offering(topology="ring"), sizing=sizing_result())
    ) == {"topology-wont-scale": "critical"}
    over = rules_for("topology-wont-scale", good_offering(oversubscription=3.0), sizing=sizing_result())
    assert codes(over) == {"topology-wont-scale": "critical"} and over[0].impact["slowdown_pct"] == 20.0
    small = sizing_result(gpus=128, nodes=16)
    assert rules_for("topology-wont-scale", good_offering(oversubscription=3.0), sizing=small) == []
    assert rules_for("topology-wont-scale", good_offering(), sizing=sizing_result()) == []


def test_no_topology_aware_placement_at_64_gpus_fires_but_not_below():
    off = good_offering(topology_aware_placement=False)
    assert codes(rules_for("no-topology-aware-placement", off, sizing=sizing_result())) == {
        "no-topology-aware-placement": "warning"
    }
    assert rules_for("no-topology-aware-placement", off, sizing=sizing_result(gpus=32, nodes=4)) == []


def test_cluster_too_small_from_sizing_or_memory():
    infeasible = sizing_result(feasible=False, reasons=["model states need 95 GiB per GPU, HBM is 80 GiB"])
    assert codes(rules_for("cluster-too-small", good_offering(), sizing=infeasible)) == {
        "cluster-too-small": "critical"
    }
    tiny = good_offering(nodes=4)  # 32 x 80 GB cannot hold 175B x 16 bytes = 2.8 TB
    f = rules_for("cluster-too-small", tiny, workload=WORKLOAD_175B)[0]
    assert f.severity == "critical" and f.impact["gpus_short"] > 0
    assert (
        rules_for("cluster-too-small", good_offering(), workload=WORKLOAD_175B, sizing=sizing_result()) == []
    )


def test_deadline_missed_and_budget_exceeded():
    late = sizing_result(train_days=75.0)
    f = rules_for("deadline-missed", good_offering(), workload=WORKLOAD_175B, sizing=late)[0]
    assert f.severity == "critical" and f.impact["days_over"] == 15.0
    assert rules_for("deadline-missed", good_offering(), workload=WORKLOAD_175B, sizing=sizing_result()) == []
    pricey = sizing_result(cost={"usd_per_gpu_hour": 3.0, "gpu_hours": 1e7, "total_usd": 30e6})
    assert codes(rules_for("over-budget", good_offering(), workload=WORKLOAD_175B, sizing=pricey)) == {
        "over-budget": "critical"
    }
    assert rules_for("over-budget", good_offering(), workload=WORKLOAD_175B, sizing=sizing_result()) == []


def test_an_unpublished_interconnect_is_asked_for_with_the_gpu_vendors_own_tool():
    """An AMD node proves its links with rocm-smi, a Huawei Ascend node with npu-smi, not nvidia-smi."""

    def advice(gpu):
        found = rules_for(
            "intra-node-not-full-mesh",
            good_offering(gpu=gpu, intra_node=None),
            workload=WORKLOAD_175B,
            sizing=sizing_result(),
        )
        return str(found[0].advice)

    assert "rocm-smi --showtopo" in advice("MI300X-192GB") and "nvidia-smi" not in advice("MI300X-192GB")
    assert "nvidia-smi topo -m" in advice("H100-SXM-80GB")
    ascend = advice("Ascend-910B-64GB")
    assert "npu-smi info -t topo" in ascend and "HCCS" in ascend and "nvidia-smi" not in ascend


def test_unpriced_bill_lines_are_named_in_words():
    """The hidden-fees finding names the bill lines without a price as the bill does, not by their keys."""
    from checks.rules.hidden_fees import _items

    text = str(_items([{"item": "failure_overhead"}, {"item": "checkpoint_storage"}, {"item": "setup"}]))
    assert text == "failure and restart overhead, checkpoint storage, setup fee"
