"""The twenty-second set of real logs (fixtures/real/SOURCES.md, "Twenty-second set"): a headerless
`topo -m` whose paste lost its first GPU rows, a perftest table with markdown-bold values, old nccl-tests
tables whose `error` column says a placement delivered no correct data; then other vendors' device tools
(npu-smi, hl-smi, ppu-smi), `lspci -tv` trees and a wrapped dcgmi `Error` row.

As in test_real_logs.py, every expected value was read off the log by hand.
"""

from __future__ import annotations

import pytest

from benchmarks.parsers import parse

from .test_real_logs import _parse, _path, _warned, approx

TOPO_CUT = "nvidia-smi-topo/unsloth3872-b200-headerless-rows-gpu5-7-then-nic0-5-T.txt"
PERFTEST_BOLD = "perftest/perftest65-arm-ib-send-bw-two-tables-no-banner-markdown-bold-values.txt"
MSCCL = "nccl-tests/msccl48-2node-16gpu-alltoall-inplace-error-1e00-0.2us-no-footer-T.txt"
SENDRECV_UINT8 = "nccl-tests/nccl-tests104-gtx1080-sendrecv-uint8-inplace-error-3e02-one-row-T.txt"
ALLTOALL_OK = "nccl-tests/nccl-tests78-v100-8node-alltoall-inplace-error-1e00-oob-0-ok-T.txt"


def test_a_headerless_topo_cut_above_gpu5_still_has_8_gpus_and_9_nics() -> None:
    # Rows GPU5-7 (X at their own column, 8 GPU cells, NV18 to every other GPU) and NIC0-5 (17 cells: NIC0's X
    # at cell 9, so 8 GPU columns before it). Before: the row labels were taken as the columns, 3 GPUs and
    # NIC0 at GPU3's column (best path "NV18").
    r = _parse(TOPO_CUT)
    assert r["kind"] == "nvidia-smi-topo"
    s = r["summary"]
    assert (s["gpus"], s["nics"]) == (8, 9)
    assert s["gpu_rows_missing"] == ["GPU0", "GPU1", "GPU2", "GPU3", "GPU4"]
    assert s["full_nvlink_mesh"] is True and s["min_nvlinks_per_pair"] == 18
    # NIC k is PIX to GPU k: NIC0-4 from their own rows (GPU0-4's rows were cut), NIC5-7 from GPU5-7's
    paths = {n["column"]: (n["best_gpu_path"], n["close_gpus"]) for n in s["nic_details"]}
    assert all(paths[f"NIC{k}"] == ("PIX", [f"GPU{k}"]) for k in range(8))
    assert paths["NIC8"] == ("SYS", [])  # NODE/SYS to every GPU shown: not a rail NIC
    assert s["rail_nics"] == 8
    assert _warned(r, "rows cut", "8 GPU and 9 NIC", "X sits")


def test_perftest_values_in_markdown_bold_are_read_not_called_a_failed_run() -> None:
    # Two tables (1024 B each): BW average **5544.28** and **920.13** MB/sec, i.e. 46.51 and 7.72 Gb/s
    # (perftest's MB are 2^20 bytes). Before: no rows, failed, "banner found" (there is none).
    r = _parse(PERFTEST_BOLD)
    assert r["kind"] == "perftest"
    s = r["summary"]
    assert s["rows"] == 2 and s["failed"] is False
    assert s["peak_gbps"] == approx(5544.28 * 2**20 * 8 / 1e9)
    assert sorted(row["bw_average_gbps"] for row in s["size_rows"]) == [
        approx(920.13 * 2**20 * 8 / 1e9),
        approx(5544.28 * 2**20 * 8 / 1e9),
    ]
    assert _warned(r, "markdown emphasis", "2 rows", "line 7")
    assert not _warned(r, "banner found")


def test_perftest_table_without_banner_or_rows_does_not_claim_a_banner() -> None:
    text = "#bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]\n"
    r = parse(text.encode(), filename="x.txt").as_dict()
    assert r["kind"] == "perftest" and r["summary"]["failed"] is True
    assert _warned(r, "table header found but no result rows")
    assert not _warned(r, "banner found")


def test_an_in_place_alltoall_that_moved_nothing_is_left_out_of_the_figures() -> None:
    # In-place: 0.21-0.51 us from 1 MiB to 64 MiB with error 1e+00 on every row (float tolerance 1e-5), busbw
    # up to 300,093.30 GB/s. Out-of-place is the measurement: 2.13 GB/s at 64 MiB, its peak too.
    r = _parse(MSCCL)
    run = r["summary"]["runs"][0]
    assert run["collective"] == "alltoall" and run["ranks"] == 16
    assert run["peak_busbw_gbps"] == approx(2.13) and run["busbw_at_max_size_gbps"] == approx(2.13)
    assert run["busbw_at_max_size_ip_gbps"] is None
    assert run["noop_placements"] == ["in-place"]
    # no footer: the tool's verdict is missing, and the out-of-place rows are right (error 0e+00)
    assert run["failed"] is False
    assert _warned(r, "in-place: every measurement out of tolerance")


def test_an_integer_sendrecv_with_a_wrong_in_place_copy_keeps_its_out_of_place_figure() -> None:
    # uint8 (exact: any error is out of tolerance): in-place 3e+02, out-of-place 0e+00 at 3.22 GB/s
    r = _parse(SENDRECV_UINT8)
    run = r["summary"]["runs"][0]
    assert run["peak_busbw_gbps"] == approx(3.22) and run["noop_placements"] == ["in-place"]
    assert run["failed"] is False


def test_the_footer_stays_the_verdict_when_the_tool_did_not_count_an_unsupported_in_place_alltoall() -> None:
    # "Out of bounds values : 0 OK" with in-place error 1e+00 on both rows: the run passed by the tool's
    # own count; the in-place figures are left out all the same (0.51 GB/s either way)
    r = _parse(ALLTOALL_OK)
    run = r["summary"]["runs"][0]
    assert run["failed"] is False and run["out_of_bounds"] == 0
    assert run["peak_busbw_gbps"] == approx(0.51) and run["noop_placements"] == ["in-place"]


def test_a_run_whose_every_measurement_is_wrong_and_has_no_footer_fails() -> None:
    # The MSCCL table with its out-of-place errors made 1e+00 too: no placement delivered correct data, so
    # none is left out, and without the tool's footer the run is failed, saying why
    published = _path(MSCCL).read_text()
    text = published.replace("0e+00", "1e+00")
    assert text != published
    r = parse(text.encode(), filename="x.txt").as_dict()
    run = r["summary"]["runs"][0]
    assert run["failed"] is True and run["noop_placements"] == []
    assert (
        "every measurement's max relative error is above nccl-tests' own tolerance for float"
        in (run["failure_reason"])
    )
    # with a footer the tool's own count decides (here: 0 OK)
    ok = parse((text + "# Out of bounds values : 0 OK\n").encode(), filename="x.txt").as_dict()
    assert ok["summary"]["runs"][0]["failed"] is False


# ---- a twelfth hunt, evidence: other vendors' tools, lspci trees, a wrapped dcgmi error --------------------

VENDOR_SMI = [
    "unsupported/vendor-smi/alibaba-ppu-smi-icn-s-2ppu-link-50gbs-inactive-elided.txt",
    "unsupported/vendor-smi/vllm-ascend-issue-npu-smi-2307-8x-910b2-table-no-processes.txt",
    "unsupported/vendor-smi/ascend-310b4-devkit-notes-sudo-npu-smi-info-23.0.rc3.txt",
    "unsupported/vendor-smi/habana-vault-rhel-doc-hl-smi-1.18-gaudi3-hl325-one-aip.txt",
]
LSPCI_TREES = [
    "unsupported/lspci-tree/libfabric-efa-p5en-lspci-tv-snippet-4efa-2h200-4ena.txt",
    "unsupported/lspci-tree/nccl-vm-h200-cx7-lspci-tv-8gpu-8nic-device-2335-pcie-switches-elided.txt",
]
DCGMI_WRAPPED = "dcgmi-diag/ml-engineering-slurm-xid64-deployment-error-row-remap-pending-wrapped.txt"


@pytest.mark.parametrize("rel", VENDOR_SMI)
def test_other_vendors_device_tools_are_refused_naming_them(rel: str) -> None:
    # Alibaba's `ppu-smi icn -s` prints `Link 0: 50 GB/s` like `nvidia-smi nvlink -s` and was read as one GPU
    # with 5 active NVLinks; Huawei's npu-smi and Intel Gaudi's hl-smi got the generic refusal
    r = _parse(rel)
    assert r["kind"] is None
    assert "another vendor's device tool" in r["errors"][0] and "hccl_test" in r["errors"][0]


def test_a_vendor_tool_named_beside_nvidia_smi_output_does_not_hide_it() -> None:
    text = (
        "$ nvidia-smi nvlink -s   # on the NVIDIA node; the Ascend node's npu-smi is in the other file\n"
        "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-4a1b2c3d-0000-0000-0000-000000000000)\n"
        "\t Link 0: 26.562 GB/s\n\t Link 1: 26.562 GB/s\n"
    )
    assert parse(text.encode(), filename="x.txt").as_dict()["kind"] == "nvidia-smi-nvlink"


@pytest.mark.parametrize("rel", LSPCI_TREES)
def test_an_lspci_tree_is_refused_with_what_to_upload_instead(rel: str) -> None:
    r = _parse(rel)
    assert r["kind"] is None
    assert "`lspci -t` bus-tree output" in r["errors"][0] and "`lspci -nn`" in r["errors"][0]


def test_a_dcgmi_error_row_before_any_test_keeps_its_wrapped_text() -> None:
    # | Error | GPU 3 has uncorrectable memory errors and row  |
    # |       |  remappings are pending                        |
    r = _parse(DCGMI_WRAPPED)
    assert r["kind"] == "dcgmi-diag" and r["summary"]["passed"] is False
    assert r["summary"]["errors"][0]["detail"] == (
        "GPU 3 has uncorrectable memory errors and row remappings are pending"
    )


# ---- a thirteenth hunt, training logs ----------------------------------------------------------------------

ALCF_KEY_EQUALS = (
    "deepspeed/alcf-sunspot-meg-ds-iteration-equals-format-ds-timer-negative-flops-profiler-quoted.txt"
)
PROFILER_BERT = "deepspeed/ds-docs-flops-profiler-bert-large-old-format-no-total-flops-line-fwd-bwd-only.txt"
PROFILER_GPT2 = (
    "deepspeed/ds-docs-flops-profiler-megatron-gpt2-step-latency-34s-old-format-no-total-flops-line.txt"
)
OLD_TIMER_ONE = (
    "deepspeed/hf14531-t5-11b-hf-trainer-ds-tqdm-glued-rank0-step-2000-skipped-1995-old-timer-T.txt"
)
RELAUNCH = "megatron/flagperf-megatron-ds-gpt3-175b-64gpu-iters5-10-then-2400-of-8247-validation.txt"
TITAN_ZERO_FLOPS = (
    "torchtitan/awsome-flux-torchtitan-16gpu-readme-tflops-0.00-mfu-0.00-steps-700-8200-8300.txt"
)


def test_key_equals_iteration_lines_of_a_megatron_deepspeed_fork_are_read() -> None:
    # iteration= 1..8 of 10000; iteration 1 (101,182.7 ms) is warm-up (> 1.5 x the rest's median); the rest,
    # sorted: time 62472.7 .. 63036.9 (median) .. 67212.1 ms; TFLOPs 72.78; tgs 3118.936
    r = _parse(ALCF_KEY_EQUALS)
    s = r["summary"]
    assert s["source_format"] == "megatron" and s["iterations"] == 8
    assert s["warmup_iterations_excluded"] == [1]
    assert s["median_iteration_s"] == approx(63.0369)
    assert s["median_tflops_per_gpu"] == approx(72.78)
    assert s["median_tokens_per_s_per_gpu"] == approx(3118.936)


def test_an_older_flops_profiler_block_gives_tflops_from_its_forward_flops() -> None:
    # 3 x 6279.86 G / 184.73 ms = 101.98 TFLOP/s; 3 x 82543.9 G / 41.39 s = 5.98 (the 34 s step inside)
    for rel, iteration_s, tflops in ((PROFILER_BERT, 0.18473, 101.98), (PROFILER_GPT2, 41.39, 5.98)):
        s = _parse(rel)["summary"]
        assert s["median_iteration_s"] == approx(iteration_s)
        assert s["median_tflops_per_gpu"] == approx(tflops, rel=2e-3)
        assert "3 x fwd flops per GPU / iter latency" in s["median_tflops_per_gpu_source"]


def test_one_old_deepspeed_timer_line_is_called_a_running_average() -> None:
    r = _parse(OLD_TIMER_ONE)
    assert r["summary"]["deepspeed_samples_per_s_running_average_only"] is True
    assert _warned(r, "running average up to that step")
    assert not _warned(r, "that one step's")


def test_a_changed_planned_total_starts_another_run() -> None:
    # iterations 5-10 of 10, then `iteration 2400/ 8247` (another launch, the counter going forward): the
    # last run is summarised, its one iteration (315,879.9 ms, 167.35 TFLOP/s), not merged with the first
    r = _parse(RELAUNCH)
    s = r["summary"]
    assert s["iterations"] == 1 and s["median_iteration_s"] == approx(315.8799)
    assert s["median_tflops_per_gpu"] == approx(167.35)
    assert s["runs_in_log"] == 2 and s["earlier_runs"][0]["first_iteration"] == 5
    assert _warned(r, "a new launch at line", "planned total")


def test_torchtitan_zero_tflops_beside_a_throughput_is_unknown_not_zero() -> None:
    # `tflops: 0.00  mfu: 0.00%` beside tps 1,541,366-1,568,... (Flux: torchtitan counts no FLOPs for it)
    r = _parse(TITAN_ZERO_FLOPS)
    s = r["summary"]
    assert s["median_tflops_per_gpu"] is None and s["mfu"] is None
    assert s["median_tokens_per_s_per_gpu"] > 1e6
    assert _warned(r, "tflops: 0.00", "counted no FLOPs")


# ---- a fourteenth hunt: collective and RDMA benchmarks, training logs again --------------------------------

PIPE_TABLE = "rccl-tests/mscclpp736-mi300x-rccl-tests-half-markdown-pipe-table-escaped-hash-header-T.txt"
NOTES = "perftest/mlx4-ib-notes-"
WRITE_LAT = NOTES + "write-lat-section-command-says-ib-write-bw-a-gbits-output-is-latency-test.txt"
ATOMIC_BW = NOTES + "atomic-lat-section-command-ib-atomic-lat-output-fetch-and-add-bw-test.txt"
FORCED_IB = (
    "perftest/dgx-spark-rocep1s0f1-force-link-ib-rdma-cm-q4-write-bw-then-write-lat-link-type-ib-on-roce.txt"
)
HARNESS = "perftest/avocado1196-ib-send-bw-multicast-ud-mgid-avocado-debug-stdout-prefix-one-row-1024b-T.txt"
BAR_1IT = "nemo/nova-forge-smhp-sft-nemo1-bar-1it-no-total-glued-nemo-log-line.txt"
BAR_3IT = "nemo/nova-forge-smtj-sft-nemo1-bar-3it-no-total-octal-015-then-json-record.txt"
BRIDGE_TWO = "megatron/bridge-gb200-dsv3-16l-two-runs-mnnvl2-then-mnnvl0-step-time-only-second-jit-127s.txt"


def test_a_table_pasted_with_pipes_is_not_read_and_is_not_a_failed_run() -> None:
    r = _parse(PIPE_TABLE)
    run = r["summary"]["runs"][0]
    assert run["rows"] == 0 and run["failed"] is False and run["failure_reason"] is None
    assert _warned(r, "9 table lines", "do not fit the columns", "not a failure")


def test_the_banner_names_the_perftest_test_when_the_command_shown_says_another() -> None:
    lat = _parse(WRITE_LAT)["summary"]
    assert lat["test"] == "ib_write_lat" and lat["latency_typical_usec"] == approx(0.89)
    atomic = _parse(ATOMIC_BW)["summary"]
    assert atomic["test"] == "ib_atomic_bw"


def test_a_link_type_forced_on_the_command_line_is_not_the_ports() -> None:
    # `ib_write_bw ... -d rocep1s0f1 ... --force-link IB`; `Link type : IB`; 65536 B at 111.71 Gb/s, 4 QPs
    r = _parse(FORCED_IB)
    s = r["summary"]
    assert s["link_layer"] == "Ethernet" and s["peak_gbps"] == approx(111.71) and s["qps"] == 4
    assert _warned(r, "echoes `--force-link IB`", "rocep1s0f1")


def test_perftest_rows_behind_a_harness_log_prefix_are_read() -> None:
    # `... DEBUG| [stdout]  1024  1000  0.00  1476.74  1.512181`: 1476.74 MiB/s = 12.39 Gb/s
    s = _parse(HARNESS)["summary"]
    assert s["rows"] == 1 and s["failed"] is False
    assert s["peak_gbps"] == approx(1476.74 * 2**20 * 8 / 1e9)


def test_a_nemo_bar_without_a_length_is_read() -> None:
    # `1it [00:04, 4.36s/it, ..., global_step=1.000, ..., train_step_timing in s=3.370, ...]`
    for rel, seconds in ((BAR_1IT, 3.37), (BAR_3IT, 10.10)):
        s = _parse(rel)["summary"]
        assert s["source_format"] == "nemo" and s["iterations"] == 1
        assert s["median_iteration_s"] == approx(seconds) and s["total_iterations_planned"] is None


def test_bridge_step_lines_of_two_launches_say_a_launch_cannot_be_told() -> None:
    r = _parse(BRIDGE_TWO)
    assert r["summary"]["iterations"] == 40
    assert _warned(r, "carry no iteration number", "second launch in the file cannot be told")


SXID_FATAL = (
    "dmesg/sxid-notes-quoted-xid79-fallen-off-bus-then-nvswitch-sxid-20034-fatal-ltssm-blank-quote-lines.txt"
)
SXID_ONLY = "dmesg/aihub-notes-nvswitch3-sxid-22013-nonfatal-link60-three-lines-only.txt"
IBSTATUS_NO_STATE = (
    "ibstatus/penny-blog-azure-nd-h100-v5-abridged-rate-link-layer-only-eth4-25g-ib0-400-ndr.txt"
)


def test_nvswitch_sxid_errors_in_a_kernel_log_are_events_and_warned() -> None:
    # `nvidia-nvswitch1: SXid (PCI:0000:06:00.0): 20034, Fatal, Link 48 LTSSM Fault Up` and three more Fatal
    # lines on switches 0 and 2; their `Severity ...` and `Data {...}` lines are continuations, not events.
    # nvidia-nvswitch2's `Severity 1 Engine instance 60` (line 15) comes before any first line of that
    # switch: the notes' author left link 60's first line out, so it is an event of its own (round 25:
    # header_missing).
    r = _parse(SXID_FATAL)
    s = r["summary"]
    assert r["kind"] == "dmesg" and s["xid_codes"] == [79]
    events = s["nvswitch_sxid_events"]
    assert [(e["switch"], e["sxid"], e["fatal"], e.get("header_missing", False)) for e in events] == [
        ("nvidia-nvswitch1", 20034, True, False),
        ("nvidia-nvswitch0", 20034, True, False),
        ("nvidia-nvswitch2", 20034, True, True),
        ("nvidia-nvswitch2", 20034, True, False),
        ("nvidia-nvswitch0", 20034, True, False),
    ]
    assert events[0]["detail"] == "Link 48 LTSSM Fault Up" and events[0]["line"] == 11
    assert _warned(r, "5 NVSwitch errors (SXid), 5 fatal", "SXid 20034 on nvidia-nvswitch1")


def test_a_kernel_log_of_nvswitch_errors_only_is_recognised() -> None:
    r = _parse(SXID_ONLY)
    assert r["kind"] == "dmesg"
    [event] = r["summary"]["nvswitch_sxid_events"]
    assert (event["sxid"], event["fatal"]) == (22013, False)
    assert _warned(r, "1 NVSwitch error (SXid), 0 fatal")


def test_ibstatus_ports_without_a_state_line_are_warned_as_unknown() -> None:
    r = _parse(IBSTATUS_NO_STATE)
    s = r["summary"]
    assert s["active_infiniband_ports"] == 0 and s["unknown_state_ports"] == 2
    assert _warned(r, "mlx5_eth4 port 1, mlx5_ib0 port 1: no state line")


def test_nemos_list_of_every_step_time_is_read() -> None:
    # `train_step_timing in s: [11.85, 6.98, 5.36, 4.55, 4.12, 2.18, ...]`: 50 steps; the first five are
    # over 1.5 x the median of the rest (2.14 s) and left out as warm-up
    r = _parse("nemo/cloudai-nemo-perf-metrics-utils-train-step-timing-list-50-values.txt")
    s = r["summary"]
    assert r["kind"] == "megatron" and s["source_format"] == "nemo"
    assert s["iterations"] == 50 and s["warmup_iterations_excluded"] == [1, 2, 3, 4, 5]
    assert s["median_iteration_s"] == approx(2.14)
