"""Whether a verdict shows English no page can translate (the fixture and the corpus tests share it)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from benchmarks.compare import compare
from benchmarks.parsers import parse
from hardware.messages import Msg

# Offerings that reach every branch of compare(): NVSwitch + InfiniBand, PCIe + RoCE, EFA, nothing published.
OFFERINGS: tuple[dict[str, Any], ...] = (
    {"gpu": "H100-SXM-80GB", "gpus_per_node": 8, "intra_node": "nvswitch", "fabric": "infiniband",
     "nics_per_node": 8, "gbps_per_nic": 400},
    {"gpu": "A100-SXM-80GB", "gpus_per_node": 8, "intra_node": "pcie", "fabric": "roce", "nics_per_node": 4,
     "gbps_per_nic": 200},
    {"gpu": "H100-SXM-80GB", "gpus_per_node": 8, "intra_node": "nvswitch", "fabric": "efa",
     "nics_per_node": 32, "gbps_per_nic": 100},
    {"fabric": "ethernet"},
    {},
)  # fmt: skip
SENTENCES = ("claim", "detail")  # always words: each a message the page translates
VALUES = ("expected", "measured")  # numbers, or names a tool prints (GPU models, link layers)
_JOINED = re.compile(r"p\d+")
_LOWERCASE_WORD = re.compile(r"(?<![A-Za-z])[a-z]{3,}(?![A-Za-z])")


def _untranslatable(text: Any) -> list[str]:
    """The English in `text` no catalog can reach: a plain string, or a plain part of joined sentences."""
    if isinstance(text, Msg):
        if text.params and all(_JOINED.fullmatch(name) for name in text.params):
            return [bad for part in text.params.values() for bad in _untranslatable(part)]
        return []
    return [text] if isinstance(text, str) and text else []


def english_left(paths: list[Path]) -> tuple[int, list[str]]:
    """(verdicts checked, what each shows untranslated) over every file and offering."""
    checked, found = 0, []
    for path in paths:
        item = parse(path.read_bytes(), path.name).as_dict()
        item["filename"] = path.name
        for facts in OFFERINGS:
            for verdict in compare(facts, item):
                checked += 1
                for key in SENTENCES:
                    found += [f"{path.name}: {key} {bad!r}" for bad in _untranslatable(verdict[key])]
                for key in VALUES:
                    value = verdict[key]
                    plain = isinstance(value, str) and not isinstance(value, Msg)
                    if plain and _LOWERCASE_WORD.search(value):
                        found.append(f"{path.name}: {key} {value!r}")
    return checked, found
