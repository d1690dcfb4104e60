"""Collectives of groups that span several NVL72 racks: NCCL fuses a multi-node NVLink clique into one node
(src/graph/topo.cc, "MNNVL clique support"), so a ring crosses the network once per clique and balances
over every NIC of the clique, as over a node's NICs (timing.group_link)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from sizing.engine import timing as T
from sizing.engine.hardware import hardware_from_facts
from sizing.engine.validation import by_id, predict
from tests.sizing.conftest import GB200

NVL72 = {**GB200, "nodes": 128}


def test_a_ring_across_racks_pools_the_nics_of_its_members_in_each_rack() -> None:
    hw = hardware_from_facts(NVL72)
    nic = hw.node_busbw / hw.gpus_per_node  # one GPU's NIC share
    # 64 ranks 8 apart (TP2 x CP4 replicas): 9 members in each 72-GPU rack, 8 racks
    bw, steps, crosses = T.group_link(hw, np.asarray(8.0), np.asarray(64.0))
    assert bool(crosses)
    assert float(bw) == pytest.approx(min(9 * nic * float(hw.topology_factor(64.0)), hw.intra_busbw))
    # ring steps: 8 cliques, so 7 over the network and the rest over NVLink
    assert float(steps) == pytest.approx(56 * T.C.RING_STEP_NVLINK_S + 7 * T.ring_step_net_s(hw))
    # ranks a whole rack apart have one member per clique: one NIC each, as before
    bw_far, _, _ = T.group_link(hw, np.asarray(72.0), np.asarray(8.0))
    assert float(bw_far) == pytest.approx(nic * float(hw.topology_factor(8.0)))


def test_plain_nodes_are_their_own_domain() -> None:
    facts: dict[str, Any] = {**NVL72, "gpu": "H100-SXM-80GB", "gpus_per_node": 8, "nics_per_node": 8}
    facts.pop("nvlink_domain_gpus")
    hw = hardware_from_facts(facts)
    nic = hw.node_busbw / hw.gpus_per_node
    bw, steps, _ = T.group_link(hw, np.asarray(2.0), np.asarray(64.0))  # 4 members per node, 16 nodes
    assert float(bw) == pytest.approx(4 * nic * float(hw.topology_factor(16.0)))
    assert float(steps) == pytest.approx(48 * T.C.RING_STEP_NVLINK_S + 15 * T.ring_step_net_s(hw))


def test_a_weak_scaling_sweep_leaving_the_rack_keeps_its_error() -> None:
    # DGX Cloud's Nemotron-4 340B on GB200 (TP8 PP4 VP12, the same work per replica): the published step
    # grows 1.8% from 128 to 512 GPUs, where the data-parallel group first leaves its rack; with each rank
    # at its tray's NICs the model's error jumped from -24% to +7%
    errors = []
    for gpus in (128, 512):
        row = by_id(f"dgxc2505-gb200-nemotron4-340b-{gpus}-bf16")
        errors.append(predict(row)["iteration_time_s"] / row.published_s - 1.0)
    assert abs(errors[1] - errors[0]) < 0.05, errors


def test_another_vendors_scale_up_domain_keeps_the_nodes_nic_share() -> None:
    # CloudMatrix384: 384 NPUs over 8-NPU nodes; no source says HCCL balances a ring over the UB domain's NICs
    facts = {
        **NVL72,
        "gpu": "Ascend-910C-128GB",
        "gpus_per_node": 8,
        "nics_per_node": 8,
        "nvlink_domain_gpus": 384,
    }
    hw = hardware_from_facts(facts)
    nic = hw.node_busbw / hw.gpus_per_node
    bw, _, _ = T.group_link(hw, np.asarray(16.0), np.asarray(64.0))  # beyond the 384-NPU domain
    assert float(bw) == pytest.approx(nic * float(hw.topology_factor(64.0)))
