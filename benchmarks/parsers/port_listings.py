"""Listings of the same ports more than once in one port report: several runs of the tool on one machine
(before and after a fix: the last listing is the port's state), or several machines' listings without their
names (told apart by the adapters' node GUIDs)."""

from __future__ import annotations

from typing import Any

from hardware.messages import listed, ngettext


def unnamed_hosts(ports: list[dict[str, Any]], warnings: list[str]) -> list[str]:
    """The machines of a file holding several hosts' listings without their names (`for h in ...; do ssh $h
    ibstat; done`): a device port listed again with another node GUID (ibstat `Node GUID`, ibv_devinfo
    `node_guid`, unique to an adapter) is another machine's, so the listings from there on are the next
    machine's, named `#2`, `#3`, ... in the order listed. The same GUIDs again are the same machine's tool run
    again (latest_ports keeps the last listing). Nothing is set without two such machines."""
    starts: list[int] = []  # the line of each machine's first port
    guids: dict[tuple[Any, Any], str] = {}  # (device, port) -> node GUID on the current machine
    of: list[int] = []
    for p in ports:
        key, guid = (p.get("device"), p["port"]), p.get("node_guid")
        if not starts or (guid and guids.get(key, guid) != guid):
            starts.append(p["line"])
            guids = {}
        if guid and key[0] is not None and key[1] is not None:
            guids[key] = guid
        of.append(len(starts))
    if len(starts) < 2:
        return []
    hosts = [f"#{n}" for n in range(1, len(starts) + 1)]
    for p, n in zip(ports, of, strict=True):
        p["host"] = hosts[n - 1]
    warnings.append(
        ngettext(
            "ports listed again with another node GUID (line %(lines)s): listings of %(count)s machines "
            "without their names, read as hosts %(hosts)s in the order listed; each port is listed with its "
            "host, and the counts are over all hosts",
            "ports listed again with another node GUID (lines %(lines)s): listings of %(count)s machines "
            "without their names, read as hosts %(hosts)s in the order listed; each port is listed with its "
            "host, and the counts are over all hosts",
            len(starts) - 1,
            lines=listed(starts[1:9], more=len(starts) > 9),
            count=len(starts),
            hosts=listed(hosts[:16], more=len(hosts) > 16),
        )
    )
    return hosts


def latest_ports(ports: list[dict[str, Any]], warnings: list[str]) -> list[dict[str, Any]]:
    """One entry per device port of a host: a file holding several runs of the tool (before and after a
    fix) lists a port again, and the last listing is its current state."""
    latest: dict[tuple[Any, ...], dict[str, Any]] = {}
    repeats = 0
    previous: dict[str, Any] | None = None
    nth = 0  # a port read without its port line (a grep excerpt): which of its device's in a row
    for p in ports:
        if p["port"] is None:
            same = previous is not None and previous["port"] is None and previous["device"] == p["device"]
            nth = nth + 1 if same else 0
        # A dual-port adapter's two ports under one device line in a grep excerpt are two ports.
        number = p["port"] if p["port"] is not None else ("nth", nth)
        key = (p.get("host"), p["device"], number) if p.get("device") else ("line", p["line"])
        previous = p
        if key in latest:
            repeats += 1
            del latest[key]
        latest[key] = p
    if repeats:
        warnings.append(
            ngettext(
                "%(count)s port listing repeats an earlier one (several runs of the tool in one file): the "
                "last listing of each port is kept",
                "%(count)s port listings repeat an earlier one (several runs of the tool in one file): the "
                "last listing of each port is kept",
                repeats,
                count=repeats,
            )
        )
    return list(latest.values())
