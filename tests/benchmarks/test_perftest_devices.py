"""One perftest run per NIC in one file (`for d in mlx5_0 ... mlx5_7; do ib_write_bw -d $d ...; done`).

Before, runs of the same test were one table whatever their device: the rows of a 70 Gb/s NIC and a 140 Gb/s
NIC gave a median of 105 Gb/s under the first NIC's name, so a slow NIC passed under its own name with the
fast one's help. Now each device's rows are its own run and the slowest is judged; a server's table (it
printed `Waiting for client to connect`) mirrors its client's and is not another NIC's."""

from __future__ import annotations

import re

import pytest

from benchmarks.compare import compare
from benchmarks.parsers import parse

from ._shared import FIXTURES

PERFTEST = FIXTURES / "real" / "perftest"
RUN = PERFTEST / "gke-a3u-h200-write-bw-a-use-cuda-dmabuf-roce-gid3-140gbps.txt"
SERVER_AND_CLIENT = (
    PERFTEST / "vultr-mi355-pollara-ionic-write-bw-b-q2-a-gbits-server-and-client-prompts-779gbps.txt"
)
FACTS = {"fabric": "roce", "nics_per_node": 8, "gbps_per_nic": 200}


def _on(device: str, scale: float) -> str:
    """The run on `device`, its bandwidth figures times `scale`."""
    out = []
    for line in RUN.read_text().rstrip("\n").split("\n"):
        tokens = line.split()
        if len(tokens) == 5 and all(re.fullmatch(r"[\d.]+", t) for t in tokens):
            peak, average = (f"{float(t) * scale:.2f}" for t in tokens[2:4])
            line = f" {tokens[0]}  {tokens[1]}  {peak}  {average}  {tokens[4]}"
        out.append(line)
    return "\n".join(out).replace("mlx5_3", device) + "\n"


@pytest.mark.parametrize("slow_first", [True, False])
def test_a_slow_nic_beside_a_fast_one_is_judged_on_its_own_rows(slow_first):
    runs = [_on("mlx5_4", 0.5), _on("mlx5_3", 1.0)]
    result = parse("".join(runs if slow_first else runs[::-1]))
    fast = parse(_on("mlx5_3", 1.0)).summary["average_gbps"]
    s = result.summary
    assert s["device"] == "mlx5_4"
    assert s["average_gbps"] == pytest.approx(fast / 2, rel=0.01)
    assert {d["device"]: d["average_gbps"] for d in s["per_device"]}["mlx5_3"] == pytest.approx(
        fast, rel=0.01
    )
    assert any("on 2 devices" in str(w) and "mlx5_4, is the one judged" in str(w) for w in result.warnings)
    row = next(r for r in compare(FACTS, result.as_dict()) if "bandwidth" in str(r["claim"]))
    assert row["verdict"] == "fail" and row["measured"] == pytest.approx(fast / 2, rel=0.01)


def test_the_same_nic_again_and_a_server_with_its_client_stay_one_run():
    again = parse(_on("mlx5_3", 1.0) * 2)
    assert "per_device" not in again.summary
    both = parse(SERVER_AND_CLIENT.read_text())
    assert "per_device" not in both.summary and both.summary["device"] == "ionic_0"
    assert any("duplicate rows from interleaved server/client output" in str(w) for w in both.warnings)
