"""Turning uploaded bytes into clean lines, the same way for every parser.

Normalisation follows benchlogs/FORMATS.md section 7: ANSI escapes, CR line ends and Open MPI
`--tag-output` tags (which can sit in the middle of a row) are removed before any parser looks at a
line. Launcher prefixes that could be real content elsewhere (`0: `, `host: `) are left for the
parsers that know what a line should look like.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

# A line longer than this is cut: no real log line comes close, and it keeps every regex linear-time
# on hostile uploads (a 100 MB single-line file).
MAX_LINE_CHARS = 8192
# Binary sniffing looks at the head only; a log that starts as text and turns into garbage later is
# handled by the parsers skipping what they do not understand.
SNIFF_BYTES = 65536

ANSI_RE = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[()][A-Za-z0-9]|\x1b[=>]")
MPI_TAG_RE = re.compile(r"\[\d+,\d+\]<std(?:out|err)>:")
# srun `-l` (` 0: `), torchrun (`[rank3]:`), pdsh/clush (`host: `), shell prompts are NOT here.
SRUN_PREFIX_RE = re.compile(r"^\s{0,8}\d{1,6}:\s")
RANK_PREFIX_RE = re.compile(r"^\s*\[(?:default)?rank\d+\]:\s?", re.IGNORECASE)
HOST_PREFIX_RE = re.compile(r"^\s{0,4}[A-Za-z0-9][A-Za-z0-9_.\-]{0,100}:\s")


@dataclass
class Text:
    """Cleaned lines of one upload. `lines[i]` is line i+1 of the file."""

    lines: list[str]
    binary: bool = False
    truncated_lines: int = 0
    notes: list[str] = field(default_factory=list)


def _looks_binary(head: bytes) -> bool:
    if not head:
        return False
    if b"\x00" in head:
        return True
    text = head.decode("utf-8", errors="replace")
    bad = sum(1 for ch in text if ch == "\ufffd" or (ord(ch) < 32 and ch not in "\t\n\r\x1b\x0c\x0b"))
    return bad > max(8, len(text) // 10)


def decode(data: bytes | str) -> Text:
    """Decode and clean an upload; binary content gives `binary=True` and no lines."""
    if isinstance(data, bytes):
        if _looks_binary(data[:SNIFF_BYTES]):
            return Text(lines=[], binary=True)
        text = data.decode("utf-8", errors="replace")
    else:
        if _looks_binary(data[:SNIFF_BYTES].encode("utf-8", errors="replace")):
            return Text(lines=[], binary=True)
        text = data
    if text.startswith("\ufeff"):
        text = text[1:]
    # Old Mac line ends only when there is no LF at all; otherwise CR is just the CRLF remainder or a
    # progress-bar redraw, and dropping it is right.
    raw = text.split("\r") if "\n" not in text and "\r" in text else text.split("\n")
    if raw and raw[-1] == "":
        raw.pop()
    lines: list[str] = []
    cut = 0
    for line in raw:
        if len(line) > MAX_LINE_CHARS:
            line = line[:MAX_LINE_CHARS]
            cut += 1
        if "\r" in line:
            line = line.replace("\r", "")
        if "\x1b" in line:
            line = ANSI_RE.sub("", line)
        if "]<std" in line:
            line = MPI_TAG_RE.sub("", line)
        lines.append(line)
    result = Text(lines=lines, truncated_lines=cut)
    if cut:
        result.notes.append(f"{cut} line(s) longer than {MAX_LINE_CHARS} characters were cut")
    return result


def strip_launcher_prefix(line: str) -> str:
    """Drop one srun / torchrun / pdsh prefix from the start of a line (only one: never loop)."""
    m = SRUN_PREFIX_RE.match(line) or RANK_PREFIX_RE.match(line)
    if m:
        return line[m.end() :]
    m = HOST_PREFIX_RE.match(line)
    if m:
        return line[m.end() :]
    return line


def to_float(token: str) -> float | None:
    """A number as printed by the tools (`1,234.5`, `1.6e+07`, `N/A`); None when not a number."""
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
