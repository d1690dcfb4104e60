"""The buyer's checklist answered from facts, evidence and findings."""

from __future__ import annotations

from checks.checklist import QUESTIONS, checklist
from checks.rules import run_rules
from tests.checks.helpers import WORKLOAD_175B, ev, good_offering, ib_ports, port


def by_key(items: list[dict]) -> dict[str, dict]:
    return {item["key"]: item for item in items}


def test_every_question_has_the_documented_shape():
    items = checklist(good_offering(), [], [])
    assert len(items) == len(QUESTIONS) >= 10
    for item in items:
        assert set(item) >= {"question", "why", "answer", "status", "refs"}
        assert item["status"] in ("answered", "unknown", "concern")


def test_a_fully_published_offering_answers_the_six_trap_questions():
    items = by_key(checklist(good_offering(), run_rules(good_offering()), []))
    for key in ("gpus", "fabric", "mesh", "failures", "billing", "storage", "traffic"):
        assert items[key]["status"] == "answered", key
    assert "8 x 400 Gb/s" in items["fabric"]["answer"]
    assert "$0.07 per GB-month" in items["storage"]["answer"]
    assert "reserved 6 months: $2.4/GPU-h" in items["billing"]["answer"]
    assert items["acceptance"]["status"] == "unknown"  # no uploads yet


def test_unpublished_facts_are_unknown_and_traps_are_concerns():
    off = {"slug": "vague", "name": "Vague GPU cloud", "fabric": "ethernet", "billing_plans": []}
    findings = run_rules(off, workload=WORKLOAD_175B)
    items = by_key(checklist(off, findings, []))
    assert items["fabric"]["status"] == "concern"
    assert "Inter-node fabric is plain TCP Ethernet" in items["fabric"]["answer"]
    assert items["failures"]["status"] == "concern"  # nothing published, 100B+ job
    assert items["sla"]["status"] == "unknown"
    assert items["billing"]["status"] == "unknown"
    assert {"finding": "fabric-not-rdma", "severity": "critical"} in items["fabric"]["refs"]


def test_evidence_answers_questions_and_is_referenced():
    ibstat = ev(
        "ibstat",
        {"ports": ib_ports(8) + [port("mlx5_bond_0", layer="Ethernet", rate=200)]},
        "node1-ibstat.txt",
        upload_id=7,
    )
    topo = ev(
        "nvidia-smi-topo", {"gpus": 8, "full_nvlink_mesh": False, "min_nvlinks_per_pair": 0}, "topo.txt"
    )
    off = good_offering()
    items = by_key(checklist(off, run_rules(off, evidence=[ibstat, topo]), [ibstat, topo]))
    assert items["fabric"]["status"] == "answered"
    assert {"file": "node1-ibstat.txt", "upload_id": 7} in items["fabric"]["refs"]
    assert items["mesh"]["status"] == "concern" and "topo.txt" in items["mesh"]["answer"]


def test_it_accepts_finding_dicts_as_stored_by_the_api():
    off = good_offering(storage_price_usd_per_gb_month=None)
    stored = [f.as_dict() for f in run_rules(off)]
    assert by_key(checklist(off, stored, []))["storage"]["status"] == "concern"
