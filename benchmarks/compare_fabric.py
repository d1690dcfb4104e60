"""The fabric's evidence against its claims (pure, no Django): RDMA ports (ibstat, ibstatus, ibv_devinfo,
ibdev2netdev, rdma link), the NIC functions lspci lists, and perftest bandwidth and link type. Called by
benchmarks.compare for those kinds of file."""

from __future__ import annotations

from typing import Any

from benchmarks.verdicts import (
    STABILITY_DROP_WARN,
    cannot_measure_instead,
    count_verdict,
    inter_fraction,
    ratio_verdict,
    spread_limit,
    verdict_row,
)
from hardware import FABRIC_LINK_LAYERS, fabric_name, port_link_layer
from hardware.messages import Msg, _, joined

# How bad a verdict is, to break a tie between hosts with as many good ports.
VERDICT_RANK = {"pass": 0, "cannot-measure": 1, "warn": 2, "fail": 3}
# The smallest "largest message size" whose perftest BW average is judged against the port rate when it
# falls short. Assumed floor; basis: perftest's default message size for the bandwidth tests is 65536 B
# (perftest_parameters.h DEF_SIZE_BW), the size its authors report a link's bandwidth at, and below it the
# per-message cost dominates (a 100G port gave 19 Gb/s at 512 B, hunt 7). As internode.MIN_INTER_NODE_BYTES
# for nccl-tests, a sweep that stops below it and still reaches the expected rate passes.
MIN_PERFTEST_BYTES = 65536


def _ports_by_state(
    ports: list[dict[str, Any]], wanted_layer: str, gbps: float | None
) -> dict[str, list[dict[str, Any]]]:
    """The ports sorted by what they say about the claim: good (active, up, the claimed link layer, fast
    enough), on another link layer, not active, active but slower than claimed."""
    active = [p for p in ports if p.get("state") == "Active"]
    # An iWARP port (RDMA over TCP, ibv_devinfo `transport: iWARP (1)`) says Ethernet but is not RoCE.
    wanted = [
        p
        for p in active
        if p.get("link_layer") == wanted_layer and not str(p.get("transport") or "").startswith("iWARP")
    ]
    return {
        "good": [
            p
            for p in wanted
            if p.get("physical_state") in (None, "LinkUp")
            and (gbps is None or p.get("rate_gbps") is None or p["rate_gbps"] >= gbps)
        ],
        "other_layer": [p for p in active if p.get("link_layer") not in (wanted_layer, None)],
        "down": [p for p in ports if p.get("state") not in ("Active", None)],
        "slow": [p for p in wanted if gbps and p.get("rate_gbps") and p["rate_gbps"] < gbps],
        "wanted": wanted,
    }


def _ports_detail(groups: dict[str, list[dict[str, Any]]], wanted_layer: str, gbps: float | None) -> str:
    parts: list[str] = [
        _("Active + LinkUp + %(layer)s + >= %(gbps)s Gb/s", layer=wanted_layer, gbps=f"{gbps:g}")
        if gbps
        else _("Active + LinkUp + %(layer)s", layer=wanted_layer)
    ]
    if any(p.get("rate_gbps") is None for p in groups["good"]):
        parts.append(_("rate not shown by this tool"))
    if groups["slow"]:
        slow = ", ".join(f"{p['device']}/{p['port']} {p['rate_gbps']:g}" for p in groups["slow"][:8])
        parts.append(_("slower ports: %(ports)s", ports=slow))
    if groups["down"]:
        down = ", ".join(f"{p['device']}/{p['port']} {p['state']}" for p in groups["down"][:8])
        parts.append(_("not active: %(ports)s", ports=down))
    return joined(*parts, sep="; ")


def compare_ports(facts: dict[str, Any], item: dict[str, Any]) -> list[dict[str, Any]]:
    """The ports against the per-node claim; a file holding several hosts' listings (ports with a `host`,
    named by shell prompts) is judged on the host with the fewest good ports."""
    ports = item.get("summary", {}).get("ports", [])
    by_host: dict[Any, list[dict[str, Any]]] = {}
    for p in ports:
        by_host.setdefault(p.get("host"), []).append(p)
    if len(by_host) < 2:
        return _judge_ports(facts, item, ports, None)
    # The weakest host: the fewest good ports (counted apart from the rows' order), then the worse verdicts.
    wanted_layer, gbps = port_link_layer(facts.get("fabric")), facts.get("gbps_per_nic")
    judged = []
    for host, host_ports in by_host.items():
        note = _("host %(host)s, the fewest of %(count)s hosts", host=host or "?", count=len(by_host))
        rows = _judge_ports(facts, item, host_ports, note)
        badness = sum(VERDICT_RANK.get(row["verdict"], 0) for row in rows)
        judged.append((_good_port_count(item, host_ports, wanted_layer, gbps), -badness, rows))
    return min(judged, key=lambda host: host[:2])[2]


def _good_port_count(
    item: dict[str, Any], ports: list[dict[str, Any]], wanted_layer: str | None, gbps: float | None
) -> int:
    """The ports of one host that meet the claim: on the claimed link layer for ibdev2netdev (which shows
    no port state), else Active + LinkUp + link layer + rate (_ports_by_state's `good`)."""
    if wanted_layer is None:
        return 0
    if item.get("kind") == "ibdev2netdev":
        return sum(1 for p in ports if p.get("link_layer") == wanted_layer)
    return len(_ports_by_state(ports, wanted_layer, gbps)["good"])


def _with_host(detail: str, host_note: Msg | None) -> str:
    return joined(detail, host_note, sep="; ") if host_note is not None else detail


def _judge_ports(
    facts: dict[str, Any], item: dict[str, Any], ports: list[dict[str, Any]], host_note: Msg | None
) -> list[dict[str, Any]]:
    """The verdicts of one host's ports (all ports of the file when it names no hosts)."""
    fabric = facts.get("fabric")
    wanted_layer = port_link_layer(fabric)
    gbps, nics = facts.get("gbps_per_nic"), facts.get("nics_per_node")
    if wanted_layer is None:
        unknown = _("fabric not published or not RDMA verbs")
        return [
            verdict_row(_("fabric link layer"), fabric_name(fabric), None, "cannot-measure", unknown, item)
        ]
    if item.get("kind") == "ibdev2netdev":
        layer_ports = [p for p in ports if p.get("link_layer") == wanted_layer]
        netdev = _("from netdev names; ibdev2netdev does not show the RDMA port state")
        lines = [p["line"] for p in layer_ports]
        claim = _("%(layer)s ports per node", layer=wanted_layer)
        return [count_verdict(claim, nics, len(layer_ports), item, lines, _with_host(netdev, host_note))]
    groups = _ports_by_state(ports, wanted_layer, gbps)
    good = groups["good"]
    detail = _with_host(_ports_detail(groups, wanted_layer, gbps), host_note)
    out = [
        count_verdict(
            _("%(layer)s GPU-fabric ports", layer=wanted_layer),
            nics,
            len(good),
            item,
            [p["line"] for p in good],
            detail,
        )
    ]
    other_layer = groups["other_layer"]
    if not groups["wanted"] and other_layer:
        layer = other_layer[0].get("link_layer")
        detail = _(
            "active ports are %(layer)s where %(fabric)s is claimed", layer=layer, fabric=fabric_name(fabric)
        )
        lines = [p["line"] for p in other_layer]
        out.append(verdict_row(_("fabric link layer"), wanted_layer, layer, "fail", detail, item, lines))
    return out


def compare_lspci(facts: dict[str, Any], item: dict[str, Any]) -> list[dict[str, Any]]:
    s = item.get("summary", {})
    fabric = facts.get("fabric")
    wanted = FABRIC_LINK_LAYERS.get(fabric or "")
    funcs = s.get("rdma_nic_functions", [])
    out = [_lspci_count_verdict(facts, item)]
    if wanted:
        wrong = [f for f in funcs if f.get("link_layer") and f["link_layer"] != wanted]
        if wrong:
            out.append(
                verdict_row(
                    _("fabric link layer"),
                    wanted,
                    wrong[0]["link_layer"],
                    "fail" if len(wrong) == len(funcs) else "warn",
                    _(
                        "%(wrong)s of %(total)s RDMA functions are '%(kind)s'",
                        wrong=len(wrong),
                        total=len(funcs),
                        kind=wrong[0]["class"],
                    ),
                    item,
                    [f["line"] for f in wrong],
                )
            )
    return out


def _lspci_count_verdict(facts: dict[str, Any], item: dict[str, Any]) -> dict[str, Any]:
    """The RDMA NIC functions against the claim. A listing the author cut (`...` lines) shows a minimum:
    fewer than claimed cannot be told from lines left out, so it is not a fail."""
    s = item.get("summary", {})
    claim, expected, measured = (
        _("RDMA NIC functions per node"),
        facts.get("nics_per_node"),
        s.get("rdma_nics"),
    )
    detail: Msg = _("PCI functions (one per port); NVLink management bridges excluded")
    elided = s.get("elided_lines") or []
    if not elided:
        return count_verdict(claim, expected, measured, item, s.get("lines", []), detail)
    detail = joined(
        detail,
        _(
            "lines left out by the author (line %(line)s): %(count)s is a minimum",
            line=elided[0],
            count=measured if measured is not None else "?",
        ),
        sep="; ",
    )
    stated = s.get("stated_totals") or []
    if stated:
        totals = ", ".join(f"{t['count']} {t['what']}" for t in stated[:4])
        detail = joined(detail, _("the author's note states %(totals)s", totals=totals), sep="; ")
    if expected is not None and measured is not None and measured < expected:
        return verdict_row(claim, expected, measured, "cannot-measure", detail, item, s.get("lines", []))
    return count_verdict(claim, expected, measured, item, s.get("lines", []), detail)


def compare_dmesg_nics(facts: dict[str, Any], item: dict[str, Any]) -> list[dict[str, Any]]:
    """The kernel log's RDMA NIC lines: functions whose driver failed to load carry no traffic (fail); a
    NIC whose PCIe link gives less than the offering's per-NIC rate cannot reach it (fail). No row when the
    log has no such lines (a GPU-only excerpt says nothing about the NICs)."""
    s = item.get("summary", {})
    out: list[dict[str, Any]] = []
    errors = s.get("nic_errors") or []
    if errors:
        devices = list(dict.fromkeys(e["device"] for e in errors))
        out.append(
            verdict_row(
                _("RDMA NICs that failed to load"),
                0,
                len(devices),
                "fail",
                _(
                    "%(devices)s: %(message)s; a NIC whose driver failed carries no traffic",
                    devices=", ".join(devices[:8]),
                    message=errors[0]["message"],
                ),
                item,
                [e["line"] for e in errors[:50]],
            )
        )
    limited = s.get("nic_pcie_limited") or []
    if limited:
        out.append(_pcie_limited_verdict(facts, item, limited))
    return out


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
        detail = joined(detail, _("the offering publishes no NIC rate"), sep="; ")
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
    if test.startswith("ib_atomic") or str(s.get("banner") or "").startswith("Atomic"):
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
