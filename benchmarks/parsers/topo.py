"""`nvidia-smi topo -m` (evidence/FORMATS.md section 1).

Raw output is tab-separated with empty cells in the affinity columns, pastes usually have spaces;
the matrix cells themselves are never empty, so splitting on any whitespace and reading the first
len(columns) cells of each row is safe for both.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from hardware.messages import Msg, _, listed, ngettext

from .hosts import named_list
from .result import ParseResult
from .text import Text, line_host

CELL_RE = re.compile(r"^(X|NV\d+|SYS|SOC|NODE|PHB|PXB|PIX)$")
NV_RE = re.compile(r"^NV(\d+)$")
# Two cells run together where a copy lost the tab between them (`PXBNODE`, `SYSSYS`: fixtures/real/
# nvidia-smi-topo/...-glued-cells...): every cell word, longest first so `PXB` is not read as `P`+`X`+`B`.
GLUED_RE = re.compile(r"(?:NV\d++|SYS|SOC|NODE|PHB|PXB|PIX|X){2,}+")
CELL_WORD_RE = re.compile(r"NV\d+|SYS|SOC|NODE|PHB|PXB|PIX|X")
MAX_GLUED_CHARS = 64  # a token longer than a few cells is not a row's cells run together
NIC_LEGEND_RE = re.compile(r"^\s*(NIC\d+)\s*:\s*(\S+)")
# Header labels run together the same way (`NIC11NIC12`: fixtures/real/nvidia-smi-topo/vllm-issue31594-...).
GLUED_LABEL_RE = re.compile(r"(?:GPU\d++|NIC\d++){2,}+")
LABEL_WORD_RE = re.compile(r"GPU\d+|NIC\d+")
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


def _header_labels(tokens: list[str], glued: list[int], line_no: int) -> list[str]:
    """The column labels of a header line, up to the affinity columns; labels run together split again."""
    cut = next((i for i, t in enumerate(tokens) if t in ("CPU", "NUMA", "GPU NUMA")), len(tokens))
    labels: list[str] = []
    for token in tokens[:cut]:
        if len(token) <= MAX_GLUED_CHARS and GLUED_LABEL_RE.fullmatch(token):
            glued.append(line_no)
            labels.extend(LABEL_WORD_RE.findall(token))
        else:
            labels.append(token)
    return labels


# A matrix's own lines (its header, rows and NIC legend) start with these: what tells two matrices apart.
MATRIX_LABELS = ("GPU", "NIC")


def _read_matrix(
    text: Text,
    glued: list[int],
    notes: dict[str, list[int]],
    first: int = 1,
    named: dict[int, str] | None = None,
) -> tuple[list[str], Matrix, dict[str, str], int | None]:
    """The column labels, the rows, the NIC legend (`NIC0: mlx5_0`) and the header's line of the first
    matrix; the lines whose cells ran together are noted in `glued`, a header whose labels ran together in
    `notes["glued_header"]`, the header lines of later topology matrices (another host's `topo -m`, with
    its own legend) in `notes["later"]`; the lines naming a host (text.line_host) in `named` when given."""
    columns: list[str] = []
    rows: Matrix = {}
    legend: dict[str, str] = {}
    header_line = None
    matrix_done = False
    later: int | None = None  # a later header without affinity columns, until its first row tells its kind
    first_lines: dict[str, str] = {}  # the first matrix's header ("") and its rows' and legend lines by label
    same: dict[int, int] = {}  # a later matrix's header line -> its lines the same as the first's
    at = matched = 0  # the header line of the later matrix being read, and its lines the same as the first's
    for no, line in enumerate(text.lines, start=first):
        # a line naming a host (text.line_host) holds a prompt's `@` or the command that ran nvidia-smi
        if named is not None and ("@" in line or "nvidia-smi" in line) and (host := line_host(line)):
            named[no] = host
        tokens = line.split()
        if not tokens:
            continue
        header = tokens[0] == "GPU0" and len(tokens) > 1 and not CELL_RE.match(tokens[1])
        if tokens[0].startswith(MATRIX_LABELS):
            # each later matrix's header, rows and legend against the first's, so that matrices all the same
            # (the tool run again) need not be read again
            label = "" if header else tokens[0]
            if header and columns:
                if at:
                    same[at] = matched
                at, matched = no, 0
            if not at:
                first_lines[label] = line
            elif first_lines.get(label) == line:
                matched += 1
            else:
                matched = -(10**9)
        if later is not None:
            # a topology row (`GPU0  X  NV18 ...`, not a p2p matrix's `OK` cells) makes it another `topo -m`
            if tokens[0].startswith("GPU") and any(CELL_RE.match(t) and t != "X" for t in tokens[1:]):
                notes["later"].append(later)
            later = None
        if header:
            if columns:
                # A second header (`nvidia-smi topo -p2p r` after `-m`: `GPU0 X OK ...` status cells, or
                # another host's `topo -m`) starts another matrix: the topology is the first one, and the
                # NIC legend after it is the other matrix's.
                matrix_done = True
                if "CPU" in tokens:
                    notes["later"].append(no)
                else:
                    later = no
                continue
            columns = _header_labels(tokens, notes["glued_header"], no)
            header_line = no
            continue
        m = NIC_LEGEND_RE.match(line)
        if m:
            if not matrix_done:
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
    if at:
        same[at] = matched
    if header_line is not None and notes["later"]:
        notes["different"] = [no for no in notes["later"] if same.get(no) != len(first_lines)]
    return columns, rows, legend, header_line


def _rows_by_label(text: Text, glued: list[int], first: int = 1) -> Matrix:
    """Header lost in a paste: every row whose label looks like a GPU or NIC, all its cells."""
    rows: Matrix = {}
    for no, line in enumerate(text.lines, start=first):
        tokens = line.split()
        if (
            tokens
            and re.match(r"^(GPU\d+|NIC\d+|mlx\d_\S+)$", tokens[0])
            and len(tokens) > 1
            and CELL_RE.match(tokens[1])
        ):
            rows[tokens[0]] = (_split_glued(tokens, glued, no)[1:], no)
    return rows


def _matrix_width(cells: list[str]) -> int:
    """How many of a headerless row's cells are matrix cells, before its affinity columns."""
    width = 0
    while width < len(cells) and CELL_RE.match(cells[width]):
        width += 1
    return width


def _columns_from_x(rows: Matrix) -> list[str] | None:
    """The columns of a headerless matrix with NIC rows, told from where each row's `X` sits: GPU i's at
    column i, NIC k's at column (GPUs + k), so a paste that cut rows (the first GPUs, the last NICs) still
    gives every column. None when a label is not GPU#/NIC# or the rows disagree on the GPU count."""
    gpus: int | None = None
    width = 0
    seen: list[tuple[str, int]] = []
    for label, (cells, _line) in rows.items():
        m = re.fullmatch(r"(GPU|NIC)(\d{1,4})", label)
        if not m:
            return None
        matrix = _matrix_width(cells)
        if "X" not in cells[:matrix]:
            return None
        x, number = cells.index("X"), int(m.group(2))
        width = max(width, matrix)
        seen.append((m.group(1), number))
        if m.group(1) == "NIC":
            if x < number or gpus not in (None, x - number):
                return None
            gpus = x - number
        elif x != number:
            return None
    if gpus is None or any(kind == "GPU" and number >= gpus for kind, number in seen):
        return None
    return [f"GPU{i}" for i in range(gpus)] + [f"NIC{i}" for i in range(width - gpus)]


def _headerless_columns(rows: Matrix) -> tuple[list[str], int]:
    """The columns of a matrix whose header was lost, and how many cells after the GPU rows' own columns
    could not be told GPU or NIC (0 when none). Each GPU row's `X` sits at its own column; NVLink cells
    (`NV#`) join GPUs only, so with NVLink in the rows the columns up to the last `X`/`NV#` are GPUs and
    the matrix cells after them, before the affinity columns, are NICs, when a GPU has NVLink to two or
    more others (a switch or a mesh). Without NVLink, or with NVLink bridges joining pairs only, the cells
    after the rows' own columns may be GPUs whose rows were cut or NICs."""
    labels = list(rows)
    gpu_rows = [label for label in labels if label.startswith("GPU")]
    if len(gpu_rows) < len(labels) or not gpu_rows:
        # NIC rows are labelled: the matrix is square, but the paste may have cut rows with the header
        return _columns_from_x(rows) or labels, 0
    span, width, most_peers = 0, 0, 0
    for label, (cells, _line) in rows.items():
        matrix = _matrix_width(cells)
        position = int(label[3:])
        if position >= matrix or cells[position] != "X":
            return labels, 0
        width = max(width, matrix)
        for i in range(matrix):
            if cells[i] == "X" or NV_RE.match(cells[i]):
                span = max(span, i + 1)
        most_peers = max(most_peers, sum(1 for cell in cells[:matrix] if NV_RE.match(cell)))
    if width <= span:
        return labels, 0
    # A GPU with NVLink to 2+ others sits on a switch or a mesh, which reaches every GPU of the node. A
    # bridge joins a pair only: the GPUs of other pairs whose rows were cut would look like NICs.
    if most_peers < 2:
        return labels, width - span
    return [f"GPU{i}" for i in range(span)] + [f"NIC{i}" for i in range(width - span)], 0


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
                cells, pos = rows[g][0], index[nic]
            elif nic in rows:  # the GPU's row was cut: the NIC's own row holds the same path
                cells, pos = rows[nic][0], index[g]
            else:
                continue
            if pos < len(cells):
                relations[g] = cells[pos]
        best = min(relations.values(), key=lambda c: PCIE_RANK.get(c, 9), default=None)
        close = sorted(g for g, c in relations.items() if c in ("PIX", "PXB"))
        nics.append({"column": nic, "name": legend.get(nic, nic), "best_gpu_path": best, "close_gpus": close})
    return nics


def _headerless(
    text: Text, glued: list[int], warnings: list[str], first: int = 1
) -> tuple[list[str], Matrix, int]:
    """A matrix whose header was lost in a paste: its rows by label, its columns told from their cells
    (_headerless_columns), and how many cells could not be told GPU or NIC."""
    rows = _rows_by_label(text, glued, first)
    columns, untold = _headerless_columns(rows)
    if any(c.startswith("NIC") for c in columns) and not any(r.startswith("NIC") for r in rows):
        warnings.append(
            ngettext(
                "no column header: %(gpus)s GPU and %(nics)s NIC column told apart by their cells (NVLink "
                "joins GPUs only); NIC names unknown",
                "no column header: %(gpus)s GPU and %(nics)s NIC columns told apart by their cells (NVLink "
                "joins GPUs only); NIC names unknown",
                len(columns),
                gpus=sum(1 for c in columns if c.startswith("GPU")),
                nics=sum(1 for c in columns if c.startswith("NIC")),
            )
        )
    elif columns and columns != list(rows):
        warnings.append(
            ngettext(
                "no column header and rows cut: %(gpus)s GPU and %(nics)s NIC column told from where each "
                "row's X sits",
                "no column header and rows cut: %(gpus)s GPU and %(nics)s NIC columns told from where each "
                "row's X sits",
                len(columns),
                gpus=sum(1 for c in columns if c.startswith("GPU")),
                nics=sum(1 for c in columns if c.startswith("NIC")),
            )
        )
    elif columns:
        warnings.append(_("no column header: columns taken from the row labels"))
    return columns, rows, untold


def _reading_warnings(notes: dict[str, list[int]], glued: list[int]) -> list[str]:
    """A header whose labels ran together, the later matrices of the file (_read_matrix's notes), and the
    rows whose cells ran together (`glued`)."""
    warnings: list[str] = []
    if notes["glued_header"]:
        warnings.append(
            _(
                "column labels run together in the header (line %(line)s), as when a copy loses a tab: "
                "split again by their labels (GPU#, NIC#)",
                line=notes["glued_header"][0],
            )
        )
    if notes["later"]:
        warnings.append(
            _(
                "%(count)s more `topo -m` matrix(es) in the file (first header: line %(line)s; another host "
                "or another run): the first matrix is read, with its own NIC legend",
                count=len(notes["later"]),
                line=notes["later"][0],
            )
        )
    if glued:
        warnings.append(
            ngettext(
                "cells run together on %(count)s row (first: line %(line)s), as when a copy loses a tab: "
                "split again by their words (X, NV#, SYS, NODE, PHB, PXB, PIX)",
                "cells run together on %(count)s rows (first: line %(line)s), as when a copy loses a tab: "
                "split again by their words (X, NV#, SYS, NODE, PHB, PXB, PIX)",
                len(glued),
                count=len(glued),
                line=glued[0],
            )
        )
    return warnings


# Each host's topology summarised in `per_host` (a file of several hosts' `topo -m`).
HOST_FIELDS = ("gpus", "full_nvlink_mesh", "min_nvlinks_per_pair", "nics", "rail_nics")


def parse_topo(text: Text) -> ParseResult:
    """The topology of the file; of a file of several hosts' matrices (each after a line naming its host,
    text.line_host: a prompt, `ssh host nvidia-smi topo -m`, a pdsh file read host by host), each host's
    matrix read alone and the weakest shown (_weakness), with every host's in `per_host`."""
    named: dict[int, str] = {}
    later: list[int] = []
    different: list[int] = []
    whole = _parse_matrix(text, named=named, later=later, different=different)
    unnamed = len(set(named.values())) < 2
    if unnamed and not different:
        return whole
    if unnamed:
        # Matrices without a host named for each (`for h in ...; do ssh $h nvidia-smi topo -m; done`, or the
        # tool run again): each different one is read alone, named `#n` by its place in the file.
        results, count = _distinct_matrices(text, later)
    else:
        results = [
            (h, _parse_matrix(Text(lines=lines), first)) for h, first, lines in _host_sections(text, named)
        ]
        results, count = [(h, r) for h, r in results if r.summary["gpus"]], 0
    if len(results) < 2:
        return whole
    host, result = min(results, key=lambda hr: _weakness(hr[1].summary))
    hosts = [h for h, _r in results]
    result.summary["host"] = host
    result.summary["hosts"] = hosts
    result.summary["per_host"] = [{"host": h, **{k: r.summary[k] for k in HOST_FIELDS}} for h, r in results]
    result.warnings.insert(0, _several_note(hosts, host, count))
    return result


# Different matrices of a file without host names read each (a `watch` of thousands repeats a few).
MAX_DISTINCT_MATRICES = 64


def _distinct_matrices(text: Text, later: list[int]) -> tuple[list[tuple[str, ParseResult]], int]:
    """(`#n`, its topology) for each different matrix of a file whose matrices name no host, the first from
    the top and each later one from its header line (`later`), at most MAX_DISTINCT_MATRICES; and how many
    matrices the file holds. Matrices whose header, rows and NIC legend are the same are one (the tool run
    again); one is held at a time."""
    results: dict[tuple[str, ...], tuple[str, ParseResult]] = {}
    starts = set(later)
    count, first = 0, 1
    lines: list[str] = []

    def close() -> None:
        nonlocal count
        count += 1
        key = tuple(line.strip() for line in lines if line.lstrip().startswith(MATRIX_LABELS))
        if key not in results and len(results) < MAX_DISTINCT_MATRICES:
            result = _parse_matrix(Text(lines=lines), first)
            if result.summary["gpus"]:
                results[key] = (f"#{count}", result)

    for no, line in enumerate(text.lines, start=1):
        if no in starts:
            close()
            first, lines = no, []
        lines.append(line)
    close()
    return list(results.values()), count


def _several_note(hosts: list[str], host: str, unnamed: int) -> Msg:
    """What a file of several matrices says: each (each different one of the `unnamed` matrices of a file
    that names no host for each) read alone, the weakest shown and judged."""
    if unnamed:
        return _(
            "%(count)s `topo -m` matrices without a host named for each (other hosts' or the tool run "
            "again), %(different)s different (%(hosts)s, each named by its place in the file): each is read "
            "alone, and matrix %(host)s, whose topology is the weakest (fewest NVLinks between two GPUs, "
            "then fewest GPUs and rail NICs), is the one shown and judged",
            count=unnamed,
            different=len(hosts),
            hosts=named_list(hosts),
            host=host,
        )
    return _(
        "`topo -m` matrices of %(count)s hosts (%(hosts)s): each is read alone, and host %(host)s, whose "
        "topology is the weakest (fewest NVLinks between two GPUs, then fewest GPUs and rail NICs), is "
        "the one shown and judged",
        count=len(hosts),
        hosts=named_list(hosts),
        host=host,
    )


def _weakness(summary: dict[str, Any]) -> tuple[Any, ...]:
    """What sorts a host's topology first among several: no full NVLink mesh, then the fewest NVLinks between
    two GPUs, the fewest GPUs, the fewest rail NICs (unknown counts as none)."""
    return (
        summary["full_nvlink_mesh"] is not False,
        summary["min_nvlinks_per_pair"] or 0,
        summary["gpus"],
        summary["rail_nics"] or 0,
    )


def _host_sections(text: Text, named: dict[int, str]) -> list[tuple[str, int, list[str]]]:
    """(host, number of its first line, its lines) for each host `named` names (line number -> host), the
    lines before the first such line the first host's."""
    sections: list[tuple[str, int, list[str]]] = []
    head: list[str] = []
    for no, line in enumerate(text.lines, start=1):
        host = named.get(no)
        if host is not None and (not sections or sections[-1][0] != host):
            sections.append((host, no + 1, []) if sections or not head else (host, 1, [*head, line]))
            continue
        (sections[-1][2] if sections else head).append(line)
    return sections


def _parse_matrix(
    text: Text,
    first: int = 1,
    named: dict[int, str] | None = None,
    later: list[int] | None = None,
    different: list[int] | None = None,
) -> ParseResult:
    """The topology of one matrix (the file's first), its lines numbered from `first`; the lines naming a
    host noted in `named`, the header lines of later matrices in `later` and of those that differ from the
    first in `different`, when given."""
    result = ParseResult(kind="nvidia-smi-topo")
    glued: list[int] = []
    notes: dict[str, list[int]] = {"later": [], "glued_header": []}
    columns, rows, legend, header_line = _read_matrix(text, glued, notes, first, named)
    untold = 0
    if not columns:
        # Without a header _read_matrix keeps no rows.
        columns, rows, untold = _headerless(text, glued, result.warnings, first)
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
        # Unknown (None) when the header was lost and the cells after the GPU columns cannot be told.
        "nics": None if untold else len(nic_cols),
        "nic_names": [n["name"] for n in nics],
        # A rail NIC sits behind the same PCIe switch as a GPU; NICs that are NODE/SYS to every GPU are
        # front-end or storage ports (evidence/FORMATS.md 1).
        "rail_nics": None if untold else sum(1 for n in nics if n["close_gpus"]),
        "nic_details": nics,
        "pairs_not_nvlink": pairs_not_nvlink,
        "gpu_pair_connections": dict(cell_types),
        "header_line": header_line,
        # The matrix's column header was lost in the paste: GPU rows may have been cut with it, so `gpus`
        # is a minimum (compare._compare_topo).
        "header_missing": header_line is None,
        "lines": [rows[g][1] for g in gpu_cols if g in rows],
    }
    if gpus < 2:
        result.warnings.append(_("fewer than 2 GPUs: NVLink mesh not applicable"))
    missing = [g for g in gpu_cols if g not in rows]
    if missing:
        # The header names GPUs whose rows were cut: the NICs behind them are not shown (compare gives
        # cannot-measure below the claim).
        result.summary["gpu_rows_missing"] = missing
        result.warnings.append(_("GPU rows missing for %(gpus)s (cut excerpt?)", gpus=listed(missing)))
    if untold:
        result.warnings.append(
            ngettext(
                "no column header: %(count)s cell per row after the GPU rows' own columns may be a GPU "
                "whose row was cut or a NIC; NIC columns cannot be told without the header",
                "no column header: %(count)s cells per row after the GPU rows' own columns may be GPUs "
                "whose rows were cut or NICs; NIC columns cannot be told without the header",
                untold,
                count=untold,
            )
        )
    elif not nic_cols:
        result.warnings.append(_("no NIC columns: no RDMA NIC visible to the driver (VM or no NIC)"))
    if later is not None and different is not None:
        later.extend(notes["later"])
        different.extend(notes.get("different", notes["later"]))
    result.warnings.extend(_reading_warnings(notes, glued))
    return result
