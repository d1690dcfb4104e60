"""A review of the nineteenth stop's parser changes (adversarial variants of the tenth set's real logs, in
fixtures/review19/): an alltoall/all_gather table the log does not name is not judged across nodes, a failed
atomic test does not lend its name to the next test's sweep, the cut-table warning only where sizes can be
missing, `| tee -a` is not perftest's `-a`, NCCL 2.24's per-collective NCCL_ALGO, and a wrapped Megatron line
never takes a repeated key from another record."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from benchmarks.compare import compare
from benchmarks.parsers import parse
from benchmarks.parsers.nccl.reading import algorithms_for, read_algorithm, ring_forced
from benchmarks.scaling import scaling

from .test_compare import H100_IB, _nccl_item, _one

CASES = Path(__file__).parent / "fixtures" / "review19"
ROCE_400 = {**H100_IB, "fabric": "roce"}
MI355X = {**ROCE_400, "gpu": "MI355X-288GB"}


def _parsed(name: str) -> dict[str, Any]:
    return parse((CASES / name).read_bytes(), filename=name).as_dict()


def _claims(result: dict[str, Any], facts: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {str(v["claim"]): v for v in compare(facts, result)}


def test_an_out_of_place_only_table_the_log_does_not_name_is_not_judged_across_nodes() -> None:
    # `float none -1` and busbw/algbw 15/16 on 16 ranks: all_gather and alltoall print the same; alltoall
    # expects 86 GB/s on 8 x 400G and all_gather 368, so neither guess may fail or pass the fabric
    result = _parsed("rccl-alltoall-2node-16gpu-out-of-place-only-excerpt-no-test-name.txt")
    run = result["summary"]["runs"][0]
    assert run["collective_candidates"] == ["all_gather", "alltoall"] and run["nodes"] == 2
    (row,) = [v for v in compare(MI355X, result) if "busbw" in str(v["claim"])]
    assert row["verdict"] == "cannot-measure" and "all_gather / alltoall" in str(row["detail"])
    # one node: the NVLink expectation is the same for both, so it is judged; a named run is judged
    one_node = _one(H100_IB, _nccl_item(nodes=1, ranks=8, collective_candidates=["all_gather", "alltoall"]))
    assert one_node["verdict"] != "cannot-measure"
    assert _one(ROCE_400, _nccl_item(collective="all_gather", algorithm_hint="Ring"))["verdict"] != (
        "cannot-measure"
    )
    # all_reduce or sendrecv on 2 ranks, one per node: each rank loads its NIC alike both ways: judged
    pair = _nccl_item(ranks=2, gpus_per_node=1, busbw_at_max_size_gbps=45.0)
    pair["summary"]["runs"][0]["collective_candidates"] = ["all_reduce", "sendrecv"]
    assert _one(ROCE_400, pair)["verdict"] in ("pass", "warn", "fail")


def test_a_failed_atomic_test_does_not_name_the_next_tests_sweep() -> None:
    # ib_atomic_bw printed its banner and `Couldn't connect`, then ib_write_bw -a ran 2 B to 8 MiB: the
    # summary is the write sweep, judged (140.4 of 368 Gb/s: a fail), and the atomic test is listed apart
    result = _parsed("perftest-atomic-failed-then-write-a.txt")
    summary = result["summary"]
    assert summary["test"] == "ib_write_bw" and summary["max_size_bytes"] == 8388608
    assert [t["test"] for t in summary["tests"]] == ["ib_atomic_bw", "ib_write_bw"]
    row = _claims(result, ROCE_400)["NIC port bandwidth (Gb/s)"]
    assert row["verdict"] == "fail" and row["measured"] == pytest.approx(140.4)


def test_a_complete_a_sweep_without_its_closing_rule_is_not_called_cut() -> None:
    result = _parsed("perftest-a-complete-no-closing-rule.txt")
    assert result["summary"]["max_size_bytes"] == 8388608
    assert not [w for w in result["warnings"] if "closing dashed rule" in w or "`-a`" in w]
    # the same sweep cut at 32 KiB is warned both ways and cannot fail the port
    cut = _parsed("perftest-a-cut-at-32768.txt")
    assert any("larger sizes may be missing" in w for w in cut["warnings"])
    assert _claims(cut, ROCE_400)["NIC port bandwidth (Gb/s)"]["verdict"] == "cannot-measure"


def test_tee_a_is_not_perftests_a_and_a_single_size_table_is_only_missing_its_rule() -> None:
    # `ib_write_bw ... --report_gbits 2>&1 | tee -a /root/perftest.log`: one 65536 B row and its rule
    text = (CASES / "perftest-default-size-tee-a.txt").read_text()
    result = parse(text.encode(), filename="tee.txt").as_dict()
    assert not [w for w in result["warnings"] if "`-a`" in w or "closing dashed rule" in w]
    # the same table without its closing rule: one size, so no larger sizes are said to be missing
    cut = text.rstrip("\n").rsplit("\n", 1)[0] + "\n"
    warnings = parse(cut.encode(), filename="tee-cut.txt").as_dict()["warnings"]
    assert any("may have been cut" in w for w in warnings)
    assert not any("larger sizes" in w for w in warnings)


def test_nccl_224_per_collective_algorithm_lists() -> None:
    assert (
        read_algorithm('export NCCL_ALGO="allreduce:ring;allgather:tree"') == "allreduce:ring;allgather:tree"
    )
    assert ring_forced("allreduce:ring;allgather:tree", "all_reduce")
    assert not ring_forced("allreduce:ring;allgather:tree", "all_gather")
    assert ring_forced("tree;allreduce:^tree,nvls,nvlstree", "all_reduce")
    assert not ring_forced("broadcast:ring", "all_reduce")  # all_reduce not named: no constraint
    assert algorithms_for("Ring,Tree", "all_reduce") == ({"ring", "tree"}, False)
    # a 2-node all_reduce forced to Ring per collective is a scaling base: the 4-node fail stands
    items = [
        _nccl_item(nodes=2, ranks=16, busbw_at_max_size_gbps=380.0, algorithm_hint="allreduce:ring"),
        _nccl_item(nodes=4, ranks=32, busbw_at_max_size_gbps=250.0, algorithm_hint="allreduce:ring"),
    ]
    (row,) = scaling(items)
    assert row["verdict"] == "fail" and row["measured"] == pytest.approx(250 / 380, abs=1e-3)


def test_a_wrapped_line_never_takes_a_repeated_key_from_another_record() -> None:
    # iteration 30 ends on `|`; the next line `lm loss: 2.000000E+00 | lm loss PPL: 7.389 |` repeats its
    # `lm loss` key: another record, not joined, so iteration 30 keeps its 9.5
    result = _parsed("megatron-pipe-then-foreign-key-lines.txt")
    losses = {row["iteration"]: row["loss"] for row in result["summary"]["iteration_rows"]}
    assert losses[30] == pytest.approx(9.5) and losses[40] == pytest.approx(9.1)
