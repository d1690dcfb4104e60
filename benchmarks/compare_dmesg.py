"""The kernel log (dmesg) measured against the offering's claims: the GPUs that fell off the bus, the Xids
after which a GPU needs a reset, and the NICs (benchmarks.compare_fabric). Pure, no Django; one verdict's
shape is benchmarks.verdicts'."""

from __future__ import annotations

from typing import Any

from benchmarks.compare_fabric import compare_dmesg_nics
from benchmarks.verdicts import verdict_row
from hardware.messages import Msg, _, joined, listed, ngettext


def _fallen_detail(fallen: list[dict[str, Any]], xid_codes: Any) -> Msg:
    """The GPUs the kernel log shows fallen off the bus (bus ids), and its Xid codes."""
    gpus = listed(f["bus_id"] for f in fallen) or _("none")
    detail = _("GPUs fallen off the bus: %(gpus)s", gpus=gpus)
    if not xid_codes:
        return detail
    codes = listed(xid_codes)
    return joined(detail, _("Xid codes %(codes)s", codes=codes), sep=_("; "))


def compare_dmesg(facts: dict[str, Any], item: dict[str, Any]) -> list[dict[str, Any]]:
    s = item.get("summary", {})
    fallen = s.get("gpus_fallen_off_bus") or []
    claim = _("usable GPUs (kernel log)")
    if s.get("nvrm_lines") == 0:
        # A NIC-only excerpt (mlx5_core lines): no GPU driver line, so nothing about the GPUs.
        no_gpu_lines = _("no NVIDIA driver (NVRM) line in this log: it says nothing about the GPUs")
        gpu_row = verdict_row(claim, 0, None, "cannot-measure", no_gpu_lines, item, s.get("lines", []))
    else:
        gpu_row = _dmesg_gpu_row(claim, fallen, item)
    return [gpu_row, *compare_dmesg_nics(facts, item)]


def _dmesg_gpu_row(claim: Msg, fallen: list[dict[str, Any]], item: dict[str, Any]) -> dict[str, Any]:
    """Fail for GPUs fallen off the bus or whose driver probe failed (not usable); else warn for a probe that
    failed and a later load of the driver that took the GPU, and for Xids that NVIDIA's catalogue answers with
    a GPU reset or reboot (dmesg.RESET_XIDS): the GPU needed one when the log was written, and a log cannot
    tell whether it has been reset since (assumed: warn, not fail), unless a later Xid 154 puts the recovery
    action back to None (dmesg `xids_recovered`: pass, named in the detail)."""
    s = item.get("summary", {})
    detail = _fallen_detail(fallen, s.get("xid_codes"))
    lines = list(s.get("lines", []))
    probe = [g for g in s.get("gpus_probe_failed") or [] if all(f["bus_id"] != g["bus_id"] for f in fallen)]
    unnamed = max(0, (s.get("probe_failed_devices") or 0) - len(s.get("gpus_probe_failed") or []))
    if probe or unnamed:
        named = listed(
            _("%(bus_id)s (line %(line)s)", bus_id=g["bus_id"], line=g["line"]) for g in probe
        ) or _("none named")
        probe_msg = ngettext(
            "the driver's probe failed for %(count)s GPU: %(gpus)s; it does not drive it",
            "the driver's probe failed for %(count)s GPUs: %(gpus)s; it does not drive them",
            len(probe) + unnamed,
            count=len(probe) + unnamed,
            gpus=named,
        )
        detail = joined(detail, probe_msg, sep=_("; "))
        lines += [g["line"] for g in probe]
    detail = joined(detail, *_dmesg_history(s), sep=_("; "))
    lost = len(fallen) + len(probe) + unnamed
    resets = s.get("xids_needing_reset") or []
    reloaded = s.get("gpus_probe_recovered") or []
    if lost or not (resets or reloaded):
        return verdict_row(claim, 0, lost, "fail" if lost else "pass", detail, item, lines)
    why = _xid_reset_detail(resets)
    gpus = len({x["bus_id"] for x in resets} | {g["bus_id"] for g in reloaded})
    return verdict_row(claim, 0, gpus, "warn", joined(detail, *why, sep=_("; ")), item, lines)


def _dmesg_history(s: dict[str, Any]) -> list[Msg]:
    """What the kernel log shows recovered: a failed probe a later driver load took back, Xids a later Xid 154
    put back to no recovery action."""
    out: list[Msg] = []
    for g in (s.get("gpus_probe_recovered") or [])[:8]:
        out.append(
            _(
                "the driver's probe of %(bus_id)s failed (line %(line)s), then a later load of the driver "
                "enabled it (line %(loaded)s): it is driven now unless the log goes on to fail it",
                bus_id=g["bus_id"],
                line=g["line"],
                loaded=g["loaded_line"],
            )
        )
    for r in (s.get("xids_recovered") or [])[:8]:
        out.append(
            _(
                "Xid %(xids)s on %(bus_id)s, and a later Xid 154 changed the GPU's recovery action to None "
                "(line %(line)s): recovered",
                xids=listed(r["xids"]),
                bus_id=r["bus_id"],
                line=r["line"],
            )
        )
    return out


def _xid_reset_detail(resets: list[dict[str, Any]]) -> list[Msg]:
    """The Xids after which the catalogue asks for a reset (the GPU was not usable until then), and the
    NVLink Xids whose catalogue workflow decodes the error first (dmesg.NVLINK_DECODE_XIDS: a reset may be
    needed)."""

    def named(group: list[dict[str, Any]]) -> Msg:
        return joined(
            *(
                _(
                    "Xid %(xid)s (%(name)s) x%(count)s on %(bus_id)s, line %(line)s",
                    xid=x["xid"],
                    name=x["name"],
                    count=x["count"],
                    bus_id=x["bus_id"],
                    line=x["lines"][0],
                )
                for x in group[:8]
            ),
            sep=_("; "),
        )

    plain = [x for x in resets if not x.get("nvlink_decode")]
    nvlink = [x for x in resets if x.get("nvlink_decode")]
    out: list[Msg] = []
    if plain:
        out.append(
            _(
                "Xids after which NVIDIA's Xid catalogue asks for a GPU reset or node reboot: %(xids)s; the "
                "GPU was not usable until then",
                xids=named(plain),
            )
        )
    if nvlink:
        out.append(
            _(
                "NVLink Xids whose resolution NVIDIA's Xid catalogue decides by decoding the error (many "
                "units and statuses are non-fatal): %(xids)s; the GPU may need a reset: check the NVLink "
                "error decode",
                xids=named(nvlink),
            )
        )
    return out
