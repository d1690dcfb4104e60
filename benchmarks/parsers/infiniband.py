"""RDMA port reports: ibstat, ibstatus, ibv_devinfo, ibdev2netdev, `rdma link` (evidence/FORMATS.md 4-8).

Every parser yields the same port shape `{device, port, state, physical_state, link_layer, rate_gbps,
line}` so the comparison treats them alike. States are normalised to `Active`, `Down`, `Init`,
`Armed`, `Polling`-style words; link layer to `InfiniBand` / `Ethernet`.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from hardware.messages import Msg, _, joined, listed, ngettext

from .port_listings import latest_ports, unnamed_hosts
from .result import ParseResult
from .text import ELISION_RE, Text, line_blocks, named_hosts, to_float, to_int

# `ibdev2netdev`: `mlx5_0 port 1 ==> ib0 (Up)`; `ibdev2netdev -v` (MLNX_OFED) puts the PCI address first and
# the adapter, firmware and RDMA port state around the port: `0000:03:00.0 mlx5_0 (MT4119 - MT1822X00433)
# CX556A - ConnectX-5 QSFP28 fw 16.25.1020 port 1 (ACTIVE) ==> ib0 (Up)`; the board description (VPD product
# name) may be empty or hold brackets (`HDR IB (200Gb/s)`).
IBDEV2NETDEV_RE = re.compile(
    r"^\s*+(?:[0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]\s++)?(?P<device>\S++)\s++"
    r"(?:\([^()]*+\)\s++(?:(?:.*?\s)?fw\s++\S++\s++)?)?port\s++(?P<port>\d++)\s++(?:\((?P<state>\w++)\)\s++)?"
    r"(?:==>|<===>)\s++(?P<netdev>\S++)\s*+(?:\((?P<carrier>\w++)\))?"
)
# iproute2 `rdma link`: `link mlx5_0/1 state ACTIVE ...`; older releases print the device index
# first and a colon after each name: `0/1: mlx5_0/1: state DOWN physical_state DISABLED`.
RDMA_LINK_RE = re.compile(r"^\s*(?:link\s+|\d+/\d+:\s+)([^\s/]+)/(\d+):?\s+(.*)$")
# Software RDMA over a plain network device: iproute2 rdma-link(8) link types `rxe` (Soft RoCE driver) and
# `siw` (Soft iWARP driver), added with `rdma link add rxe_eth0 type rxe netdev eth0` (RHEL's guide names it
# rxe0); the kernel's RDMA_RXE is "Software RDMA over Ethernet (RoCE)" over any Ethernet adapter, with no RDMA
# offload. The name is the user's: rxe*/siw* is how the man page and the guides name them (assumed). The name
# is the only basis: `rdma link` prints no link type or driver (iproute2 rdma/link.c: state, physical_state,
# netdev), ibstat none either, and ibv_devinfo's vendor_id for rxe differs between kernels (0x0000 in older
# ones), so `rdma link add roce0 type rxe netdev eth0` is counted; the warning says so.
SOFTWARE_RDMA_RE = re.compile(r"^(?:rxe|siw)", re.IGNORECASE)
# Elided lines (`...`) listed per file at most
MAX_ELIDED = 50
# An SR-IOV virtual function's netdev: systemd's predictable names give a VF the physical function's name
# plus `v<N>` (udev net_id, systemd commit 609948c: `eno1v0`, `enp101s0f0v1`; IPoIB `ibp141s0v0`).
VF_NETDEV_RE = re.compile(r"^(?:en|ib)\w*?\dv\d++$")
# An mlx5 sub-function's netdev (SF: a lightweight NIC carved out of a physical port, BlueField's own RDMA
# endpoints): systemd names it after its PCI function plus `s<sfnum>` (`enp3s0f0s0`: a SIGCOMM'26 BlueField-3
# tutorial's `rdma link` in each SF's namespace), the kernel's mlx5 switchdev documentation `p0sf88`.
SF_NETDEV_RE = re.compile(r"^(?:en\w*?f\d++s\d++|p\d++sf\d++)$")
# Flags of the ports set apart (_set_apart): no NIC port of their own, never counted.
APART_FLAGS = ("software_rdma", "virtual_function", "sub_function")

# Physical state 0, which iWARP drivers leave unset (i40iw, cxgb3/cxgb4: a TCP offload NIC has no InfiniBand
# physical port state): iproute2 `rdma link` prints `physical_state NOP` (its phys_state_to_str), ibv_devinfo
# -v `phys_state: invalid physical state (0)` (the Open MPI users list, 2009-05-07, cxgb3_0), ibstat `Physical
# state: No state change` (infiniband-diags port_phy_state_str[0]), ibstatus `phys state: 0: ...`. It says
# nothing about the link: such a port is judged by its state, as one whose physical state is not shown.
PHYS_STATE_NONE_RE = re.compile(
    r"^\s*+(?:0(?::|\s|$)|nop\s*+$|no state change|invalid physical state \(0\))", re.I
)
UP_PHYSICAL_STATES = (None, "LinkUp", "NOP")
# iWARP-only RDMA drivers by the device names they register: Intel X722 `i40iw<N>`, Chelsio T3 `cxgb3_<N>` and
# T4-T6 `cxgb4_<N>` (iw_cxgb3/iw_cxgb4). `rdma link`, ibstat and old ibv_devinfo (no `transport:` line) print
# no transport: a port of such a device is iWARP (RDMA over TCP), not RoCE. irdma (E810, X722 since 5.14)
# and qedr run either protocol and are not told.
IWARP_DEVICE_RE = re.compile(r"^(?:i40iw|cxgb[34]_)")

STATE_WORDS = {
    "active": "Active", "port_active": "Active", "4": "Active",
    "down": "Down", "port_down": "Down", "1": "Down",
    "init": "Init", "initializing": "Init", "port_init": "Init", "2": "Init",
    "armed": "Armed", "port_armed": "Armed", "3": "Armed",
}  # fmt: skip


def _state(raw: str | None) -> str | None:
    if not raw:
        return None
    text = raw.strip()
    # ibstatus: `4: ACTIVE`; ibv_devinfo: `PORT_ACTIVE (4)`; ibstat: `Active`; rdma: `ACTIVE`.
    word = re.sub(r"^\d+:\s*", "", text).split()[0] if text else ""
    return STATE_WORDS.get(word.lower(), word.capitalize() if word else None)


def _phys(raw: str | None) -> str | None:
    if not raw:
        return None
    if PHYS_STATE_NONE_RE.match(raw):
        return "NOP"
    # ibstatus `5: LinkUp`, ibv_devinfo -v `LINK_UP (5)`, rdma `LINK_UP`, ibstat `LinkUp`.
    value = re.sub(r"^\d+:\s*", "", raw.strip())
    word = value.split()[0] if value else ""
    return {"link_up": "LinkUp", "linkup": "LinkUp", "disabled": "Disabled", "polling": "Polling"}.get(
        word.lower(), value
    )


def _link_layer(raw: str | None) -> str | None:
    if not raw:
        return None
    value = raw.strip().lower()
    if value.startswith("infiniband") or value == "ib":
        return "InfiniBand"
    if value.startswith("ethernet") or value == "eth" or value == "roce":
        return "Ethernet"
    return raw.strip()


def _rate(raw: str | None) -> float | None:
    """ibstat `400`, `2.5`, `10 (FDR10)`; ibstatus `200 Gb/sec (4X HDR)`."""
    if not raw:
        return None
    return to_float(raw.strip().split()[0])


def _summary(ports: list[dict[str, Any]]) -> dict[str, Any]:
    def active(p: dict[str, Any]) -> bool:
        # `Rate` of a Down port is a placeholder (40); only Active + LinkUp (or unknown phys state) counts.
        return p.get("state") == "Active" and p.get("physical_state") in UP_PHYSICAL_STATES

    def iwarp(p: dict[str, Any]) -> bool:
        return (p.get("transport") or "").lower().startswith("iwarp")

    # Software RDMA devices (rxe, siw) and SR-IOV virtual functions are listed apart (_set_apart).
    own = [p for p in ports if active(p) and not any(p.get(flag) for flag in APART_FLAGS)]
    ib = [p for p in own if p.get("link_layer") == "InfiniBand"]
    # RoCE candidates: an iWARP port (RDMA over TCP) also says Ethernet and is counted apart.
    eth = [p for p in own if p.get("link_layer") == "Ethernet" and not iwarp(p)]
    rates_ib = Counter(p["rate_gbps"] for p in ib if p.get("rate_gbps") is not None)
    rates_eth = Counter(p["rate_gbps"] for p in eth if p.get("rate_gbps") is not None)
    return {
        "ports": ports,
        "total_ports": len(ports),
        "active_infiniband_ports": len(ib),
        "active_ethernet_ports": len(eth),
        "active_iwarp_ports": sum(1 for p in ports if active(p) and iwarp(p)),
        # A port whose listing stops before its state line (`ibv_devinfo | head`) is neither.
        "inactive_ports": sum(1 for p in ports if not active(p) and p.get("state") is not None),
        "unknown_state_ports": sum(1 for p in ports if p.get("state") is None),
        "active_infiniband_rates_gbps": {
            str(k): v for k, v in sorted(rates_ib.items(), key=lambda kv: str(kv[0]))
        },
        "active_ethernet_rates_gbps": {
            str(k): v for k, v in sorted(rates_eth.items(), key=lambda kv: str(kv[0]))
        },
        "devices": sorted({p["device"] for p in ports if p.get("device")}),
    }


class _Lines:
    """The numbered lines of a port report, for its reader's one pass over the file; the lines naming a host
    (text.named_hosts) are noted on the way, so that _port_hosts needs no second pass."""

    def __init__(self, text: Text) -> None:
        self.text = text
        self.hosts: list[tuple[int, str]] = []  # (line, host) of each line read that names a host
        self.elided: list[int] = []  # lines an author put where ports were left out (`...`, `.......`)

    def __iter__(self) -> Iterator[tuple[int, str]]:
        self.hosts, self.elided = [], []
        first = 1
        for block in line_blocks(self.text.lines):
            self.hosts.extend(named_hosts(block, first))
            for no, line in enumerate(block, start=first):
                if (
                    ("..." in line or "…" in line)
                    and len(self.elided) < MAX_ELIDED
                    and ELISION_RE.match(line)
                ):
                    self.elided.append(no)
                yield no, line
            first += len(block)


def _port_hosts(lines: _Lines, ports: list[dict[str, Any]], warnings: list[str]) -> list[str]:
    """The hosts of a file holding several hosts' listings, each under a line naming its host (text.line_host:
    a shell prompt, `[user@host ~]$ ibdev2netdev`, or a command run on a named host, `ssh host ibstat`): each
    port gets the `host` of the last such line before it. Nothing is set when the ports come from one host or
    none is named. `lines` has been read by the report's reader."""
    prompts: list[tuple[int, str]] = []  # (line, host) where the named host changes
    for no, named in lines.hosts:
        if not prompts or prompts[-1][1] != named:
            prompts.append((no, named))
    if len({host for _no, host in prompts}) < 2:
        return []
    hosts_of: list[str | None] = []
    at = 0
    for p in ports:  # in line order
        while at < len(prompts) and prompts[at][0] < p["line"]:
            at += 1
        hosts_of.append(prompts[at - 1][1] if at else None)
    hosts = list(dict.fromkeys(h for h in hosts_of if h))
    if len(hosts) < 2:
        return []
    for p, host in zip(ports, hosts_of, strict=True):
        p["host"] = host
    warnings.append(
        _(
            "ports of %(count)s hosts (named in the file by shell prompts, the commands that ran the tool or "
            "pdsh, clush, dshbak or Ansible labels: %(hosts)s): each port is listed with its host, and the "
            "counts are over all hosts",
            count=len(hosts),
            hosts=listed(hosts[:16], more=len(hosts) > 16),
        )
    )
    return hosts


def _port_state_warnings(ports: list[dict[str, Any]]) -> list[str]:
    """An InfiniBand port whose physical link is up but which stays Initializing has not been
    configured by a subnet manager: it carries no traffic until one (opensm, a managed switch) runs."""
    waiting = [
        _("%(device)s port %(port)s", device=p["device"], port=p["port"])
        for p in ports
        if p.get("state") == "Init"
        and p.get("physical_state") == "LinkUp"
        and p.get("link_layer") in (None, "InfiniBand")
    ]
    if not waiting:
        return []
    return [
        _(
            "%(ports)s: physical link up but port Initializing: "
            "no subnet manager has configured it (run opensm or enable the switch SM)",
            ports=joined(*waiting[:8], sep=_(", ")),
        )
    ]


def _unknown_state_warning(ports: list[dict[str, Any]]) -> list[str]:
    """Ports listed without a state line: the output stops after the port's first line (cut by `head`)."""
    cut = [
        _("%(device)s port %(port)s", device=p["device"], port=p["port"])
        for p in ports
        if p.get("state") is None and p.get("port") is not None
    ]
    if not cut:
        return []
    return [
        _(
            "%(ports)s: no state line (the listing stops before the port's fields): state unknown, "
            "counted neither active nor inactive",
            ports=joined(*cut[:8], sep=_(", ")),
        )
    ]


def _port_names(ports: list[dict[str, Any]]) -> Msg:
    """`mlx5_0/1 (p1p1), ...`: the ports named as a warning lists them (the first eight)."""
    return listed(
        (f"{p['device']}/{p['port']}" + (f" ({p['netdev']})" if p.get("netdev") else "") for p in ports[:8]),
        more=len(ports) > 8,
    )


def _apart(ports: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Where a port set apart from the counts (software RDMA, a virtual function) is listed in the summary."""
    return [
        {"device": p["device"], "port": p["port"], "netdev": p.get("netdev"), "line": p["line"]}
        for p in ports
    ]


def _set_apart(ports: list[dict[str, Any]], warnings: list[str]) -> dict[str, Any]:
    """Ports that are no NIC port of their own, flagged before counting, listed apart in the summary and
    warned about: software RDMA devices (SOFTWARE_RDMA_RE, `software_rdma`, `software_rdma_ports`) and SR-IOV
    virtual functions named by their netdev (VF_NETDEV_RE, `virtual_function`, `virtual_functions`) and mlx5
    sub-functions (SF_NETDEV_RE, `sub_function`, `sub_functions`)."""
    apart: dict[str, Any] = {}
    soft = [p for p in ports if SOFTWARE_RDMA_RE.match(p.get("device") or "")]
    if soft:
        for p in soft:
            p["software_rdma"] = True
        apart["software_rdma_ports"] = _apart(soft)
        warnings.append(
            _(
                "%(ports)s: software RDMA (rxe: Soft-RoCE, siw: soft-iWARP) over a plain network device, "
                "with no RDMA offload: not counted as GPU-fabric ports (told by the device name, which the "
                "user chooses: the RDMA tools print no link type or driver, so a Soft-RoCE device named "
                "otherwise is counted)",
                ports=_port_names(soft),
            )
        )
    # virtual NICs named by their netdev: flag, summary key, pattern
    virtual = (
        ("virtual_function", "virtual_functions", VF_NETDEV_RE),
        ("sub_function", "sub_functions", SF_NETDEV_RE),
    )
    for flag, key, pattern in virtual:
        named = [p for p in ports if not p.get("software_rdma") and pattern.match(p.get("netdev") or "")]
        for p in named:
            p[flag] = True
        if named:
            apart[key] = _apart(named)
            warnings.append(_virtual_nic_warning(flag, len(named), _port_names(named)))
    return apart


def _virtual_nic_warning(flag: str, count: int, ports: str) -> Msg:
    if flag == "virtual_function":
        return ngettext(
            "%(count)s SR-IOV virtual function (a netdev named after its physical function plus v<N>): "
            "%(ports)s: not counted as ports, a virtual function shares its physical port",
            "%(count)s SR-IOV virtual functions (a netdev named after its physical function plus v<N>): "
            "%(ports)s: not counted as ports, a virtual function shares its physical port",
            count,
            count=count,
            ports=ports,
        )
    return ngettext(
        "%(count)s sub-function (an mlx5 SF, a virtual NIC carved out of a physical port, named "
        "`...f<N>s<M>` or `p<N>sf<M>`): %(ports)s: not counted as ports, a sub-function shares its physical "
        "port",
        "%(count)s sub-functions (an mlx5 SF, a virtual NIC carved out of a physical port, named "
        "`...f<N>s<M>` or `p<N>sf<M>`): %(ports)s: not counted as ports, a sub-function shares its physical "
        "port",
        count,
        count=count,
        ports=ports,
    )


def _iwarp_by_name(ports: list[dict[str, Any]], warnings: list[str]) -> None:
    """Ports of an iWARP-only driver's device (IWARP_DEVICE_RE) that print no transport get `transport:
    iWARP` (`transport_from: device name`), so they count in `active_iwarp_ports`, not as RoCE ports."""
    named = [p for p in ports if not p.get("transport") and IWARP_DEVICE_RE.match(p.get("device") or "")]
    for p in named:
        p["transport"] = "iWARP"
        p["transport_from"] = "device name"
    if named:
        warnings.append(
            _(
                "%(ports)s: iWARP devices (RDMA over TCP: Intel X722 i40iw, Chelsio cxgb3/cxgb4, told by the "
                "driver's device name): not InfiniBand or RoCE ports; an iWARP driver reports no physical "
                "state (NOP), so such a port is judged by its state",
                ports=_port_names(named),
            )
        )


def _finish(ports: list[dict[str, Any]], result: ParseResult, lines: _Lines) -> dict[str, Any]:
    """The summary of a port report (its `lines` read), after repeated listings and with the port-state
    warnings; the ports of several hosts (shell prompts) each carry their `host`; software RDMA ports
    and virtual functions are flagged and left out of the counts."""
    hosts = _port_hosts(lines, ports, result.warnings) or unnamed_hosts(ports, result.warnings)
    ports = latest_ports(ports, result.warnings)
    result.warnings.extend(_port_state_warnings(ports))
    apart = _set_apart(ports, result.warnings)
    _iwarp_by_name(ports, result.warnings)
    summary = {**_summary(ports), **apart}
    if hosts:
        summary["hosts"] = hosts
    if lines.elided and ports:
        # `...` where the author left ports out: every count is of the ports shown, a minimum
        summary["elided_lines"] = lines.elided
        result.warnings.append(
            ngettext(
                "lines left out by the author (`...` on line %(lines)s): the counts are of the lines shown, "
                "a minimum",
                "lines left out by the author (`...` on lines %(lines)s): the counts are of the lines "
                "shown, a minimum",
                len(lines.elided),
                lines=listed(lines.elided[:8], more=len(lines.elided) > 8),
            )
        )
    return summary


PortFields = dict[str, tuple[str, Callable[[str], Any]]]


def _new_port(device: str | None, port: int | None, line_no: int, **extra: Any) -> dict[str, Any]:
    """A port in the shape every RDMA parser yields; fields the tool does not print stay None."""
    return {"device": device, "port": port, "state": None, "physical_state": None, "link_layer": None,
            "rate_gbps": None, **extra, "line": line_no}  # fmt: skip


def _port_fields(state: str, physical_state: str, link_layer: str, more: PortFields) -> PortFields:
    """What every port report prints (state, physical state, link layer) under the tool's own key
    names, read the same way for all, and what else the tool prints."""
    return {
        state: ("state", _state),
        physical_state: ("physical_state", _phys),
        link_layer: ("link_layer", _link_layer),
        **more,
    }


def _set_port_field(port: dict[str, Any], fields: PortFields, key: str, value: str) -> None:
    """Store one `key: value` line of a port block under its port key, read by its reader."""
    if key in fields:
        name, read = fields[key]
        port[name] = read(value)


@dataclass(frozen=True)
class _BlockFormat:
    """A report printed as one block per device (`CA 'mlx5_0'`, `hca_id: mlx5_0`) that holds one
    device-wide field (`CA type`, `vendor_part_id`) and one block of `key: value` lines per port."""

    device_re: re.Pattern[str]
    port_re: re.Pattern[str]
    field_re: re.Pattern[str]
    # Device-wide fields (tool key -> port key), copied onto each port of the device.
    device_fields: dict[str, str]
    port_fields: PortFields
    # Set when fields before any port line get a port of their own, with this warning.
    orphan_fields_warning: Msg | None = None
    # A device line that lost its first character in a copy (`ca_id: mlx5_0`), read as the device, warned.
    damaged_device_re: re.Pattern[str] | None = None


def _read_port_blocks(lines: _Lines, block_format: _BlockFormat, result: ParseResult) -> list[dict[str, Any]]:
    """Every port of a device/port block report, in print order."""
    ports: list[dict[str, Any]] = []
    device: str | None = None
    device_values: dict[str, str] = {}
    port: dict[str, Any] | None = None
    # The port fields the current port has printed, and the lines that start a port without its port line.
    printed: set[str] = set()
    unnumbered: list[int] = []
    for no, line in lines:
        m = block_format.device_re.match(line)
        damaged = block_format.damaged_device_re
        if not m and damaged is not None and (m := damaged.match(line)):
            result.warnings.append(
                _(
                    "line %(line)s reads `%(text)s`, taken as the device line of %(device)s (its first "
                    "character lost in the copy)",
                    line=no,
                    text=line.strip()[:80],
                    device=m.group(1),
                )
            )
        if m:
            device, device_values, port = m.group(1), {}, None
            continue
        m = block_format.port_re.match(line)
        if m:
            port = _new_port(device, int(m.group(1)), no, **_device_values(block_format, device_values))
            printed = set()
            ports.append(port)
            continue
        m = block_format.field_re.match(line)
        if not m:
            continue
        key, value = m.group(1), m.group(2)
        if key in block_format.device_fields:
            device_values[key] = value
            continue
        if (
            (port is None or key in printed)
            and block_format.orphan_fields_warning
            and key in block_format.port_fields
        ):
            # A fragment that starts inside a port block keeps what it says, without a device name; a field
            # printed again without a port line between (`ibv_devinfo | grep -e hca_id -e state`) is the next
            # port's, never the same port's new value.
            if port is None and device is None and not ports:
                result.warnings.append(
                    _("line %(line)s: %(warning)s", line=no, warning=block_format.orphan_fields_warning)
                )
            else:
                unnumbered.append(no)
            port = _new_port(device, None, no, **_device_values(block_format, device_values))
            printed = set()
            ports.append(port)
        if port is not None:
            printed.add(key)
            _set_port_field(port, block_format.port_fields, key, value)
    if unnumbered:
        result.warnings.append(_unnumbered_ports_warning(unnumbered))
    return ports


def _device_values(block_format: _BlockFormat, values: dict[str, str]) -> dict[str, str | None]:
    """The device-wide fields read so far (`CA type`, `node_guid`), under their port keys, for each port."""
    return {name: values.get(key) for key, name in block_format.device_fields.items()}


def _unnumbered_ports_warning(lines: list[int]) -> Msg:
    """Ports read from field lines without their `port:` line, as a grep excerpt prints them."""
    return ngettext(
        "%(count)s port's fields without its port line (line %(lines)s; an excerpt such as `grep state`): "
        "read as a port of its own, its port number unknown",
        "%(count)s ports' fields without their port lines (lines %(lines)s; an excerpt such as `grep "
        "state`): each read as a port of its own, port numbers unknown",
        len(lines),
        count=len(lines),
        lines=listed(lines[:8], more=len(lines) > 8),
    )


IBSTAT_FORMAT = _BlockFormat(
    device_re=re.compile(r"^\s*CA\s+'([^']+)'"),
    port_re=re.compile(r"^\s*Port\s+(\d+)\s*:\s*$"),
    field_re=re.compile(
        r"^\s*(CA type|State|Physical state|Rate|Link layer|Base lid|SM lid|Firmware version|Node GUID)"
        r"\s*:\s*(.*?)\s*$"
    ),
    device_fields={"CA type": "ca_type", "Node GUID": "node_guid"},
    port_fields=_port_fields(
        "State",
        "Physical state",
        "Link layer",
        {"Rate": ("rate_gbps", _rate), "Base lid": ("base_lid", to_int), "SM lid": ("sm_lid", to_int)},
    ),
    orphan_fields_warning=_("port fields before any CA line (excerpt cut at the top)"),
)


def _ibpanic_warnings(text: Text) -> list[str]:
    """ibstat prints `ibpanic: ...` when it aborts."""
    block_lines = (IBSTAT_FORMAT.device_re, IBSTAT_FORMAT.port_re, IBSTAT_FORMAT.field_re)
    return [
        _("line %(line)s: ibstat aborted: %(text)s", line=no, text=line.strip()[:200])
        for no, line in enumerate(text.lines, start=1)
        if "ibpanic" in line and not any(pattern.match(line) for pattern in block_lines)
    ]


def parse_ibstat(text: Text) -> ParseResult:
    result = ParseResult(kind="ibstat")
    lines = _Lines(text)
    ports = _read_port_blocks(lines, IBSTAT_FORMAT, result)
    result.warnings.extend(_ibpanic_warnings(text))
    for p in ports:
        # A port read without its `Port n:` line is warned about with the others so read (_read_port_blocks).
        if p["link_layer"] is None and p["port"] is not None:
            result.warnings.append(
                _(
                    "%(device)s port %(port)s: no Link layer line (cut output)",
                    device=p["device"],
                    port=p["port"],
                )
            )
    result.warnings.extend(_unknown_state_warning(ports))
    result.summary = _finish(ports, result, lines)
    return result


IBSTATUS_HEAD_RE = re.compile(r"Infiniband device\s+'([^']+)'\s+port\s+(\d+)\s+status:")
IBSTATUS_FIELD_RE = re.compile(
    r"^\s*(state|phys state|rate|link_layer|base lid|sm lid|default gid)\s*:\s*(.*?)\s*$"
)
IBSTATUS_PORT_FIELDS = _port_fields("state", "phys state", "link_layer", {"rate": ("rate_gbps", _rate)})


def parse_ibstatus(text: Text) -> ParseResult:
    result = ParseResult(kind="ibstatus")
    ports: list[dict[str, Any]] = []
    port: dict[str, Any] | None = None
    lines = _Lines(text)
    for no, line in lines:
        m = IBSTATUS_HEAD_RE.search(line)
        if m:
            port = _new_port(m.group(1), int(m.group(2)), no)
            ports.append(port)
            continue
        m = IBSTATUS_FIELD_RE.match(line)
        if m and port is not None:
            key, value = m.group(1), m.group(2)
            _set_port_field(port, IBSTATUS_PORT_FIELDS, key, value)
            if key == "rate":
                port["rate_text"] = value
            elif key == "default gid" and value.strip("0:"):
                # fe80:: and the port GUID (InfiniBand) or its MAC (RoCE): one port's, whatever the host
                port["port_gid"] = value
    result.warnings.extend(_unknown_state_warning(ports))
    result.summary = _finish(ports, result, lines)
    return result


WIDTH_RE = re.compile(r"(?<!\d)(\d++)X")
SPEED_RE = re.compile(r"(?<![\d.])([\d.]++)\s*+Gbps")


def _lane_count(raw: str) -> int | None:
    """`active_width: 4X (2)` -> 4."""
    width = WIDTH_RE.search(raw)
    return int(width.group(1)) if width else None


def _lane_speed(raw: str) -> float | None:
    """`active_speed: 100.0 Gbps (128)` -> 100.0."""
    speed = SPEED_RE.search(raw)
    return float(speed.group(1)) if speed else None


DEVINFO_FORMAT = _BlockFormat(
    device_re=re.compile(r"^\s*hca_id:\s*(\S+)"),
    port_re=re.compile(r"^\s*port:\s*(\d+)\s*$"),
    field_re=re.compile(
        r"^\s*(state|link_layer|active_width|active_speed|phys_state|vendor_part_id|transport|active_mtu|sm_lid"
        r"|port_lid|node_guid)"
        r"\s*:\s*(.*?)\s*$"
    ),
    device_fields={"vendor_part_id": "vendor_part_id", "transport": "transport", "node_guid": "node_guid"},
    port_fields=_port_fields(
        "state",
        "phys_state",
        "link_layer",
        {
            "active_mtu": ("active_mtu", lambda value: to_int(value.split()[0]) if value else None),
            "active_width": ("_width", _lane_count),
            "active_speed": ("_speed", _lane_speed),
        },
    ),
    orphan_fields_warning=_("port fields before any hca_id (excerpt cut at the top)"),
    # `hca_id:` without its `h`: fixtures/real/ibv_devinfo/cx6-2hca-first-line-damaged-ca_id-port-init.txt
    damaged_device_re=re.compile(r"^\s*+ca_id:\s*+(\S+)"),
)


def parse_ibv_devinfo(text: Text) -> ParseResult:
    result = ParseResult(kind="ibv_devinfo")
    lines = _Lines(text)
    ports = _read_port_blocks(lines, DEVINFO_FORMAT, result)
    for p in ports:
        width, speed = p.pop("_width", None), p.pop("_speed", None)
        if width and speed:
            p["rate_gbps"] = round(width * speed, 1)  # `ibv_devinfo -v`: active_width x active_speed
    if ports and all(p["rate_gbps"] is None for p in ports):
        result.warnings.append(_("ibv_devinfo without -v prints no rate: rates unknown"))
    result.warnings.extend(_unknown_state_warning(ports))
    # `transport: iWARP (1)` (Chelsio, Intel X722, soft-iWARP `siw_*`) runs RDMA over TCP: its port says
    # `link_layer: Ethernet` like a RoCE port but is not one.
    iwarp = [f"{p['device']}" for p in ports if (p.get("transport") or "").lower().startswith("iwarp")]
    if iwarp:
        result.warnings.append(
            ngettext(
                "%(count)s port uses the iWARP transport (RDMA over TCP), not InfiniBand or RoCE: "
                "%(devices)s",
                "%(count)s ports use the iWARP transport (RDMA over TCP), not InfiniBand or RoCE: "
                "%(devices)s",
                len(iwarp),
                count=len(iwarp),
                devices=listed(iwarp[:8]),
            )
        )
    result.summary = _finish(ports, result, lines)
    return result


def _netdev_layer(netdev: str) -> str | None:
    if netdev.startswith("ib"):
        return "InfiniBand"  # IPoIB netdev on an IB port
    if netdev.startswith(("en", "eth", "bond")):
        return "Ethernet"
    return None


def parse_ibdev2netdev(text: Text) -> ParseResult:
    result = ParseResult(kind="ibdev2netdev")
    ports: list[dict[str, Any]] = []
    lines = _Lines(text)
    for no, line in lines:
        m = IBDEV2NETDEV_RE.match(line.split("#")[0])
        if not m:
            continue
        netdev = m.group("netdev")
        ports.append(
            {
                "device": m.group("device"),
                "port": int(m.group("port")),
                "netdev": netdev,
                "netdev_state": m.group("carrier"),
                # The plain form's Up/Down is the netdev carrier, not the RDMA port state (FORMATS.md 7); only
                # `ibdev2netdev -v` prints the port state, in brackets after the port: `port 1 (ACTIVE)`.
                "state": _state(m.group("state")),
                "physical_state": None,
                "link_layer": _netdev_layer(netdev),
                "rate_gbps": None,
                "line": no,
            }
        )
    summary = _finish(ports, result, lines)
    ports = summary["ports"]
    verbose = bool(ports) and all(p["state"] is not None for p in ports)
    if not verbose:
        # Up/Down is the netdev carrier: the RDMA port state, and so active/inactive, is unknown.
        summary["active_infiniband_ports"] = None
        summary["active_ethernet_ports"] = None
        summary["inactive_ports"] = None
        summary["unknown_state_ports"] = None
    summary["netdev_up"] = sum(1 for p in ports if (p["netdev_state"] or "").lower() == "up")
    summary["netdev_down"] = sum(1 for p in ports if (p["netdev_state"] or "").lower() == "down")
    # Software RDMA devices and virtual functions (_set_apart) are no ports of their own.
    physical = [p for p in ports if not any(p.get(flag) for flag in APART_FLAGS)]
    summary["infiniband_ports"] = sum(1 for p in physical if p["link_layer"] == "InfiniBand")
    summary["ethernet_ports"] = sum(1 for p in physical if p["link_layer"] == "Ethernet")
    result.summary = summary
    result.warnings.append(
        _(
            "ibdev2netdev -v: the port state is read from its (STATE) column, the (Up/Down) after the netdev "
            "is its carrier; link layer guessed from netdev names (ib* = IPoIB)"
        )
        if verbose
        else _(
            "ibdev2netdev shows the netdev carrier (Up/Down), not the RDMA port state; "
            "link layer guessed from netdev names (ib* = IPoIB)"
        )
    )
    return result


def parse_rdma_link(text: Text) -> ParseResult:
    result = ParseResult(kind="rdma-link")
    ports: list[dict[str, Any]] = []
    lines = _Lines(text)
    for no, line in lines:
        m = RDMA_LINK_RE.match(line)
        if not m:
            continue
        rest = m.group(3).split()
        attrs = {rest[i]: rest[i + 1] for i in range(0, len(rest) - 1, 2)}
        netdev = attrs.get("netdev")
        # The kernel reports a port's LID only for the InfiniBand protocol (drivers/infiniband/core/nldev.c
        # fill_port_info: `if (rdma_protocol_ib(device, port))` puts RDMA_NLDEV_ATTR_LID and SM_LID), and
        # iproute2 prints `lid`/`sm_lid` only when given: a port line with its state and no lid is RoCE or
        # iWARP, whatever its netdev is called (OCI names RoCE netdevs rdma0..rdma15).
        if "lid" in attrs or "sm_lid" in attrs:
            layer: str | None = "InfiniBand"
        elif "state" in attrs:
            layer = "Ethernet"
        else:
            layer = _netdev_layer(netdev) if netdev else None
        ports.append(
            {
                "device": m.group(1),
                "port": int(m.group(2)),
                "state": _state(attrs.get("state")),
                "physical_state": _phys(attrs.get("physical_state")),
                "link_layer": layer,
                "rate_gbps": None,
                "netdev": netdev,
                "line": no,
            }
        )
    result.summary = _finish(ports, result, lines)
    result.warnings.append(
        _(
            "`rdma link` prints no rate; link layer inferred: a port with a lid is InfiniBand, one without "
            "(RoCE or iWARP) Ethernet, as the kernel reports a lid for InfiniBand ports only"
        )
    )
    return result
