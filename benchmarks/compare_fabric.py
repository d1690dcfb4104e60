"""The fabric's evidence against its claims (pure, no Django): RDMA ports (ibstat, ibstatus, ibv_devinfo,
ibdev2netdev, rdma link), the NIC functions lspci lists, and perftest bandwidth and link type. Called by
benchmarks.compare for those kinds of file."""

from __future__ import annotations

from typing import Any

from benchmarks.parsers.infiniband import APART_FLAGS, UP_PHYSICAL_STATES
from benchmarks.parsers.perftest import is_atomic
from benchmarks.verdicts import (
    STABILITY_DROP_WARN,
    cannot_measure_instead,
    count_verdict,
    inter_fraction,
    noted,
    ratio_verdict,
    spread_limit,
    verdict_row,
    weakest_host,
)
from hardware import FABRIC_LINK_LAYERS, fabric_name, port_link_layer
from hardware.messages import Msg, _, joined, listed, ngettext

# How bad a verdict is, to break a tie between hosts with as many good ports.
VERDICT_RANK = {"pass": 0, "cannot-measure": 1, "warn": 2, "fail": 3}
# The smallest "largest message size" whose perftest BW average is judged against the port rate when it
# falls short. Assumed floor; basis: perftest's default message size for the bandwidth tests is 65536 B
# (perftest_parameters.h DEF_SIZE_BW), the size its authors report a link's bandwidth at, and below it the
# per-message cost dominates (a 100G port gave 19 Gb/s at 512 B, hunt 7). As internode.MIN_INTER_NODE_BYTES
# for nccl-tests, a sweep that stops below it and still reaches the expected rate passes.
MIN_PERFTEST_BYTES = 65536


def _own_port(p: dict[str, Any]) -> bool:
    """A NIC's own port: not a software RDMA device (rxe, siw), an SR-IOV virtual function nor an mlx5
    sub-function, which the parser flags and lists apart (infiniband._set_apart)."""
    return not any(p.get(flag) for flag in APART_FLAGS)


def _ports_by_state(
    ports: list[dict[str, Any]], wanted_layer: str, gbps: float | None
) -> dict[str, list[dict[str, Any]]]:
    """The ports sorted by what they say about the claim: good (active, up, the claimed link layer, fast
    enough or rate not shown), on another link layer, not active, active but slower than claimed, active and
    up with no link-layer line (a listing cut before it), and set apart (software RDMA, virtual functions)."""
    own = [p for p in ports if _own_port(p)]
    active = [p for p in own if p.get("state") == "Active"]
    # An iWARP port (RDMA over TCP, ibv_devinfo `transport: iWARP (1)`) says Ethernet but is not RoCE.
    wanted = [
        p
        for p in active
        if p.get("link_layer") == wanted_layer and not str(p.get("transport") or "").startswith("iWARP")
    ]

    def up_and_fast(p: dict[str, Any]) -> bool:
        return p.get("physical_state") in UP_PHYSICAL_STATES and (
            gbps is None or p.get("rate_gbps") is None or p["rate_gbps"] >= gbps
        )

    return {
        "good": [p for p in wanted if up_and_fast(p)],
        "other_layer": [p for p in active if p.get("link_layer") not in (wanted_layer, None)],
        "down": [p for p in own if p.get("state") not in ("Active", None)],
        "slow": [p for p in wanted if gbps and p.get("rate_gbps") and p["rate_gbps"] < gbps],
        "wanted": wanted,
        "unknown_layer": [p for p in active if p.get("link_layer") is None and up_and_fast(p)],
        "apart": [p for p in ports if not _own_port(p)],
    }


def _port_list(ports: list[dict[str, Any]], field: str | None = None) -> Msg:
    """`mlx5_0/1 Down, ...`: the first eight ports, each with a field when given."""
    return listed(
        f"{p['device'] or '?'}/{p['port'] or '?'}"
        + (f" {p[field]:g}" if field == "rate_gbps" else f" {p[field]}" if field else "")
        for p in ports[:8]
    )


def _ports_detail(groups: dict[str, list[dict[str, Any]]], wanted_layer: str, gbps: float | None) -> str:
    unrated = any(p.get("rate_gbps") is None for p in groups["good"])
    parts: list[str] = [
        _("Active + LinkUp + %(layer)s + >= %(gbps)s Gb/s", layer=wanted_layer, gbps=f"{gbps:g}")
        if gbps and not unrated
        else _("Active + LinkUp + %(layer)s", layer=wanted_layer)
    ]
    if unrated:
        parts.append(_("rate not shown by this tool"))
    if groups["slow"]:
        parts.append(_("slower ports: %(ports)s", ports=_port_list(groups["slow"], "rate_gbps")))
    if groups["down"]:
        parts.append(_("not active: %(ports)s", ports=_port_list(groups["down"], "state")))
    if groups["unknown_layer"]:
        parts.append(
            _(
                "active, link layer not shown (listing cut): %(ports)s",
                ports=_port_list(groups["unknown_layer"]),
            )
        )
    if groups["apart"]:
        parts.append(_apart_note(groups["apart"]))
    return joined(*parts, sep=_("; "))


def compare_ports(facts: dict[str, Any], item: dict[str, Any]) -> list[dict[str, Any]]:
    """The ports against the per-node claim; a file holding several hosts' listings (ports with a `host`,
    named by shell prompts) is judged on the host with the fewest good ports among those whose count could
    be told. A host whose listing may go on unseen (an author's `...` inside it, or the report's cut) and
    whose count falls short is not that host: its count row follows, cannot-measure, so that a cut host
    neither hides a complete host's fail nor stands for the file."""
    summary = item.get("summary", {})
    ports = summary.get("ports", [])
    by_host: dict[Any, list[dict[str, Any]]] = {}
    for p in ports:
        by_host.setdefault(p.get("host"), []).append(p)
    # Lines where a listing may go on unseen: an author's `...`, or where the report was read to (its cut)
    open_lines = sorted([*(summary.get("elided_lines") or []), *filter(None, [summary.get("read_to_line")])])
    if len(by_host) < 2:
        return _judge_ports(facts, item, ports, None, open_lines[0] if open_lines else None)
    # The weakest host: the fewest good ports (counted apart from the rows' order), then the worse verdicts.
    wanted_layer, gbps = port_link_layer(facts.get("fabric")), facts.get("gbps_per_nic")
    starts = sorted(min(p.get("line") or 0 for p in host_ports) for host_ports in by_host.values())
    told: list[Any] = []
    untold: list[Any] = []
    for host, host_ports in by_host.items():
        note = _("host %(host)s, the fewest of %(count)s hosts", host=host or "?", count=len(by_host))
        # a host's listing runs from its first port to the next host's: only a mark inside it leaves it open
        first = min(p.get("line") or 0 for p in host_ports)
        end = next((start for start in starts if start > first), None)
        open_line = next((n for n in open_lines if n >= first and (end is None or n < end)), None)
        rows = _judge_ports(facts, item, host_ports, note, open_line)
        badness = sum(VERDICT_RANK.get(row["verdict"], 0) for row in rows)
        judged = (_good_port_count(item, host_ports, wanted_layer, gbps), -badness, rows)
        short_and_open = open_line is not None and rows[0]["verdict"] == "cannot-measure"
        (untold if short_and_open else told).append((host, host_ports, open_line, judged))
    if not told:
        return min((j[3] for j in untold), key=lambda host: host[:2])[2]
    weakest = min((j[3] for j in told), key=lambda host: host[:2])[2]
    for host, host_ports, open_line, _judged in untold:
        note = _("host %(host)s, its listing cut short", host=host or "?")
        weakest.append(_judge_ports(facts, item, host_ports, note, open_line)[0])
    return weakest


def _good_port_count(
    item: dict[str, Any], ports: list[dict[str, Any]], wanted_layer: str | None, gbps: float | None
) -> int:
    """The ports of one host that meet the claim: on the claimed link layer for plain ibdev2netdev (which
    shows no port state), else Active + LinkUp + link layer + rate (_ports_by_state's `good`)."""
    if wanted_layer is None:
        return 0
    if _netdev_only(item, ports):
        return len(_netdev_layer_ports(ports, wanted_layer))
    return len(_ports_by_state(ports, wanted_layer, gbps)["good"])


def _netdev_layer_ports(ports: list[dict[str, Any]], wanted_layer: str) -> list[dict[str, Any]]:
    """Plain ibdev2netdev's ports on the claimed link layer (from netdev names), a NIC's own ports only."""
    return [p for p in ports if p.get("link_layer") == wanted_layer and _own_port(p)]


def _apart_note(ports: list[dict[str, Any]]) -> Msg:
    """The ports set apart from the counts (infiniband._set_apart), named for a verdict's detail."""
    return _("not counted (software RDMA or SR-IOV virtual function): %(ports)s", ports=_port_list(ports))


def _netdev_only(item: dict[str, Any], ports: list[dict[str, Any]]) -> bool:
    """Plain ibdev2netdev: no RDMA port state, only netdev names and carriers. `ibdev2netdev -v` prints the
    port state (`port 1 (ACTIVE)`), and its ports are judged on it as ibstat's are."""
    return item.get("kind") == "ibdev2netdev" and not (ports and all(p.get("state") for p in ports))


def _with_host(detail: str, host_note: Msg | None) -> str:
    return joined(detail, host_note, sep=_("; ")) if host_note is not None else detail


def _ibdev2netdev_ports(
    claim_nics: Any,
    item: dict[str, Any],
    ports: list[dict[str, Any]],
    wanted_layer: str,
    host_note: Msg | None,
) -> dict[str, Any]:
    """ibdev2netdev's ports on the claimed layer, from netdev names; virtual functions and software RDMA
    devices are named, not counted."""
    layer_ports = _netdev_layer_ports(ports, wanted_layer)
    detail: Msg = _("from netdev names; ibdev2netdev does not show the RDMA port state")
    apart = [p for p in ports if not _own_port(p)]
    if apart:
        detail = joined(detail, _apart_note(apart), sep=_("; "))
    lines = [p["line"] for p in layer_ports]
    claim = _("%(layer)s ports per node", layer=wanted_layer)
    return count_verdict(claim, claim_nics, len(layer_ports), item, lines, _with_host(detail, host_note))


def _port_count_row(
    facts: dict[str, Any], item: dict[str, Any], groups: dict[str, list[dict[str, Any]]], detail: str
) -> dict[str, Any]:
    """The good ports against nics_per_node. Too few fails, unless active ports whose link-layer line was
    cut (a listing that stops before it) could make up the claim: then the count cannot be told."""
    wanted_layer, nics = port_link_layer(facts.get("fabric")), facts.get("nics_per_node")
    good, unknown = groups["good"], groups["unknown_layer"]
    claim = _("%(layer)s GPU-fabric ports", layer=wanted_layer)
    lines = [p["line"] for p in good]
    row = count_verdict(claim, nics, len(good), item, lines, detail)
    if row["verdict"] != "fail" or not unknown or nics is None or len(good) + len(unknown) < nics:
        return row
    why = ngettext(
        "%(count)s active port of unknown link layer (the listing stops before the Link layer line) could "
        "make up the claim",
        "%(count)s active ports of unknown link layer (the listing stops before the Link layer line) could "
        "make up the claim",
        len(unknown),
        count=len(unknown),
    )
    lines = lines + [p["line"] for p in unknown]
    return verdict_row(
        claim, nics, len(good), "cannot-measure", joined(detail, why, sep=_("; ")), item, lines
    )


def _port_rate_rows(
    facts: dict[str, Any],
    item: dict[str, Any],
    groups: dict[str, list[dict[str, Any]]],
    host_note: Msg | None,
) -> list[dict[str, Any]]:
    """A rate claim the listing cannot show: ports counted whose rate the tool does not print (`rdma link`,
    ibv_devinfo without -v) are present, their rate unknown, so the rate part is cannot-measure."""
    gbps = facts.get("gbps_per_nic")
    unrated = [p for p in groups["good"] if p.get("rate_gbps") is None]
    if not gbps or not unrated:
        return []
    detail = _(
        "%(count)s of the %(total)s ports counted show no rate (`rdma link` and ibv_devinfo without -v print "
        "none): upload ibstat, ibstatus or ibv_devinfo -v",
        count=len(unrated),
        total=len(groups["good"]),
    )
    lines = [p["line"] for p in unrated]
    claim = _("GPU-fabric port rate (Gb/s)")
    return [verdict_row(claim, gbps, None, "cannot-measure", _with_host(detail, host_note), item, lines)]


def _at_least(row: dict[str, Any], item: dict[str, Any], open_line: int | None) -> dict[str, Any]:
    """A port count that fails the claim, from a listing that may go on unseen at `open_line`: the count
    shown is a minimum, so the claim cannot be told."""
    if row["verdict"] != "fail" or open_line is None:
        return row
    count = row["measured"]
    why = _("the listing may go on past line %(line)s: %(count)s is a minimum", line=open_line, count=count)
    detail = joined(row["detail"], why, sep=_("; "))
    return verdict_row(row["claim"], row["expected"], count, "cannot-measure", detail, item, row["lines"])


def _judge_ports(
    facts: dict[str, Any],
    item: dict[str, Any],
    ports: list[dict[str, Any]],
    host_note: Msg | None,
    open_line: int | None = None,
) -> list[dict[str, Any]]:
    """The verdicts of one host's ports (all ports of the file when it names no hosts); `open_line`: a line
    where its listing may go on unseen (`...`, the end of what was read), so a count short of the claim is
    a minimum."""
    fabric = facts.get("fabric")
    wanted_layer = port_link_layer(fabric)
    gbps, nics = facts.get("gbps_per_nic"), facts.get("nics_per_node")
    if wanted_layer is None:
        unknown = _("fabric not published or not RDMA verbs")
        return [
            verdict_row(_("fabric link layer"), fabric_name(fabric), None, "cannot-measure", unknown, item)
        ]
    if _netdev_only(item, ports):
        return [_at_least(_ibdev2netdev_ports(nics, item, ports, wanted_layer, host_note), item, open_line)]
    groups = _ports_by_state(ports, wanted_layer, gbps)
    detail = _with_host(_ports_detail(groups, wanted_layer, gbps), host_note)
    count = _at_least(_port_count_row(facts, item, groups, detail), item, open_line)
    out = [count, *_port_rate_rows(facts, item, groups, host_note)]
    other_layer = groups["other_layer"]
    if not groups["wanted"] and other_layer:
        layer = other_layer[0].get("link_layer")
        detail = _(
            "active ports are %(layer)s where %(fabric)s is claimed", layer=layer, fabric=fabric_name(fabric)
        )
        lines = [p["line"] for p in other_layer]
        out.append(verdict_row(_("fabric link layer"), wanted_layer, layer, "fail", detail, item, lines))
    return out


def _adapters(funcs: list[dict[str, Any]]) -> int:
    """How many adapters the functions are: lspci lists a dual-port adapter's ports as functions .0 and .1 of
    one device (`c5:00.0`, `c5:00.1`), so functions sharing domain, bus and device are one adapter."""
    return len({f["bdf"].rsplit(".", 1)[0] for f in funcs})


def _bluefield(f: dict[str, Any]) -> bool:
    return "bluefield" in str(f.get("device", "")).lower()


def _lspci_wanted(facts: dict[str, Any]) -> str | None:
    """The link layer lspci's GPU-fabric functions show: FABRIC_LINK_LAYERS, and `EFA` (lspci.EFA_RE) for an
    EFA fabric; None (every function counted) where no layer is known (TCPX, other)."""
    fabric = facts.get("fabric") or ""
    return "EFA" if fabric == "efa" else FABRIC_LINK_LAYERS.get(fabric)


def _lspci_layers(facts: dict[str, Any], item: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """The RDMA NIC functions sorted: `counted` (may be GPU-fabric NICs of the claim), `wrong` (another link
    layer: the class tells the layer a function is configured for, `Infiniband controller` vs `Ethernet
    controller`; functions whose class names none count), `vfs` (SR-IOV virtual functions beside physical
    ones on their layer: they share the physical port; a VM's own VFs, with no physical function listed,
    count) and `dpus` (BlueField functions on the claimed layer taken as DPUs: non-BlueField adapters of
    another layer make up the claim, as on a GB200 tray: 4 ConnectX-7 in InfiniBand mode for the GPUs, 2
    BlueField-3 DPUs in Ethernet for the front end, the NVIDIA reference layout; BlueField-3 SuperNICs as the
    GPU fabric, as on Spectrum-X, sit on the fabric's layer with no ConnectX fabric beside them)."""
    funcs = item.get("summary", {}).get("rdma_nic_functions", [])
    wanted = _lspci_wanted(facts)
    if wanted == "EFA":
        counted = [f for f in funcs if f.get("link_layer") == "EFA"]
        wrong = [f for f in funcs if f.get("link_layer") != "EFA"]
    elif wanted:
        counted = [f for f in funcs if f.get("link_layer") in (wanted, None)]
        wrong = [f for f in funcs if f.get("link_layer") not in (wanted, None)]
    else:
        counted, wrong = list(funcs), []
    vfs: list[dict[str, Any]] = []
    for group in (counted, wrong):
        if any(not f.get("virtual_function") for f in group):
            vfs += [f for f in group if f.get("virtual_function")]
            group[:] = [f for f in group if not f.get("virtual_function")]
    nics, dpus = facts.get("nics_per_node") or 0, []
    fabric_elsewhere = nics > 0 and _adapters([f for f in wrong if not _bluefield(f)]) >= nics
    if wanted and fabric_elsewhere and _adapters([f for f in counted if not _bluefield(f)]) < nics:
        dpus = [f for f in counted if _bluefield(f)]
        counted = [f for f in counted if not _bluefield(f)]
    return {"counted": counted, "wrong": wrong, "vfs": vfs, "dpus": dpus}


def _rival_adapters(groups: dict[str, list[dict[str, Any]]], nics: int) -> int:
    """The other layer's adapters that could be the GPU fabric: all of them, or only the non-BlueField ones
    when the claimed layer's non-BlueField adapters make up the claim (BlueField DPUs beside a ConnectX
    fabric are the front end)."""
    wrong = groups["wrong"]
    if _adapters([f for f in groups["counted"] if not _bluefield(f)]) >= nics:
        wrong = [f for f in wrong if not _bluefield(f)]
    return _adapters(wrong)


# The listed functions of an lspci summary, each with its `host` in a file of several hosts' listings.
LSPCI_FUNCTION_LISTS = (
    "rdma_nic_functions",
    "bridge_functions",
    "gpu_functions",
    "nic_internal_bridges",
    "pcie_downgraded",
    "unread_network_functions",
)


def compare_lspci(facts: dict[str, Any], item: dict[str, Any]) -> list[dict[str, Any]]:
    """The NIC functions of the claimed link layer against the claim; the other layer's functions are a
    link-layer row when the claimed layer falls short (a fail when no function has it) or when the other
    layer's adapters could themselves be the claimed fabric (as many as the claim: a warning). A listing of
    several hosts (lspci `hosts`) is judged host by host: the host with the worst verdict stands for the file
    (_weakest_lspci_host)."""
    hosts = item.get("summary", {}).get("hosts") or []
    if len(hosts) > 1:
        return _weakest_lspci_host(facts, item, hosts)
    wanted = _lspci_wanted(facts)
    groups = _lspci_layers(facts, item)
    counted, wrong = groups["counted"], groups["wrong"]
    out = [_lspci_count_verdict(facts, item, groups)]
    nics = facts.get("nics_per_node")
    if not (wanted and wrong):
        return out
    detail = _(
        "%(wrong)s of %(total)s RDMA functions are '%(kind)s'",
        wrong=len(wrong),
        total=len(counted) + len(wrong) + len(groups["dpus"]),
        kind=wrong[0]["class"] if wrong[0]["link_layer"] != "EFA" else "Elastic Fabric Adapter",
    )
    if counted and nics is not None and len(counted) >= nics:
        rivals = _rival_adapters(groups, nics)
        if rivals < nics:
            return out
        detail = joined(
            detail,
            ngettext(
                "%(count)s %(layer)s adapter, as many as the claim, could be the GPU fabric: the functions "
                "counted may be a DPU or the front-end network",
                "%(count)s %(layer)s adapters, as many as the claim, could be the GPU fabric: the functions "
                "counted may be a DPU or the front-end network",
                rivals,
                count=rivals,
                layer=wrong[0]["link_layer"],
            ),
            sep=_("; "),
        )
    verdict = "fail" if not counted else "warn"
    lines = [f["line"] for f in wrong]
    out.append(
        verdict_row(_("fabric link layer"), wanted, wrong[0]["link_layer"], verdict, detail, item, lines)
    )
    return out


def _weakest_lspci_host(
    facts: dict[str, Any], item: dict[str, Any], hosts: list[str]
) -> list[dict[str, Any]]:
    """compare_lspci of each host's functions alone; the rows of the host whose count verdict is worst
    (then fewest functions counted), each naming it, as the port reports are judged (compare_ports)."""
    s = item.get("summary", {})
    judged = []
    for host in hosts:
        mine = {key: [f for f in s.get(key) or [] if f.get("host") == host] for key in LSPCI_FUNCTION_LISTS}
        summary = {**s, **{key: funcs for key, funcs in mine.items() if key in s}, "hosts": [host]}
        summary["rdma_nics"] = len(mine["rdma_nic_functions"])
        summary["lines"] = [f["line"] for f in mine["rdma_nic_functions"]]
        rows = compare_lspci(facts, {**item, "summary": summary})
        judged.append((VERDICT_RANK.get(rows[0]["verdict"], 0), -(rows[0]["measured"] or 0), host, rows))
    _rank, _count, host, rows = max(judged, key=lambda j: (j[0], j[1]))
    return [noted(row, weakest_host(host, len(hosts))) for row in rows]


def _function_names(funcs: list[dict[str, Any]]) -> Msg:
    return listed((f"{f['bdf']} {f['device']}"[:90] for f in funcs[:4]), more=len(funcs) > 4)


def _lspci_apart(facts: dict[str, Any], groups: dict[str, list[dict[str, Any]]]) -> list[Msg]:
    """What the count left out, for the detail: the other layer's functions, BlueField DPUs, virtual
    functions."""
    parts: list[Msg] = []
    wrong, nics = groups["wrong"], facts.get("nics_per_node")
    front_end = wrong and wrong[0]["link_layer"] != "EFA"
    if wrong:
        named = {"count": len(wrong), "layer": wrong[0]["link_layer"], "names": _function_names(wrong)}
        if front_end and groups["dpus"]:
            parts.append(
                ngettext(
                    "%(count)s %(layer)s function not counted (another link layer than the claimed one, the "
                    "GPU fabric's by their number): %(names)s",
                    "%(count)s %(layer)s functions not counted (another link layer than the claimed one, "
                    "the GPU fabric's by their number): %(names)s",
                    named["count"],
                    **named,
                )
            )
        elif front_end and (nics is None or _rival_adapters(groups, nics) < nics):
            parts.append(
                ngettext(
                    "%(count)s %(layer)s function not counted (another link layer than the claimed one: a "
                    "DPU or the front-end network): %(names)s",
                    "%(count)s %(layer)s functions not counted (another link layer than the claimed one: a "
                    "DPU or the front-end network): %(names)s",
                    named["count"],
                    **named,
                )
            )
        else:
            parts.append(
                ngettext(
                    "%(count)s %(layer)s function not counted (another link layer than the claimed one): "
                    "%(names)s",
                    "%(count)s %(layer)s functions not counted (another link layer than the claimed one): "
                    "%(names)s",
                    named["count"],
                    **named,
                )
            )
    if groups["dpus"]:
        parts.append(
            ngettext(
                "%(count)s BlueField function not counted, taken as a DPU (the front end): non-BlueField "
                "adapters on another link layer make up the claim, as a GB200 tray's ConnectX-7 beside its "
                "BlueField-3: %(names)s",
                "%(count)s BlueField functions not counted, taken as DPUs (the front end): non-BlueField "
                "adapters on another link layer make up the claim, as a GB200 tray's ConnectX-7 beside its "
                "BlueField-3: %(names)s",
                len(groups["dpus"]),
                count=len(groups["dpus"]),
                names=_function_names(groups["dpus"]),
            )
        )
    if groups["vfs"]:
        parts.append(
            ngettext(
                "%(count)s SR-IOV virtual function not counted (it shares a physical function's port): "
                "%(names)s",
                "%(count)s SR-IOV virtual functions not counted (they share a physical function's port): "
                "%(names)s",
                len(groups["vfs"]),
                count=len(groups["vfs"]),
                names=_function_names(groups["vfs"]),
            )
        )
    return parts


def _lspci_count_verdict(
    facts: dict[str, Any], item: dict[str, Any], groups: dict[str, list[dict[str, Any]]]
) -> dict[str, Any]:
    """The RDMA NIC functions of the claimed link layer against the claim. A listing the author cut (`...`
    lines) shows a minimum: fewer than claimed cannot be told from lines left out, so it is not a fail; nor
    can it when `lspci -n` network functions of vendors not read by id could make up the claim."""
    s = item.get("summary", {})
    counted = groups["counted"]
    claim, expected, measured = _("RDMA NIC functions per node"), facts.get("nics_per_node"), len(counted)
    if "rdma_nic_functions" not in s:
        measured = s.get("rdma_nics")
    lines = [f["line"] for f in counted] if "rdma_nic_functions" in s else s.get("lines", [])
    detail: Msg = joined(
        _("PCI functions (one per port); NVLink management bridges excluded"),
        *_lspci_apart(facts, groups),
        sep=_("; "),
    )
    short = expected is not None and measured is not None and measured < expected
    unread = s.get("unread_network_functions") or []
    if short and unread and (measured or 0) + len(unread) >= (expected or 0):
        why = ngettext(
            "`lspci -n` prints ids only: %(count)s network function of vendors not read by id could make up "
            "the claim; upload lspci or lspci -nn",
            "`lspci -n` prints ids only: %(count)s network functions of vendors not read by id could make "
            "up the claim; upload lspci or lspci -nn",
            len(unread),
            count=len(unread),
        )
        return verdict_row(
            claim, expected, measured, "cannot-measure", joined(detail, why, sep=_("; ")), item, lines
        )
    elided = s.get("elided_lines") or []
    if not elided:
        return count_verdict(claim, expected, measured, item, lines, detail)
    detail = joined(
        detail,
        _(
            "lines left out by the author (line %(line)s): %(count)s is a minimum",
            line=elided[0],
            count=measured if measured is not None else "?",
        ),
        sep=_("; "),
    )
    stated = s.get("stated_totals") or []
    if stated:
        totals = listed(f"{t['count']} {t['what']}" for t in stated[:4])
        detail = joined(detail, _("the author's note states %(totals)s", totals=totals), sep=_("; "))
    if short:
        return verdict_row(claim, expected, measured, "cannot-measure", detail, item, lines)
    return count_verdict(claim, expected, measured, item, lines, detail)


def compare_dmesg_nics(facts: dict[str, Any], item: dict[str, Any]) -> list[dict[str, Any]]:
    """The kernel log's RDMA NIC lines: functions whose driver failed to load carry no traffic (fail), nor
    reliably does a NIC whose firmware stopped answering (fail); a NIC whose PCIe link gives less than the
    offering's per-NIC rate cannot reach it (fail). No row when the log has no such lines (a GPU-only excerpt
    says nothing about the NICs)."""
    s = item.get("summary", {})
    out: list[dict[str, Any]] = []
    errors = s.get("nic_errors") or []
    if errors:
        reason = _(
            "%(devices)s: %(message)s; a NIC whose driver failed carries no traffic",
            devices=_devices_text(errors),
            message=errors[0]["message"],
        )
        out.append(_failed_nics_row(_("RDMA NICs that failed to load"), errors, reason, item))
    firmware = s.get("nic_firmware_errors") or []
    if firmware:
        reason = _(
            "%(devices)s: %(message)s; a NIC whose firmware times out on commands or fails its "
            "health check needs a firmware reset or a reboot",
            devices=_devices_text(firmware),
            message=firmware[0]["message"],
        )
        out.append(_failed_nics_row(_("RDMA NICs whose firmware stopped answering"), firmware, reason, item))
    limited = s.get("nic_pcie_limited") or []
    if limited:
        out.append(_pcie_limited_verdict(facts, item, limited))
    return out


def _devices_text(events: list[dict[str, Any]]) -> Msg:
    """The NIC functions of kernel-log events, each once in log order, the first 8."""
    return listed(list(dict.fromkeys(e["device"] for e in events))[:8])


def _failed_nics_row(
    claim: Any, events: list[dict[str, Any]], reason: Any, item: dict[str, Any]
) -> dict[str, Any]:
    """A fail row counting the NIC functions of `events` (0 expected to fail), with their first 50 lines."""
    devices = len(dict.fromkeys(e["device"] for e in events))
    return verdict_row(claim, 0, devices, "fail", reason, item, [e["line"] for e in events[:50]])


def _pcie_limited_verdict(
    facts: dict[str, Any], item: dict[str, Any], limited: list[dict[str, Any]]
) -> dict[str, Any]:
    """The narrowest PCIe link a NIC reports against the offering's per-NIC rate."""
    gbps = facts.get("gbps_per_nic")
    worst = min(limited, key=lambda e: e["available_gbps"])
    lines = [e["line"] for e in limited[:50]]
    claim = _("NIC PCIe bandwidth (Gb/s)")
    detail = _(
        "%(device)s: %(available)s Gb/s available, limited by %(link)s",
        device=worst["device"],
        available=f"{worst['available_gbps']:g}",
        link=worst["limited_by"],
    )
    if not gbps:
        detail = joined(detail, _("the offering publishes no NIC rate"), sep=_("; "))
        return verdict_row(claim, None, worst["available_gbps"], "cannot-measure", detail, item, lines)
    verdict = "fail" if worst["available_gbps"] < gbps else "pass"
    percent = worst["available_gbps"] / gbps * 100
    return verdict_row(claim, gbps, worst["available_gbps"], verdict, detail, item, lines, percent)


def _perftest_basis(s: dict[str, Any], gbps: Any, fraction: Any) -> Msg:
    """How the perftest bandwidth was judged: the BW average at the largest size against the NIC rate."""
    if not gbps:
        return _(
            "%(test)s BW average at the largest size; the offering publishes no NIC rate", test=s.get("test")
        )
    if s.get("bidirectional"):
        return _(
            "%(test)s BW average at the largest size; expected %(gbps)s Gb/s x %(fraction)s x 2 "
            "(bidirectional sum)",
            test=s.get("test"),
            gbps=gbps,
            fraction=fraction,
        )
    return _(
        "%(test)s BW average at the largest size; expected %(gbps)s Gb/s x %(fraction)s",
        test=s.get("test"),
        gbps=gbps,
        fraction=fraction,
    )


def _perftest_bandwidth(facts: dict[str, Any], item: dict[str, Any], lines: list[int]) -> dict[str, Any]:
    """The BW average at the largest size against the NIC rate, unless the run cannot show the port's
    bandwidth: a failed run, an atomic test, or a sweep whose largest size is below the floor that falls
    short (one that still reaches the expected rate passes: the BW average only grows with the size)."""
    s = item.get("summary", {})
    gbps = facts.get("gbps_per_nic")
    fraction = inter_fraction(facts)
    expected = gbps * fraction * (2 if s.get("bidirectional") else 1) if gbps else None
    claim, measured = _("NIC port bandwidth (Gb/s)"), s.get("average_gbps")
    if s.get("failed"):
        # A run that failed (before its table, or part-way: `failed_after_bytes`) is not judged on the
        # figures of the rows it printed, as a failed nccl-tests run is not (compare._unjudged).
        reason = _("failed run (%(reason)s)", reason=s.get("failure_reason") or _("no result rows"))
        return verdict_row(claim, expected, measured, "cannot-measure", reason, item, lines)
    test = str(s.get("test") or "")
    if not s.get("latency") and is_atomic(s):
        why = _(
            "%(test)s is an atomic test: it measures the message rate of 8-byte operations, not link "
            "bandwidth; upload ib_write_bw, ib_read_bw or ib_send_bw",
            test=test or "ib_atomic_bw",
        )
        return verdict_row(claim, expected, measured, "cannot-measure", why, item, lines)
    detail = _perftest_basis(s, gbps, fraction)
    row = ratio_verdict(claim, expected, measured, detail, item, lines)
    size = s.get("max_size_bytes")
    if row["verdict"] not in ("warn", "fail") or not size or size >= MIN_PERFTEST_BYTES:
        return row
    why = _(
        "the largest size, %(size)s B, is below %(floor)s B (perftest's default message size, the assumed "
        "floor): small messages measure the message rate, not the port's bandwidth; rerun with -a or -s "
        "%(floor)s or more",
        size=size,
        floor=MIN_PERFTEST_BYTES,
    )
    return cannot_measure_instead(row, claim, measured, detail, why, item, lines)


def compare_perftest(facts: dict[str, Any], item: dict[str, Any]) -> list[dict[str, Any]]:
    s = item.get("summary", {})
    lines = [x for x in (s.get("first_line"), s.get("last_line")) if x]
    out = [_perftest_bandwidth(facts, item, lines)]
    wanted = FABRIC_LINK_LAYERS.get(facts.get("fabric") or "")
    if wanted and s.get("link_layer"):
        out.append(
            verdict_row(
                _("fabric link layer"),
                wanted,
                s["link_layer"],
                "pass" if s["link_layer"] == wanted else "fail",
                _("perftest `Link type`"),
                item,
                lines,
            )
        )
    stab = s.get("stability")
    if stab:
        spread = stab.get("spread_percent") or 0.0
        out.append(
            verdict_row(
                _("link stability (repeated intervals)"),
                spread_limit(),
                spread,
                "pass" if spread <= STABILITY_DROP_WARN else "warn",
                _(
                    "%(intervals)s intervals, %(low)s-%(high)s Gb/s",
                    intervals=stab.get("intervals"),
                    low=stab.get("min_gbps"),
                    high=stab.get("max_gbps"),
                ),
                item,
                lines,
            )
        )
    return out
