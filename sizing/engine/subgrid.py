"""The feasible part of a broadcast grid of layouts, as 1-D arrays (the search's constraints step hands it to
the time model)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np


def subgrid_picker(shape: tuple[int, ...], idx: np.ndarray) -> Callable[[Any], np.ndarray]:
    """A function that restricts an array broadcastable to `shape` to the flat indices `idx`, as a 1-D
    array. On a 2-D grid of (rows, 1) structure fields by (1, cols) option fields each field is indexed by
    its own axis (no full-size copy); the values are those of the broadcast grid, element for element."""
    if len(shape) != 2:

        def pick_flat(a: Any) -> np.ndarray:
            return np.broadcast_to(np.asarray(a), shape).reshape(-1)[idx]

        return pick_flat
    rows, cols = np.divmod(idx, shape[1])

    def pick(a: Any) -> np.ndarray:
        a = np.asarray(a)
        if a.shape == (shape[0], 1):
            return a.reshape(-1)[rows]
        if a.shape == (1, shape[1]):
            return a.reshape(-1)[cols]
        return np.broadcast_to(a, shape).reshape(-1)[idx]

    return pick
