"""The workload figures of the compare page: every compared offering sized at the GPU count the buyer picked.

A GET never creates a planner run. Each (offering, workload, GPU count) is sized once by the engine and
kept in Django's cache under the catalog version (providers.cached; every write to the catalog and
compare.receivers bump it), so the page reads cached numbers and a catalog edit is never
shown stale. Sizing one offering at a fixed count takes a few milliseconds (docs/PERFORMANCE.md).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any

from django.core.cache import cache

from hardware.gpus import GPUS, LARGEST_CLUSTER_GPUS
from hardware.messages import Msg, _, joined
from portal.i18n import translated
from providers.cached import catalog_version
from providers.cached import catalog_version_bump as catalog_version_bump  # tests bump through here
from providers.models import Offering
from sizing import bill as bill_module
from sizing.engine.errors import InputError
from sizing.engine.search import search
from sizing.engine.workload import workload_from_dict
from sizing.engine_words import page_worded
from sizing.input_errors import input_error_message
from sizing.models import DEFAULT_DEADLINE_DAYS, Workload, layout_text

CACHE_SECONDS = 24 * 3600
# The cached results' meaning: raised when a field changes what it holds (2: cost_total_usd is the central
# estimate; 3: a preset workload carries the preset's facts the portal stores no field for, multi-token
# prediction and MLA head widths, and the GB300 its bf16 rate), so a result cached before is not read as
# the new one.
CACHE_FORMAT = 3
GPUS_MIN, GPUS_MAX = 1, LARGEST_CLUSTER_GPUS
# The suggested GPU count: what an H100 cluster needs to finish within the deadline at this share of its
# bf16 peak. Meta reports 38-43% MFU for Llama 3 405B on 16k H100s (Llama 3 paper, table 4, 2024).
SUGGEST_MFU = 0.40
SUGGEST_GPU = "H100-SXM-80GB"
SUGGEST_MIN, SUGGEST_MAX = 8, 16_384


@dataclass
class ComparedResult:
    """One offering sized at the picked count: the fields the charts read from a PlanResult, plus the
    bill range (when sizing.bill gives one) and, when it cannot be sized, why in words."""

    feasible: bool = False
    gpus: int | None = None
    nodes: int | None = None
    train_days: float | None = None
    mfu: float | None = None
    goodput: float | None = None
    layout: dict[str, Any] = field(default_factory=dict)
    sizing: dict[str, Any] = field(default_factory=dict)
    bill: dict[str, Any] = field(default_factory=dict)
    cost_total_usd: float | None = None
    cost_complete: bool = False
    cost_low_usd: float | None = None
    cost_high_usd: float | None = None
    reason: str = ""
    # the reason's message id and values ({"msgid", "params"}), cached with it: shown in the page's language
    reason_message: dict[str, Any] | None = None

    @property
    def shown_reason(self) -> str:
        return translated(page_worded(self.reason_message), self.reason)

    @property
    def layout_text(self) -> str:
        return layout_text(self.layout)

    @property
    def priced(self) -> bool:
        return self.feasible and self.cost_total_usd is not None

    def get(self, name: str, default: Any = None) -> Any:
        return getattr(self, name, default)


def check_gpus(value: str) -> int | None:
    """`?gpus=` as a count (None when empty); ValueError naming the field and its range otherwise."""
    value = (value or "").strip().replace(",", "")
    if not value:
        return None
    if not value.isdigit() or not GPUS_MIN <= int(value) <= GPUS_MAX:
        raise ValueError(f"gpus: a whole number of GPUs from {GPUS_MIN} to {GPUS_MAX:,}")
    return int(value)


def suggested_gpus(workload: Workload) -> int:
    """A power of two from 8 to 16,384: the H100 count that trains `workload` within its deadline at 40%
    MFU. Only the starting value of the GPU-count field; the buyer changes it."""
    try:
        wl = workload_from_dict(workload.to_engine_dict())
    except InputError:
        return SUGGEST_MIN
    flops = wl.model_flops_per_token() * wl.train_tokens
    deadline_s = (workload.deadline_days or DEFAULT_DEADLINE_DAYS) * 86400
    per_gpu = GPUS[SUGGEST_GPU].bf16_tflops * 1e12 * SUGGEST_MFU
    needed = max(1.0, flops / (deadline_s * per_gpu))
    return int(min(SUGGEST_MAX, max(SUGGEST_MIN, 2 ** math.ceil(math.log2(needed)))))


def _reason(sizing: dict[str, Any], gpus: int) -> Msg:
    reasons = [r for r in sizing.get("reasons") or [] if r]
    if reasons:
        return _(
            "cannot train it on %(gpus)s GPUs: %(reasons)s",
            gpus=f"{gpus:,}",
            reasons=joined(*reasons[:2], sep=_("; ")),
        )
    return _("cannot train it on %(gpus)s GPUs", gpus=f"{gpus:,}")


def _money(value: Any) -> float | None:
    return None if value is None else float(value)


def size_at(*, workload: Workload, facts: dict[str, Any], gpus: int) -> ComparedResult:
    """One offering sized at exactly `gpus` GPUs with its full bill (never raises on the offering's facts)."""
    try:
        sizing = search(
            workload.to_engine_dict(),
            facts,
            objective="cheapest",
            gpus=gpus,
            deadline_days=workload.deadline_days or DEFAULT_DEADLINE_DAYS,
            top=1,
        )
    except InputError as exc:
        reason = _(
            "cannot size it at %(gpus)s GPUs: %(reason)s", gpus=f"{gpus:,}", reason=input_error_message(exc)
        )
        return ComparedResult(reason=str(reason), reason_message=reason.as_json())
    result = ComparedResult(
        feasible=bool(sizing.get("feasible")),
        gpus=sizing.get("gpus"),
        nodes=sizing.get("nodes"),
        train_days=sizing.get("train_days"),
        mfu=sizing.get("mfu"),
        goodput=(sizing.get("goodput") or {}).get("fraction"),
        layout=sizing.get("layout") or {},
        sizing=bill_module.to_json(
            {k: sizing.get(k) for k in ("goodput", "assumed_facts", "reasons") if k in sizing}
        ),
    )
    if not result.feasible or result.train_days is None:
        result.feasible = False
        reason = _reason(sizing, gpus)
        result.reason, result.reason_message = str(reason), reason.as_json()
        return result
    full = bill_module.full_bill(facts, sizing, workload.to_rules_dict())
    result.bill = bill_module.to_json(full)
    if full["plan"]["price_usd_per_gpu_hour"] is not None:
        # The central estimate, as the planner's results and ranking give it (unknown fees at the middle
        # of their typical range): the total of the published lines alone is the range's low end.
        result.cost_total_usd = _money(bill_module.central_or_total(full))
        result.cost_complete = bool(full.get("complete"))
        # The bill range, once sizing.bill gives one (known fees only .. unknown fees at their high end).
        result.cost_low_usd = _money(full.get("cost_low_usd", full.get("low_usd")))
        result.cost_high_usd = _money(full.get("cost_high_usd", full.get("high_usd")))
    return result


def workload_key(workload: Workload) -> str:
    return f"w{workload.pk}" if workload.pk else f"p-{workload.preset or workload.name}"


def compared_results(
    *, offerings: list[Offering], workload: Workload, gpus: int
) -> dict[int, ComparedResult]:
    """Every offering sized at `gpus`: from the cache when this catalog version has it, else sized now and
    cached (one cache read and at most one write for the whole page)."""
    version = catalog_version()
    keys = {
        o.pk: f"compare:sized:{CACHE_FORMAT}:{version}:{workload_key(workload)}:{gpus}:{o.pk}"
        for o in offerings
    }
    cached = cache.get_many(list(keys.values()))
    out: dict[int, ComparedResult] = {}
    fresh: dict[str, dict[str, Any]] = {}
    for o in offerings:
        stored = cached.get(keys[o.pk])
        if stored is not None:
            out[o.pk] = ComparedResult(**stored)
            continue
        out[o.pk] = size_at(workload=workload, facts=o.facts(), gpus=gpus)
        fresh[keys[o.pk]] = asdict(out[o.pk])
    if fresh:
        cache.set_many(fresh, CACHE_SECONDS)
    return out
