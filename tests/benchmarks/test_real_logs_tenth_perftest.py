"""The tenth set of real logs: perftest (fixtures/real/perftest/, origins in fixtures/real/SOURCES.md,
"Tenth set: perftest"). A file whose first test is `ib_atomic_bw` was judged on the atomic test, and an
`-a` sweep the author cut at 512 B was read as complete and failed a healthy 100G port.

As in test_real_logs.py, every expected value was read off the log by hand. MB/sec is 2^20 B/s in perftest:
x 1048576 x 8 / 1e9 = x 0.008388608 Gb/s.
"""

from __future__ import annotations

from typing import Any

from benchmarks.compare import compare
from benchmarks.parsers import parse

from .test_real_logs import REAL, _parse, _warned, approx

ATOMIC_FIRST = "perftest/connectx3-fdr-atomic-bw-atomic-lat-send-bw-a-send-lat-a-wrapped-prompts.txt"
CUT_512 = "perftest/roce-mlx5-write-bw-qp8-a-F-gbits-sweep-cut-at-512b-by-author.txt"
READ_LAT = "perftest/spiderpool-sriov-pod-rdma-link-then-read-lat-indented-libibverbs-warnings.txt"
IONIC_BIDIR = "perftest/vultr-mi355-pollara-ionic-write-bw-b-q2-a-gbits-server-and-client-prompts-779gbps.txt"

IB_56 = {"fabric": "infiniband", "gbps_per_nic": 56, "nics_per_node": 1}
ROCE_100 = {"fabric": "roce", "gbps_per_nic": 100, "nics_per_node": 1}
ROCE_400 = {"fabric": "roce", "gbps_per_nic": 400, "nics_per_node": 8}
MB = 0.008388608  # Gb/s per perftest MB/sec


def _lines(rel: str) -> list[str]:
    return (REAL / rel).read_text().splitlines(keepends=True)


def _parse_text(text: str) -> dict[str, Any]:
    return parse(text.encode()).as_dict()


def _verdicts(facts: dict[str, Any], result: dict[str, Any], rel: str = "x.txt") -> dict[str, dict[str, Any]]:
    item = dict(result, filename=rel)
    return {str(v["claim"]): v for v in compare(facts, item)}


def _bandwidth(facts: dict[str, Any], result: dict[str, Any]) -> dict[str, Any]:
    return _verdicts(facts, result)["NIC port bandwidth (Gb/s)"]


def _sweep_warned(result: dict[str, Any]) -> bool:
    return _warned(result, "without its closing dashed rule") or _warned(result, "`-a` runs every size")


# ---- P1: ib_atomic_bw first, then an ib_send_bw sweep to 8 MiB ---------------------------------------


def test_the_summary_of_an_atomic_first_file_is_its_send_bw_sweep() -> None:
    # Lines 51-89: `Send BW Test`, 23 rows 2 B .. 8388608 B (2^1 .. 2^23), MB/sec; line 89
    # ` 8388608 20000 3662.23 3661.76 0.000458`; best BW average 3663.52 at 2 MiB (line 87); best BW peak
    # 3664.67 (line 87); line 90 closes the table.
    r = _parse(ATOMIC_FIRST)
    assert r["kind"] == "perftest"
    s = r["summary"]
    assert (s["test"], s["banner"]) == ("ib_send_bw", "Send BW Test")
    assert s["rows"] == 23
    assert s["unit_reported"] == "MB/sec"
    assert s["average_gbps"] == approx(3661.76 * MB)  # 30.717
    assert s["peak_gbps"] == approx(3663.52 * MB)  # 30.732
    assert s["bw_peak_column_max_gbps"] == approx(3664.67 * MB)
    assert s["max_size_bytes"] == 8388608
    assert (s["first_line"], s["last_line"]) == (51, 89)
    assert (s["device"], s["link_layer"], s["mtu"], s["qps"]) == ("mlx4_0", "InfiniBand", 2048, 1)
    assert s["failed"] is False and s["bidirectional"] is False


def test_every_test_of_the_atomic_first_file_is_listed() -> None:
    # Line 21: ` 8 20000 18.79 18.67 2.446776` (atomic BW); line 44: atomic latency at 8 B, t_typical 2.34,
    # t_avg 2.37; lines 109-131: send latency, 23 rows, at 2 B t_typical 1.07, t_avg 1.11.
    r = _parse(ATOMIC_FIRST)
    tests = {t["test"]: t for t in r["summary"]["tests"]}
    assert [t["test"] for t in r["summary"]["tests"]] == [
        "ib_atomic_bw",
        "ib_atomic_lat",
        "ib_send_bw",
        "ib_send_lat",
    ]
    atomic = tests["ib_atomic_bw"]
    assert (atomic["rows"], atomic["max_size_bytes"]) == (1, 8)
    assert atomic["average_gbps"] == round(18.67 * MB, 3)  # 0.157
    assert (tests["ib_atomic_lat"]["latency_typical_usec"], tests["ib_atomic_lat"]["min_size_bytes"]) == (
        2.34,
        8,
    )
    assert tests["ib_atomic_lat"]["latency_avg_usec"] == 2.37
    assert tests["ib_send_bw"]["average_gbps"] == approx(3661.76 * MB)
    assert tests["ib_send_lat"]["rows"] == 23
    assert (tests["ib_send_lat"]["latency_typical_usec"], tests["ib_send_lat"]["latency_avg_usec"]) == (
        1.07,
        1.11,
    )
    assert _warned(r, "4 perftest tests", "the summary is ib_send_bw")
    # the summary is a complete sweep: no atomic, cut or `-a` warning
    assert not _warned(r, "atomic operations")
    assert not _sweep_warned(r)


def test_the_atomic_first_file_is_judged_on_its_send_bw() -> None:
    # 56 Gb/s x 0.96 = 53.76; 30.717 / 53.76 = 57.1 % (warn band 50-80 %); was `0.157 | fail`.
    v = _verdicts(IB_56, _parse(ATOMIC_FIRST), ATOMIC_FIRST)
    bw = v["NIC port bandwidth (Gb/s)"]
    assert bw["expected"] == approx(53.76)
    assert bw["measured"] == approx(30.717)
    assert bw["percent_of_expected"] == approx(57.1, rel=1e-2)
    assert bw["verdict"] == "warn"
    assert "ib_send_bw" in str(bw["detail"])
    assert (v["fabric link layer"]["measured"], v["fabric link layer"]["verdict"]) == ("InfiniBand", "pass")


def test_an_atomic_bw_test_alone_is_not_a_port_bandwidth() -> None:
    # Lines 1-22 of the file: the ib_atomic_bw block alone, closed by its rule on line 22.
    r = _parse_text("".join(_lines(ATOMIC_FIRST)[:22]))
    s = r["summary"]
    assert (s["test"], s["rows"], s["max_size_bytes"]) == ("ib_atomic_bw", 1, 8)
    assert s["average_gbps"] == round(18.67 * MB, 3)
    assert _warned(r, "ib_atomic_bw measures the rate of 8-byte atomic operations", "not link bandwidth")
    assert not _sweep_warned(r)  # atomic tests always send 8 B: no `-a` or cut warning
    bw = _bandwidth(IB_56, r)
    assert bw["verdict"] == "cannot-measure"
    assert "atomic test" in str(bw["detail"]) and "8-byte operations" in str(bw["detail"])
    assert bw["messages"]["detail"]["msgid"].startswith("%(test)s is an atomic test")


def test_two_atomic_tests_keep_the_atomic_bw_summary_and_cannot_measure() -> None:
    # Lines 1-45: ib_atomic_bw then ib_atomic_lat; no other bandwidth test to prefer.
    r = _parse_text("".join(_lines(ATOMIC_FIRST)[:45]))
    assert r["summary"]["test"] == "ib_atomic_bw"
    assert _bandwidth(IB_56, r)["verdict"] == "cannot-measure"


def test_a_bandwidth_test_after_an_atomic_one_is_chosen_even_when_it_is_short() -> None:
    # The atomic block (lines 1-22), then the send block cut after its 4096 B row (lines 48-78).
    lines = _lines(ATOMIC_FIRST)
    r = _parse_text("".join(lines[:22] + lines[47:78]))
    s = r["summary"]
    assert (s["test"], s["max_size_bytes"], s["rows"]) == ("ib_send_bw", 4096, 12)
    assert _warned(r, "ends at its 4096 B row (line 53)")  # line 78 of the file, 22 + 31 in this text
    # 3498.37 MB/s = 29.35 Gb/s of 53.76 (54.6 %) at 4 KiB: below the 64 KiB floor, so not a fail or warn
    bw = _bandwidth(IB_56, r)
    assert bw["measured"] == approx(3498.37 * MB)
    assert bw["verdict"] == "cannot-measure"


# ---- P2: an `-a` sweep cut by its author at 512 B -----------------------------------------------------


def test_the_sweep_cut_at_512_bytes_is_read_and_warned() -> None:
    # Line 1: `... ib_write_bw -d mlx5_1 -x 3 --qp=8 --report_gbits -s 6144 -m 4096 10.22.116.221 -a -F`;
    # lines 52-60: 9 rows 2 .. 512 B in Gb/sec, line 60 ` 512 40000 19.19 19.15 4.676292`, then nothing.
    r = _parse(CUT_512)
    s = r["summary"]
    assert (s["test"], s["banner"]) == ("ib_write_bw", "RDMA_Write BW Test")
    assert s["rows"] == 9
    assert s["unit_reported"] == "Gb/sec"
    assert (s["average_gbps"], s["peak_gbps"], s["bw_peak_column_max_gbps"]) == (19.15, 19.15, 19.19)
    assert s["max_size_bytes"] == 512
    assert (s["qps"], s["mtu"], s["gid_index"], s["link_layer"]) == (8, 4096, 3, "Ethernet")
    assert s["failed"] is False
    assert _lines(CUT_512)[-1].startswith(" 512        40000")  # the file's last line: no closing rule
    assert _warned(r, "ends at its 512 B row (line 60)", "without its closing dashed rule")
    assert _warned(r, "`-a` runs every size from 2 B to 8388608 B", "stops at 512 B")
    new = [w for w in r["warnings"] if "dashed rule" in w or "`-a`" in w]
    assert [w.msgid.split(" ")[0] for w in new] == ["the", "`-a`"]  # through `_`, with message ids


def test_the_cut_sweep_does_not_fail_a_healthy_100g_port() -> None:
    # 100 x 0.92 = 92.0 expected; 19.15 at 512 B (20.8 %) was a fail.
    v = _verdicts(ROCE_100, _parse(CUT_512), CUT_512)
    bw = v["NIC port bandwidth (Gb/s)"]
    assert (bw["expected"], bw["measured"]) == (92.0, 19.15)
    assert bw["verdict"] == "cannot-measure"
    assert bw["percent_of_expected"] == approx(20.8, rel=1e-2)
    detail = str(bw["detail"])
    assert "512 B" in detail and "65536 B" in detail and "assumed" in detail
    assert (v["fabric link layer"]["measured"], v["fabric link layer"]["verdict"]) == ("Ethernet", "pass")


def test_a_cut_sweep_that_reaches_the_expected_rate_passes() -> None:
    # 10 Gb/s RoCE: 10 x 0.92 = 9.2 expected; 19.15 at 512 B already exceeds it.
    bw = _bandwidth({"fabric": "roce", "gbps_per_nic": 10}, _parse(CUT_512))
    assert (bw["expected"], bw["measured"], bw["verdict"]) == (9.2, 19.15, "pass")


def test_the_cut_sweep_closed_by_its_rule_warns_only_about_a() -> None:
    r = _parse_text("".join(_lines(CUT_512)) + "-" * 87 + "\n")
    assert not _warned(r, "without its closing dashed rule")
    assert _warned(r, "`-a` runs every size", "stops at 512 B")
    assert _bandwidth(ROCE_100, r)["verdict"] == "cannot-measure"


def test_a_closed_table_without_a_below_the_floor_is_not_warned_but_not_failed() -> None:
    lines = _lines(CUT_512)
    command = lines[0].replace("-a", "")
    r = _parse_text(command + "".join(lines[1:]) + "-" * 87 + "\n")
    assert r["summary"]["max_size_bytes"] == 512
    assert not _sweep_warned(r)
    assert _bandwidth(ROCE_100, r)["verdict"] == "cannot-measure"


def test_the_cut_sweep_completed_to_8_mib_is_judged_as_before() -> None:
    # The 14 sizes 1024 B .. 8 MiB added at 92.50 Gb/s, then the closing rule.
    rows = "".join(
        f" {2**k:<10d} 40000            92.55              92.50              0.1\n" for k in range(10, 24)
    )
    r = _parse_text("".join(_lines(CUT_512)) + rows + "-" * 87 + "\n")
    s = r["summary"]
    assert (s["rows"], s["max_size_bytes"], s["average_gbps"]) == (23, 8388608, 92.5)
    assert not _sweep_warned(r)
    assert _bandwidth(ROCE_100, r)["verdict"] == "pass"
    # the same complete sweep on a 400G claim: 92.5 of 368 is a fail, as before the floor existed
    assert _bandwidth({"fabric": "roce", "gbps_per_nic": 400}, r)["verdict"] == "fail"


def test_a_sweep_cut_above_the_floor_is_warned_and_still_judged() -> None:
    # Cut after a 131072 B row at 40.00 Gb/s: at or above 64 KiB the shortfall is judged (43.5 % of 92).
    rows = "".join(
        f" {2**k:<10d} 40000            40.01              40.00              0.1\n" for k in range(10, 18)
    )
    r = _parse_text("".join(_lines(CUT_512)) + rows)
    assert r["summary"]["max_size_bytes"] == 131072
    assert _warned(r, "ends at its 131072 B row", "without its closing dashed rule")
    assert _warned(r, "stops at 131072 B")
    assert _bandwidth(ROCE_100, r)["verdict"] == "fail"


def test_a_ud_send_sweep_with_a_stops_at_the_mtu_without_an_a_warning() -> None:
    text = (
        "ib_send_bw -a -c UD 10.0.0.2\n"
        "                    Send BW Test\n"
        " Connection type : UD           Using SRQ      : OFF\n"
        " Link type       : Ethernet\n"
        " #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]\n"
        " 2048       1000             40.00              39.90              2.4\n"
        " 4096       1000             80.00              79.90              2.4\n" + "-" * 87 + "\n"
    )
    r = _parse_text(text)
    assert r["summary"]["connection"] == "UD" and r["summary"]["max_size_bytes"] == 4096
    assert not _sweep_warned(r)


# ---- the logs read right before: unchanged ------------------------------------------------------------


def test_a_read_latency_in_an_indented_pod_block() -> None:
    # Lines 12-33, every line indented by 8 spaces: `RDMA_Read Latency Test`, `Link type : Ethernet`,
    # `GID index : 2`, `Mtu : 1024[B]`; line 32: ` 2 1000 6.66 20.37 6.74 6.82 0.78 7.15 20.37`
    # (t_typical 6.74, t_avg 6.82); line 33 closes the table.
    r = _parse(READ_LAT)
    s = r["summary"]
    assert (s["test"], s["latency"], s["rows"]) == ("ib_read_lat", True, 1)
    assert (s["latency_typical_usec"], s["latency_avg_usec"], s["min_size_bytes"]) == (6.74, 6.82, 2)
    assert s["latency_usec_at_min_size"] == [6.66, 20.37, 6.74, 6.82, 0.78, 7.15, 20.37]
    assert (s["device"], s["link_layer"], s["gid_index"], s["mtu"]) == ("mlx5_5", "Ethernet", 2, 1024)
    assert s["average_gbps"] is None and s["failed"] is False
    assert not _sweep_warned(r) and not _warned(r, "atomic")
    v = _verdicts(ROCE_100, r, READ_LAT)
    assert v["NIC port bandwidth (Gb/s)"]["verdict"] == "cannot-measure"
    assert v["NIC port bandwidth (Gb/s)"]["measured"] is None
    assert v["fabric link layer"]["verdict"] == "pass"


def test_a_complete_bidirectional_sweep_is_unchanged() -> None:
    # Server table lines 37-59 and client table lines 99-121: the same 23 rows 2 B .. 8 MiB in Gb/sec,
    # each closed by a rule (lines 60, 122); 8388608 B: 779.09 / 779.09; the best BW average and BW peak
    # are 779.14 at 4 MiB; `-a` on both command lines (lines 1, 67).
    r = _parse(IONIC_BIDIR)
    s = r["summary"]
    assert (s["test"], s["banner"]) == ("ib_write_bw", "RDMA_Write Bidirectional BW Test")
    assert s["bidirectional"] is True
    assert s["rows"] == 23
    assert (s["average_gbps"], s["peak_gbps"], s["bw_peak_column_max_gbps"]) == (779.09, 779.14, 779.14)
    assert s["max_size_bytes"] == 8388608
    assert (s["device"], s["qps"], s["gid_index"], s["link_layer"]) == ("ionic_0", 2, 1, "Ethernet")
    assert _warned(r, "23 duplicate rows")
    assert _warned(r, "bidirectional test")
    assert not _sweep_warned(r)
    # 400 x 0.92 x 2 = 736.0; 779.09 is 105.9 %
    bw = _bandwidth(ROCE_400, r)
    assert (bw["expected"], bw["measured"], bw["verdict"]) == (736.0, 779.09, "pass")
    assert bw["percent_of_expected"] == approx(105.9, rel=1e-2)
