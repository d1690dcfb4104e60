"""What a search's scan of its blocks found (search._scan): the layouts counted for `rejected`, each
evaluated structure's best objective and options column (for the node-first rule), and each block's best
candidates. Kept apart from search.py, which drives the scan."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from hardware.messages import _

from .model import R_BATCH, R_INTERLEAVE, R_MEMORY, R_NODES, R_STAGES, R_ZERO_PP, RECOMPUTE_CODES

REASON_ORDER = [
    (R_NODES, _("needs more nodes than the offering has")),
    (R_BATCH, _("global batch too small for this data-parallel size and micro-batch")),
    (R_STAGES, _("more pipeline stages than layers")),
    (R_INTERLEAVE, _("interleaving with micro-batches not a multiple of PP")),
    (R_ZERO_PP, _("ZeRO-2/3 with pipeline parallelism")),
    (R_MEMORY, _("does not fit memory")),
]
ZERO_STAGES = (0, 1, 2, 3)
GridRef = tuple[int, int, int]  # (block, structure row in the block, option column)


@dataclass
class Scan:
    """What evaluating every block found: the counts for `rejected`, each evaluated structure's best
    objective (for the node-first rule) and each block's best candidates."""

    evaluated: int = 0
    dominated: int = 0
    feasible: int = 0
    reason_counts: dict[str, int] = field(default_factory=dict)
    # per evaluated structure: best objective, block, row in the block, and its index in the structures
    # (kept as Python lists: small numpy buffers that outlive the block fragment the C heap between the
    # big grid arrays, which then cost fresh page faults; measured +30% on the 100-offering benchmark)
    structure_best: list[float] = field(default_factory=list)
    structure_block: list[int] = field(default_factory=list)
    structure_row: list[int] = field(default_factory=list)
    structure_index: list[int] = field(default_factory=list)
    # and the options column of that best (its first, as np.argmin takes it; -1 where not found)
    structure_column: list[int] = field(default_factory=list)
    # per block, its top + 1 feasible candidates (enough for the answer and the alternatives)
    candidate_scores: list[np.ndarray] = field(default_factory=list)
    candidate_blocks: list[np.ndarray] = field(default_factory=list)
    candidate_rows: list[np.ndarray] = field(default_factory=list)
    candidate_columns: list[np.ndarray] = field(default_factory=list)

    def count(
        self, reasons: np.ndarray, options: dict[str, np.ndarray], recompute_modes: tuple[int, ...]
    ) -> None:
        """Count a block's layouts: evaluated, not evaluated, and rejected by their first reason."""
        self.evaluated += reasons.size
        # ZeRO-0 is dominated; ZeRO-2/3 with PP not supported; selective recompute under fused attention
        # equals none: not evaluated
        zero_count = len(set(options["zero"].tolist()))
        modes = len(recompute_modes)
        self.dominated += (
            reasons.size // zero_count * (len(ZERO_STAGES) - zero_count)
            + reasons.size * (len(RECOMPUTE_CODES) - modes) // modes
        )
        remaining = np.ones(reasons.shape, dtype=bool)
        for bit, text in REASON_ORDER:
            hit = remaining & ((reasons & bit) != 0)
            hits = int(hit.sum())
            if hits:
                self.reason_counts[text] = self.reason_counts.get(text, 0) + hits
            remaining &= ~hit

    def add_structure_minima(
        self,
        block: int,
        rows: np.ndarray,
        feasible: np.ndarray,
        columns: int,
        scores: np.ndarray,
    ) -> None:
        """Each structure's best objective (one O(n) segmented minimum) and the options column of its first
        minimum; `feasible` (flat indices into the block's grid of `columns` columns) is increasing."""
        feasible_rows = feasible // columns
        starts = np.flatnonzero(np.r_[True, feasible_rows[1:] != feasible_rows[:-1]])
        minima = np.minimum.reduceat(scores, starts)
        # each segment's first position holding its minimum; none (scores.size) where the minimum is NaN
        lengths = np.diff(np.r_[starts, scores.size])
        at_minimum = scores == np.repeat(minima, lengths)
        first = np.minimum.reduceat(np.where(at_minimum, np.arange(scores.size), scores.size), starts)
        found = first < scores.size
        self.structure_best.extend(minima.tolist())
        self.structure_block.extend([block] * int(starts.size))
        self.structure_row.extend(feasible_rows[starts].tolist())
        self.structure_index.extend(rows[feasible_rows[starts]].tolist())
        self.structure_column.extend(np.where(found, feasible[first * found] % columns, -1).tolist())

    def add_candidates(
        self, block: int, feasible: np.ndarray, columns: int, scores: np.ndarray, top: int
    ) -> None:
        """Keep the block's top + 1 finite candidates (flat indices `feasible` into its grid)."""
        k = min(top + 1, scores.size)
        part = np.argpartition(scores, k - 1)[:k] if scores.size > k else np.arange(scores.size)
        part = part[np.isfinite(scores[part])]
        rows, cols = np.divmod(feasible[part], columns)
        self.candidate_scores.append(scores[part])
        self.candidate_blocks.append(np.full(part.size, block))
        self.candidate_rows.append(rows)
        self.candidate_columns.append(cols)

    def ranked(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(scores, grid references as 3 rows, candidate indices best first: finite scores only)."""
        scores = np.concatenate(self.candidate_scores) if self.candidate_scores else np.zeros(0)
        refs = np.stack(
            [
                np.concatenate(c) if c else np.zeros(0, dtype=np.int64)
                for c in (self.candidate_blocks, self.candidate_rows, self.candidate_columns)
            ]
        )
        order = np.argsort(scores, kind="stable")
        return scores, refs, order[np.isfinite(scores[order])]
