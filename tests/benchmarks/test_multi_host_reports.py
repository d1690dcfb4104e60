"""Reports of several hosts run through pdsh, clush or srun (`pdsh -w gpu[01-16] ibstat`, `srun -N 16 -l
lspci`): every line carries its host's name or task number and the hosts' lines interleave as they arrive.

Before, none of these files was recognised (the prefix hides every tool's signature); now each is read host
by host (benchmarks/parsers/hosts.py) and each node's claim is judged on the weakest host: a node short of a
GPU, a NIC or an NVLink is not hidden behind the others' listings."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest

from benchmarks.compare import compare
from benchmarks.parsers import MAX_REPORT_LINES, parse, parse_file
from benchmarks.parsers.hosts import DSHBAK_RULE_RE, by_host, dshbak_sections, host_label
from benchmarks.parsers.text import Text, decode, line_host
from benchmarks.parsers.topo import HOST_FIELDS as TOPO_FIELDS

from ._shared import FIXTURES

REAL = FIXTURES / "real"
HOSTS = ("gpu-node-01", "gpu-node-02")
PORT_KINDS = ("ibstat", "ibstatus", "ibv_devinfo", "ibdev2netdev", "rdma-link")
KINDS = (
    *PORT_KINDS,
    "nvidia-smi",
    "nvidia-smi-topo",
    "nvidia-smi-nvlink",
    "lspci",
    "dcgmi-nvlink",
    "dcgmi-diag",
)
# Keys that hold where a thing was read (line numbers, hosts), not what was read.
WHERE = {"line", "lines", "host", "hosts", "header_line", "elided_lines", "first_line", "missing_from_line"}


def _prefixed(lines_by_host: dict[str, list[str]], interleave: bool, label: str = "{}: ") -> str:
    """The hosts' lines as pdsh prints them: each after its host's label, one host after another or
    interleaved line by line."""
    if not interleave:
        return "".join(label.format(h) + line + "\n" for h, lines in lines_by_host.items() for line in lines)
    out, longest = [], max(len(lines) for lines in lines_by_host.values())
    for i in range(longest):
        out += [label.format(h) + lines[i] + "\n" for h, lines in lines_by_host.items() if i < len(lines)]
    return "".join(out)


def _what(value):
    if isinstance(value, dict):
        return {k: _what(v) for k, v in value.items() if k not in WHERE}
    if isinstance(value, list):
        return [_what(v) for v in value]
    return value


def _fixtures(kind: str) -> list[Path]:
    """The kind's real fixtures read as that kind whose lines name no host of their own (a prompt or a dshbak
    header of theirs would name the host inside each copy) and hold no tmux pane border (a border in the
    middle of a line)."""
    out = []
    for path in sorted((REAL / kind).glob("*.txt")):
        text = path.read_text(encoding="utf-8", errors="replace")
        named = any(line_host(line) or DSHBAK_RULE_RE.match(line) for line in text.splitlines())
        if "\u2502" in text or named:
            continue
        if parse(text).kind == kind:
            out.append(path)
    return out


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("interleave", [False, True], ids=["one-host-after-another", "interleaved"])
def test_each_fixture_behind_two_hosts_labels_reads_as_its_kind_host_by_host(kind, interleave):
    files = _fixtures(kind)
    assert files, kind
    for path in files:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
        plain = parse("\n".join(lines) + "\n")
        result = parse(_prefixed(dict.fromkeys(HOSTS, lines), interleave))
        assert result.kind == kind, (path.name, result.errors)
        assert any("read host by host" in str(w) and "gpu-node-02" in str(w) for w in result.warnings)
        if kind in PORT_KINDS and all(p.get("device") for p in plain.summary["ports"]):
            # every port of each host, as the plain file lists them, under its host (a grep of state lines
            # without a device or port header, dgx-spark-gb10-...-no-hca-id, is one port however many hosts)
            assert result.summary["hosts"] == list(HOSTS), path.name
            for host in HOSTS:
                mine = [p for p in result.summary["ports"] if p.get("host") == host]
                assert _what(mine) == _what(plain.summary["ports"]), (path.name, host)
        elif kind == "nvidia-smi-topo":
            # each host's matrix read alone: the same topology as the plain file's, per host and shown
            per_host = result.summary.pop("per_host")
            assert [h["host"] for h in per_host] == list(HOSTS), path.name
            assert all(
                h == {"host": h["host"], **{k: plain.summary[k] for k in TOPO_FIELDS}} for h in per_host
            )
            assert _what(result.summary) == _what(plain.summary), path.name
            assert any("`topo -m` matrices of 2 hosts" in str(w) for w in result.warnings), path.name


@pytest.mark.parametrize("kind", PORT_KINDS + ("lspci",))
def test_srun_task_labels_are_hosts_too(kind):
    path = _fixtures(kind)[0]
    lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    result = parse(_prefixed({"0": lines, "1": lines}, True, label="{}: "))
    assert result.kind == kind
    assert any("read task by task (task-0, task-1" in str(w) for w in result.warnings)
    if kind in PORT_KINDS:
        assert result.summary["hosts"] == ["task-0", "task-1"]


def _table_without_gpu(lines: list[str], index: int) -> list[str]:
    """An nvidia-smi table with GPU `index`'s rows taken out (its row, the next line, the rule after it)."""
    out, skip = [], 0
    for line in lines:
        if skip:
            skip -= 1
            continue
        if re.match(rf"\|\s+{index}\s+NVIDIA", line):
            skip = 3
            continue
        out.append(line)
    return out


def test_a_host_short_of_a_gpu_fails_gpus_per_node_whatever_the_others_show():
    lines = (REAL / "nvidia-smi" / "gpud-h100-8gpu-550.90-table.txt").read_text().splitlines()
    facts = {"gpu": "H100-SXM-80GB", "gpus_per_node": 8, "intra_node": "nvswitch"}
    for order in (HOSTS, HOSTS[::-1]):
        by = {order[0]: lines, order[1]: lines}
        by["gpu-node-02"] = _table_without_gpu(lines, 7)
        result = parse(_prefixed(by, interleave=True))
        assert result.summary["gpus_per_host"] == {h: (7 if h == "gpu-node-02" else 8) for h in by}
        row = compare(facts, result.as_dict())[0]
        assert (row["verdict"], row["measured"], row["expected"]) == ("fail", 7, 8)
        assert "gpu-node-02" in str(row["detail"])
    # every host whole: passes, naming the host it judged
    whole = parse(_prefixed(dict.fromkeys(HOSTS, lines), interleave=False))
    row = compare(facts, whole.as_dict())[0]
    assert (row["verdict"], row["measured"]) == ("pass", 8)


def test_a_host_whose_gpu_reads_err_counts_it_out_on_that_host():
    lines = (REAL / "nvidia-smi" / "gpud-h100-8gpu-550.90-table.txt").read_text().splitlines()
    name = "NVIDIA H100 80GB HBM3"
    broken = [line.replace(name, "ERR!", 1) if "|   3  " in line else line for line in lines]
    assert broken != lines
    result = parse(_prefixed({"gpu-node-01": lines, "gpu-node-02": broken}, interleave=False))
    assert [g["host"] for g in result.summary["gpus_in_error"]] == ["gpu-node-02"]
    row = compare({"gpus_per_node": 8}, result.as_dict())[0]
    assert (row["verdict"], row["measured"]) == ("fail", 7)


@pytest.mark.parametrize("uuids", [True, False], ids=["with-uuids", "indices-only"])
def test_an_inactive_nvlink_on_one_host_is_not_hidden_by_another_hosts_gpu_of_the_same_index(uuids):
    lines = (REAL / "nvidia-smi-nvlink" / "gpud-azure-a100-sxm4-80gb-8gpu-12-links.txt").read_text()
    lines = lines.splitlines()
    if not uuids:
        lines = [re.sub(r" \(UUID: [^)]*\)", "", line) for line in lines]
    bad = [line.replace("GPU-5", "GPU-9") for line in lines]
    at = next(i for i, line in enumerate(bad) if "Link 3:" in line)
    bad[at] = bad[at].split("Link 3:")[0] + "Link 3: <inactive>"
    facts = {"gpu": "A100-SXM-80GB", "gpus_per_node": 8, "intra_node": "nvswitch"}
    for by in ({"gpu-node-01": lines, "gpu-node-02": bad}, {"gpu-node-02": bad, "gpu-node-01": lines}):
        result = parse(_prefixed(by, interleave=True))
        assert (result.summary["gpus"], result.summary["inactive_links"]) == (16, 1)
        row = compare(facts, result.as_dict())[0]
        assert (row["claim"], row["verdict"], row["measured"]) == ("active NVLinks per GPU", "fail", 11)
        assert "host gpu-node-02, the weakest of 2 hosts" in str(row["detail"])
        assert {g["host"] for g in result.summary["per_gpu"]} == {"gpu-node-01", "gpu-node-02"}
    # one host's listing: no host on its GPUs
    assert "host" not in parse("\n".join(bad)).summary["per_gpu"][0]


def test_a_host_short_of_a_nic_fails_the_nic_count_naming_it():
    lines = (REAL / "lspci" / "gpud-azure-ndv4-a100-lspci-nn-cx6-vf-domains.txt").read_text().splitlines()
    short = [line for line in lines if "0104:00:00.0" not in line]
    facts = {"nics_per_node": 8, "gbps_per_nic": 200, "fabric": "infiniband"}
    plain = compare(facts, parse("\n".join(lines)).as_dict())[0]
    assert plain["verdict"] == "pass"
    for by in ({"gpu-node-01": lines, "gpu-node-02": short}, {"gpu-node-02": short, "gpu-node-01": lines}):
        result = parse(_prefixed(by, interleave=True))
        assert result.summary["hosts"] == list(by)
        row = compare(facts, result.as_dict())[0]
        assert (row["verdict"], row["measured"]) == ("fail", 7)
        assert "gpu-node-02" in str(row["detail"])
    whole = compare(facts, parse(_prefixed(dict.fromkeys(HOSTS, lines), interleave=False)).as_dict())[0]
    assert (whole["verdict"], whole["measured"]) == ("pass", 8)


def _ibstat_with_a_port_down() -> tuple[list[str], list[str]]:
    """An ibstat listing of 8 active InfiniBand ports (and an Ethernet one), and the same with the first
    InfiniBand port down."""
    lines = (REAL / "ibstat" / "gpud-a100-ibstat-47-all-active.txt").read_text().splitlines()
    layer = next(i for i, line in enumerate(lines) if "Link layer: InfiniBand" in line)
    at = max(i for i, line in enumerate(lines[:layer]) if "State: Active" in line)
    down = list(lines)
    down[at] = down[at].replace("Active", "Down")
    return lines, down


def test_a_host_with_a_port_down_fails_the_port_count_whatever_the_other_shows():
    lines, down = _ibstat_with_a_port_down()
    ports = parse("\n".join(lines)).summary["active_infiniband_ports"]
    facts = {"nics_per_node": ports, "fabric": "infiniband"}
    result = parse(_prefixed({"gpu-node-01": lines, "gpu-node-02": down}, interleave=True))
    rows = compare(facts, result.as_dict())
    assert rows[0]["verdict"] == "fail"
    assert "gpu-node-02" in str(rows[0]["detail"])


def test_pdsh_lines_of_its_own_come_first_and_a_host_it_could_not_reach_is_said():
    lines = (REAL / "ibstat" / "gpud-a100-ibstat-47-all-active.txt").read_text().splitlines()
    text = "pdsh@login01: gpu-node-03: ssh exited with exit code 255\n" + _prefixed(
        dict.fromkeys(HOSTS, lines), interleave=True
    )
    result = parse(text)
    assert result.kind == "ibstat"
    assert result.summary["hosts"] == list(HOSTS)
    assert any("gpu-node-03" in str(w) and "exit code 255" in str(w) for w in result.warnings)


def test_streamed_and_in_memory_give_the_same_answer():
    lines = (REAL / "ibstat" / "gpud-a100-ibstat-47-all-active.txt").read_text().splitlines()
    data = _prefixed(dict.fromkeys(HOSTS, lines), interleave=True).encode()
    assert parse_file(lambda: io.BytesIO(data)).as_dict() == parse(data).as_dict()


def test_regrouping_holds_at_most_the_report_lines_and_says_what_it_skipped():
    lines = [f"{HOSTS[i % 2]}: line {i}" for i in range(50)]
    text = by_host(decode("\n".join(lines)), limit=10)
    assert text is not None
    held = [line for line in text.lines if not line.startswith("host@")]
    assert len(held) == 10
    assert any("40 more lines" in str(n) for n in text.notes)
    assert MAX_REPORT_LINES == 100_000


def test_what_is_not_regrouped():
    # one host's name on every line is taken off as a wrapper (text.sniff_wrappers), not regrouped
    one = decode("".join(f"gpu-node-01: CA 'mlx5_{i}'\n" for i in range(5)))
    assert one.lines[0] == "CA 'mlx5_0'" and by_host(one, 100) is None
    # words tools print at a line's start are not host names
    assert host_label(["NVRM: a", "Port: b", "NVRM: c", "Port: d"]) is None
    # too few lines carry a label
    assert host_label(["gpu1: a", "gpu2: b", "plain", "plain", "plain", "plain"]) is None
    assert by_host(Text(lines=["CA 'mlx5_0'", "\tCA type: MT4123"]), 100) is None


def test_training_and_benchmark_logs_of_several_hosts_are_read_as_before():
    """Their readers take one rank's lines from such files, and their order is time: never regrouped."""
    for folder in ("deepspeed", "nccl-tests"):
        path = sorted((REAL / folder).glob("*.txt"))[0]
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
        result = parse(_prefixed(dict.fromkeys(HOSTS, lines), interleave=True))
        assert not any("read host by host" in str(w) for w in result.warnings), path.name


def test_a_p2p_matrix_is_not_a_topology_however_often_it_is_printed():
    text = REAL / "nvidia-smi-topo" / "ml-engineering-h100-8gpu-topo-p2p-r-ok-matrix-not-topo-m.txt"
    text = text.read_text()
    assert parse(text).kind is None
    assert parse(text + text).kind is None
    assert parse(_prefixed(dict.fromkeys(HOSTS, text.splitlines()), interleave=False)).kind is None
    topo = (REAL / "nvidia-smi-topo" / "a100-sxm4-80gb-8gpu-8nic-roce-pxb-pairs.txt").read_text()
    assert parse(topo + topo).kind == "nvidia-smi-topo"


RULE = "-" * 16


@pytest.mark.parametrize("kind", KINDS)
def test_dshbak_and_clush_b_headers_name_the_hosts_and_keep_the_line_numbers(kind):
    """`pdsh ... | dshbak` and `clush -b`: each host's listing under a rule, its name, a rule."""
    for path in _fixtures(kind):
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
        plain = parse("\n".join(lines) + "\n")
        text = "\n".join([RULE, "gpu-node-01", RULE, *lines, RULE[:-1], "gpu-node-02 (1)", RULE[:-1], *lines])
        result = parse(text + "\n")
        assert result.kind == kind, (path.name, result.errors)
        assert any("dshbak or clush -b" in str(w) for w in result.warnings), path.name
        if kind in PORT_KINDS and all(p.get("device") for p in plain.summary["ports"]):
            assert result.summary["hosts"] == list(HOSTS), path.name
            first = [p for p in result.summary["ports"] if p["host"] == "gpu-node-01"]
            # the same lines as in the file: three header lines before the listing
            assert [p["line"] for p in first] == [p["line"] + 3 for p in plain.summary["ports"]], path.name


def test_a_dshbak_c_host_set_is_read_once_under_its_first_host():
    lines, down = _ibstat_with_a_port_down()
    text = "\n".join([RULE, "gpu-node-[01,03-04]", RULE, *lines, RULE, "gpu-node-02", RULE, *down])
    result = parse(text)
    assert result.summary["hosts"] == ["gpu-node-01", "gpu-node-02"]
    assert any("gpu-node-[01,03-04]" in str(w) and "read once" in str(w) for w in result.warnings)
    row = compare({"nics_per_node": 8, "fabric": "infiniband"}, result.as_dict())[0]
    assert (row["verdict"], row["measured"]) == ("fail", 7)
    assert "gpu-node-02" in str(row["detail"])
    # one header is one host: nothing to split
    assert dshbak_sections(decode("\n".join([RULE, "gpu-node-01", RULE, *lines])), 1000) is None


def test_the_upload_page_shows_each_hosts_gpus_after_the_files_count():
    from types import SimpleNamespace

    from benchmarks.views import _summary_rows

    lines = (REAL / "nvidia-smi" / "gpud-h100-8gpu-550.90-table.txt").read_text().splitlines()
    result = parse(_prefixed({"gpu-node-01": lines, "gpu-node-02": _table_without_gpu(lines, 7)}, True))
    upload = SimpleNamespace(summary=result.as_dict()["summary"], warning_messages=[])
    scalars, _runs = _summary_rows(upload)
    labels = [str(label) for label, _value in scalars]
    at = labels.index("GPUs per host")
    assert labels[at - 1] == "GPUs" and scalars[at - 1][1] == 15
    assert str(scalars[at][1]) == "gpu-node-01: 8, gpu-node-02: 7"


def _topo_with_a_pair_off_nvlink(lines: list[str]) -> list[str]:
    """The matrix with GPU0's cell towards GPU3 (its row's fourth cell) on SYS instead of NVLink."""
    out = []
    for line in lines:
        tokens = line.split()
        if tokens[:2] == ["GPU0", "X"]:
            line = line.replace(tokens[4], "SYS", 1) if tokens[4].startswith("NV") else line
        out.append(line)
    return out


def test_each_hosts_topology_is_read_and_the_weakest_judged_naming_it():
    lines = (
        (REAL / "nvidia-smi-topo" / "a100-sxm4-80gb-8gpu-8nic-roce-pxb-pairs.txt").read_text().splitlines()
    )
    bad = _topo_with_a_pair_off_nvlink(lines)
    assert parse("\n".join(bad)).summary["full_nvlink_mesh"] is False
    facts = {"gpu": "A100-SXM-80GB", "gpus_per_node": 8, "intra_node": "nvswitch", "nics_per_node": 8}
    for by in ({"gpu-node-01": lines, "gpu-node-02": bad}, {"gpu-node-02": bad, "gpu-node-01": lines}):
        for text in (
            _prefixed(by, interleave=True),
            "".join(f"ssh {h} nvidia-smi topo -m\n" + "\n".join(ls) + "\n" for h, ls in by.items()),
        ):
            result = parse(text)
            s = result.summary
            assert (s["host"], s["full_nvlink_mesh"]) == ("gpu-node-02", False)
            assert {h["host"]: h["full_nvlink_mesh"] for h in s["per_host"]} == {
                "gpu-node-01": True,
                "gpu-node-02": False,
            }
            rows = {row["claim"]: row for row in compare(facts, result.as_dict())}
            mesh = rows["full NVLink mesh"]
            assert mesh["verdict"] == "fail" and "host gpu-node-02" in str(mesh["detail"])
            assert (
                mesh["messages"]["detail"]["params"]["p0"]["msgid"]
                == "host %(host)s, the weakest of %(count)s hosts"
            )


def test_a_dcgmi_diag_failure_on_one_host_fails_the_file_naming_the_host():
    healthy = (REAL / "dcgmi-diag" / "dcgm400-docs-r3-4gpu-lowercase-names-per-gpu-indented.txt").read_text()
    failing = (REAL / "dcgmi-diag" / "h100-8x-dcgm338-r3-cuinit-fail-wrapped.txt").read_text()
    assert parse(healthy).summary["passed"] and parse(failing).summary["failed_tests"] == ["GPU Memory"]
    for interleave in (False, True):
        by = {"gpu-node-01": healthy.splitlines(), "gpu-node-02": failing.splitlines()}
        result = parse(_prefixed(by, interleave))
        assert result.summary["failed_tests"] == ["GPU Memory (gpu-node-02)"]
        assert {t["host"] for t in result.summary["tests"]} == {"gpu-node-01", "gpu-node-02"}
        row = compare({}, result.as_dict())[0]
        assert row["verdict"] == "fail" and "gpu-node-02" in str(row["measured"])
    # one host's report: no host in the names
    assert "host" not in parse(failing).summary["tests"][0]


@pytest.mark.parametrize("kind", KINDS)
def test_ansible_ad_hoc_headers_name_the_hosts_and_keep_the_line_numbers(kind):
    """`ansible gpu -m shell -a "ibstat"`: each host's output after `host | CHANGED | rc=0 >>`."""
    for path in _fixtures(kind):
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
        plain = parse("\n".join(lines) + "\n")
        text = "\n".join(
            ["gpu-node-01 | CHANGED | rc=0 >>", *lines, "gpu-node-02 | SUCCESS | rc=0 >>", *lines]
        )
        result = parse(text + "\n")
        assert result.kind == kind, (path.name, result.errors)
        assert any("under Ansible headers" in str(w) for w in result.warnings), path.name
        if kind in PORT_KINDS and all(p.get("device") for p in plain.summary["ports"]):
            first = [p for p in result.summary["ports"] if p["host"] == "gpu-node-01"]
            assert [p["line"] for p in first] == [p["line"] + 1 for p in plain.summary["ports"]], path.name


def test_a_host_ansible_could_not_reach_is_named_and_the_others_judged():
    lines, down = _ibstat_with_a_port_down()
    unreachable = [
        "gpu-node-03 | UNREACHABLE! => {",
        '    "changed": false,',
        '    "msg": "Failed to connect to the host via ssh: Connection timed out",',
        '    "unreachable": true',
        "}",
    ]
    text = "\n".join(["gpu-node-01 | CHANGED | rc=0 >>", *lines, "gpu-node-02 | CHANGED | rc=0 >>", *down])
    result = parse(text + "\n" + "\n".join(unreachable) + "\n")
    assert result.summary["hosts"] == list(HOSTS)
    assert any("unreachable on gpu-node-03" in str(w) for w in result.warnings)
    row = compare({"nics_per_node": 8, "fabric": "infiniband"}, result.as_dict())[0]
    assert (row["verdict"], row["measured"]) == ("fail", 7) and "gpu-node-02" in str(row["detail"])
    # a failed command's host is named the same way
    failed = "\n".join(["gpu-node-01 | CHANGED | rc=0 >>", *lines, "gpu-node-02 | FAILED | rc=127 >>"])
    failed += "\n/bin/sh: ibstat: command not found\n"
    assert any("failed or the host unreachable on gpu-node-02" in str(w) for w in parse(failed).warnings)


def test_a_task_srun_could_not_run_is_named():
    lines = (REAL / "ibstat" / "gpud-a100-ibstat-47-all-active.txt").read_text().splitlines()
    text = _prefixed({"0": lines, "1": lines}, interleave=True, label="{}: ")
    result = parse(text + "srun: error: gpu-node-03: task 2: Exited with exit code 1\n")
    assert result.summary["hosts"] == ["task-0", "task-1"]
    assert any(
        "gpu-node-03" in str(w) and "task 2: Exited with exit code 1" in str(w) for w in result.warnings
    )
