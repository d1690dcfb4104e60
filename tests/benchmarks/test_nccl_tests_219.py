"""nccl-tests 2.17-2.19 outputs: the JSON report (`-J`), per-iteration columns (`-I 1`), timestamps (`-S 1`).

The fixtures are laid out with the format strings of nccl-tests 2.19.6 (src/util.cu: writeDeviceReport,
writeResultHeader, writeBenchmarkLineBody, writePerIterReport, writeResultFooter; the JSON keys of the same
functions); their numbers are made up (16 H100 on 2 nodes).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from benchmarks.parsers import nccl_json, parse, parse_file

from ._shared import FIXTURES

REPORT = FIXTURES / "nccl-tests-2.19-report.json"


def _run(result: dict[str, Any]) -> dict[str, Any]:
    assert result["kind"] == "nccl-tests", result
    (run,) = result["summary"]["runs"]
    return run


def test_a_json_report_is_read_as_the_run_it_records() -> None:
    report = json.loads(REPORT.read_text())
    result = parse(REPORT.read_bytes(), filename="out.json").as_dict()
    run = _run(result)
    assert (run["collective"], run["ranks"], run["nodes"], run["gpus_per_node"]) == ("all_reduce", 16, 2, 8)
    biggest = report["results"][-1]
    assert run["max_size_bytes"] == biggest["size"] == 8589934592
    assert run["busbw_at_max_size_gbps"] == pytest.approx(biggest["out_of_place"]["bus_bw"])
    assert run["peak_busbw_gbps"] == pytest.approx(max(r["in_place"]["bus_bw"] for r in report["results"]))
    assert run["rows"] == len(report["results"])
    assert run["avg_busbw_reported"] == pytest.approx(report["average_bus_bandwidth"]["bandwidth"], rel=1e-5)
    assert run["out_of_bounds"] == 0 and run["failed"] is False and run["concluded"] is True
    assert run["nccl_version"] == "2.28.7"  # nccl_version 22807
    assert run["header"]["iters"] == 20 and run["header"]["step_kind"] == "factor"
    assert result["warnings"][0] == nccl_json.NOTE


def test_a_json_report_streamed_from_storage_gives_the_same_answer() -> None:
    streamed = parse_file(lambda: REPORT.open("rb"), "out.json").as_dict()
    assert streamed == parse(REPORT.read_bytes(), filename="out.json").as_dict()


def test_the_environment_in_a_report_is_never_copied() -> None:
    data = REPORT.read_bytes()
    assert b"hf_secretsecret" in data
    assert "hf_secretsecret" not in json.dumps(parse(data).as_dict())


def test_wrong_numbers_and_failures_in_a_report_are_read() -> None:
    report = json.loads(REPORT.read_text())
    report["results"][3]["in_place"]["nwrong"] = 12
    report["out_of_bounds"] = {"count": 12, "okay": False}
    report["errors"] = ["NCCL WARN NET/IB : Got completion with error 12"]
    result = parse(json.dumps(report).encode()).as_dict()
    run = _run(result)
    assert run["failed"] is True and run["out_of_bounds"] == 12
    assert run["cannot_measure_reason"] == "failed run"
    assert result["summary"]["failed_runs"] == 1


def test_an_unfinished_report_is_refused_with_the_reason() -> None:
    data = REPORT.read_bytes()[:4000]  # a killed run leaves its JSON open
    result = parse(data, filename="killed.json").as_dict()
    assert result["kind"] is None
    (error,) = result["errors"]
    assert error.startswith("killed.json: not recognised: starts as an nccl-tests JSON report")
    assert "upload the text output" in error


def test_a_report_over_the_bound_is_refused_before_it_is_parsed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(nccl_json, "MAX_JSON_BYTES", 2048)
    result = parse_file(lambda: REPORT.open("rb"), "big.json").as_dict()
    assert result["kind"] is None and "over the 0 MiB" in result["errors"][0]


def test_other_json_is_not_taken_for_a_report() -> None:
    result = parse(b'{"version": 3, "results": []}').as_dict()
    assert result["kind"] is None and "JSON report" not in " ".join(result["errors"])


def test_per_iteration_columns_keep_the_measurements_in_place() -> None:
    run = _run(parse((FIXTURES / "nccl-tests-2.19-per-iteration.txt").read_bytes()).as_dict())
    assert run["tests_version"] == "2.19.6" and run["nccl_version"] == "2.28.7"
    assert run["busbw_at_max_size_gbps"] == pytest.approx(359.84)
    assert run["busbw_algbw_ratio"] == pytest.approx(1.875)  # 2 (n-1) / n: busbw read from its own column
    assert run["failed"] is False and run["rows"] == 14


def test_a_timestamp_after_each_row_is_not_read_as_a_measurement() -> None:
    run = _run(parse((FIXTURES / "nccl-tests-2.19-timestamps.txt").read_bytes()).as_dict())
    assert run["busbw_at_max_size_gbps"] == pytest.approx(359.84)
    assert run["busbw_algbw_ratio"] == pytest.approx(1.875)
    assert run["failed"] is False and run["rows"] == 14
