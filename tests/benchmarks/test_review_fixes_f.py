"""Review fixes, part F: a later whole nvidia-smi table that lost a GPU, an nvlink listing elided inside every
GPU block, and the one host reader (text.line_host) that splits `ssh HOST ibstat` listings by host.

The inputs are synthetic (the review's probes, rebuilt here): they are not real logs, so they stay inline
rather than under fixtures/real/.
"""

from __future__ import annotations

from typing import Any

import pytest

from benchmarks.compare import compare
from benchmarks.parsers import parse
from benchmarks.parsers.text import line_host

from .test_real_logs import _warned

H100_IB = {
    "gpu": "H100-SXM-80GB", "gpus_per_node": 8, "intra_node": "nvswitch", "fabric": "infiniband",
    "nics_per_node": 8, "gbps_per_nic": 400,
}  # fmt: skip
BUS_IDS = ["19:00.0", "3B:00.0", "4C:00.0", "5D:00.0", "9B:00.0", "BB:00.0", "CB:00.0", "DB:00.0"]
BORDER = "+-----------------------------------------+------------------------+----------------------+"


def _parse_text(text: str) -> dict[str, Any]:
    return parse(text).as_dict()


def _verdicts(out: dict[str, Any], facts: dict[str, Any] = H100_IB) -> dict[str, dict[str, Any]]:
    item = {
        "kind": out["kind"],
        "filename": "probe.txt",
        "summary": out["summary"],
        "nodes": None,
        "gpus": None,
    }
    return {str(v["claim"]): v for v in compare(facts, item)}


def _table(bus_ids: list[str], processes: bool = True) -> str:
    """One `nvidia-smi` table of these GPUs (driver 560), with its Processes section or cut before it."""
    lines = [
        "+-----------------------------------------------------------------------------------------+",
        "| NVIDIA-SMI 560.35.03              Driver Version: 560.35.03      CUDA Version: 12.6     |",
        "|=========================================+========================+======================|",
    ]
    for index, bus_id in enumerate(bus_ids):
        lines += [
            f"|   {index}  NVIDIA H100 80GB HBM3          Off |   00000000:{bus_id} Off |           0 |",
            "| N/A   38C    P0             70W /  700W |       1MiB /  81559MiB |      0%      Default |",
            BORDER,
        ]
    if processes:
        lines += ["", "| Processes:                                                                   |", ""]
    return "\n".join(lines) + "\n"


def _watch(later: str, command: str = "nvidia-smi") -> str:
    return (
        f"Every 2.0s: {command}   node17: Fri Nov  8 02:11:26 2024\n\n"
        + _table(BUS_IDS)
        + (f"Every 2.0s: {command}   node17: Fri Nov  8 02:11:28 2024\n\n" + later)
    )


# ---- nvidia-smi: a later whole table without a GPU ------------------------------------------------------


def test_a_gpu_missing_from_a_later_whole_table_is_lost() -> None:
    out = _parse_text(_watch(_table(BUS_IDS[:7])))
    s = out["summary"]
    assert s["gpus"] == 8
    [missing] = s["gpus_missing_later"]
    # The first table's GPU 7 row is line 27; the second table's first row is line 38.
    assert missing == {"bus_id": "00000000:DB:00.0", "index": 7, "line": 27, "missing_from_line": 38}
    assert _warned(out, "00000000:DB:00.0 shown at line 27", "missing from the table at line 38", "lost")
    usable = _verdicts(out)["usable GPUs"]
    assert (usable["verdict"], usable["measured"], usable["lines"]) == ("fail", 1, [38])


def test_the_same_gpus_again_lose_none() -> None:
    out = _parse_text(_watch(_table(BUS_IDS)))
    assert out["summary"]["gpus"] == 8 and "gpus_missing_later" not in out["summary"]
    assert "usable GPUs" not in _verdicts(out)


@pytest.mark.parametrize(
    ("later", "command"),
    [
        (_table(BUS_IDS[:5], processes=False), "nvidia-smi"),  # cut short: no Processes section
        (_table(BUS_IDS[:5]).replace(BORDER + "\n\n", BORDER + "\n...\n\n", 1), "nvidia-smi"),  # elided
        (_table(BUS_IDS[:1]), "nvidia-smi -i 0"),  # the command selected one GPU
    ],
    ids=["cut-short", "elided", "selected-with-i"],
)
def test_a_later_table_that_is_not_whole_is_the_same_table_again(later: str, command: str) -> None:
    out = _parse_text(_watch(later, command))
    assert out["summary"]["gpus"] == 8
    assert "gpus_missing_later" not in out["summary"]
    assert _warned(out, "shown up to 2 times")


def test_a_gpu_missing_from_many_later_tables_is_listed_once() -> None:
    out = _parse_text(_watch(_table(BUS_IDS[:7]) * 5))
    assert [g["bus_id"] for g in out["summary"]["gpus_missing_later"]] == ["00000000:DB:00.0"]


# ---- nvidia-smi nvlink -s: elided inside every GPU block -----------------------------------------------


def _nvlink(links_shown: int, last_links: int | None = None) -> str:
    """`nvlink -s` of 8 H100s, each block cut by `...` after `links_shown` link lines; with `last_links`, GPUs
    0-6 whole (18 links, no elision) and GPU 7 cut after `last_links`."""
    out = []
    for gpu in range(8):
        cut = last_links is None or gpu == 7
        shown = (links_shown if last_links is None else last_links) if cut else 18
        out.append(f"GPU {gpu}: NVIDIA H100 80GB HBM3 (UUID: GPU-0000000{gpu}-aaaa-bbbb-cccc-dddddddddddd)")
        out += [f"\t Link {link}: 26.562 GB/s" for link in range(shown)]
        out += ["\t ..."] if cut else []
    return "\n".join(out) + "\n"


def test_every_gpu_block_elided_after_two_links_is_a_minimum_not_a_fail() -> None:
    out = _parse_text(_nvlink(2))
    s = out["summary"]
    assert out["kind"] == "nvidia-smi-nvlink"
    assert s["active_links_per_gpu"] is None and s["max_active_links_per_gpu"] is None
    assert s["active_links_per_gpu_at_least"] == 2
    assert all(p["listing_cut"] for p in s["per_gpu"])
    assert _warned(out, "each of the 8 GPUs is elided", "at least 2 active links per GPU")
    row = _verdicts(out)["active NVLinks per GPU"]
    assert (row["verdict"], row["measured"]) == ("cannot-measure", None)
    assert "at least 2 shown" in str(row["detail"])


def test_every_block_elided_after_the_claimed_links_passes_on_the_minimum() -> None:
    out = _parse_text(_nvlink(18))
    assert out["summary"]["active_links_per_gpu_at_least"] == 18
    row = _verdicts(out)["active NVLinks per GPU"]
    assert (row["verdict"], row["measured"]) == ("pass", 18)


def test_one_gpu_cut_while_the_others_are_whole_is_left_out_and_warned() -> None:
    out = _parse_text(_nvlink(0, last_links=16))
    s = out["summary"]
    assert s["active_links_per_gpu"] == 18 and "active_links_per_gpu_at_least" not in s
    assert [p["index"] for p in s["per_gpu"] if p.get("listing_cut")] == [7]
    verdicts = _verdicts(out)
    assert verdicts["active NVLinks per GPU"]["verdict"] == "pass"
    evidenced = verdicts["GPUs evidenced"]
    assert (evidenced["verdict"], evidenced["measured"]) == ("warn", 7)
    assert "elided link listing" in str(evidenced["detail"])


# ---- one host reader ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "host"),
    [
        ("[alice@login01 ~]$ ssh gpu-node-01 ibstat", "gpu-node-01"),
        ("[alice@login01 ~]$ ls", "login01"),
        ("ssh -t alice@gpu-node-02 ibv_devinfo -v", "gpu-node-02"),
        ("ssh gpu-node-02 sudo ibstatus", "gpu-node-02"),
        ("pdsh -w s114 ibdev2netdev", "s114"),
        ("srun -w s114 rdma link", "s114"),
        ("srun --nodelist=s114 lspci -d 15b3:", "s114"),
        ("user@login:~$ srun -w s116 /usr/bin/nvidia-smi", "s116"),
        ("2025/05/21 09:56:31 s114 nvidia-smi", "s114"),
        ("2025/05/21 09:56:31 sudo nvidia-smi", None),
        ("2025/05/21 09:56:31 watch ibstat", None),
        ("sudo ibstat", None),
        ("ssh gpu-node-01 hostname", None),
        ("        State: Active", None),
    ],
)
def test_a_line_names_its_host_by_prompt_or_by_a_command_run_on_it(line: str, host: str | None) -> None:
    assert line_host(line) == host


def _ibstat(down: int | None) -> str:
    """One host's ibstat: 8 ConnectX-7 ports at 400 Gb/s, port `down` Down."""
    out = []
    for n in range(8):
        state, phys = ("Down", "Polling") if n == down else ("Active", "LinkUp")
        out += [
            f"CA 'mlx5_{n}'", "        CA type: MT4129", "        Number of ports: 1", "        Port 1:",
            f"                State: {state}", f"                Physical state: {phys}",
            "                Rate: 400", "                Link layer: InfiniBand",
        ]  # fmt: skip
    return "\n".join(out) + "\n"


@pytest.mark.parametrize("bad_first", [True, False], ids=["bad-node-first", "bad-node-second"])
def test_ibstat_of_two_hosts_fetched_by_ssh_is_judged_on_the_weaker_host(bad_first: bool) -> None:
    hosts = [("gpu-node-01", 5), ("gpu-node-02", None)]
    if not bad_first:
        hosts.reverse()
    text = "".join(f"[alice@login01 ~]$ ssh {host} ibstat\n" + _ibstat(down) for host, down in hosts)
    out = _parse_text(text)
    s = out["summary"]
    assert s["hosts"] == [host for host, _ in hosts]
    assert s["total_ports"] == 16 and s["active_infiniband_ports"] == 15
    assert not _warned(out, "repeat an earlier one")
    row = next(
        v for v in compare(H100_IB, {"kind": out["kind"], "summary": s, "filename": "x"}) if v["measured"]
    )
    assert (row["verdict"], row["measured"]) == ("fail", 7)
    assert "gpu-node-01" in str(row["detail"])
