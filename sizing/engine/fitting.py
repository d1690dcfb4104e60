"""Memory settings a given layout leaves out, taken so that it fits when the defaults do not.

A layout names its parallel degrees; the ZeRO stage and the activation recompute (its mode, and with
selective recompute the modules it reruns, Megatron-Core's `recompute_modules`) are often not published
with a run (the Llama 3 paper gives TP8 PP16 DP64 and says in prose that FSDP shards the gradients and the
optimizer state, i.e. ZeRO-2). With the defaults (ZeRO-1, selective recompute) such a layout can need more
memory than the GPU has although the run happened. When the defaults do not fit and those keys were not
given, the fastest combination of the unstated ones that fits is taken, and the answer says so in its
`assumptions`. A key the layout states is never changed: an explicit layout is evaluated as it is.

Two facts of the workload hold memory too and are often left out of a workload dict: its dropout layers (a
GELU model is given them, as GPT-3-era models trained: workload.DROPOUT_NOTES) and its attention kernels
(unfused on the GPUs whose calibration runs had no FlashAttention: model.uses_flash_attention). They are the
model's class values, so they give way last and fewest: only when no setting of the layout's own unstated
keys fits are the workload's unstated facts moved, as few as make it fit, the fastest such setting taken (a
published layout that cannot fit with dropout masks or s x s scores ran without them: Nemotron-4 340B's TP8
PP8 on 128 H100 needs 80.6 GiB of the 79.6 with dropout, 78.7 without, and its NeMo config has none), again
said in `assumptions`.
"""

from __future__ import annotations

from dataclasses import replace
from itertools import product
from typing import Any

import numpy as np

from hardware.messages import Msg, _, joined

from . import checkpointing as CK
from . import constants as C
from .explain import MODULE_WORDS
from .hardware import Hardware
from .layout import Layout
from .model import R_MEMORY, evaluate_grid, uses_flash_attention
from .overlap import MODERN_ARCHITECTURES
from .workload import DROPOUT_NOTES, Workload

# The values tried for an unstated key, the default first (ZeRO-0 holds more than ZeRO-1; no recompute
# holds more than selective): each further one holds less memory and usually costs time.
ZERO_STAGES = (1, 2, 3)
RECOMPUTE_SETTINGS = ("selective", "full")


def unstated_keys(stated: dict[str, Any]) -> tuple[str, ...]:
    """The keys this module may choose: those a layout dict leaves to their defaults, read as
    layout_from_dict reads them (`zero: null` is the default stage; `recompute: null` states no recompute;
    `etp` only where the layout folded its experts, below)."""
    keys: tuple[str, ...] = ("zero",) if stated.get("zero") is None else ()
    # a module list states selective recompute (layout_from_dict refuses it with another mode)
    keys += ("recompute",) if "recompute" not in stated and stated.get("recompute_modules") is None else ()
    # which modules selective recompute reruns (Megatron-Core's default: the attention core alone)
    keys += ("recompute_modules",) if stated.get("recompute_modules") is None else ()
    return keys + (("etp",) if "etp" not in stated else ())


def choosable(unstated: tuple[str, ...], wl: Workload, lay: Layout, hw: Hardware) -> tuple[str, ...]:
    """`unstated` without `etp` unless the layout took the folded experts' ETP = 1 for itself (an MoE layout
    with TP > 1 and EP > 1) and Megatron-Core's own default, ETP = TP, can also hold its EP: experts split by
    TP hold TP times less memory each, so a layout that does not fit with whole experts per rank may with
    them (Grok-1's 8 experts of width 32,768 on TP4 EP8, dgxc-benchmarking's GB200 recipe: ETP 4). And
    without `recompute_modules` unless selective recompute may be taken and the GPU's default stack is
    Megatron-Core's (Hopper and later), which recomputes by module (every workload has modules beyond the
    attention core: the layer norms and the MLP)."""
    folded = wl.moe is not None and lay.tp > 1 and lay.ep > 1 and lay.expert_tp == 1
    holds = (lay.tp * lay.dp * lay.cp) % (lay.ep * lay.tp) == 0
    # recompute by module is Megatron-Core's (2024 on): offered on the GPUs whose defaults are its stack
    modern = hw.gpu.vendor == "nvidia" and hw.gpu.architecture in MODERN_ARCHITECTURES
    by_module = modern and (lay.recompute == "selective" or "recompute" in unstated)
    return tuple(
        k for k in unstated if (k != "etp" or (folded and holds)) and (k != "recompute_modules" or by_module)
    )


def module_lists(wl: Workload) -> list[tuple[str, ...]]:
    """The module lists selective recompute may take for this workload beyond Megatron-Core's default (the
    attention core alone): every combination of the modules the engine models that the workload has (the
    experts' activation with experts, the latent up-projections with latent attention and its ranks, the
    shared experts with shared experts), in Megatron-Core's order."""
    has = {
        CK.CORE_ATTN: True,
        CK.MOE_ACT: wl.moe is not None,
        CK.LAYERNORM: True,
        CK.MLA_UP_PROJ: wl.latent_up_params is not None,
        CK.MLP: True,
        CK.SHARED_EXPERTS: wl.moe is not None and wl.moe.shared_experts > 0,
    }
    modules = [m for m in CK.MODELLED if has[m]]
    lists = [
        tuple(m for m, on in zip(modules, flags, strict=True) if on)
        for flags in product((False, True), repeat=len(modules))
    ]
    return [m for m in lists if m and m != (CK.CORE_ATTN,)]


RECOMPUTE_WORDS = {
    "none": _("no recompute"),
    "selective": _("selective recompute"),
    "full": _("full recompute"),
}
# the workload facts this module may choose (open_facts), by name: (the words for its class value, the words
# for the value that holds less memory)
DROPOUT, ATTENTION = "workload.dropout", "workload.attention"
FACT_WORDS = {
    DROPOUT: (_("dropout layers"), _("no dropout layers")),
    ATTENTION: (_("unfused attention"), _("fused attention")),
}


def open_facts(given: Any, wl: Workload, hw: Hardware) -> tuple[str, ...]:
    """The workload facts a workload dict left out whose class value holds more memory than the other:
    dropout layers (not given, a GELU model) and unfused attention (not given or "auto", on a GPU whose
    default is unfused). A preset, a Workload or a stated value is never changed."""
    if not isinstance(given, dict) or "preset" in given:
        return ()
    # read as workload_from_dict reads it: a null dropout is not given
    facts: tuple[str, ...] = (DROPOUT,) if given.get("dropout") is None and wl.dropout else ()
    if wl.attention == "auto" and not uses_flash_attention(wl, hw):
        facts += (ATTENTION,)
    return facts


def _describe(lay: Layout, keys: tuple[str, ...], facts: dict[str, bool] | None = None) -> Msg:
    words: list[str] = []
    if "zero" in keys:
        words.append(_("ZeRO-%(stage)s", stage=lay.zero))
    if lay.recompute == "selective" and "recompute_modules" in keys:
        listed = lay.recompute_modules if lay.module_recompute else (CK.CORE_ATTN,)  # Megatron-Core's default
        modules = joined(*(MODULE_WORDS[m] for m in listed or ()), sep=_(", "))
        words.append(_("selective recompute of %(modules)s", modules=modules))
    elif "recompute" in keys:
        words.append(RECOMPUTE_WORDS.get(lay.recompute, lay.recompute))
    if "etp" in keys:
        words.append(_("expert tensor parallelism %(etp)s", etp=lay.expert_tp))
    for fact, moved in (facts or {}).items():
        words.append(FACT_WORDS[fact][moved])
    return joined(*words, sep=_(", "))


def _variant(wl: Workload, moved: dict[str, bool]) -> Workload:
    """The workload with the moved facts at their other value, its class-value notes dropped."""
    if not any(moved.values()):
        return wl
    changes: dict[str, Any] = {}
    dropped = set()
    if moved.get(DROPOUT):
        changes["dropout"] = False
        dropped = {str(n) for n in DROPOUT_NOTES.values()}
    if moved.get(ATTENTION):
        changes["attention"] = "flash"
    return replace(wl, notes=[n for n in wl.notes if str(n) not in dropped], **changes)


def _candidates(lay: Layout, unstated: tuple[str, ...], wl: Workload) -> list[Layout]:
    zeros = ZERO_STAGES if "zero" in unstated else (lay.zero,)
    recomputes = RECOMPUTE_SETTINGS if "recompute" in unstated else (lay.recompute,)
    etps = (lay.etp, None) if "etp" in unstated else (lay.etp,)  # None: ETP = TP, Megatron-Core's default
    lists: list[tuple[str, ...] | None] = [lay.recompute_modules]
    if "recompute_modules" in unstated:
        lists += module_lists(wl)
    return [
        replace(lay, zero=z, recompute=r, etp=e, recompute_modules=m)
        for z in zeros
        for r in recomputes
        for e in etps
        for m in lists
        if (m is None or r == "selective")
        and (z, r, e, m) != (lay.zero, lay.recompute, lay.etp, lay.recompute_modules)
    ]


def _fastest_fit(
    wl: Workload, hw: Hardware, candidates: list[Layout], optimizer: str
) -> tuple[float, Layout] | None:
    """(seconds, layout) of the fastest candidate that fits, or None."""
    if not candidates:
        return None
    grids = [c.grid() for c in candidates]
    # a module flag is set only on the grids of the candidates that recompute that module
    keys = dict.fromkeys(k for g in grids for k in g)
    flags = set(CK.GRID_KEYS.values())
    columns = {k: np.asarray([g[k] if k in g or k not in flags else False for g in grids]) for k in keys}
    many = evaluate_grid(wl, hw, columns, optimizer)
    fits = np.flatnonzero(np.asarray(many["reasons"]) == 0)
    if not len(fits):
        return None
    best = int(fits[np.argmin(np.asarray(many["iteration"])[fits])])
    return float(np.asarray(many["iteration"])[best]), candidates[best]


def fit_unstated(
    wl: Workload,
    hw: Hardware,
    lay: Layout,
    res: dict[str, Any],
    unstated: tuple[str, ...],
    optimizer: str,
    facts: tuple[str, ...] = (),
) -> tuple[Workload, Layout, dict[str, Any], list[str]]:
    """(workload, layout, its grid result, notes): all unchanged unless `lay` fails on memory alone and some
    of ZeRO stage and recompute were left out, or some workload facts (open_facts); then the fastest
    feasible setting of the layout's unstated keys, and only where none fits, with the workload's facts."""
    if not (unstated or facts) or int(np.asarray(res["reasons"])) != R_MEMORY:
        return wl, lay, res, []
    values = {
        "needed": round(float(np.asarray(res["mem_total"])) / C.GIB, 1),
        "hbm": round(hw.hbm_bytes / C.GIB, 1),
    }
    found = _fastest_fit(wl, hw, _candidates(lay, unstated, wl), optimizer)
    if found is not None:
        note = _(
            "not given in the layout: %(keys)s. The defaults (%(defaults)s) need %(needed)s GiB per GPU of "
            "the %(hbm)s GiB, so the fastest setting that fits was taken: %(taken)s. Say which your training "
            "stack uses to have it evaluated as is",
            keys=", ".join(unstated),
            defaults=_describe(lay, unstated),
            taken=_describe(found[1], unstated),
            **values,
        )
        return wl, found[1], evaluate_grid(wl, hw, found[1].grid(), optimizer), [note]
    best = _fewest_facts(wl, hw, lay, unstated, facts, optimizer)
    keys = ", ".join(unstated + facts)
    defaults = _describe(lay, unstated, {f: False for f in facts})
    if best is None:
        # the layout's keys alone, or the workload's facts too: the same sentence, its opening naming where
        # the keys were left out
        missing = (
            _(
                "not given in the layout or the workload: %(keys)s. The defaults (%(defaults)s) need "
                "%(needed)s GiB per GPU of the %(hbm)s GiB, and no other setting of them fits either",
                keys=keys,
                defaults=defaults,
                **values,
            )
            if facts
            else _(
                "not given in the layout: %(keys)s. The defaults (%(defaults)s) need %(needed)s GiB per GPU "
                "of the %(hbm)s GiB, and no other setting of them fits either",
                keys=keys,
                defaults=defaults,
                **values,
            )
        )
        return wl, lay, res, [missing]
    chosen, variant, moved = best[1:]
    note = _facts_note(
        unstated, keys, defaults, _describe(chosen, unstated, {f: m for f, m in moved.items() if m}), values
    )
    return variant, chosen, evaluate_grid(variant, hw, chosen.grid(), optimizer), [note]


def _fewest_facts(
    wl: Workload, hw: Hardware, lay: Layout, unstated: tuple[str, ...], facts: tuple[str, ...], optimizer: str
) -> tuple[float, Layout, Workload, dict[str, bool]] | None:
    """(seconds, layout, workload, moved facts) of the fastest fit that moves as few of the workload's facts
    as any fit does (each is the model's class value), or None."""
    best: tuple[float, Layout, Workload, dict[str, bool]] | None = None
    for count in range(1, len(facts) + 1):
        for flips in product((False, True), repeat=len(facts)):
            if sum(flips) != count:
                continue
            moved = dict(zip(facts, flips, strict=True))
            variant = _variant(wl, moved)
            fit = _fastest_fit(variant, hw, [lay] + _candidates(lay, unstated, wl), optimizer)
            if fit is not None and (best is None or fit[0] < best[0]):
                best = (fit[0], fit[1], variant, moved)
        if best is not None:
            return best
    return None


def _facts_note(
    unstated: tuple[str, ...], keys: str, defaults: Msg, taken: Msg, values: dict[str, Any]
) -> Msg:
    """The assumption line of a fit that moved workload facts (and the layout's unstated keys, if any)."""
    if unstated:
        return _(
            "not given in the layout or the workload: %(keys)s. The defaults (%(defaults)s) need %(needed)s "
            "GiB per GPU of the %(hbm)s GiB and no setting of the layout's own keys fits, so the fewest of "
            "the workload's that make it fit were changed, the fastest such setting taken: %(taken)s. Say "
            "what your model and training stack have, to have it evaluated as is",
            keys=keys,
            defaults=defaults,
            taken=taken,
            **values,
        )
    return _(
        "not given in the workload: %(keys)s. With the defaults (%(defaults)s) the layout as stated "
        "needs %(needed)s GiB per GPU of the %(hbm)s GiB, so the fewest of them that make it fit were "
        "changed, the fastest such setting taken: %(taken)s. Say what your model has, to have it evaluated "
        "as is",
        keys=keys,
        defaults=defaults,
        taken=taken,
        **values,
    )
