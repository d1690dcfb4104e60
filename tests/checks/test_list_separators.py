"""Lists and clauses built in Python are joined by the page's language: "; " and ", " in English, "；" and
"、" in Chinese (the separators are messages, hardware.messages.joined), and the parts themselves are
translated."""

from __future__ import annotations

from django.utils import translation

from benchmarks.compare_dmesg import _xid_reset_detail
from benchmarks.verdicts import cannot_measure_instead, verdict_row
from checks.checklist import checklist
from checks.display import checklist_view, evidence_rows
from checks.rules import run_rules
from hardware.messages import _
from portal.i18n import translated
from tests.checks.helpers import ev, good_offering


def _chinese(message: dict) -> str:
    with translation.override("zh-hans"):
        return translated(message, "")


def test_a_verdict_detail_and_why_it_cannot_be_judged_are_joined_by_the_pages_semicolon() -> None:
    claim = _("usable GPUs")
    row = verdict_row(claim, 8, 4, "fail", _("not shown in this file."), {"filename": "a.txt"}, [1])
    why = _("node count given at upload, not by the log")
    changed = cannot_measure_instead(row, claim, 4, _("not shown in this file."), why, {"filename": "a"}, [1])
    assert changed["detail"] == "not shown in this file.; node count given at upload, not by the log"
    chinese = _chinese(changed["messages"]["detail"])
    assert "；" in chinese and "; " not in chinese, chinese


def test_the_xids_asking_for_a_reset_are_listed_in_the_pages_language() -> None:
    resets = [
        {"xid": 79, "name": "fallen off the bus", "count": 1, "bus_id": "0000:1b:00.0", "lines": [3]},
        {"xid": 48, "name": "double-bit ECC error", "count": 2, "bus_id": "0000:2b:00.0", "lines": [9]},
    ]
    [sentence] = _xid_reset_detail(resets)
    assert "on 0000:1b:00.0, line 3; Xid 48" in sentence
    chinese = _chinese(sentence.as_json())
    assert "第 3 行；Xid 48" in chinese and "line 3" not in chinese, chinese


def test_the_checklists_evidence_files_are_listed_with_the_pages_separator() -> None:
    topo = ev("nvidia-smi-topo", {"gpus": 8, "full_nvlink_mesh": False, "min_nvlinks_per_pair": 0}, "a.txt")
    again = ev("nvidia-smi-topo", {"gpus": 8, "full_nvlink_mesh": False, "min_nvlinks_per_pair": 0}, "b.txt")
    off = good_offering()
    mesh = next(
        q for q in checklist(off, run_rules(off, evidence=[topo, again]), [topo, again]) if q["key"] == "mesh"
    )
    assert "Evidence: a.txt, b.txt." in mesh["answer"]
    chinese = _chinese(mesh["answer"].as_json())
    assert "a.txt、b.txt" in chinese and "。 " not in chinese, chinese


def test_a_dict_valued_fact_names_its_keys_by_their_labels_with_the_pages_colon_and_separator() -> None:
    value = {"nodes": 4, "gpus_per_node": 8, "fabric": "infiniband"}
    item = {"key": "gpus", "status": "answered", "answer": "", "refs": [{"fact": "nodes", "value": value}]}
    claim = [{"source": "claim", "fact": "nodes", "value": value, "text": "nodes = {...}"}]
    most = "Maximum nodes in one fabric"  # the facts dict's "nodes" is max_nodes
    english = f"{most}: 4, GPUs per node: 8, Inter-node fabric: InfiniBand"
    assert checklist_view("good", item)["refs"][0]["text"] == f"{most}: {english}"
    assert evidence_rows("good", claim)[0]["text"] == f"{most} = {english}"
    with translation.override("zh-hans"):
        shown = checklist_view("good", item)["refs"][0]["text"]
        cited = evidence_rows("good", claim)[0]["text"]
    chinese = "单一网络内最多节点数：4、每节点 GPU：8、节点间网络：InfiniBand"
    assert shown == f"单一网络内最多节点数：{chinese}", shown
    assert cited == f"单一网络内最多节点数 = {chinese}", cited


def test_a_dict_key_without_a_label_reads_as_words_never_as_its_key() -> None:
    """No dict-valued fact is in the catalog today; one that comes names a key without a label in words (its
    underscores as spaces) beside the labelled keys in the page's language."""
    value = {"max_message_bytes": 1024, "spare_node_pool": True}
    claim = [{"source": "claim", "fact": "future_fact", "value": value, "text": "future_fact = {...}"}]
    assert evidence_rows("good", claim)[0]["text"] == (
        "future fact = max message bytes: 1024, Spare-node pool: yes"
    )
    with translation.override("zh-hans"):
        cited = evidence_rows("good", claim)[0]["text"]
    assert cited == "future fact = max message bytes：1024、备用节点池：是", cited


def test_the_job_too_large_finding_cites_the_largest_fabric_by_its_label() -> None:
    """The rule cites the facts dict's "nodes" (max_nodes); the page names it as the offering page does."""
    claim = [{"source": "claim", "fact": "nodes", "value": 64, "text": "nodes = 64"}]
    assert evidence_rows("good", claim)[0]["text"] == "Maximum nodes in one fabric = 64"
    with translation.override("zh-hans"):
        assert evidence_rows("good", claim)[0]["text"] == "单一网络内最多节点数 = 64"
