"""Review findings (fixes H): rocm-smi output pasted in the middle of an rccl-tests table is read across, not
taken for the start of another test; a headerless `nvidia-smi topo -m` matrix shows a minimum GPU count. The
inputs are the review's probes, inline (the table's rows written by `_rows`).
"""

from __future__ import annotations

from typing import Any

from benchmarks.compare import compare
from benchmarks.parsers import parse

from .test_compare import H100_IB

MI300X_ROCE = {
    "gpu": "MI300X-192GB",
    "gpus_per_node": 8,
    "intra_node": "infinity-fabric",
    "fabric": "roce",
    "nics_per_node": 8,
    "gbps_per_nic": 400,
}

RCCL_HEADER = "\n".join(
    [
        "# nThread 1 nGpus 8 minBytes 8 maxBytes 134217728 step: 2(factor) warmup iters: 5 iters: 20 "
        "agg iters: 1 validation: 1 graph: 0",
        "#",
        "rccl-tests: Version :+",
        "# Using devices",
        *(
            f"#   Rank  {rank} Pid  56417 on c42f4555f685 device  {rank} [000{rank + 2}:00:00.0] "
            "AMD Instinct MI300X VF"
            for rank in range(8)
        ),
        "#",
        "#                                                              out-of-place                       "
        "in-place",
    ]
)
COLUMNS = "\n".join(
    [
        "#       size         count      type   redop    root     time   algbw   busbw #wrong     time "
        "  algbw   busbw #wrong",
        "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us) "
        " (GB/s)  (GB/s)       ",
    ]
)
ROCM_SMI = "\n".join(
    [
        "$ rocm-smi",
        "",
        "",
        "============================================ ROCm System Management Interface "
        "============================================",
        "====================================================== Concise Info "
        "======================================================",
        "Device  Node  IDs              Temp        Power     Partitions          SCLK     MCLK    Fan  "
        "Perf              PwrCap  VRAM%  GPU%",
        "              (DID,     GUID)  (Junction)  (Socket)  (Mem, Compute, ID)",
        "=" * 122,
        "0       2     0x74b5,   11219  58.0°C      305.0W    NPS1, SPX, 0        2075Mhz  1300Mhz  0%   "
        "perf_determinism  750.0W  92%    100%",
        "1       3     0x74b5,   60534  55.0°C      298.0W    NPS1, SPX, 0        2080Mhz  1300Mhz  0%   "
        "perf_determinism  750.0W  92%    100%",
        "=" * 122,
        "================================================== End of ROCm SMI Log "
        "===================================================",
    ]
)
FOOTER = "\n".join(
    [
        "# Errors with asterisks indicate errors that have exceeded the maximum threshold.",
        "# Out of bounds values : 0 OK",
        "# Avg bus bandwidth    : 54.8575 ",
    ]
)


def _rows(first_power: int, last_power: int) -> str:
    """Rows of an 8-GPU all_reduce from 2**first_power to 2**last_power B; time and busbw grow with size."""
    lines = []
    for power in range(first_power, last_power + 1):
        size = 2**power
        busbw, time = round(293.07 * size / 2**27, 2), 50 + 750 * size / 2**27
        block = f"{time:>8.2f} {busbw / 1.75:>7.2f} {busbw:>7.2f}      0"
        lines.append(f"{size:>12} {size // 4:>13}     float     sum      -1 {block} {block}")
    return "\n".join(lines)


def _runs(text: str) -> list[dict[str, Any]]:
    result = parse(text).as_dict()
    assert result["kind"] == "rccl-tests"
    runs: list[dict[str, Any]] = result["summary"]["runs"]
    return runs


def _verdicts(text: str, facts: dict[str, Any]) -> dict[str, dict[str, Any]]:
    result = parse(text).as_dict()
    item = {"kind": result["kind"], "filename": "probe.txt", "summary": result["summary"]}
    return {str(row["claim"]): row for row in compare(facts, item)}


def _rccl(*parts: str) -> str:
    return "\n".join([RCCL_HEADER, COLUMNS, *parts]) + "\n"


def test_rocm_smi_pasted_mid_table_is_read_across_as_one_run() -> None:
    text = _rccl(_rows(3, 16), ROCM_SMI, _rows(17, 27), FOOTER)
    result = parse(text).as_dict()
    runs = result["summary"]["runs"]
    assert len(runs) == 1
    assert runs[0]["max_size_bytes"] == 134217728
    assert runs[0]["rows"] == 25
    assert any("another tool's output (`ROCm System Management Interface`)" in w for w in result["warnings"])


def test_rocm_smi_pasted_mid_table_no_longer_fails_the_intra_node_bandwidth() -> None:
    text = _rccl(_rows(3, 16), ROCM_SMI, _rows(17, 27), FOOTER)
    intra = [row for claim, row in _verdicts(text, MI300X_ROCE).items() if claim.startswith("intra-node")]
    assert [(row["verdict"], row["measured"]) for row in intra] == [("pass", 293.07)]


def test_rows_that_start_the_sizes_again_after_the_banner_are_another_run() -> None:
    assert len(_runs(_rccl(_rows(3, 16), ROCM_SMI, _rows(3, 27), FOOTER))) == 2


def test_a_new_nthread_header_after_the_banner_still_starts_a_run() -> None:
    text = _rccl(_rows(3, 16), ROCM_SMI, RCCL_HEADER, COLUMNS, _rows(17, 27), FOOTER)
    assert [run["max_size_bytes"] for run in _runs(text)] == [65536, 134217728]


def test_a_new_column_header_after_the_banner_still_starts_a_run() -> None:
    text = _rccl(_rows(3, 16), ROCM_SMI, COLUMNS, _rows(17, 27), FOOTER)
    assert len(_runs(text)) == 2


def test_a_rank_listing_after_the_banner_still_starts_a_run() -> None:
    ranks = "\n".join(line for line in RCCL_HEADER.splitlines() if "Rank" in line)
    text = _rccl(_rows(3, 16), ROCM_SMI, ranks, _rows(17, 27), FOOTER)
    assert len(_runs(text)) == 2


def test_a_collective_test_starting_line_after_the_banner_still_starts_a_run() -> None:
    text = _rccl(_rows(3, 16), ROCM_SMI, "# Collective test starting: all_reduce_perf", _rows(17, 27), FOOTER)
    assert len(_runs(text)) == 2


def test_a_wrapper_separator_naming_nodes_or_a_collective_still_starts_a_run() -> None:
    for label in ("==== 2 nodes ====", "==== all_gather ===="):
        assert len(_runs(_rccl(_rows(3, 16), label, _rows(17, 27), FOOTER))) == 2, label


# probes/topo-headerless-pcie-4gpu-2nic.txt: 4 GPU rows, PIX/SYS only, 2 NIC cells per row, no header.
TOPO_HEADERLESS_4GPU = "\n".join(
    [
        "GPU0\t X \tPIX\tSYS\tSYS\tPIX\tSYS\t0-31\t0\t\tN/A",
        "GPU1\tPIX\t X \tSYS\tSYS\tPIX\tSYS\t0-31\t0\t\tN/A",
        "GPU2\tSYS\tSYS\t X \tPIX\tSYS\tPIX\t32-63\t1\t\tN/A",
        "GPU3\tSYS\tSYS\tPIX\t X \tSYS\tPIX\t32-63\t1\t\tN/A",
    ]
)
# probes/topo-headerless-bridge-pairs-rows-cut.txt: NVLink bridge pairs, only the GPU0/GPU1 rows shown.
TOPO_HEADERLESS_ROWS_CUT = "\n".join(
    [
        "GPU0\t X \tNV4\tSYS\tSYS\tPIX\tSYS\t0-31\t0\t\tN/A",
        "GPU1\tNV4\t X \tSYS\tSYS\tPIX\tSYS\t0-31\t0\t\tN/A",
    ]
)


def _topo_header(gpus: int) -> str:
    return "\t" + "\t".join(f"GPU{i}" for i in range(gpus)) + "\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID"


def _nvswitch_topo(gpus: int, header: bool) -> str:
    rows = [
        f"GPU{i}\t" + "\t".join(" X " if i == j else "NV18" for j in range(gpus)) + "\t0-55\t0\t\tN/A"
        for i in range(gpus)
    ]
    return "\n".join([_topo_header(gpus)] * header + rows) + "\n"


def test_a_headerless_topology_with_fewer_gpus_than_claimed_cannot_measure_them() -> None:
    for text, shown in ((TOPO_HEADERLESS_4GPU, 4), (TOPO_HEADERLESS_ROWS_CUT, 2)):
        result = parse(text).as_dict()
        assert result["summary"]["header_missing"] is True
        gpus = _verdicts(text, H100_IB)["GPUs per node"]
        assert gpus["verdict"] == "cannot-measure"
        assert gpus["measured"] == shown
        assert "no column header" in str(gpus["detail"])


def test_a_headerless_topology_with_as_many_gpus_as_claimed_passes() -> None:
    text = _nvswitch_topo(8, header=False)
    assert parse(text).as_dict()["summary"]["header_missing"] is True
    assert _verdicts(text, H100_IB)["GPUs per node"]["verdict"] == "pass"


def test_a_topology_with_its_header_still_fails_fewer_gpus() -> None:
    text = _nvswitch_topo(4, header=True)
    assert parse(text).as_dict()["summary"]["header_missing"] is False
    assert _verdicts(text, H100_IB)["GPUs per node"]["verdict"] == "fail"
