"""Memory settings a given layout leaves out, taken so that it fits when the defaults do not.

A layout names its parallel degrees; the ZeRO stage and the activation recompute are often not published
with a run (the Llama 3 paper gives TP8 PP16 DP64 and says in prose that FSDP shards the gradients and the
optimizer state, i.e. ZeRO-2). With the defaults (ZeRO-1, selective recompute) such a layout can need more
memory than the GPU has although the run happened. When the defaults do not fit and those keys were not
given, the fastest combination of the unstated ones that fits is taken, and the answer says so in its
`assumptions`. A key the layout states is never changed: an explicit layout is evaluated as it is.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np

from hardware.messages import _

from . import constants as C
from .hardware import Hardware
from .layout import Layout
from .model import R_MEMORY, evaluate_grid
from .workload import Workload

# The values tried for an unstated key, the default first (ZeRO-0 holds more than ZeRO-1; no recompute
# holds more than selective): each further one holds less memory and usually costs time.
ZERO_STAGES = (1, 2, 3)
RECOMPUTE_SETTINGS = ("selective", "full")


def unstated_keys(stated: dict[str, Any]) -> tuple[str, ...]:
    """The keys this module may choose: those a layout dict leaves to their defaults, read as
    layout_from_dict reads them (`zero: null` is the default stage; `recompute: null` states no recompute)."""
    keys = ("zero",) if stated.get("zero") is None else ()
    return keys + (("recompute",) if "recompute" not in stated else ())


def _describe(lay: Layout, keys: tuple[str, ...]) -> str:
    words = []
    if "zero" in keys:
        words.append(f"ZeRO-{lay.zero}")
    if "recompute" in keys:
        words.append(f"{lay.recompute} recompute")
    return ", ".join(words)


def _candidates(lay: Layout, unstated: tuple[str, ...]) -> list[Layout]:
    zeros = ZERO_STAGES if "zero" in unstated else (lay.zero,)
    recomputes = RECOMPUTE_SETTINGS if "recompute" in unstated else (lay.recompute,)
    return [
        replace(lay, zero=z, recompute=r)
        for z in zeros
        for r in recomputes
        if (z, r) != (lay.zero, lay.recompute)
    ]


def fit_unstated(
    wl: Workload,
    hw: Hardware,
    lay: Layout,
    res: dict[str, Any],
    unstated: tuple[str, ...],
    optimizer: str,
) -> tuple[Layout, dict[str, Any], list[str]]:
    """(layout, its grid result, notes): `lay` and `res` unchanged unless `lay` fails on memory alone and
    some of ZeRO stage and recompute were left out; then the fastest feasible setting of those keys."""
    if not unstated or int(np.asarray(res["reasons"])) != R_MEMORY:
        return lay, res, []
    candidates = _candidates(lay, unstated)
    grids = [c.grid() for c in candidates]
    many = evaluate_grid(wl, hw, {k: np.asarray([g[k] for g in grids]) for k in grids[0]}, optimizer)
    fits = np.flatnonzero(np.asarray(many["reasons"]) == 0)
    values = {
        "keys": ", ".join(unstated),
        "defaults": _describe(lay, unstated),
        "needed": round(float(np.asarray(res["mem_total"])) / C.GIB, 1),
        "hbm": round(hw.hbm_bytes / C.GIB, 1),
    }
    if not len(fits):
        note = _(
            "not given in the layout: %(keys)s. The defaults (%(defaults)s) need %(needed)s GiB per GPU of "
            "the %(hbm)s GiB, and no other setting of them fits either",
            **values,
        )
        return lay, res, [note]
    best = int(fits[np.argmin(np.asarray(many["iteration"])[fits])])
    chosen = candidates[best]
    note = _(
        "not given in the layout: %(keys)s. The defaults (%(defaults)s) need %(needed)s GiB per GPU of the "
        "%(hbm)s GiB, so the fastest setting that fits was taken: %(taken)s. Say which your training stack "
        "uses to have it evaluated as is",
        taken=_describe(chosen, unstated),
        **values,
    )
    return chosen, evaluate_grid(wl, hw, chosen.grid(), optimizer), [note]
