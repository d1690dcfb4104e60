"""`parse_benchmark FILE [--json]`: output keys and exit codes."""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks.parsers.cli import main

from ._shared import FIXTURES


def _run(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(argv, stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def test_json_output_has_exactly_the_contract_keys() -> None:
    code, out, err = _run([str(FIXTURES / "nccl-2019-error-column-srun.txt"), "--json"])
    assert code == 0 and err == ""
    payload = json.loads(out)
    assert set(payload) == {"kind", "summary", "warnings", "errors"}
    run = payload["summary"]["runs"][0]
    for key in ("collective", "ranks", "peak_busbw_gbps", "busbw_at_max_size_gbps", "max_size_bytes",
                "avg_busbw_reported", "rows", "failed"):  # fmt: skip
        assert key in run


def test_failed_run_is_still_recognised() -> None:
    code, out, _ = _run([str(FIXTURES / "nccl-inplace-only-wrong.txt"), "--json"])
    assert code == 0
    assert json.loads(out)["summary"]["runs"][0]["failed"] is True


def test_text_mode_prints_a_summary() -> None:
    code, out, _ = _run([str(FIXTURES / "nccl-broadcast-cycles-timestamps.txt")])
    assert code == 0 and "broadcast" in out


def test_unrecognised_file_exits_2_with_one_line_reason(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("just some notes\n")
    code, out, err = _run([str(path), "--json"])
    assert code == 2
    assert json.loads(out)["kind"] is None
    assert err.count("\n") == 1 and "not recognised" in err


def test_missing_file_exits_2(tmp_path: Path) -> None:
    code, out, err = _run([str(tmp_path / "absent.log"), "--json"])
    assert code == 2 and out == "" and "cannot read" in err and err.count("\n") == 1


def test_directory_and_bad_arguments_exit_2(tmp_path: Path) -> None:
    assert _run([str(tmp_path)])[0] == 2
    assert _run([])[0] == 2
    assert _run(["a", "b", "c"])[0] == 2


@pytest.mark.parametrize("key", ["bus_bw", "alg_bw", "time", "nwrong", "bandwidth"])
def test_a_400_digit_number_in_a_json_report_is_no_traceback(tmp_path: Path, key: str) -> None:
    """JSON reads a 400-digit integer as an int no float holds; the report's columns formatted it as a
    float and raised OverflowError. The command (run as `manage.py parse_benchmark`) answers as usual."""
    text = (FIXTURES / "nccl-tests-2.19-report.json").read_text()
    mutated = re.sub(rf'"{key}":\s*[-0-9.e+]+', f'"{key}": {10**400}', text, count=1)
    assert mutated != text
    path = tmp_path / "report.json"
    path.write_text(mutated)
    done = subprocess.run(
        [sys.executable, "manage.py", "parse_benchmark", str(path), "--json"],
        cwd=Path(__file__).resolve().parents[2],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode in (0, 2) and "Traceback" not in done.stderr, done.stderr[-500:]
    assert set(json.loads(done.stdout)) == {"kind", "summary", "warnings", "errors"}
