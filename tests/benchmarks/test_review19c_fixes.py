"""A review of the ninth hunt's fixes (its probes in fixtures/review19c/), and the note on tools a combined
report holds that were not read (a tenth hunt of combined validation reports)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from benchmarks.compare import compare
from benchmarks.parsers import parse

CASES = Path(__file__).parent / "fixtures" / "review19c"
REAL = Path(__file__).parent / "fixtures" / "real"


def _parsed(path: Path) -> dict[str, Any]:
    return parse(path.read_bytes(), filename=path.name).as_dict()


@pytest.mark.parametrize(
    ("name", "ranks"),
    [
        # `mpirun --np 12 ... all_gather_perf ... -n 20`: nccl-tests' -n is the iteration count
        ("n1-np12-long-option-iters-n20-allgather-12ranks.txt", 12),
        # `srun --ntasks=12 ... -n 16`
        ("n3-srun-ntasks12-iters-n16.txt", 12),
        # a launch of -np 16 that failed, then -np 12 that ran the table: the latest command ran it
        ("n7-failed-np16-then-np12.txt", 12),
        # -np 2 x -g 8: 16 ranks, which the sub-1 GB/s rows' rounded ratio cannot tell from 12
        ("n6-np2-g8.txt", 16),
    ],
)
def test_the_launcher_count_is_read_before_the_binary_and_from_the_latest_command(
    name: str, ranks: int
) -> None:
    (run,) = _parsed(CASES / name)["summary"]["runs"]
    assert run["ranks"] == ranks


def test_a_dcgmi_report_is_judged_on_its_own_when_another_follows() -> None:
    # a `-r 3` report cut after PCIe, then a complete `-r 1` report: the top rule of the second table does
    # not close the first, which cannot pass
    result = _parsed(CASES / "d2-r3-cut-after-pcie-then-r1-complete.txt")
    assert result["summary"]["passed"] is None and result["summary"]["truncated"]
    assert any("no closing rule" in w for w in result["warnings"])
    assert _parsed(CASES / "d4-r1-complete.txt")["summary"]["passed"] is True


def test_a_dcgmi_level_whose_tests_were_all_skipped_cannot_pass() -> None:
    result = _parsed(CASES / "d1-r2-level-tests-all-skip-complete.txt")
    summary = result["summary"]
    assert summary["passed"] is None and summary["levels_skipped"] and not summary["truncated"]
    assert any("skipped every test of its level" in w for w in result["warnings"])
    # the verdict says so too (it read "no test rows")
    (row,) = compare({"gpu": "H100-SXM-80GB", "gpus_per_node": 8}, result)
    assert row["verdict"] == "cannot-measure" and "skipped every test of its level" in str(row["measured"])
    assert "no test rows" not in str(row["measured"])


def test_a_quoted_dcgmi_level_is_read() -> None:
    summary = _parsed(CASES / "d3-r-quoted-3-deployment-only-complete-empty-sections.txt")["summary"]
    assert summary["level"] == "3" and summary["passed"] is None
    assert summary["missing_sections"] == ["Integration", "Hardware", "Stress"]


def test_a_combined_report_says_which_tools_it_did_not_read() -> None:
    # an nvidia-smi table, then `nvidia-smi topo -m`: the topology is read, and the buyer is told the
    # table was not
    name = "nvidia-smi-topo/openshift-gb200-4gpu-nvidia-smi-then-topo-m-nv18-8nic-sys-sh-prompt.txt"
    result = _parsed(REAL / name)
    assert result["kind"] == "nvidia-smi-topo"
    (note,) = [w for w in result["warnings"] if "also holds output of" in w]
    assert "nvidia-smi," in note and "not read" in note
    # one tool's file says nothing of the kind; the training reader's kinds are one reader
    plain = _parsed(REAL / "megatron" / "ling-v2-megatron-core013-moe-z-loss-mtp1-loss-first-iter-79s.txt")
    assert not [w for w in plain["warnings"] if "also holds output of" in w]
