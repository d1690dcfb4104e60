"""Fourth set of real logs, part A (fixtures/real/, origins in fixtures/real/SOURCES.md, "Fourth set"):
GPUs counted from Rank lines that print the bus number only, and an NVLink status followed by the
capabilities of the same GPU.

As in test_real_logs.py, every expected value was read off the log by hand (the rank list, the busbw
column, the `Link N:` lines), not copied from a parser run. The synthetic logs below check that ranks
really sharing one GPU are still told.
"""

from __future__ import annotations

from typing import Any

import pytest

from benchmarks.parsers import parse

from ._shared import FIXTURES
from .test_real_logs import _parse, _warned, approx

# ---- nccl-tests: the bus number alone on VMs ------------------------------------------------------

# file -> (collective, ranks, nodes, gpus/node, peak, @max out-of-place, @max in-place, Avg bus bandwidth,
# rows, largest size)
BUS_NUMBER_ONLY: dict[str, tuple[Any, ...]] = {
    # `device 0..7 [0x00] NVIDIA H200` on test-h200-deb, Pids 23690-23697; one 8 GiB row 476.96 / 476.98.
    "nccl-tests/azure-ndv5-h200-8gpu-vm-every-rank-bus-0x00-one-8gib-row.txt": (
        "all_reduce",
        8,
        1,
        8,
        476.98,
        476.96,
        476.98,
        476.967,
        1,
        8589934592,
    ),
    # `device 0..3 [0x00] Tesla K80`, Pids 195-198; 32 MiB-2 GiB, 2.56 / 2.56 at 2147483648; no collective
    # named: busbw/algbw 2.53/1.69 = 1.5 = 2(n-1)/n for 4 ranks.
    "nccl-tests/azureml-4x-k80-vm-2020-every-rank-bus-0x00-error-column.txt": (
        "all_reduce",
        4,
        1,
        4,
        2.56,
        2.56,
        2.56,
        2.54225,
        7,
        2147483648,
    ),
}


@pytest.mark.parametrize("rel", sorted(BUS_NUMBER_ONLY))
def test_vm_ranks_on_bus_0x00_with_distinct_devices_are_distinct_gpus(rel: str) -> None:
    coll, ranks, nodes, per_node, peak, at_max, at_max_ip, avg, rows, max_size = BUS_NUMBER_ONLY[rel]
    result = _parse(rel)
    assert result["kind"] == "nccl-tests" and result["errors"] == []
    [run] = result["summary"]["runs"]
    assert (run["collective"], run["ranks"], run["nodes"], run["gpus_per_node"], run["failed"]) == (
        coll,
        ranks,
        nodes,
        per_node,
        False,
    )
    assert run["peak_busbw_gbps"] == approx(peak)
    assert run["busbw_at_max_size_oop_gbps"] == approx(at_max)
    assert run["busbw_at_max_size_ip_gbps"] == approx(at_max_ip)
    assert run["avg_busbw_reported"] == approx(avg)
    assert (run["rows"], run["max_size_bytes"]) == (rows, max_size)
    assert not _warned(result, "ranks ran on")


def test_azure_h200_run_reads_its_host_gpu_and_nccl_version() -> None:
    [run] = _parse("nccl-tests/azure-ndv5-h200-8gpu-vm-every-rank-bus-0x00-one-8gib-row.txt")["summary"][
        "runs"
    ]
    assert (run["hosts"], run["gpu_names"]) == (["test-h200-deb"], ["NVIDIA H200"])
    assert run["nccl_version"] == "2.19.3+cuda12.2"  # printed after the rank list


def test_one_process_with_eight_gpus_on_bus_0x00_is_eight_gpus() -> None:
    """The superbench A100 log (uploads/nccl-allreduce-1node.txt, a copy of the shared corpus'
    superbench-a100-allreduce-1node-c0.txt): one Pid, `-g 8`, devices 0-7, every one `[0x00]`."""
    result = parse((FIXTURES / "uploads" / "nccl-allreduce-1node.txt").read_bytes()).as_dict()
    [run] = result["summary"]["runs"]
    assert (run["ranks"], run["nodes"], run["gpus_per_node"]) == (8, 1, 8)
    assert not _warned(result, "ranks ran on")


COLUMNS = "size count type redop time algbw busbw error time algbw busbw error".split()
ROWS = [
    "33554432 8388608 float sum 19902 1.69 2.53 2e-07 19898 1.69 2.53 2e-07",
    "67108864 16777216 float sum 39770 1.69 2.53 2e-07 39763 1.69 2.53 2e-07",
]


def _log_of(devices_and_buses: list[tuple[int, str]]) -> str:
    """A 2019-2025 nccl-tests log (`#   Rank N Pid P on host device D [bus] name`, `error` column) of one
    host whose ranks print these devices and bus ids."""
    rank_lines = [
        f"#   Rank {rank:2d} Pid {195 + rank:6d} on vmhost device {device:2d} [{bus}] Tesla K80"
        for rank, (device, bus) in enumerate(devices_and_buses)
    ]
    log = [
        "# nThread 1 nGpus 1 minBytes 33554432 maxBytes 67108864 step: 2(factor) warmup iters: 5 iters: 20",
        "#",
        "# Using devices",
        *rank_lines,
        "#",
        "#" + "".join(f"{c:>10}" for c in COLUMNS),
        *("".join(f"{v:>10}" for v in row.split()) for row in ROWS),
        "# Out of bounds values : 0 OK",
        "# Avg bus bandwidth    : 2.53",
    ]
    return "\n".join(log) + "\n"


@pytest.mark.parametrize(
    ("devices_and_buses", "gpus"),
    [
        # four processes on one GPU: the same device index and bus number on one host
        ([(0, "0x00")] * 4, 1),
        # two GPUs of a VM, two ranks each
        ([(0, "0x00"), (0, "0x00"), (1, "0x00"), (1, "0x00")], 2),
        # the full id names the GPU whatever index each process gives it (CUDA_VISIBLE_DEVICES)
        ([(0, "0000:19:00"), (1, "0000:19:00"), (0, "0000:3b:00"), (1, "0000:3b:00")], 2),
    ],
)
def test_ranks_that_share_a_gpu_are_still_told(devices_and_buses: list[tuple[int, str]], gpus: int) -> None:
    result = parse(_log_of(devices_and_buses)).as_dict()
    [run] = result["summary"]["runs"]
    assert (run["ranks"], run["nodes"], run["gpus_per_node"]) == (4, 1, gpus)
    assert _warned(result, f"4 ranks ran on {gpus} GPU" + ("s" if gpus != 1 else ""))


def test_bare_metal_bus_numbers_with_device_0_in_every_process_are_distinct_gpus() -> None:
    result = parse(_log_of([(0, "0x19"), (0, "0x3b"), (0, "0x5d"), (0, "0x9b")])).as_dict()
    [run] = result["summary"]["runs"]
    assert (run["ranks"], run["gpus_per_node"]) == (4, 4)
    assert not _warned(result, "ranks ran on")


# ---- nvidia-smi nvlink: status, then the capabilities of the same GPU ---------------------------------

NVLINK_REPEATED = "nvidia-smi-nvlink/h100-gpu0-status-then-capabilities-repeated-header.txt"


def test_nvlink_status_then_capabilities_is_one_gpu_with_18_links() -> None:
    result = _parse(NVLINK_REPEATED)
    s = result["summary"]
    assert result["kind"] == "nvidia-smi-nvlink" and result["errors"] == []
    # `GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-5a10e6e5-...)` on lines 3 and 22, the same UUID
    assert (s["gpus"], s["gpu_models"], s["lines"]) == (1, ["NVIDIA H100 80GB HBM3"], [3])
    # `Link 0: 26.562 GB/s` to `Link 17: 26.562 GB/s` (lines 4-21)
    assert (s["active_links_per_gpu"], s["max_active_links_per_gpu"]) == (18, 18)
    assert (s["link_gbps"], s["min_link_gbps"], s["link_speeds"]) == (26.562, 26.562, {"26.562": 18})
    # the 108 `Link n, ... supported: true` capability lines are neither links nor inactive links
    assert (s["inactive_links"], s["no_nvlink_gpus"]) == (0, 0)
    [gpu] = s["per_gpu"]
    assert (gpu["index"], gpu["active_links"], gpu["gbytes_per_s_total"]) == (0, 18, approx(18 * 26.562))
    # `-i 0` on both commands: the other GPUs are not shown, and that is all that is said
    assert _warned(result, "only one GPU shown")
    assert len(result["warnings"]) == 1


NVLINK_TWICE = """\
GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-00000000-0000-0000-0000-000000000000)
\t Link 0: 26.562 GB/s
\t Link 1: <inactive>
GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-00000000-0000-0000-0000-000000000000)
\t Link 0: 26.562 GB/s
\t Link 1: 26.562 GB/s
GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-11111111-1111-1111-1111-111111111111)
\t Link 0: 26.562 GB/s
\t Link 1: 26.562 GB/s
"""


def test_nvlink_status_printed_twice_counts_each_link_once() -> None:
    """`nvlink -s -i 0` run twice, then GPU 0 of another node (another UUID): two GPUs of 2 links; the
    second reading of GPU 0's link 1 replaces the first."""
    s = parse(NVLINK_TWICE).summary
    assert s["gpus"] == 2
    assert [(g["index"], g["active_links"], g["inactive_links"]) for g in s["per_gpu"]] == [
        (0, 2, 0),
        (0, 2, 0),
    ]
    assert s["inactive_links"] == 0
