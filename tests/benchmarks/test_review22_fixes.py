"""A review of the twenty-second stop's parser changes, each finding kept as a case (fixtures/review22/,
written for the review from the real fixtures it names)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from benchmarks.parsers import parse

from .test_real_logs import _parse, _warned, approx

REVIEW = Path(__file__).parent / "fixtures" / "review22"


def _review(name: str) -> dict[str, Any]:
    return parse((REVIEW / name).read_bytes(), filename=name).as_dict()


def test_a_harness_prefix_ending_in_a_number_does_not_shift_the_columns() -> None:
    # `... INFO perftest 4321  1024 1000 0.00 1476.74 1.512181`: the header has 5 columns, the row keeps
    # its last 5 numbers (1024 B at 1476.74 MiB/s), not 4321 as its size
    s = _review("pf_prefix_num.txt")["summary"]
    assert s["rows"] == 1 and s["max_size_bytes"] == 1024
    assert s["peak_gbps"] == approx(1476.74 * 2**20 * 8 / 1e9)


def test_a_closing_rule_behind_the_same_prefix_closes_the_table() -> None:
    r = _parse(
        "perftest/avocado1196-ib-send-bw-multicast-ud-mgid-avocado-debug-stdout-prefix-one-row-1024b-T.txt"
    )
    assert not _warned(r, "no closing dashed rule")


def test_write_with_imm_is_ib_write_bw_and_server_and_client_stay_one_test() -> None:
    # banner `RDMA_Write_imm BW Test` (--write_with_imm), printed by server and client
    r = _review("pf_write_imm_twice.txt")
    assert r["summary"]["test"] == "ib_write_bw" and r["summary"].get("tests") is None
    assert _warned(r, "1 duplicate row from interleaved server/client output")


def test_force_link_in_a_shell_comment_is_not_the_commands() -> None:
    r = _review("pf_forcelink_comment.txt")
    assert r["summary"]["link_layer"] == "InfiniBand"
    assert not _warned(r, "--force-link")


def test_a_row_cut_mid_way_by_a_killed_job_still_fails_the_run() -> None:
    run = _review("nccl_cut_mid_row.txt")["summary"]["runs"][0]
    assert run["rows"] == 0 and run["failed"] is True
    assert "test header without result rows" in run["failure_reason"]


def test_a_cut_headerless_topo_with_its_legend_names_its_nics() -> None:
    r = _review("topo_cut_legend.txt")
    s = r["summary"]
    assert (s["gpus"], s["nics"]) == (8, 9) and s["nic_names"][0] == "mlx5_0"
    assert _warned(r, "rows cut", "X sits") and not _warned(r, "NIC names unknown")
