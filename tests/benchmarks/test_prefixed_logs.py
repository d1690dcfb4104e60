"""Logs with something in front of every line: a timestamp (`mpirun ... | ts | tee nccl.log`, moreutils `ts`
with its default `%b %d %H:%M:%S` or `-s`; syslog / `journalctl` short lines; `kubectl logs --timestamps`,
`docker logs -t`, a container runtime's log file) or one srun `-l` label.

Before, a `ts` log's nccl-tests tables were not read (the day is a number, so the row's first tokens did not
look like a launcher prefix) and every run was reported as failed ("test header without result rows"); most
evidence files (ibstat, nvidia-smi topo -m, nvidia-smi -L, rdma link) behind any of these were not recognised
at all, and about half of the fixtures answered differently."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks.parsers import parse, parse_file
from benchmarks.parsers.text import clean_line, decode, sniff_wrappers

from ._shared import FIXTURES, require_shared

STAMPS = ("Dec 07 08:10:11 ", "Dec  7 08:10:11 ", "Jan 31 23:59:59.123456 ")
# what log collectors put in front of every line, beside the syslog stamps above
WRAPPERS = (
    "2026-12-07T08:10:11.123456789Z ",  # kubectl logs --timestamps, docker logs -t
    "2026-12-07T08:10:11.123456789+00:00 stdout F ",  # a container runtime's log file (CRI)
    "2026-12-07 08:10:11 ",  # ts '%Y-%m-%d %H:%M:%S'
    "00:00:01.123 ",  # ts -s / ts -i
    "  0: ",  # srun -l, one task
    "2026-12-07T08:10:11Z 3: ",  # a timestamp before an srun label
    "Mon Dec  7 08:10:11 2026[1,0]<stdout>:",  # mpirun --timestamp-output --tag-output
    "Mon Dec  7 08:10:11 UTC 2026 ",  # `date` in a wrapper script's echo
    "gpu-node-017: ",  # pdsh / clush on one host
    "> ",  # quoted in an e-mail or a markdown comment
)


def _stamped(text: str, stamp: str, sep: str = "\n") -> str:
    # `ts` stamps every line it reads, an empty one too (the stamp and its space, nothing after)
    return sep.join(stamp + line for line in text.split("\n"))


def _as_json(data: bytes, name: str) -> str:
    return json.dumps(parse(data, name).as_dict(), sort_keys=True, default=str)


def _logs(root: Path, folders: tuple[str, ...]) -> list[Path]:
    return [
        f
        for folder in folders
        for f in sorted((root / folder).rglob("*"))
        if f.is_file() and f.suffix not in (".md", ".json")
    ]


def _differ(files: list[Path], stamp: str) -> list[str]:
    differ = []
    for f in files:
        text = f.read_text(encoding="utf-8", errors="replace")
        plain = _as_json(text.encode(), f.name)
        if _as_json(_stamped(text, stamp).encode(), f.name) != plain:
            differ.append(f.name)
    return differ


@pytest.mark.parametrize("stamp", STAMPS + WRAPPERS)
def test_every_shared_log_behind_a_prefix_parses_as_the_log_itself(stamp: str) -> None:
    files = _logs(require_shared(), ("benchlogs", "evidence"))
    assert len(files) >= 50, len(files)
    assert not _differ(files, stamp)


@pytest.mark.parametrize("stamp", (STAMPS[0], *WRAPPERS))
def test_every_fixture_log_behind_a_prefix_parses_as_the_log_itself(stamp: str) -> None:
    files = _logs(FIXTURES.parent, (FIXTURES.name,))
    assert len(files) >= 400, len(files)
    assert not _differ(files, stamp)


def test_labels_that_differ_are_left_to_the_parsers() -> None:
    # ranks printing into one file: which rank printed a line is the parsers' to read (training.py takes
    # one rank's iteration lines), so nothing is taken off
    lines = ["0: iteration 1 | lm loss 3.1", "1: iteration 1 | lm loss 3.1", "0: iteration 2 | lm loss 3.0"]
    assert list(decode("\n".join(lines)).lines) == lines
    assert sniff_wrappers("\n".join(lines)) == ()


def test_a_prefix_on_too_few_lines_stays() -> None:
    # one stamped line among unstamped ones is content, not a collector's prefix
    text = "# header\n2026-12-07T08:10:11Z a line\nsize count\n00:00:01 another\nlast"
    assert list(decode(text).lines) == text.split("\n")


def test_a_stamped_nccl_tests_log_keeps_its_rows_and_is_not_a_failed_run() -> None:
    shared = require_shared()
    text = (shared / "benchlogs/nccl-tests/xxrjun-h100-1node-8gpu-5colls.txt").read_text()
    result = parse(_stamped(text, STAMPS[0]).encode(), "nccl.log")
    runs = result.summary["runs"]
    assert [r["collective"] for r in runs] == [
        "all_reduce",
        "all_gather",
        "reduce_scatter",
        "alltoall",
        "sendrecv",
    ]
    assert all(not r["failed"] and r["rows"] == 10 for r in runs)
    assert runs[0]["peak_busbw_gbps"] == 482.27


def test_cr_only_line_ends_and_long_lines_are_unstamped_too() -> None:
    row = "     1048576        262144     float     sum      -1    93.25   11.24   21.08       0"
    text = decode(_stamped(f"# header\n{row}\n", STAMPS[1], sep="\r"))
    assert list(text.lines)[:2] == ["# header", row]
    # the per-line path (a line cut to its maximum is cleaned on its own)
    assert clean_line(STAMPS[2] + row) == row


@pytest.mark.parametrize(
    "line",
    [
        "May the link be up",  # a month's name that is not a stamp
        "Dec 07 is the date of this run",
        "Dec 07 08:10 short time",
        "  Dec 07 08:10:11 indented, not at the start",
        "[Mon Dec  7 08:10:11 2026] NVRM: Xid (PCI:0000:18:00): 79",  # dmesg -T keeps its own bracketed time
    ],
)
def test_only_a_stamp_at_the_start_of_a_line_goes(line: str) -> None:
    assert clean_line(line) == line
    assert list(decode(f"first\n{line}\n").lines)[1] == line


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-16-be"])
def test_every_shared_log_saved_in_utf16_parses_as_the_log_itself(encoding: str) -> None:
    # Windows PowerShell 5.1 saves `>` and Out-File output in UTF-16 LE with a byte-order mark; the codecs
    # without one give the mark-less files some tools write
    differ = []
    for f in _logs(require_shared(), ("benchlogs", "evidence")):
        text = f.read_text(encoding="utf-8", errors="replace")
        if _as_json(text.encode(encoding), f.name) != _as_json(text.encode(), f.name):
            differ.append(f.name)
    assert not differ, differ


def test_a_streamed_utf16_file_reads_as_its_utf8_twin(tmp_path: Path) -> None:
    shared = require_shared()
    source = shared / "evidence/nvidia-smi-topo-m/h20-8gpu-nv18-8nic-pix.txt"
    wide = tmp_path / "topo.txt"
    wide.write_bytes(source.read_text().replace("\n", "\r\n").encode("utf-16"))
    streamed = parse_file(lambda: wide.open("rb"), wide.name)
    assert streamed.kind == "nvidia-smi-topo"
    assert streamed.as_dict() == parse(source.read_bytes(), wide.name).as_dict()


@pytest.mark.parametrize("space", ["\u00a0", "\u202f"])
def test_a_log_copied_with_no_break_spaces_parses_as_the_log_itself(space: str) -> None:
    # a copy from a web page, a PDF or a chat can turn every space into a no-break one
    files = _logs(FIXTURES.parent, (FIXTURES.name,))
    differ = []
    for f in files:
        text = f.read_text(encoding="utf-8", errors="replace")
        if _as_json(text.replace(" ", space).encode(), f.name) != _as_json(text.encode(), f.name):
            differ.append(f.name)
    assert not differ, differ


@pytest.mark.parametrize("stamp", ["2026-12-07T08:10:11.123456789Z stdout F ", "Dec 07 08:10:11 ", "  0: "])
def test_a_streamed_prefixed_file_reads_as_the_plain_one(stamp: str, tmp_path: Path) -> None:
    # the upload path streams a stored file chunk by chunk (LineStream): the prefix sniffed from its head
    # is taken off every chunk, past the first megabyte too
    shared = require_shared()
    text = (shared / "benchlogs/nccl-tests/xxrjun-h100-10node-80gpu-5colls.txt").read_text()
    text = "\n".join([text] * 40)  # about 2.5 MB: several chunks
    stamped = tmp_path / "nccl.log"
    stamped.write_text(_stamped(text, stamp))
    plain = tmp_path / "plain.log"
    plain.write_text(text)
    got = parse_file(lambda: stamped.open("rb"), "nccl.log").as_dict()
    want = parse_file(lambda: plain.open("rb"), "nccl.log").as_dict()
    assert got == want
    assert len(got["summary"]["runs"]) == 200 and all(r["rows"] == 10 for r in got["summary"]["runs"])
