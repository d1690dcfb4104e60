"""Rules on real uploads from ../shared/evidence and ../shared/benchlogs, parsed by benchmarks.parsers.

These skip only when the shared folder is absent (a checkout without it), never under CI: a missing
parser or a parser regression must fail here.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from checks.rules import run_rules
from tests.checks.helpers import codes, find, good_offering

SHARED = Path(os.environ.get("CLUSTERSCOUT_SHARED") or Path(__file__).resolve().parents[2].parent / "shared")

pytestmark = pytest.mark.skipif(
    not SHARED.is_dir() and not os.environ.get("CI"), reason=f"shared evidence folder {SHARED} not present"
)


def item(relative: str, **meta) -> dict:
    from benchmarks.parsers import parse

    path = SHARED / relative
    parsed = parse(path.read_bytes(), path.name).as_dict()
    assert parsed["kind"], parsed["errors"]
    return {
        "upload_id": 1,
        "filename": path.name,
        "nodes": meta.get("nodes"),
        "gpus": meta.get("gpus"),
        **parsed,
    }


def rule(code: str, offering: dict, *items: dict) -> dict[str, str]:
    return codes(run_rules(offering, evidence=list(items), codes=[code]))


A100_IB = good_offering(gpu="A100-SXM-80GB", intra_node_gbytes_per_s=300.0, gbps_per_nic=200.0)


# --- ibstat / ibstatus ----------------------------------------------------------------------------


def test_8x400_ib_with_cx6_ethernet_ports_down_backs_an_8x400_ib_claim():
    ev = item("evidence/ibstat/gpud-h100-8x400-ib-active-cx6-eth-ports-down.txt")
    assert rule("fabric-not-rdma", good_offering(), ev) == {}
    assert rule("usable-gpus-short", good_offering(), ev) == {}


def test_8x400_ib_with_a_bonded_ethernet_front_end_backs_the_claim():
    ev = item("evidence/ibstat/gpud-h100-8x400-ib-all-active-plus-bond-eth.txt")
    assert rule("fabric-not-rdma", good_offering(), ev) == {}


def test_two_cx6dx_ethernet_ports_under_an_ib_claim_fire_critical_with_lines():
    ev = item("evidence/ibstat/l2fwd-nv-issue6-2x-cx6dx-100g-ethernet.txt")
    findings = run_rules(good_offering(), evidence=[ev], codes=["fabric-not-rdma"])
    found = find(findings, "fabric-not-rdma")
    assert found.severity == "critical"
    ref = next(r for r in found.evidence if r.source == "evidence")
    assert ref.file == "l2fwd-nv-issue6-2x-cx6dx-100g-ethernet.txt" and ref.lines


def test_bonded_200g_ethernet_is_fine_for_a_roce_claim_but_not_for_ib():
    ev = item("evidence/ibstat/pplx-garden-issue2-bf3-mlx5-bond-200g-ethernet-TRUNCATED.txt")
    assert rule("fabric-not-rdma", good_offering(), ev) == {"fabric-not-rdma": "critical"}
    roce = good_offering(fabric="roce", nics_per_node=None, gbps_per_nic=200.0)
    assert rule("fabric-not-rdma", roce, ev) == {}


def test_8x200_hdr_backs_an_8x200_claim_but_not_8x400():
    ev = item("evidence/ibstatus/gpud-a100-8x200-hdr-ib-plus-1-eth.txt")
    assert rule("fabric-not-rdma", A100_IB, ev) == {}
    assert rule("fabric-not-rdma", good_offering(gpu="A100-SXM-80GB"), ev) == {"fabric-not-rdma": "critical"}


def test_connectx3_with_half_its_ports_down_is_ports_down():
    ev = item("evidence/ibv_devinfo/connectx3-mlx4-2hca-ib-1of2-ports-active.txt")
    off = good_offering(nics_per_node=4, gbps_per_nic=None)
    assert rule("usable-gpus-short", off, ev) == {"usable-gpus-short": "critical"}


# --- nvidia-smi topo / nvlink / table ---------------------------------------------------------------


def test_l40s_pcie_only_topology_under_an_nvswitch_claim_fires():
    ev = item("evidence/nvidia-smi-topo-m/4x-l40s-pcie-only-node-sys-2nic.txt")
    found = find(run_rules(good_offering(), evidence=[ev]), "intra-node-not-full-mesh")
    assert found.severity == "critical"
    assert next(r for r in found.evidence if r.source == "evidence").lines == [[2, 2], [3, 3], [4, 4], [5, 5]]
    # the claim in words, never its code
    assert found.title.endswith("under a full-mesh (NVSwitch) claim") and "nvswitch" not in found.title


def test_hgx_a100_nv12_does_not_fire_under_an_a100_nvswitch_claim():
    ev = item("evidence/nvidia-smi-topo-m/hgx-a100-8gpu-nv12-1nic-slurm.txt")
    assert rule("intra-node-not-full-mesh", A100_IB, ev) == {}
    assert rule("usable-gpus-short", A100_IB, ev) == {}
    # but it shows one NIC where eight are claimed
    assert rule("fabric-not-rdma", A100_IB, ev) == {"fabric-not-rdma": "warning"}


def test_h20_nv18_with_8_rail_nics_backs_an_h20_claim():
    ev = item("evidence/nvidia-smi-topo-m/h20-8gpu-nv18-8nic-pix.txt")
    h20 = good_offering(gpu="H20-96GB")
    assert rule("intra-node-not-full-mesh", h20, ev) == {}
    assert rule("fabric-not-rdma", h20, ev) == {}


def test_4x_h100_nv6_fires_under_an_8x_h100_nvswitch_claim():
    ev = item("evidence/nvidia-smi-topo-m/4x-h100-nv6-direct-4nic-pix.txt")
    assert rule("intra-node-not-full-mesh", good_offering(), ev) == {"intra-node-not-full-mesh": "critical"}
    found = find(run_rules(good_offering(), evidence=[ev], codes=["usable-gpus-short"]), "usable-gpus-short")
    assert found.severity == "critical" and found.impact["gpus_short"] == 4


def test_nvlink_all_inactive_fires_and_18_links_up_do_not():
    down = item("evidence/nvidia-smi-nvlink-s/hpe-dl380-2x-a100-pcie-no-nvlink.txt")
    up = item("evidence/nvidia-smi-nvlink-s/aws-p5-8x-h100-18-links-all-up.txt")
    assert rule("intra-node-not-full-mesh", A100_IB, down) == {"intra-node-not-full-mesh": "critical"}
    assert rule("intra-node-not-full-mesh", good_offering(), up) == {}


def test_gpu0_only_nvlink_output_is_not_counted_as_missing_gpus():
    ev = item("evidence/nvidia-smi-nvlink-s/aws-p4de-a100-80gb-gpu0-only-AUTHOR-TRUNCATED.txt")
    assert rule("usable-gpus-short", A100_IB, ev) == {}
    assert rule("intra-node-not-full-mesh", A100_IB, ev) == {}


def test_two_pcie_h100_under_an_8x_sxm_claim_are_short_and_not_a_mesh():
    ev = item("evidence/nvidia-smi/hpe-dl380a-2x-h100-pcie.txt")
    found = codes(run_rules(good_offering(), evidence=[ev]))
    assert found["usable-gpus-short"] == "critical"
    assert found["intra-node-not-full-mesh"] == "critical"


def test_eight_h100_sxm_in_nvidia_smi_back_the_claim():
    ev = item("evidence/nvidia-smi/nebius-8x-h100-sxm-driver535.txt")
    assert run_rules(good_offering(), evidence=[ev]) == []


# --- nccl-tests / rccl-tests -------------------------------------------------------------------------


def test_moc_roce_15_gbps_allreduce_under_a_400g_roce_claim_is_flagged():
    ev = item("benchlogs/nccl-tests/moc-h100-roce-allreduce-2node-1gpu-debuginfo.txt", nodes=2)
    roce = good_offering(fabric="roce", fabric_label="RoCE v2 400G")
    found = find(run_rules(roce, evidence=[ev], codes=["fabric-not-rdma"]), "fabric-not-rdma")
    assert found.severity == "critical"
    assert found.impact["expected_busbw_gbps"] == 50.0 and found.impact["measured_busbw_gbps"] < 16


def test_healthy_10_node_h100_run_backs_an_8x400_claim():
    ev = item("benchlogs/nccl-tests/xxrjun-h100-10node-80gpu-5colls.txt")
    assert rule("fabric-not-rdma", good_offering(), ev) == {}


def test_one_gpu_per_node_10_node_run_backs_one_400g_rail():
    ev = item("benchlogs/nccl-tests/xxrjun-h100-10node-1gpu-per-node-5colls.txt")
    assert rule("fabric-not-rdma", good_offering(), ev) == {}


def test_single_node_h100_nvls_run_backs_the_nvswitch_claim():
    ev = item("benchlogs/nccl-tests/xxrjun-h100-1node-8gpu-5colls.txt")
    assert run_rules(good_offering(), evidence=[ev]) == []


def test_single_node_a100_runs_back_an_a100_nvswitch_claim():
    for name in ("superbench-a100-allreduce-1node-c0.txt", "superbench-a100-allgather-1node-c0.txt"):
        ev = item(f"benchlogs/nccl-tests/{name}", nodes=1)
        assert rule("intra-node-not-full-mesh", A100_IB, ev) == {}, name


def test_failed_network_run_is_not_mistaken_for_a_measurement():
    ev = item("benchlogs/nccl-tests/xxrjun-h100-2node-network-error-failure.txt")
    # the alltoall aborted and sendrecv is not compared with the line rate: neither passes nor fails the claim
    assert rule("fabric-not-rdma", good_offering(), ev) == {}


def test_mi300x_roce_2_node_rccl_backs_an_8x400_roce_claim():
    ev = item("benchlogs/rccl-tests/aac10-mi300x-allreduce-2node-roce-cx7.txt")
    mi300x = good_offering(
        gpu="MI300X-192GB", fabric="roce", intra_node="nvlink-mesh", intra_node_gbytes_per_s=448.0
    )
    assert rule("fabric-not-rdma", mi300x, ev) == {}


# --- lspci / dmesg / dcgmi ---------------------------------------------------------------------------


def test_cx7_in_ethernet_mode_under_an_ib_claim_fires():
    ev = item("evidence/lspci/gh200-cx7-dual-port-ethernet-mode.txt")
    assert rule("fabric-not-rdma", good_offering(), ev) == {"fabric-not-rdma": "critical"}
    assert rule("fabric-not-rdma", good_offering(fabric="roce"), ev) == {}


def test_gpu_fallen_off_the_bus_is_a_lost_gpu():
    ev = item("evidence/dmesg/nvsentinel-issue155-gpu-fallen-off-bus-no-xid.txt")
    found = find(run_rules(good_offering(), evidence=[ev], codes=["usable-gpus-short"]), "usable-gpus-short")
    assert found.severity == "critical" and found.impact["gpus_short"] == 1


def test_a_passing_dcgmi_diag_raises_nothing():
    ev = item("evidence/dcgmi-diag/meta-gcm-r4-all-pass-dcgm2x.txt")
    assert run_rules(good_offering(), evidence=[ev]) == []
