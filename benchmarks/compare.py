"""Measured against claimed: verdicts for one parsed evidence item (pure, no Django).

`compare(offering_facts, item)` takes the offering facts dict and a parsed evidence item of
docs/FACTS.md and returns one verdict per claim it can check:
`{claim, expected, measured, percent_of_expected, verdict, detail, file, lines}` with verdict
`pass` (>= 80 % of expected), `warn` (50-80 %), `fail` (< 50 %, or a count/kind that contradicts the
claim) or `cannot-measure` (the evidence cannot test the claim: one rank, one node for a fabric claim,
a failed run, NVLS/tree inflation on two nodes, a claim the offering does not publish).
One verdict's shape and its bands are benchmarks.verdicts'; the fabric's files (RDMA ports, lspci, perftest)
are judged in benchmarks.compare_fabric, the kernel log's GPUs in benchmarks.compare_dmesg.

Expected busbw (GB/s, 1e9 B/s) at the largest message sizes, from the hardware package (the figures the
sizing model uses):
- Inside one node: the GPU's NVLink GB/s per direction x hardware.intra_node_busbw_efficiency for the
  offering's intra-node kind. Source: calibration.md section 5 (8x A100 NVLink3 all-reduce 235 = 78 % of
  300; 8x H100 ring ~365 of 450 = 81 %) and benchlogs/FORMATS.md section 8 (A100 235; H100
  ring/all_gather/reduce_scatter 360-370).
- Across nodes (benchmarks.internode): the NIC line rate the run's GPUs can load (the per-GPU NIC share,
  nics_per_node x gbps_per_nic / 8 / gpus_per_node, or one whole NIC where NICs are fewer than GPUs) times
  the GPUs per node in the run for the ring collectives, because each GPU drives its own rail and
  nccl-tests busbw then tracks the node's aggregate NIC bandwidth (calibration.md 5 "NDR 400G: 46-48 GB/s
  per NIC, so 8 rails ~370-384", FORMATS.md 8), and times N/(N-1) x (n-1)/n for alltoall on N nodes (the
  share that stays inside the node), x hardware.fabric_efficiency. Above that line rate, with CollNet/SHARP,
  a 2-node all_reduce pass that tree/NVLSTree may inflate, or a shortfall at a largest size below 256 MiB:
  cannot-measure.
- Across nodes inside one NVLink domain (GB200/GB300 NVL72: 72 GPUs over 18 trays, the offering's
  `nvlink_domain_gpus` or its class's): as inside one node, since NCCL carries the run over multi-node
  NVLink (_nvlink_domain_run).
sendrecv/broadcast/reduce busbw is reported but not judged against the fabric: one flow per rank
does not load every rail (FORMATS.md 8: 24.9 GB/s sendrecv vs 48.9 all_reduce on the same NIC).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from benchmarks.compare_dmesg import compare_dmesg
from benchmarks.compare_fabric import compare_lspci, compare_perftest, compare_ports
from benchmarks.internode import disabled_transports_reason, inter_node_verdict_row
from benchmarks.parsers.dcgmi import unknown_reason
from benchmarks.verdicts import (
    STABILITY_DROP_WARN,
    count_verdict,
    message_size_text,
    noted,
    ratio_verdict,
    spread_limit,
    verdict_row,
    weakest_host,
)
from hardware import (
    GPU,
    GPU_MODEL_CLAIM,
    gpu_by_name,
    gpu_from_text,
    intra_node_busbw_efficiency,
    other_gpu_names,
)
from hardware.messages import Msg, _, joined, listed, ngettext, sentences
from hardware.norms import norm_for, offering_class

JUDGED_COLLECTIVES = {"all_reduce", "all_gather", "reduce_scatter", "alltoall"}
RING_COLLECTIVES = {"all_reduce", "all_gather", "reduce_scatter"}


def _gpu(facts: dict[str, Any]) -> GPU | None:
    return gpu_by_name(facts.get("gpu"))


def _gpu_shown(facts: dict[str, Any]) -> str:
    """The offering's GPU by its name (the hardware table's), never by the table's key."""
    gpu = _gpu(facts)
    return gpu.name if gpu is not None else str(facts.get("gpu") or "")


def _nvlink_gbytes(facts: dict[str, Any]) -> tuple[float | None, str]:
    published = facts.get("intra_node_gbytes_per_s")
    if published:
        return float(published), _("the offering's published intra-node bandwidth")
    key = facts.get("gpu")
    if not key:
        return None, _("GPU not published")
    gpu = _gpu(facts)
    if gpu is None:
        return None, _("no NVLink figure for GPU %(gpu)s", gpu=key)
    return gpu.scale_up_gbytes_per_s, _("the hardware table's figure for the %(gpu)s", gpu=gpu.name)


def _intra_fraction(facts: dict[str, Any]) -> float:
    """What a healthy node of the offering's intra-node kind reaches of its link rate (hardware)."""
    return intra_node_busbw_efficiency(facts.get("intra_node") or "nvswitch")


# --- collective benchmarks ---------------------------------------------------------------------------


def run_nodes(run: dict[str, Any], item: dict[str, Any]) -> int | None:
    if run.get("nodes"):
        return int(run["nodes"])
    if item.get("nodes"):
        return int(item["nodes"])
    return None


def _unjudged(run: dict[str, Any], collective: str, nodes: int | None, where: str) -> str | None:
    """Why this run cannot test a bandwidth claim, or None when it can."""
    if run.get("failed"):
        return _("failed run (%(reason)s): %(where)s", reason=run.get("failure_reason"), where=where)
    if run.get("ranks") == 1:
        return _("one rank: busbw is 0. %(where)s", where=where)
    if nodes is None:
        return _(
            "node count unknown (not told by the log's Rank lines, and none given at upload): %(where)s",
            where=where,
        )
    if collective not in JUDGED_COLLECTIVES:
        return _(
            "%(collective)s is reported, not judged: one flow per rank does not load every link. %(where)s",
            collective=collective,
            where=where,
        )
    candidates = run.get("collective_candidates")
    if candidates and "alltoall" in candidates and nodes > 1:
        # the NICs carry a different share of each (alltoall: (N-1)/N of a rank's data leaves its node; a
        # ring collective: all of it), so the expected busbw of one guess can be 4x the other's. (The other
        # ambiguity, all_reduce or sendrecv on 2 ranks, loads each rank's NIC alike both ways: judged.)
        return _(
            "the log does not name the collective and its figures fit %(candidates)s alike, whose expected "
            "inter-node busbw differ: upload the log with its test name (the *_perf binary or the "
            "`Collective test starting` line). %(where)s",
            candidates=" / ".join(candidates),
            where=where,
        )
    return None


def _intra_nodeverdict_row(
    facts: dict[str, Any], item: dict[str, Any], run: dict[str, Any], where: str, lines: list[int]
) -> dict[str, Any]:
    """One node: busbw against the GPU's NVLink rate x what a healthy node reaches."""
    collective, measured = run.get("collective"), run.get("busbw_at_max_size_gbps")
    nvlink, source = _nvlink_gbytes(facts)
    claim = _("intra-node bandwidth (NVLink) per GPU")
    disabled = disabled_transports_reason(run)
    if disabled is not None:
        detail = joined(where, disabled, sep=_(": "))
        return verdict_row(claim, None, measured, "cannot-measure", detail, item, lines)
    if not nvlink:
        return verdict_row(
            claim, None, measured, "cannot-measure", joined(source, where, sep=_(": ")), item, lines
        )
    fraction = _intra_fraction(facts)
    expected = nvlink * fraction
    detail = _(
        "%(where)s; expected %(rate)s GB/s (%(source)s) x %(fraction)s achievable",
        where=where,
        rate=f"{nvlink:g}",
        source=source,
        fraction=fraction,
    )
    if collective == "all_reduce" and measured and measured > nvlink:
        nvls = _("above the NVLink wire rate: NVLS in-switch reduction (not a wire measurement)")
        detail = joined(detail, nvls, sep=_("; "))
    elif run.get("nvls_or_tree_suspected"):
        nvls = _("NVLS may raise all_reduce busbw (all_gather/reduce_scatter are wire measurements)")
        detail = joined(detail, nvls, sep=_("; "))
    return ratio_verdict(claim, expected, measured, detail, item, lines)


def _compare_collective_run(
    facts: dict[str, Any], item: dict[str, Any], run: dict[str, Any]
) -> dict[str, Any]:
    collective = run.get("collective") or "unknown"
    lines = [x for x in (run.get("first_line"), run.get("last_line")) if x]
    nodes = run_nodes(run, item)
    size = run.get("max_size_bytes")
    where = ngettext(
        "%(collective)s, %(ranks)s ranks on %(nodes)s node, busbw in GB/s at %(size)s",
        "%(collective)s, %(ranks)s ranks on %(nodes)s nodes, busbw in GB/s at %(size)s",
        nodes or 0,
        collective=collective,
        ranks=run.get("ranks") or "?",
        nodes=nodes or "?",
        size=message_size_text(size),
    )
    reason = _unjudged(run, collective, nodes, where)
    if reason is not None:
        if run.get("failed") and run.get("failure_line"):
            lines = [run["failure_line"]]
        measured = run.get("busbw_at_max_size_gbps")
        claim = _("%(collective)s busbw", collective=collective)
        return verdict_row(claim, None, measured, "cannot-measure", reason, item, lines)
    if nodes == 1:
        return _intra_nodeverdict_row(facts, item, run, where, lines)
    assert nodes is not None
    domain = _nvlink_domain_run(facts, run)
    if domain:
        return _intra_nodeverdict_row(facts, item, run, joined(where, domain, sep=_("; ")), lines)
    return inter_node_verdict_row(facts, item, run, nodes, where, lines)


def _nvlink_domain_run(facts: dict[str, Any], run: dict[str, Any]) -> Msg | None:
    """Why a run across nodes measures NVLink, not the NICs: its ranks fit in the offering's NVLink domain
    of several nodes (GB200/GB300 NVL72: 72 GPUs over 18 trays of 4, joined by NVLink switches), where NCCL
    carries the traffic over multi-node NVLink. A run on 16 trays of one rack reached 930 GB/s of
    all_reduce busbw (fixtures/real/nccl-tests/oci-gb300-16node-...), more than twice what the trays' NICs
    carry (4 x 800 Gb/s), so judging it against the NICs would say nothing about them. None for every other
    run."""
    per_node, ranks, nodes = facts.get("gpus_per_node"), run.get("ranks"), run_nodes(run, {})
    gpu = _gpu(facts)
    if gpu is None or gpu.vendor != "nvidia":  # NVLink only (Huawei's and AMD's scale-up links differ)
        return None
    domain, published = facts.get("nvlink_domain_gpus"), True
    if not domain:  # unpublished: the class's (hardware.norms, the one sourced table), said so
        norm = norm_for("nvlink_domain_gpus", offering_class(facts))
        domain, published = (norm.typical if norm else None), False
    if not (domain and per_node and ranks) or domain <= per_node or ranks > domain:
        return None
    if nodes is not None and nodes > domain // per_node:  # more nodes than one domain holds (1 rank per tray)
        return None
    judged = _(
        "its %(ranks)s ranks fit in the offering's NVLink domain of %(domain)s GPUs, so NCCL runs it over "
        "multi-node NVLink: judged against NVLink, not the NICs (a run whose ranks span racks, or with "
        "multi-node NVLink off, falls short of it; for the NICs, run across more than one domain)",
        ranks=ranks,
        domain=domain,
    )
    if published:
        return judged
    typical = _(
        "the offering does not publish its NVLink domain: %(domain)s GPUs is typical for its GPU; ask the "
        "provider",
        domain=domain,
    )
    return joined(judged, typical, sep=_("; "))


def _stability_nccl(item: dict[str, Any], run: dict[str, Any]) -> dict[str, Any] | None:
    values = run.get("busbw_at_max_size_per_cycle_gbps") or []
    if len(values) < 2:
        return None
    hi, lo = max(values), min(values)
    spread = (hi - lo) / hi * 100 if hi else 0.0
    verdict = (
        "pass" if spread <= STABILITY_DROP_WARN else ("warn" if spread <= 2 * STABILITY_DROP_WARN else "fail")
    )
    return verdict_row(
        _(
            "%(collective)s stability over %(count)s cycles",
            collective=run.get("collective"),
            count=len(values),
        ),
        spread_limit(),
        round(spread, 2),
        verdict,
        _("busbw at the largest size per cycle: %(values)s", values=listed(values)),
        item,
        [run.get("first_line") or 0, run.get("last_line") or 0],
    )


def _compare_collectives(facts: dict[str, Any], item: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    runs = [(run, _other_gpus(facts, run)) for run in item.get("summary", {}).get("runs", [])]
    other = sorted({name for _run, names in runs for name in names})
    if other:
        why = _("the GPUs the log's ranks ran on vs the offering's GPU: its figures are another GPU's")
        lines = [run["first_line"] for run, names in runs if names and run.get("first_line")]
        out.append(verdict_row(GPU_MODEL_CLAIM, _gpu_shown(facts), listed(other), "fail", why, item, lines))
    for run, names in runs:
        if names:  # another GPU's figures: not judged against this offering's links, nor its stability
            out.append(_other_gpus_row(facts, item, run, names))
            continue
        out.append(_compare_collective_run(facts, item, run))
        stab = _stability_nccl(item, run)
        if stab:
            out.append(stab)
    return out


def _other_gpus_row(
    facts: dict[str, Any], item: dict[str, Any], run: dict[str, Any], names: list[str]
) -> dict[str, Any]:
    why = _(
        "ran on %(gpus)s, not on the offering's %(gpu)s: its bandwidth is not judged against this offering's "
        "links",
        gpus=listed(names),
        gpu=_gpu_shown(facts),
    )
    claim = _("%(collective)s busbw", collective=run.get("collective") or "unknown")
    lines = [x for x in (run.get("first_line"), run.get("last_line")) if x]
    return verdict_row(claim, None, run.get("busbw_at_max_size_gbps"), "cannot-measure", why, item, lines)


def _other_gpus(facts: dict[str, Any], run: dict[str, Any]) -> list[str]:
    """A run's Rank-line GPU names if another GPU than the offering's (hardware.other_gpu_names)."""
    return other_gpu_names(facts.get("gpu"), run.get("gpu_names") or [])


# --- evidence files -------------------------------------------------------------------------------


def _gpu_model_matches(gpu_key: str | None, names: list[str]) -> bool | None:
    if not gpu_key or not names:
        return None
    claimed = gpu_from_text(gpu_key)
    if claimed is None:
        return None  # a GPU outside the hardware table: nothing to compare the names with
    # A model the table does not know, or another row (an A100 40GB where 80GB is claimed, a PCIe or NVL
    # card where SXM is claimed), is not the claimed GPU.
    return all((seen := gpu_from_text(name)) is not None and seen.key == claimed.key for name in names)


def _model_basis(s: dict[str, Any]) -> Msg:
    """What the GPU-model verdict compared: virtual GPUs and off-table memory sizes are said (gpu_names)."""
    if s.get("vgpu_profiles"):
        return _("vGPU profiles (virtual GPUs, each a share of one GPU) vs the offering's whole GPU")
    if s.get("gpu_names_not_in_table"):
        return _(
            "model string and its memory size vs the offering's GPU (no GPU of the table has that memory)"
        )
    return _("model string vs the offering's GPU (form factor included: SXM vs PCIe)")


def _compare_gpus(facts: dict[str, Any], item: dict[str, Any]) -> list[dict[str, Any]]:
    s = item.get("summary", {})
    lines = s.get("lines", [])
    in_error = s.get("gpus_in_error") or []
    out = [_gpus_per_node_verdict(facts, item, in_error, lines)]
    models = s.get("gpu_models") or []
    match = _gpu_model_matches(facts.get("gpu"), models)
    if match is not None:
        out.append(
            verdict_row(
                GPU_MODEL_CLAIM,
                _gpu_shown(facts),
                listed(models),
                "pass" if match else "fail",
                _model_basis(s),
                item,
                lines,
            )
        )
    # GPUs the driver cannot reach, and GPUs a later whole table of the same host no longer shows
    lost = s.get("lost_gpus") or []
    missing = s.get("gpus_missing_later") or []
    for gone, why, where in (
        (lost, _("GPUs not reachable by the driver"), [x["line"] for x in lost]),
        (
            missing,
            _("GPUs an earlier table showed and a later whole table of the same host does not (lost)"),
            sorted({x["missing_from_line"] for x in missing}),
        ),
    ):
        if gone:
            out.append(verdict_row(_("usable GPUs"), 0, len(gone), "fail", why, item, where))
    if in_error:
        named = joined(
            *(
                _(
                    "GPU %(gpu)s (%(bus_id)s, line %(line)s)",
                    gpu=g["index"],
                    bus_id=g["bus_id"],
                    line=g["line"],
                )
                for g in in_error
            ),
            sep=_("; "),
        )
        why = _(
            "GPUs present whose latest NVML readings are ERR! for the name or a field read from the GPU (not "
            "only the fan or power sensor): %(gpus)s",
            gpus=named,
        )
        out.append(
            verdict_row(_("usable GPUs"), 0, len(in_error), "fail", why, item, [g["line"] for g in in_error])
        )
    return out


def _gpus_per_node_verdict(
    facts: dict[str, Any], item: dict[str, Any], in_error: list[dict[str, Any]], lines: list[int]
) -> dict[str, Any]:
    """GPUs per node from a table: a GPU whose readings are ERR! (nvidia_smi `gpus_in_error`) is present but
    not counted as a working GPU."""
    s = item.get("summary", {})
    gpus, expected = s.get("gpus"), facts.get("gpus_per_node")
    claim = _("GPUs per node")
    if s.get("source") == "nvidia-smi nvlink -R" and expected is not None and gpus is not None:
        if gpus - len(in_error) < expected:
            detail = ngettext(
                "`nvidia-smi nvlink -R` lists the GPUs it was asked for (`-i`): %(gpus)s GPU shown is a "
                "minimum, not the node's count",
                "`nvidia-smi nvlink -R` lists the GPUs it was asked for (`-i`): %(gpus)s GPUs shown is a "
                "minimum, not the node's count",
                gpus,
                gpus=gpus,
            )
            return verdict_row(claim, expected, gpus - len(in_error), "cannot-measure", detail, item, lines)
    per_host = s.get("gpus_per_host") or {}
    if len(per_host) > 1 and expected is not None:
        return _weakest_host_gpus(claim, expected, per_host, in_error, item, lines)
    if not in_error or gpus is None:
        return count_verdict(claim, expected, gpus, item, lines)
    detail = ngettext(
        "%(gpus)s GPU shown, %(errors)s of them reading ERR! (not counted)",
        "%(gpus)s GPUs shown, %(errors)s of them reading ERR! (not counted)",
        gpus,
        gpus=gpus,
        errors=len(in_error),
    )
    return count_verdict(claim, expected, gpus - len(in_error), item, lines, detail)


def _weakest_host_gpus(
    claim: str,
    expected: int,
    per_host: dict[str, int],
    in_error: list[dict[str, Any]],
    item: dict[str, Any],
    lines: list[int],
) -> dict[str, Any]:
    """GPUs per node from a file of several hosts' GPUs (nvidia_smi `gpus_per_host`): the host with the
    fewest usable GPUs (ERR! ones not counted) against the per-node claim, as the port reports are judged
    (compare_fabric.compare_ports); their sum would hide a node short of GPUs behind the others."""
    errors = Counter(g.get("host") for g in in_error)
    usable = {host: n - errors.get(host, 0) for host, n in per_host.items()}
    host = min(usable, key=lambda h: usable[h])
    detail = _(
        "host %(host)s, the fewest of %(count)s hosts (%(each)s)",
        host=host,
        count=len(usable),
        each=listed([f"{h}: {n}" for h, n in list(usable.items())[:16]], more=len(usable) > 16),
    )
    return count_verdict(claim, expected, usable[host], item, lines, detail)


def _compare_topo(facts: dict[str, Any], item: dict[str, Any]) -> list[dict[str, Any]]:
    s = item.get("summary", {})
    lines = s.get("lines", [])
    out = [_topo_gpus_verdict(facts, item, lines)]
    intra = facts.get("intra_node")
    mesh = s.get("full_nvlink_mesh")
    if intra in ("nvswitch", "nvlink-mesh"):
        if mesh is None:
            out.append(
                verdict_row(
                    _("full NVLink mesh"),
                    True,
                    None,
                    "cannot-measure",
                    _("fewer than 2 GPUs shown"),
                    item,
                    lines,
                )
            )
        elif mesh and len(s.get("gpu_rows_missing") or []) > 1:
            # Pairs between two GPUs whose rows were both cut are shown in no row.
            unseen = _(
                "every pair shown is NV#, but the rows of %(gpus)s were cut: the pairs among them are not "
                "shown",
                gpus=listed(s["gpu_rows_missing"]),
            )
            out.append(verdict_row(_("full NVLink mesh"), True, None, "cannot-measure", unseen, item, lines))
        else:
            bad = listed(f"{p['pair']}={p['connection']}" for p in s.get("pairs_not_nvlink", [])[:8])
            out.append(
                verdict_row(
                    _("full NVLink mesh"),
                    True,
                    mesh,
                    "pass" if mesh else "fail",
                    _("every GPU pair is NV#") if mesh else _("pairs not on NVLink: %(pairs)s", pairs=bad),
                    item,
                    lines,
                )
            )
    gpu = _gpu(facts)
    expected_links = gpu.nvlinks if gpu is not None and gpu.nvlinks else None
    if intra == "nvswitch" and expected_links and s.get("min_nvlinks_per_pair") is not None:
        out.append(
            count_verdict(
                _("NVLinks per GPU pair"),
                expected_links,
                s.get("min_nvlinks_per_pair"),
                item,
                lines,
                _(
                    "NV%(links)s expected for the %(gpu)s on NVSwitch",
                    links=expected_links,
                    gpu=_gpu_shown(facts),
                ),
            )
        )
    out.append(_rail_nics_verdict(facts, item, gpu, lines))
    if s.get("host") and len(s.get("hosts") or []) > 1:  # several hosts' matrices: the weakest was read
        return [noted(row, weakest_host(s["host"], len(s["hosts"]))) for row in out]
    return out


def _topo_gpus_verdict(facts: dict[str, Any], item: dict[str, Any], lines: list[int]) -> dict[str, Any]:
    """GPUs per node from the matrix rows. Without the matrix's header (topo.py `header_missing`) the rows
    shown may be a cut excerpt: fewer GPUs than claimed cannot be measured, as many or more pass."""
    s = item.get("summary", {})
    claim, expected, measured = _("GPUs per node"), facts.get("gpus_per_node"), s.get("gpus")
    if s.get("header_missing") and expected is not None and measured is not None and measured < expected:
        detail = ngettext(
            "the matrix has no column header, so its GPU rows may have been cut with it: %(gpus)s GPU shown "
            "is a minimum",
            "the matrix has no column header, so its GPU rows may have been cut with it: %(gpus)s GPUs "
            "shown is a minimum",
            measured,
            gpus=measured,
        )
        return verdict_row(claim, expected, measured, "cannot-measure", detail, item, lines)
    return count_verdict(claim, expected, measured, item, lines)


def _rail_nics_verdict(
    facts: dict[str, Any], item: dict[str, Any], gpu: GPU | None, lines: list[int]
) -> dict[str, Any]:
    """The GPU-fabric NICs a topology shows: those behind a GPU's PCIe switch (PIX/PXB). On a Grace superchip
    (GB200, GB300) every NIC hangs off the Grace CPU and shows SYS/NODE to every GPU, so none would count:
    the topology cannot measure them there, and the port listings (ibstat, ibv_devinfo) do."""
    s = item.get("summary", {})
    nics = facts.get("nics_per_node")
    claim = _("GPU-fabric NICs per node")
    if gpu is not None and gpu.on_grace_superchip:
        detail = ngettext(
            "on the %(gpu)s the NICs attach to the Grace CPU (NVLink-C2C), so the topology shows every NIC "
            "SYS or NODE to every GPU and cannot tell the GPU-fabric NICs; %(nics)s NIC column in total: "
            "judge the NIC count from ibstat or ibv_devinfo",
            "on the %(gpu)s the NICs attach to the Grace CPU (NVLink-C2C), so the topology shows every NIC "
            "SYS or NODE to every GPU and cannot tell the GPU-fabric NICs; %(nics)s NIC columns in total: "
            "judge the NIC count from ibstat or ibv_devinfo",
            s.get("nics") or 0,
            gpu=_gpu_shown(facts),
            nics=_or_unknown(s.get("nics", 0)),
        )
        return verdict_row(claim, nics, None, "cannot-measure", detail, item, lines)
    missing = s.get("gpu_rows_missing") or []
    # The header names every NIC column: the cut rows can reveal only NICs among them, so when it shows
    # fewer than the claim the count fails whatever the cut rows held.
    header_reaches = s.get("nics") is not None and nics is not None and s["nics"] >= nics
    if missing and header_reaches and s.get("rail_nics") is not None and s["rail_nics"] < nics:
        cut = ngettext(
            "the rows of %(gpus)s were cut from the excerpt: the NICs behind those GPUs are not shown, so "
            "%(rail)s behind a GPU's PCIe switch is a minimum; %(nics)s NIC column in total",
            "the rows of %(gpus)s were cut from the excerpt: the NICs behind those GPUs are not shown, so "
            "%(rail)s behind a GPU's PCIe switch is a minimum; %(nics)s NIC columns in total",
            s["nics"],
            gpus=listed(missing),
            rail=ngettext("%(n)s NIC", "%(n)s NICs", s["rail_nics"], n=s["rail_nics"]),
            nics=_or_unknown(s.get("nics")),
        )
        return verdict_row(claim, nics, s["rail_nics"], "cannot-measure", cut, item, lines)
    if s.get("rail_nics", 0) is None:
        untold = _(
            "the column header was lost: the cells after the GPU columns may be NICs or GPUs whose rows were "
            "cut, so the NICs cannot be told"
        )
        return verdict_row(claim, nics, None, "cannot-measure", untold, item, lines)
    return count_verdict(
        claim,
        nics,
        s.get("rail_nics"),
        item,
        lines,
        ngettext(
            "NICs behind a GPU's PCIe switch (PIX/PXB); %(nics)s NIC column in total",
            "NICs behind a GPU's PCIe switch (PIX/PXB); %(nics)s NIC columns in total",
            s.get("nics") or 0,
            nics=s.get("nics", 0),
        ),
    )


def _weakest_nvlink_host(s: dict[str, Any]) -> Msg | None:
    """In a listing of several hosts' GPUs (`per_gpu` entries with a `host`), the host of the GPU with the
    fewest active links, named as the other per-node rows name theirs; None otherwise."""
    gpus = [g for g in s.get("per_gpu") or [] if g.get("host") and g.get("active_links") is not None]
    hosts = {g["host"] for g in gpus}
    if len(hosts) < 2:
        return None
    weakest = min(gpus, key=lambda g: g["active_links"])
    return weakest_host(weakest["host"], len(hosts))


def _compare_nvlink(facts: dict[str, Any], item: dict[str, Any]) -> list[dict[str, Any]]:
    s = item.get("summary", {})
    lines = s.get("lines", [])
    gpu = _gpu(facts)
    out = []
    nvlinks = gpu.nvlinks if gpu is not None and gpu.nvlinks else None
    expected = nvlinks if facts.get("intra_node") in ("nvswitch", "nvlink-mesh", None) else None
    if facts.get("intra_node") == "pcie":
        expected = 0
    inactive, gpus = s.get("inactive_links", 0), s.get("gpus")
    shown = _(
        "%(inactive)s; %(gpus)s shown",
        inactive=ngettext("%(n)s inactive link", "%(n)s inactive links", inactive or 0, n=inactive),
        gpus=ngettext("%(n)s GPU", "%(n)s GPUs", gpus or 0, n=gpus),
    )
    claim = _("active NVLinks per GPU")
    # Every GPU's listing elided (`...`): the links per GPU are a minimum, which passes when it meets the
    # claim and below it neither meets nor contradicts it.
    at_least = s.get("active_links_per_gpu_at_least")
    if at_least is None:
        out.append(count_verdict(claim, expected, s.get("active_links_per_gpu"), item, lines, shown))
        weakest = _weakest_nvlink_host(s)
        if weakest is not None:
            out[-1] = noted(out[-1], weakest)
    else:
        elided = _("every GPU's link listing is elided (`...`): at least %(links)s shown.", links=at_least)
        if expected is not None and at_least >= expected:
            out.append(count_verdict(claim, expected, at_least, item, lines, sentences(elided, shown)))
        else:
            out.append(
                verdict_row(claim, expected, None, "cannot-measure", sentences(elided, shown), item, lines)
            )
    speed = gpu.link_gbytes_per_s if gpu is not None else None
    if speed and s.get("min_link_gbps") is not None:
        out.append(
            ratio_verdict(
                _("NVLink speed per link (GB/s)"),
                speed,
                s.get("min_link_gbps"),
                _("slowest link"),
                item,
                lines,
            )
        )
    gpn = facts.get("gpus_per_node")
    # A GPU whose listing an elision cut (while others are whole) is left out of the links per GPU.
    cut = sum(1 for g in s.get("per_gpu") or [] if g.get("listing_cut")) if at_least is None else 0
    if gpn and s.get("gpus") is not None and s["gpus"] - cut < gpn:
        detail = _("fewer GPUs shown than the node has (`-i` or a cut excerpt)")
        elided = ngettext(
            "%(cut)s GPU with an elided link listing (`...`) left out",
            "%(cut)s GPUs with an elided link listing (`...`) left out",
            cut,
            cut=cut,
        )
        if cut:
            detail = joined(detail, elided, sep=_("; ")) if s["gpus"] < gpn else elided
        out.append(verdict_row(_("GPUs evidenced"), gpn, s["gpus"] - cut, "warn", detail, item, lines))
    return out


def _compare_training(facts: dict[str, Any], item: dict[str, Any]) -> list[dict[str, Any]]:
    s = item.get("summary", {})
    stalls = s.get("stalls") or []
    problems = len(stalls) + int(s.get("skipped_iterations") or 0) + int(s.get("nan_iterations") or 0)
    steady = s.get("steady_iterations") or 0
    verdict = "cannot-measure" if steady < 3 else ("pass" if problems == 0 else "warn")
    return [
        verdict_row(
            _("training stability"),
            _("no stalls, skipped or nan iterations"),
            problems,
            verdict,
            ngettext(
                "%(steady)s steady iterations after %(warmup)s warm-up; median %(iteration)s s, %(tflops)s "
                "TFLOP/s/GPU; %(stalls)s stall over 2x the median",
                "%(steady)s steady iterations after %(warmup)s warm-up; median %(iteration)s s, %(tflops)s "
                "TFLOP/s/GPU; %(stalls)s stalls over 2x the median",
                len(stalls),
                steady=steady,
                warmup=len(s.get("warmup_iterations_excluded") or []),
                iteration=_or_unknown(s.get("median_iteration_s")),
                tflops=_or_unknown(s.get("median_tflops_per_gpu")),
                stalls=len(stalls),
            ),
            item,
            [x["line"] for x in stalls] or [x for x in (s.get("first_line"), s.get("last_line")) if x],
        )
    ]


def _or_unknown(value: Any) -> Any:
    """A figure the log did not give, as "?" in a sentence (never "None")."""
    return "?" if value is None else value


def _compare_dcgmi(facts: dict[str, Any], item: dict[str, Any]) -> list[dict[str, Any]]:
    s = item.get("summary", {})
    failed = s.get("failed_tests") or []
    if s.get("passed"):
        measured, verdict = _("pass"), "pass"
    elif failed:
        measured, verdict = _("failed: %(tests)s", tests=listed(failed)), "fail"
    else:
        measured, verdict = unknown_reason(s), "cannot-measure"
    return [
        verdict_row(
            _("GPU health (dcgmi diag)"),
            _("all tests pass"),
            measured,
            verdict,
            _(
                "level -r %(level)s; warned: %(warned)s",
                level=s.get("level") or "?",
                warned=listed(s.get("warned_tests") or []) or _("none"),
            ),
            item,
            s.get("lines", []),
        )
    ]


def compare(offering_facts: dict[str, Any], item: dict[str, Any]) -> list[dict[str, Any]]:
    """Verdicts for one parsed evidence item against the offering's claims (see the module docstring)."""
    kind = item.get("kind")
    facts = offering_facts or {}
    if kind in ("nccl-tests", "rccl-tests", "hccl-test"):
        return _compare_collectives(facts, item)
    if kind == "nvidia-smi":
        return _compare_gpus(facts, item)
    if kind == "nvidia-smi-topo":
        return _compare_topo(facts, item)
    if kind in ("nvidia-smi-nvlink", "dcgmi-nvlink"):
        return _compare_nvlink(facts, item)
    if kind in ("ibstat", "ibstatus", "ibv_devinfo", "ibdev2netdev", "rdma-link"):
        return compare_ports(facts, item)
    if kind == "lspci":
        return compare_lspci(facts, item)
    if kind == "perftest":
        return compare_perftest(facts, item)
    if kind in ("megatron", "torchtitan", "deepspeed"):
        return _compare_training(facts, item)
    if kind == "dcgmi-diag":
        return _compare_dcgmi(facts, item)
    if kind == "dmesg":
        return compare_dmesg(facts, item)
    return [
        verdict_row(
            _("evidence"),
            None,
            None,
            "cannot-measure",
            _("no comparison for this kind of file (%(kind)s)", kind=kind or _("not recognised")),
            item,
        )
    ]
