"""Findings of an acceptance bundle: what in which file and line contradicts the offering (pure).

Each finding is `{"text", "file", "line", "kind", "blocking"}`; `text` names the file and line and says
what was seen. Blocking findings fail the acceptance: ports of the claimed fabric down, an Ethernet link
layer where InfiniBand is claimed, a failed diagnostic, GPU pairs over PCIe where a full NVLink mesh is
claimed, a bandwidth collapse in the middle of a sweep, a failed collective run, Xid errors or a GPU lost
from the bus. Ports of another layer that are down (front-end Ethernet next to InfiniBand rails) are
reported without failing the test.
"""

from __future__ import annotations

from typing import Any

PORT_KINDS = ("ibstat", "ibstatus", "ibv_devinfo", "ibdev2netdev", "rdma-link")
NCCL_KINDS = ("nccl-tests", "rccl-tests")
FULL_MESH = ("nvswitch", "nvlink-mesh")
# A sweep row below this share of the best busbw at smaller sizes, at 1 MiB or more, is a collapse.
COLLAPSE_SHARE = 0.5
COLLAPSE_FROM_BYTES = 1024 * 1024
LAYER_NAMES = {"infiniband": "InfiniBand", "ethernet": "Ethernet"}


def finding(item: dict[str, Any], line: Any, text: str, kind: str, blocking: bool = True) -> dict[str, Any]:
    file = str(item.get("filename") or "upload")
    where = f"{file} line {line}" if line else file
    return {"text": f"{where}: {text}", "file": file, "line": line, "kind": kind, "blocking": blocking}


def claimed_layer(facts: dict[str, Any]) -> str | None:
    fabric = str(facts.get("fabric") or "").lower()
    if fabric == "infiniband":
        return "infiniband"
    if fabric in ("roce", "ethernet-rdma", "tcp", "ethernet", "efa"):
        return "ethernet"
    return None


def _port_name(port: dict[str, Any]) -> str:
    device, number = port.get("device"), port.get("port")
    return f"{device}/{number}" if number is not None else str(device)


def _active(port: dict[str, Any]) -> bool:
    return str(port.get("state") or "").lower() in ("active", "up", "port_active")


def port_findings(facts: dict[str, Any], item: dict[str, Any]) -> list[dict[str, Any]]:
    ports = (item.get("summary") or {}).get("ports") or []
    layer = claimed_layer(facts)
    out = []
    for port in ports:
        state = str(port.get("state") or "").strip()
        if not state or _active(port):
            continue
        port_layer = str(port.get("link_layer") or "").lower() or None
        on_fabric = layer is None or port_layer in (None, layer)
        rate = port.get("rate_gbps")
        detail = ", ".join(x for x in (port.get("link_layer"), f"{rate:g} Gb/s" if rate else None) if x)
        text = f"port {_port_name(port)} is {state}" + (f" ({detail})" if detail else "")
        if not on_fabric:
            text += f"; outside the claimed {LAYER_NAMES.get(layer or '', layer)} fabric"
        out.append(finding(item, port.get("line"), text, "port-down", blocking=on_fabric))
    active = [p for p in ports if _active(p)]
    ethernet = [p for p in active if str(p.get("link_layer") or "").lower() == "ethernet"]
    if facts.get("fabric") == "infiniband" and ethernet and len(ethernet) == len(active):
        names = ", ".join(_port_name(p) for p in ethernet[:8])
        out.append(
            finding(
                item,
                ethernet[0].get("line"),
                f"link layer Ethernet on every active port ({names}) where InfiniBand is claimed",
                "ethernet-link-layer",
            )
        )
    return out


def lspci_findings(facts: dict[str, Any], item: dict[str, Any]) -> list[dict[str, Any]]:
    summary = item.get("summary") or {}
    nics = summary.get("rdma_nic_functions") or []
    ethernet = [n for n in nics if str(n.get("link_layer") or "").lower() == "ethernet"]
    if facts.get("fabric") != "infiniband" or not nics or len(ethernet) != len(nics):
        return []
    return [
        finding(
            item,
            ethernet[0].get("line"),
            f"{len(ethernet)} RDMA NIC function(s) in Ethernet mode where InfiniBand is claimed",
            "ethernet-link-layer",
        )
    ]


def dcgmi_findings(item: dict[str, Any]) -> list[dict[str, Any]]:
    summary = item.get("summary") or {}
    if summary.get("passed") is not False:
        return []
    failed = [t for t in summary.get("tests") or [] if str(t.get("result") or "").lower().startswith("fail")]
    if not failed:
        names = ", ".join(summary.get("failed_tests") or []) or "see the file"
        return [
            finding(item, (summary.get("lines") or [None])[0], f"dcgmi diag failed: {names}", "diag-failed")
        ]
    return [
        finding(
            item,
            test.get("line"),
            f"dcgmi diag failed: {test.get('name')} ({test.get('result')})",
            "diag-failed",
        )
        for test in failed
    ]


def topo_findings(facts: dict[str, Any], item: dict[str, Any]) -> list[dict[str, Any]]:
    summary = item.get("summary") or {}
    pairs = summary.get("pairs_not_nvlink") or []
    if facts.get("intra_node") not in FULL_MESH or not pairs:
        return []
    shown = ", ".join(f"{p.get('pair')} {p.get('connection')}" for p in pairs[:6])
    more = f" and {len(pairs) - 6} more" if len(pairs) > 6 else ""
    return [
        finding(
            item,
            summary.get("header_line"),
            f"{len(pairs)} GPU pair(s) without NVLink ({shown}{more}) where a full NVLink mesh is claimed",
            "pcie-not-mesh",
        )
    ]


def _collapse(run: dict[str, Any]) -> tuple[dict[str, Any], float] | None:
    best = 0.0
    for row in run.get("size_rows") or []:
        value = row.get("busbw_oop") if row.get("busbw_oop") is not None else row.get("busbw_ip")
        if value is None or not row.get("size_bytes"):
            continue
        if row["size_bytes"] >= COLLAPSE_FROM_BYTES and best > 0 and value < COLLAPSE_SHARE * best:
            return row, best
        best = max(best, float(value))
    return None


def nccl_findings(item: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    for run in (item.get("summary") or {}).get("runs") or []:
        collective = run.get("collective") or "collective"
        if run.get("failed"):
            out.append(
                finding(
                    item,
                    run.get("failure_line") or run.get("first_line"),
                    f"{collective} run failed: {run.get('failure_reason') or 'no result rows'}",
                    "run-failed",
                )
            )
            continue
        collapse = _collapse(run)
        if collapse is not None:
            row, best = collapse
            value = row.get("busbw_oop") if row.get("busbw_oop") is not None else row.get("busbw_ip")
            out.append(
                finding(
                    item,
                    row.get("line"),
                    f"{collective} bus bandwidth collapses mid-sweep to {value:g} GB/s at "
                    f"{row['size_bytes']} B (up to {best:g} GB/s at smaller sizes)",
                    "bandwidth-collapse",
                )
            )
    return out


def dmesg_findings(item: dict[str, Any]) -> list[dict[str, Any]]:
    summary = item.get("summary") or {}
    out = []
    for fallen in summary.get("gpus_fallen_off_bus") or []:
        out.append(finding(item, fallen.get("line"), f"GPU {fallen.get('bus_id')} fell off the bus", "xid"))
    events = summary.get("xid_events") or []
    if events:
        codes = ", ".join(str(c) for c in summary.get("xid_codes") or []) or "?"
        out.append(finding(item, events[0].get("line"), f"{len(events)} Xid error(s), codes {codes}", "xid"))
    return out


def verdict_findings(item: dict[str, Any]) -> list[dict[str, Any]]:
    """Failed claim checks of the kinds without their own reading above (GPU counts, NVLink links...)."""
    out = []
    for verdict in item.get("verdicts") or []:
        if verdict.get("verdict") != "fail":
            continue
        lines = verdict.get("lines") or []
        text = (
            f"{verdict.get('claim')}: measured {verdict.get('measured')}, expected {verdict.get('expected')}"
        )
        out.append(finding(item, lines[0] if lines else None, text, "claim-failed"))
    return out


def bundle_findings(facts: dict[str, Any], items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for item in items:
        kind = item.get("kind")
        if kind in PORT_KINDS:
            out += port_findings(facts, item)
        elif kind == "lspci":
            out += lspci_findings(facts, item)
        elif kind == "dcgmi-diag":
            out += dcgmi_findings(item)
        elif kind == "nvidia-smi-topo":
            out += topo_findings(facts, item)
        elif kind in NCCL_KINDS:
            out += nccl_findings(item)
        elif kind == "dmesg":
            out += dmesg_findings(item)
        else:
            out += verdict_findings(item)
    return out
