"""Listings of the same ports more than once in one port report: several runs of the tool on one machine
(before and after a fix: the last listing is the port's state), or several machines' listings without their
names (told apart by the adapters' node GUIDs)."""

from __future__ import annotations

from typing import Any

from hardware.messages import Msg, _, listed, ngettext


def unnamed_hosts(ports: list[dict[str, Any]], warnings: list[str]) -> list[str]:
    """The machines of a file holding several hosts' listings without their names (`for h in ...; do ssh $h
    ibstat; done`): a device port listed again with another node GUID (ibstat `Node GUID`, ibv_devinfo
    `node_guid`, unique to an adapter) or port GID (ibstatus `default gid`, from the port's GUID or MAC) is
    another machine's, so the listings from there on are the next
    machine's, named `#2`, `#3`, ... in the order listed. The same GUIDs again are the same machine's tool run
    again (latest_ports keeps the last listing). Nothing is set without two such machines."""
    starts: list[int] = []  # the line of each machine's first port
    guids: dict[tuple[Any, Any], str] = {}  # (device, port) -> node GUID on the current machine
    of: list[int] = []
    for p in ports:
        key, guid = (p.get("device"), p["port"]), p.get("node_guid") or p.get("port_gid")
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
    changed: list[tuple[dict[str, Any], dict[str, Any]]] = []  # (earlier, later) listings of another state
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
            earlier = latest.pop(key)
            if len(changed) <= MAX_CHANGES_NAMED and _state(earlier) != _state(p):
                changed.append((earlier, p))
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
    if changed:
        warnings.append(_changed_warning(changed))
    return list(latest.values())


# Ports whose state changed between two listings, named in the warning at most
MAX_CHANGES_NAMED = 8


def _changed_warning(changed: list[tuple[dict[str, Any], dict[str, Any]]]) -> Msg:
    """The ports listed again in another state (`Down` at line 4, `Active` at line 20): the last listing is
    kept, so an earlier state that another machine's listing or a later run replaced is not hidden."""
    shown = [
        _(
            "%(port)s %(before)s at line %(line)s, %(after)s at line %(later)s",
            port=_port_name(p),
            before=_state_words(earlier),
            line=earlier["line"],
            after=_state_words(p),
            later=p["line"],
        )
        for earlier, p in changed[:MAX_CHANGES_NAMED]
    ]
    return ngettext(
        "a port listed again in another state (another run of the tool, or another machine's listing without "
        "its name): %(ports)s; the last listing is the one counted",
        "ports listed again in another state (other runs of the tool, or other machines' listings without "
        "their names): %(ports)s; the last listing of each is the one counted",
        len(changed),
        ports=listed(shown, more=len(changed) > MAX_CHANGES_NAMED),
    )


def _port_name(p: dict[str, Any]) -> str:
    """`mlx5_3/1`, after its host when it has one (`gpu02 mlx5_3/1`); `?` for a number not shown."""
    name = f"{p['device']}/{p['port'] if p['port'] is not None else '?'}"
    return f"{p['host']} {name}" if p.get("host") else name


def _state_words(p: dict[str, Any]) -> str:
    """What a listing says of a port's state: `Down`, `Active LinkUp`, `netdev Up` (ibdev2netdev's
    carrier)."""
    words = [p.get("state"), p.get("physical_state")]
    if p.get("netdev_state"):
        words.append(f"netdev {p['netdev_state']}")
    return " ".join(str(w) for w in words if w) or "?"


def _state(p: dict[str, Any]) -> tuple[Any, Any, Any]:
    return p.get("state"), p.get("physical_state"), p.get("netdev_state")
