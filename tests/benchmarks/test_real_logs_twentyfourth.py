"""The twenty-fourth set of real logs (fixtures/real/SOURCES.md, "Twenty-fourth set"): nccl-tests rows
behind MPICH / Intel MPI `-prepend-rank` tags, ibstat copied out of a tmux pane, an `rdma link` listing its
author cut with `.......`, driver 580/610 tables of a GPU in MIG mode, and Xid lines naming the earlier Xid
that caused them; then fifteen logs of shapes not kept before, read right, kept against regressions.

As in test_real_logs.py, every expected value was read off the log by hand.
"""

from __future__ import annotations

from typing import Any

import pytest

from benchmarks.compare import compare
from benchmarks.parsers import parse

from .test_real_logs import _parse, _warned, approx

PREPEND_RANK = "nccl-tests/nccl1453-h100-mpich-prepend-rank-tags-glued-in-rows-1m-512m-T.txt"
TMUX_IBSTAT = "ibstat/docker-notes-tmux-pane-border-mlx4-ib-active-40-eth-port2-down.txt"
RDMA_ELIDED = "rdma-link/spiderpool-doc-rdma-link-two-mlx5-ethernet-ports-then-dots-elided.txt"
MIG_580 = "nvidia-smi/genkai-singularity-h100-mig-enabled-driver580-memory-na-one-slice-11008mib.txt"
MIG_610 = "nvidia-smi/utho-kubectl-exec-rtx-pro-6000-mig-driver610-memory-na-one-slice-24192mib.txt"
CAUSED_BY = "dmesg/gb200-syslog-kernel-prefix-xid45-caused-by-previous-xid149-145-T.txt"

ROCE_8X400 = {"gpu": "H100-SXM-80GB", "gpus_per_node": 8, "fabric": "roce", "gbps_per_nic": 400,
              "nics_per_node": 8}  # fmt: skip
MIB = 2**20


def _verdicts(facts: dict[str, Any], result: dict[str, Any], rel: str) -> dict[str, dict[str, Any]]:
    return {str(v["claim"]): v for v in compare(facts, dict(result, filename=rel))}


# ---- the gaps ------------------------------------------------------------------------------------------


def test_rows_behind_mpich_prepend_rank_tags_are_read() -> None:
    # `[0]      1048576        262144     float     sum      -1[0]    1626.5    0.64    1.24      0[0] ...`:
    # Hydra's `-prepend-rank` tag before the row and before each of its two later pieces. 10 rows, 1 MiB to
    # 512 MiB; the best busbw 29.50 (out-of-place, 32 MiB), 5.31 at 512 MiB (in-place 5.33); 29.50 / 15.39 =
    # 1.917 = 2(n-1)/n for 24 ranks. Before: refused ("no signature of a supported tool").
    r = _parse(PREPEND_RANK)
    assert r["kind"] == "nccl-tests"
    (run,) = r["summary"]["runs"]
    assert run["rows"] == 10 and run["failed"] is False
    assert (run["min_size_bytes"], run["max_size_bytes"]) == (1048576, 536870912)
    assert run["collective"] == "all_reduce" and run["ranks"] == 24
    assert run["peak_busbw_gbps"] == approx(29.5) and run["peak_busbw_size_bytes"] == 33554432
    assert run["busbw_at_max_size_gbps"] == approx(5.31) and run["busbw_at_max_size_ip_gbps"] == approx(5.33)
    # the collapse the issue is about: 5.27 GB/s at 64 MiB after 29.5 at 32 MiB
    assert _warned(r, "collapses mid-sweep at 67108864 B")


def test_a_prepend_rank_tag_after_a_space_is_content_and_untagged_lines_are_untouched() -> None:
    text = (
        "[3] host1:77:77 [0] NCCL INFO Bootstrap : Using eth0\n"
        "[0]:not a tag\n"
        "[12]        8             2     float     sum      -1[12]    13.2    0.00    0.00      0[12]    13.1"
        "    0.00    0.00      0\n"
    )
    from benchmarks.parsers.text import decode

    lines = decode(text.encode()).lines
    assert lines[0] == "host1:77:77 [0] NCCL INFO Bootstrap : Using eth0"
    assert lines[1] == "[0]:not a tag"
    assert lines[2].split() == "8 2 float sum -1 13.2 0.00 0.00 0 13.1 0.00 0.00 0".split()


def test_ibstat_copied_out_of_a_tmux_pane_is_read() -> None:
    # Every line starts with the pane border `│`. mlx4_0 (MT4099): port 1 Active, LinkUp, rate 40, InfiniBand,
    # lid 10, SM lid 12; port 2 Down, Disabled, Ethernet. Before: refused.
    r = _parse(TMUX_IBSTAT)
    assert r["kind"] == "ibstat"
    s = r["summary"]
    p1, p2 = s["ports"]
    assert (p1["device"], p1["port"], p1["state"], p1["physical_state"]) == ("mlx4_0", 1, "Active", "LinkUp")
    assert (p1["link_layer"], p1["rate_gbps"], p1["base_lid"], p1["sm_lid"]) == ("InfiniBand", 40.0, 10, 12)
    assert (p2["port"], p2["state"], p2["physical_state"], p2["link_layer"]) == (
        2,
        "Down",
        "Disabled",
        "Ethernet",
    )
    assert (s["active_infiniband_ports"], s["active_ethernet_ports"], s["inactive_ports"]) == (1, 0, 1)


def test_a_pane_border_at_either_end_of_a_line_is_dropped() -> None:
    from benchmarks.parsers.text import decode

    lines = decode("left pane text      \u2502\n\u2502right pane\n".encode()).lines
    assert lines == ["left pane text", "right pane"]


def test_an_rdma_link_listing_cut_by_its_author_is_a_minimum() -> None:
    # Two ACTIVE / LINK_UP ports with netdevs (RoCE: no lid), then the author's `.......` on line 4.
    r = _parse(RDMA_ELIDED)
    assert r["kind"] == "rdma-link"
    s = r["summary"]
    assert [p["device"] for p in s["ports"]] == ["mlx5_0", "mlx5_1"]
    assert s["active_ethernet_ports"] == 2 and s["elided_lines"] == [4]
    assert _warned(r, "lines left out by the author", "line 4", "a minimum")
    # 2 of 8 RoCE ports: fewer than claimed cannot be told from ports left out (was a fail)
    row = _verdicts(ROCE_8X400, r, RDMA_ELIDED)["Ethernet GPU-fabric ports"]
    assert row["verdict"] == "cannot-measure" and row["measured"] == 2
    assert "the listing may go on past line 4: 2 is a minimum" in str(row["detail"])


def test_a_complete_port_listing_has_no_elided_lines() -> None:
    r = _parse("rdma-link/dgx-spark-notes-rdma-link-4-rocep-ports-aligned-then-ibv-devices.txt")
    assert "elided_lines" not in r["summary"]


@pytest.mark.parametrize(
    ("rel", "model", "driver", "gi", "slice_mib", "sms"),
    [
        (MIG_580, "NVIDIA H100", "580.105.08", 8, 11008, 16),
        (MIG_610, "NVIDIA RTX PRO 6000 Blac...", "610.43.02", 6, 24192, 46),
    ],
)
def test_a_gpu_in_mig_mode_with_na_memory_keeps_its_slices_apart(
    rel: str, model: str, driver: str, gi: int, slice_mib: int, sms: int
) -> None:
    # The GPU row's Memory-Usage reads `N/A` (driver 580/610 with MIG on); the `MIG devices:` section that
    # follows holds one slice. Before: the slice's memory was the GPU's (11008 / 24192 MiB) and the section
    # was not read (mig_devices 0, no warning).
    r = _parse(rel)
    assert r["kind"] == "nvidia-smi"
    s = r["summary"]
    assert s["gpus"] == 1 and s["gpu_models"] == [model] and s["driver_version"] == driver
    (gpu,) = s["gpu_list"]
    assert "memory_total_mib" not in gpu
    assert s["mig_devices"] == 1
    (dev,) = s["mig_device_list"]
    assert (dev["gpu"], dev["gpu_instance"], dev["compute_instance"], dev["mig_device"]) == (0, gi, 0, 0)
    assert (dev["memory_total_mib"], dev["sms"]) == (slice_mib, sms)
    assert _warned(r, "GPU 0 is split into 1 MIG device", f"1 x {slice_mib} MiB")


def test_xid_lines_caused_by_an_earlier_xid_count_that_xid_on_their_gpu() -> None:
    # Seven Xid 45 lines on 4 GPUs, each `... caused by previous Xid 149` (dc:00) or `145` (ed:00, ba:00,
    # 97:00); the last line names none. Before: only Xid 45 (no reset Xid), and the GPUs passed.
    r = _parse(CAUSED_BY)
    s = r["summary"]
    assert s["xid_codes"] == [45] and len(s["xid_events"]) == 7
    refs = {(x["bus_id"], x["xid"]): x["line"] for x in s["xids_referenced"]}
    assert refs == {
        ("0000:dc:00", 149): 1,
        ("0000:ed:00", 145): 2,
        ("0000:ba:00", 145): 3,
        ("0000:97:00", 145): 4,
    }
    resets = {(x["bus_id"], x["xid"]) for x in s["xids_needing_reset"]}
    assert resets == set(refs)
    assert all(x["referenced"] and x["nvlink_decode"] for x in s["xids_needing_reset"])
    assert _warned(r, "on 4 GPUs say", "earlier Xid 145, 149", "line 1")
    row = _verdicts(ROCE_8X400, r, CAUSED_BY)["usable GPUs (kernel log)"]
    assert row["verdict"] == "warn" and row["measured"] == 4


def test_a_caused_by_xid_printed_in_the_log_is_not_counted_twice() -> None:
    text = (
        "NVRM: Xid (PCI:0000:dc:00): 149, NETIR_LINK_EVT Fatal XC0 i0 Link 00 (0x025001c6 0x0 0x0)\n"
        "NVRM: Xid (PCI:0000:dc:00): 45, pid=1, name=python3, Ch 00000001 caused by previous Xid 149\n"
    )
    s = parse(text.encode(), filename="x.txt").as_dict()["summary"]
    assert "xids_referenced" not in s
    (entry,) = s["xids_needing_reset"]
    assert (entry["xid"], entry["count"], entry["lines"]) == (149, 1, [1]) and "referenced" not in entry


# ---- read right, kept as new shapes -----------------------------------------------------------------------


def test_gb200_nvl72_run_with_one_rank_line() -> None:
    # `#  Rank 71 ... on slurm-gb200-207-171 device  3 [0x01] NVIDIA Graphics Device`, rows 512 MiB - 8 GiB:
    # 834.57 GB/s out-of-place at 8 GiB (in-place 846.82), footer 745.53; device 3 on the last rank: 4 GPUs a
    # node.
    r = _parse("nccl-tests/coreweave-pr43-gb200-nvl72-rank71-line-only-512m-8g-834gbps-T.txt")
    (run,) = r["summary"]["runs"]
    assert (run["ranks"], run["nodes"], run["gpus_per_node"]) == (72, 18, 4)
    assert run["collective"] == "all_reduce" and run["rows"] == 5 and run["failed"] is False
    assert run["busbw_at_max_size_gbps"] == approx(834.57) and run["peak_busbw_gbps"] == approx(846.82)
    assert run["avg_busbw_reported"] == approx(745.53) and run["gpu_names"] == ["NVIDIA Graphics Device"]
    assert _warned(r, "18 nodes x 4 GPUs assumed")


@pytest.mark.parametrize(
    ("rel", "ranks", "collective", "rows", "max_size", "at_max", "peak"),
    [
        # count = size / 64 with redop none; 6.36 / 6.79 ... 185.48 / 197.85 = 0.9375 = 15/16
        ("nccl-tests/gcp-cluster-toolkit-pr3644-rows-only-none-redop-16-ranks-2m-2g-T.txt",
         16, "all_gather", 11, 2147483648, 185.48, 185.80),
        # 95.74 / 49.95 = 1.9167 = 2(n-1)/n for 24 ranks; footer 84.8558
        ("nccl-tests/nccl-tests119-a100-24rank-linear-step-tail-rows-footer-84.86-T.txt", 24, "all_reduce", 6,
         133169160, 95.74, 96.69),
        # bfloat16, busbw = algbw / 2: 2 GPUs (-g 2); the largest row below the 100663296 B one
        ("nccl-tests/nccl1435-all-gather-bfloat16-2gpu-linear-step-16m-117m-no-footer-T.txt",
         2, "all_gather", 7, 117440512, 119.64, 144.59),
    ],
)  # fmt: skip
def test_rows_only_excerpts(
    rel: str, ranks: int, collective: str, rows: int, max_size: int, at_max: float, peak: float
) -> None:
    (run,) = _parse(rel)["summary"]["runs"]
    assert (run["ranks"], run["collective"], run["rows"], run["max_size_bytes"]) == (
        ranks,
        collective,
        rows,
        max_size,
    )
    assert run["busbw_at_max_size_gbps"] == approx(at_max) and run["peak_busbw_gbps"] == approx(peak)


def test_torchtitan_steps_with_grad_norm() -> None:
    # steps 14-21: tps 7,282 ... 7,304 (median 7,306.5), tflops 0.52 (0.53 once), mfu 0.17%
    r = _parse("torchtitan/torchtitan-pr3393-rank0-grad-norm-tflops-0.52-mfu-0.17-T.txt")
    s = r["summary"]
    assert r["kind"] == "torchtitan" and s["iterations"] == 8
    assert s["median_tokens_per_s_per_gpu"] == approx(7306.5)
    assert s["median_tflops_per_gpu"] == approx(0.52) and s["mfu"] == approx(0.0017)


def test_megatron_bridge_one_step_time_line() -> None:
    r = _parse("megatron/bridge-pr388-torchrun-then-one-step-time-line-528-tflops-T.txt")
    s = r["summary"]
    assert (r["kind"], s["source_format"], s["iterations"]) == ("megatron", "megatron-bridge", 1)
    assert s["median_iteration_s"] == approx(12.78) and s["median_tflops_per_gpu"] == approx(528.1)


@pytest.mark.parametrize(
    ("rel", "codes", "resets"),
    [
        ("dmesg/gpud-pr1174-kmsg-xid149-fatal-xid145-nonfatal-xid94-four-blocks-joined-T.txt", [94, 145, 149],
         {("0019:01:00", 149), ("0000:00:00", 149), ("0018:01:00", 145)}),
        ("dmesg/gpud-pr1160-quoted-xid144-nonfatal-xid149-fatal-x2-gpud-lines-between-T.txt", [144, 149],
         {("0000:01:00", 144), ("0000:00:00", 149)}),
        ("dmesg/gpud-pr117-dmesg-T-xid45-x6-then-hung-task-trace-T.txt", [45], set()),
    ],
)  # fmt: skip
def test_xid_lines(rel: str, codes: list[int], resets: set[tuple[str, int]]) -> None:
    r = _parse(rel)
    s = r["summary"]
    assert r["kind"] == "dmesg" and s["xid_codes"] == codes
    assert {(x["bus_id"], x["xid"]) for x in s["xids_needing_reset"]} == resets
    # the NVLink Xids (144-150) are the catalogue's decode workflow; 94 and 45 need no reset
    assert all(x.get("nvlink_decode") for x in s["xids_needing_reset"])
    assert s["gpus_fallen_off_bus"] == [] and "xids_referenced" not in s


def test_gpud_pr1160_counts_the_fatal_xid149_twice_on_one_gpu() -> None:
    s = _parse("dmesg/gpud-pr1160-quoted-xid144-nonfatal-xid149-fatal-x2-gpud-lines-between-T.txt")["summary"]
    (x149,) = [x for x in s["xids_needing_reset"] if x["xid"] == 149]
    assert (x149["count"], x149["lines"]) == (2, [5, 9])


@pytest.mark.parametrize(
    ("rel", "gpus", "mesh", "nvlinks", "nics", "rail", "missing"),
    [
        # SYS between every GPU pair: no NVLink at all; NIC0-5 PIX to GPU0-5, NIC6-9 SYS to every GPU shown
        ("nvidia-smi-topo/deepep128-8gpu-sys-only-no-nvlink-10nic-rows-gpu0-5-T.txt", 8, False, 0, 10, 6,
         ["GPU6", "GPU7"]),
        # tab-separated, NV18; NIC2-6 PIX to GPU0-4
        ("nvidia-smi-topo/deepep223-h20-tab-separated-nv18-10nic-rows-gpu0-4-T.txt", 8, True, 18, 10, 5,
         ["GPU5", "GPU6", "GPU7"]),
    ],
)  # fmt: skip
def test_cut_topologies(
    rel: str, gpus: int, mesh: bool, nvlinks: int, nics: int, rail: int, missing: list[str]
) -> None:
    r = _parse(rel)
    s = r["summary"]
    assert (s["gpus"], s["full_nvlink_mesh"], s["min_nvlinks_per_pair"]) == (gpus, mesh, nvlinks)
    assert (s["nics"], s["rail_nics"], s["gpu_rows_missing"]) == (nics, rail, missing)
    assert _warned(r, "GPU rows missing")


def test_ibstatus_with_tab_separated_fields() -> None:
    s = _parse("ibstatus/deepep321-4-ports-ndr-400-tab-separated-all-active-T.txt")["summary"]
    assert s["devices"] == ["mlx5_0", "mlx5_1", "mlx5_2", "mlx5_3"]
    assert (s["active_infiniband_ports"], s["active_infiniband_rates_gbps"]) == (4, {"400.0": 4})


def test_perftest_sweep_with_a_zero_bw_peak_column() -> None:
    # -a: 2 B to 8 MiB, BW peak 0.00 on every row; BW average best 3662.97 MB/sec (2 MiB), 3662.02 at 8 MiB
    r = _parse("perftest/docker-notes-mlx4-ib-write-bw-a-iter-50000-bw-peak-column-0.00-prompt.txt")
    s = r["summary"]
    assert (s["test"], s["device"], s["link_layer"], s["mtu"], s["rows"]) == (
        "ib_write_bw", "mlx4_0", "InfiniBand", 2048, 23
    )  # fmt: skip
    assert s["peak_gbps"] == approx(3662.97 * MIB * 8 / 1e9) and s["average_gbps"] == approx(
        3662.02 * MIB * 8 / 1e9
    )
    assert s["max_size_bytes"] == 8388608 and s["failed"] is False


def test_perftest_server_and_client_tables_behind_root_prompts() -> None:
    # `# ib_write_bw -i 1 -d mlx5_0 -F -D 5 --report_gbits` (server, waiting box), then the client: 65536 B,
    # 98.03 Gb/s in both tables, RoCE (Link type Ethernet, GID index 3)
    r = _parse("perftest/hpe-slingshot-doc-ib-write-bw-D5-roce-server-then-client-prompt-98gbps.txt")
    s = r["summary"]
    assert (s["link_layer"], s["gid_index"], s["rows"], s["max_size_bytes"]) == ("Ethernet", 3, 1, 65536)
    assert s["peak_gbps"] == approx(98.03) and s["average_gbps"] == approx(98.03)
    assert _warned(r, "1 duplicate row")


def test_rdma_link_with_padded_device_names() -> None:
    r = _parse("rdma-link/dgx-spark-notes-rdma-link-4-rocep-ports-aligned-then-ibv-devices.txt")
    s = r["summary"]
    assert s["devices"] == ["roceP2p1s0f0", "roceP2p1s0f1", "rocep1s0f0", "rocep1s0f1"]
    assert s["active_ethernet_ports"] == 4 and [p["netdev"] for p in s["ports"]] == [
        "enp1s0f0np0", "enp1s0f1np1", "enP2p1s0f0np0", "enP2p1s0f1np1"
    ]  # fmt: skip
