"""Fifth set of real logs, part B (fixtures/real/, origins in fixtures/real/SOURCES.md, "Fifth set, part B"):
Megatron-Bridge `Step Time` lines alone and beside a Megatron iteration line, DeepSpeed's 2020 timer lines,
an `nvidia-smi nvlink -gt r` counter listing, an nvlink status listing that skips GPUs, an lspci listing
that repeats its devices, perftest runs that failed before their table, and an ibv_devinfo report whose
first line lost a character.

As in test_real_logs.py, every expected value was read off the log by hand (the step lines and their
medians, the timer lines, the counter lines, the PCI addresses, the error lines), not copied from a parser
run. The made-up logs at the end check the same rules where no real log shows them.
"""

from __future__ import annotations

import time

import pytest

from benchmarks.parsers import detect_kind, parse
from benchmarks.parsers.detect import SIGNATURE_LITERALS, SIGNATURES
from benchmarks.parsers.text import MAX_LINE_CHARS, decode
from benchmarks.parsers.training import MAX_TFLOPS_PER_GPU
from hardware import GPUS

from .test_real_logs import REAL, _parse, _warned, approx

# ---- Megatron-Bridge step lines ----------------------------------------------------------------------

BRIDGE = "megatron/megatron-bridge-gb200-64gpu-step-time-model-tflops-lines-only-annotated.txt"
BRIDGE_BESIDE_ITERATION = (
    "megatron/megatron-bridge-nemo2509-llama1b-step-time-59892-tflops-beside-iteration-line.txt"
)


def test_megatron_bridge_step_lines_alone_are_a_megatron_log() -> None:
    result = _parse(BRIDGE)
    s = result["summary"]
    assert result["kind"] == "megatron" and result["errors"] == []
    assert s["source_format"] == "megatron-bridge"
    # 20 `Step Time : ...MODEL_TFLOP/s/GPU` lines on lines 4-23, each with a `# ...` note after some.
    assert (s["iterations"], s["first_line"], s["last_line"]) == (20, 4, 23)
    # 125.37 s (JIT), 6.13, 4.66, 10.69 s (graph capture) are each over 1.5x the median of the steps after
    # them; 2.26 s is not: four warm-up intervals.
    assert s["warmup_iterations_excluded"] == [1, 2, 3, 4] and s["steady_iterations"] == 16
    # The 16 steady times sorted: 2.22 x6, 2.23 x5, 2.24, 2.26, 3.45, 3.47, 3.54 -> the 8th and 9th are 2.23.
    assert s["median_iteration_s"] == approx(2.23)
    # Their TFLOP/s sorted: 738.3 753.3 758.7 1156.2 1165.6 1172.1 1172.9 [1174.3 1174.7] 1175.2 1175.5
    # 1176.1 1177.2 1177.4 1178.7 1179.6 -> (1174.3 + 1174.7) / 2. (Over all 20 lines, warm-up included, the
    # median would be 1172.5; the publisher's "steady 1176" leaves out the three VPP spikes too.)
    assert s["median_tflops_per_gpu"] == approx(1174.5)
    assert s["stalls"] == []  # the 3.5 s VPP spikes are under 2x the median
    assert s["total_iterations_planned"] is None and s["median_tokens_per_s_per_gpu"] is None
    assert _warned(result, "carry no iteration number", "numbered 1 to 20")
    assert not _warned(result, "above", "dense peak")  # 1179.6 is below a GB200's peak


def test_an_implausible_step_time_tflops_beside_an_iteration_line_is_left_out_and_warned() -> None:
    result = _parse(BRIDGE_BESIDE_ITERATION)
    s = result["summary"]
    # `Step Time : 4.65s GPU utilization: 59892.5TFLOP/s/GPU` (line 5, the 2025 `TFLOP/s/GPU` label), then
    # ` [2025-10-06 03:27:07] iteration       10/      10 | ... elapsed time per iteration (ms): 4647.8 |`
    # (line 11), which prints no throughput of its own.
    assert (result["kind"], s["source_format"], s["iterations"]) == ("megatron", "megatron", 1)
    assert s["median_iteration_s"] == approx(4.6478) and s["total_iterations_planned"] == 10
    assert s["median_tflops_per_gpu"] is None
    [row] = s["iteration_rows"]
    assert (row["iteration"], row["line"], row["tflops_line"]) == (10, 11, 5)
    assert row["tflops_per_gpu_implausible"] == 59892.5
    assert _warned(result, "1 TFLOP/s per GPU figure above 5000", "59892.5 on line 5", "left out")


def test_the_tflops_limit_is_the_highest_dense_peak_of_the_gpu_table() -> None:
    peaks = [peak for gpu in GPUS.values() for peak in (gpu.bf16_tflops, gpu.fp8_tflops) if peak]
    assert MAX_TFLOPS_PER_GPU == max(peaks) == 5000  # GB200 / GB300 / MI355X fp8, dense


# ---- DeepSpeed 2020 timer lines ------------------------------------------------------------------------


def test_deepspeed_2020_root_logger_timer_lines_are_read() -> None:
    result = _parse("deepspeed/deepspeed-2020-root-logger-timer-two-lines-quote-glued.txt")
    s = result["summary"]
    # `>[INFO 2020-06-08 05:26:19] 0/2650, SamplesPerSec=13.19749106827976` (a markdown quote glued to the
    # bracket), then `0/2700, SamplesPerSec=13.198177991591365`: the first timer line is left out.
    assert (result["kind"], s["source_format"], s["iterations"]) == ("deepspeed", "deepspeed-timer", 2)
    assert (s["first_line"], s["last_line"]) == (1, 2)
    assert s["deepspeed_samples_per_s_median"] == approx(13.198177991591365, 1e-12)
    assert s["deepspeed_samples_per_s_running_average_only"] is True
    assert s["median_tokens_per_s_per_gpu"] is None
    assert _warned(
        result, "not converted to tokens/s per GPU", "neither the sequence length nor the world size"
    )


def test_one_deepspeed_2020_timer_line_alone_is_not_enough_to_recognise() -> None:
    line = "[INFO 2020-06-08 05:26:19] 0/2650, SamplesPerSec=13.19749106827976\n"
    assert detect_kind(line).kind is None
    assert detect_kind(line * 2).kind == "deepspeed"


# ---- nvidia-smi nvlink: traffic counters, a listing that skips GPUs -----------------------------------

COUNTERS = "nvidia-smi-nvlink/h800-gpu0-gt-r-raw-traffic-counters-not-status.txt"


def test_nvlink_raw_traffic_counters_are_nvlink_output_not_a_gpu_list() -> None:
    result = _parse(COUNTERS)
    s = result["summary"]
    # `GPU 0: NVIDIA H800 (UUID: ...)` (line 2), then `Link 0: Raw Tx: 1933426555 KiB` (line 3) ... `Link 7:
    # Raw Rx: 1957241622 KiB` (line 18).
    assert result["kind"] == "nvidia-smi-nvlink" and result["errors"] == []
    assert (s["gpus"], s["gpu_models"], s["lines"]) == (1, ["NVIDIA H800"], [2])
    assert s["traffic_counter_links"] == 8
    # No link state or speed in a counter listing: unknown, not 0 (0 would read as "all NVLinks down").
    assert s["active_links_per_gpu"] is None and s["max_active_links_per_gpu"] is None
    assert s["link_gbps"] is None and s["min_link_gbps"] is None and s["inactive_links"] == 0
    [gpu] = s["per_gpu"]
    assert gpu["active_links"] is None and gpu["inactive_links"] is None
    counters = gpu["traffic_counters"]
    assert [c["link"] for c in counters] == list(range(8))
    assert (counters[0]["tx_kib"], counters[0]["rx_kib"], counters[0]["line"]) == (1933426555, 1975423057, 3)
    assert (counters[7]["tx_kib"], counters[7]["rx_kib"], counters[7]["type"]) == (
        1919300185,
        1957241622,
        "Raw",
    )
    assert _warned(
        result, "traffic counters (Raw Tx/Rx, KiB) of 8 links, 8 of them non-zero", "not link status"
    )
    assert _warned(result, "only one GPU shown")


def test_nvlink_status_listing_that_skips_gpus_is_warned() -> None:
    result = _parse("nvidia-smi-nvlink/h800-status-8-links-gpus-2-6-elided-by-dots.txt")
    s = result["summary"]
    # GPU 0 (line 4), GPU 1 (line 13), `...` (line 22), GPU 7 (line 23): 8 links at 26.562 GB/s each.
    assert (s["gpus"], s["lines"], [p["index"] for p in s["per_gpu"]]) == (3, [4, 13, 23], [0, 1, 7])
    assert (s["active_links_per_gpu"], s["link_gbps"], s["inactive_links"]) == (8, 26.562, 0)
    assert _warned(result, "only 3 GPUs listed for GPU ids up to 7", "ids 2-6 are not shown")
    assert "traffic_counter_links" not in s


# ---- lspci listing its devices twice -------------------------------------------------------------------


def test_lspci_functions_listed_twice_are_counted_once() -> None:
    result = _parse("lspci/bf3-cx6lx-two-greps-same-functions-listed-twice.txt")
    s = result["summary"]
    # `lspci | grep -i mellanox` (lines 3-7: 02:00.0, 02:00.1 CX-6 Lx, 82:00.0, 82:00.1 BlueField-3, 82:00.2
    # DMA), then `lspci | grep -i bluefield` lists 82:00.0-82:00.2 again (lines 9-11).
    assert (result["kind"], s["rdma_nics"], s["devices"]) == ("lspci", 4, 5)
    assert [n["bdf"] for n in s["rdma_nic_functions"]] == ["02:00.0", "02:00.1", "82:00.0", "82:00.1"]
    assert s["lines"] == [3, 4, 5, 6] and s["rdma_nics_by_link_layer"] == {"Ethernet": 4}
    assert _warned(result, "3 lines repeat a PCI address", "82:00.0, line 9", "counted once")


# ---- perftest runs that failed before their table ------------------------------------------------------

FAILED = "perftest/ib-read-bw-q30-client-mr-failure-then-server-exchange-failure.txt"
CLIENT_REASON = "Couldn't allocate MR … Couldn't create IB resources"
SERVER_REASON = (
    "ethernet_read_keys: Couldn't read remote address … Failed to exchange data between server and clients"
)


def test_perftest_client_and_server_failures_are_a_failed_run_with_the_errors_quoted() -> None:
    result = _parse(FAILED)
    s = result["summary"]
    assert result["kind"] == "perftest" and result["errors"] == []
    # The server's banner (line 24) and settings: `Device : mlx5_0`, `Number of qps : 30`, `Link type : IB`.
    assert (s["test"], s["banner"], s["first_line"]) == ("ib_read_bw", "RDMA_Read BW Test", 24)
    assert (s["device"], s["qps"], s["link_layer"]) == ("mlx5_0", 30, "InfiniBand")
    assert s["failed"] is True and s["rows"] == 0 and s["peak_gbps"] is None
    # Client (lines 3-6): `Couldn't allocate MR` ... ` Couldn't create IB resources`; server (lines 37-39):
    # `ethernet_read_keys: Couldn't read remote address` ... `Failed to exchange data between server and
    # clients`.
    assert [e["line"] for e in s["error_lines"]] == [3, 4, 5, 6, 37, 38, 39]
    assert s["failure_reason"] == f"{CLIENT_REASON}; {SERVER_REASON}"
    assert _warned(result, "perftest failed before printing results (line 3)", CLIENT_REASON, SERVER_REASON)
    assert not _warned(result, "no result rows")


def test_the_perftest_server_block_alone_and_the_client_lines_alone_are_failed_runs() -> None:
    text = (REAL / FAILED).read_text()
    server = text[text.index("[host1]") :]
    result = parse(server).as_dict()
    assert result["kind"] == "perftest" and result["summary"]["failed"] is True
    assert result["summary"]["failure_reason"] == SERVER_REASON
    assert result["summary"]["banner"] == "RDMA_Read BW Test"
    client = text[: text.index("```", 3)]  # the command and its four error lines
    result = parse(client).as_dict()
    assert (result["kind"], result["summary"]["test"]) == ("perftest", "ib_read_bw")
    assert result["summary"]["failure_reason"] == CLIENT_REASON


# ---- ibv_devinfo with a damaged first line -------------------------------------------------------------


def test_ibv_devinfo_device_line_that_lost_its_h_is_read_and_warned() -> None:
    result = _parse("ibv_devinfo/cx6-2hca-first-line-damaged-ca_id-port-init.txt")
    s = result["summary"]
    # `ca_id: mlx5_0` (line 3, port line 13), `hca_id: mlx5_1` (line 22, port line 32); both PORT_INIT (2),
    # InfiniBand, vendor_part_id 4123.
    ports = [(p["device"], p["port"], p["state"], p["link_layer"], p["line"]) for p in s["ports"]]
    assert ports == [("mlx5_0", 1, "Init", "InfiniBand", 13), ("mlx5_1", 1, "Init", "InfiniBand", 32)]
    assert s["devices"] == ["mlx5_0", "mlx5_1"] and s["active_infiniband_ports"] == 0
    assert _warned(result, "line 3 reads `ca_id: mlx5_0`", "mlx5_0", "first character lost")


# ---- the new signatures -------------------------------------------------------------------------------

FIFTH_B = [
    BRIDGE,
    BRIDGE_BESIDE_ITERATION,
    "deepspeed/deepspeed-2020-root-logger-timer-two-lines-quote-glued.txt",
    COUNTERS,
    FAILED,
]


@pytest.mark.parametrize("rel", FIFTH_B)
def test_every_line_a_signature_matches_holds_one_of_its_literals(rel: str) -> None:
    """As test_detect_literals.py, on the fixtures of the signatures added for this set."""
    for line in decode((REAL / rel).read_bytes()).lines:
        for name, pattern in SIGNATURES.items():
            if pattern.search(line):
                assert any(lit in line for lit in SIGNATURE_LITERALS[name]), (rel, name, line)


@pytest.mark.parametrize(
    "prefix",
    ["Step Time : ", "Step Time : 2.22s GPU utilization: ", "Link 0: Raw Tx: ", "Link 0: Data ",
     "[INFO 2020-", "ethernet_read_keys: ", "Couldn't ", "ca_id: ", "ib_read_bw "],
)  # fmt: skip
def test_the_new_lines_parse_in_linear_time(prefix: str) -> None:
    for unit in (" ", "1", "1.", "s ", ": ", "x"):
        line = (prefix + unit * (MAX_LINE_CHARS // len(unit)))[:MAX_LINE_CHARS]
        start = time.process_time()
        parse("\n".join([line] * 4))
        assert time.process_time() - start < 0.5, (prefix, unit)


# ---- the same rules on made-up logs -------------------------------------------------------------------


def _bridge(seconds: float, tflops: float) -> str:
    return f"Step Time : {seconds:.2f}s GPU utilization: {tflops:.1f}MODEL_TFLOP/s/GPU"


def _iteration(i: int, ms: float, tflops: float | None = None) -> str:
    throughput = f" throughput per GPU (TFLOP/s/GPU): {tflops} |" if tflops is not None else ""
    return (
        f" [2026-01-01 00:00:00] iteration {i:>8}/      40 | consumed samples: {i * 8} |"
        f" elapsed time per iteration (ms): {ms} |{throughput} global batch size:     8 | lm loss: 2.5E+00 |"
    )


def test_step_time_tflops_fill_an_iteration_line_without_throughput() -> None:
    lines = [line for i in (10, 20, 30) for line in (_bridge(1.5, 400.0 + i), _iteration(i, 1500.0))]
    result = parse("\n".join(lines))
    s = result.summary
    assert (result.kind, s["source_format"], s["iterations"]) == ("megatron", "megatron", 3)
    assert s["median_tflops_per_gpu"] == approx(420.0) and s["median_iteration_s"] == approx(1.5)
    assert [r["tflops_line"] for r in s["iteration_rows"]] == [1, 3, 5]
    assert not any("numbered 1 to" in w for w in result.warnings)


def test_an_iteration_lines_own_throughput_wins_over_the_step_time_line() -> None:
    lines = [line for i in (10, 20, 30) for line in (_bridge(1.5, 999.0), _iteration(i, 1500.0, 321.0))]
    s = parse("\n".join(lines)).summary
    assert s["median_tflops_per_gpu"] == approx(321.0)
    assert all("tflops_line" not in r for r in s["iteration_rows"])


def test_the_pre_2025_11_tflops_label_is_read_too() -> None:
    lines = [f"Step Time : 3.00s GPU utilization: {t}TFLOP/s/GPU" for t in (300.0, 310.0, 320.0)]
    s = parse("\n".join(lines)).summary
    assert (s["source_format"], s["iterations"], s["median_tflops_per_gpu"]) == ("megatron-bridge", 3, 310.0)


def test_an_implausible_tflops_on_a_megatron_line_is_left_out_of_the_median() -> None:
    lines = [_iteration(i, 1000.0, tflops) for i, tflops in ((10, 400.0), (20, 410.0), (30, 73000.0))]
    result = parse("\n".join(lines))
    assert result.summary["median_tflops_per_gpu"] == approx(405.0)
    assert any("1 TFLOP/s per GPU figure above 5000" in w and "73000 on line 3" in w for w in result.warnings)
    at_peak = [_iteration(i, 1000.0, 5000.0) for i in (10, 20)]
    assert parse("\n".join(at_peak)).summary["median_tflops_per_gpu"] == 5000.0  # at the peak is possible


def test_data_counters_beside_status_lines_keep_the_link_status() -> None:
    lines = ["GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-a)"]
    lines += [f"\t Link {n}: 26.562 GB/s" for n in range(18)]
    lines += [f"\t Link {n}: Data {d}: {n * 10} KiB" for n in range(18) for d in ("Tx", "Rx")]
    result = parse("\n".join(lines))
    s = result.summary
    assert (s["active_links_per_gpu"], s["link_gbps"], s["traffic_counter_links"]) == (18, 26.562, 18)
    assert not any("not link status" in w for w in result.warnings)


def test_two_gpus_of_counters_only_and_their_zero_links() -> None:
    lines = []
    for gpu in (0, 1):
        lines.append(f"GPU {gpu}: NVIDIA A100-SXM4-80GB (UUID: GPU-{gpu})")
        lines += [f"         Link {n}: Data {d}: {gpu * n} KiB" for n in range(12) for d in ("Tx", "Rx")]
    result = parse("\n".join(lines))
    assert result.kind == "nvidia-smi-nvlink" and result.summary["active_links_per_gpu"] is None
    assert any("Data Tx/Rx, KiB) of 24 links, 11 of them non-zero" in w for w in result.warnings)


@pytest.mark.parametrize(
    ("ids", "warned"),
    [((0, 1, 2, 3), None), ((7,), None), ((0, 2, 3, 6), "ids 1, 4-5 are not shown"), ((4, 5), "ids 0-3")],
)
def test_gpu_id_gaps_in_an_nvlink_listing(ids: tuple[int, ...], warned: str | None) -> None:
    lines = [f"GPU {i}: NVIDIA H100 80GB HBM3 (UUID: GPU-{i})\n\t Link 0: 26.562 GB/s" for i in ids]
    gaps = [w for w in parse("\n".join(lines)).warnings if "are not shown" in w]
    if warned is None:
        assert gaps == []
    else:
        assert len(gaps) == 1 and warned in gaps[0]


def test_huge_or_many_gpu_ids_are_named_by_their_gaps_in_bounded_time() -> None:
    ids = (0, 10**12)
    lines = [f"GPU {i}: NVIDIA H100 80GB HBM3 (UUID: GPU-{i})\n\t Link 0: 26.562 GB/s" for i in ids]
    start = time.process_time()
    warnings = parse("\n".join(lines)).warnings
    assert time.process_time() - start < 0.5
    assert any(f"ids 1-{10**12 - 1} are not shown" in w for w in warnings)
    every_other = [
        f"GPU {2 * i}: NVIDIA H100 80GB HBM3 (UUID: GPU-{i})\n\t Link 0: 26.562 GB/s" for i in range(20)
    ]
    assert any(
        "ids 1, 3, 5, 7, 9, 11, 13, 15, … are not shown" in w for w in parse("\n".join(every_other)).warnings
    )


def test_perftest_error_lines_are_kept_up_to_a_bound() -> None:
    lines = ["RDMA_Write BW Test"] + ["Couldn't create IB resources", "x"] * 5000
    start = time.process_time()
    s = parse("\n".join(lines)).summary
    assert time.process_time() - start < 1.0
    assert len(s["error_lines"]) == 20 and s["failure_reason"].endswith("; …")


def test_lspci_addresses_with_and_without_domain_are_one_function() -> None:
    lines = [
        "0000:82:00.0 Ethernet controller: Mellanox Technologies MT2910 Family [ConnectX-7]",
        "82:00.0 Ethernet controller: Mellanox Technologies MT2910 Family [ConnectX-7]",
        "0001:82:00.0 Ethernet controller: Mellanox Technologies MT2910 Family [ConnectX-7]",
        "0000:82:00.1 Ethernet controller: Mellanox Technologies MT2910 Family [ConnectX-7]",
    ]
    result = parse("\n".join(lines))
    assert result.summary["rdma_nics"] == 3  # domain 0001 is another function
    assert any("1 line repeats a PCI address" in w for w in result.warnings)
    distinct = parse("\n".join(lines[2:])).warnings
    assert not any("repeat a PCI address" in w for w in distinct)


def test_a_perftest_error_after_the_results_is_kept_but_the_run_did_not_fail() -> None:
    lines = [
        "                    RDMA_Write BW Test",
        " Link type       : IB",
        " #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]",
        " 65536      5000             23000.00            22900.00              0.366400",
        "Failed to exchange data between server and clients",
    ]
    result = parse("\n".join(lines))
    s = result.summary
    assert s["failed"] is False and s["rows"] == 1 and "failure_reason" not in s
    assert s["error_lines"] == [{"line": 5, "text": "Failed to exchange data between server and clients"}]
    assert not any("failed before printing results" in w for w in result.warnings)


def test_perftest_errors_without_banner_or_command_are_recognised_weakly() -> None:
    assert detect_kind(" Couldn't create IB resources\n").kind == "perftest"
    # Another tool's signatures win: an nccl-tests log that quotes the message is still nccl-tests.
    nccl = (REAL / "nccl-tests/oke-a100-2node-16gpu-kubectl-logs-mpi-operator.txt").read_text()
    assert detect_kind(nccl + "\nCouldn't create IB resources\n").kind == "nccl-tests"


def test_ibv_devinfo_without_damage_gives_no_warning_about_it() -> None:
    good = (REAL / "ibv_devinfo/cx6-2hca-first-line-damaged-ca_id-port-init.txt").read_text()
    result = parse(good.replace("ca_id: mlx5_0", "hca_id:\tmlx5_0"))
    assert not any("first character lost" in w for w in result.warnings)
    assert result.summary["devices"] == ["mlx5_0", "mlx5_1"]
