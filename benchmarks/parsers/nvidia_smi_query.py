"""The query forms of `nvidia-smi`, read into the `nvidia-smi` summary shape: the `-q` / `-a` report and
the `--query-gpu=... --format=csv` listing; and what every `nvidia-smi` form shares: GPUs read more than once
(GpuSet, and TableSet for the default tables; the host of a line is text.line_host's).

The report is an indented tree: `Attached GPUs : 8` in the header, then one `GPU 00000000:2F:00.0` block
per GPU whose sections (`PCI`, `GPU Link Info`, `Remapped Rows`, ...) nest by indentation and end in
`Name : value` lines. `-d MEMORY,CLOCK...` prints only some sections, `-i N` one GPU block.

The CSV listing is a header line naming the fields (nvidia-smi's own names whatever alias was asked for,
units in brackets: `index, name, pci.bus_id, memory.total [MiB]`), then one line per GPU
(`0, NVIDIA H100 80GB HBM3, 00000000:18:00.0, 81559 MiB`; `nounits` drops the units from the values).
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from hardware.messages import Msg, _, joined, listed, ngettext

from .result import ParseResult
from .text import HostLines, Text, line_host, to_float

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
# Driver 610 renamed the table header's `Driver Version` / `CUDA Version` to `KMD Version` / `CUDA UMD
# Version` (tests/benchmarks/fixtures/real/nvidia-smi/dell-xe9780-b300-7gpu-driver610-kmd-version-cuda-umd-
# header.txt); the report's header is read under both names.
HEADER_FIELDS = {
    "Driver Version": "Driver Version",
    "KMD Version": "Driver Version",
    "CUDA Version": "CUDA Version",
    "CUDA UMD Version": "CUDA Version",
}
# nvidia-smi prints `ERR!` in a cell whose NVML query failed for that GPU (nvidia_smi.ROW_FIELDS).
ERR = "ERR!"
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


def gpus_per_host(
    devices: list[dict[str, Any]], hosts: HostLines, in_error: list[dict[str, Any]] | None = None
) -> dict[str, int] | None:
    """The GPUs each host shows, by the host of each GPU's line, when every GPU is under a named host and
    there are several (a node's claim is judged host by host, not on their sum); None otherwise. The GPUs
    in `in_error` get their `host`."""
    named = [hosts.host_of(g["line"]) for g in devices]
    if None in named or len(set(named)) < 2:
        return None
    for g in in_error or []:
        g["host"] = hosts.host_of(g["line"])
    return dict(Counter(h for h in named if h is not None))


class _Reader:
    """One pass: the header, then GPU blocks with a stack of (indent, section) for the path."""

    def __init__(self) -> None:
        self.header: dict[str, Any] = {}
        self.gpus: list[dict[str, Any]] = []
        self.sections: list[tuple[int, str]] = []
        self.hosts = HostLines()
        # Each report: its `Attached GPUs`, its host (None when unnamed) and its first GPU block's position.
        self.reports: list[dict[str, Any]] = []

    def line(self, no: int, line: str) -> None:
        m = ATTACHED_RE.match(line)
        if m:
            self.header["attached"], self.header["attached_line"] = int(m.group(1)), no
            self.reports.append(
                {
                    "attached": int(m.group(1)),
                    "host": self.hosts.host_of(no),
                    "first": len(self.gpus),
                    "line": no,
                }
            )
            return
        if line[:1] not in (" ", "\t", "") and not line.startswith("GPU "):  # fields are indented
            host = line_host(line)
            if host is not None:
                self.hosts.note(no, host)
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
            if name in HEADER_FIELDS:
                self.header[HEADER_FIELDS[name]] = raw
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
        # A CSV listing may name a GPU by its index only.
        where = _("GPU %(bus_id)s (line %(line)s)", bus_id=g.get("bus_id") or g.get("index"), line=g["line"])
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
                ngettext(
                    "%(gpu)s: %(count)s uncorrectable ECC error",
                    "%(gpu)s: %(count)s uncorrectable ECC errors",
                    g["ecc_uncorrectable_volatile"],
                    gpu=where,
                    count=g["ecc_uncorrectable_volatile"],
                )
            )
        if g.get("reset_required") == "Yes" or g.get("drain_and_reset_recommended") == "Yes":
            warnings.append(_("%(gpu)s: the driver asks for a GPU reset", gpu=where))
    return warnings


def _machines(reader: _Reader, warnings: list[str]) -> dict[str, int] | None:
    """The `Attached GPUs` of each machine of a file of several `-q` reports without a host named for each
    (`for h in ...; do ssh $h nvidia-smi -q; done`), the reports told apart as _machine_of tells listings, by
    their GPUs' UUIDs and bus ids (`-q -i 0`, then `-q -i 1`: other bus ids, the same machine's other GPUs);
    each machine's latest report's count. Each GPU block gets its machine's `host`. None for one machine, or
    where a report shows no GPU block or no UUID (a `-d` section filter)."""
    reports, gpus = reader.reports, reader.gpus
    if len(reports) < 2:
        return None
    ends = [r["first"] for r in reports[1:]] + [len(gpus)]
    listings = [gpus[r["first"] : end] for r, end in zip(reports, ends, strict=True)]
    if not all(listings):
        return None
    machine_of = _machine_of(listings, "bus_id")
    if machine_of is None:
        return None
    attached = {n: r["attached"] for n, r in zip(machine_of, reports, strict=True)}  # each machine's latest
    _name_machines(listings, machine_of, warnings)
    return {f"#{n + 1}": count for n, count in sorted(attached.items())}


class Listings:
    """The GPUs of each `-L` or `--query-gpu` listing of a file, as kept (GpuSet), for machines_by_uuid; a
    listing of the same GPUs as the one before it (`watch`, `-l`) is not kept again, so a file of thousands
    of the same listing holds one."""

    def __init__(self) -> None:
        self.listings: list[list[dict[str, Any]]] = []
        self.without_uuid = False  # a GPU without a UUID was read: the machines cannot be told (none kept)

    def start(self) -> None:
        if len(self.listings) > 1 and _same_gpus(self.listings[-1], self.listings[-2]):
            self.listings.pop()
        if not self.without_uuid and (not self.listings or self.listings[-1]):
            self.listings.append([])

    def add(self, gpu: dict[str, Any]) -> None:
        if self.without_uuid:
            return
        if not gpu.get("uuid"):
            self.without_uuid, self.listings = True, []
            return
        if not self.listings:
            self.listings.append([])
        self.listings[-1].append(gpu)

    def done(self) -> list[list[dict[str, Any]]]:
        return [] if self.without_uuid else [listing for listing in self.listings if listing]


def _same_gpus(one: list[dict[str, Any]], other: list[dict[str, Any]]) -> bool:
    return len(one) == len(other) and all(a is b for a, b in zip(one, other, strict=True))


def machines_by_uuid(listings: list[list[dict[str, Any]]], warnings: list[str]) -> dict[str, int] | None:
    """The GPUs of each machine of a file of several `-L` or `--query-gpu` listings (each a list of the GPUs
    as kept) without a host named for each (`for h in ...; do ssh $h nvidia-smi -L; done`), the listings told
    apart by _machine_of (by GPU index: `-i 3`, then `-i 1`, the same machine's other GPUs). Each GPU gets its
    machine's `host`. None for one machine, or where a listing shows no UUID."""
    machine_of = _machine_of(listings, "index")
    if machine_of is None:
        return None
    gpus: dict[int, dict[int, dict[str, Any]]] = {}  # machine -> the GPUs it showed, each once
    for n, listing in zip(machine_of, listings, strict=True):
        gpus.setdefault(n, {}).update((id(g), g) for g in listing)
    _name_machines(listings, machine_of, warnings)
    return {f"#{n + 1}": len(shown) for n, shown in sorted(gpus.items())}


def _machine_of(listings: list[list[dict[str, Any]]], place: str) -> list[int] | None:
    """Which machine (0, 1, ... in the order listed) each listing of GPUs is: a listing whose UUIDs no
    earlier machine showed, at places (`place`: a GPU's index, or its bus id) that machine showed with other
    UUIDs, is another machine's; one that shares UUIDs is the same machine's listing again, and one at other
    places the same machine's other GPUs. None where a listing shows no UUID, or for one machine. A UUID is
    looked up in one dict; the places of the latest MAX_MACHINES_MATCHED machines only, so a file of
    thousands of machines' listings stays linear (as TableSet matches tables)."""
    machine_of_uuid: dict[Any, int] = {}
    places_of: list[set[Any]] = []  # each machine's places
    of: list[int] = []
    for listing in listings:
        uuids = {g.get("uuid") for g in listing}
        places = {g.get(place) for g in listing}
        if None in uuids:
            return None
        at = next((machine_of_uuid[u] for u in uuids if u in machine_of_uuid), None)
        if at is None and None not in places:
            latest = range(max(len(places_of) - MAX_MACHINES_MATCHED, 0), len(places_of))
            at = next((n for n in latest if not places_of[n] & places), None)
        if at is None:
            at = len(places_of)
            places_of.append(set())
        places_of[at].update(places)
        machine_of_uuid.update(dict.fromkeys(uuids, at))
        of.append(at)
    return of if len(places_of) > 1 else None


def _name_machines(listings: list[list[dict[str, Any]]], machine_of: list[int], warnings: list[str]) -> None:
    """Each GPU's `host`, its machine's `#n`, and the warning naming them."""
    for n, listing in zip(machine_of, listings, strict=True):
        for g in listing:
            g["host"] = f"#{n + 1}"
    warnings.append(unnamed_machines_warning([f"#{n + 1}" for n in range(max(machine_of) + 1)]))


def unnamed_machines_warning(names: list[str]) -> Msg:
    """What a file of several machines' `-q` reports or `-L` listings without their names says."""
    return _(
        "reports of %(count)s machines without their names (%(names)s, in the order listed: GPU UUIDs no "
        "earlier report showed): a node's claim is judged machine by machine",
        count=len(names),
        names=listed(names[:16], more=len(names) > 16),
    )


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
    per_host = gpus_per_host(gpus, reader.hosts)
    if per_host is not None:
        # each host's report states its own count; a host whose `Attached GPUs` is not shown: its blocks
        attached_by_host = {r["host"]: r["attached"] for r in reader.reports}  # each host's latest
        per_host = {host: attached_by_host.get(host, n) for host, n in per_host.items()}
    else:
        per_host = _machines(reader, result.warnings)
    if per_host is not None:
        result.summary["gpus_per_host"] = per_host
        # several machines' reports: their GPUs together, as for the default tables (each judged alone)
        result.summary["gpus"] = result.summary["attached_gpus"] = attached = sum(per_host.values())
        result.summary["lines"] = [r["line"] for r in reader.reports]
    if attached is not None and len(gpus) < attached:
        result.warnings.append(
            ngettext(
                "Attached GPUs: %(attached)s, but %(shown)s GPU block shown (-i or a cut excerpt): models "
                "and health are known for those only",
                "Attached GPUs: %(attached)s, but %(shown)s GPU blocks shown (-i or a cut excerpt): models "
                "and health are known for those only",
                len(gpus),
                attached=attached,
                shown=len(gpus),
            )
        )
    if gpus and not models:
        result.warnings.append(_("no Product Name lines (`-d` section filter): GPU models unknown"))
    result.warnings.extend(_gpu_warnings(gpus))
    return result


# ---- what every nvidia-smi form shares: GPUs read more than once --------------------------------------


class GpuSet:
    """The GPUs of a file that may show them more than once: `watch nvidia-smi`, `-l`, a job's prologue and
    epilogue or the command run twice print the same GPUs again. A GPU is known by an id unique on its host
    (bus id, UUID or index), so a reading of an id already read on the same host is the same GPU: kept once,
    from its first reading. The same id under the prompts of two hosts (`user@a`, `user@b`) is two GPUs; a
    reading whose host no prompt named is taken as the first host that showed the id. A reading without an id
    is always another GPU."""

    def __init__(self) -> None:
        self.gpus: list[dict[str, Any]] = []
        self.readings: list[int] = []  # per GPU, how many times it was read
        self.hosts: list[str] = []  # the hosts (named by prompts) whose GPUs were read, in order
        self._by_id: dict[str, dict[str | None, int]] = {}  # id -> host -> position in gpus

    def add(self, gpu_id: str | None, host: str | None, gpu: dict[str, Any]) -> dict[str, Any]:
        """The GPU read: `gpu` when it is new, else the entry first read for it."""
        if gpu_id is not None:
            by_host = self._by_id.setdefault(gpu_id, {})
            known = by_host.get(host)
            if known is None and host is None and by_host:
                known = next(iter(by_host.values()))
            elif known is None and None in by_host:
                # The first reading had no host: it was this host's, so another host's is another GPU.
                known = by_host[host] = by_host.pop(None)
                self._add_host(host)
            if known is not None:
                self.readings[known] += 1
                return self.gpus[known]
            by_host[host] = len(self.gpus)
        self._add_host(host)
        self.gpus.append(gpu)
        self.readings.append(1)
        return gpu

    def _add_host(self, host: str | None) -> None:
        if host is not None and host not in self.hosts:
            self.hosts.append(host)

    def warnings(self) -> list[str]:
        """GPUs read more than once, and GPUs of several hosts."""
        return repeat_warnings(self.readings, self.hosts)


def repeat_warnings(readings: list[int], hosts: list[str]) -> list[str]:
    """GPUs read more than once (`readings`: per GPU, how many times), and GPUs of several named hosts."""
    warnings: list[str] = []
    repeated = sum(1 for n in readings if n > 1)
    if repeated:
        warnings.append(
            ngettext(
                "%(gpus)s GPU shown up to %(times)s times (the same ids again: `watch`, `-l` or the command "
                "run more than once): each GPU counted once, from its first reading",
                "%(gpus)s GPUs shown up to %(times)s times (the same ids again: `watch`, `-l` or the "
                "command run more than once): each GPU counted once, from its first reading",
                repeated,
                gpus=repeated,
                times=max(readings),
            )
        )
    if len(hosts) > 1:
        warnings.append(
            _(
                "GPUs of %(count)s hosts (%(hosts)s, named in the file by shell prompts, the commands that "
                "ran nvidia-smi or pdsh, clush, dshbak or Ansible labels): the GPU count is theirs together, "
                "not one node's",
                count=len(hosts),
                hosts=listed(hosts),
            )
        )
    return warnings


# How many of the latest machines a table is matched against (TableSet).
MAX_MACHINES_MATCHED = 64
# GPUs named one by one in the warning about GPUs missing from a later table; the rest as `…`.
MAX_MISSING_NAMED = 8


class TableSet:
    """The GPUs of the default tables of a file, read table by table: a later table is the same table printed
    again (`watch`, `-l`, a prologue and an epilogue) only when it shows GPU ids all shown by an earlier table
    of the same host under the same driver version (a table cut short shows fewer). A table of other ids
    beside them (none in common: `-i 0` then `-i 1`) adds the GPUs to that machine; a table that shares some
    ids but not all, or runs another driver, is another machine's, whether or not a prompt or a command line
    named its host (fixtures/real/nvidia-smi/gdr114-run-cmd-2hosts-...: two hosts' tables, both with a GPU at
    bus 08:00.0, drivers 570 and 550). A table with no host named before it matches any host. A whole table
    (not cut short) that shows fewer GPUs than the earlier tables of its machine lost the others: they are
    kept in `missing` (`watch nvidia-smi` while a GPU fell off the bus)."""

    def __init__(self) -> None:
        self.gpus: list[dict[str, Any]] = []
        self.readings: list[int] = []
        # One per machine: its host (None until a prompt names it), driver, GPU id -> position in gpus,
        # GPU id -> line of its latest reading, and the ids recorded missing.
        self.machines: list[dict[str, Any]] = []
        # GPUs an earlier table showed and a later whole table of the same machine does not, once each.
        self.missing: list[dict[str, Any]] = []

    def add_table(
        self,
        host: str | None,
        driver: str | None,
        rows: list[tuple[str, dict[str, Any]]],
        whole: bool = False,
    ) -> None:
        """One table's GPU rows, (bus id, row) in order. `whole`: the table ends in its Processes section with
        no elision inside, and its command selected no GPUs (`-i`), so it shows every GPU of its host."""
        if not rows:
            return
        ids = {gpu_id for gpu_id, _ in rows}
        # The latest machines only, so a file of thousands of tables of different drivers stays linear.
        fits = [m for m in self.machines[-MAX_MACHINES_MATCHED:] if _same_machine(m, host, driver)]
        machine = next((m for m in fits if ids <= m["ids"].keys()), None)
        if machine is None:
            machine = next((m for m in reversed(fits) if not ids & m["ids"].keys()), None)
        if machine is None:
            machine = {"host": host, "driver": driver, "ids": {}, "seen": {}, "missing": set()}
            self.machines.append(machine)
        machine["host"] = machine["host"] or host
        machine["driver"] = machine["driver"] or driver
        if whole and len(ids) < len(machine["ids"]) and ids <= machine["ids"].keys():
            self._missing_from(machine, ids, rows[0][1]["line"])
        for gpu_id, gpu in rows:
            machine["seen"][gpu_id] = gpu["line"]
            known = machine["ids"].get(gpu_id)
            if known is not None:
                self.readings[known] += 1
                _later_reading(self.gpus[known], gpu)
                continue
            machine["ids"][gpu_id] = len(self.gpus)
            self.gpus.append(gpu)
            self.readings.append(1)

    def per_machine(self) -> dict[str, int] | None:
        """The GPUs of each machine when the tables are of several (named by their host, or `#1`, `#2`, ... in
        the order listed where no prompt named it), each GPU given its machine's `host`; None for one. A
        node's claim is judged machine by machine: their sum hides a node short of a GPU."""
        if len(self.machines) < 2:
            return None
        names = self._names()
        for name, machine in zip(names, self.machines, strict=True):
            for at in machine["ids"].values():
                self.gpus[at]["host"] = name
        return {name: len(m["ids"]) for name, m in zip(names, self.machines, strict=True)}

    def _names(self) -> list[str]:
        """Each machine's name: its host, or `#n` (its place in the file) where no prompt named it or two
        machines have the same host."""
        hosts = Counter(m["host"] for m in self.machines)
        return [
            m["host"] if m["host"] and hosts[m["host"]] == 1 else f"#{n}"
            for n, m in enumerate(self.machines, start=1)
        ]

    def _missing_from(self, machine: dict[str, Any], ids: set[str], line: int) -> None:
        """The GPUs of `machine` that the whole table at `line` (showing `ids`) no longer shows; a GPU is
        recorded the first time it goes missing only, so a `watch` of thousands of tables keeps one entry."""
        for gpu_id, at in machine["ids"].items():
            if gpu_id in ids or gpu_id in machine["missing"]:
                continue
            machine["missing"].add(gpu_id)
            gpu = self.gpus[at]
            self.missing.append(
                {
                    "bus_id": gpu["bus_id"],
                    "index": gpu["index"],
                    "line": machine["seen"][gpu_id],
                    "missing_from_line": line,
                }  # fmt: skip
            )

    def warnings(self) -> list[str]:
        """GPUs read more than once; several hosts, or machines told apart by their GPUs or drivers only;
        different driver versions."""
        hosts = list(dict.fromkeys(m["host"] for m in self.machines if m["host"]))
        warnings = repeat_warnings(self.readings, hosts)
        for later in dict.fromkeys(g["missing_from_line"] for g in self.missing):
            gone = [g for g in self.missing if g["missing_from_line"] == later]
            warnings.append(
                ngettext(
                    "GPU %(gpus)s is missing from the table at line %(later)s, a whole table (it ends in "
                    "its Processes section) of the same host: the GPU fell off the bus or the driver lost "
                    "it, so it counts as lost",
                    "GPUs %(gpus)s are missing from the table at line %(later)s, a whole table (it ends in "
                    "its Processes section) of the same host: the GPUs fell off the bus or the driver lost "
                    "them, so they count as lost",
                    len(gone),
                    gpus=joined(
                        *(
                            _("%(bus_id)s shown at line %(line)s", bus_id=g["bus_id"], line=g["line"])
                            for g in gone[:MAX_MISSING_NAMED]
                        ),
                        *(["…"] if len(gone) > MAX_MISSING_NAMED else []),
                        sep=_(", "),
                    ),
                    later=later,
                )
            )
        if len(self.machines) > max(len(hosts), 1):
            warnings.append(
                _(
                    "tables of %(count)s machines (%(names)s, in the order listed): a later table shows "
                    "other GPU ids than an earlier one (some the same, some not) or another driver version, "
                    "so it is not the same table printed again: the GPU count is theirs together, and a "
                    "node's claim is judged machine by machine",
                    count=len(self.machines),
                    names=listed(self._names()[:16], more=len(self.machines) > 16),
                )
            )
        drivers = {m["driver"] for m in self.machines if m["driver"]}
        if len(drivers) > 1:
            warnings.append(
                _(
                    "the machines run different driver versions: %(versions)s",
                    versions=listed(
                        f"{m['driver']} ({m['host']})" if m["host"] else m["driver"]
                        for m in self.machines
                        if m["driver"]
                    ),
                )
            )
        return warnings


def _later_reading(kept: dict[str, Any], gpu: dict[str, Any]) -> None:
    """A GPU read again (`watch`, `-l`): kept from its first reading, but its ERR! state is its latest
    reading's (`error_fields` at `error_line`; a GPU that reads ERR! now is not usable now), and an earlier
    ERR! reading the latest no longer shows is kept as `error_earlier`. A name first read as ERR! takes the
    later reading's."""
    if kept.get("name") == ERR and gpu.get("name") not in (None, ERR):
        kept["name"] = gpu["name"]
    if kept.get("error_fields"):
        kept["error_earlier"] = {"line": kept.get("error_line", kept["line"]), "fields": kept["error_fields"]}
    if gpu.get("error_fields"):
        kept["error_fields"], kept["error_line"] = gpu["error_fields"], gpu["line"]
    else:
        kept.pop("error_fields", None)
        kept.pop("error_line", None)
    kept["latest_line"] = gpu["line"]


def _same_machine(machine: dict[str, Any], host: str | None, driver: str | None) -> bool:
    """A table of this host and driver may be this machine's: the same host or one not named, the same
    driver or one not shown."""
    return (machine["host"] == host or None in (machine["host"], host)) and (
        machine["driver"] == driver or None in (machine["driver"], driver)
    )


# ---- `--query-gpu=... --format=csv` -------------------------------------------------------------------

# One field of the header: nvidia-smi's name for it, a unit in brackets after some (`memory.total [MiB]`).
CSV_FIELD = r"[a-z][a-z0-9_]*+(?:\.[a-z0-9_]++)*+(?:\s\[[^\]\[,]{1,16}\])?+"
# Look-aheads over whole fields (`(?:[^,]*+,\s*+)*?` steps from one field to the next): the header names a
# GPU (`name`, `index`, `uuid`, `pci.bus_id`) and holds a field only nvidia-smi names so (a DCGM, process
# or clock query, `gpu_uuid, pid, ...`, names no GPU by these; a CSV of other data has neither).
CSV_HEADER_RE = re.compile(
    r"^\s*+(?=(?:[^,]*+,\s*+)*?(?:name|index|uuid|pci\.bus_id)\s*+(?:,|$))"
    r"(?=(?:[^,]*+,\s*+)*?(?:uuid|driver_version|compute_cap|vbios_version|pstate|serial"
    r"|(?:pci|memory|power|enforced|clocks|pcie|temperature|utilization|ecc|mig|fan|fabric|remapped_rows"
    r"|retired_pages|inforom)\.[a-z0-9_.]++)(?:\s\[[^\]\[,]{1,16}\])?+\s*+(?:,|$))"
    rf"(?:{CSV_FIELD}\s*+,\s*+)++{CSV_FIELD}\s*+$"
)
BUS_ID_RE = re.compile(r"^[0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.\d$")
# nvidia-smi field name -> gpu_list key (the keys of the table and the -q report).
CSV_FIELDS = {
    "index": "index",
    "name": "name",
    "pci.bus_id": "bus_id",
    "uuid": "uuid",
    "memory.total": "memory_total_mib",
    "enforced.power.limit": "power_cap_w",
    "power.limit": "power_cap_w",
    "power.max_limit": "max_power_limit_w",
    "pcie.link.width.current": "pcie_width_current",
    "pcie.link.width.max": "pcie_width_max",
    "mig.mode.current": "mig_mode",
    "remapped_rows.pending": "row_remap_pending",
    "remapped_rows.failure": "row_remap_failure",
    "ecc.errors.uncorrected.volatile.total": "ecc_uncorrectable_volatile",
    "compute_cap": "compute_cap",
    "vbios_version": "vbios_version",
}


def is_csv_header(line: str) -> bool:
    return "," in line and CSV_HEADER_RE.match(line) is not None


def is_query_csv(text: Text) -> bool:
    """A `--query-gpu` CSV header in the head."""
    return any(is_csv_header(line) for line in text.lines[:200])


def _csv_value(key: str, raw: str) -> Any:
    """A value as the -q report's: numbers without their unit; None for `[N/A]`, `[Not Supported]`."""
    if not raw or raw.startswith("[") or raw == "N/A":
        return None
    if key == "index":
        return int(raw) if raw.isdigit() else None
    return _value(key, raw)


class _CsvReader:
    """One pass: each header line names the fields of the lines after it (a second query, or the first
    again, may follow); a line of as many fields is a GPU. Prompts name the host."""

    def __init__(self) -> None:
        self.fields: list[str] = []
        self.gpus = GpuSet()
        self.drivers: dict[str, None] = {}  # distinct driver versions, in order
        self.host: str | None = None
        self.hosts = HostLines()
        # Each listing (a header's lines, or from an index no higher than the one before): its GPUs as kept.
        self.listings = Listings()
        self.last_index: int | None = None

    def line(self, no: int, line: str) -> None:
        host = line_host(line)
        if host is not None:
            self.host = host
            self.hosts.note(no, host)
            return
        if is_csv_header(line):
            self.fields = [field.split("[")[0].strip() for field in line.split(",")]
            self.listings.start()
            return
        values = [value.strip() for value in line.split(",")] if self.fields else []
        if len(values) != len(self.fields) or not values:
            return
        gpu: dict[str, Any] = {"index": None, "name": None, "bus_id": None}
        for field, raw in zip(self.fields, values, strict=True):
            key = CSV_FIELDS.get(field)
            # The enforced limit is the one in force (the table's `Pwr:Usage/Cap`), whichever comes first.
            if key is not None and not (field == "power.limit" and "enforced.power.limit" in self.fields):
                gpu[key] = _csv_value(key, raw)
        if not self._is_gpu(gpu, values):
            return
        driver = dict(zip(self.fields, values, strict=True)).get("driver_version")
        if driver and not driver.startswith("["):
            self.drivers.setdefault(driver, None)
        gpu["line"] = no
        kept = self.gpus.add(_csv_gpu_id(gpu), self.host, gpu)
        # a listing is a header's lines; `--format=csv,noheader` run again starts from index 0 again
        if gpu["index"] is not None and self.last_index is not None and gpu["index"] <= self.last_index:
            self.listings.start()
        self.listings.add(kept)
        self.last_index = gpu["index"]

    def _is_gpu(self, gpu: dict[str, Any], values: list[str]) -> bool:
        """A row of the listing, not a line that happens to hold as many commas: its index a number, its bus
        id a bus id, some name or id given."""
        where = dict(zip(self.fields, values, strict=True))
        if "index" in where and gpu["index"] is None:
            return False
        if "pci.bus_id" in where and not BUS_ID_RE.match(where["pci.bus_id"]):
            return False
        return any(gpu.get(key) for key in ("name", "bus_id", "uuid")) or gpu["index"] is not None


def _csv_gpu_id(gpu: dict[str, Any]) -> str | None:
    """The id a GPU is known by: its UUID (one GPU's wherever it is), else its bus id (the same on two
    machines of a kind), else its index (None when the query has none)."""
    if gpu.get("uuid"):
        return str(gpu["uuid"])
    if gpu["bus_id"]:
        return str(gpu["bus_id"]).upper()
    return None if gpu["index"] is None else f"index {gpu['index']}"


def parse_query_csv(text: Text) -> ParseResult:
    """`nvidia-smi --query-gpu=... --format=csv`: the GPUs by their id column, models from `name`."""
    result = ParseResult(kind="nvidia-smi")
    reader = _CsvReader()
    for no, line in enumerate(text.lines, start=1):
        reader.line(no, line)
    gpus = reader.gpus.gpus
    models = Counter(g["name"] for g in gpus if g.get("name"))
    drivers = list(reader.drivers)
    result.summary = {
        "source": "nvidia-smi --query-gpu",
        "gpus": len(gpus),
        "gpu_models": sorted(models),
        "gpu_model_counts": dict(models),
        "gpu_list": gpus,
        "driver_version": drivers[0] if drivers else None,
        "cuda_version": None,
        "lost_gpus": [],
        "mig_devices": 0,
        "lines": [g["line"] for g in gpus],
    }
    per_host = gpus_per_host(gpus, reader.hosts)
    if per_host is None and len(set(reader.hosts.hosts)) < 2:
        per_host = machines_by_uuid(reader.listings.done(), result.warnings)
    if per_host is not None:
        result.summary["gpus_per_host"] = per_host
    if not gpus:
        result.warnings.append(_("nvidia-smi --query-gpu header found but no GPU lines"))
    elif all(_csv_gpu_id(g) is None for g in gpus):
        result.warnings.append(
            _(
                "no index, uuid or pci.bus_id field: each line is counted as one GPU (a `-l` loop would "
                "count them again)"
            )
        )
    if gpus and not models:
        result.warnings.append(_("no name field: GPU models unknown"))
    if len(drivers) > 1:
        result.warnings.append(_("several driver versions: %(versions)s", versions=listed(drivers)))
    result.warnings.extend(reader.gpus.warnings())
    result.warnings.extend(_gpu_warnings(gpus))
    return result
