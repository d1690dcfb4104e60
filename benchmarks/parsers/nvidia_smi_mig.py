"""MIG devices in `nvidia-smi` output: the default table's `MIG devices:` section and the `-L` MIG lines.

A GPU in MIG mode is split into instances (`1g.5gb`, `3g.40gb`, ...) that a job sees as separate GPUs, each
with its slice of the memory and SMs: a buyer renting "an A100" on such a node gets one slice of it.

The table's section (driver 450 and later), one device per block of two lines:

    | GPU  GI  CI  MIG |                   Memory-Usage |        Vol|      Shared           |
    |      ID  ID  Dev |                     BAR1-Usage | SM     Unc| CE ENC DEC OFA JPG    |
    |  0    7   0   0  |               5MiB /  4864MiB  | 14      0 |  1   0    0    0    0 |

names no profile, only the memory (and SM count) of each device
(fixtures/real/nvidia-smi/gpu-operator-notes-a100-pcie-40gb-mig-enabled-7x-1g5gb-table-no-processes.txt).
`-L` prints `  MIG 1g.5gb     Device  0: (UUID: MIG-...)` under its `GPU n:` line: the profile, no memory.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from hardware.messages import listed, ngettext

MIG_SECTION_RE = re.compile(r"^\|\s*+MIG devices:")
# The end of the section: the processes table, or the next table's header.
MIG_SECTION_END_RE = re.compile(r"Processes:|NVIDIA-SMI\s")
MIG_ROW_RE = re.compile(
    r"^\s*+\|\s*+(\d++)\s++(\d++)\s++(\d++)\s++(\d++)\s*+\|\s*+(?:\d++MiB\s*+/\s*+(\d++)MiB)?+"
    r"(?:\s*+\|\s*+(\d++)\s)?+"
)
MIG_LIST_RE = re.compile(r"^\s*+MIG\s++(\S++)\s++Device\s++(\d++):")
# MIG devices named in the warning, one GPU each; the rest as `…`.
MAX_GPUS_SHOWN = 8


class MigDevices:
    """The MIG devices of one file, from the table's section and from `-L` lines, each device once (`watch`
    prints the section again; `-L` run twice names the same UUIDs)."""

    def __init__(self) -> None:
        self.in_section = False
        self.table: dict[tuple[str | None, int, int, int, int], dict[str, Any]] = {}
        self.listed: dict[str, dict[str, Any]] = {}

    def table_line(self, no: int, line: str, host: str | None) -> bool:
        """Reads a line of the `MIG devices:` section; False on any other line."""
        if MIG_SECTION_RE.match(line.lstrip()):
            self.in_section = True
            return True
        if not self.in_section:
            return False
        if MIG_SECTION_END_RE.search(line):
            self.in_section = False
            return False
        m = MIG_ROW_RE.match(line)
        if m:
            gpu, instance, compute, device = (int(m.group(i)) for i in range(1, 5))
            self.table.setdefault(
                (host, gpu, instance, compute, device),
                {
                    "gpu": gpu,
                    "gpu_instance": instance,
                    "compute_instance": compute,
                    "mig_device": device,
                    "memory_total_mib": int(m.group(5)) if m.group(5) else None,
                    "sms": int(m.group(6)) if m.group(6) else None,
                    "line": no,
                },
            )
        return True

    def list_line(self, no: int, line: str, gpu: int | None) -> None:
        """A `-L` MIG line under the `GPU n:` line of GPU `gpu`."""
        m = MIG_LIST_RE.match(line)
        if m:
            # A MIG line holds its own UUID: `-L` printed again names the same devices.
            key = line.strip() if "UUID" in line else f"line {no}"
            self.listed.setdefault(
                key, {"gpu": gpu, "profile": m.group(1), "mig_device": int(m.group(2)), "line": no}
            )

    def devices(self) -> list[dict[str, Any]]:
        """The table's devices, or the `-L` ones when the file has no table section (both name the same)."""
        return (
            list(self.table.values()) if len(self.table) >= len(self.listed) else list(self.listed.values())
        )

    def count(self) -> int:
        return len(self.devices())

    def warnings(self) -> list[str]:
        """Each GPU split into MIG devices, with the size of its slices."""
        by_gpu: dict[int | None, Counter[str]] = {}
        for d in self.devices():
            size = d.get("profile") or (f"{d['memory_total_mib']} MiB" if d.get("memory_total_mib") else "?")
            by_gpu.setdefault(d["gpu"], Counter())[size] += 1
        warnings: list[str] = []
        for gpu, sizes in list(by_gpu.items())[:MAX_GPUS_SHOWN]:
            warnings.append(
                ngettext(
                    "GPU %(gpu)s is split into %(count)s MIG device (%(sizes)s): a job on it gets that "
                    "slice of the GPU's memory and SMs, not the whole GPU",
                    "GPU %(gpu)s is split into %(count)s MIG devices (%(sizes)s): a job on one of them gets "
                    "that slice of the GPU's memory and SMs, not the whole GPU",
                    sum(sizes.values()),
                    gpu="?" if gpu is None else gpu,
                    count=sum(sizes.values()),
                    sizes=listed(f"{n} x {size}" for size, n in sizes.items()),
                )
            )
        if len(by_gpu) > MAX_GPUS_SHOWN:
            warnings.append(
                ngettext(
                    "%(count)s more GPU split into MIG devices",
                    "%(count)s more GPUs split into MIG devices",
                    len(by_gpu) - MAX_GPUS_SHOWN,
                    count=len(by_gpu) - MAX_GPUS_SHOWN,
                )
            )
        return warnings
