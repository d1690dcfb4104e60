"""Runs made with NCCL_P2P_DISABLE, NCCL_SHM_DISABLE, NCCL_IB_DISABLE or NCCL_NET_GDR_LEVEL=0 (debug settings
that route traffic off NVLink/RDMA) are read as such and not judged as measurements of the cluster (second
review, item 8)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from benchmarks.compare import compare
from benchmarks.parsers import parse
from benchmarks.parsers.nccl.reading import read_disabled_transports

from .test_compare import H100_IB, _nccl_item, _one

REAL = Path(__file__).parent / "fixtures" / "real" / "nccl-tests"
CX8_FILE = "cx8-2node-16gpu-case1-banner-p2p-shm-disabled-spcx-unalign-graphics-device-inplace-dip-4m.txt"
GPU = "NVIDIA H100 80GB HBM3"
CX8 = {**H100_IB, "gpu": "B300", "gbps_per_nic": 800}


def _item(data: bytes, filename: str) -> dict[str, Any]:
    return {**parse(data, filename=filename).as_dict(), "filename": filename, "nodes": None, "gpus": None}


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("-x NCCL_SHM_DISABLE=1 -x UCX_TLS=ib -x NCCL_P2P_DISABLE=1 all_reduce_perf -g 1", ("p2p", "shm")),
        ("host:1:1 [0] NCCL INFO NCCL_P2P_DISABLE set by environment to 1.", ("p2p",)),
        ("NCCL_IB_DISABLE=1 NCCL_NET_GDR_LEVEL=LOC ./build/all_gather_perf", ("ib", "gdr")),
        ("export NCCL_NET_GDR_LEVEL=0", ("gdr",)),
        ("NCCL_P2P_DISABLE=0 ./build/all_reduce_perf -g 2", None),
        ("NCCL_NET_GDR_LEVEL=PHB NCCL_SHM_DISABLE=0", None),
        ("NCCL_P2P_LEVEL=NVL NCCL_ALGO=Ring", None),
    ],
)
def test_reads_the_variables(line: str, expected: tuple[str, ...] | None) -> None:
    assert read_disabled_transports(line) == expected


def test_real_fixture_is_cannot_measure() -> None:
    item = _item((REAL / CX8_FILE).read_bytes(), CX8_FILE)
    runs = item["summary"]["runs"]
    assert runs and all(run["disabled_transports"] == ["p2p", "shm"] for run in runs)
    assert any("disabled p2p, shm" in warning for warning in item["warnings"])
    verdicts = compare(CX8, item)
    assert verdicts and {v["verdict"] for v in verdicts} == {"cannot-measure"}
    assert all("disabled p2p, shm" in str(v["detail"]) for v in verdicts)


def _small_log(env: str) -> bytes:
    rows = [
        f"{size:12d} {size // 4:12d} float sum -1 {size / 1e5:8.1f} {size / 1e5 / 1e3:7.2f} 300.00 0 "
        f"{size / 1e5:8.1f} {size / 1e5 / 1e3:7.2f} 300.00 0"
        for size in (1 << 28, 1 << 29, 1 << 30)
    ]
    lines = [
        f"$ {env} ./build/all_reduce_perf -b 256M -e 1G -f 2 -g 8",
        "# nThread 1 nGpus 8 minBytes 268435456 maxBytes 1073741824 step: 2(factor) warmup iters: 5 "
        "iters: 20 agg iters: 1 validation: 1 graph: 0",
        "#",
        *(
            f"#  Rank {r} Group  0 Pid 1000 on node-00 device  {r} [0x{r:02x}] NVIDIA H100 80GB HBM3"
            for r in range(8)
        ),
        "#",
        "#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   "
        "algbw   busbw  #wrong",
        "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)             (us)  "
        "(GB/s)  (GB/s)",
        *rows,
        "# Out of bounds values : 0 OK",
        "# Avg bus bandwidth    : 300",
    ]
    return ("\n".join(lines) + "\n").encode()


def test_p2p_disable_zero_is_judged() -> None:
    item = _item(_small_log("NCCL_P2P_DISABLE=0"), "small.log")
    (run,) = item["summary"]["runs"]
    assert "disabled_transports" not in run
    assert not any("disabled" in warning for warning in item["warnings"])
    (verdict,) = compare(H100_IB, item)
    assert verdict["verdict"] in ("pass", "warn", "fail")


def test_p2p_disable_one_is_cannot_measure_on_one_node() -> None:
    item = _item(_small_log("NCCL_P2P_DISABLE=1"), "small.log")
    (run,) = item["summary"]["runs"]
    assert run["disabled_transports"] == ["p2p"]
    (verdict,) = compare(H100_IB, item)
    assert verdict["verdict"] == "cannot-measure"
    assert "disabled p2p" in str(verdict["detail"])


def test_inter_node_row_is_cannot_measure() -> None:
    row = _one(H100_IB, _nccl_item(collective="all_gather", disabled_transports=["ib", "gdr"]))
    assert row["verdict"] == "cannot-measure"
    assert "disabled ib, gdr" in str(row["detail"])
    assert _one(H100_IB, _nccl_item(collective="all_gather"))["verdict"] in ("pass", "warn", "fail")
