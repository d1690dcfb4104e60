"""Layout dicts (DESIGN section 5 `L`): parsing, defaults and validation against the workload."""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any

from .errors import InputError
from .model import RECOMPUTE_CODES
from .workload import Workload


@dataclass(frozen=True)
class Layout:
    tp: int = 1
    pp: int = 1
    dp: int = 1
    cp: int = 1
    ep: int = 1
    zero: int = 1
    micro_batch: int = 1
    recompute: str = "selective"
    sequence_parallel: bool = False
    virtual_stages: int = 1

    @property
    def gpus(self) -> int:
        return self.tp * self.pp * self.dp * self.cp

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def grid(self) -> dict[str, Any]:
        return {
            "tp": self.tp,
            "pp": self.pp,
            "dp": self.dp,
            "cp": self.cp,
            "ep": self.ep,
            "zero": self.zero,
            "mb": self.micro_batch,
            "rec": RECOMPUTE_CODES[self.recompute],
            "sp": self.sequence_parallel,
            "v": self.virtual_stages,
        }


# the keys of a layout dict: the Layout's fields
LAYOUT_KEYS = tuple(f.name for f in fields(Layout))


def _int(d: dict[str, Any], key: str, default: int, minimum: int = 1) -> int:
    v = d.get(key, default)
    if v is None:
        v = default
    if isinstance(v, bool) or not isinstance(v, int | float) or float(v) != int(v):
        raise InputError(f"layout.{key}", f"must be an integer, got {v!r}")
    if v < minimum:
        raise InputError(f"layout.{key}", f"must be >= {minimum}, got {v!r}")
    return int(v)


def layout_from_dict(
    d: dict[str, Any] | None, wl: Workload, gpus: int | None = None
) -> tuple[Layout, list[str]]:
    """Parse and check a layout. Shape inconsistencies are InputErrors; a layout that does not fit is not
    an error (the evaluation answers `feasible: false`)."""
    d = dict(d or {})
    if not isinstance(d, dict):
        raise InputError("layout", "must be a JSON object")
    unknown = set(d) - set(LAYOUT_KEYS) - {"optimizer"}
    if unknown:
        raise InputError(f"layout.{sorted(unknown)[0]}", "unknown key")
    notes: list[str] = []
    tp = _int(d, "tp", 1)
    pp = _int(d, "pp", 1)
    cp = _int(d, "cp", 1)
    ep = _int(d, "ep", 1)
    zero = _int(d, "zero", 1, minimum=0)
    if zero > 3:
        raise InputError("layout.zero", f"must be 0-3, got {zero}")
    mb = _int(d, "micro_batch", 1)
    v = _int(d, "virtual_stages", 1)
    recompute = d.get("recompute", "selective")
    if recompute is True:
        recompute = "full"
    if recompute in (False, None):
        recompute = "none"
    if recompute not in RECOMPUTE_CODES:
        raise InputError("layout.recompute", f"must be none, selective or full, got {recompute!r}")
    sp_raw = d.get("sequence_parallel")
    if sp_raw is not None and not isinstance(sp_raw, bool):
        raise InputError("layout.sequence_parallel", f"must be true or false, got {sp_raw!r}")
    sp = bool(sp_raw) if sp_raw is not None else tp > 1
    if wl.heads % tp:
        raise InputError("layout.tp", f"TP={tp} does not divide the {wl.heads} attention heads")
    if wl.kv_heads % tp:
        raise InputError("layout.tp", f"TP={tp} does not divide the {wl.kv_heads} KV heads")
    if wl.moe is None and ep > 1:
        raise InputError("layout.ep", f"EP={ep} but the workload has no experts")
    if wl.moe is not None and wl.moe.experts % ep:
        raise InputError("layout.ep", f"EP={ep} does not divide the {wl.moe.experts} experts")
    if d.get("dp") is not None:
        dp = _int(d, "dp", 1)
        if gpus is not None and tp * pp * dp * cp != gpus:
            raise InputError("gpus", f"{gpus} GPUs but the layout uses tp*pp*dp*cp = {tp * pp * dp * cp}")
    elif gpus is not None:
        if gpus % (tp * pp * cp):
            raise InputError("layout.dp", f"{gpus} GPUs are not divisible by tp*pp*cp = {tp * pp * cp}")
        dp = gpus // (tp * pp * cp)
    else:
        dp = 1
        notes.append("layout without dp and no --gpus: dp = 1 assumed")
    if (dp * cp) % ep:
        raise InputError(
            "layout.ep", f"EP={ep} must divide dp*cp = {dp * cp} (experts are spread over DP ranks)"
        )
    if wl.seq_len % cp:
        raise InputError("layout.cp", f"CP={cp} does not divide the sequence length {wl.seq_len}")
    if pp == 1 and v > 1:
        notes.append("virtual_stages > 1 without pipeline parallelism has no effect: set to 1")
        v = 1
    return Layout(tp, pp, dp, cp, ep, zero, mb, str(recompute), sp, v), notes
