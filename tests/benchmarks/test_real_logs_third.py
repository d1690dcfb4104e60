"""The third set of real logs (fixtures/real/, origins in fixtures/real/SOURCES.md, "Third set").

As in test_real_logs.py, every expected value was read off the log by hand (the iteration lines, the
matrix cells, the port blocks, the rows), not copied from a parser run.
"""

from __future__ import annotations

from typing import Any

import pytest

from .test_real_logs import _parse, _warned, approx, assert_training_read

# ---- training logs ------------------------------------------------------------------------------

# file -> (kind, source_format, iterations, median s, median TFLOP/s/GPU, median tokens/s/GPU, planned)
TRAINING: dict[str, tuple[Any, ...]] = {
    # NeMo 1 progress bar `7/15 [06:19<07:13, ..., global_step=5.000, ..., train_step_timing in s=49.50]`.
    "nemo/nemo1-launcher-a3mega-llama2-7b-progress-bar-tail.txt": (
        "megatron",
        "nemo",
        1,
        49.5,
        None,
        None,
        15,
    ),
    # Three bar updates of global_step=6023.0 (`^M` typed out), train_step_timing in s=2.590.
    "nemo/nemo2403-peft-elyza-7b-progress-bar-caret-m-early-stop.txt": (
        "megatron",
        "nemo",
        1,
        2.59,
        None,
        None,
        10000,
    ),
    # 61674.3, 61614.9, 61681.5 ms; 68.2 TFLOP/s/GPU on every line.
    "megatron/deepseek-v2-lite-8xh100-timestamp-three-lines-no-trailing-bar.txt": (
        "megatron",
        "megatron",
        3,
        61.6743,
        68.2,
        None,
        5000,
    ),
    # 52728.1 ms on the first line, `TFLOPs: 167.52` on the second (the line is wrapped).
    "megatron/ascendspeed-llama-33b-npu-line-wrapped-tflops-on-second-line.txt": (
        "megatron",
        "megatron",
        1,
        52.7281,
        167.52,
        None,
        50000,
    ),
    # `1595.5/1630.1` ms, `92.8/90.8` TFLOP/s/GPU, `5134.5/5026.5` tokens/s/GPU: current/running average.
    "megatron/primus-rocm-mem-bold-markdown-current-average-pairs.txt": (
        "megatron",
        "megatron",
        1,
        1.5955,
        92.8,
        5134.5,
        6,
    ),
    # GPT-NeoX: 4103.1 ms, `approx flops per GPU: 112.9TFLOPS`; DeepSpeed timer and step lines around it.
    "deepspeed/gpt-neox-bf16-approx-flops-per-gpu-tflops-suffix.txt": (
        "deepspeed",
        "megatron",
        1,
        4.1031,
        112.9,
        None,
        10000,
    ),
}


@pytest.mark.parametrize("rel", sorted(TRAINING))
def test_training_iterations_read_off_the_log(rel: str) -> None:
    assert_training_read(rel, TRAINING[rel])


def test_nemo_progress_bar_step_is_the_global_step() -> None:
    a3 = _parse("nemo/nemo1-launcher-a3mega-llama2-7b-progress-bar-tail.txt")
    [row] = a3["summary"]["iteration_rows"]
    assert (row["iteration"], row["line"], row["loss"]) == (5, 12, approx(11.50))
    assert _warned(a3, "log ends at iteration 5 of 15")
    elyza = _parse("nemo/nemo2403-peft-elyza-7b-progress-bar-caret-m-early-stop.txt")
    [row] = elyza["summary"]["iteration_rows"]
    assert (row["iteration"], row["line"], row["loss"]) == (6023, 1, approx(0.0252))


def test_wrapped_megatron_line_keeps_its_second_half() -> None:
    s = _parse("megatron/ascendspeed-llama-33b-npu-line-wrapped-tflops-on-second-line.txt")["summary"]
    assert s["median_samples_per_s"] == approx(9.710)  # `samples per second: 9.710` on line 2
    assert (s["skipped_iterations"], s["nan_iterations"]) == (0, 0)
    assert (s["first_line"], s["last_line"]) == (1, 1)


def test_gpt_neox_samples_per_second_before_the_iteration() -> None:
    result = _parse("deepspeed/gpt-neox-bf16-approx-flops-per-gpu-tflops-suffix.txt")
    s = result["summary"]
    assert s["median_samples_per_s"] == approx(7.799)  # ` samples/sec: 7.799 | iteration 34/ 10000 |`
    assert s["deepspeed_samples_per_s_median"] == approx(8.00912418308922)  # CurrSamplesPerSec
    assert s["deepspeed_skipped_steps"] == 0


def test_old_deepspeed_timer_lines_are_read() -> None:
    result = _parse("deepspeed/ds-2022-old-timer-samplespersec-ipython-html-lines.txt")
    s = result["summary"]
    assert result["kind"] == "deepspeed" and s["source_format"] == "deepspeed-timer"
    # `0/40, SamplesPerSec=83.486...`, `0/50, SamplesPerSec=83.738...`: the first is left out.
    assert s["iterations"] == 2 and s["deepspeed_samples_per_s_median"] == approx(83.73838805358588)
    assert s["deepspeed_samples_per_s_running_average_only"] is True
    assert s["skipped_iterations"] == 2 and (s["first_line"], s["last_line"]) == (2, 14)
    assert _warned(result, "skipped 2 of 60")


def test_torchtitan_every_rank_printing_keeps_the_first_print() -> None:
    result = _parse("torchtitan/moe-gate-fp32-every-rank-prints-no-rank-prefix.txt")
    s = result["summary"]
    assert result["kind"] == "torchtitan" and s["iterations"] == 2  # steps 4 (printed 7 times) and 5
    # First prints: tps 10,050 / tflops 314.71 / mfu 13.99% and 10,007 / 313.36 / 13.93%.
    assert s["median_tokens_per_s_per_gpu"] == approx(10028.5)
    assert s["median_tflops_per_gpu"] == approx(314.035, rel=1e-4)
    assert s["mfu"] == approx(0.1396)


# ---- topology, ports ----------------------------------------------------------------------------


def test_topo_h200_ten_nics_two_of_them_storage() -> None:
    result = _parse("nvidia-smi-topo/nano4-h200-8gpu-10nic-srun-queued-empty-cpu-affinity.txt")
    s = result["summary"]
    assert result["kind"] == "nvidia-smi-topo" and result["warnings"] == []
    assert (s["gpus"], s["full_nvlink_mesh"], s["min_nvlinks_per_pair"], s["nics"]) == (8, True, 18, 10)
    # NIC1/NIC2 (mlx5_1, mlx5_2) are NODE to every GPU and PIX to each other: not rail NICs.
    assert s["rail_nics"] == 8
    assert [n["name"] for n in s["nic_details"] if not n["close_gpus"]] == ["mlx5_1", "mlx5_2"]
    assert [n["close_gpus"] for n in s["nic_details"] if n["close_gpus"]] == [[f"GPU{i}"] for i in range(8)]
    assert (s["header_line"], s["lines"]) == (4, list(range(5, 13)))


def test_topo_old_driver_names_the_nic_column_by_device() -> None:
    s = _parse("nvidia-smi-topo/hgx-a100-8gpu-srun-driver495-mlx5-column-label.txt")["summary"]
    assert (s["gpus"], s["min_nvlinks_per_pair"], s["max_nvlinks_per_pair"]) == (8, 12, 12)
    [nic] = s["nic_details"]
    assert (nic["name"], nic["best_gpu_path"], nic["close_gpus"]) == ("mlx5_0", "PXB", ["GPU2", "GPU3"])


def test_topo_a100_eight_nics_in_pairs_behind_gpu_pairs() -> None:
    s = _parse("nvidia-smi-topo/a100-sxm4-80gb-8gpu-8nic-roce-pxb-pairs.txt")["summary"]
    assert (s["gpus"], s["nics"], s["rail_nics"], s["full_nvlink_mesh"]) == (8, 8, 8, True)
    pairs = [[f"GPU{i}", f"GPU{i + 1}"] for i in (0, 0, 2, 2, 4, 4, 6, 6)]
    assert [n["close_gpus"] for n in s["nic_details"]] == pairs
    assert {n["best_gpu_path"] for n in s["nic_details"]} == {"PXB"}


def test_ibstatus_eight_roce_ports_at_100g() -> None:
    result = _parse("ibstatus/a100-8x-cx6-roce-100g-4x-edr-all-active.txt")
    s = result["summary"]
    assert result["kind"] == "ibstatus"
    assert s["devices"] == [f"mlx5_{i}" for i in range(8)]
    assert {(p["state"], p["physical_state"], p["link_layer"], p["rate_gbps"]) for p in s["ports"]} == {
        ("Active", "LinkUp", "Ethernet", 100)
    }
    assert (s["active_ethernet_ports"], s["active_infiniband_ports"], s["inactive_ports"]) == (8, 0, 0)


def test_ibv_devinfo_four_cx7_roce_functions_two_down() -> None:
    s = _parse("ibv_devinfo/cx7-nvd-board-4-roce-devices-2-down.txt")["summary"]
    assert [(p["device"], p["state"], p["active_mtu"]) for p in s["ports"]] == [
        ("rocep1s0f0", "Active", 4096),
        ("rocep1s0f1", "Down", 1024),
        ("roceP2p1s0f0", "Active", 4096),
        ("roceP2p1s0f1", "Down", 1024),
    ]
    assert {p["vendor_part_id"] for p in s["ports"]} == {"4129"}
    assert (s["active_ethernet_ports"], s["inactive_ports"]) == (2, 2)


def test_ibv_devinfo_two_ib_ports_of_one_connectx3() -> None:
    result = _parse("ibv_devinfo/connectx3-mlx4-2port-ib-two-subnet-managers-prompt.txt")
    s = result["summary"]
    assert result["kind"] == "ibv_devinfo" and s["devices"] == ["mlx4_0"]
    assert [(p["port"], p["state"], p["link_layer"]) for p in s["ports"]] == [
        (1, "Active", "InfiniBand"),
        (2, "Active", "InfiniBand"),
    ]
    assert s["active_infiniband_ports"] == 2
    assert _warned(result, "without -v prints no rate")


def test_ibdev2netdev_heading_glued_to_the_last_line() -> None:
    s = _parse("ibdev2netdev/cx7-4port-roce-names-heading-glued-to-last-line.txt")["summary"]
    # `roceP2p1s0f1 port 1 ==> enP2p1s0f1np1 (Down)# ibv_devinfo`
    assert [(p["device"], p["netdev"], p["netdev_state"]) for p in s["ports"]][-1] == (
        "roceP2p1s0f1",
        "enP2p1s0f1np1",
        "Down",
    )
    assert (s["total_ports"], s["netdev_up"], s["netdev_down"], s["ethernet_ports"]) == (4, 2, 2, 4)


# ---- health evidence ----------------------------------------------------------------------------


def test_dcgmi_diag_4_0_lowercase_test_names_all_pass() -> None:
    result = _parse("dcgmi-diag/dcgm400-docs-r3-4gpu-lowercase-names-per-gpu-indented.txt")
    s = result["summary"]
    assert result["kind"] == "dcgmi-diag" and result["warnings"] == []
    assert (s["passed"], s["level"], s["dcgm_version"], s["driver_version"]) == (
        True,
        "3",
        "4.0.0",
        "550.90.07",
    )
    assert [(t["section"], t["name"], t["result"]) for t in s["tests"]] == [
        ("Deployment", "software", "Pass"),
        ("Hardware", "memory", "Pass"),
        ("Hardware", "diagnostic", "Pass"),
        ("Integration", "pcie", "Pass"),
        ("Stress", "memory_bandwidth", "Pass"),
        ("Stress", "targeted_stress", "Pass"),
        ("Stress", "targeted_power", "Pass"),
    ]
    assert s["failed_tests"] == s["skipped_tests"] == s["warned_tests"] == []


def test_dmesg_xid_79_alone_marks_the_gpu_fallen_off_the_bus() -> None:
    result = _parse("dmesg/rtx5090-xid79-then-xid154-node-reboot-required.txt")
    s = result["summary"]
    assert s["xid_codes"] == [79, 154]
    # `NVRM: Xid (PCI:0000:02:00): 79, pid='<unknown>', GPU has fallen off the bus.` and no other line.
    assert s["gpus_fallen_off_bus"] == [{"bus_id": "0000:02:00.0", "line": 1}]
    assert _warned(result, "1 GPU fell off the bus")


def test_dmesg_three_vm_gpus_with_xid_43_31_94() -> None:
    result = _parse("dmesg/akash-vm-dmesg-T-grep-nvrm-xid43-31-94-three-gpus.txt")
    s = result["summary"]
    assert [(e["bus_id"], e["xid"], e["line"]) for e in s["xid_events"]] == [
        ("0000:00:05", 43, 5),
        ("0000:00:05", 43, 6),
        ("0000:00:07", 31, 9),
        ("0000:00:08", 94, 12),
    ]
    assert s["gpus_fallen_off_bus"] == [] and result["warnings"] == []


# ---- collectives --------------------------------------------------------------------------------


def test_hccl_command_continued_over_three_lines() -> None:
    result = _parse("hccl-test/hccl-vm-allreduce-np16-p8-2mib-one-row-stub-time.txt")
    [run] = result["summary"]["runs"]
    # `mpirun ... -np 16 \` / `.../all_reduce_test \` / `-b 2097152 ... -p 8`
    assert (run["collective"], run["ranks"], run["npus_per_node"], run["nodes"]) == ("all_reduce", 16, 8, 2)
    assert (run["rows"], run["max_size_bytes"], run["check_results"]) == (1, 2097152, ["success"])
    assert run["algbw_at_max_size_gbps"] == approx(2.09715)
    assert run["busbw_at_max_size_gbps"] == approx(2.09715 * 2 * 15 / 16, rel=1e-4)
    assert result["warnings"] == []


def test_rccl_mi355x_two_runs_of_two_rows() -> None:
    result = _parse("rccl-tests/oci-mi355x-8gpu-allreduce-alltoall-two-rows-each-trimmed.txt")
    assert result["kind"] == "rccl-tests" and result["errors"] == []
    runs = result["summary"]["runs"]
    # (collective, peak, @max out-of-place, @max in-place, Avg bus bandwidth)
    expected = [
        ("all_reduce", 407.26, 406.76, 406.73, 273.886),
        ("alltoall", 361.41, 361.41, 361.20, 236.187),
    ]
    assert len(runs) == 2
    for run, (coll, peak, at_max, at_max_ip, avg) in zip(runs, expected, strict=True):
        assert (run["collective"], run["ranks"], run["nodes"], run["rows"], run["failed"]) == (
            coll,
            8,
            1,
            2,
            False,
        )
        assert run["peak_busbw_gbps"] == approx(peak)
        assert run["busbw_at_max_size_oop_gbps"] == approx(at_max)
        assert run["busbw_at_max_size_ip_gbps"] == approx(at_max_ip)
        assert run["avg_busbw_reported"] == approx(avg)
        assert (run["tests_version"], run["gpu_names"]) == ("HEAD:e1b8a3a", ["AMD Instinct MI355X"])
    # the publisher kept the two largest sizes of a sweep from minBytes 512 KiB: said, since the footer's
    # average (274 GB/s) is over every size run, not over the rows shown (~407 GB/s)
    cut = [w for w in result["warnings"] if "rows were cut from the log" in w]
    assert len(cut) == 2 and all("starts at 8589934592 B" in w and "minBytes 524288 B" in w for w in cut)
