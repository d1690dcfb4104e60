"""Parsers for benchmark logs and hardware evidence (DESIGN.md section 7).

Pure code: no Django or Celery import. `parse(data)` recognises the content, runs the matching
parser and returns a `ParseResult` whose `as_dict()` is exactly what `parse_benchmark --json` prints.
"""

from __future__ import annotations

import contextlib
import dataclasses
import gc
from collections.abc import Callable, Iterator

from hardware.messages import _, listed

from . import nccl_json
from .detect import NCCL, Detection, detect
from .gpu_names import note_gpu_names, printed_gpu_names
from .hosts import regroup, skipped_note
from .result import ParseResult
from .text import SNIFF_BYTES, BinarySource, HeadLines, Text, decode, decode_file

__all__ = ["KINDS", "ParseResult", "detect_kind", "parse", "parse_file", "parse_text"]

# Every kind a parser can return. nccl-tests/rccl-tests share one parser, as do the training logs.
KINDS = (
    "nccl-tests",
    "rccl-tests",
    "hccl-test",
    "perftest",
    "megatron",
    "torchtitan",
    "deepspeed",
    "dcgmi-diag",
    "dcgmi-nvlink",
    "nvidia-smi",
    "nvidia-smi-topo",
    "nvidia-smi-nvlink",
    "ibstat",
    "ibstatus",
    "ibv_devinfo",
    "ibdev2netdev",
    "rdma-link",
    "lspci",
    "dmesg",
)
# Reports of one node's devices, ports or links, read whole into their summary (a port, a GPU, a test per
# entry): a real one is a few hundred lines, a file of them concatenated with itself would make a summary and
# a memory that grow with it (a 50 MB dcgmi nvlink report: 76,040 GPUs, 460 MiB). They are read to
# MAX_REPORT_LINES (a report of ~1,000 nodes), the lines past them counted and said.
REPORT_KINDS = frozenset(
    {"dcgmi-diag", "dcgmi-nvlink", "nvidia-smi-topo", "nvidia-smi-nvlink", "lspci"}
    | {"ibstat", "ibstatus", "ibv_devinfo", "ibdev2netdev", "rdma-link"}
)
MAX_REPORT_LINES = 100_000
# The readers that split a file by host (text.line_host): the reports, and nvidia-smi's. A file of several
# hosts' lines is regrouped host by host (hosts.regroup) only for them.
HOST_SPLIT_KINDS = REPORT_KINDS | {"nvidia-smi"}


def _parser_for(kind: str) -> Callable[[Text], ParseResult]:
    # Imported here so that detection alone stays cheap and a broken optional parser cannot break
    # the others at import time.
    if kind == NCCL:
        from .nccl import parse_nccl

        return parse_nccl
    if kind == "hccl-test":
        from .hccl import parse_hccl

        return parse_hccl
    if kind == "perftest":
        from .perftest import parse_perftest

        return parse_perftest
    if kind in ("megatron", "deepspeed", "torchtitan"):
        from .training import parse_training

        return lambda text: parse_training(text, kind)
    if kind in ("dcgmi-diag", "dcgmi-nvlink"):
        from .dcgmi import parse_dcgmi_diag, parse_dcgmi_nvlink

        return parse_dcgmi_diag if kind == "dcgmi-diag" else parse_dcgmi_nvlink
    if kind in ("nvidia-smi", "nvidia-smi-nvlink"):
        from .nvidia_smi import parse_nvidia_smi, parse_nvlink_status

        return parse_nvidia_smi if kind == "nvidia-smi" else parse_nvlink_status
    if kind == "nvidia-smi-topo":
        from .topo import parse_topo

        return parse_topo
    if kind in ("ibstat", "ibstatus", "ibv_devinfo", "ibdev2netdev", "rdma-link"):
        from . import infiniband

        return {
            "ibstat": infiniband.parse_ibstat,
            "ibstatus": infiniband.parse_ibstatus,
            "ibv_devinfo": infiniband.parse_ibv_devinfo,
            "ibdev2netdev": infiniband.parse_ibdev2netdev,
            "rdma-link": infiniband.parse_rdma_link,
        }[kind]
    if kind == "lspci":
        from .lspci import parse_lspci

        return parse_lspci
    if kind == "dmesg":
        from .dmesg import parse_dmesg

        return parse_dmesg
    raise KeyError(kind)


def detect_kind(data: bytes | str) -> Detection:
    """Only the recognition step (no parsing)."""
    text = decode(data)
    if text.binary:
        return Detection(kind=None, reason="binary content")
    return detect(text)


def parse(data: bytes | str, filename: str | None = None) -> ParseResult:
    """Recognise and parse one upload. `filename` is only used in messages, never for detection."""
    head = data[:256].encode("utf-8", errors="replace") if isinstance(data, str) else data[:256]
    if nccl_json.looks_like_report(head):
        raw = data.encode("utf-8", errors="replace") if isinstance(data, str) else data
        return _parse_json_report(raw, filename)
    return parse_text(decode(data), filename)


def parse_file(open_binary: Callable[[], BinarySource], filename: str | None = None) -> ParseResult:
    """`parse` for a stored file, streamed: `open_binary()` returns a fresh binary file object each
    time it is called. The head is read for detection, then the file once, line by line, by the parser,
    so memory does not grow with the file's size. An nccl-tests JSON report (one line) is read whole, up
    to nccl_json.MAX_JSON_BYTES."""
    with open_binary() as handle:
        head = handle.read(SNIFF_BYTES)
    if nccl_json.looks_like_report(head):
        with open_binary() as handle:
            return _parse_json_report(handle.read(nccl_json.MAX_JSON_BYTES + 1), filename)
    return parse_text(decode_file(open_binary, head=head), filename)


def _parse_json_report(data: bytes, filename: str | None) -> ParseResult:
    """An nccl-tests JSON report, parsed as the text report it mirrors (nccl_json)."""
    try:
        lines = nccl_json.report_lines(data)
    except nccl_json.ReportError as exc:
        label = f"{filename}: " if filename else ""
        return ParseResult(
            kind=None, errors=[_("%(label)snot recognised: %(reason)s", label=label, reason=str(exc))]
        )
    return parse_text(Text(lines=lines, notes=[nccl_json.NOTE]), filename)


@contextlib.contextmanager
def _cycle_collection_paused() -> Iterator[None]:
    """No cyclic garbage collection while a log is parsed. A parse allocates hundreds of thousands of
    small objects (lines, matches, rows) and frees them by reference counting (it makes no cycles), but
    the allocations alone set off full collections that walk every live object again and again: 10-15%
    of parsing a big nccl-tests log (docs/PERFORMANCE.md, "Parsers, third round")."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        _age_young_objects()
        gc.enable()


def _age_young_objects() -> None:
    """Every object the collector tracks moved to its oldest generation, unscanned (freeze, then unfreeze:
    two list merges). Otherwise the first allocation after `gc.enable()` scans, in one young-generation
    collection, every container the parse allocated that is still alive (the result's hundreds of
    thousands of dicts and lists for a big log: ~60 ms of a 10 MB parse), work a collector running during
    the parse would have spread out. They are scanned again only by a full collection. Skipped when the
    process keeps frozen objects of its own (gc.freeze before forking workers): unfreeze would free them."""
    if gc.get_freeze_count() == 0:
        gc.freeze()
        gc.unfreeze()


def parse_text(text: Text, filename: str | None = None) -> ParseResult:
    """Detection then the matching parser, on decoded text (in memory or streamed)."""
    with _cycle_collection_paused():
        return _parse_text(text, filename)


def _parse_text(text: Text, filename: str | None) -> ParseResult:
    label = f"{filename}: " if filename else ""
    if text.binary:
        return ParseResult(
            kind=None,
            errors=[_("%(label)snot recognised: binary content (not a text log or report)", label=label)],
        )
    if not any(line.strip() for line in text.lines):
        return ParseResult(kind=None, errors=[_("%(label)snot recognised: the file is empty", label=label)])
    detection = detect(text)
    regrouped: Text | None = None
    if detection.kind is None or detection.kind in HOST_SPLIT_KINDS:
        # several hosts' lines, each carrying its host's name (pdsh, clush, srun -l) or under dshbak's, clush
        # -b's or Ansible's headers: read host by host
        regrouped = regroup(text, MAX_REPORT_LINES)
        again = detect(regrouped) if regrouped is not None else None
        if regrouped is not None and again is not None and again.kind in HOST_SPLIT_KINDS:
            text, detection = regrouped, again
        else:
            regrouped = None
    if detection.kind is None:
        return ParseResult(
            kind=None, errors=[_("%(label)snot recognised: %(reason)s", label=label, reason=detection.reason)]
        )
    # a regrouped text holds its first MAX_REPORT_LINES lines already, and says so
    capped = detection.kind in REPORT_KINDS and regrouped is None
    head = HeadLines(text.lines, MAX_REPORT_LINES) if capped else None
    try:
        result = _parser_for(detection.kind)(dataclasses.replace(text, lines=head) if head else text)
    except Exception as exc:  # a parser bug must not turn an upload into a 500
        return ParseResult(
            kind=None,
            errors=[
                f"{label}recognised as {detection.kind} but the parser failed: {type(exc).__name__}: {exc}"
            ],
        )
    result.warnings[:0] = text.final_notes()
    note_gpu_names(result, printed_gpu_names(result))
    if head is not None and head.skipped:
        result.summary["read_to_line"] = MAX_REPORT_LINES  # counts of what goes on past it are minimums
        result.warnings.append(skipped_note(MAX_REPORT_LINES, head.skipped))
    others = _other_tools(detection.kind, detection.scores)
    if others:
        result.warnings.append(
            _(
                "the file also holds output of %(tools)s, which was not read (one tool is read per file, "
                "here %(kind)s): upload each tool's output as a file of its own to have it checked",
                tools=listed(others),
                kind=detection.kind,
            )
        )
    return result


# Kinds one parser reads together: the training reader takes Megatron, DeepSpeed and torchtitan lines alike.
SAME_READER = ({"megatron", "deepspeed", "torchtitan"},)


def _other_tools(kind: str, scores: dict[str, int]) -> list[str]:
    """The other tools whose signatures detection found in the file (a combined validation report: an
    nvidia-smi table, then `topo -m`, then ibstat...), which the parser of `kind` does not read. Detection
    stops early on a long file of one tool, so this names what it saw, never all a file holds."""
    together = next((group for group in SAME_READER if kind in group), {kind})
    return sorted(other for other in scores if other not in together)
