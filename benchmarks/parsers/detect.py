"""Recognising what an upload is from its content alone (never from its file name).

Each family has signature lines (benchlogs/FORMATS.md section 7, evidence/FORMATS.md); the
detector counts them in one pass and scores each family. The highest score wins, so a training log
that also printed an `nvidia-smi` table at start-up is still a training log, and an nccl-tests log
full of NCCL INFO lines is still nccl-tests.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from itertools import compress, repeat

from hardware.messages import Msg, _

from .nccl import COLUMN_HEADER_RE, parse_row
from .nccl.blocks import MAX_ROW_CHARS, ROW_LINE
from .nvidia_smi_query import CSV_HEADER_RE
from .text import Text

# Families parsed by one module each; the parser may refine the kind (nccl-tests -> rccl-tests).
NCCL = "nccl-tests"

SIGNATURES: dict[str, re.Pattern[str]] = {
    "nccl_header": re.compile(
        r"\bnThread\s+\d+\s+nGpus|\bnGpus(?:\(perProc\))?\s+\d+\s+minBytes|Collective test starting:"
        r"|nccl-tests version|Avg bus bandwidth\s*:|Out of bounds values\s*:"
    ),
    "rccl_marker": re.compile(r"rccl-tests:?\s*+[Vv]ersion|RCCL version\s*:|Errors with asterisks|librccl"),
    "nccl_failure": re.compile(r"Test (?:NCCL|CUDA|HIP) failure"),
    "nccl_rank": re.compile(r"\bRank\s+\d+\s+(?:Group\s+\d+\s+)?(?:Pid\s+\d+\s+)?on\s+\S+\s+device\s+\d+"),
    "hccl": re.compile(r"data_size\(Bytes\)\s*:?\s*\||aveg_time\(us\)"),
    # hccl_test failing before its table (hccl.FAILURE_RE)
    "hccl_failure": re.compile(r"hccl interface return err\b.*retcode|This is an error in init_hcclComm"),
    "perftest_banner": re.compile(
        # perftest.BANNER_RE: `RDMA_Write Post List BW Test` with `--post_list`, `forwarding`, `Multicast`.
        r"\b(?:RDMA_\w+|Send|Read|Write|Atomic(?:\s+(?:FETCH_AND_ADD|CMP_AND_SWAP))?)\s+(?:Bidirectional\s+)?"
        r"(?:Post List\s+)?(?:BW|Lat(?:ency)?)\s+(?:forwarding\s+)?(?:Multicast\s+)?Test\b"
    ),
    "perftest_table": re.compile(r"BW average\[|BW peak\[|t_avg\[usec\]|t_typical\[usec\]"),
    # perftest's own messages for a run that fails before its table (perftest.ERROR_RE), and its command line.
    "perftest_error": re.compile(
        r"Couldn't create IB resources|Failed to exchange data between server and clients"
        r"|Unable to (?:init the socket connection|set up socket connection"
        r"|Connect the HCA's through the link)"
        r"|ethernet_read_keys: Couldn't read remote address"
    ),
    "perftest_command": re.compile(r"\bib_(?:write|read|send|atomic)_(?:bw|lat)\b"),
    "dcgmi_diag": re.compile(r"^\s*\|\s*Diagnostic\s*\|\s*Result\s*\||Successfully ran diagnostic"),
    # An excerpt without its `| Diagnostic | Result |` header: section rules and result rows.
    "dcgmi_section": re.compile(r"^\s*+[|+]-{2,}+\s++(?:Deployment|Integration|Hardware|Stress|Metadata)\s"),
    "dcgmi_result_row": re.compile(r"^\s*+\|\s*+[A-Z][\w/ ]*+\|\s*+(?:Pass|Fail|Skip|Warn)\b"),
    "dcgmi_nvlink": re.compile(r"NvLink Link Status|Key:\s*Up=U"),
    "dcgmi_json": re.compile(r"\"DCGM GPU Diagnostic\"\s*+:|\"test_categories\"\s*+:"),
    # NeMo 1 prints only its progress bar, whose postfix holds `train_step_timing in s=49.50`; a grep of a
    # Megatron-Bridge log may hold only its `Step Time : 2.22s GPU utilization: ...TFLOP/s/GPU` lines.
    "megatron": re.compile(
        r"\biteration(?:\s+|=\s*)\d+\s*/\s*\d+\s*\||train_step_timing in s(?:=\d|:\s*+\[\s*+\d)"
        r"|Step Time\s*+:\s*+[\d.]++s\s++GPU utilization:\s*+[\d.]++\s*+(?:MODEL_)?TFLOP/s/GPU"
    ),
    # The flops profiler's block (deepspeed.PROFILER_HEADER) and its `... FLOPS per GPU = ...` lines: a
    # profiler excerpt is recognised without any other DeepSpeed line.
    "deepspeed": re.compile(
        r"RunningAvgSamplesPerSec=|\[Rank \d+\] step=\d+|deepspeed\.launcher|\[runner\.py:\d+:main\]"
        r"|DeepSpeed info:|\[logging\.py:\d+:log_dist\]|DeepSpeed Flops Profiler|FLOPS per GPU = "
        # DeepSpeed before 0.7: `[timer.py:189:stop] 0/40, SamplesPerSec=`; in 2020 `[INFO <date>] 0/2650, `
        r"|\]\s*+\d++/\d++,\s*+SamplesPerSec="
    ),
    # One timer figure (since 0.7): an excerpt of one timer line (or of one broken over several lines, which
    # deepspeed.py joins) states the job's samples/s, and is a DeepSpeed log when no other tool's output is
    # recognised. A lone pre-0.7 `0/40, SamplesPerSec=` line, a less distinctive shape, still needs a second.
    "deepspeed_timer": re.compile(r"(?:RunningAvg|Curr)SamplesPerSec=\d"),
    # Only the first `step: N loss:` is tried (atomic group): a later one has less text after it.
    # Forks print the run length too: `step: 640/644 = 99.3789%  loss:` (training.TITAN_RE reads both).
    "torchtitan": re.compile(
        r"^(?>.*?\bstep:\s*+\d++(?:/\d++(?:\s*+=\s*+[\d.]++%)?+)?+\s++loss:).*?\b(?:tps|wps):"
    ),
    # Driver 610 and later print `KMD Version:` where earlier drivers print `Driver Version:`.
    "smi_header": re.compile(r"NVIDIA-SMI\s++\d[\d.]*+\s++(?:Driver|KMD) Version:"),
    "smi_gpu_row": re.compile(
        # Same shape as nvidia_smi.GPU_ROW_RE: linear (the name ends on a non-space character).
        r"^\|\s++\d++\s++\S(?:[^|]*?\S)?\s++(?:On|Off)\s++\|\s++"
        r"[0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.\d"
    ),
    "smi_lost": re.compile(r"Unable to determine the device handle for GPU|No devices were found"),
    "smi_list": re.compile(r"^\s*+GPU\s++\d++:\s++\S.*\(UUID:\s*+GPU-"),
    # `nvidia-smi -q` / `-a`: the NVSMI LOG report (nvidia_smi_query.ATTACHED_RE).
    "smi_query": re.compile(r"^\s*+(?:=++NVSMI LOG=++|Attached GPUs\s*+:\s*+\d)"),
    # `nvidia-smi --query-gpu=... --format=csv`: its header line (nvidia_smi_query.CSV_HEADER_RE), and the
    # command, which alone says why a listing without that header (`noheader`) is not read.
    "smi_csv_header": CSV_HEADER_RE,
    "smi_csv_command": re.compile(r"--query-gpu[= ]"),
    "nvlink_link": re.compile(r"^\s*+Link\s++\d++:\s++(?:[\d.]++\s*+GB/s|<inactive>)"),
    "nvlink_none": re.compile(r"Unable to retrieve NVLink information"),
    # `nvidia-smi nvlink -gt d|r` traffic counters (nvidia_smi.COUNTER_RE): NVLink output, not `-L`.
    "nvlink_counter": re.compile(r"^\s*+Link\s++\d++:\s++(?:Data|Raw)\s++[TR]x:\s*+\d"),
    # `nvidia-smi nvlink -R` (each link's remote device): NVLink output, not `-L`, and no link state or speed.
    "nvlink_remote": re.compile(r"^\s*+Link\s++\d++:\s++Remote Device\s"),
    "topo_header": re.compile(r"^\s*+GPU0(?:\s++\S++)*\s++CPU Affinity"),
    # not a `topo -p2p` matrix's row (`GPU0   X   OK   OK`: its cells are OK, NS, CNS, GNS, TNS, CNP, DR,
    # U; only GPU0's starts with a topology cell, X), which two hosts' or runs' matrices would otherwise count
    # twice
    "topo_row": re.compile(
        r"^\s*+GPU\d++\s++(?:X\s++(?!(?:OK|NS|CNS|GNS|TNS|CNP|DR|U)\s)|(?:NV\d++|SYS|NODE|PHB|PXB|PIX|SOC)\s)"
    ),
    "topo_legend": re.compile(r"Connection traversing|NV#\s*=|NIC Legend:"),
    "ibstat_ca": re.compile(r"^\s*CA\s+'[^']+'"),
    "ibstat_field": re.compile(r"^\s*(?:Physical state|Link layer|CA type|Base lid|SM lid):\s"),
    "ibstatus": re.compile(r"Infiniband device\s+'[^']+'\s+port\s+\d+\s+status:"),
    "ibv_devinfo": re.compile(
        r"^\s*hca_id:\s|PORT_(?:ACTIVE|DOWN|INIT|ARMED)\s*\(\d\)|^\s*vendor_part_id:"
        # `ibv_devinfo -v` port lines, so a grep of a port block (no hca_id) is read (R6, eighth set)
        r"|^\s*+active_(?:width|speed):\s*+\d"
    ),
    # `ibdev2netdev -v`: `0002:00:02.0 mlx4_0 (MT4100 - NA)  fw 2.43.7008 port 1 (ACTIVE) ==> ib0 (Down)`.
    "ibdev2netdev": re.compile(
        r"^\s*+(?:[0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]\s++)?\S++\s++"
        r"(?:\([^()]*+\)\s++(?:(?:.*?\s)?fw\s++\S++\s++)?)?port\s++\d++\s++(?:\(\w++\)\s++)?(?:==>|<===>)\s++\S"
    ),
    # iproute2's `rdma link`: `link mlx5_0/1 state ACTIVE ...`; older releases print an index first:
    # `0/1: mlx5_0/1: state DOWN physical_state ...`.
    "rdma_link": re.compile(r"^\s*+(?:link\s++\S+/\d++\s|\d++/\d++:\s++\S+/\d++:\s).*\bstate\s++[A-Z_]"),
    # `lspci -P`/`-PP` put the bridge path before the device: `0000:15:01.0/16:00.0/18:00.0 ...` (lspci.py).
    "lspci": re.compile(
        r"^\s*+(?:(?:[0-9a-fA-F]{4}:)?[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]/){0,32}+"
        r"(?:[0-9a-fA-F]{4}:)?[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]\s+[A-Za-z0-9][^:]{2,60}:\s+\S"
    ),
    "dmesg_nvrm": re.compile(r"NVRM:|fallen off the bus|^(?>.*?\bS?Xid\b).*?\bPCI:"),
    # an RDMA NIC driver's failure or PCIe limit (dmesg.NIC_ERROR_RE, PCIE_LIMITED_RE)
    "dmesg_nic": re.compile(
        r"^(?>.*?\bmlx[45]_core\b).*?\bfailed with error\b|Gb/s available PCIe bandwidth, limited by"
        # a loaded NIC's firmware that stopped answering (dmesg.NIC_FIRMWARE_RE)
        r"|^(?>.*?\bmlx[45]_core\s)(?>.*?(?:\(0x[0-9a-fA-F]{1,6}\)\s*+(?:Async,\s*+)?timeout\b"
        r"|device's health compromised|Fatal error \d{1,6} detected|\bsynd 0x0{0,3}[1-9a-fA-F]))"
    ),
    # Other vendors' device tools, not read (detect), like AMD's below: Huawei Ascend's npu-smi (its table
    # banner `| npu-smi 23.0.7  Version: ...`), Intel Gaudi's hl-smi, Alibaba T-Head's ppu-smi (`ppu-smi
    # icn -s` prints `Link 0: 50 GB/s` lines like `nvidia-smi nvlink -s`, under `PPU n:` headers), Intel's
    # xpu-smi.
    "other_smi": re.compile(
        r"(?:^|[\s$#/|])(?:npu-smi|hl-smi|ppu-smi|xpu-smi)(?:\s|$)|\bHL-SMI Version|^\s*+PPU\s++\d++:\s"
    ),
    # `lspci -t` / `-tv`: the bus tree (`+-01.6-[55]----00.0  Amazon.com, Inc. Elastic Fabric Adapter`), which
    # prints no device class, so no NIC or bridge can be told by class (lspci.py reads `BDF Class: ...`).
    "lspci_tree": re.compile(
        r"[+\\]-(?:\[[0-9a-fA-F]{4}:[0-9a-fA-F]{2}\]|[0-9a-fA-F]{2}\.[0-7]-\[[0-9a-fA-F]{2})"
    ),
    # Lines that show a training run but carry no step time the parsers read, so that such a log is refused
    # with its reason, not the generic one: Megatron's evaluation lines (`validation loss at iteration 1000 |
    # lm loss value: ...`, `validation loss at the end of training for val data | ...`) without its iteration
    # lines, and a progress bar whose only timing is its rate (NeMo 1 adds `train_step_timing in s=`, which is
    # read).
    "megatron_validation": re.compile(r"\bvalidation loss at (?:iteration\s++\d|the end of training)"),
    # tqdm's rate (`5/300 [03:27<3:23:21, 41.36s/it, ...]`, `5.00k/300k [..., 41.4it/s]` with unit_scale)
    # and Rich's (`5/300 0:03:27 • 3:23:21 0.02it/s`): a number glued to `s/it` or `it/s`. Asked only when
    # nothing supported was found, so it only chooses the reason a file is refused.
    "progress_rate": re.compile(r"\b\d[\d.]{0,12}+(?:s/it|it/s)\b"),
    # AMD's GPU tools, not read: rocm-smi's banner and end line (every table it prints, `--showtopo` too),
    # amd-smi's table header (`| AMD-SMI 24.6.3+...`) and either command. Only asked when no supported
    # tool is recognised (detect), so an rccl-tests log that also shows rocm-smi is still read.
    "amd_smi": re.compile(
        r"ROCm System Management Interface|End of ROCm SMI Log|\bAMD-SMI\s++\d"
        r"|(?:^|[\s$#/])(?:rocm-smi|amd-smi)(?:\s|$)"
    ),
}

# Detection reads the head of the file only, so its cost does not grow with the file. Every format puts
# its signatures near the top except training logs, whose iteration lines can follow thousands of lines
# of arguments: past the first DETECT_MIN_* the detector keeps reading, up to DETECT_MAX_*, only while
# no family has a decisive score (>= DECISIVE_SCORE).
DETECT_MIN_LINES = 2_000
DETECT_MIN_BYTES = 256 * 1024
DETECT_MAX_LINES = 50_000
DETECT_MAX_BYTES = 8 * 1024 * 1024
DECISIVE_SCORE = 90
MAX_ROW_PROBES = 20_000
USUAL_ROW_RE = re.compile("^" + ROW_LINE)  # anchored: tried at the line start only
# Kept for callers of the previous name.
MAX_DETECT_LINES = DETECT_MAX_LINES


@dataclass
class Detection:
    kind: str | None
    score: int = 0
    reason: str = ""
    scores: dict[str, int] = field(default_factory=dict)


# For each signature, substrings of which every line it matches holds at least one (read off each
# pattern; tests/benchmarks/test_detect_literals.py checks them on every fixture and corpus line). A
# batch of lines that holds none of them is not searched with that signature at all.
SIGNATURE_LITERALS: dict[str, tuple[str, ...]] = {
    "nccl_header": (
        "nThread", "nGpus", "Collective test starting:", "nccl-tests version", "Avg bus bandwidth",
        "Out of bounds values",
    ),
    "rccl_marker": ("rccl-tests", "RCCL version", "Errors with asterisks", "librccl"),
    "nccl_failure": (" failure",),
    "nccl_rank": ("Rank",),
    "hccl": ("data_size(Bytes)", "aveg_time(us)"),
    "hccl_failure": ("hccl interface return err", "This is an error in init_hcclComm"),
    "perftest_banner": ("Test",),
    "perftest_table": ("BW average[", "BW peak[", "t_avg[usec]", "t_typical[usec]"),
    "perftest_error": (
        "Couldn't create IB resources", "Failed to exchange data between server and clients", "Unable to ",
        "Couldn't read remote address",
    ),
    "perftest_command": ("ib_",),
    "dcgmi_diag": ("Diagnostic", "Successfully ran diagnostic"),
    "dcgmi_section": ("Deployment", "Integration", "Hardware", "Stress", "Metadata"),
    "dcgmi_result_row": ("|",),
    "dcgmi_nvlink": ("NvLink Link Status", "Key:"),
    "dcgmi_json": ('"DCGM GPU Diagnostic"', '"test_categories"'),
    "megatron": ("iteration", "train_step_timing in s", "Step Time"),
    "deepspeed": (
        "SamplesPerSec=", "] step=", "deepspeed.launcher", "[runner.py:", "DeepSpeed info:",
        "[logging.py:", "DeepSpeed Flops Profiler", "FLOPS per GPU = ",
    ),
    "deepspeed_timer": ("SamplesPerSec=",),
    "torchtitan": ("step:",),
    "smi_header": ("NVIDIA-SMI",),
    "smi_gpu_row": ("|",),
    "smi_lost": ("Unable to determine the device handle for GPU", "No devices were found"),
    "smi_list": ("(UUID:",),
    "smi_query": ("NVSMI LOG", "Attached GPUs"),
    "smi_csv_header": ("name", "index", "uuid", "pci.bus_id"),
    "smi_csv_command": ("--query-gpu",),
    "nvlink_link": ("Link",),
    "nvlink_none": ("Unable to retrieve NVLink information",),
    "nvlink_counter": ("Link",),
    "nvlink_remote": ("Remote Device",),
    "topo_header": ("CPU Affinity",),
    "topo_row": ("GPU",),
    "topo_legend": ("Connection traversing", "NV#", "NIC Legend:"),
    "ibstat_ca": ("CA",),
    "ibstat_field": ("Physical state:", "Link layer:", "CA type:", "Base lid:", "SM lid:"),
    "ibstatus": ("Infiniband device",),
    "ibv_devinfo": ("hca_id:", "PORT_", "vendor_part_id:", "active_"),
    "ibdev2netdev": ("port",),
    "rdma_link": ("state",),
    "lspci": (":",),
    "dmesg_nvrm": ("NVRM:", "fallen off the bus", "Xid"),
    "dmesg_nic": (
        "failed with error", "available PCIe bandwidth", "timeout", "health compromised", "Fatal error",
        "synd 0x",
    ),
    "other_smi": ("npu-smi", "hl-smi", "ppu-smi", "xpu-smi", "HL-SMI", "PPU"),
    "lspci_tree": ("-[",),
    "megatron_validation": ("validation loss at",),
    "progress_rate": ("s/it", "it/s"),
    "amd_smi": ("ROCm System Management Interface", "End of ROCm SMI Log", "AMD-SMI", "rocm-smi", "amd-smi"),
}  # fmt: skip
# The order in which one line's counts are taken (a Counter keeps the order of first hits).
_ORDER = {name: i for i, name in enumerate(("link_layer_in_head", *SIGNATURES, "nccl_columns", "nccl_row"))}


class _Counts:
    """The signature counts of the lines read so far, taken a batch of lines at a time."""

    def __init__(self) -> None:
        self.hits: Counter[str] = Counter()
        self.probes = 0
        self.batch: list[tuple[int, str]] = []  # (line number, line) of non-blank lines not yet counted

    def flush(self) -> Counter[str]:
        """Count the batch: the same counts, in the same first-hit order, as line by line."""
        batch, self.batch = self.batch, []
        if not batch:
            return self.hits
        found: dict[str, tuple[int, int]] = {}  # name -> (lines matched, first matching line number)

        def add(name: str, no: int) -> None:
            count, first = found.get(name, (0, no))
            found[name] = (count + 1, first)

        lines = [line for _, line in batch]
        block = "\n".join(lines)
        for name, pattern in SIGNATURES.items():
            # Substring tests, not one regex alternation of the literals: `re` tries each literal at every
            # character (8-9 ms against 4 ms for the 36 signatures over a 2,000-line head).
            if not any(map(block.__contains__, SIGNATURE_LITERALS[name])):
                continue
            # The lines holding one of the literals (the prefilter, as substring tests run in C), in order.
            for i in _lines_holding(lines, SIGNATURE_LITERALS[name]):
                if pattern.search(lines[i]):
                    add(name, batch[i][0])
        check_columns = "lgbw" in block.lower()
        for no, line in batch:
            if no <= 400 and "link_layer:" in line:
                add("link_layer_in_head", no)
            # `lgbw` in the line first, as in the whole batch above (the regex scans most of a line).
            if check_columns and "lgbw" in line.lower() and COLUMN_HEADER_RE.search(line):
                add("nccl_columns", no)
            if (
                self.probes < MAX_ROW_PROBES
                and "NCCL" not in line
                and "|" not in line
                and not line.lstrip().startswith("#")
            ):
                self.probes += 1
                # a row of the usual shape (blocks.ROW_LINE, stricter than parse_row) first: a match costs a
                # tenth of reading the row
                if (len(line) <= MAX_ROW_CHARS and USUAL_ROW_RE.match(line)) or parse_row(line, 0, None):
                    add("nccl_row", no)
        for name in sorted(found, key=lambda n: (n not in self.hits, found[n][1], _ORDER[n])):
            self.hits[name] += found[name][0]
        return self.hits


def _lines_holding(lines: list[str], literals: tuple[str, ...]) -> Iterator[int]:
    """The indices of the lines that hold at least one of `literals`, in order."""
    holds = (map(str.__contains__, lines, repeat(literal)) for literal in literals)
    return compress(range(len(lines)), map(any, zip(*holds, strict=True)))


def _count(text: Text) -> Counter[str]:
    counts = _Counts()
    read = 0
    for no, line in enumerate(text.lines, start=1):
        read += len(line) + 1
        if no >= DETECT_MIN_LINES or read >= DETECT_MIN_BYTES:
            if no >= DETECT_MAX_LINES or read >= DETECT_MAX_BYTES:
                break
            if no % 500 == 0 and max(_scores(counts.flush()).values(), default=0) >= DECISIVE_SCORE:
                break
        if line.strip():
            counts.batch.append((no, line))
    return counts.flush()


# Why a file none of whose families scored is not read, by the signature it does show (the first that
# matches, in this order); the other vendors' tools are asked between the two lists (_refusal).
_REFUSALS_FIRST: tuple[tuple[str, Msg], ...] = (
    (
        "smi_csv_command",
        _(
            "an `nvidia-smi --query-gpu` command but no header line naming the fields "
            "(`--format=csv,noheader` output cannot be read by field name): run it with `--format=csv`"
        ),
    ),
    (
        "dcgmi_json",
        _(
            "`dcgmi diag -j` JSON output, which is not read: upload the table `dcgmi diag -r N` "
            "prints without -j"
        ),
    ),
    (
        "amd_smi",
        _(
            "rocm-smi / amd-smi output (AMD GPU tools), which is not read: for an AMD cluster upload "
            "rccl-tests results for its GPUs and fabric, and ibstat / ibv_devinfo or lspci output for "
            "its NICs"
        ),
    ),
)
_REFUSALS: tuple[tuple[str, Msg], ...] = (
    (
        "lspci_tree",
        _(
            "`lspci -t` bus-tree output, which is not read: the tree prints no device class, so NICs and "
            "bridges cannot be told apart; upload plain `lspci` (or `lspci -nn`) output"
        ),
    ),
    (
        "nvlink_remote",
        _(
            "`nvidia-smi nvlink -R` output of one GPU or none (each NVLink's remote device), which is "
            "not read: it shows neither link state nor speed, nor how many GPUs the node has; upload "
            "`nvidia-smi nvlink -s`, or `nvidia-smi -L` for the GPUs"
        ),
    ),
    (
        "megatron_validation",
        _(
            "a Megatron log with validation-loss lines only (`validation loss at iteration N`), which "
            "carry no step time: upload the training log with its `iteration N/ M | ... elapsed time per "
            "iteration (ms)` lines"
        ),
    ),
    (
        "progress_rate",
        _(
            "a progress bar whose only timing is its rate (`s/it` or `it/s`), which is not read: tqdm "
            "smooths that rate over recent steps, data loading and logging included, so it is no step "
            "time; upload a log with the step time per iteration (NeMo's `train_step_timing in s`, "
            "Megatron's iteration lines)"
        ),
    ),
)
_OTHER_SMI_REFUSAL = _(
    "output of another vendor's device tool (npu-smi, hl-smi, ppu-smi or xpu-smi), which is not "
    "read: only NVIDIA's nvidia-smi is read as GPU and NVLink evidence; for such a cluster "
    "upload its collective test (hccl_test on Ascend) and ibstat / ibv_devinfo or lspci output "
    "for its NICs"
)
_GENERIC_REFUSAL = _(
    "no signature of a supported tool (nccl-tests/rccl-tests, hccl_test, perftest, "
    "Megatron/torchtitan/DeepSpeed logs, dcgmi, nvidia-smi and its topo and nvlink reports, "
    "ibstat/ibstatus/ibv_devinfo, ibdev2netdev, rdma link, lspci, dmesg) was found"
)


def detect(text: Text) -> Detection:
    h = _count(text)
    scores = _scores(h)
    reason = _refusal(h, scores)
    if reason is not None:
        return Detection(kind=None, reason=reason)
    best = max(scores, key=lambda k: scores[k])
    hits = {k: v for k, v in h.items() if k != "link_layer_in_head"}
    return Detection(kind=best, score=scores[best], reason=f"signatures: {hits}", scores=scores)


def _refusal(h: Counter[str], scores: dict[str, int]) -> Msg | None:
    """Why the file is not read (None: it is): a signature that names what it is, else the generic reason
    when no family scored."""
    if not scores:
        reason = next((msg for name, msg in _REFUSALS_FIRST if h[name]), None)
        if reason is not None:
            return reason
    if h["other_smi"] and set(scores) <= NVIDIA_SMI_KINDS and not _nvidia_marks(h):
        return _OTHER_SMI_REFUSAL
    if not scores:
        return next((msg for name, msg in _REFUSALS if h[name]), _GENERIC_REFUSAL)
    return None


NVIDIA_SMI_KINDS = frozenset({"nvidia-smi", "nvidia-smi-nvlink", "nvidia-smi-topo"})


def _nvidia_marks(h: Counter[str]) -> bool:
    """Lines only NVIDIA's nvidia-smi prints: its table banner and GPU rows, `-L` and `-q` lines, topo's
    header."""
    return bool(h["smi_header"] or h["smi_gpu_row"] or h["smi_list"] or h["smi_query"] or h["topo_header"])


def _scores(h: Counter[str]) -> dict[str, int]:
    """Each family's score from the signature counts."""
    scores: dict[str, int] = {}
    nccl_structure = h["nccl_header"] + h["nccl_columns"] + h["nccl_rank"]
    if nccl_structure and (h["nccl_row"] or h["nccl_rank"] or h["nccl_failure"] or h["nccl_columns"]):
        scores[NCCL] = 95
    elif h["nccl_row"] >= 3:
        scores[NCCL] = 70
    elif h["nccl_row"] >= 1 and h["nccl_header"]:
        scores[NCCL] = 80
    if h["hccl"]:
        scores["hccl-test"] = 90
    elif h["hccl_failure"]:
        scores["hccl-test"] = 80
    if h["perftest_table"] and (h["perftest_banner"] or h["perftest_table"] >= 1):
        scores["perftest"] = 90 if h["perftest_banner"] else 75
    elif h["perftest_error"]:
        # A run that failed before its table: its banner or command line says which tool it was.
        scores["perftest"] = 85 if h["perftest_banner"] or h["perftest_command"] else 60
    if h["dcgmi_diag"]:
        scores["dcgmi-diag"] = 90
    elif h["dcgmi_section"] and h["dcgmi_result_row"] or h["dcgmi_result_row"] >= 3:
        scores["dcgmi-diag"] = 85
    if h["dcgmi_nvlink"]:
        scores["dcgmi-nvlink"] = 85
    if h["megatron"]:
        scores["deepspeed" if h["deepspeed"] else "megatron"] = 93 if h["deepspeed"] else 92
    elif h["deepspeed"] >= 2:
        scores["deepspeed"] = 88
    elif h["deepspeed_timer"]:
        # below any other tool's table or report the line might sit in (only lspci lines, dmesg lines and an
        # nvidia-smi header alone score less)
        scores["deepspeed"] = 65
    if h["torchtitan"]:
        scores["torchtitan"] = 92
    if h["smi_header"] and h["smi_gpu_row"] or h["smi_gpu_row"] >= 1:
        scores["nvidia-smi"] = 80
    elif h["smi_header"] or h["smi_lost"]:
        scores["nvidia-smi"] = 60
    if h["nvlink_link"] or h["nvlink_none"] or h["nvlink_counter"]:
        scores["nvidia-smi-nvlink"] = 85
    elif h["smi_list"] and (not h["nvlink_remote"] or h["smi_list"] >= 2):
        # `nvlink -R` of several GPUs: its `GPU n: NAME (UUID: ...)` lines are read as `-L`'s (nvidia_smi.py);
        # of one GPU (`-i`, a cut excerpt) it is refused: it would count one GPU for the node.
        scores["nvidia-smi"] = max(scores.get("nvidia-smi", 0), 75)
    if h["smi_query"]:
        scores["nvidia-smi"] = max(scores.get("nvidia-smi", 0), 85)
    if h["smi_csv_header"]:
        scores["nvidia-smi"] = max(scores.get("nvidia-smi", 0), 75)
    if h["topo_header"] and (h["topo_row"] or h["topo_legend"]) or h["topo_row"] >= 2:
        scores["nvidia-smi-topo"] = 85
    if h["ibstat_ca"] and h["ibstat_field"]:
        scores["ibstat"] = 85
    if h["ibstatus"]:
        scores["ibstatus"] = 86
    if h["ibv_devinfo"] >= 2 or (h["ibv_devinfo"] and h["link_layer_in_head"]):
        scores["ibv_devinfo"] = 85
    if h["ibdev2netdev"]:
        scores["ibdev2netdev"] = 70
    if h["rdma_link"]:
        scores["rdma-link"] = 70
    if h["lspci"]:
        scores["lspci"] = 60
    if h["dmesg_nvrm"] or h["dmesg_nic"]:
        scores["dmesg"] = 40
    return scores
