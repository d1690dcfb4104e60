"""Reports cut down by grep: `ibv_devinfo | grep state`, `pdsh -w gpu[01-16] "ibv_devinfo | grep -e hca_id -e
state -e link_layer"`, `ibstat | grep -e "CA '" -e State -e Rate`, `nvidia-smi nvlink -s | grep Link`: the
fields come without their `port:`, `Port n:` or `GPU n:` lines.

Before, every field printed again overwrote the one port or GPU read so far: eight state lines with one
`PORT_DOWN` were one port, as active as the last line said, and two GPUs' links with one inactive were one
GPU with every link active; ibstat's fields without a `Port n:` line were no port at all. Now a field
printed again starts the next port or GPU (a block prints each field once), under the device line before it
when there is one."""

from __future__ import annotations

import re

from benchmarks.compare import compare
from benchmarks.parsers import parse

from ._shared import FIXTURES

FACTS = {"nics_per_node": 8, "fabric": "infiniband", "gbps_per_nic": 400}


def _excerpt(down: int | None = None, host: str = "", devices: bool = False, layer: bool = False) -> list:
    """One host's eight ports as grep leaves them, port `down` not active."""
    lines = []
    for i in range(8):
        if devices:
            lines.append(f"{host}hca_id:\tmlx5_{i}")
        lines.append(f"{host}\t\t\tstate:\t\t\t{'PORT_DOWN (1)' if i == down else 'PORT_ACTIVE (4)'}")
        if layer:
            lines.append(f"{host}\t\t\tlink_layer:\t\tInfiniBand")
    return lines


def test_state_lines_alone_are_a_port_each_and_the_one_down_is_counted():
    result = parse("\n".join(_excerpt(down=3)) + "\n")
    assert result.kind == "ibv_devinfo"
    states = [p["state"] for p in result.summary["ports"]]
    assert states == ["Active"] * 3 + ["Down"] + ["Active"] * 4
    assert result.summary["inactive_ports"] == 1
    assert any("7 ports' fields without their port lines" in str(w) for w in result.warnings)
    row = compare(FACTS, result.as_dict())[0]
    assert "not active" in str(row["detail"])


def test_device_lines_name_each_port_read_without_its_port_line():
    result = parse("\n".join(_excerpt(down=5, devices=True, layer=True)) + "\n")
    ports = result.summary["ports"]
    assert [p["device"] for p in ports] == [f"mlx5_{i}" for i in range(8)]
    assert [p["port"] for p in ports] == [None] * 8
    assert result.summary["active_infiniband_ports"] == 7
    # Fields before any device line are the only ones said to be cut at the top.
    assert not any("before any hca_id" in str(w) for w in result.warnings)
    assert any("8 ports' fields without their port lines" in str(w) for w in result.warnings)


def test_a_host_with_a_port_down_in_a_pdsh_excerpt_is_judged_and_named():
    good = _excerpt(host="gpu01: ", devices=True, layer=True)
    bad = _excerpt(down=2, host="gpu02: ", devices=True, layer=True)
    for lines in (good + bad, bad + good):
        result = parse("\n".join(lines) + "\n")
        assert result.summary["active_infiniband_ports"] == 15
        row = compare(FACTS, result.as_dict())[0]
        assert (row["verdict"], row["measured"]) == ("fail", 7)
        assert "gpu02" in str(row["detail"]) and "mlx5_2" in str(row["detail"])
    other = _excerpt(host="gpu02: ", devices=True, layer=True)
    whole = compare(FACTS, parse("\n".join(good + other) + "\n").as_dict())[0]
    assert (whole["verdict"], whole["measured"]) == ("pass", 8)
    # One host's excerpt twice (before and after a fix) is its ports listed again, the last kept.
    again = parse(
        "\n".join(_excerpt(down=2, devices=True, layer=True) + _excerpt(devices=True, layer=True)) + "\n"
    )
    assert (again.summary["total_ports"], again.summary["inactive_ports"]) == (8, 0)
    assert any("8 port listings repeat an earlier one" in str(w) for w in again.warnings)


def test_a_whole_listing_still_reads_one_port_per_port_line():
    # A field printed again inside a port block that has its port line would be a second port; a real
    # block prints each field once, so a whole listing reads exactly its port lines.
    lines = []
    for i in range(2):
        lines += [f"hca_id:\tmlx5_{i}", "\ttransport:\t\t\tInfiniBand (0)", "\t\tport:\t1"]
        lines += ["\t\t\tstate:\t\t\tPORT_ACTIVE (4)", "\t\t\tlink_layer:\t\tInfiniBand"]
    result = parse("\n".join(lines) + "\n")
    assert [(p["device"], p["port"]) for p in result.summary["ports"]] == [("mlx5_0", 1), ("mlx5_1", 1)]
    assert not any("port line" in str(w) for w in result.warnings)


def test_the_hosts_warning_says_when_it_names_only_some_of_them():
    hosts = [f"gpu{n:02d}" for n in range(1, 21)]
    lines = [line for h in hosts for line in _excerpt(host=f"{h}: ", devices=True, layer=True)]
    result = parse("\n".join(lines) + "\n")
    warning = next(str(w) for w in result.warnings if str(w).startswith("ports of 20 hosts"))
    assert "gpu16" in warning and "gpu17" not in warning and "…" in warning
    few = parse("\n".join(line for h in hosts[:3] for line in _excerpt(host=f"{h}: ", devices=True)) + "\n")
    assert not any("…" in str(w) for w in few.warnings if str(w).startswith("ports of"))


def test_ibstat_fields_without_port_lines_are_a_port_each_under_their_ca():
    lines = []
    for i in range(4):
        state = "Down" if i == 1 else "Active"
        lines += [f"CA 'mlx5_{i}'", "\tCA type: MT4129", f"\t\tState: {state}", "\t\tRate: 400"]
    result = parse("\n".join(lines) + "\n")
    assert result.kind == "ibstat"
    ports = result.summary["ports"]
    assert [(p["device"], p["state"], p["rate_gbps"]) for p in ports] == [
        ("mlx5_0", "Active", 400.0),
        ("mlx5_1", "Down", 400.0),
        ("mlx5_2", "Active", 400.0),
        ("mlx5_3", "Active", 400.0),
    ]
    assert result.summary["inactive_ports"] == 1
    assert any("4 ports' fields without their port lines" in str(w) for w in result.warnings)
    assert "mlx5_1/? Down" in str(compare(FACTS, result.as_dict())[0]["detail"])


def _links(down: tuple[int, int] | None = None, gpus: int = 2, links: int = 4) -> list[str]:
    return [
        f"\t Link {k}: <inactive>" if (g, k) == down else f"\t Link {k}: 26.562 GB/s"
        for g in range(gpus)
        for k in range(links)
    ]


def test_nvlink_lines_without_gpu_headers_are_a_gpu_each_and_the_inactive_link_is_counted():
    result = parse("\n".join(_links(down=(1, 3), gpus=3)) + "\n")
    assert result.kind == "nvidia-smi-nvlink"
    assert (result.summary["gpus"], result.summary["inactive_links"]) == (3, 1)
    assert result.summary["active_links_per_gpu"] == 3
    assert any("3 GPUs' link lines without their `GPU n:` headers" in str(w) for w in result.warnings)
    assert not any("cut at the top" in str(w) for w in result.warnings)
    # A100 SXM: 12 NVLinks per GPU; the second GPU's twelfth is down.
    facts = {"gpu": "A100-SXM-80GB", "gpus_per_node": 8, "intra_node": "nvswitch"}
    row = compare(facts, parse("\n".join(_links(down=(1, 11), gpus=3, links=12)) + "\n").as_dict())[0]
    assert (row["verdict"], row["measured"]) == ("fail", 11)
    whole = compare(facts, parse("\n".join(_links(gpus=3, links=12)) + "\n").as_dict())[0]
    assert (whole["verdict"], whole["measured"]) == ("pass", 12)


def test_nvlink_lines_cut_at_the_top_are_still_one_gpu_before_the_first_header():
    lines = _links(gpus=1) + ["GPU 1: NVIDIA H100 80GB HBM3 (UUID: GPU-1)"] + _links(gpus=1)
    result = parse("\n".join(lines) + "\n")
    assert (result.summary["gpus"], result.summary["inactive_links"]) == (2, 0)
    assert any("cut at the top" in str(w) for w in result.warnings)


def test_a_dual_port_adapters_two_ports_under_one_device_line_are_two_ports():
    lines = ["hca_id:\tmlx4_0", "\t\t\tstate:\t\t\tPORT_ACTIVE (4)", "\t\t\tstate:\t\t\tPORT_DOWN (1)"]
    result = parse("\n".join(lines) + "\n")
    assert [(p["device"], p["state"]) for p in result.summary["ports"]] == [
        ("mlx4_0", "Active"),
        ("mlx4_0", "Down"),
    ]
    assert not any("repeat" in str(w) for w in result.warnings)


def _another_machine(text: str, guid: str, same_guids: bool = False) -> str:
    """The same listing from another machine: every node GUID changed (unless `same_guids`: the same machine's
    tool run again), the first InfiniBand port down."""
    if not same_guids:
        text = re.sub(rf"({guid}:\s*(?:0x)?)([0-9a-f:]+)", lambda m: m.group(1) + m.group(2)[::-1], text)
    down = {"State: Active": "State: Down", "PORT_ACTIVE (4)": "PORT_DOWN (1)"}
    blocks = re.split(r"(?=^\s*(?:Port \d+:|port:\s*\d+)\s*$)", text, flags=re.M)
    at = next(i for i, block in enumerate(blocks) if re.search(r"(?i)link.layer:\s*InfiniBand", block) and i)
    blocks[at] = re.sub("|".join(re.escape(k) for k in down), lambda m: down[m.group(0)], blocks[at], count=1)
    return "".join(blocks)


def test_listings_of_two_machines_without_names_are_told_apart_by_their_node_guids():
    for name, guid in (
        ("ibstat/gpud-a100-ibstat-47-all-active.txt", "Node GUID"),
        ("ibv_devinfo/connectx3-mlx4-2port-ib-two-subnet-managers-prompt.txt", "node_guid"),
    ):
        one = (FIXTURES / "real" / name).read_text().rstrip("\n") + "\n"
        plain = parse(one)
        ib = plain.summary["active_infiniband_ports"]
        facts = {"nics_per_node": ib, "fabric": "infiniband"}
        other = _another_machine(one, guid)
        assert other != one
        for text, weakest in ((one + other, "#2"), (other + one, "#1")):
            result = parse(text)
            assert result.summary["hosts"] == ["#1", "#2"]
            assert result.summary["total_ports"] == 2 * plain.summary["total_ports"]
            assert any("another node GUID" in str(w) for w in result.warnings)
            row = compare(facts, result.as_dict())[0]
            assert (row["verdict"], row["measured"]) == ("fail", ib - 1), name
            assert f"host {weakest}" in str(row["detail"])
        # The same machine's listing again (the same GUIDs) is the tool run again: the last listing kept.
        again = parse(_another_machine(one, guid, same_guids=True) + one)
        assert "hosts" not in again.summary and again.summary["total_ports"] == plain.summary["total_ports"]
        assert again.summary["active_infiniband_ports"] == ib


def test_a_port_listed_again_in_another_state_is_named_with_both_states():
    # `ibdev2netdev` prints no GUID: another machine's listing and the tool run again look the same, so the
    # last listing counts, and the earlier state it replaced is said.
    first = "mlx5_0 port 1 ==> ib0 (Up)\nmlx5_1 port 1 ==> ib1 (Down)\n"
    again = "mlx5_0 port 1 ==> ib0 (Up)\nmlx5_1 port 1 ==> ib1 (Up)\n"
    result = parse(first + again)
    assert result.kind == "ibdev2netdev"
    warning = next(str(w) for w in result.warnings if "another state" in str(w))
    assert "mlx5_1/1 netdev Down at line 2, netdev Up at line 4" in warning
    assert not any("another state" in str(w) for w in parse(first + first).warnings)


def test_ibstatus_listings_of_two_machines_are_told_apart_by_their_port_gids():
    one = (
        FIXTURES / "real" / "ibstatus" / "deepep321-4-ports-ndr-400-tab-separated-all-active-T.txt"
    ).read_text()
    one = one.rstrip("\n") + "\n\n"
    # another machine: other port GIDs (its ports' GUIDs), its first port down
    other = re.sub(
        r"(default gid:\s*fe80:0000:0000:0000:)(\S+)", lambda m: m.group(1) + m.group(2)[::-1], one
    )
    other = other.replace("4: ACTIVE", "1: DOWN", 1)
    facts = {"nics_per_node": 4, "fabric": "infiniband"}
    for text, weakest in ((one + other, "#2"), (other + one, "#1")):
        result = parse(text)
        assert result.summary["hosts"] == ["#1", "#2"]
        row = compare(facts, result.as_dict())[0]
        assert (row["verdict"], row["measured"]) == ("fail", 3)
        assert f"host {weakest}" in str(row["detail"])
    again = parse(one.replace("4: ACTIVE", "1: DOWN", 1) + one)
    assert "hosts" not in again.summary and again.summary["active_infiniband_ports"] == 4
