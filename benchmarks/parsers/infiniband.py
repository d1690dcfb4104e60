"""RDMA port reports: ibstat, ibstatus, ibv_devinfo, ibdev2netdev, `rdma link` (evidence/FORMATS.md 4-8).

Every parser yields the same port shape `{device, port, state, physical_state, link_layer, rate_gbps,
line}` so the comparison treats them alike. States are normalised to `Active`, `Down`, `Init`,
`Armed`, `Polling`-style words; link layer to `InfiniBand` / `Ethernet`.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from .result import ParseResult
from .text import Text, to_float, to_int

IBSTAT_CA_RE = re.compile(r"^\s*CA\s+'([^']+)'")
IBSTAT_PORT_RE = re.compile(r"^\s*Port\s+(\d+)\s*:\s*$")
IBSTAT_FIELD_RE = re.compile(
    r"^\s*(CA type|State|Physical state|Rate|Link layer|Base lid|SM lid|Firmware version)\s*:\s*(.*?)\s*$"
)
IBSTATUS_HEAD_RE = re.compile(r"Infiniband device\s+'([^']+)'\s+port\s+(\d+)\s+status:")
IBSTATUS_FIELD_RE = re.compile(r"^\s*(state|phys state|rate|link_layer|base lid|sm lid)\s*:\s*(.*?)\s*$")
DEVINFO_HCA_RE = re.compile(r"^\s*hca_id:\s*(\S+)")
DEVINFO_PORT_RE = re.compile(r"^\s*port:\s*(\d+)\s*$")
DEVINFO_FIELD_RE = re.compile(
    r"^\s*(state|link_layer|active_width|active_speed|phys_state|vendor_part_id|active_mtu|sm_lid|port_lid)"
    r"\s*:\s*(.*?)\s*$"
)
IBDEV2NETDEV_RE = re.compile(r"^\s*(\S+)\s+port\s+(\d+)\s+(?:==>|<===>)\s+(\S+)\s*(?:\((\w+)\))?")
IBDEV2NETDEV_V_RE = re.compile(
    r"\(MT(\d+)\s*-\s*[^)]*\).*?port\s+(\d+)\s+\((\w+)\)\s+==>\s+(\S+)\s+\((\w+)\)"
)
RDMA_LINK_RE = re.compile(r"^\s*link\s+(\S+)/(\d+)\s+(.*)$")
WIDTH_RE = re.compile(r"(\d+)X")
SPEED_RE = re.compile(r"([\d.]+)\s*Gbps")

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
        return p.get("state") == "Active" and p.get("physical_state") in (None, "LinkUp")

    ib = [p for p in ports if active(p) and p.get("link_layer") == "InfiniBand"]
    eth = [p for p in ports if active(p) and p.get("link_layer") == "Ethernet"]
    rates_ib = Counter(p["rate_gbps"] for p in ib if p.get("rate_gbps") is not None)
    rates_eth = Counter(p["rate_gbps"] for p in eth if p.get("rate_gbps") is not None)
    return {
        "ports": ports,
        "total_ports": len(ports),
        "active_infiniband_ports": len(ib),
        "active_ethernet_ports": len(eth),
        "inactive_ports": sum(1 for p in ports if not active(p)),
        "active_infiniband_rates_gbps": {
            str(k): v for k, v in sorted(rates_ib.items(), key=lambda kv: str(kv[0]))
        },
        "active_ethernet_rates_gbps": {
            str(k): v for k, v in sorted(rates_eth.items(), key=lambda kv: str(kv[0]))
        },
        "devices": sorted({p["device"] for p in ports if p.get("device")}),
    }


def parse_ibstat(text: Text) -> ParseResult:
    result = ParseResult(kind="ibstat")
    ports: list[dict[str, Any]] = []
    ca: str | None = None
    ca_type: str | None = None
    port: dict[str, Any] | None = None
    for no, line in enumerate(text.lines, start=1):
        m = IBSTAT_CA_RE.match(line)
        if m:
            ca, ca_type, port = m.group(1), None, None
            continue
        m = IBSTAT_PORT_RE.match(line)
        if m:
            port = {"device": ca, "port": int(m.group(1)), "state": None, "physical_state": None,
                    "link_layer": None, "rate_gbps": None, "ca_type": ca_type, "line": no}  # fmt: skip
            ports.append(port)
            continue
        m = IBSTAT_FIELD_RE.match(line)
        if m:
            key, value = m.group(1), m.group(2)
            if key == "CA type":
                ca_type = value
            elif port is not None:
                if key == "State":
                    port["state"] = _state(value)
                elif key == "Physical state":
                    port["physical_state"] = _phys(value)
                elif key == "Rate":
                    port["rate_gbps"] = _rate(value)
                elif key == "Link layer":
                    port["link_layer"] = _link_layer(value)
                elif key == "Base lid":
                    port["base_lid"] = to_int(value)
                elif key == "SM lid":
                    port["sm_lid"] = to_int(value)
            continue
        if "ibpanic" in line:
            result.warnings.append(f"line {no}: ibstat aborted: {line.strip()[:200]}")
    for p in ports:
        if p["link_layer"] is None:
            result.warnings.append(f"{p['device']} port {p['port']}: no Link layer line (cut output)")
    result.summary = _summary(ports)
    return result


def parse_ibstatus(text: Text) -> ParseResult:
    result = ParseResult(kind="ibstatus")
    ports: list[dict[str, Any]] = []
    port: dict[str, Any] | None = None
    for no, line in enumerate(text.lines, start=1):
        m = IBSTATUS_HEAD_RE.search(line)
        if m:
            port = {"device": m.group(1), "port": int(m.group(2)), "state": None, "physical_state": None,
                    "link_layer": None, "rate_gbps": None, "line": no}  # fmt: skip
            ports.append(port)
            continue
        m = IBSTATUS_FIELD_RE.match(line)
        if m and port is not None:
            key, value = m.group(1), m.group(2)
            if key == "state":
                port["state"] = _state(value)
            elif key == "phys state":
                port["physical_state"] = _phys(value)
            elif key == "rate":
                port["rate_gbps"] = _rate(value)
                port["rate_text"] = value
            elif key == "link_layer":
                port["link_layer"] = _link_layer(value)
    result.summary = _summary(ports)
    return result


def parse_ibv_devinfo(text: Text) -> ParseResult:
    result = ParseResult(kind="ibv_devinfo")
    ports: list[dict[str, Any]] = []
    hca: str | None = None
    part: str | None = None
    port: dict[str, Any] | None = None
    for no, line in enumerate(text.lines, start=1):
        m = DEVINFO_HCA_RE.match(line)
        if m:
            hca, part, port = m.group(1), None, None
            continue
        m = DEVINFO_PORT_RE.match(line)
        if m:
            port = {"device": hca, "port": int(m.group(1)), "state": None, "physical_state": None,
                    "link_layer": None, "rate_gbps": None, "vendor_part_id": part, "line": no}  # fmt: skip
            ports.append(port)
            continue
        m = DEVINFO_FIELD_RE.match(line)
        if not m:
            continue
        key, value = m.group(1), m.group(2)
        if key == "vendor_part_id":
            part = value
            continue
        if port is None:
            # A fragment that starts inside a port block: keep what it says, without a device name.
            port = {"device": None, "port": None, "state": None, "physical_state": None,
                    "link_layer": None, "rate_gbps": None, "line": no}  # fmt: skip
            ports.append(port)
            result.warnings.append(f"line {no}: port fields before any hca_id (excerpt cut at the top)")
        if key == "state":
            port["state"] = _state(value)
        elif key == "phys_state":
            port["physical_state"] = _phys(value)
        elif key == "link_layer":
            port["link_layer"] = _link_layer(value)
        elif key == "active_mtu":
            port["active_mtu"] = to_int(value.split()[0]) if value else None
        elif key == "active_width":
            width = WIDTH_RE.search(value)
            port["_width"] = int(width.group(1)) if width else None
        elif key == "active_speed":
            speed = SPEED_RE.search(value)
            port["_speed"] = float(speed.group(1)) if speed else None
    for p in ports:
        width, speed = p.pop("_width", None), p.pop("_speed", None)
        if width and speed:
            p["rate_gbps"] = round(width * speed, 1)  # `ibv_devinfo -v`: active_width x active_speed
    if ports and all(p["rate_gbps"] is None for p in ports):
        result.warnings.append("ibv_devinfo without -v prints no rate: rates unknown")
    result.summary = _summary(ports)
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
    for no, line in enumerate(text.lines, start=1):
        m = IBDEV2NETDEV_RE.match(line.split("#")[0])
        if not m:
            continue
        netdev = m.group(3)
        ports.append(
            {
                "device": m.group(1),
                "port": int(m.group(2)),
                "netdev": netdev,
                "netdev_state": m.group(4),
                # ibdev2netdev's Up/Down is the netdev carrier, not the IB port state (FORMATS.md 7).
                "state": None,
                "physical_state": None,
                "link_layer": _netdev_layer(netdev),
                "rate_gbps": None,
                "line": no,
            }
        )
    summary = _summary(ports)
    summary["active_infiniband_ports"] = None
    summary["active_ethernet_ports"] = None
    summary["infiniband_ports"] = sum(1 for p in ports if p["link_layer"] == "InfiniBand")
    summary["ethernet_ports"] = sum(1 for p in ports if p["link_layer"] == "Ethernet")
    result.summary = summary
    result.warnings.append(
        "ibdev2netdev shows the netdev carrier (Up/Down), not the RDMA port state; "
        "link layer guessed from netdev names (ib* = IPoIB)"
    )
    return result


def parse_rdma_link(text: Text) -> ParseResult:
    result = ParseResult(kind="rdma-link")
    ports: list[dict[str, Any]] = []
    for no, line in enumerate(text.lines, start=1):
        m = RDMA_LINK_RE.match(line)
        if not m:
            continue
        rest = m.group(3).split()
        attrs = {rest[i]: rest[i + 1] for i in range(0, len(rest) - 1, 2)}
        netdev = attrs.get("netdev")
        layer = (
            "InfiniBand"
            if "lid" in attrs or "sm_lid" in attrs
            else (_netdev_layer(netdev) if netdev else None)
        )
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
    result.summary = _summary(ports)
    result.warnings.append(
        "`rdma link` prints no rate; link layer inferred (lid = InfiniBand, netdev = Ethernet)"
    )
    return result
