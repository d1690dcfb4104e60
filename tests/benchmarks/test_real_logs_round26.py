"""The twenty-sixth set of real logs (fixtures/real/SOURCES.md, "Twenty-sixth set"): kernel logs of RDMA
NICs whose firmware stopped answering (mlx5 command timeouts), refused before as "no signature of a supported
tool".

As in test_real_logs.py, every expected value was read off the log by hand.
"""

from __future__ import annotations

from typing import Any

from benchmarks.compare import compare
from benchmarks.parsers import parse

from .test_real_logs import _parse, _warned

UCX_TIMEOUTS = "dmesg/ucx7738-pdsh-b1360-mlx5-create-dct-command-timeouts-leak-no-nvrm-T.txt"
SPARK_TIMEOUTS = "dmesg/dgx-spark-notes-cx7-mlx5-destroy-eq-access-reg-command-timeouts-wrapped-abridged.txt"

IB_8X400 = {"gpu": "H100-SXM-80GB", "gpus_per_node": 8, "fabric": "infiniband", "gbps_per_nic": 400,
            "nics_per_node": 8}  # fmt: skip


def _verdicts(result: dict[str, Any], rel: str) -> dict[str, dict[str, Any]]:
    return {str(v["claim"]): v for v in compare(IB_8X400, dict(result, filename=rel))}


def test_mlx5_command_timeouts_behind_a_pdsh_prefix_are_a_nic_firmware_failure() -> None:
    # `b1360: [14280.445226] mlx5_core 0000:61:00.0: wait_func:1132:(pid 141181): CREATE_DCT(0x710) timeout.
    # Will cause a leak of a command resource` on lines 3, 5 and 8; the `No done completion` lines between
    # them are the same commands waiting (a command the driver recovers prints `recovered after timeout`),
    # not events. No NVRM line. Before: refused.
    r = _parse(UCX_TIMEOUTS)
    assert r["kind"] == "dmesg" and r["errors"] == []
    s = r["summary"]
    events = s["nic_firmware_errors"]
    assert [e["line"] for e in events] == [3, 5, 8]
    assert {e["device"] for e in events} == {"0000:61:00.0"}
    assert {e["kind"] for e in events} == {"command_timeout"}
    assert events[0]["message"] == "CREATE_DCT(0x710) timeout"
    assert s["nic_errors"] == [] and s["nvrm_lines"] == 0
    assert _warned(r, "firmware stopped answering (0000:61:00.0; 3 events")
    v = _verdicts(r, UCX_TIMEOUTS)
    row = v["RDMA NICs whose firmware stopped answering"]
    assert (row["verdict"], row["measured"], row["lines"]) == ("fail", 1, [3, 5, 8])
    # a NIC-only log still says nothing about the GPUs
    assert v["usable GPUs (kernel log)"]["verdict"] == "cannot-measure"


def test_an_abridged_wrapped_timeout_names_each_function_and_a_failed_register_read_is_not_one() -> None:
    # `mlx5_core 0000:01:00.0: wait_func_handle_exec_timeout: ... DESTROY_EQ(0x302) timeout.` (its `Will
    # cause a leak ...` wrapped onto the next line), `query_mcia_reg failed: status: 0x3` (a cable EEPROM
    # read, not a timeout), `mlx5_core 0000:01:00.1: ... ACCESS_REG(0x805) timeout`. Before: refused.
    r = _parse(SPARK_TIMEOUTS)
    assert r["kind"] == "dmesg"
    events = r["summary"]["nic_firmware_errors"]
    assert [(e["device"], e["message"], e["line"]) for e in events] == [
        ("0000:01:00.0", "DESTROY_EQ(0x302) timeout", 3),
        ("0000:01:00.1", "ACCESS_REG(0x805) timeout", 6),
    ]
    assert _verdicts(r, SPARK_TIMEOUTS)["RDMA NICs whose firmware stopped answering"]["measured"] == 2


def test_mlx5_health_poll_failures_are_read_and_recovered_or_empty_ones_are_not() -> None:
    # The health poller's lines as NVIDIA NVSentinel's syslog tests carry them (NVIDIA/NVSentinel, the "Inject
    # all fatal NIC driver patterns" e2e test), and the driver's own recovered / empty-buffer lines
    # (drivers/net/ethernet/mellanox/mlx5/core cmd.c `Async, recovered after timeout`, health.c `synd 0x%x`).
    text = (
        "kernel: [   17.982092] mlx5_core 0000:41:00.0: poll_health:852:(pid 0): device's health "
        "compromised - reached miss count\n"
        "kernel: [   17.982217] mlx5_core 0000:41:00.0: print_health_info:458:(pid 0): synd 0x8: "
        "unrecoverable hardware error\n"
        "kernel: [   18.000001] mlx5_core 0000:42:00.0: cb_timeout_handler:893:(pid 7): cmd[3]: "
        "QUERY_VPORT_COUNTER(0x770) Async, recovered after timeout\n"
        "kernel: [   18.000002] mlx5_core 0000:43:00.0: print_health_info:458:(pid 0): synd 0x0: unknown "
        "syndrome\n"
    )
    r = parse(text.encode()).as_dict()
    assert r["kind"] == "dmesg"
    events = r["summary"]["nic_firmware_errors"]
    assert [(e["device"], e["kind"], e["message"], e["line"]) for e in events] == [
        ("0000:41:00.0", "health_failure", "device's health compromised", 1),
        ("0000:41:00.0", "health_failure", "synd 0x8: unrecoverable hardware error", 2),
    ]


def test_a_lone_recovered_command_is_not_a_kernel_log_of_nic_failures() -> None:
    text = (
        "mlx5_core 0000:42:00.0: cb_timeout_handler:893:(pid 7): cmd[3]: QUERY_VPORT_COUNTER(0x770) Async, "
        "recovered after timeout\n"
    )
    assert parse(text.encode()).as_dict()["kind"] is None


def test_a_collective_row_names_its_unit_and_its_message_size_readably() -> None:
    # the claim is judged on busbw in GB/s against NICs x Gb/s: the row says which, and its largest message
    # reads "16 GiB" where it read "17179869184 B" (QA, twenty-sixth stop)
    from benchmarks.compare import message_size_text

    assert message_size_text(17179869184) == "16 GiB"
    assert message_size_text(536870912) == "512 MiB"
    assert message_size_text(1.5 * 2**20) == "1.5 MiB"
    assert message_size_text(100) == "100 B"
    # no exponent at a thousand of a unit (a sweep ending at -e 1000M), and a tebibyte in its own unit
    assert message_size_text(1000 * 2**20) == "1,000 MiB" and message_size_text(2**40) == "1 TiB"
    assert message_size_text(float("nan")) == "?"
    assert message_size_text(None) == "?" and message_size_text(True) == "?"
    from benchmarks.compare import _compare_collective_run

    run = {"collective": "all_reduce", "ranks": 16, "nodes": 2, "max_size_bytes": 17179869184}
    run |= {"busbw_at_max_size_gbps": 320.5, "peak_busbw_gbps": 330.0, "rows": 20}
    facts = {"nics_per_node": 8, "gbps_per_nic": 400, "gpus_per_node": 8, "fabric": "infiniband"}
    row = _compare_collective_run(facts, {"filename": "x.txt", "summary": {}}, run)
    assert "busbw in GB/s at 16 GiB" in str(row["detail"]) and "17179869184" not in str(row["detail"])
