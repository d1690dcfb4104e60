"""Turning uploaded bytes into clean lines, the same way for every parser.

Normalisation follows benchlogs/FORMATS.md section 7: ANSI escapes, CR line ends, Open MPI `--tag-output`
tags (which can sit in the middle of a row), MPICH / Intel MPI `-prepend-rank` tags and tmux pane borders
are removed before any parser looks at a line. Launcher prefixes that could be real content elsewhere
(`0: `, `host: `) are left for the parsers that know what a line should look like.
"""

from __future__ import annotations

import bisect
import codecs
import itertools
import re
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol, Self

from hardware.messages import ngettext

# A line longer than this is cut: no real log line comes close, and it keeps every regex linear-time
# on hostile uploads (a 100 MB single-line file).
MAX_LINE_CHARS = 8192
# Binary sniffing looks at the head only; a log that starts as text and turns into garbage later is
# handled by the parsers skipping what they do not understand.
SNIFF_BYTES = 65536

# Spaces a copy from a web page, a PDF or a chat turns the tools' spaces into (no-break, figure, narrow
# no-break, ideographic): plain spaces again, so that columns split and patterns written with " " match.
ODD_SPACES = "\u00a0\u2007\u202f\u3000"
ODD_SPACES_TABLE = str.maketrans(dict.fromkeys(ODD_SPACES, " "))
ANSI_RE = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[()][A-Za-z0-9]|\x1b[=>]")
MPI_TAG_RE = re.compile(r"\[\d+,\d+\]<std(?:out|err)>:")
# MPICH / Intel MPI (Hydra) `mpiexec -prepend-rank` (`-l`): `[0] ` before every line a rank prints, and again
# where a line was printed in pieces (`[0]   1048576  262144  float  sum  -1[0]    1626.5 ...`), as Open MPI's
# `[1,0]<stdout>:`. Only a line that starts with the tag and a space is taken as tagged; in it, the same tag
# glued to the text before it is a piece's tag (one after a space, `host:1:1 [0] NCCL INFO`, is content).
RANK_TAG_RE = re.compile(r"^\[(\d{1,6})\] ")
# A terminal multiplexer's pane border copied with the text (tmux draws `│`, U+2502, between panes): the
# right pane's lines start with it, the left pane's end with it. No tool read here prints that character.
PANE_BORDER = "\u2502"
RANK_TAG_AFTER_RE = {sep: re.compile(re.escape(sep) + r"\[\d{1,6}\] ") for sep in ("\n", "\r")}
# A timestamp in front of every line from moreutils `ts` (`cmd | ts`, its default format `%b %d %H:%M:%S`,
# fractions with `%.S`/`%.T`) or a syslog / `journalctl` short line: `Dec 07 08:10:11 `,
# `Dec  7 08:10:11.123 `.
# Nothing the parsers read starts with a month's abbreviation, a day and a time, so it goes with its space.
MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
SYSLOG_TIME_RE = re.compile(rf"^(?:{'|'.join(MONTHS)}) [ \d]\d \d\d:\d\d:\d\d(?:[.,]\d{{1,9}})?(?: |$)", re.M)
SYSLOG_SNIFF_CHARS = 65536
# Prefixes a log collector puts in front of every line of a file, taken off when (nearly) every line of its
# head has one (WRAPPER_SHARE of at least WRAPPER_MIN_LINES non-empty lines; sniff_wrappers):
# - an ISO timestamp: `kubectl logs --timestamps`, `docker logs -t` (`2026-12-07T08:10:11.123456789Z `), a
#   container runtime's log file (`... stdout F `), `ts '%Y-%m-%d %H:%M:%S'`;
# - a clock: moreutils `ts -s` / `ts -i` (`00:00:01 `, `00:00:01.123 `);
# - one srun `-l` label on every line (`0: `): a single task's output. Labels that differ (ranks printing
#   into one file) are left to the parsers, which read them (training.py takes one rank's lines).
ISO_STAMP_RE = re.compile(
    r"^\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:[.,]\d{1,9})?(?:Z|[+-]\d\d:?\d\d)?(?: (?:stdout|stderr) [FP])? "
)
CLOCK_STAMP_RE = re.compile(r"^\d\d:\d\d:\d\d(?:[.,]\d{1,9})? ")
# - a ctime() stamp: Open MPI's `mpirun --timestamp-output` (`Mon Dec  7 08:10:11 2026`, before its
#   `--tag-output` tag when both are set), `date`'s default format in a wrapper script's echo.
CTIME_STAMP_RE = re.compile(
    rf"^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) (?:{'|'.join(MONTHS)}) [ \d]\d \d\d:\d\d:\d\d"
    r"(?: [A-Z]{3,5})? \d{4} ?"
)
SRUN_LABEL_RE = re.compile(r"^\s{0,8}(\d{1,6}): ")
# - one host's name: pdsh / clush / the DeepSpeed launcher (`gpu-node-017: `) run on a single host. A host
#   name here holds a digit, a hyphen or a dot, which the words tools print at a line's start do not (`NVRM:`
#   of `dmesg -t | grep NVRM`); names that differ (several hosts in one file) stay for the parsers;
# - e-mail / markdown quoting (`> `) of a whole pasted output.
WRAPPER_HOST_RE = re.compile(r"^([A-Za-z0-9][A-Za-z0-9.\-]{0,62}): ")
QUOTE_WRAPPER_RE = re.compile(r"^> ?")
WRAPPER_SHARE = 0.95
WRAPPER_MIN_LINES = 3
WRAPPER_SNIFF_LINES = 400
# srun `-l` (` 0: `), torchrun (`[rank3]:`), pdsh/clush (`host: `), shell prompts are NOT here.
SRUN_PREFIX_RE = re.compile(r"^\s{0,8}\d{1,6}:\s")
RANK_PREFIX_RE = re.compile(r"^\s*\[(?:default)?rank\d+\]:\s?", re.IGNORECASE)
# E-mail / markdown quoting (`> `, `> > `) in front of pasted output: one character class, no nesting.
QUOTE_PREFIX_RE = re.compile(r"^[ \t]{0,8}>[> \t]{0,16}")
# A line an author put where lines were left out: `...`, `… (8 total GH100 devices) …`, `[...]`: the dots
# alone or around a parenthesised note, nothing else on the line (a wrapped device name can start with
# `...`: `...Device 1021 (rev 01), 2 ports in total` is not an elision).
ELISION_DOTS = r"(?:\.{3,}+|…|\[\s*+(?:\.{3,}+|…)\s*+\])"
ELISION_RE = re.compile(rf"^\s*+{ELISION_DOTS}(?:\s*+\([^()]{{0,200}}+\)\s*+{ELISION_DOTS}?+)?+\s*+$")
HOST_PREFIX_RE = re.compile(r"^\s{0,4}[A-Za-z0-9][A-Za-z0-9_.\-]{0,100}:\s")


class BinarySource(Protocol):
    """A binary file object opened for reading (a real file, BytesIO, a Django storage File)."""

    def read(self, size: int = ..., /) -> Any: ...
    def __enter__(self) -> Self: ...
    def __exit__(self, exc_type: Any, exc: Any, tb: Any, /) -> Any: ...


# Bytes read per chunk when streaming a file.
CHUNK_BYTES = 1 << 20


class LineStream:
    """The cleaned lines of a file, read again from the start on each iteration (never all in memory).

    `open_binary` returns a fresh binary file object. Iterating decodes chunk by chunk; `[:n]` reads only
    the head. Lines longer than MAX_LINE_CHARS are cut while reading, so one huge line costs no memory.
    """

    def __init__(
        self,
        open_binary: Callable[[], BinarySource],
        *,
        cr_only: bool = False,
        wrappers: Wrappers = (),
        encoding: str = "utf-8",
    ) -> None:
        self._open = open_binary
        self._cr_only = cr_only
        self._wrappers = wrappers
        self._encoding = encoding
        self.truncated_lines = 0

    def __iter__(self) -> Iterator[str]:
        for lines in self.blocks():
            yield from lines

    def blocks(self) -> Iterator[list[str]]:
        """The same lines, a chunk's worth (CHUNK_BYTES) at a time, for a parser that reads a block of
        lines in one pass."""
        cut = 0
        sep = "\r" if self._cr_only else "\n"
        try:
            for joined in _split_stream(self._open, sep, self._encoding):
                lines, cut_here, block = _clean_text(joined, sep, self._wrappers)
                del joined  # the uncleaned text is not kept while the block is read
                cut += cut_here
                if block is not None and sep == "\n":
                    lines = JoinedLines(lines, "\n" + block)
                del block
                yield lines
        finally:
            self.truncated_lines = max(self.truncated_lines, cut)

    def __getitem__(self, index: slice) -> list[str]:
        if not isinstance(index, slice) or index.start or index.step or index.stop is None:
            raise TypeError("a line stream only gives its head: stream[:n]")
        return list(itertools.islice(iter(self), index.stop))


# Lines per block when a list of lines in memory is read a block at a time.
BLOCK_LINES = 8192


class HeadLines:
    """The first `limit` lines of a text (a list or a LineStream), read the way a parser reads lines (from
    the start, by line or by block, or its head `[:n]`); the lines past them are counted in `skipped`."""

    def __init__(self, lines: list[str] | LineStream | HeadLines, limit: int) -> None:
        self.lines, self.limit, self.skipped = lines, limit, 0

    def __iter__(self) -> Iterator[str]:
        for block in self.blocks():
            yield from block

    def blocks(self) -> Iterator[list[str]]:
        self.skipped, first = 0, 0
        for block in line_blocks(self.lines):
            room = max(self.limit - first, 0)
            if len(block) > room:  # the block crosses the limit, or lies past it
                self.skipped += len(block) - room
                block = block[:room]
            first += len(block)
            if block:
                yield block

    def __getitem__(self, index: slice) -> list[str]:
        if not isinstance(index, slice) or index.start or index.step or index.stop is None:
            raise TypeError("head lines only give their head: lines[:n]")
        return list(itertools.islice(iter(self), index.stop))


def line_blocks(lines: list[str] | LineStream | HeadLines) -> Iterator[list[str]]:
    """The lines in consecutive blocks, in order: a stream's chunks, or slices of a list."""
    if isinstance(lines, LineStream | HeadLines):
        yield from lines.blocks()
        return
    for start in range(0, len(lines), BLOCK_LINES):
        yield lines[start : start + BLOCK_LINES]


def _split_stream(
    open_binary: Callable[[], BinarySource], sep: str, encoding: str = "utf-8"
) -> Iterator[str]:
    """The raw text of the stream, a chunk's worth (CHUNK_BYTES) of whole lines at a time: the lines joined
    by `sep`, without the last one's; a partial line is kept to MAX_LINE_CHARS + 1 characters."""
    decoder = codecs.getincrementaldecoder(encoding)(errors="replace")
    pending = ""
    first = True
    with open_binary() as handle:
        while True:
            chunk = handle.read(CHUNK_BYTES)
            text = decoder.decode(chunk, final=not chunk)
            if first and text:
                text = text.removeprefix("\ufeff")
                first = False
            whole = pending + text
            del text
            end = whole.rfind(sep)
            if end >= 0:
                yield whole[:end]
                pending = whole[end + 1 :]
            else:
                pending = whole
            del whole
            if len(pending) > MAX_LINE_CHARS + 1:
                pending = pending[: MAX_LINE_CHARS + 1]
            if not chunk:
                break
    if pending:
        yield pending


# A line longer than MAX_LINE_CHARS holds a whole aligned window of this many characters (2 x 4,096 - 1
# < 8,193): a text whose every such window holds a line end has no line to cut.
_WINDOW = (MAX_LINE_CHARS + 1) // 2


def _may_hold_long_line(text: str, sep: str) -> bool:
    """False when no line of `text` (split on `sep`) is longer than MAX_LINE_CHARS, found with one `find`
    per 4,096 characters instead of splitting the text to measure its lines."""
    if len(text) <= MAX_LINE_CHARS:
        return False
    find = text.find
    return any(find(sep, start, start + _WINDOW) < 0 for start in range(0, len(text) - _WINDOW + 1, _WINDOW))


def _clean_text(joined: str, sep: str, wrappers: Wrappers = ()) -> tuple[list[str], int, str | None]:
    """_clean_block of joined.split(sep), splitting the text once: after cleaning it (the same lines, see
    clean_lines) unless a line may need cutting first."""
    if _may_hold_long_line(joined, sep):
        return _clean_block(joined.split(sep), sep, joined, wrappers)
    cleaned = _clean_joined(joined, sep, wrappers)
    return cleaned.split(sep), 0, cleaned


def clean_line(line: str, wrappers: Wrappers = ()) -> str:
    """CR, ANSI escapes, the file's wrapper prefixes (sniff_wrappers), a `ts` / syslog timestamp in front and
    Open MPI tags removed (the line is already cut to MAX_LINE_CHARS)."""
    if "\r" in line:
        line = line.replace("\r", "")
    if "\x1b" in line:
        line = ANSI_RE.sub("", line)
    if any(space in line for space in ODD_SPACES):
        line = line.translate(ODD_SPACES_TABLE)
    line = drop_wrappers(line, wrappers)
    line = _drop_syslog_time(line)
    if "]<std" in line:
        line = MPI_TAG_RE.sub("", line)
    if line.startswith("["):
        line = drop_rank_tags(line)
    if PANE_BORDER in line:
        line = drop_pane_border(line)
    return line


def drop_pane_border(line: str) -> str:
    """A line without the pane border (PANE_BORDER) at its start or at its end (after trailing blanks)."""
    if line.startswith(PANE_BORDER):
        line = line[1:]
    end = line.rstrip()
    return end[:-1].rstrip() if end.endswith(PANE_BORDER) else line


def drop_rank_tags(line: str) -> str:
    """A line without its Hydra `-prepend-rank` tags (RANK_TAG_RE); the line itself when it has none."""
    m = RANK_TAG_RE.match(line)
    if not m:
        return line
    tag = line[: m.end() - 1]
    rest = line[m.end() :]
    # a piece's tag is glued inside a table row only (`[0]   1048576 ...  -1[0]  1626.5`); elsewhere `0[0]` is
    # content (NCCL's `rank[cudaDev]` in `Channel 00/02 : 0[0] -> 1[1]`, an index `arr[0]`)
    if tag not in rest or not rest.lstrip()[:1].isdigit():
        return rest
    pieces = rest.split(tag)
    if all(piece and not piece[-1].isspace() for piece in pieces[:-1]):  # every tag glued: the usual row
        return "".join(pieces)
    out = [pieces[0]]
    last = pieces[0][-1:]
    for piece in pieces[1:]:
        # glued to a character (not a space, not the line's start): the tag of a piece of the same line
        out.append(piece if last and not last.isspace() else tag + piece)
        last = out[-1][-1:] or last
    return "".join(out)


Wrappers = tuple[re.Pattern[str], ...]


def sniff_wrappers(head: str, sep: str = "\n") -> Wrappers:
    """The prefixes a log collector put in front of every line (ISO_STAMP_RE, CLOCK_STAMP_RE, CTIME_STAMP_RE,
    QUOTE_WRAPPER_RE, one srun label, one host's name), outermost first, up to two deep (a timestamp before a
    label), read from the first WRAPPER_SNIFF_LINES non-empty lines of `head`; () when the lines do not all
    carry one."""
    lines = [line for line in itertools.islice(head.split(sep), 4 * WRAPPER_SNIFF_LINES) if line.strip()]
    lines = [line.replace("\r", "") for line in lines[:WRAPPER_SNIFF_LINES]]
    found: list[re.Pattern[str]] = []
    while len(found) < 2 and len(lines) >= WRAPPER_MIN_LINES:
        pattern = _common_wrapper(lines)
        if pattern is None:
            break
        found.append(pattern)
        lines = [rest for line in lines if (rest := pattern.sub("", line, count=1)).strip()]
    return tuple(found)


def _common_wrapper(lines: list[str]) -> re.Pattern[str] | None:
    need = WRAPPER_SHARE * len(lines)
    for pattern in (ISO_STAMP_RE, CLOCK_STAMP_RE, CTIME_STAMP_RE, QUOTE_WRAPPER_RE):
        if sum(1 for line in lines if pattern.match(line)) >= need:
            return pattern
    for named, form in ((SRUN_LABEL_RE, r"^\s{{0,8}}{}: "), (WRAPPER_HOST_RE, r"^{}: ")):
        names = Counter(m.group(1) for line in lines if (m := named.match(line)))
        if len(names) == 1:
            name, count = names.most_common(1)[0]
            if count >= need and (named is SRUN_LABEL_RE or host_like(name)):
                return re.compile(form.format(re.escape(name)))
    return None


# The wrappers that hold no name: every other one sniff_wrappers finds is one host's name or srun label.
UNNAMED_WRAPPERS = (ISO_STAMP_RE, CLOCK_STAMP_RE, CTIME_STAMP_RE, QUOTE_WRAPPER_RE)


def is_label_wrapper(pattern: re.Pattern[str]) -> bool:
    """Whether a wrapper sniff_wrappers found is one host's name or one srun label."""
    return pattern not in UNNAMED_WRAPPERS


def host_like(name: str) -> bool:
    """Whether a line's leading `name: ` may be a cluster host's name: it holds a digit, a hyphen or a dot
    (`gpu-node-017`, `dgx01`, `n1.cluster`), which the words tools print at a line's start (`NVRM:`, `Port:`)
    do not."""
    return any(c.isdigit() or c in "-." for c in name)


def drop_wrappers(line: str, wrappers: Wrappers) -> str:
    """The line without the file's wrapper prefixes (sniff_wrappers), each where it is."""
    for pattern in wrappers:
        line = pattern.sub("", line, count=1)
    return line


def _drop_syslog_time(line: str) -> str:
    """The line without a `ts` / syslog timestamp at its start (SYSLOG_TIME_RE)."""
    return SYSLOG_TIME_RE.sub("", line, count=1) if line[:3] in MONTHS else line


def _has_syslog_times(block: str, sep: str) -> bool:
    """Whether a line of `block` (lines joined by `sep`) starts with a `ts` / syslog timestamp
    (SYSLOG_TIME_RE): its first line, or one in its first SYSLOG_SNIFF_CHARS (`ts` stamps every line, so a
    block of a stamped log shows it at once; the bound keeps unstamped logs from paying a search)."""
    if block[:3] in MONTHS and SYSLOG_TIME_RE.match(block):
        return True
    head = block[:SYSLOG_SNIFF_CHARS]
    if sep != "\n":
        head = head.replace(sep, "\n")
    return SYSLOG_TIME_RE.search(head) is not None


def _has_rank_tags(block: str, sep: str) -> bool:
    """Whether a line of `block` (lines joined by `sep`) starts with a Hydra rank tag: a literal search."""
    if block.startswith("[") and RANK_TAG_RE.match(block):
        return True
    return sep + "[" in block and RANK_TAG_AFTER_RE[sep].search(block) is not None


class JoinedLines(list[str]):
    """A block of lines that also holds them as one text, each line after a `\n` (no line holds one): the
    stream joins a chunk's lines to clean them, and a parser that reads a block in one pass needs it."""

    def __init__(self, lines: list[str], joined: str) -> None:
        super().__init__(lines)
        self.joined = joined


def clean_lines(raw: list[str], sep: str, wrappers: Wrappers = ()) -> tuple[list[str], int]:
    """`clean_line` of each raw line (lines longer than MAX_LINE_CHARS cut first), and how many were cut.

    When no line needs cutting, the lines are cleaned as one block joined by `sep`, which gives the same
    lines: no pattern removed here can match a line separator or span one, and CR is only removed when it
    is not the separator (CR-only files have no CR inside a line).
    """
    lines, cut, _ = _clean_block(raw, sep, None, wrappers)
    return lines, cut


def _clean_block(
    raw: list[str], sep: str, joined: str | None, wrappers: Wrappers = ()
) -> tuple[list[str], int, str | None]:
    """clean_lines, and the cleaned lines joined by `sep` when they were cleaned as one block. `joined` is
    sep.join(raw) when the caller has it; the lines are split again only when cleaning changed them."""
    if not raw:
        return [], 0, None
    if max(map(len, raw)) > MAX_LINE_CHARS:
        cut = sum(1 for line in raw if len(line) > MAX_LINE_CHARS)
        return [clean_line(line[:MAX_LINE_CHARS], wrappers) for line in raw], cut, None
    block = sep.join(raw) if joined is None else joined
    cleaned = _clean_joined(block, sep, wrappers)
    if cleaned is block:  # nothing to clean: the raw lines are the lines
        return raw, 0, block
    return cleaned.split(sep), 0, cleaned


def _clean_joined(block: str, sep: str, wrappers: Wrappers = ()) -> str:
    """clean_line of each line of `block` (lines joined by `sep`, none to cut), in one pass over it; the
    same object when there is nothing to clean."""
    cleaned = block
    if "\r" in cleaned and sep != "\r":
        cleaned = cleaned.replace("\r", "")
    if "\x1b" in cleaned:
        cleaned = ANSI_RE.sub("", cleaned)
    if any(space in cleaned for space in ODD_SPACES):
        cleaned = cleaned.translate(ODD_SPACES_TABLE)
    if wrappers:
        cleaned = sep.join(drop_wrappers(line, wrappers) for line in cleaned.split(sep))
    if _has_syslog_times(cleaned, sep):
        cleaned = sep.join(_drop_syslog_time(line) for line in cleaned.split(sep))
    # `<` first: a test for one character runs as memchr, 10x faster than the search for `]<std`.
    if "<" in cleaned and "]<std" in cleaned:
        cleaned = MPI_TAG_RE.sub("", cleaned)
    if "[" in cleaned and _has_rank_tags(cleaned, sep):
        cleaned = sep.join(
            drop_rank_tags(line) if line.startswith("[") else line for line in cleaned.split(sep)
        )
    if PANE_BORDER in cleaned:
        cleaned = sep.join(
            drop_pane_border(line) if PANE_BORDER in line else line for line in cleaned.split(sep)
        )
    return cleaned


@dataclass
class Text:
    """Cleaned lines of one upload. `lines[i]` is line i+1 of the file.

    `lines` is a list (`decode`) or a LineStream (`decode_file`): parsers only iterate over it from the
    start, or take its head with `lines[:n]`.
    """

    lines: list[str] | LineStream | HeadLines
    binary: bool = False
    truncated_lines: int = 0
    notes: list[str] = field(default_factory=list)
    # The prefixes taken off every line (sniff_wrappers), and, when one is a host's name or an srun label
    # sniffed from the head, the same file cleaned with only the given wrappers: a file whose head is one
    # host's lines may hold other hosts' after it (hosts.by_host reads them).
    wrappers: Wrappers = ()
    rewrap: Callable[[Wrappers], Text] | None = None

    def cut_lines(self) -> int:
        if isinstance(self.lines, LineStream):
            return self.lines.truncated_lines
        return self.truncated_lines

    def final_notes(self) -> list[str]:
        """Notes, with the count of cut lines once the lines have been read."""
        cut = self.cut_lines()
        extra = (
            [
                ngettext(
                    "%(cut)s line longer than %(max)s characters was cut",
                    "%(cut)s lines longer than %(max)s characters were cut",
                    cut,
                    cut=cut,
                    max=MAX_LINE_CHARS,
                )
            ]
            if cut
            else []
        )
        return [*self.notes, *extra]


# What binary sniffing counts: replacement characters and control characters other than tab, LF, VT, FF,
# CR and ESC (counted by one regex over the head instead of a Python loop over 64 KiB of characters).
BAD_CHARS_RE = re.compile("[\ufffd\x00-\x08\x0e-\x1a\x1c-\x1f]")


def _looks_binary(head: bytes, encoding: str = "utf-8") -> bool:
    if not head:
        return False
    if encoding == "utf-8" and b"\x00" in head:
        return True
    text = head.decode(encoding, errors="replace")
    bad = len(BAD_CHARS_RE.findall(text))
    return bad > max(8, len(text) // 10)


# Windows PowerShell 5.1 writes `>` and Out-File in UTF-16 LE with a byte-order mark (`ssh node nvidia-smi
# topo -m > topo.txt` on a Windows laptop); a UTF-16 file without one still reads as ASCII with a NUL byte
# in every other position.
UTF16_SAMPLE_BYTES = 4096


def text_encoding(head: bytes) -> str:
    """`utf-16` for a head that starts with a UTF-16 byte-order mark (the codec reads and drops it),
    `utf-16-le` / `utf-16-be` for mark-less UTF-16 (nine in ten of one half's bytes NUL, one in ten at most
    of the other's), else `utf-8`."""
    if head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return "utf-16"
    sample = head[:UTF16_SAMPLE_BYTES]
    if len(sample) >= 16:
        even, odd = sample[0::2], sample[1::2]
        if odd.count(0) >= 0.9 * len(odd) and even.count(0) <= 0.1 * len(even):
            return "utf-16-le"
        if even.count(0) >= 0.9 * len(even) and odd.count(0) <= 0.1 * len(odd):
            return "utf-16-be"
    return "utf-8"


def decode(data: bytes | str) -> Text:
    """Decode and clean an upload held in memory; binary content gives `binary=True` and no lines."""
    if isinstance(data, bytes):
        encoding = text_encoding(data[:SNIFF_BYTES])
        if _looks_binary(data[:SNIFF_BYTES], encoding):
            return Text(lines=[], binary=True)
        text = data.decode(encoding, errors="replace")
    else:
        if _looks_binary(data[:SNIFF_BYTES].encode("utf-8", errors="replace")):
            return Text(lines=[], binary=True)
        text = data
    if text.startswith("\ufeff"):
        text = text[1:]
    # Old Mac line ends only when there is no LF at all; otherwise CR is just the CRLF remainder or a
    # progress-bar redraw, and dropping it is right.
    sep = "\r" if "\n" not in text and "\r" in text else "\n"
    raw = text.split(sep)
    if raw and raw[-1] == "":
        raw.pop()
    wrappers = sniff_wrappers(text[:SNIFF_BYTES], sep)
    lines, cut = clean_lines(raw, sep, wrappers)
    rewrap = None
    if any(is_label_wrapper(w) for w in wrappers):

        def rewrap(keep: Wrappers) -> Text:
            again, cut_again = clean_lines(raw, sep, keep)
            return Text(lines=again, truncated_lines=cut_again, wrappers=keep)

    return Text(lines=lines, truncated_lines=cut, wrappers=wrappers, rewrap=rewrap)


def decode_file(open_binary: Callable[[], BinarySource], head: bytes | None = None) -> Text:
    """A file read line by line on demand: memory stays bounded whatever its size.

    Only the head (SNIFF_BYTES) is read here, to tell binary from text and LF from CR-only line ends; a
    caller that has read it already passes it as `head`.
    """
    if head is None:
        with open_binary() as handle:
            head = handle.read(SNIFF_BYTES)
    encoding = text_encoding(head)
    if _looks_binary(head, encoding):
        return Text(lines=[], binary=True)
    head_text = head.decode(encoding, errors="replace")
    cr_only = "\n" not in head_text and "\r" in head_text
    wrappers = sniff_wrappers(head_text, "\r" if cr_only else "\n")

    def rewrap(keep: Wrappers) -> Text:
        stream = LineStream(open_binary, cr_only=cr_only, wrappers=keep, encoding=encoding)
        return Text(lines=stream, wrappers=keep)

    return Text(
        lines=LineStream(open_binary, cr_only=cr_only, wrappers=wrappers, encoding=encoding),
        wrappers=wrappers,
        rewrap=rewrap if any(is_label_wrapper(w) for w in wrappers) else None,
    )


def strip_launcher_prefix(line: str) -> str:
    """Drop e-mail quote marks, then one srun / torchrun / pdsh prefix from the start of a line (only
    one: never loop)."""
    q = QUOTE_PREFIX_RE.match(line)
    if q:
        line = line[q.end() :]
    m = SRUN_PREFIX_RE.match(line) or RANK_PREFIX_RE.match(line)
    if m:
        return line[m.end() :]
    m = HOST_PREFIX_RE.match(line)
    if m:
        return line[m.end() :]
    return line


def to_float(token: str) -> float | None:
    """A number as printed by the tools (`1,234.5`, `1.6e+07`, `N/A`); None when not a number."""
    if len(token) <= 40:
        # Fast path, the same answer: float() accepts what the cleaning below leaves of a token it
        # accepts as is (it ignores surrounding whitespace; `%` and `,` make it fail).
        try:
            value = float(token)
        except ValueError:
            pass
        else:
            return value if value - value == 0.0 else None  # nan and +-inf are not numbers
    t = token.strip().rstrip("%").replace(",", "")
    if not t or len(t) > 40:
        return None
    try:
        value = float(t)
    except ValueError:
        return None
    if value != value or value in (float("inf"), float("-inf")):
        return None
    return value


def to_int(token: str) -> int | None:
    t = token.strip()
    if not t or len(t) > 30 or not (t.isdigit() or (t[0] == "-" and t[1:].isdigit())):
        return None
    return int(t)


def median(values: list[float]) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    mid = len(ordered) // 2
    if len(ordered) % 2:
        return ordered[mid]
    return (ordered[mid - 1] + ordered[mid]) / 2


# `user@host:~$ cmd`, `[user@host ~]$ cmd`, `root@host:/# cmd`, `(venv) user@host:~$`, conda's
# `((env) ) [user@host ~]$`: the host the commands after it ran on. Bounded repeats only, so the match costs
# the same on any line.
SHELL_PROMPT_RE = re.compile(
    r"^\s*+(?:\({1,2}[^()\s]{1,64}\)(?:\s*+\))?\s++)?\[?[\w.-]{1,64}@([A-Za-z0-9][\w.-]{0,63})[:\s][^$#]{0,256}"
    r"[$#](?:\s|$)"
)


# The tools whose output the parsers read, as a command line names them.
HOST_TOOLS = ("nvidia-smi", "ibstatus", "ibstat", "ibv_devinfo", "ibdev2netdev", "rdma", "lspci")
# A command that runs one of HOST_TOOLS on a named host, alone or after a prompt: `ssh s114 ibstat`,
# `pdsh -w s114 nvidia-smi`, `srun -w s114 lspci` (`--nodelist=s114`), `ssh s114 sudo ibstat`, or a wrapper's
# log line `2025/05/21 09:56:31 s114 nvidia-smi` (fixtures/real/nvidia-smi/gdr114-run-cmd-2hosts-...). Only
# these launchers and a date-time: `sudo nvidia-smi` or `watch -n 1 nvidia-smi` name no host. Bounded repeats
# only, so the match costs the same on any line.
HOST_COMMAND_RE = re.compile(
    r"^\s*+(?:ssh\s++(?:-[A-Za-z0-9]{1,8}\s++){0,8}+|pdsh\s++-w\s*+|srun\s++(?:-w\s*+|--nodelist[= ])"
    r"|\d{4}[/-]\d{2}[/-]\d{2}[ T]\d{2}:\d{2}:\d{2}(?:[.,]\d{1,9})?+\s++"
    r"(?!(?:sudo|watch|time|env|nohup|exec|command|timeout)\s))"
    r"(?:[\w.-]{1,64}@)?+([A-Za-z][\w.-]{0,63})\s++(?:sudo\s++)?+(?:/[\w./-]{0,128}/)?+"
    rf"(?:{'|'.join(re.escape(tool) for tool in HOST_TOOLS)})(?:\s|$)"
)


def line_host(line: str) -> str | None:
    """The host a line names: the host its command runs one of HOST_TOOLS on (`ssh s114 ibstat`, after a
    prompt or alone), else the host of its shell prompt (`user@host:~$ ...`); None on any other line. The one
    reader of hosts for every parser that splits a file by host."""
    if "@" in line:
        prompt = SHELL_PROMPT_RE.match(line)
        if prompt:
            m = HOST_COMMAND_RE.match(line[prompt.end() :])
            return m.group(1) if m else prompt.group(1)
    m = HOST_COMMAND_RE.match(line)
    return m.group(1) if m else None


class HostLines:
    """Where the lines of each named host begin (line_host: a prompt, `ssh host nvidia-smi`, or the line
    hosts.by_host puts before each host's lines of a pdsh or clush file), to tell which host printed a line
    (a GPU's, a PCI function's)."""

    def __init__(self) -> None:
        self.starts: list[int] = []
        self.hosts: list[str] = []

    def note(self, no: int, host: str) -> None:
        if not self.hosts or self.hosts[-1] != host:
            self.starts.append(no)
            self.hosts.append(host)

    def host_of(self, no: int) -> str | None:
        at = bisect.bisect_right(self.starts, no)
        return self.hosts[at - 1] if at else None


# What every line that names a host holds (line_host): the `@` of a shell prompt (SHELL_PROMPT_RE), or the
# name of one of HOST_TOOLS, which HOST_COMMAND_RE ends with (a tool holding another's name, `ibstatus`, is
# covered by that one). named_hosts looks for these in a block's text instead of reading every line.
_TOOL_HINTS = [tool for tool in HOST_TOOLS if not any(t != tool and t in tool for t in HOST_TOOLS)]
# `rdma` is looked for first: the one found on many lines of a report (`rdma link` on OCI, whose netdevs are
# rdma0..rdma15, holds it on every line), so that such a block is known before the others are looked for.
HOST_HINTS = ("@", "rdma", *(tool for tool in _TOOL_HINTS if tool != "rdma"))
# A block in which more than 1 line in this many holds a hint is read line by line: named_hosts costs about
# four line_host calls per such line.
HINTED_LINES_PER_BLOCK_LINE = 8


def named_hosts(block: list[str], first: int) -> list[tuple[int, str]]:
    """(line number, host) of each line of `block` that names a host (line_host), in order; the block's lines
    are numbered from `first`. Only a line holding one of HOST_HINTS can name one: those lines are found with
    one `find` per hint over the block's text, and only they are read by line_host: ~25 ms for the 10 MB of
    ibstat of perf/bench_parsers.py, against ~60 ms for a line_host call on each of its 318,000 lines."""
    text = _block_text(block)
    starts = None if text is None else _hinted_line_starts(text, len(block) // HINTED_LINES_PER_BLOCK_LINE)
    if text is None or starts is None:  # lines not told apart in the text, or many hinted: each line is read
        return [(no, host) for no, line in enumerate(block, start=first) if (host := line_host(line))]
    found: list[tuple[int, str]] = []
    no, counted = first - 1, 0  # the line after the last `\n` counted, and where counting goes on
    for start in sorted(starts):
        no += text.count("\n", counted, start + 1)
        counted = start + 1
        host = line_host(block[no - first])
        if host:
            found.append((no, host))
    return found


def _hinted_line_starts(text: str, most: int) -> set[int] | None:
    """Where each line of `text` (lines each after a `\n`) that holds one of HOST_HINTS starts: the `\n`
    before it. None when more than `most` lines do."""
    starts: set[int] = set()
    for hint in HOST_HINTS:
        at = text.find(hint)
        while at >= 0:
            starts.add(text.rfind("\n", 0, at))
            if len(starts) > most:
                return None
            end = text.find("\n", at)  # on from the next line: a line is taken once per hint
            at = text.find(hint, end) if end >= 0 else -1
    return starts


def _block_text(block: list[str]) -> str | None:
    """The lines of `block` as one text, each after a `\n` (a stream's block holds it already); None when a
    line holds a `\n` itself (a CR-only stream), so that lines cannot be told apart in the text."""
    if isinstance(block, JoinedLines):
        return block.joined
    text = "\n" + "\n".join(block)
    return text if text.count("\n") == len(block) else None
