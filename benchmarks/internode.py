"""An nccl-tests/rccl-tests run across nodes against the claimed NICs (pure, no Django).

benchmarks.compare sends here every judged run of two or more nodes outside one NVLink domain. The run's
busbw at its largest size is held against the NIC line rate its GPUs can load (`_line_rate`) times what a
healthy fabric of the claimed kind reaches (hardware.fabric_efficiency). It cannot be measured when the
figure cannot be NIC traffic: above that line rate, a CollNet/SHARP algorithm, a 2-node all_reduce that
tree/NVLSTree may inflate (unless it falls short even so), a sweep that stops too small to reach the
bandwidth, or hosts that run different numbers of GPUs.
"""

from __future__ import annotations

from typing import Any

from benchmarks.parsers.nccl.reading import algorithms_for, ring_forced
from benchmarks.verdicts import cannot_measure_instead, inter_fraction, ratio_verdict, verdict_row
from hardware.messages import Msg, _, joined, listed, ngettext

RING_COLLECTIVES = {"all_reduce", "all_gather", "reduce_scatter"}
# The smallest "largest size" at which a shortfall is believed. Assumed, no sourced threshold: busbw rises
# with the message size until the per-step start-up time is hidden, and the plateaus quoted in
# benchlogs/FORMATS.md 8 are read at 1 GiB and above. calibration.md 5's 4 x B200 EFA curve is at 5.4 GB/s at
# 1 MiB and 64 GB/s at 16 MiB (a fifth of its ~365 plateau), and its ~0.4 ms start-up on 4 nodes
# (hardware/network.py ALPHA_INTER_S) is as long as a 64 MiB all_reduce takes on 8 x 400G, so 64 MiB can
# still read half the plateau; at 256 MiB the start-up is under a fifth of the time. A sweep that stops
# below it and still reaches the expected figure passes: busbw only grows with the size.
MIN_INTER_NODE_BYTES = 256 * 2**20


def _algorithms(run: dict[str, Any]) -> tuple[set[str], bool]:
    """NCCL_ALGO's names for the run's collective and whether it excludes them (reading.algorithms_for)."""
    return algorithms_for(run.get("algorithm_hint"), run.get("collective"))


def _collnet(run: dict[str, Any]) -> bool:
    """Whether NCCL_ALGO selects CollNet (SHARP in-network reduction: CollNetDirect, CollNetChain)."""
    names, excluded = _algorithms(run)
    return not excluded and any("collnet" in name or "sharp" in name for name in names)


def _tree_possible(run: dict[str, Any]) -> bool:
    """Whether NCCL may pick tree/NVLSTree: NCCL_ALGO neither forces Ring nor excludes Tree/NVLS/NVLSTree."""
    return not ring_forced(run.get("algorithm_hint"), run.get("collective"))


def tree_may_inflate(run: dict[str, Any], nodes: int | None, per_node: int | None) -> bool:
    """Whether a run's busbw may be inflated by tree/NVLSTree or CollNet rather than measured on the wire:
    the one rule for the verdicts (here) and the scaling curves' base (scaling.tree_suspected). A 2-node run
    with more than one GPU per node (unknown counts as more) that the parser flagged, that selects
    CollNet/SHARP, or that is an all_reduce NCCL may run as a tree (NCCL_ALGO does not force Ring). Between
    2 nodes a tree sends each byte across once each way where a ring sends it about twice, so busbw (the
    ring's formula) can read up to twice what a ring, or a larger job, reaches."""
    if nodes != 2 or (per_node or 2) <= 1:
        return False
    if run.get("nvls_or_tree_suspected") or _collnet(run):
        return True
    return run.get("collective") == "all_reduce" and _tree_possible(run)


def _gpus_per_node(item: dict[str, Any], run: dict[str, Any], nodes: int) -> tuple[int | None, Msg | None]:
    """The run's GPUs per node: the log's; else ranks / nodes over a node count the upload gave (an even
    spread assumed, said so); else the offering's (None, None). (None, why) when the log names the nodes and
    its ranks do not split evenly over them: the hosts run different numbers of GPUs."""
    if run.get("gpus_per_node"):
        return int(run["gpus_per_node"]), None
    ranks = run.get("ranks") or (int(item["gpus"]) if item.get("gpus") else None)
    if not ranks:
        return None, None
    if ranks % nodes or run.get("nodes"):
        return None, _(
            "the hosts run different numbers of GPUs (%(ranks)s ranks on %(nodes)s nodes, not the same count "
            "on each): the NICs the run loads cannot be told; rerun with the same GPUs on every node",
            ranks=ranks,
            nodes=nodes,
        )
    return ranks // nodes, ngettext(
        "%(per_node)s GPU/node assumed (ranks / nodes)",
        "%(per_node)s GPUs/node assumed (ranks / nodes)",
        ranks // nodes,
        per_node=ranks // nodes,
    )


def _line_rate(facts: dict[str, Any], run: dict[str, Any], nodes: int, per_node: int) -> tuple[float, Msg]:
    """The NIC line rate (GB/s of busbw) the run's GPUs can load, and how it was reckoned.

    A GPU loads its share of the node's NICs (nics x Gb/s / 8 / GPUs per node), or one whole NIC when the
    node has fewer NICs than GPUs and the run leaves NICs free (one GPU per node drives a whole NIC: 48.9
    GB/s on one 400G NIC, benchlogs/FORMATS.md 8), never more than the node's NICs split over its GPUs in the
    run. Ring collectives: busbw tracks the node's NICs the run loads, per GPU x GPUs per node in the run.
    alltoall: nccl-tests busbw = bytes a rank sends x (n-1)/n / time, and of each rank's data only the
    (N-1)/N for the ranks on the other N-1 nodes crosses its NIC (the rest stays on NVLink), so the NIC
    share carries busbw up to share x N/(N-1) x (n-1)/n for n ranks (the 10-node 80-GPU log of FORMATS.md 8:
    50.4 measured against 50 x 10/9 x 79/80 = 54.9)."""
    nics, gbps, gpus_per_node = facts["nics_per_node"], facts["gbps_per_nic"], facts["gpus_per_node"]
    share, nic, node = nics * gbps / 8 / gpus_per_node, gbps / 8, nics * gbps / 8
    per_gpu = min(max(share, nic), node / per_node)
    used = min(per_node, gpus_per_node)
    basis = _(
        "%(share)s GB/s per GPU (%(nics)s x %(gbps)s Gb/s / %(gpus)s)",
        share=f"{share:g}",
        nics=nics,
        gbps=f"{gbps:g}",
        gpus=gpus_per_node,
    )
    if per_gpu > share:
        basis = ngettext(
            "%(rate)s GB/s per GPU (one whole %(gbps)s Gb/s NIC: %(used)s on %(nics)s NIC)",
            "%(rate)s GB/s per GPU (one whole %(gbps)s Gb/s NIC: %(used)s on %(nics)s NICs)",
            nics,
            rate=f"{per_gpu:g}",
            gbps=f"{gbps:g}",
            used=ngettext("%(n)s GPU/node", "%(n)s GPUs/node", used, n=used),
            nics=nics,
        )
    if run.get("collective") in RING_COLLECTIVES:
        return per_gpu * used, ngettext(
            "%(used)s GPU/node x %(basis)s",
            "%(used)s GPUs/node x %(basis)s",
            used,
            used=used,
            basis=basis,
        )
    ranks = run.get("ranks") or nodes * per_node
    factor = nodes / (nodes - 1) * (ranks - 1) / ranks
    spread = _(
        "%(basis)s x %(factor)s (alltoall: only %(remote)s/%(nodes)s of each rank's data leaves its node)",
        basis=basis,
        factor=f"{factor:.3g}",
        remote=nodes - 1,
        nodes=nodes,
    )
    return per_gpu * factor, spread


def _not_nic_traffic(
    run: dict[str, Any], measured: float | None, wire: float, item: dict[str, Any]
) -> Msg | None:
    """Why busbw cannot be NIC traffic: CollNet/SHARP, or above the line rate the run's NICs carry."""
    if _collnet(run):
        return _(
            "NCCL_ALGO=%(algo)s: CollNet/SHARP reduces inside the switches, so busbw is not what the NICs "
            "carry; rerun with NCCL_ALGO=Ring to measure the fabric",
            algo=run.get("algorithm_hint"),
        )
    if measured is None or measured <= wire:
        return None
    if run.get("collective") == "all_reduce":
        why = _(
            "in-network reduction (SHARP/CollNet), NVLS or tree inflation, or a single node's NVLink run "
            "labelled as several nodes; rerun with NCCL_ALGO=Ring on the node count stated"
        )
    else:
        why = _("a run on fewer nodes (a single node's NVLink) or more GPUs per node than stated")
    told = (
        _("node count given at upload, not by the log")
        if not run.get("nodes") and item.get("nodes")
        else None
    )
    above = _("busbw exceeds the NIC line rate (%(wire)s GB/s): not a fabric measurement", wire=f"{wire:g}")
    shown = joined(above, why, sep=_(": "))
    return joined(shown, told, sep=_("; ")) if told else shown


def disabled_transports_reason(run: dict[str, Any]) -> Msg | None:
    """Why a run made with NCCL_P2P_DISABLE, NCCL_SHM_DISABLE, NCCL_IB_DISABLE or NCCL_NET_GDR_LEVEL=0
    (the parser's `disabled_transports`) cannot be judged: its traffic went off the paths being claimed."""
    disabled = run.get("disabled_transports")
    if not disabled:
        return None
    return _(
        "the run disabled %(paths)s: a debug setting that routes traffic off NVLink/RDMA, so it does not "
        "measure the cluster; rerun without it",
        paths=listed(disabled),
    )


def inter_node_verdict_row(
    facts: dict[str, Any], item: dict[str, Any], run: dict[str, Any], nodes: int, where: str, lines: list[int]
) -> dict[str, Any]:
    """Several nodes: busbw against the claimed NICs x Gb/s x what a healthy fabric of that kind reaches."""
    measured = run.get("busbw_at_max_size_gbps")
    claim = _("inter-node bandwidth (NICs x Gb/s)")
    disabled = disabled_transports_reason(run)
    if disabled is not None:
        detail = joined(where, disabled, sep=_(": "))
        return verdict_row(claim, None, measured, "cannot-measure", detail, item, lines)
    if not (facts.get("nics_per_node") and facts.get("gbps_per_nic") and facts.get("gpus_per_node")):
        detail = _("offering does not publish NICs, Gb/s and GPUs/node: %(where)s", where=where)
        return verdict_row(claim, None, measured, "cannot-measure", detail, item, lines)
    per_node, assumed = _gpus_per_node(item, run, nodes)
    if per_node is None and assumed is not None:
        return verdict_row(
            claim, None, measured, "cannot-measure", joined(where, assumed, sep=_(": ")), item, lines
        )
    wire, basis = _line_rate(facts, run, nodes, per_node or int(facts["gpus_per_node"]))
    fraction = inter_fraction(facts)
    expected = wire * fraction
    detail = _(
        "%(where)s; expected %(basis)s x %(fraction)s achievable", where=where, basis=basis, fraction=fraction
    )
    detail = joined(detail, assumed, sep=_("; ")) if assumed else detail
    unmeasured = _not_nic_traffic(run, measured, wire, item)
    if unmeasured is not None:
        percent = measured / expected * 100 if measured is not None and expected else None
        return verdict_row(
            claim,
            round(expected, 2),
            measured,
            "cannot-measure",
            joined(detail, unmeasured, sep=_("; ")),
            item,
            lines,
            percent,
        )
    return _judged(claim, expected, measured, detail, item, run, (nodes, per_node), lines)


def _judged(
    claim: Msg,
    expected: float,
    measured: float | None,
    detail: Msg,
    item: dict[str, Any],
    run: dict[str, Any],
    scale: tuple[int, int | None],
    lines: list[int],
) -> dict[str, Any]:
    """The ratio verdict, unless a pass may be tree-inflated (2-node all_reduce) or a shortfall may be the
    sweep's small largest size: then cannot-measure."""
    nodes, per_node = scale
    tree = tree_may_inflate(run, nodes, per_node)
    if tree:
        detail = joined(
            detail,
            _("2-node all_reduce without NCCL_ALGO=Ring may be inflated by tree algorithms"),
            sep=_("; "),
        )
    row = ratio_verdict(claim, expected, measured, detail, item, lines)
    size = run.get("max_size_bytes")
    if tree and row["verdict"] == "pass":
        why = _(
            "an inflated pass may hide a slow fabric: judge all_gather/reduce_scatter, an NCCL_ALGO=Ring run "
            "or 3 or more nodes"
        )
    elif row["verdict"] in ("warn", "fail") and size and size < MIN_INTER_NODE_BYTES:
        why = _(
            "the largest size, %(size)s B, is below %(floor)s MiB: busbw has not reached its plateau "
            "(assumed floor); rerun with -e 8G or more",
            size=size,
            floor=MIN_INTER_NODE_BYTES // 2**20,
        )
    else:
        return row
    return cannot_measure_instead(row, claim, measured, detail, why, item, lines)
