"""The twelfth set of real logs (hunt 9): dcgmi diag tables cut after their Deployment section, an MI250X
all_gather whose sub-1 GB/s rows gave the wrong rank count, an rccl-tests run named only by its `concluded`
line, cut topologies, an `nvidia-smi -q` after `-L`, and tools and application logs that must stay refused
(fixtures/real/, origins in fixtures/real/SOURCES.md, "Twelfth set").

As in test_real_logs.py, every expected value was read off the log by hand.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from benchmarks.compare import compare
from benchmarks.parsers import parse

from .test_real_logs import REAL, _parse, _warned, approx

DCGM_R3_CUT = "dcgmi-diag/dcgm55-dcgm304-r3-deployment-pass-cut-at-integration-T.txt"
DCGM_R2_CUT = "dcgmi-diag/go-dcgm52-dcgm331-r2-g7-a6000-1eb8-cut-after-deployment-T.txt"
DCGM_R3_COMPLETE = "dcgmi-diag/dcgm400-docs-r3-4gpu-lowercase-names-per-gpu-indented.txt"
DCGM_FAIL_NO_RULE = (
    "dcgmi-diag/dcgm-issue253-4.2.3-4x-26b9-kubectl-exec-pcie-fail-internal-error-per-gpu-pass-"
    "no-closing-rule.txt"
)
MI250X = "rccl-tests/rccl930-mi250x-16rank-allgather-before-old-error-column-64b-8k-T.txt"
STRIX = "rccl-tests/rccl2075-strix-halo-broadcast-rows-only-redop-none-concluded-T.txt"
TITAN_MIXED = "torchtitan/tt1690-qwen3-32b-fsdp-tp-config-table-rows-mixed-runs-trainer-prefix-T.txt"
DEEPEP_TOPO = "nvidia-smi-topo/deepep145-h-nv18-18nic-rows-gpu0-3-cut-prompt-T.txt"
DGX_A100_TOPO = "nvidia-smi-topo/nccl1505-dgx-a100-40g-12nic-rows-gpu0-3-cut-T.txt"
RTX5090_TOPO = "nvidia-smi-topo/club3090-1140-2x5090-threadripper-phb-tabs-legend-T.txt"
RTX4070_Q = "nvidia-smi/jesse-rtx4070-laptop-L-then-q-d-tails-then-q-i0-wddm-driver566-md.txt"
REFUSED = (
    "unsupported/cuda-bandwidthtest/cuda-bandwidthtest-t4-then-v100-quick-mode-prompt.txt",
    "unsupported/nvbandwidth/nvbandwidth-issue50-a6000-6gpu-d2d-read-ce-v0.8-elided-T.txt",
    "unsupported/nvbandwidth/nvbandwidth-issue24-h100-h2d-d2h-memcpy-sm-quoted-T.txt",
    "unsupported/nvbandwidth/nvbandwidth-superbench-pr669-v0.6-example-waived-T.txt",
    "unsupported/iblinkinfo/iblinkinfo-nccltests71-v100-4node-mqm8700-25g-elided-T.txt",
    "unsupported/mlxlink/mlxlink-sonic265-spectrum-25gbe-operational-info-prompt-T.txt",
    "unsupported/ibportstate/ibportstate-exadata-qdr-10g-active-linkup-peer-T.txt",
    "unsupported/ethtool/ethtool-m-sonic6476-qsfp28-40g-cr4-cable-T.txt",
    "unsupported/infiniccl-test/infiniccl-test-iluvatar-16dev-allreduce-rank-ms-T.txt",
    "unsupported/nccl-info/nccl1609-h800-nvls-init-info-lines-no-table-T.txt",
    "unsupported/pytorch-watchdog/llamafactory7396-torch-watchdog-allreduce-timeout-600s-T.txt",
    "unsupported/pytorch-watchdog/llamafactory8261-watchdog-pg-guid-flightrecorder-lines-T.txt",
    "unsupported/pytorch-watchdog/arctictraining219-watchdog-stuck-480s-allgather-base-timeout-T.txt",
    "nccl-tests/nccl1453-h100-debug-tuning-lines-interleaved-with-row-T.txt",
    "rccl-tests/rccltests163-mi50-4gpu-msccl-warn-init-complete-header-no-rows-T.txt",
)

H100_IB = {"gpu": "H100-SXM-80GB", "gpus_per_node": 8, "intra_node": "nvswitch", "fabric": "infiniband",
           "gbps_per_nic": 400, "nics_per_node": 8}  # fmt: skip
MI300X_ROCE = {"gpu": "MI300X-192GB", "gpus_per_node": 8, "fabric": "roce", "gbps_per_nic": 400,
               "nics_per_node": 8}  # fmt: skip
A100_40_IB = dict(H100_IB, gpu="A100-SXM-40GB", gbps_per_nic=200)
CLOSING_RULE = "+---------------------------+------------------------------------------------+\n"


def _rows(facts: dict[str, Any], result: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {str(v["claim"]): v for v in compare(facts, dict(result, filename="x.txt"))}


def _text(rel: str) -> str:
    return Path(REAL / rel).read_text()


def _health(result: dict[str, Any]) -> dict[str, Any]:
    return _rows(H100_IB, result)["GPU health (dcgmi diag)"]


# ---- dcgmi diag: a level-2/3 run cut after its Deployment section ----------------------------------------


def test_a_level_3_table_cut_at_the_integration_rule_cannot_pass() -> None:
    # Line 1 `$ dcgmi diag -r 3`; lines 7-15 the nine Deployment rows (Denylist ... Inforom), all Pass;
    # line 16 `+-----  Integration  -------+---...---+` and the file ends: no test of level 3, no closing
    # rule.
    r = _parse(DCGM_R3_CUT)
    s = r["summary"]
    assert r["kind"] == "dcgmi-diag"
    assert s["level"] == "3"
    assert [t["line"] for t in s["tests"]] == list(range(7, 16))
    assert s["tests"][0]["name"] == "Denylist" and s["tests"][-1]["name"] == "Inforom"
    assert s["sections"] == ["Deployment"]
    assert s["passed"] is None and s["failed_tests"] == []
    assert s["truncated"] is True and s["cut_after_line"] == 15
    assert s["missing_sections"] == ["Integration", "Hardware", "Stress"]
    assert _warned(r, "-r 3", "only Deployment", "line 15", "Integration, Hardware, Stress", "cannot be told")
    row = _health(r)
    assert row["verdict"] == "cannot-measure"
    assert "only Deployment" in row["measured"]
    assert "missing: Integration, Hardware, Stress" in row["measured"]
    assert not str(row["measured"]).startswith("failed")


def test_a_level_2_table_cut_after_page_retirement_cannot_pass() -> None:
    # Line 1 `$ dcgmi diag -r 2 -g 7`; Metadata DCGM 3.3.1, driver 535.129.03, one GPU 1eb8; Deployment rows
    # at lines 11-17, the last `Page Retirement/Row Remap | Pass` (the run failed on GPU0 later on).
    r = _parse(DCGM_R2_CUT)
    s = r["summary"]
    assert r["kind"] == "dcgmi-diag"
    assert s["level"] == "2"
    assert s["dcgm_version"] == "3.3.1" and s["driver_version"] == "535.129.03" and s["gpu_ids"] == "1eb8"
    assert [t["line"] for t in s["tests"]] == list(range(11, 18))
    assert s["passed"] is None and s["missing_sections"] == ["Integration", "Hardware"]
    assert s["cut_after_line"] == 17
    row = _health(r)
    assert row["verdict"] == "cannot-measure" and "-r 2" in row["measured"]


def test_a_complete_level_3_table_still_passes() -> None:
    # DCGM 4.0.0 docs, `-r 3`: Deployment, Hardware, Integration, Stress, all Pass, closing rule at the end.
    r = _parse(DCGM_R3_COMPLETE)
    s = r["summary"]
    assert s["passed"] is True and s["truncated"] is False and s["missing_sections"] == []
    assert s["sections"] == ["Deployment", "Hardware", "Integration", "Stress"]
    assert _health(r)["verdict"] == "pass"


def test_a_failing_table_without_its_closing_rule_still_fails() -> None:
    # DCGM 4.2.3: `pcie | Fail` at line 23, the paste ends in the per-GPU rows without a closing rule.
    r = _parse(DCGM_FAIL_NO_RULE)
    s = r["summary"]
    assert s["truncated"] is True and s["passed"] is False and s["failed_tests"] == ["pcie"]
    assert not _warned(r, "cannot be told")
    assert _health(r)["verdict"] == "fail"


def test_a_cut_level_3_table_with_a_failed_deployment_check_still_fails() -> None:
    inforom = "| Inforom                   | "
    text = _text(DCGM_R3_CUT).replace(inforom + "Pass", inforom + "Fail")
    r = parse(text.encode(), filename="x.txt").as_dict()
    assert r["summary"]["passed"] is False and r["summary"]["failed_tests"] == ["Inforom"]
    row = _health(r)
    assert row["verdict"] == "fail" and row["measured"] == "failed: Inforom"


def test_a_closed_deployment_only_table_passes_at_level_1_not_at_level_3() -> None:
    body = _text(DCGM_R3_CUT).rsplit("+-----  Integration", 1)[0] + CLOSING_RULE
    level1 = parse(body.replace("-r 3", "-r 1").encode(), filename="x.txt").as_dict()
    assert level1["summary"]["passed"] is True and level1["summary"]["truncated"] is False
    assert _health(level1)["verdict"] == "pass"
    level3 = parse(body.encode(), filename="x.txt").as_dict()
    assert level3["summary"]["passed"] is None and level3["summary"]["missing_sections"]
    # `-r long` is level 3 too; `-r pcie` names one test, not a level: no section is expected.
    long_run = parse(body.replace("-r 3", "-r long").encode(), filename="x.txt").as_dict()
    assert long_run["summary"]["passed"] is None
    one_test = parse(body.replace("-r 3", "-r pcie").encode(), filename="x.txt").as_dict()
    assert one_test["summary"]["passed"] is True


def test_a_table_without_its_closing_rule_cannot_pass_at_any_level() -> None:
    body = _text(DCGM_R3_CUT).rsplit("+-----  Integration", 1)[0].replace("-r 3", "-r 1")
    r = parse(body.encode(), filename="x.txt").as_dict()
    s = r["summary"]
    assert s["passed"] is None and s["missing_sections"] == [] and s["cut_after_line"] == 15
    assert _warned(r, "no closing rule", "line 15", "Deployment")
    row = _health(r)
    assert row["verdict"] == "cannot-measure" and "no closing rule" in row["measured"]


def test_a_diagnostic_error_is_not_shown_as_an_empty_failure_list() -> None:
    text = (
        "Successfully ran diagnostic for group.\n"
        "+---------------------------+------------------------------------------------+\n"
        "| Diagnostic                | Result                                         |\n"
        "+===========================+================================================+\n"
        "| Error                     | Unable to run the diagnostic: no GPUs          |\n"
        "+---------------------------+------------------------------------------------+\n"
    )
    r = parse(text.encode(), filename="x.txt").as_dict()
    assert r["kind"] == "dcgmi-diag"
    row = _health(r)
    assert row["verdict"] == "cannot-measure" and "error" in row["measured"]
    assert not str(row["measured"]).startswith("failed")


# ---- nccl-tests: ranks from the command line when the rounded ratio misleads ----------------------------


def test_a_16_rank_all_gather_under_1_gbps_reads_16_ranks_from_the_command_line() -> None:
    # Line 1 `mpirun.mpich -np 16 ... ./build/all_gather_perf -b 64 -e 1M -f 2 -g 1 -n 250`; rows 64 B-8 KiB
    # at lines 5-12, the last `8192 128 float 34.81 0.24 0.22 0e+00 34.78 0.24 0.22 0e+00`: 0.22 / 0.24 =
    # 0.917 reads 12 ranks, while 15/16 = 0.9375 fits 0.215-0.225 over 0.235-0.245.
    r = _parse(MI250X)
    assert r["kind"] == "nccl-tests"
    (run,) = r["summary"]["runs"]
    assert run["collective"] == "all_gather" and run["collective_source"] == "command-line"
    assert run["ranks"] == 16
    assert run["ranks_source"] == "command line -np x -g (fits the busbw/algbw ratio)"
    assert run["busbw_algbw_ratio"] == approx(0.91667)
    assert run["consistency_warnings"] == []
    assert run["rows"] == 8 and run["min_size_bytes"] == 64 and run["max_size_bytes"] == 8192
    assert run["busbw_at_max_size_oop_gbps"] == 0.22 and run["busbw_at_max_size_ip_gbps"] == 0.22
    assert run["truncated"] is True and run["failed"] is False
    assert _warned(r, "no footer")
    row = _rows(MI300X_ROCE, r)["all_gather busbw"]
    assert row["verdict"] == "cannot-measure" and row["measured"] == 0.22
    assert "16 ranks" in row["detail"]


MI250X_ROWS = "".join(_text(MI250X).splitlines(keepends=True)[1:])  # the table without its command line


def test_a_command_line_that_does_not_fit_the_rows_leaves_the_ratio_count() -> None:
    # 3/4 = 0.75 is outside 0.878-0.957: the ratio's 12 stands.
    text = "mpirun -np 4 ./build/all_gather_perf -b 64 -e 1M -f 2 -g 1\n" + MI250X_ROWS
    (run,) = parse(text.encode(), filename="x.txt").as_dict()["summary"]["runs"]
    assert run["ranks"] == 12 and run["ranks_source"] == "busbw/algbw ratio"


def test_rank_lines_still_come_before_the_command_line() -> None:
    ranks = "".join(
        f"#  Rank {i:2d} Group  0 Pid  {4000 + i} on  node0 device  {i} [0x{i:02x}] AMD Instinct MI250X\n"
        for i in range(8)
    )
    text = "mpirun -np 16 ./build/all_gather_perf -b 64 -e 1M -f 2 -g 1\n" + ranks + MI250X_ROWS
    (run,) = parse(text.encode(), filename="x.txt").as_dict()["summary"]["runs"]
    assert run["ranks"] == 8 and run["ranks_source"] == "rank-lines"


def test_a_command_line_that_agrees_with_the_ratio_keeps_the_ratio_source() -> None:
    # Figures large enough for the ratio to be exact: 16 ranks both ways, nothing changes.
    text = (
        "mpirun -np 16 ./build/all_gather_perf -b 8 -e 1G -f 2 -g 1\n"
        "#  size  count  type  redop  root  time  algbw  busbw  #wrong  time  algbw  busbw  #wrong\n"
        "  1073741824  16777216  float  none  -1  5000.0  214.75  201.33  0  5000.0  214.75  201.33  0\n"
    )
    (run,) = parse(text.encode(), filename="x.txt").as_dict()["summary"]["runs"]
    assert run["ranks"] == 16 and run["ranks_source"] == "busbw/algbw ratio"


# ---- rccl-tests: the collective named by the concluded line ---------------------------------------------


def test_a_strix_halo_broadcast_named_by_its_concluded_line() -> None:
    # Rows only (lines 1-10, type float, redop `none`, root 0), 256 KiB-128 MiB; line 14 `# Avg bus bandwidth
    # : 3.41227`; line 15 `# Collective test concluded: broadcast_perf`.
    r = _parse(STRIX)
    assert r["kind"] == "rccl-tests"
    (run,) = r["summary"]["runs"]
    assert run["collective"] == "broadcast" and run["collective_source"] == "concluded-line"
    assert run["concluded"] is True
    assert not _warned(r, "collective not named")
    assert run["rows"] == 10 and run["redop"] == "none"
    assert run["min_size_bytes"] == 262144 and run["max_size_bytes"] == 134217728
    assert run["busbw_at_max_size_oop_gbps"] == 7.15 and run["busbw_at_max_size_ip_gbps"] == 7.16
    assert run["peak_busbw_gbps"] == 7.18 and run["peak_busbw_size_bytes"] == 67108864
    assert run["avg_busbw_reported"] == approx(3.41227) and run["out_of_bounds"] == 0
    assert run["ranks"] is None and run["failed"] is False
    row = _rows(MI300X_ROCE, r)["broadcast busbw"]
    assert row["verdict"] == "cannot-measure" and row["measured"] == 7.15


def test_a_concluded_line_does_not_rename_a_run_the_command_line_named() -> None:
    rows = _text(STRIX)
    text = "mpirun -np 2 ./build/reduce_perf -b 256K -e 128M -f 2 -g 1\n" + rows
    (run,) = parse(text.encode(), filename="x.txt").as_dict()["summary"]["runs"]
    assert run["collective"] == "reduce" and run["collective_source"] == "command-line"


def test_a_concluded_line_of_an_unknown_test_leaves_the_inference() -> None:
    text = _text(STRIX).replace("broadcast_perf", "frobnicate_perf")
    r = parse(text.encode(), filename="x.txt").as_dict()
    (run,) = r["summary"]["runs"]
    assert run["collective"] == "broadcast" and run["collective_source"].startswith("inferred")
    assert _warned(r, "collective not named")


# ---- torchtitan: step lines of four configurations (a known limit, kept as read) -------------------------


def test_torchtitan_step_lines_of_different_configurations() -> None:
    # Line 1 step 50 (389.87 TFLOP/s); lines 4-6 markdown rows with steps 20, 10, 70 of other configurations.
    # The counter goes back at lines 4 and 5: 3 runs; the last, steps 10 and 70 (lines 5-6), is summarised:
    # median (183.59 + 181.63) / 2 TFLOP/s, (883 + 873) / 2 tokens/s. Lines 5 and 6 are two runs in truth
    # (gbs 128 vs 256); with 2 steady iterations the verdict is cannot-measure, so nothing is claimed.
    r = _parse(TITAN_MIXED)
    s = r["summary"]
    assert r["kind"] == "torchtitan"
    assert s["runs_in_log"] == 3 and s["iterations"] == 2
    assert s["first_line"] == 5 and s["last_line"] == 6
    assert s["median_tflops_per_gpu"] == approx(182.61) and s["median_tokens_per_s_per_gpu"] == approx(878)
    assert _warned(r, "3 runs", "line 5")
    assert _rows(H100_IB, r)["training stability"]["verdict"] == "cannot-measure"


# ---- evidence read right (kept) --------------------------------------------------------------------------


def test_a_deepep_topology_cut_after_gpu3_with_18_nic_columns() -> None:
    # Line 2: GPU0-7 and NIC0-NIC17 (`NIC7 ` then two blanks); rows GPU0-3 `NV18`, PXB to four NICs per pair.
    r = _parse(DEEPEP_TOPO)
    s = r["summary"]
    assert r["kind"] == "nvidia-smi-topo"
    assert s["gpus"] == 8 and s["nics"] == 18 and s["rail_nics"] == 8
    assert s["min_nvlinks_per_pair"] == 18 and s["max_nvlinks_per_pair"] == 18
    assert _warned(r, "GPU rows missing for GPU4, GPU5, GPU6, GPU7")
    rows = _rows(H100_IB, r)
    assert rows["GPUs per node"]["verdict"] == "pass"
    assert rows["full NVLink mesh"]["verdict"] == "cannot-measure"
    assert rows["NVLinks per GPU pair"]["verdict"] == "pass"
    assert rows["GPU-fabric NICs per node"]["verdict"] == "pass"


def test_a_dgx_a100_topology_cut_after_gpu3_shows_a_minimum_of_rail_nics() -> None:
    # Rows GPU0-3 `NV12`; NIC0/1 PXB to GPU0/1, NIC2/3 PXB to GPU2/3; 12 NIC columns.
    r = _parse(DGX_A100_TOPO)
    s = r["summary"]
    assert s["gpus"] == 8 and s["nics"] == 12 and s["rail_nics"] == 4
    assert s["min_nvlinks_per_pair"] == 12
    rows = _rows(A100_40_IB, r)
    assert rows["NVLinks per GPU pair"]["verdict"] == "pass"
    assert rows["GPU-fabric NICs per node"]["verdict"] == "cannot-measure"
    assert "minimum" in rows["GPU-fabric NICs per node"]["detail"]


def test_two_rtx_5090_on_phb_with_tabs() -> None:
    r = _parse(RTX5090_TOPO)
    s = r["summary"]
    assert s["gpus"] == 2 and s["nics"] == 0 and s["full_nvlink_mesh"] is False
    assert s["pairs_not_nvlink"] == [{"connection": "PHB", "pair": "GPU0-GPU1"}]
    assert _warned(r, "no NIC columns")
    rows = _rows(H100_IB, r)
    assert rows["full NVLink mesh"]["verdict"] == "fail" and rows["GPUs per node"]["verdict"] == "fail"


def test_an_rtx_4070_laptop_query_after_its_l_line_is_one_gpu() -> None:
    # Line 3 `GPU 0: NVIDIA GeForce RTX 4070 Laptop GPU (UUID: GPU-1b724e78-...)`, then two `-q -d ... | tail`
    # fragments, then `-q -i 0`: driver 566.36, CUDA 12.7, 8188 MiB, power limit 61.24 W (max 140 W), Gen4 x8.
    r = _parse(RTX4070_Q)
    s = r["summary"]
    assert r["kind"] == "nvidia-smi" and s["source"] == "nvidia-smi -q"
    assert s["gpus"] == 1 and s["attached_gpus"] == 1
    assert s["driver_version"] == "566.36" and s["cuda_version"] == "12.7"
    (gpu,) = s["gpu_list"]
    assert gpu["name"] == "NVIDIA GeForce RTX 4070 Laptop GPU" and gpu["bus_id"] == "00000000:01:00.0"
    assert gpu["memory_total_mib"] == 8188 and gpu["power_cap_w"] == approx(61.24)
    assert gpu["max_power_limit_w"] == 140
    assert gpu["pcie_gen_current"] == 4 and gpu["pcie_width_current"] == 8 and gpu["pcie_width_max"] == 8
    assert gpu["row_remap_pending"] == "No"
    assert r["warnings"] == []
    assert _rows(H100_IB, r)["GPU model"]["verdict"] == "fail"


# ---- refused, each truthfully ----------------------------------------------------------------------------


@pytest.mark.parametrize("rel", REFUSED)
def test_tools_and_application_logs_that_are_not_read_stay_refused(rel: str) -> None:
    r = _parse(rel)
    assert r["kind"] is None
    (error,) = r["errors"]
    assert "no signature of a supported tool" in error
