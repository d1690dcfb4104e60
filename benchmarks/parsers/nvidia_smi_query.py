"""`nvidia-smi -q` / `nvidia-smi -a` (the NVSMI LOG report), read into the `nvidia-smi` summary shape.

The report is an indented tree: `Attached GPUs : 8` in the header, then one `GPU 00000000:2F:00.0` block
per GPU whose sections (`PCI`, `GPU Link Info`, `Remapped Rows`, ...) nest by indentation and end in
`Name : value` lines. `-d MEMORY,CLOCK...` prints only some sections, `-i N` one GPU block.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from hardware.messages import _

from .result import ParseResult
from .text import Text, to_float

ATTACHED_RE = re.compile(r"^\s*+Attached GPUs\s*+:\s*+(\d++)")
GPU_BLOCK_RE = re.compile(r"^\s*+GPU\s++([0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.\d)\s*+$")
# (section path, field) -> summary key. The path is the chain of section headers above the field.
FIELDS: dict[tuple[str, str], str] = {
    ("", "Product Name"): "name",
    ("", "GPU UUID"): "uuid",
    ("PCI", "Bus Id"): "bus_id",
    ("FB Memory Usage", "Total"): "memory_total_mib",
    ("GPU Power Readings", "Current Power Limit"): "power_cap_w",
    ("Power Readings", "Power Limit"): "power_cap_w",
    ("Power Readings", "Enforced Power Limit"): "power_cap_w",
    ("GPU Power Readings", "Max Power Limit"): "max_power_limit_w",
    ("Power Readings", "Max Power Limit"): "max_power_limit_w",
    ("PCI/GPU Link Info/PCIe Generation", "Max"): "pcie_gen_max",
    ("PCI/GPU Link Info/PCIe Generation", "Current"): "pcie_gen_current",
    ("PCI/GPU Link Info/PCIe Generation", "Host Max"): "pcie_gen_host_max",
    ("PCI/GPU Link Info/Link Width", "Max"): "pcie_width_max",
    ("PCI/GPU Link Info/Link Width", "Current"): "pcie_width_current",
    ("MIG Mode", "Current"): "mig_mode",
    ("Remapped Rows", "Pending"): "row_remap_pending",
    ("Remapped Rows", "Remapping Failure Occurred"): "row_remap_failure",
    ("ECC Errors/Volatile", "DRAM Uncorrectable"): "ecc_uncorrectable_volatile",
    ("ECC Errors/Volatile", "Double Bit"): "ecc_uncorrectable_volatile",
    ("GPU Reset Status", "Reset Required"): "reset_required",
    ("GPU Reset Status", "Drain and Reset Recommended"): "drain_and_reset_recommended",
    ("Fabric", "State"): "fabric_state",
    ("Fabric", "Status"): "fabric_status",
}
NUMERIC = {
    "memory_total_mib", "power_cap_w", "max_power_limit_w", "pcie_gen_max", "pcie_gen_current",
    "pcie_gen_host_max", "pcie_width_max", "pcie_width_current", "ecc_uncorrectable_volatile",
}  # fmt: skip


def is_query_report(text: Text) -> bool:
    """`Attached GPUs : N` in the head: the NVSMI LOG report rather than the table or `-L`."""
    return any(ATTACHED_RE.match(line) for line in text.lines[:200])


def _value(key: str, raw: str) -> Any:
    if key not in NUMERIC:
        return raw
    token = raw.split()[0].rstrip("x") if raw.split() else ""
    number = to_float(token)
    return int(number) if number is not None and number.is_integer() else number


class _Reader:
    """One pass: the header, then GPU blocks with a stack of (indent, section) for the path."""

    def __init__(self) -> None:
        self.header: dict[str, Any] = {}
        self.gpus: list[dict[str, Any]] = []
        self.sections: list[tuple[int, str]] = []

    def line(self, no: int, line: str) -> None:
        m = ATTACHED_RE.match(line)
        if m:
            self.header["attached"], self.header["attached_line"] = int(m.group(1)), no
            return
        m = GPU_BLOCK_RE.match(line)
        if m:
            self.gpus.append({"index": len(self.gpus), "bus_id": m.group(1), "line": no})
            self.sections = []
            return
        stripped = line.strip()
        if not stripped:
            return
        indent = len(line) - len(line.lstrip())
        while self.sections and self.sections[-1][0] >= indent:
            self.sections.pop()
        name, colon, raw = stripped.partition(":")
        if not colon:
            self.sections.append((indent, stripped))
            return
        self._field(name.strip(), raw.strip())

    def _field(self, name: str, raw: str) -> None:
        if not self.gpus:
            if name in ("Driver Version", "CUDA Version"):
                self.header[name] = raw
            return
        path = "/".join(section for _, section in self.sections)
        key = FIELDS.get((path, name))
        if key and raw not in ("N/A", ""):
            self.gpus[-1][key] = _value(key, raw)


def _gpu_warnings(gpus: list[dict[str, Any]]) -> list[str]:
    """What the report says about each GPU's health: a narrowed PCIe link, a host slot below the GPU's
    generation, pending or failed row remapping, uncorrectable ECC, a reset asked for."""
    warnings: list[str] = []
    for g in gpus:
        where = _("GPU %(bus_id)s (line %(line)s)", bus_id=g["bus_id"], line=g["line"])
        if g.get("pcie_width_current") and g.get("pcie_width_max"):
            if g["pcie_width_current"] < g["pcie_width_max"]:
                warnings.append(
                    _(
                        "%(gpu)s: PCIe link x%(current)s of x%(max)s (degraded)",
                        gpu=where,
                        current=g["pcie_width_current"],
                        max=g["pcie_width_max"],
                    )
                )
        if g.get("pcie_gen_host_max") and g.get("pcie_gen_max"):
            if g["pcie_gen_host_max"] < g["pcie_gen_max"]:
                warnings.append(
                    _(
                        "%(gpu)s: the host slot allows PCIe Gen%(host)s, the GPU Gen%(gpu_gen)s",
                        gpu=where,
                        host=g["pcie_gen_host_max"],
                        gpu_gen=g["pcie_gen_max"],
                    )
                )
        if g.get("row_remap_pending") == "Yes" or g.get("row_remap_failure") == "Yes":
            warnings.append(
                _("%(gpu)s: row remapping pending or failed: reset or replace the GPU", gpu=where)
            )
        if g.get("ecc_uncorrectable_volatile"):
            warnings.append(
                _(
                    "%(gpu)s: %(count)s uncorrectable ECC error(s)",
                    gpu=where,
                    count=g["ecc_uncorrectable_volatile"],
                )
            )
        if g.get("reset_required") == "Yes" or g.get("drain_and_reset_recommended") == "Yes":
            warnings.append(_("%(gpu)s: the driver asks for a GPU reset", gpu=where))
    return warnings


def parse_query(text: Text) -> ParseResult:
    result = ParseResult(kind="nvidia-smi")
    reader = _Reader()
    for no, line in enumerate(text.lines, start=1):
        reader.line(no, line)
    gpus, header = reader.gpus, reader.header
    attached = header.get("attached")
    models = Counter(g["name"] for g in gpus if g.get("name"))
    result.summary = {
        "source": "nvidia-smi -q",
        "gpus": attached if attached is not None else len(gpus),
        "attached_gpus": attached,
        "gpu_blocks": len(gpus),
        "gpu_models": sorted(models),
        "gpu_model_counts": dict(models),
        "gpu_list": gpus,
        "driver_version": header.get("Driver Version"),
        "cuda_version": header.get("CUDA Version"),
        "lost_gpus": [],
        "mig_devices": 0,
        "lines": [header["attached_line"]] if attached is not None else [g["line"] for g in gpus],
    }
    if attached is not None and len(gpus) < attached:
        result.warnings.append(
            _(
                "Attached GPUs: %(attached)s, but %(shown)s GPU block(s) shown (-i or a cut excerpt): "
                "models and health are known for those only",
                attached=attached,
                shown=len(gpus),
            )
        )
    if gpus and not models:
        result.warnings.append(_("no Product Name lines (`-d` section filter): GPU models unknown"))
    result.warnings.extend(_gpu_warnings(gpus))
    return result
