"""Several machines' reports in one file without their names (`for h in gpu01 gpu02; do ssh $h nvidia-smi;
done > smi.txt`): no prompt or label says where one machine's report ends, but what the reports show does.

Before, a node's claim was judged on the machines together: a table of 7 GPUs followed by another machine's
table of 8 passed "8 GPUs per node" on 15 GPUs, and of two `-q` reports the last one's `Attached GPUs` stood
for the file, so a machine short of a GPU listed first passed. Now each machine is named `#1`, `#2`, ... in
the order listed and the weakest is judged, as for files whose hosts are named."""

from __future__ import annotations

import re
import time

import pytest

from benchmarks.compare import compare
from benchmarks.parsers import parse

from ._shared import FIXTURES

FACTS = {"gpu": "H100-SXM-80GB", "gpus_per_node": 8, "intra_node": "nvswitch"}
TABLE = FIXTURES / "real" / "nvidia-smi"


def _table() -> str:
    return (TABLE / "gpud-h100-8gpu-550.90-table.txt").read_text().rstrip("\n") + "\n"


def _without_gpu(table: str, index: int) -> str:
    """The default table with GPU `index`'s three rows taken out."""
    lines = table.split("\n")
    at = next(i for i, line in enumerate(lines) if re.match(rf"\|\s+{index}\s+NVIDIA", line))
    return "\n".join(lines[:at] + lines[at + 3 :])


def test_a_machine_short_of_a_gpu_listed_first_fails_the_node_claim():
    whole = _table()
    short = _without_gpu(whole, 7)
    result = parse(short + whole)
    assert result.summary["gpus_per_host"] == {"#1": 7, "#2": 8}
    assert any("tables of 2 machines (#1, #2" in str(w) for w in result.warnings)
    row = compare(FACTS, result.as_dict())[0]
    assert (row["verdict"], row["measured"]) == ("fail", 7)
    assert "host #1" in str(row["detail"])


def test_a_gpu_gone_from_a_later_table_is_the_same_machines_and_lost():
    whole = _table()
    result = parse(whole + _without_gpu(whole, 7))
    assert "gpus_per_host" not in result.summary
    assert len(result.summary["gpus_missing_later"]) == 1


def _q_report_of_another_machine(report: str, drop_last: bool) -> str:
    """The same `nvidia-smi -q` report from another machine: other UUIDs and serial numbers, its last GPU
    block left out (and `Attached GPUs` one fewer) when `drop_last`."""
    other = re.sub(r"GPU-([0-9a-f]{8})", lambda m: "GPU-" + m.group(1)[::-1], report)
    if not drop_last:
        return other
    lines = other.split("\n")
    last = max(i for i, line in enumerate(lines) if re.match(r"^GPU [0-9A-F]{8}:", line))
    attached = re.compile(r"^(Attached GPUs\s+: )(\d+)")
    lines = [attached.sub(lambda m: m.group(1) + str(int(m.group(2)) - 1), line) for line in lines[:last]]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("short_first", [True, False])
def test_q_reports_of_two_machines_are_told_apart_by_their_gpu_uuids(short_first):
    report = (TABLE / "gpud-535.161-q-full.txt").read_text().rstrip("\n") + "\n"
    short = _q_report_of_another_machine(report, drop_last=True)
    text = short + report if short_first else report + short
    result = parse(text)
    weakest = "#1" if short_first else "#2"
    assert result.summary["gpus_per_host"][weakest] == 7
    assert any("reports of 2 machines without their names" in str(w) for w in result.warnings)
    row = compare(FACTS, result.as_dict())[0]
    assert (row["verdict"], row["measured"]) == ("fail", 7)
    assert f"host {weakest}" in str(row["detail"])


def test_the_same_machines_q_report_again_is_one_machine():
    report = (TABLE / "gpud-535.161-q-full.txt").read_text().rstrip("\n") + "\n"
    result = parse(report + report)
    assert "gpus_per_host" not in result.summary
    assert not any("machines" in str(w) for w in result.warnings)
    row = compare(FACTS, result.as_dict())[0]
    assert (row["verdict"], row["measured"]) == ("pass", 8)
    two = parse(report + _q_report_of_another_machine(report, drop_last=False))
    assert two.summary["gpus_per_host"] == {"#1": 8, "#2": 8}


TOPO = FIXTURES / "real" / "nvidia-smi-topo" / "a100-sxm4-80gb-8gpu-8nic-roce-pxb-pairs.txt"
TOPO_FACTS = {"gpu": "A100-SXM-80GB", "gpus_per_node": 8, "intra_node": "nvswitch"}


def _off_nvlink(matrix: str) -> str:
    """The same matrix with GPU0 and GPU1 on SYS instead of NVLink: the first NV# cell of each one's row is
    the other's column (GPU0's row: X, NV#; GPU1's: NV#, X)."""
    out = []
    for line in matrix.split("\n"):
        tokens = line.split()
        if tokens[:1] in (["GPU0"], ["GPU1"]) and tokens[1] != "GPU1":  # a row, not the header
            line = line.replace(next(t for t in tokens[1:3] if t.startswith("NV")), "SYS ", 1)
        out.append(line)
    return "\n".join(out)


@pytest.mark.parametrize("bad_at", [0, 1, 2])
def test_topo_matrices_without_host_names_are_each_read_and_the_weakest_judged(bad_at):
    good = TOPO.read_text().rstrip("\n") + "\n"
    bad = _off_nvlink(good)
    assert bad != good
    matrices = [good, good, good]
    matrices[bad_at] = bad
    result = parse("".join(matrices))
    assert result.summary["host"] == f"#{bad_at + 1}"
    assert result.summary["full_nvlink_mesh"] is False
    assert len(result.summary["per_host"]) == 2  # the two different matrices
    assert any("3 `topo -m` matrices without a host named for each" in str(w) for w in result.warnings)
    row = next(r for r in compare(TOPO_FACTS, result.as_dict()) if r["claim"] == "full NVLink mesh")
    assert row["verdict"] == "fail" and f"host #{bad_at + 1}" in str(row["detail"])


def test_the_same_topo_matrix_again_is_read_once():
    good = TOPO.read_text().rstrip("\n") + "\n"
    result = parse(good * 50)
    assert "per_host" not in result.summary and result.summary["full_nvlink_mesh"] is True
    assert any("49 more `topo -m` matrix(es)" in str(w) for w in result.warnings)


def _listing(gpus: int, machine: int, host: str | None = None) -> str:
    """`nvidia-smi -L` of one machine, its UUIDs its own; under a prompt naming `host` when given."""
    prompt = f"[root@{host} ~]# nvidia-smi -L\n" if host else ""
    return prompt + "".join(
        f"GPU {i}: NVIDIA H100 80GB HBM3 (UUID: GPU-{machine:08x}-0000-0000-0000-{i:012x})\n"
        for i in range(gpus)
    )


@pytest.mark.parametrize("short_first", [True, False])
def test_l_listings_of_two_machines_are_told_apart_by_their_uuids(short_first):
    listings = [_listing(7, 1), _listing(8, 2)] if short_first else [_listing(8, 1), _listing(7, 2)]
    result = parse("".join(listings))
    weakest = "#1" if short_first else "#2"
    assert result.summary["gpus_per_host"][weakest] == 7
    assert any("reports of 2 machines without their names" in str(w) for w in result.warnings)
    row = compare(FACTS, result.as_dict())[0]
    assert (row["verdict"], row["measured"]) == ("fail", 7)


def test_l_listings_again_or_under_named_hosts_are_not_unnamed_machines():
    again = parse(_listing(8, 1) + _listing(8, 1))
    assert "gpus_per_host" not in again.summary and again.summary["gpus"] == 8
    named = parse(_listing(7, 1, "gpu01") + _listing(8, 2, "gpu02"))
    assert named.summary["gpus_per_host"] == {"gpu01": 7, "gpu02": 8}
    assert not any("without their names" in str(w) for w in named.warnings)


def _csv(gpus: int, machine: int) -> str:
    """`nvidia-smi --query-gpu=index,name,pci.bus_id,uuid --format=csv` of one machine: the same bus ids as
    any machine of its kind, its own UUIDs."""
    uuid = "GPU-{:08x}-0000-0000-0000-{:012x}"
    rows = [
        f"{i}, NVIDIA H100 80GB HBM3, 00000000:{0x18 + 0x10 * i:02X}:00.0, {uuid.format(machine, i)}"
        for i in range(gpus)
    ]
    return "index, name, pci.bus_id, uuid\n" + "\n".join(rows) + "\n"


@pytest.mark.parametrize("short_first", [True, False])
def test_query_csv_of_two_machines_is_told_apart_by_uuid_not_by_bus_id(short_first):
    listings = [_csv(7, 1), _csv(8, 2)] if short_first else [_csv(8, 1), _csv(7, 2)]
    result = parse("".join(listings))
    assert result.summary["gpus"] == 15
    weakest = "#1" if short_first else "#2"
    assert result.summary["gpus_per_host"][weakest] == 7
    row = compare(FACTS, result.as_dict())[0]
    assert (row["verdict"], row["measured"]) == ("fail", 7)
    again = parse(_csv(8, 1) + _csv(8, 1))
    assert "gpus_per_host" not in again.summary and again.summary["gpus"] == 8


def test_q_reports_of_two_machines_count_their_gpus_together_as_tables_do():
    report = (TABLE / "gpud-535.161-q-full.txt").read_text().rstrip("\n") + "\n"
    result = parse(report + _q_report_of_another_machine(report, drop_last=True))
    assert (result.summary["gpus"], result.summary["attached_gpus"]) == (15, 15)
    assert len(result.summary["lines"]) == 2


def test_l_listings_of_other_gpus_of_one_machine_are_that_machines():
    # `nvidia-smi -L -i 3`, then `-i 1`: other UUIDs at other indices are the same machine's other GPUs.
    uuid = "GPU-00000001-0000-0000-0000-{:012x}"
    text = "".join(f"GPU {i}: NVIDIA H100 80GB HBM3 (UUID: {uuid.format(i)})\n" for i in (3, 1))
    result = parse(text)
    assert "gpus_per_host" not in result.summary and result.summary["gpus"] == 2


def test_q_reports_of_other_gpus_of_one_machine_are_that_machines():
    # `nvidia-smi -q -i 0`, then `-q -i 1`: each report one GPU block, other UUIDs at other bus ids.
    report = (TABLE / "gpud-535.161-q-full.txt").read_text().rstrip("\n") + "\n"
    lines = report.split("\n")
    starts = [i for i, line in enumerate(lines) if re.match(r"^GPU [0-9A-F]{8}:", line)]
    head = lines[: starts[0]]
    one = "\n".join(head + lines[starts[0] : starts[1]]) + "\n"
    two = "\n".join(head + lines[starts[1] : starts[2]]) + "\n"
    result = parse(one + two)
    assert "gpus_per_host" not in result.summary
    assert not any("without their names" in str(w) for w in result.warnings)


def test_query_csv_without_headers_of_one_gpu_machines_is_told_apart_at_index_0():
    # `ssh $h nvidia-smi --query-gpu=index,uuid --format=csv,noheader` on GH200-like nodes: every row index 0.
    rows = "".join(f"0, GPU-{m:08x}-0000-0000-0000-000000000000\n" for m in (1, 2))
    result = parse("index, uuid\n" + rows)
    assert result.summary["gpus_per_host"] == {"#1": 1, "#2": 1}


def test_thousands_of_machines_listings_are_read_in_linear_time_and_a_late_repeat_is_its_machine():
    # Each listing looked up by UUID in one dict and matched on places among the latest machines only: a
    # scan of every earlier machine per listing took over 300 s of CPU for 30,000 machines (18 MB).
    machines = 6000
    text = "".join(_listing(8, m) for m in range(1, machines + 1)) + _listing(8, 1)
    start = time.process_time()
    result = parse(text)
    cpu = time.process_time() - start
    assert len(result.summary["gpus_per_host"]) == machines  # machine 1's listing again is machine #1's
    assert cpu < 5.0, f"{cpu:.1f} s of CPU for {len(text) // 1000} KB"
