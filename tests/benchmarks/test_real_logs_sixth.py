"""The sixth set of real logs (fixtures/real/, origins in fixtures/real/SOURCES.md, "Sixth set").

As in test_real_logs.py, every expected value was read off the log by hand.
"""

from __future__ import annotations

from .test_real_logs import _parse, approx

SECONDS_KEY = "megatron/jube-juwels-megatron-deepspeed-default3-prefix-elapsed-time-seconds-key.txt"
ROCE_NO_LID = "rdma-link/oci-a100-pdsh-dshbak-16-roce-ports-netdev-rdma-no-lid.txt"
DCGMI_WRAPPED = "dcgmi-diag/memtest-blog-rtx2060-r4-persistence-mode-fail-error-wrapped-mid-word.txt"
TOPO_GLUED = "nvidia-smi-topo/nccl-tests-issue333-b200-8gpu-16nic-glued-cells-pxbnode-syssys.txt"


def test_an_iteration_time_keyed_in_seconds_is_read_in_seconds() -> None:
    # `elapsed time per iteration (s): 7.2310 / 5.3551 / 5.6192 / 5.3291 / 5.3247`: it was divided by 1,000
    # as Megatron-LM's `(ms)` is (0.0054 s); 96 samples / 5.3551 s = 17.93, the printed samples per second
    out = _parse(SECONDS_KEY)
    assert out["kind"] == "megatron"
    summary = out["summary"]
    assert summary["iterations"] == 5
    assert summary["median_iteration_s"] == approx(5.3551)
    assert summary["median_tflops_per_gpu"] == approx(137.10)


def test_rdma_link_ports_without_a_lid_are_ethernet_whatever_their_netdev_is_called() -> None:
    # 16 `link mlx5_N/1 state ACTIVE physical_state LINK_UP netdev rdmaK` lines: no lid (the kernel reports
    # one for InfiniBand ports only), netdevs named rdma0-15 (OCI's RoCE names); they were 0 active ports
    out = _parse(ROCE_NO_LID)
    assert out["kind"] == "rdma-link"
    summary = out["summary"]
    assert summary["total_ports"] == 16 and summary["active_ethernet_ports"] == 16
    assert summary["active_infiniband_ports"] == 0 and summary["inactive_ports"] == 0
    assert all(port["link_layer"] == "Ethernet" for port in summary["ports"])


def test_rdma_link_ports_with_a_lid_stay_infiniband() -> None:
    from benchmarks.parsers import parse

    log = "\n".join(
        f"link mlx5_{i}/1 subnet_prefix fe80:0000:0000:0000 lid {i + 5} sm_lid 1 lmc 0 state ACTIVE "
        f"physical_state LINK_UP netdev ib{i}"
        for i in range(4)
    )
    summary = parse(log).as_dict()["summary"]
    assert summary["active_infiniband_ports"] == 4 and summary["active_ethernet_ports"] == 0


def test_dcgmi_error_text_wrapped_mid_word_is_joined_whole() -> None:
    # DCGM cuts its Error cell every 45 characters whatever the words: `currently disab` / `led.`,
    # `persistence mode b` / `y running`, `as r` / `oot.`; the text read "disab led", "b y", "r oot"
    out = _parse(DCGMI_WRAPPED)
    assert out["kind"] == "dcgmi-diag"
    summary = out["summary"]
    assert summary["failed_tests"] == ["Persistence Mode"] and not summary["passed"]
    (test,) = [t for t in summary["tests"] if t["name"] == "Persistence Mode"]
    assert test["detail"] == (
        "Persistence mode for GPU 0 is currently disabled. The DCGM diagnostic requires peristence mode to "
        'be enabled. Enable persistence mode by running "nvidia-smi -i <gpuId> -pm 1 " as root.'
    )


def test_wrapped_cells_that_end_on_a_word_keep_their_space() -> None:
    from benchmarks.parsers.dcgmi import join_wrapped

    # cut at the width (two blanks to the edge) and the next fragment right after its one blank: one word
    assert join_wrapped([" abc def  ", " ghi      "]) == "abc defghi"
    # a word that ended at the width: the next fragment starts one blank further in
    assert join_wrapped([" abc def  ", "  ghi     "]) == "abc def ghi"
    # shorter than the width (more blanks to the edge): a word ended
    assert join_wrapped([" abc de   ", " f        "]) == "abc de f"


def test_topology_cells_run_together_are_split_again() -> None:
    # GPU2's row reads `... NODE PXBNODE SYS ...` and GPU4-7's `... SYS SYSSYS PXB ...`: read as one cell
    # each, every later cell sat one column left, and 6 rail NICs were found instead of 8 (the NIC rows put
    # NIC8 behind GPU2 and NIC9 behind GPU3)
    out = _parse(TOPO_GLUED)
    assert out["kind"] == "nvidia-smi-topo"
    summary = out["summary"]
    assert summary["gpus"] == 8 and summary["nics"] == 16 and summary["min_nvlinks_per_pair"] == 18
    assert summary["rail_nics"] == 8
    close = {n["name"]: n["close_gpus"] for n in summary["nic_details"]}
    assert close["mlx5_8"] == ["GPU2"] and close["mlx5_9"] == ["GPU3"] and close["mlx5_10"] == ["GPU4"]
    assert any("cells run together" in w for w in out["warnings"])


def test_a_second_labelled_row_starts_its_own_text() -> None:
    from benchmarks.parsers.dcgmi import join_wrapped

    # two Error rows: the first cut at the width, the second begins a new message (its row's empty marker)
    assert join_wrapped([" first err  ", "", " Second     "]) == "first err Second"


def test_a_huge_rank_id_does_not_stretch_the_block_layout_search() -> None:
    from benchmarks.parsers.nccl.listing import MAX_GPUS_PER_NODE, block_layout

    # the search went over every count up to the highest rank id + 1: a Rank 99999999 line took 4.6 s, a
    # 12-digit one hours; it now stops at MAX_GPUS_PER_NODE (0, 1 on one host; the last rank on another)
    ranks = {0: ("a", 0, "GB300", "0x1"), 1: ("a", 1, "GB300", "0x2"), 10**12 - 1: ("b", 3, "GB300", "0x4")}
    assert block_layout(ranks, 10**12) in (None, *range(2, MAX_GPUS_PER_NODE + 1))
