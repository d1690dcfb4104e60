"""`nvidia-smi topo -m` (evidence/FORMATS.md section 1).

Raw output is tab-separated with empty cells in the affinity columns, pastes usually have spaces;
the matrix cells themselves are never empty, so splitting on any whitespace and reading the first
len(columns) cells of each row is safe for both.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from hardware.messages import _

from .result import ParseResult
from .text import Text

CELL_RE = re.compile(r"^(X|NV\d+|SYS|SOC|NODE|PHB|PXB|PIX)$")
NV_RE = re.compile(r"^NV(\d+)$")
# Two cells run together where a copy lost the tab between them (`PXBNODE`, `SYSSYS`: fixtures/real/
# nvidia-smi-topo/...-glued-cells...): every cell word, longest first so `PXB` is not read as `P`+`X`+`B`.
GLUED_RE = re.compile(r"(?:NV\d++|SYS|SOC|NODE|PHB|PXB|PIX|X){2,}+")
CELL_WORD_RE = re.compile(r"NV\d+|SYS|SOC|NODE|PHB|PXB|PIX|X")
MAX_GLUED_CHARS = 64  # a token longer than a few cells is not a row's cells run together
NIC_LEGEND_RE = re.compile(r"^\s*(NIC\d+)\s*:\s*(\S+)")
PCIE_RANK = {"PIX": 0, "PXB": 1, "PHB": 2, "NODE": 3, "SYS": 4, "SOC": 4}


def _cell_type(cell: str) -> str:
    """`NV18` -> `NV#` (trailing digits folded by hand: `\\d+$` is quadratic on a digit run)."""
    stem = cell.rstrip("0123456789")
    return stem + "#" if len(stem) < len(cell) else cell


def _is_column_header(tokens: list[str]) -> bool:
    return (
        bool(tokens)
        and tokens[0] == "GPU0"
        and "CPU" in tokens
        or (bool(tokens) and tokens[0] == "GPU0" and all(not CELL_RE.match(t) for t in tokens[:3]))
    )


Matrix = dict[str, tuple[list[str], int]]  # row label -> (cells, line number)


def _split_glued(tokens: list[str], glued: list[int], line_no: int) -> list[str]:
    """A row's tokens with cells run together split again; the line is noted in `glued`."""
    if not any(len(t) <= MAX_GLUED_CHARS and GLUED_RE.fullmatch(t) for t in tokens[1:]):
        return tokens
    glued.append(line_no)
    out = tokens[:1]
    for token in tokens[1:]:
        glued_cells = len(token) <= MAX_GLUED_CHARS and GLUED_RE.fullmatch(token)
        out.extend(CELL_WORD_RE.findall(token) if glued_cells else [token])
    return out


def _read_matrix(text: Text, glued: list[int]) -> tuple[list[str], Matrix, dict[str, str], int | None]:
    """The column labels, the rows, the NIC legend (`NIC0: mlx5_0`) and the header's line; the lines whose
    cells ran together are noted in `glued`."""
    columns: list[str] = []
    rows: Matrix = {}
    legend: dict[str, str] = {}
    header_line = None
    matrix_done = False
    for no, line in enumerate(text.lines, start=1):
        tokens = line.split()
        if not tokens:
            continue
        if tokens[0] == "GPU0" and len(tokens) > 1 and not CELL_RE.match(tokens[1]):
            if columns:
                # A second header (`nvidia-smi topo -p2p r` after `-m`: `GPU0 X OK ...` status cells)
                # starts another matrix: the topology is the first one.
                matrix_done = True
                continue
            cut = next((i for i, t in enumerate(tokens) if t in ("CPU", "NUMA", "GPU NUMA")), len(tokens))
            columns = tokens[:cut]
            header_line = no
            continue
        m = NIC_LEGEND_RE.match(line)
        if m:
            legend[m.group(1)] = m.group(2)
            continue
        if (
            columns
            and not matrix_done
            and tokens[0] in columns
            and len(tokens) > 1
            and CELL_RE.match(tokens[1])
        ):
            cells = _split_glued(tokens, glued, no)[1 : 1 + len(columns)]
            rows[tokens[0]] = (cells, no)
    return columns, rows, legend, header_line


def _rows_by_label(text: Text, glued: list[int]) -> Matrix:
    """Header lost in a paste: every row whose label looks like a GPU or NIC, all its cells."""
    rows: Matrix = {}
    for no, line in enumerate(text.lines, start=1):
        tokens = line.split()
        if (
            tokens
            and re.match(r"^(GPU\d+|NIC\d+|mlx\d_\S+)$", tokens[0])
            and len(tokens) > 1
            and CELL_RE.match(tokens[1])
        ):
            rows[tokens[0]] = (_split_glued(tokens, glued, no)[1:], no)
    return rows


def _gpu_pairs(
    gpu_cols: list[str], rows: Matrix, index: dict[str, int]
) -> tuple[list[dict[str, Any]], list[int], Counter[str]]:
    """For each GPU pair: pairs without NVLink, NVLink counts, and the connection kinds seen."""
    pairs_not_nvlink: list[dict[str, Any]] = []
    nv_counts: list[int] = []
    cell_types: Counter[str] = Counter()
    for a_pos, a in enumerate(gpu_cols):
        if a not in rows:
            continue
        cells, _ = rows[a]
        for b in gpu_cols[a_pos + 1 :]:
            pos = index[b]
            cell = cells[pos] if pos < len(cells) else "?"
            cell_types[_cell_type(cell)] += 1
            nv = NV_RE.match(cell)
            if nv:
                nv_counts.append(int(nv.group(1)))
            else:
                nv_counts.append(0)
                pairs_not_nvlink.append({"pair": f"{a}-{b}", "connection": cell})
    return pairs_not_nvlink, nv_counts, cell_types


def _nic_details(
    nic_cols: list[str], gpu_cols: list[str], rows: Matrix, index: dict[str, int], legend: dict[str, str]
) -> list[dict[str, Any]]:
    """Each NIC's closest PCIe path to any GPU and the GPUs behind the same switch."""
    nics: list[dict[str, Any]] = []
    for nic in nic_cols:
        relations: dict[str, str] = {}
        for g in gpu_cols:
            if g in rows:
                cells = rows[g][0]
                pos = index[nic]
                if pos < len(cells):
                    relations[g] = cells[pos]
        best = min(relations.values(), key=lambda c: PCIE_RANK.get(c, 9), default=None)
        close = sorted(g for g, c in relations.items() if c in ("PIX", "PXB"))
        nics.append({"column": nic, "name": legend.get(nic, nic), "best_gpu_path": best, "close_gpus": close})
    return nics


def parse_topo(text: Text) -> ParseResult:
    result = ParseResult(kind="nvidia-smi-topo")
    glued: list[int] = []
    columns, rows, legend, header_line = _read_matrix(text, glued)
    if not columns:
        # Without a header _read_matrix keeps no rows.
        rows = _rows_by_label(text, glued)
        columns = list(rows)
        if columns:
            result.warnings.append(_("no column header: columns taken from the row labels"))
    gpu_cols = [c for c in columns if re.match(r"^GPU\d+$", c)]
    nic_cols = [c for c in columns if c not in gpu_cols]
    index = {c: i for i, c in enumerate(columns)}
    pairs_not_nvlink, nv_counts, cell_types = _gpu_pairs(gpu_cols, rows, index)
    nics = _nic_details(nic_cols, gpu_cols, rows, index, legend)
    gpus = len(gpu_cols)
    result.summary = {
        "gpus": gpus,
        "full_nvlink_mesh": None if gpus < 2 else not pairs_not_nvlink,
        "min_nvlinks_per_pair": min(nv_counts) if nv_counts else None,
        "max_nvlinks_per_pair": max(nv_counts) if nv_counts else None,
        "nics": len(nic_cols),
        "nic_names": [n["name"] for n in nics],
        # A rail NIC sits behind the same PCIe switch as a GPU; NICs that are NODE/SYS to every GPU are
        # front-end or storage ports (evidence/FORMATS.md 1).
        "rail_nics": sum(1 for n in nics if n["close_gpus"]),
        "nic_details": nics,
        "pairs_not_nvlink": pairs_not_nvlink,
        "gpu_pair_connections": dict(cell_types),
        "header_line": header_line,
        "lines": [rows[g][1] for g in gpu_cols if g in rows],
    }
    if gpus < 2:
        result.warnings.append(_("fewer than 2 GPUs: NVLink mesh not applicable"))
    missing = [g for g in gpu_cols if g not in rows]
    if missing:
        result.warnings.append(_("GPU rows missing for %(gpus)s (cut excerpt?)", gpus=", ".join(missing)))
    if not nic_cols:
        result.warnings.append(_("no NIC columns: no RDMA NIC visible to the driver (VM or no NIC)"))
    if glued:
        result.warnings.append(
            _(
                "cells run together on %(count)s row(s) (first: line %(line)s), as when a copy loses a tab: "
                "split again by their words (X, NV#, SYS, NODE, PHB, PXB, PIX)",
                count=len(glued),
                line=glued[0],
            )
        )
    return result
