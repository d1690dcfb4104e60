"""`nvidia-smi` (default table), `-L`, `-q` and `--query-gpu` CSV (nvidia_smi_query.py) and `nvlink -s`
(evidence/FORMATS.md 2-3), and `nvlink -gt` traffic counters, which are no link status (COUNTER_RE).

GPU rows are matched by a regex on the row's own structure (index, name, On/Off, bus id) because the
column widths changed between driver branches (535 vs 550/555).
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from hardware.messages import Msg, _, listed, ngettext

from .nvidia_smi_mig import MigDevices
from .nvidia_smi_query import (
    ERR,
    GpuSet,
    Listings,
    TableSet,
    gpus_per_host,
    is_query_csv,
    is_query_report,
    machines_by_uuid,
    parse_query,
    parse_query_csv,
)
from .result import ParseResult
from .text import HostLines, Text, line_host, to_float

# Driver 610 prints `KMD Version:` and `CUDA UMD Version:` where earlier drivers print `Driver Version:` and
# `CUDA Version:` (fixtures/real/nvidia-smi/dell-xe9780-b300-7gpu-driver610-kmd-version-cuda-umd-header.txt).
SMI_HEADER_RE = re.compile(
    r"NVIDIA-SMI\s+(\S+)\s+(?:Driver|KMD) Version:\s*(\S+)(?:\s+CUDA(?: UMD)? Version:\s*(\S+))?"
)
# Linear time on any line: possessive quantifiers, and the name must end on a non-space character so
# the spaces around it can be consumed in one way only (`\s+(.+?)\s+` backtracks in O(n^3) on a row
# of spaces; issue 20).
GPU_ROW_RE = re.compile(
    r"^\|\s++(\d++)\s++(\S(?:[^|]*?\S)?)\s++(On|Off)\s++\|\s++"
    r"([0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.\d)"
)
MEM_RE = re.compile(r"(?<!\d)(\d++)MiB\s*+/\s*+(\d++)MiB")
POWER_RE = re.compile(r"(?<!\d)(\d++)W\s*+/\s*+(\d++)W")
LOST_RE = re.compile(r"Unable to determine the device handle for GPU\s*([0-9A-Fa-f:.]+)")
LIST_RE = re.compile(r"^\s*+GPU\s++(\d++):\s++(\S(?:.*?\S)?)\s++\(UUID:\s*+(GPU-[0-9A-Fa-f-]++)\)")
LINK_RE = re.compile(r"^\s*+Link\s++(\d++):\s++(?:([\d.]++)\s*+GB/s|<?(inactive)>?)", re.IGNORECASE)
NO_NVLINK_RE = re.compile(r"Unable to retrieve NVLink information")
# `nvidia-smi nvlink -gt d|r` (`--getthroughput`): `Link 0: Data Tx: 5863784 KiB`, `Link 0: Raw Rx: ...` (the
# tool's help: d = data payload, r = payload and protocol overhead, in KiB). Traffic counted since the driver
# loaded or the counters were reset: it says neither whether a link is up now nor at what speed.
COUNTER_RE = re.compile(r"^\s*+Link\s++(\d++):\s++(Data|Raw)\s++(Tx|Rx):\s*+(\d++)\s*+KiB")
# GPU-id gaps named one by one in the warning about a listing that skips GPUs; the rest as `…`.
MAX_GAPS_SHOWN = 8
# `nvlink -s` on some drivers (and wrappers that cut it) print `GPU 0: NVIDIA H100 80GB HBM3` without
# the `(UUID: GPU-...)` part.
# A UUID the author elided, `GPU 3: Tesla V100-SXM2-32GB (UUID: ...)`, is read the same way
# (fixtures/real/nvidia-smi-nvlink/azhpc-diag-issue73-...).
GPU_NO_UUID_RE = re.compile(
    r"^\s*+GPU\s++(\d++):\s++(\S(?:[^(]*?\S)?)\s*+(?:\(UUID:\s*+(?:\.{3,}+|…)\s*+\)\s*+)?+$"
)
# A line an author put where lines were left out: `...`, `......`, `…`, `[...]`.
ELISION_RE = re.compile(r"^\s*+(?:\.{3,}+|…++|\[\s*+(?:\.{3,}+|…)\s*+\])\s*+$")
# nvidia-smi prints `ERR!` in a cell whose NVML query failed for that GPU (gpu-operator issue 559: a GPU
# whose name, fan, temperature, power, utilisation and ECC all read `ERR!`). The fields of a GPU's table
# rows, cell by cell, in the order the default table prints them (the same three cells from driver 418
# to 610): the GPU row, the sensor row, the MIG row.
ROW_FIELDS = (
    (("index", "name", "persistence"), ("bus_id", "display"), ("ecc",)),
    (("fan", "temperature", "perf", "power_draw", "power_cap"), ("memory_used", "memory_total"),
     ("gpu_util", "compute_mode")),
    ((), (), ("mig_mode",)),
)  # fmt: skip
# The board's sensors: the fan and the power draw and cap (one sensor, `ERR! / ERR!` a single failed reading),
# which NVML reads through the board's management path (SMBus / SMBPBI) rather than from the GPU, and which
# GeForce and workstation boards often cannot report: `ERR!` there on GPUs that train fine
# (AlexeyAB/darknet#5844, a 2080's fan and power; NVIDIA/open-gpu-kernel-modules#1193, a 2080 SUPER's fan;
# Azure/azhpc-diagnostics#77, a transient power ERR!). Those warn. Any other field (the name, temperature,
# P-state, memory, utilisation, compute mode, ECC, MIG mode) is read from the GPU itself through the driver:
# `ERR!` there means NVML fails on the GPU (gpu-operator issue 559), which is then present but not usable.
BOARD_SENSOR_FIELDS = frozenset({"fan", "power_draw", "power_cap"})
# Fields that are one sensor, named once in a warning.
SENSOR_OF = {"power_draw": "power", "power_cap": "power", "memory_used": "memory", "memory_total": "memory"}
# `nvidia-smi nvlink -R`: each link's remote device, under the same `GPU n: NAME (UUID: ...)` lines as `-L`.
REMOTE_RE = re.compile(r"^\s*+Link\s++\d++:\s++Remote Device\s")
# A command line that selects GPUs (`nvidia-smi -i 0`, `--id=0,1`): its table shows those GPUs, not all.
SELECT_RE = re.compile(r"\s(?:-i|--id)(?:[\s=]|\d)")


class _TableReader:
    """One pass over the default tables and `-L` lines. A table (from its `NVIDIA-SMI` header, or its first
    row) is read whole, then TableSet decides whether it is one printed again; `-L` lines are known by their
    UUID, lost GPUs by the bus id named (GpuSet). A shell prompt, or a command that runs nvidia-smi on a
    named host, names the host of the tables after it."""

    def __init__(self) -> None:
        self.table = TableSet()
        self.listed = GpuSet()
        self.lost = GpuSet()
        self.drivers: dict[tuple[str, str | None], None] = {}  # (driver, CUDA) of the headers, in order
        self.driver: str | None = None
        self.rows: list[tuple[str, dict[str, Any]]] = []  # the GPU rows of the table being read
        self.migs = MigDevices()
        self.host: str | None = None
        self.hosts = HostLines()
        self.last_gpu: dict[str, Any] | None = None
        self.block_row = -1  # the row of the last GPU's block being read (0: its GPU row), -1 after it
        self.listed_index: int | None = None  # the `-L` GPU line the MIG lines after it belong to
        # Each `-L` listing (a GPU index no higher than the one before starts the next): its GPUs as kept.
        self.listings = Listings()
        # Whether the table being read is whole (TableSet.add_table): its Processes section shown, no
        # elision inside it, and whether the latest nvidia-smi command selected GPUs (`-i`).
        self.processes_shown = False
        self.elided = False
        self.selected = False
        self.remote_links = 0  # `nvlink -R` link lines (`Link 0: Remote Device ...`)

    def line(self, no: int, line: str) -> None:
        # Most lines of a file of tables are table lines (`| ...`, `+---`): no command line, and no line that
        # names a host (line_host's prompts and commands start with a word, `(`, `[` or a digit after the
        # indent), so only the other lines are read for those.
        head = line.lstrip()[:1]
        if head != "|":
            if "nvidia-smi" in line:
                # A command line (`$ nvidia-smi -i 0`, `Every 2.0s: nvidia-smi`) ends the table before it.
                self.end_table()
                self.selected = SELECT_RE.search(line) is not None
            host = line_host(line) if head != "+" else None
            if host is not None:
                self.end_table()
                self.host, self.driver = host, None
                self.hosts.note(no, host)
                return
        if self.rows:
            if "Processes:" in line:
                self.processes_shown = True
            elif ("..." in line or "…" in line) and ELISION_RE.match(line):
                self.elided = True
        m = SMI_HEADER_RE.search(line)
        if m:
            self.end_table()
            self.driver = m.group(2)
            self.drivers.setdefault((m.group(2), m.group(3)), None)
            return
        m = GPU_ROW_RE.match(line.strip() if head == "|" else line)
        if m:
            gpu = {
                "index": int(m.group(1)),
                "name": m.group(2).strip(),
                "bus_id": m.group(4),
                "persistence": m.group(3),
                "line": no,
            }
            self.rows.append((m.group(4).upper(), gpu))
            self.last_gpu, self.block_row = gpu, 0
            _error_fields(gpu, line, 0)
            return
        if self.last_gpu is not None and head == "|" and 0 <= self.block_row < 2:
            self.block_row += 1
            if ERR in line:
                _error_fields(self.last_gpu, line, self.block_row)
        elif head == "+":
            self.block_row = -1
        # The memory cell is in the GPU's own block (its row and the lines before the closing `+` rule): a
        # GPU in MIG mode prints `N/A` there (driver 580), and the `MIG devices:` rows that follow hold each
        # slice's memory, not the GPU's.
        if self.last_gpu is not None and "memory_total_mib" not in self.last_gpu and self.block_row >= 0:
            mem = MEM_RE.search(line)
            if mem:
                self.last_gpu["memory_total_mib"] = int(mem.group(2))
                power = POWER_RE.search(line)
                if power:
                    self.last_gpu["power_cap_w"] = int(power.group(2))
                return
        if self.migs.table_line(no, line, self.host):
            return
        self._other_line(no, line)

    def end_table(self) -> None:
        whole = self.processes_shown and not self.elided and not self.selected
        self.table.add_table(self.host, self.driver, self.rows, whole)
        self.rows, self.last_gpu = [], None
        self.processes_shown = self.elided = False

    def _other_line(self, no: int, line: str) -> None:
        m = LOST_RE.search(line)
        if m:
            bus_id = m.group(1).rstrip(":")
            self.lost.add(bus_id.upper(), self.host, {"bus_id": bus_id, "line": no})
            return
        if "Remote Device" in line and REMOTE_RE.match(line):
            self.remote_links += 1
            return
        m = LIST_RE.match(line)
        if m:
            index = int(m.group(1))
            gpu = {"index": index, "name": m.group(2).strip(), "uuid": m.group(3), "line": no}
            # A UUID is the same GPU on any host.
            kept = self.listed.add(m.group(3), None, gpu)
            if self.listed_index is None or index <= self.listed_index:
                self.listings.start()
            self.listings.add(kept)
            self.listed_index = index
            return
        self.migs.list_line(no, line, self.listed_index)


def _error_fields(gpu: dict[str, Any], line: str, row: int) -> None:
    """The fields of a GPU's table row `row` (ROW_FIELDS) that read ERR!, added to its `error_fields`."""
    if ERR not in line:
        return
    fields = gpu.setdefault("error_fields", [])
    for cell, names in zip(line.strip().strip("|").split("|"), ROW_FIELDS[row], strict=False):
        tokens = [t for t in cell.replace("/", " ").split() if t not in ("On", "Off") or row]
        for i, token in enumerate(tokens):
            if token == ERR:
                fields.append(names[i] if i < len(names) else names[-1] if names else "field")


def _sensors(fields: list[str]) -> Msg:
    """The fields that read ERR!, a sensor of two cells (power draw / cap, memory used / total) named once."""
    return listed(dict.fromkeys(SENSOR_OF.get(f, f) for f in fields))


def _gpus_in_error(devices: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[str]]:
    """The GPUs whose latest reading (TableSet keeps it) reads ERR! for the name or a field outside the
    board's sensors (BOARD_SENSOR_FIELDS): present, not usable. A warning for each GPU whose latest reading
    has any field that reads ERR!, and for each whose earlier reading did and whose latest no longer does."""
    in_error: list[dict[str, Any]] = []
    warnings: list[str] = []
    for g in devices:
        fields = g.get("error_fields")
        earlier = g.get("error_earlier")
        where = {"gpu": g["index"], "bus_id": g.get("bus_id", "?"), "line": g.get("error_line", g["line"])}
        if "host" in g:
            where["host"] = g["host"]
        if not fields:
            if earlier:
                warnings.append(
                    _(
                        "GPU %(gpu)s (%(bus_id)s): %(fields)s read ERR! at line %(earlier)s, but not at its "
                        "latest reading (line %(latest)s): judged on the latest reading, usable",
                        gpu=g["index"],
                        bus_id=g.get("bus_id", "?"),
                        fields=_sensors(earlier["fields"]),
                        earlier=earlier["line"],
                        latest=g.get("latest_line", g["line"]),
                    )
                )
            continue
        if any(f not in BOARD_SENSOR_FIELDS for f in fields):
            in_error.append(
                {"index": g["index"], "bus_id": g.get("bus_id"), "line": where["line"], "fields": fields}
            )
            message = _(
                "GPU %(gpu)s (%(bus_id)s, line %(line)s) reads ERR! for %(fields)s: NVML cannot query "
                "it, so the GPU is present but not usable",
                fields=_sensors(fields),
                **where,
            )
        else:
            message = _(
                "GPU %(gpu)s (%(bus_id)s, line %(line)s): %(fields)s read ERR! (NVML could not read the "
                "board's sensor; the GPU itself answers, so it counts as usable)",
                fields=_sensors(fields),
                **where,
            )
        warnings.append(message)
    return in_error, warnings


def parse_nvidia_smi(text: Text) -> ParseResult:
    """Default table, or `-L` when there is no table, or the `-q` report, or the `--query-gpu` CSV."""
    if is_query_report(text):
        return parse_query(text)
    if is_query_csv(text) and not _holds_table(text):
        return parse_query_csv(text)
    result = ParseResult(kind="nvidia-smi")
    reader = _TableReader()
    for no, line in enumerate(text.lines, start=1):
        reader.line(no, line)
    reader.end_table()
    gpus, listed_gpus, lost = reader.table.gpus, reader.listed.gpus, reader.lost.gpus
    # The first table's versions, as the first reading of a GPU is the one kept; several are warned.
    driver, cuda = next(iter(reader.drivers), (None, None))
    source = "table" if gpus else ("list" if listed_gpus else "table")
    devices = gpus or listed_gpus
    remote = source == "list" and reader.remote_links > 0
    # A name that reads ERR! is no model (the GPU is listed in `gpus_in_error`).
    models = Counter(g["name"] for g in devices if g["name"] != ERR)
    # Tables of several machines, a host named for each or not (TableSet): judged machine by machine, each
    # GPU (and so each GPU in error) given its machine.
    if gpus:
        machines = reader.table.per_machine()
    elif len(set(reader.hosts.hosts)) < 2:  # `-L` listings under named hosts are told apart by their hosts
        machines = machines_by_uuid(reader.listings.done(), result.warnings)
    else:
        machines = None
    in_error, error_warnings = _gpus_in_error(devices)
    result.summary = {
        "source": "nvidia-smi"
        if source == "table"
        else ("nvidia-smi nvlink -R" if remote else "nvidia-smi -L"),
        "gpus": len(devices),
        "gpu_models": sorted(models),
        "gpu_model_counts": dict(models),
        "gpu_list": devices,
        "driver_version": driver,
        "cuda_version": cuda,
        "lost_gpus": lost,
        "mig_devices": reader.migs.count(),
        "lines": [g["line"] for g in devices],
    }
    if len({d for d, _ in reader.drivers}) > 1:
        result.summary["driver_versions"] = list(dict.fromkeys(d for d, _ in reader.drivers))
    if reader.migs.devices():
        result.summary["mig_device_list"] = reader.migs.devices()
    per_host = gpus_per_host(devices, reader.hosts, in_error) or machines
    if per_host is not None:
        result.summary["gpus_per_host"] = per_host
    if in_error:
        result.summary["gpus_in_error"] = in_error
    if gpus and reader.table.missing:
        # GPUs a later whole table of their host no longer shows: lost as the unreachable ones are.
        result.summary["gpus_missing_later"] = reader.table.missing
    if lost:
        result.warnings.append(
            ngettext(
                "%(count)s GPU not reachable ('Unable to determine the device handle'): %(bus_ids)s",
                "%(count)s GPUs not reachable ('Unable to determine the device handle'): %(bus_ids)s",
                len(lost),
                count=len(lost),
                bus_ids=listed(x["bus_id"] for x in lost),
            )
        )
    result.warnings.extend(error_warnings)
    if remote:
        result.warnings.append(
            _(
                "`nvidia-smi nvlink -R` output (each NVLink's remote device): its `GPU n:` lines are read as "
                "`nvidia-smi -L`'s for the GPU count and model; it may list only the GPUs asked for (`-i`), "
                "and it shows neither NVLink state nor speed (`nvidia-smi nvlink -s` does)"
            )
        )
    if not devices and not lost:
        result.warnings.append(_("nvidia-smi header found but no GPU rows"))
    if "No devices were found" in "\n".join(text.lines[:200]):
        result.warnings.append(_("nvidia-smi: No devices were found"))
    result.warnings.extend((reader.table if gpus else reader.listed).warnings())
    result.warnings.extend(reader.migs.warnings())
    return result


def _holds_table(text: Text) -> bool:
    """A table header or GPU row, or a `-L` line, in the head: a CSV listing beside them is not the file's
    reading."""
    for line in text.lines[:200]:
        if "NVIDIA-SMI" in line and SMI_HEADER_RE.search(line) or LIST_RE.match(line):
            return True
        if line.lstrip()[:1] == "|" and GPU_ROW_RE.match(line.strip()):
            return True
    return False


def _gpu_block(index: int | None, name: str | None, line: int) -> dict[str, Any]:
    # elided: None, or where an elision line in the block leads: "links" (more link lines of the GPU or the
    # next GPU's header follow it: lines of this block were left out) or "gpus" (a gap in the GPU ids or the
    # end of the file follows: the GPUs after it were left out, perhaps lines of this block too).
    return {
        "index": index, "name": name, "line": line, "links": {}, "counters": {}, "nvml_none": False,
        "elided": None,
    }  # fmt: skip


def _nvlink_gpus(text: Text) -> tuple[list[dict[str, Any]], int]:
    """The GPUs of `nvlink -s` output (evidence/FORMATS.md 3) with their links ({link number: reading}),
    and how many GPUs' link lines came without a `GPU n:` header.

    A GPU is keyed by its UUID, or by its index when the header has none, so a header printed again is the
    same GPU: `nvlink -s -i 0` then `nvlink -c -i 0` print one `GPU 0: ...` header twice (tests/benchmarks/
    fixtures/real/nvidia-smi-nvlink/h100-gpu0-status-then-capabilities-repeated-header.txt), and a link
    read again replaces its first reading rather than counting twice; under another host's prompt or
    command line (text.line_host, as pdsh files are read, hosts.by_host) it is another GPU. The capability
    lines of `-c` (`Link 0, P2P is supported: true`) are not link states: LINK_RE (`Link n:`) leaves them
    out."""
    gpus: dict[tuple[str | None, str | int | tuple[str, int]], dict[str, Any]] = {}
    current: dict[str, Any] | None = None
    elided: dict[str, Any] | None = None  # the GPU whose block an elision line just ended
    headerless = 0  # GPUs whose link lines came without a `GPU n:` header
    host: str | None = None  # the host the lines after a prompt or a command naming one are of
    for no, line in enumerate(text.lines, start=1):
        m = LIST_RE.match(line) or GPU_NO_UUID_RE.match(line)
        if m:
            index = int(m.group(1))
            if elided is not None:
                follows = elided["index"] is not None and index == elided["index"] + 1
                elided["elided"] = elided["elided"] or ("links" if follows else "gpus")
                elided = None
            key = m.group(3) if m.re is LIST_RE else index
            current = gpus.setdefault((host, key), _gpu_block(index, m.group(2).strip(), no))
            current.setdefault("host", host)
            continue
        m = LINK_RE.match(line) or COUNTER_RE.match(line)
        if m:
            if elided is not None and elided is current:
                elided["elided"], elided = "links", None
            link = int(m.group(1))
            # Link lines without a header are a GPU of their own; a link number printed again among them
            # (`nvidia-smi nvlink -s | grep Link`) is the next GPU's, never a new reading of the same link.
            if current is None or (current["index"] is None and m.re is LINK_RE and link in current["links"]):
                headerless += 1
                current = gpus[(host, ("headerless", headerless))] = _gpu_block(None, None, no)
            if m.re is COUNTER_RE:
                counter = current["counters"].setdefault(link, {"link": link, "type": m.group(2), "line": no})
                counter[f"{m.group(3).lower()}_kib"] = int(m.group(4))
                continue
            speed = to_float(m.group(2)) if m.group(2) else None
            current["links"][link] = {"link": link, "gbytes_per_s": speed, "line": no}
            continue
        named = line_host(line)
        if named is not None:  # another host's GPUs follow: GPU 0 there is another GPU
            host, current, elided = named, None, None
        elif NO_NVLINK_RE.search(line) and current is not None:
            current["nvml_none"] = True
        elif current is not None and ELISION_RE.match(line):
            # The author left lines out inside this GPU's block, or the GPUs after it: what follows tells.
            elided = current
    if elided is not None:
        elided["elided"] = elided["elided"] or "gpus"
    return list(gpus.values()), headerless


def _cut_gpus(gpus: list[dict[str, Any]]) -> tuple[set[int], int]:
    """The positions of GPUs whose link listing an elision line (`...`) cut, and the most link lines a GPU
    shows. A block whose elision more of its links or the next GPU follow is cut; when any is, the author
    elides inside blocks, so every block that ends in an elision is (each GPU cut after two links:
    tests/benchmarks/test_review_fixes_f.py). Otherwise an elision before a gap in the ids or
    the end cuts a GPU that shows fewer link lines than another (`Link 0: 25 GB/s`, `......` after two GPUs of
    12 links: fixtures/real/nvidia-smi-nvlink/nccl-tests-issue228-...); a GPU as long as the longest is
    whole: the elision left out the GPUs after it."""
    most = max((len(g["links"]) for g in gpus), default=0)
    if any(g["elided"] == "links" for g in gpus):
        return {i for i, g in enumerate(gpus) if g["elided"]}, most
    return {i for i, g in enumerate(gpus) if g["elided"] and len(g["links"]) < most}, most


def _nvlink_gpu_entry(g: dict[str, Any]) -> dict[str, Any]:
    """One GPU of an nvlink listing; a GPU shown by its traffic counters only has no link figures (None)."""
    links = list(g["links"].values())
    active = [lk for lk in links if lk["gbytes_per_s"]]
    counters_only = bool(g["counters"]) and not links
    entry = {
        "index": g["index"],
        "name": g["name"],
        "active_links": None if counters_only else len(active),
        "inactive_links": None if counters_only else len(links) - len(active),
        "gbytes_per_s_total": None if counters_only else round(sum(lk["gbytes_per_s"] for lk in active), 3),
        "min_link_gbps": min((lk["gbytes_per_s"] for lk in active), default=None),
        "all_links_inactive": g["nvml_none"],
        "line": g["line"],
    }
    if g["counters"]:
        entry["traffic_counters"] = list(g["counters"].values())
    return entry


def _missing_ids(ids: list[int]) -> Msg:
    """The ids from 0 to the highest that sorted `ids` skips, as ranges: `[0, 1, 7]` -> `2-6`. Built from the
    gaps, never by counting up to the highest id (a line may print any number)."""
    gaps = [(low + 1, high - 1) for low, high in zip([-1, *ids], ids, strict=False) if high - low > 1]
    shown = [str(a) if a == b else f"{a}-{b}" for a, b in gaps[:MAX_GAPS_SHOWN]]
    return listed(shown, more=len(gaps) > MAX_GAPS_SHOWN)


def _listing_warnings(per_gpu: list[dict[str, Any]], gpus: list[dict[str, Any]]) -> list[str]:
    """GPU ids the listing skips (a cut or elided excerpt: `GPU 0`, `GPU 1`, `...`, `GPU 7`), and GPUs shown
    by `nvlink -gt` traffic counters only, which say nothing of link state or speed."""
    warnings: list[str] = []
    ids = sorted({p["index"] for p in per_gpu if p["index"] is not None})
    missing = _missing_ids(ids) if len(ids) > 1 and ids[-1] >= len(ids) else ""
    if missing:
        warnings.append(
            ngettext(
                "only %(shown)s GPU listed for GPU ids up to %(highest)s: ids %(missing)s are not shown "
                "(listing cut or elided); the figures are of the GPUs shown",
                "only %(shown)s GPUs listed for GPU ids up to %(highest)s: ids %(missing)s are not shown "
                "(listing cut or elided); the figures are of the GPUs shown",
                len(ids),
                shown=len(ids),
                highest=ids[-1],
                missing=missing,
            )
        )
    counters = [c for g in gpus if not g["links"] for c in g["counters"].values()]
    if counters:
        warnings.append(
            ngettext(
                "`nvidia-smi nvlink -gt` traffic counters (%(type)s Tx/Rx, KiB) of %(links)s link, "
                "%(nonzero)s of them non-zero: a traffic-counter listing, not link status, so no link state "
                "or speed is shown (`nvidia-smi nvlink -s` shows them)",
                "`nvidia-smi nvlink -gt` traffic counters (%(type)s Tx/Rx, KiB) of %(links)s links, "
                "%(nonzero)s of them non-zero: a traffic-counter listing, not link status, so no link state "
                "or speed is shown (`nvidia-smi nvlink -s` shows them)",
                len(counters),
                type="/".join(sorted({c["type"] for c in counters})),
                links=len(counters),
                nonzero=sum(1 for c in counters if c.get("tx_kib") or c.get("rx_kib")),
            )
        )
    return warnings


def _cut_warnings(
    per_gpu: list[dict[str, Any]], gpus: list[dict[str, Any]], cut: set[int], most: int
) -> list[str]:
    """The GPUs whose link listing an elision cut (_cut_gpus): one warning each, or one for them all when
    every GPU with link lines is cut and the links per GPU are a minimum only."""
    shown = [i for i, g in enumerate(gpus) if g["links"]]
    if shown and all(i in cut for i in shown):
        least = min(per_gpu[i]["active_links"] for i in shown)
        return [
            ngettext(
                "the link listing of the %(gpus)s GPU is elided (`...`) after at most %(most)s: at least "
                "%(at_least)s per GPU shown, not how many there are",
                "the link listing of each of the %(gpus)s GPUs is elided (`...`) after at most %(most)s: at "
                "least %(at_least)s per GPU shown, not how many there are",
                len(shown),
                gpus=len(shown),
                most=ngettext("%(n)s link line", "%(n)s link lines", most, n=most),
                at_least=ngettext("%(n)s active link", "%(n)s active links", least, n=least),
            )
        ]
    warnings: list[str] = []
    for i in sorted(cut):
        where = {
            "gpu": "?" if per_gpu[i]["index"] is None else per_gpu[i]["index"],
            "line": per_gpu[i]["line"],
            "links": len(gpus[i]["links"]),
        }
        if len(gpus[i]["links"]) < most:
            message = ngettext(
                "GPU %(gpu)s (line %(line)s): its link listing is elided (`...`) after %(links)s link line "
                "where another GPU shows %(most)s: its count is a minimum and is left out of the active "
                "links per GPU",
                "GPU %(gpu)s (line %(line)s): its link listing is elided (`...`) after %(links)s link lines "
                "where another GPU shows %(most)s: its count is a minimum and is left out of the active "
                "links per GPU",
                where["links"],
                most=most,
                **where,
            )
        else:
            message = ngettext(
                "GPU %(gpu)s (line %(line)s): its link listing is elided (`...`) after %(links)s link line, "
                "as the listing elides inside GPU blocks: its count is a minimum and is left out of the "
                "active links per GPU",
                "GPU %(gpu)s (line %(line)s): its link listing is elided (`...`) after %(links)s link "
                "lines, as the listing elides inside GPU blocks: its count is a minimum and is left out of "
                "the active links per GPU",
                where["links"],
                **where,
            )
        warnings.append(message)
    return warnings


def parse_nvlink_status(text: Text) -> ParseResult:
    result = ParseResult(kind="nvidia-smi-nvlink")
    gpus, headerless = _nvlink_gpus(text)
    per_gpu = [_nvlink_gpu_entry(g) for g in gpus]
    if len({g.get("host") for g in gpus} - {None}) > 1:  # GPUs of several hosts: each with its host
        for entry, g in zip(per_gpu, gpus, strict=True):
            entry["host"] = g.get("host")
    cut, most = _cut_gpus(gpus)
    for i in cut:
        per_gpu[i]["listing_cut"] = True
    speeds: Counter[float] = Counter(
        lk["gbytes_per_s"] for g in gpus for lk in g["links"].values() if lk["gbytes_per_s"]
    )
    inactive = sum(p["inactive_links"] or 0 for p in per_gpu)
    # A GPU whose listing was cut shows a minimum, not its links: left out of the per-GPU figures.
    active_counts = [
        p["active_links"] for i, p in enumerate(per_gpu) if p["active_links"] is not None and i not in cut
    ]
    # GPUs shown by their traffic counters only: no link is known active or inactive (None, not 0).
    unknown = None if per_gpu and not active_counts else 0
    result.summary = {
        "gpus": len(per_gpu),
        "gpu_models": sorted({p["name"] for p in per_gpu if p["name"]}),
        # The weakest GPU decides what TP can rely on, so the per-GPU figure is the minimum.
        "active_links_per_gpu": min(active_counts) if active_counts else unknown,
        "max_active_links_per_gpu": max(active_counts) if active_counts else unknown,
        "link_gbps": speeds.most_common(1)[0][0] if speeds else None,
        "link_speed_unit": "GB/s",
        "min_link_gbps": min(speeds) if speeds else None,
        "link_speeds": {str(k): v for k, v in speeds.items()},
        "inactive_links": inactive,
        "no_nvlink_gpus": sum(1 for p in per_gpu if p["all_links_inactive"]),
        "per_gpu": per_gpu,
        "lines": [p["line"] for p in per_gpu],
    }
    if any(g["counters"] for g in gpus):
        result.summary["traffic_counter_links"] = sum(len(g["counters"]) for g in gpus)
    cut_counts = [per_gpu[i]["active_links"] for i in cut if per_gpu[i]["active_links"] is not None]
    if cut_counts and not active_counts:
        # Every GPU's listing is cut: the links per GPU are known as a minimum only (the comparison passes
        # it when the minimum meets the claim, else cannot measure).
        result.summary["active_links_per_gpu_at_least"] = min(cut_counts)
    if headerless == 1:
        result.warnings.append(_("link lines before any `GPU n:` header (excerpt cut at the top)"))
    elif headerless > 1:
        result.warnings.append(
            _(
                "%(count)s GPUs' link lines without their `GPU n:` headers (an excerpt such as `grep Link`): "
                "each link number printed again read as the next GPU's, GPU numbers unknown",
                count=headerless,
            )
        )
    if any(p["all_links_inactive"] for p in per_gpu):
        result.warnings.append(_("NVML reports all NVLinks inactive on some GPUs: no NVLink"))
    if inactive:
        result.warnings.append(
            ngettext(
                "%(count)s inactive NVLink",
                "%(count)s inactive NVLinks",
                inactive,
                count=inactive,
            )
        )
    if len(per_gpu) == 1:
        result.warnings.append(
            _("only one GPU shown (`-i` or a cut excerpt): the other GPUs are not evidenced")
        )
    result.warnings.extend(_listing_warnings(per_gpu, gpus))
    result.warnings.extend(_cut_warnings(per_gpu, gpus, cut, most))
    return result
