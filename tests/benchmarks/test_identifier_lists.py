"""Identifiers a message lists (bus ids, Xid codes, line numbers, hosts, ports, devices) are joined by the
page's list separator when the message is shown: ", " in English, "、" in Chinese. The list is a message of
its own inside the stored one (hardware.messages.listed), so a warning, verdict or finding stored at parse
time follows the reader's page; one stored before, with the list baked into a value, is shown as stored."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.utils import translation

from acceptance.findings import dmesg_findings
from benchmarks.compare_dmesg import _fallen_detail
from benchmarks.parsers import parse
from benchmarks.summary_labels import summary_value
from benchmarks.templatetags.verdict_words import line_text
from checks.display import evidence_rows
from checks.rules import run_rules
from hardware.messages import Msg, _, listed
from portal.i18n import translated
from tests.benchmarks.test_warning_messages import EN, ZH, _page, _upload
from tests.checks.helpers import ev, good_offering

REAL = Path(__file__).parent / "fixtures" / "real"
NIC_LOAD_FAILED = (
    REAL / "dmesg" / "linux-stable-cx5-mlx5-load-one-failed-probe-error-22-both-ports-email-quoted.txt"
)


def _chinese(message: Any) -> str:
    with translation.override("zh-hans"):
        return translated(message.as_json() if isinstance(message, Msg) else message, "")


def test_a_list_keeps_its_english_and_takes_the_chinese_separator() -> None:
    ids = listed(["0000:1b:00.0", 79, _("%(device)s port %(port)s", device="mlx5_0", port=1)], more=True)
    assert ids == "0000:1b:00.0, 79, mlx5_0 port 1, …"
    assert _chinese(ids) == "0000:1b:00.0、79、mlx5_0 端口 1、…"
    assert listed([]) == "" and not listed([])


def test_a_parser_warning_lists_its_nic_functions_with_the_pages_separator() -> None:
    [warning] = [w for w in parse(NIC_LOAD_FAILED.read_bytes(), NIC_LOAD_FAILED.name).warnings if "load" in w]
    assert "(0000:41:00.0, 0000:41:00.1; first at line 13" in warning  # the API's and the CLI's text
    chinese = _chinese(warning)
    assert "0000:41:00.0、0000:41:00.1；" in chinese and ", " not in chinese.split("：")[0], chinese


def test_a_verdict_lists_the_fallen_gpus_and_xid_codes_with_the_pages_separator() -> None:
    fallen = [{"bus_id": "0000:1b:00.0"}, {"bus_id": "0000:2b:00.0"}]
    detail = _fallen_detail(fallen, [79, 48])
    assert detail == "GPUs fallen off the bus: 0000:1b:00.0, 0000:2b:00.0; Xid codes 79, 48"
    chinese = _chinese(detail)
    assert "0000:1b:00.0、0000:2b:00.0" in chinese and "79、48" in chinese and ", " not in chinese, chinese


def test_a_findings_evidence_lists_the_down_ports_in_the_pages_words() -> None:
    ports = [
        {"device": f"mlx5_{i}", "port": 1, "state": "Down" if i < 2 else "Active", "link_layer": "InfiniBand",
         "rate_gbps": 400, "line": i + 1}
        for i in range(8)
    ]  # fmt: skip
    [finding] = [f for f in run_rules(good_offering(), evidence=[ev("ibstat", {"ports": ports})])]
    [message] = [m for m in finding.messages()["evidence"] if m and "down" in m["msgid"]]
    assert translated(message, "") == "down: mlx5_0 port 1, mlx5_1 port 1"
    assert "mlx5_0 端口 1、mlx5_1 端口 1" in _chinese(message), _chinese(message)


def test_an_acceptance_finding_lists_its_xid_codes_with_the_pages_separator() -> None:
    xid = {
        "filename": "dmesg.txt",
        "summary": {"xid_events": [{"line": 4}, {"line": 9}], "xid_codes": [79, 48]},
    }
    [found] = dmesg_findings(xid)
    assert found["text"] == "dmesg.txt line 4: 2 Xid errors, codes 79, 48"
    assert "79、48" in _chinese(found["message"]), _chinese(found["message"])


def test_a_message_stored_with_its_list_baked_in_is_shown_as_stored() -> None:
    stored = {"msgid": "GPU rows missing for %(gpus)s (cut excerpt?)", "params": {"gpus": "GPU2, GPU3"}}
    assert "GPU2, GPU3" in _chinese(stored)


def test_a_verdicts_cited_lines_are_listed_with_the_pages_separator() -> None:
    assert line_text([7, 12, 19]) == "7, 12, 19"
    with translation.override("zh-hans"):
        assert line_text([7, 12, 19]) == "7、12、19"


@pytest.mark.django_db
def test_the_upload_page_shows_the_stored_warnings_list_in_the_readers_language() -> None:
    upload = _upload(NIC_LOAD_FAILED)
    assert "0000:41:00.0, 0000:41:00.1;" in " ".join(upload.warnings)  # stored in English, as before
    assert "0000:41:00.0、0000:41:00.1；" in _page(upload, ZH)
    assert "0000:41:00.0, 0000:41:00.1;" in _page(upload, EN)


def test_a_summary_list_and_a_findings_cited_lines_use_the_pages_separator() -> None:
    ref = {
        "source": "evidence",
        "file": "ibstat.txt",
        "lines": [[1, 2], [5, 5]],
        "text": "down: mlx5_0 port 1",
    }
    assert summary_value(["GPU0", "GPU1"]) == "GPU0, GPU1"
    assert evidence_rows("good", [ref])[0]["label"] == "ibstat.txt, lines 1-2, 5"
    with translation.override("zh-hans"):
        assert summary_value(["GPU0", "GPU1"]) == "GPU0、GPU1"
        label = evidence_rows("good", [ref])[0]["label"]
    assert "1-2、5" in label and ", " not in label, label
