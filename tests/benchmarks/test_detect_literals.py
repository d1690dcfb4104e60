"""The detector skips a signature's regex on a batch of lines that holds none of its literals: every line
a signature matches must hold one of them, on every fixture and every file of the shared corpus."""

from __future__ import annotations

import re

from benchmarks.parsers.detect import SIGNATURE_LITERALS, SIGNATURES, detect
from benchmarks.parsers.text import decode

from ._shared import FIXTURES, shared_dir


def _files() -> list:  # type: ignore[type-arg]
    files = sorted(FIXTURES.glob("*.txt"))
    shared = shared_dir()
    if shared is not None:
        files += sorted(p for p in shared.rglob("*") if p.suffix in (".txt", ".log") and p.is_file())
    return files


def test_every_signature_has_literals() -> None:
    assert set(SIGNATURE_LITERALS) == set(SIGNATURES)


def test_every_line_a_signature_matches_holds_one_of_its_literals() -> None:
    matched = 0
    for path in _files():
        for line in decode(path.read_bytes()).lines:
            for name, pattern in SIGNATURES.items():
                if pattern.search(line):
                    matched += 1
                    assert any(lit in line for lit in SIGNATURE_LITERALS[name]), (path.name, name, line)
    assert matched > 1000


def test_counts_and_their_order_do_not_depend_on_the_batching() -> None:
    """A line that a later signature matches first comes first in the reason, as line by line."""
    lines = ["ibstatus: Infiniband device 'mlx5_0' port 1 status:", "  Rank 0 on h device 0 [x] y"]
    text = decode("\n".join(lines))
    detection = detect(text)
    assert re.search(r"\{'ibstatus': 1, 'nccl_rank': 1", detection.reason), detection.reason


def test_binary_sniffing_counts_replacement_and_control_characters_but_not_whitespace() -> None:
    from benchmarks.parsers.text import BAD_CHARS_RE

    for code in [*range(0, 0x300), 0x2028, 0xFFFD, 0x1F600]:
        ch = chr(code)
        bad = ch == "\ufffd" or (code < 32 and ch not in "\t\n\r\x1b\x0c\x0b")
        assert bool(BAD_CHARS_RE.fullmatch(ch)) == bad, hex(code)
