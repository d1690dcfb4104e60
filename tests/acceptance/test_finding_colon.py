"""A bundle finding names its file and line, then what was found there, joined by the page's colon: ": " in
English, "：" in Chinese (never an ASCII colon on a Chinese page)."""

from __future__ import annotations

from django.utils import translation

from acceptance.findings import dmesg_findings
from acceptance.report import _indicator_finding
from portal.i18n import translated


def _both(found: dict) -> tuple[str, str]:
    with translation.override("zh-hans"):
        return found["text"], translated(found["message"], "")


def test_a_bundle_finding_joins_its_file_and_line_with_the_pages_colon() -> None:
    xid = {"filename": "dmesg.txt", "summary": {"xid_events": [{"line": 4}], "xid_codes": [79]}}
    english, chinese = _both(dmesg_findings(xid)[0])
    assert english.startswith("dmesg.txt line 4: ")
    assert chinese.startswith("dmesg.txt 第 4 行：") and ": " not in chinese, chinese


def test_the_bandwidth_finding_joins_its_file_and_line_with_the_pages_colon() -> None:
    indicator = {"verdict": "fail", "collective": "all_reduce", "busbw_gbps": 90.0, "nodes": 2}
    found = _indicator_finding(
        "collective_bandwidth", {**indicator, "expected_gbps": 360.0, "file": "nccl.log", "lines": [12]}
    )
    english, chinese = _both(found)
    assert english.startswith("nccl.log line 12: collective bandwidth")
    assert chinese.startswith("nccl.log 第 12 行：集合通信带宽：") and ": " not in chinese, chinese
