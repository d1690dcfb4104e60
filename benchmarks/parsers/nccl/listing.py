"""Part of stage 3 (summary.py): what a run's Rank lines say when they are not one line per rank.

nccl-tests' rank-0 process prints one `#  Rank N ... on HOST device D [bus] NAME` line per rank
(benchlogs/FORMATS.md 1.1), so a complete listing gives the ranks, the hosts and the GPUs per node. A
published listing is often incomplete: filtered (only ranks 7 and 15), or cut with a `...` line (ranks 0, 1,
`...`, 62, 63 of a 16-node rack). Its hosts are then only the hosts shown, never the node count: the count is
left unknown unless one block layout fits every line shown (block_layout), and each case says what it
assumed. The rank ids tell a cut listing: a `...` between Rank lines whose ids run on removed none, and one
after the last Rank line more often stands for NCCL INFO lines than for ranks, so it is not read as a cut.

A build of nccl-tests without MPI launched by mpirun or srun prints the other way round: every process runs
a communicator of its own and prints `Rank 0` (with its own Pid), so one rank is listed many times.
"""

from __future__ import annotations

from hardware.messages import _, ngettext

from .assembly import Run
from .blocks import Ranks

# How an incomplete rank listing's node count was found (block_layout).
BLOCK_LAYOUT_SOURCE = "rank-lines (incomplete listing: the one block layout that fits the ranks shown)"


def listing_complete(ranks: Ranks) -> bool:
    return bool(ranks) and len(ranks) == max(ranks) + 1


# The most GPUs a node (a host running one OS) carries in any offering class: 8 on HGX, OAM and Atlas boards,
# 4 on GB200/GB300 trays; 64 leaves room and bounds block_layout's search whatever rank id a log prints.
MAX_GPUS_PER_NODE = 64


def block_layout(ranks: Ranks, total: int) -> int | None:
    """GPUs per node behind an incomplete rank listing: the one count g that fits every Rank line shown when
    each node runs g consecutive ranks on devices 0..g-1 (mpirun's and srun's block placement, one rank per
    GPU): g divides the ranks, each rank shown is on device rank mod g, and ranks share a host exactly when
    they share a block. None when no count or several fit, or when every rank shown is on device 0 (devices
    numbered per process say nothing of the node). Ranks 0, 1 and 62, 63 of 64 on two hosts, devices 0, 1,
    2, 3: only g = 4 fits (16 nodes, an OCI GB300 rack)."""
    top = max(device for _host, device, *_rest in ranks.values())
    if top < 1:
        return None
    most = min(total, MAX_GPUS_PER_NODE)  # bounded whatever rank id a line prints (linear time)
    fits = [g for g in range(top + 1, most + 1) if total % g == 0 and _fits_blocks(ranks, g)]
    return fits[0] if len(fits) == 1 else None


def _fits_blocks(ranks: Ranks, per_node: int) -> bool:
    host_of_block: dict[int, str] = {}
    for rank, (host, device, *_rest) in ranks.items():
        if device != rank % per_node or host_of_block.setdefault(rank // per_node, host) != host:
            return False
    return len(set(host_of_block.values())) == len(host_of_block)


def partial_rank_listing_warning(run: Run) -> str | None:
    if not run.ranks or listing_complete(run.ranks):
        return None
    return _(
        "only %(lines)s Rank lines for rank ids up to %(highest)s (listing filtered or cut); "
        "ranks taken from the highest id",
        lines=len(run.ranks),
        highest=max(run.ranks),
    )


def listing_nodes_warning(
    run: Run, hosts: int, nodes: tuple[int | None, str | None], per_node: int | None
) -> str | None:
    """What an incomplete rank listing leaves unknown, or what was assumed for it (`nodes`: the node count
    and its source, summary._node_count); nothing when a wrapper's separator or NCCL INFO `nNodes` gave the
    count."""
    count, source = nodes
    if source == "rank-lines" or not run.ranks or listing_complete(run.ranks):  # a complete listing's hosts
        return None
    if source == BLOCK_LAYOUT_SOURCE:
        return ngettext(
            "the Rank listing is incomplete (%(hosts)s host shown), so its host is not counted as the "
            "nodes: %(nodes)s nodes x %(per_node)s GPUs assumed, the one layout that fits every Rank line "
            "shown when each node runs the same number of consecutive ranks on devices 0, 1, ...",
            "the Rank listing is incomplete (%(hosts)s hosts shown), so its hosts are not counted as the "
            "nodes: %(nodes)s nodes x %(per_node)s GPUs assumed, the one layout that fits every Rank line "
            "shown when each node runs the same number of consecutive ranks on devices 0, 1, ...",
            hosts,
            hosts=hosts,
            nodes=count,
            per_node=per_node,
        )
    if count is not None:
        return None
    return ngettext(
        "the Rank listing is incomplete: the %(hosts)s host it shows is not the node count, which is left "
        "unknown (so is the number of GPUs per node)",
        "the Rank listing is incomplete: the %(hosts)s hosts it shows are not the node count, which is left "
        "unknown (so is the number of GPUs per node)",
        hosts,
        hosts=hosts,
    )


def one_rank_jobs_warning(run: Run) -> str | None:
    """Several `Rank 0` lines and no other rank: every process ran a communicator of its own."""
    if run.rank_lines < 2 or len(run.ranks) != 1 or 0 not in run.ranks:
        return None
    return _(
        "%(lines)s Rank lines all name rank 0: each process ran as its own 1-rank job (nccl-tests built "
        "without MPI, launched by mpirun or srun), so the bandwidth is not a measurement between GPUs",
        lines=run.rank_lines,
    )
