"""Counts on the acceptance report and in the kit's README are words that follow the count ("1 node",
"2 nodes"), never "(s)", in English and in Chinese."""

from __future__ import annotations

from typing import Any

import pytest
from django.utils import translation

from acceptance.findings import dmesg_findings, lspci_findings, topo_findings
from acceptance.kit import readme
from acceptance.report import _indicator_finding, build_report, indicator_rows
from portal.i18n import translated
from tests.acceptance.test_report import IB_H100


def _chinese(message: dict[str, Any]) -> str:
    with translation.override("zh-hans"):
        return translated(message, "")


def _probe(world: int, tokens: float) -> dict[str, Any]:
    summary = {"world_size": world, "median_tokens_per_s_per_gpu": tokens, "first_line": 3, "last_line": 40}
    return {"upload_id": world, "filename": f"train_{world}.log", "kind": "torchtitan", "summary": summary}


@pytest.mark.parametrize(("worlds", "base"), [((8, 16), "over 1 node"), ((16, 32), "over 2 nodes")])
def test_the_scaling_basis_names_its_base_node_count_in_words(worlds: tuple[int, int], base: str) -> None:
    scaling = build_report(IB_H100, [_probe(worlds[0], 1000.0), _probe(worlds[1], 900.0)])["indicators"][
        "scaling_efficiency"
    ]
    assert scaling["basis"].endswith(base) and "(s)" not in scaling["basis"]
    assert "节点" in _chinese(scaling["basis_message"])


STABILITY_CASES = [
    (
        {"training_verdict": "fail", "training_nan_iterations": 1, "training_skipped_iterations": 0,
         "training_stalls": 2, "training_iterations": 100},
        "stability: the training probe had 1 nan iteration, 0 skipped iterations and 2 stalls in 100 "
        "iterations",
        "稳定性：训练探针在 100 次迭代中有 1 次 nan 迭代、0 次跳过的迭代和 2 次停顿",
    ),
    (
        {"drift_pct": None, "interruptions": 1, "xid_events": 2},
        "stability: 1 interruption, 2 Xid or GPU-lost events",
        "稳定性：1 次中断，2 次 Xid 或 GPU 丢失事件",
    ),
    (
        {"drift_pct": 4.0, "interruptions": 0, "xid_events": 1},
        "stability: drift 4.0%, 0 interruptions, 1 Xid or GPU-lost event",
        "稳定性：漂移 4.0%，0 次中断，1 次 Xid 或 GPU 丢失事件",
    ),
]  # fmt: skip


@pytest.mark.parametrize(("indicator", "english", "chinese"), STABILITY_CASES)
def test_a_stability_finding_counts_in_words(indicator: dict[str, Any], english: str, chinese: str) -> None:
    found = _indicator_finding("stability", {"verdict": "fail", **indicator})
    assert found["text"] == english
    assert _chinese(found["message"]) == chinese


@pytest.mark.parametrize(("nodes", "words"), [(1, "on 1 node,"), (2, "on 2 nodes,")])
def test_the_bandwidth_finding_counts_its_nodes_in_words(nodes: int, words: str) -> None:
    indicator = {"verdict": "fail", "collective": "all_reduce", "busbw_gbps": 90.0, "nodes": nodes}
    found = _indicator_finding("collective_bandwidth", {**indicator, "expected_gbps": 360.0})
    assert words in found["text"] and "(s)" not in found["text"]
    assert f"在 {nodes} 个节点上" in _chinese(found["message"])


def test_the_stability_row_counts_in_words() -> None:
    [_, _, row] = indicator_rows({"stability": {"drift_pct": 1.0, "interruptions": 2, "xid_events": 1}})
    assert str(row["measured"]) == "drift 1%, 2 interruptions, 1 Xid or GPU-lost event"


def test_bundle_findings_count_in_words() -> None:
    xid = {"filename": "dmesg.txt", "summary": {"xid_events": [{"line": 4}], "xid_codes": [79]}}
    assert [f["text"] for f in dmesg_findings(xid)] == ["dmesg.txt line 4: 1 Xid error, code 79"]
    nic = {"link_layer": "Ethernet", "line": 2}
    lspci = {"filename": "lspci.txt", "summary": {"rdma_nic_functions": [nic, nic]}}
    texts = [f["text"] for f in lspci_findings(IB_H100, lspci)]
    assert texts == ["lspci.txt line 2: 2 RDMA NIC functions in Ethernet mode where InfiniBand is claimed"]
    pair = {"pair": "GPU0-GPU1", "connection": "SYS"}
    topo = {"filename": "topo.txt", "summary": {"pairs_not_nvlink": [pair], "header_line": 1}}
    [found] = topo_findings(IB_H100, topo)
    assert "1 GPU pair without NVLink (GPU0-GPU1 SYS)" in found["text"]
    assert "1 对 GPU" in _chinese(found["message"])


def test_the_kit_readme_counts_nodes_and_gpus_in_words() -> None:
    text = readme({**IB_H100, "slug": "h100", "name": "H100"}, 2, "kubernetes", 0)
    assert "(s)" not in text and "2 nodes x 8 GPUs" in text and "nccl-tests on 1 node" in text
