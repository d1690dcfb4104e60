"""Findings of an acceptance bundle: what in which file and line contradicts the offering (pure).

Each finding is `{"text", "message", "file", "line", "kind", "blocking"}`; `text` names the file and line
and says what was seen (English), `message` is the same sentence as a message id and values for a page in
another language. Blocking findings fail the acceptance: ports of the claimed fabric down, an Ethernet link
layer where InfiniBand is claimed, a failed diagnostic, GPU pairs over PCIe where a full NVLink mesh is
claimed, a bandwidth collapse in the middle of a sweep, a failed collective run, Xid errors or a GPU lost
from the bus. Ports of another layer that are down (front-end Ethernet next to InfiniBand rails) are
reported without failing the test.
"""

from __future__ import annotations

from typing import Any

from hardware import GPU_MODEL_CLAIM, port_link_layer
from hardware.messages import Msg, _, joined, listed, ngettext

PORT_KINDS = ("ibstat", "ibstatus", "ibv_devinfo", "ibdev2netdev", "rdma-link")
NCCL_KINDS = ("nccl-tests", "rccl-tests")
FULL_MESH = ("nvswitch", "nvlink-mesh")
# A sweep row below this share of the best busbw at smaller sizes, at 1 MiB or more, is a collapse.
COLLAPSE_SHARE = 0.5
COLLAPSE_FROM_BYTES = 1024 * 1024
LAYER_NAMES = {"infiniband": "InfiniBand", "ethernet": "Ethernet"}


def where(file: str, line: Any) -> Msg | str:
    """The file, and the line where there is one ("results/ibstat.txt line 12")."""
    return _("%(file)s line %(line)s", file=file, line=line) if line else file


def detail(sentence: Msg, file: str | None, line: Any, kind: str, blocking: bool = True) -> dict[str, Any]:
    """One finding (the module docstring's shape) of a whole sentence."""
    return {
        "text": str(sentence),
        "message": sentence.as_json(),
        "file": file,
        "line": line,
        "kind": kind,
        "blocking": blocking,
    }


def finding(item: dict[str, Any], line: Any, text: Msg, kind: str, blocking: bool = True) -> dict[str, Any]:
    """A finding in one of the bundle's files, at `line` where there is one."""
    file = str(item.get("filename") or "upload")
    return detail(joined(where(file, line), text, sep=_(": ")), file, line, kind, blocking)


def claimed_layer(facts: dict[str, Any]) -> str | None:
    """The link layer the claimed fabric's ports report, lower case (hardware.port_link_layer); None where no
    layer is known (EFA, TCPX, other), so that every down port counts against the fabric."""
    layer = port_link_layer(str(facts.get("fabric") or "").lower())
    return layer.lower() if layer else None


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
        detail = listed(x for x in (port.get("link_layer"), f"{rate:g} Gb/s" if rate else None) if x)
        name = _port_name(port)
        text = (
            _("port %(port)s is %(state)s (%(detail)s)", port=name, state=state, detail=detail)
            if detail
            else _("port %(port)s is %(state)s", port=name, state=state)
        )
        if not on_fabric:
            claimed = LAYER_NAMES.get(layer or "", layer)
            text = joined(text, _("outside the claimed %(layer)s fabric", layer=claimed), sep=_("; "))
        out.append(finding(item, port.get("line"), text, "port-down", blocking=on_fabric))
    active = [p for p in ports if _active(p)]
    ethernet = [p for p in active if str(p.get("link_layer") or "").lower() == "ethernet"]
    if facts.get("fabric") == "infiniband" and ethernet and len(ethernet) == len(active):
        names = listed(_port_name(p) for p in ethernet[:8])
        out.append(
            finding(
                item,
                ethernet[0].get("line"),
                _(
                    "link layer Ethernet on every active port (%(ports)s) where InfiniBand is claimed",
                    ports=names,
                ),
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
            ngettext(
                "%(n)s RDMA NIC function in Ethernet mode where InfiniBand is claimed",
                "%(n)s RDMA NIC functions in Ethernet mode where InfiniBand is claimed",
                len(ethernet),
                n=len(ethernet),
            ),
            "ethernet-link-layer",
        )
    ]


def dcgmi_findings(item: dict[str, Any]) -> list[dict[str, Any]]:
    summary = item.get("summary") or {}
    if summary.get("passed") is not False:
        return []
    failed = [t for t in summary.get("tests") or [] if str(t.get("result") or "").lower().startswith("fail")]
    if not failed:
        names = listed(summary.get("failed_tests") or []) or _("see the file")
        text = _("dcgmi diag failed: %(tests)s", tests=names)
        return [finding(item, (summary.get("lines") or [None])[0], text, "diag-failed")]
    return [
        finding(
            item,
            test.get("line"),
            _("dcgmi diag failed: %(test)s (%(result)s)", test=test.get("name"), result=test.get("result")),
            "diag-failed",
        )
        for test in failed
    ]


def topo_findings(facts: dict[str, Any], item: dict[str, Any]) -> list[dict[str, Any]]:
    summary = item.get("summary") or {}
    pairs = summary.get("pairs_not_nvlink") or []
    if facts.get("intra_node") not in FULL_MESH or not pairs:
        return []
    shown = listed(f"{p.get('pair')} {p.get('connection')}" for p in pairs[:6])
    text = (
        _(
            "%(count)s GPU pairs without NVLink (%(pairs)s and %(more)s more) where a full NVLink mesh is "
            "claimed",
            count=len(pairs),
            pairs=shown,
            more=len(pairs) - 6,
        )
        if len(pairs) > 6
        else ngettext(
            "%(n)s GPU pair without NVLink (%(pairs)s) where a full NVLink mesh is claimed",
            "%(n)s GPU pairs without NVLink (%(pairs)s) where a full NVLink mesh is claimed",
            len(pairs),
            n=len(pairs),
            pairs=shown,
        )
    )
    return [finding(item, summary.get("header_line"), text, "pcie-not-mesh")]


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
        collective = run.get("collective") or _("collective")
        if run.get("failed"):
            reason = run.get("failure_reason") or _("no result rows")
            text = _("%(collective)s run failed: %(reason)s", collective=collective, reason=reason)
            out.append(finding(item, run.get("failure_line") or run.get("first_line"), text, "run-failed"))
            continue
        collapse = _collapse(run)
        if collapse is not None:
            row, best = collapse
            value = row.get("busbw_oop") if row.get("busbw_oop") is not None else row.get("busbw_ip")
            out.append(
                finding(
                    item,
                    row.get("line"),
                    _(
                        "%(collective)s bus bandwidth collapses mid-sweep to %(value)s GB/s at %(size)s B "
                        "(up to %(best)s GB/s at smaller sizes)",
                        collective=collective,
                        value=f"{value:g}",
                        size=row["size_bytes"],
                        best=f"{best:g}",
                    ),
                    "bandwidth-collapse",
                )
            )
    return out


def dmesg_findings(item: dict[str, Any]) -> list[dict[str, Any]]:
    summary = item.get("summary") or {}
    out = []
    for fallen in summary.get("gpus_fallen_off_bus") or []:
        text = _("GPU %(bus_id)s fell off the bus", bus_id=fallen.get("bus_id"))
        out.append(finding(item, fallen.get("line"), text, "xid"))
    events = summary.get("xid_events") or []
    if events:
        codes = listed(summary.get("xid_codes") or []) or "?"
        text = ngettext(
            "%(n)s Xid error, code %(codes)s",
            "%(n)s Xid errors, codes %(codes)s",
            len(events),
            n=len(events),
            codes=codes,
        )
        out.append(finding(item, events[0].get("line"), text, "xid"))
    return out


def verdict_findings(item: dict[str, Any], claims: tuple[str, ...] | None = None) -> list[dict[str, Any]]:
    """Failed claim checks of the kinds without their own reading above (GPU counts, NVLink links...), or
    only those of `claims`."""
    out = []
    for verdict in item.get("verdicts") or []:
        if verdict.get("verdict") != "fail" or (
            claims is not None and str(verdict.get("claim")) not in claims
        ):
            continue
        lines = verdict.get("lines") or []
        text = _(
            "%(claim)s: measured %(measured)s, expected %(expected)s",
            claim=_verdict_value(verdict, "claim"),
            measured=_verdict_value(verdict, "measured"),
            expected=_verdict_value(verdict, "expected"),
        )
        out.append(finding(item, lines[0] if lines else None, text, "claim-failed"))
    return out


def _verdict_value(verdict: dict[str, Any], key: str) -> Any:
    """A verdict's claim or figure as the upload stored it: its message where it has one (so the page can
    show it in its language), else the value itself."""
    value = verdict.get(key)
    if isinstance(value, bool):  # a condition that holds or not (a full NVLink mesh)
        return _("yes") if value else _("no")
    return Msg.from_json((verdict.get("messages") or {}).get(key), value) if isinstance(value, str) else value


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
            # and a log of other GPUs than the offering's: its GPU-model row (benchmarks.compare._other_gpus)
            out += nccl_findings(item) + verdict_findings(item, claims=(str(GPU_MODEL_CLAIM),))
        elif kind == "dmesg":
            out += dmesg_findings(item)
        else:
            out += verdict_findings(item)
    return out
