"""The full bill of a training job on one offering under each billing plan (DESIGN section 5, "Cost").

Pure: no Django import. Inputs are the offering facts dict (docs/FACTS.md), the engine's sizing result and
the job's storage inputs; the output is plain data with Decimal money. Every line is
`{"item", "quantity", "unit", "unit_price_usd", "usd", "published", "note"}`; a price that is not
published gives `usd: None` and makes the bill incomplete (0 is a published zero, never a stand-in).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import ROUND_CEILING, ROUND_HALF_UP, Decimal
from typing import Any

from hardware.messages import Msg, _, joined, ngettext
from providers.facts import GRANULARITY_WORDS, NO_PLAN_NAME, billable_plans
from sizing.engine.cost import HOURS_PER_MONTH as ENGINE_HOURS_PER_MONTH
from sizing.engine.cost import billing_step_hours

HOURS_PER_MONTH = Decimal(int(ENGINE_HOURS_PER_MONTH))
CENT = Decimal("0.01")
# Training logs and metrics downloaded at the end of the job: a few GB at most (a Megatron run's text logs
# and tensorboard events are ~1 GB per month); 10 GB is a deliberate over-estimate.
LOG_GB = Decimal(10)
LINE_ITEM_LABELS = {
    "compute": "Compute",
    "failure_overhead": "Failure and restart overhead",
    "spares": "Spare nodes",
    "checkpoint_storage": "Checkpoint storage",
    "dataset_storage": "Dataset storage",
    "egress": "Internet egress",
    "traffic": "Inter-node traffic",
    "support": "Support",
    "setup": "Setup fee",
}
# The bill's lines in the order they are shown.
LINE_ITEMS = tuple(LINE_ITEM_LABELS)
RESERVED_KINDS = ("reserved", "cluster-cycle")


def compute_unpriced(bill: dict[str, Any]) -> bool:
    """Whether the bill's compute line has no price (no plan, or a plan without one): its published lines
    then sum to next to nothing, and pages show no total rather than "$0.00"."""
    return any(ln.get("item") == "compute" and ln.get("usd") is None for ln in bill.get("lines") or [])


@dataclass(frozen=True)
class FeeRange:
    """The typical range of a fee an offering does not publish: its low and high ends (unit prices in the
    line's unit; for support and setup, the share described by `basis`), each end from a public source.
    The bill's central estimate puts the fee at the middle of the range, its high estimate at the high end;
    the low estimate (known fees only) at zero."""

    low: Decimal
    high: Decimal
    basis: str


# Unknown fees: one row per bill line a provider may leave unpublished (../shared/data/hidden-costs.md,
# compiled 2026-12-02; sections 1-4 there). Shown to buyers, so the basis names public sources in words.
_STORAGE = FeeRange(
    Decimal("0.020"),
    Decimal("0.145"),
    _(
        "checkpoint storage is typically $0.020 (Google Cloud Storage standard, regional, 2026) to $0.145 "
        "per GB-month (AWS FSx for Lustre persistent SSD, cost estimator)"
    ),
)
FEE_RANGES: dict[str, FeeRange] = {
    "checkpoint_storage": _STORAGE,
    "dataset_storage": _STORAGE,
    "egress": FeeRange(
        Decimal("0"),
        Decimal("0.12"),
        _(
            "internet egress is free at CoreWeave and Nebius (pricing pages, 2026-09/10) and up to $0.12 per "
            "GB (Google Cloud premium tier, first TiB)"
        ),
    ),
    "traffic": FeeRange(
        Decimal("0"),
        Decimal("0"),
        _(
            "no source prices traffic between the nodes of one cluster; the published traffic rates "
            "($0.01 per GB each way between availability zones: AWS, Azure, Google Cloud, 2026) apply to "
            "traffic leaving the zone, which a training job's collectives do not"
        ),
    ),
    "support": FeeRange(
        Decimal("0"),
        Decimal("1"),
        _(
            "support is free on basic tiers and costs at most AWS Enterprise Support's list price: the "
            "greater of $15,000 or 10%% of the first $150,000, 7%% to $500,000, 5%% to $1,000,000 and 3%% "
            "above, of the month's spend (aws.amazon.com/premiumsupport/pricing)"
        ),
    ),
    "setup": FeeRange(
        Decimal("0"),
        Decimal("3"),
        _(
            "set-up is often free; at most the 2-3 days of acceptance testing a cloud runs on a new cluster "
            "(SemiAnalysis, via S. Bekman's ml-engineering guide, 2026-08-10), billed as 3 days of the "
            "cluster"
        ),
    ),
}
# AWS Enterprise Support bands: (monthly spend up to, marginal share); the minimum per month.
SUPPORT_BANDS: tuple[tuple[Decimal | None, Decimal], ...] = (
    (Decimal(150_000), Decimal("0.10")),
    (Decimal(500_000), Decimal("0.07")),
    (Decimal(1_000_000), Decimal("0.05")),
    (None, Decimal("0.03")),
)
SUPPORT_MINIMUM_USD = Decimal(15_000)


@dataclass(frozen=True)
class Job:
    """What the bill needs from the workload and the sizing result."""

    nodes: int
    gpus_per_node: int
    ideal_hours: Decimal  # training time without failures
    wall_hours: Decimal  # with failure and restart overhead (ideal / goodput)
    train_tokens: float
    checkpoint_gb: Decimal
    checkpoints_retained: int
    dataset_size_gb: Decimal | None
    inter_node_gb: Decimal | None  # estimated bytes crossing the inter-node fabric, GB; None: unestimated
    failover_spares: int = 0  # spare nodes the sizing holds so that failures do not wait for repairs

    @property
    def gpus(self) -> int:
        return self.nodes * self.gpus_per_node


def dec(value: Any) -> Decimal | None:
    """A published number as an exact Decimal (floats through their shortest repr), None stays None."""
    if value is None:
        return None
    if isinstance(value, Decimal):
        return value
    return Decimal(str(value))


def money(value: Decimal) -> Decimal:
    return value.quantize(CENT, rounding=ROUND_HALF_UP)


# The lines' units as message ids: a line keeps its English unit; the pages show it in their language.
UNIT_IDS = (_("GPU-hour"), _("GB-month"), _("GB"), _("month"), _("one-off"))


def line(
    item: str,
    quantity: Decimal,
    unit: str,
    unit_price: Decimal | None,
    note: str = "",
    *,
    published: bool = True,
) -> dict[str, Any]:
    """One bill line; no price -> usd None ("not published")."""
    if unit_price is None:
        note = joined(_("not published"), note, sep=_("; ")) if note else _("not published")
    return {
        "item": item,
        "quantity": quantity,
        "unit": unit,
        "unit_price_usd": unit_price,
        "usd": None if unit_price is None else money(quantity * unit_price),
        "published": published and unit_price is not None,
        "note": note,
    }


def billed_hours(plan: dict[str, Any], hours: Decimal) -> tuple[Decimal, str]:
    """Hours charged for a job of `hours`: rounded up to the plan's granularity, then to its minimum term."""
    gran = plan.get("granularity") or "hour"
    step_hours = billing_step_hours(plan)  # the engine's steps: the two bills round alike
    step = None if step_hours is None else Decimal(int(step_hours))
    billed = hours if step is None else (hours / step).to_integral_value(rounding=ROUND_CEILING) * step
    per = Msg(GRANULARITY_WORDS.get(gran, gran))
    note = (
        _("billed %(per)s", per=per)
        if step is None
        else _("billed %(per)s (%(step)s h steps)", per=per, step=step)
    )
    term = plan.get("term_months")
    if term and billed < Decimal(int(term)) * HOURS_PER_MONTH:
        billed = Decimal(int(term)) * HOURS_PER_MONTH
        minimum = _("minimum term %(months)s months = %(hours)s h charged", months=term, hours=_count(billed))
        note = joined(note, minimum, sep=_("; "))
    return billed, note


def spare_nodes(facts: dict[str, Any], nodes: int) -> tuple[int, str]:
    """Extra nodes to hold `nodes` usable under the usable-GPU guarantee (none published: none assumed)."""
    pct = facts.get("usable_gpu_guarantee_pct")
    if pct is None:
        return 0, _(
            "usable-GPU guarantee not published: no spare nodes assumed (the real shortfall is unknown)"
        )
    pct_d = Decimal(str(pct))
    if not pct_d.is_finite() or pct_d <= 0:
        # The catalog refuses such a guarantee; a stored one from before is read as not published.
        return 0, _("usable-GPU guarantee of %(pct)s%% is not a guarantee: no spare nodes assumed", pct=pct)
    if pct_d >= 100:
        return 0, _("100%% usable GPUs guaranteed: no spare nodes")
    spares = math.ceil(nodes * (1 - pct_d / 100))
    return spares, ngettext(
        "%(pct)s%% usable GPUs guaranteed: ceil(%(nodes)s × %(rest)s%%) = %(spares)s spare node",
        "%(pct)s%% usable GPUs guaranteed: ceil(%(nodes)s × %(rest)s%%) = %(spares)s spare nodes",
        spares,
        pct=pct,
        nodes=nodes,
        rest=100 - pct_d,
        spares=spares,
    )


def _spares_line(
    facts: dict[str, Any],
    spares: int,
    spare_note: str,
    working_gpus: int,
    gpn: int,
    hours: Decimal,
    price: Decimal | None,
    *,
    may_extend: bool = True,
) -> dict[str, Any]:
    """GPU-hours that keep the job whole under the guarantee: whole spare nodes, or a longer run
    (not when the spares are the failover nodes the goodput figures count on: `may_extend` False).

    DESIGN section 5: "usable-GPU shortfalls extend the run or need spare nodes". Up to (100 - pct)% of
    the GPUs may be unusable at any time; a small job absorbs that more cheaply by running up to
    100/pct - 1 longer than by renting a whole spare node, a large one by spares. The cheaper is billed.
    """
    spare_hours = Decimal(spares * gpn) * hours
    pct = Decimal(str(facts.get("usable_gpu_guarantee_pct") or 0))
    if spares and pct > 0 and may_extend:  # a guarantee above 0 only; never divide by 0
        longer_pct = ((Decimal(100) / pct - 1) * 100).quantize(CENT)
        extension = (Decimal(working_gpus) * hours * (Decimal(100) / pct - 1)).quantize(CENT)
        if extension < spare_hours:
            item = line(
                "spares",
                extension,
                "GPU-hour",
                price,
                ngettext(
                    "%(pct)s%% usable GPUs guaranteed: running up to %(longer)s%% longer on %(gpus)s GPUs "
                    "(%(extension)s GPU-h) is cheaper than %(spares)s spare node (%(spare_hours)s GPU-h)",
                    "%(pct)s%% usable GPUs guaranteed: running up to %(longer)s%% longer on %(gpus)s GPUs "
                    "(%(extension)s GPU-h) is cheaper than %(spares)s spare nodes (%(spare_hours)s GPU-h)",
                    spares,
                    pct=pct,
                    longer=longer_pct,
                    gpus=working_gpus,
                    extension=extension,
                    spares=spares,
                    spare_hours=spare_hours,
                ),
            )
            item["_spare_nodes"] = 0
            return item
    gpu_hours = _("%(gpus)s GPUs × %(hours)s h", gpus=_count(spares * gpn), hours=_count(hours))
    item = line("spares", spare_hours, "GPU-hour", price, joined(spare_note, gpu_hours, sep=_("; ")))
    item["_spare_nodes"] = spares
    return item


def _count(value: Any) -> str:
    """A count of GPUs or hours in a line's note as the bill's quantities read: thousands separators, the
    figure's own decimals kept ("8,192", "1,304.80"; a Decimal in exponent form, 1E+3, as "1,000")."""
    return format(value, ",f") if isinstance(value, Decimal) else f"{value:,}"


def _months(hours: Decimal) -> Decimal:
    return (hours / HOURS_PER_MONTH).quantize(CENT, rounding=ROUND_CEILING)


@dataclass(frozen=True)
class _GpuHours:
    """The GPU-hour part of a bill: its lines (compute, failure overhead, spares) and what the totals need."""

    lines: list[dict[str, Any]]
    billed_hours: Decimal
    price: Decimal | None
    billed_nodes: int  # the job's nodes, the spares and the nodes added to reach the plan's minimum


def _gpu_hour_lines(
    facts: dict[str, Any], plan: dict[str, Any], job: Job, assumptions: list[str]
) -> _GpuHours:
    """Compute, failure overhead and spares at the plan's price, rounded to its granularity and term."""
    spares, spare_note = spare_nodes(facts, job.nodes)
    if facts.get("usable_gpu_guarantee_pct") is None:
        assumptions.append(spare_note)
    failover = job.failover_spares > spares  # the same nodes serve the guarantee and the failovers
    if failover:
        spares = job.failover_spares
        spare_note = ngettext(
            "%(spares)s spare node held so that the job restarts at once after a failure instead of waiting "
            "for the node's replacement (see the goodput figures)",
            "%(spares)s spare nodes held so that the job restarts at once after a failure instead of "
            "waiting for the node's replacement (see the goodput figures)",
            spares,
            spares=spares,
        )
    min_nodes = int(plan.get("min_nodes") or 0)
    extra_min = max(0, min_nodes - job.nodes - spares)
    hours, hours_note = billed_hours(plan, job.wall_hours)
    overhead_hours = job.wall_hours - job.ideal_hours
    compute_hours = hours - overhead_hours  # the ideal time plus the rounding to granularity and term
    price = dec(plan.get("price_usd_per_gpu_hour"))
    working_gpus = (job.nodes + extra_min) * job.gpus_per_node
    compute_parts = [
        _("%(gpus)s GPUs × %(hours)s h", gpus=_count(working_gpus), hours=_count(compute_hours)),
        hours_note,
    ]
    if extra_min:
        compute_parts.append(
            ngettext(
                "%(extra)s node added to reach the plan's minimum of %(min)s",
                "%(extra)s nodes added to reach the plan's minimum of %(min)s",
                extra_min,
                extra=extra_min,
                min=min_nodes,
            )
        )
    compute_note = joined(*compute_parts, sep=_("; "))
    lines = [
        line("compute", working_gpus * compute_hours, "GPU-hour", price, compute_note),
        line(
            "failure_overhead",
            working_gpus * overhead_hours,
            "GPU-hour",
            price,
            _(
                "%(gpus)s GPUs × %(hours)s h lost to failures, restarts and checkpoint writes",
                gpus=_count(working_gpus),
                hours=_count(overhead_hours),
            ),
        ),
        _spares_line(
            facts, spares, spare_note, working_gpus, job.gpus_per_node, hours, price, may_extend=not failover
        ),
    ]
    spares = lines[-1].pop("_spare_nodes")
    return _GpuHours(lines, hours, price, job.nodes + spares + extra_min)


def _storage_lines(
    facts: dict[str, Any], job: Job, months: Decimal, assumptions: list[str]
) -> list[dict[str, Any]]:
    """Checkpoint then dataset storage for the job's months; the storage included in the price goes to
    the checkpoints first."""
    storage_price = dec(facts.get("storage_price_usd_per_gb_month"))
    included = dec(facts.get("storage_included_gb"))
    included_left = included or Decimal(0)
    if included is None and storage_price is not None:
        assumptions.append(_("storage included in the price not published: none assumed"))
    checkpoint_gb_retained = job.checkpoint_gb * job.checkpoints_retained
    checkpoint_billable = max(Decimal(0), checkpoint_gb_retained - included_left)
    included_left = max(Decimal(0), included_left - checkpoint_gb_retained)
    checkpoints = line(
        "checkpoint_storage",
        checkpoint_billable * months,
        "GB-month",
        storage_price,
        _(
            "%(count)s checkpoints × %(gb)s GB - %(included)s GB included for %(months)s months",
            count=job.checkpoints_retained,
            gb=_count(job.checkpoint_gb),
            included=_count(included),
            months=months,
        )
        if included
        else _(
            "%(count)s checkpoints × %(gb)s GB for %(months)s months",
            count=job.checkpoints_retained,
            gb=_count(job.checkpoint_gb),
            months=months,
        ),
    )
    if job.dataset_size_gb is None:
        dataset = line(
            "dataset_storage",
            Decimal(0),
            "GB-month",
            storage_price or Decimal(0),
            _("dataset size not given"),
        )
    else:
        dataset_billable = max(Decimal(0), job.dataset_size_gb - included_left)
        dataset = line(
            "dataset_storage",
            dataset_billable * months,
            "GB-month",
            storage_price,
            _("%(gb)s GB for %(months)s months", gb=_count(job.dataset_size_gb), months=months),
        )
    return [checkpoints, dataset]


def _egress_line(facts: dict[str, Any], job: Job) -> dict[str, Any]:
    return line(
        "egress",
        job.checkpoint_gb + LOG_GB,
        "GB",
        dec(facts.get("egress_price_usd_per_gb")),
        _(
            "final checkpoint %(checkpoint)s GB + logs %(logs)s GB downloaded once",
            checkpoint=_count(job.checkpoint_gb),
            logs=LOG_GB,
        ),
    )


def _traffic_line(facts: dict[str, Any], job: Job) -> dict[str, Any]:
    """Inter-node traffic: none on one node; unknown (usd None) when priced but not estimated."""
    traffic_price = dec(facts.get("traffic_price_usd_per_gb"))
    if job.nodes <= 1:
        return line(
            "traffic", Decimal(0), "GB", traffic_price or Decimal(0), _("single node: no fabric traffic")
        )
    if job.inter_node_gb is None and traffic_price:
        item = line("traffic", Decimal(0), "GB", traffic_price, _("inter-node bytes could not be estimated"))
        item["usd"] = None
        return item
    return line(
        "traffic",
        job.inter_node_gb or Decimal(0),
        "GB",
        traffic_price,
        _("inter-node bytes estimated from the communication time of the sizing (upper bound)"),
    )


def _fee_lines(facts: dict[str, Any], months: Decimal) -> list[dict[str, Any]]:
    """Support per started month and the one-off setup fee."""
    support_months = months.to_integral_value(rounding=ROUND_CEILING)
    return [
        line(
            "support",
            support_months,
            "month",
            dec(facts.get("support_fee_usd_per_month")),
            ngettext(
                "%(months)s started month",
                "%(months)s started months",
                int(support_months),
                months=support_months,
            ),
        ),
        line("setup", Decimal(1), "one-off", dec(facts.get("setup_fee_usd")), _("one-off setup fee")),
    ]


def support_list_price(monthly_spend: Decimal) -> Decimal:
    """AWS Enterprise Support's list price for a month's spend: the bands of SUPPORT_BANDS, at least the
    minimum."""
    out, floor = Decimal(0), Decimal(0)
    for upto, share in SUPPORT_BANDS:
        top = monthly_spend if upto is None else min(monthly_spend, upto)
        if top <= floor:
            break
        out += (top - floor) * share
        floor = top
    return max(SUPPORT_MINIMUM_USD, out)


def _fee_usd(ln: dict[str, Any], unit_value: Decimal, job: Job, gpu_hours: _GpuHours) -> Decimal | None:
    """An unknown line at `unit_value` (a unit price; for support a share of the list price, for setup
    days of the cluster); None where there is no bound (no GPU price, or the quantity is unknown)."""
    if gpu_hours.price is None or ln["unit_price_usd"] is not None:
        return None  # no price for the GPUs at all, or a published price on a quantity not estimated
    if ln["item"] == "support":
        months = max(Decimal(1), ln["quantity"])
        gpu_usd = sum((g["usd"] for g in gpu_hours.lines if g["usd"] is not None), Decimal(0))
        return money(months * support_list_price(gpu_usd / months) * unit_value)
    if ln["item"] == "setup":
        cluster_gpus = gpu_hours.billed_nodes * job.gpus_per_node
        return money(cluster_gpus * 24 * unit_value * gpu_hours.price)
    return money(ln["quantity"] * unit_value)


def unknown_fees(lines: list[dict[str, Any]], job: Job, gpu_hours: _GpuHours) -> list[dict[str, Any]]:
    """Every line without a price, at the middle and at the high end of its typical range (FEE_RANGES)."""
    out = []
    for ln in lines:
        if ln["usd"] is not None:
            continue
        fee = FEE_RANGES.get(ln["item"])
        central = high = None
        if fee is not None:
            central = _fee_usd(ln, (fee.low + fee.high) / 2, job, gpu_hours)
            high = _fee_usd(ln, fee.high, job, gpu_hours)
        out.append(
            {
                "item": ln["item"],
                "label": LINE_ITEM_LABELS.get(ln["item"], ln["item"]),
                "central_usd": central,
                "high_usd": high,
                "basis": fee.basis if fee is not None and high is not None else _("no typical range known"),
            }
        )
    return out


def _range(total: Decimal, fees: list[dict[str, Any]], gpu_priced: bool) -> dict[str, Any]:
    """Low (known fees only), central (unknown fees at the middle of their range) and high estimates."""
    if not gpu_priced:
        return {"cost_low_usd": money(total), "cost_central_usd": None, "cost_high_usd": None}
    central = [f["central_usd"] for f in fees]
    high = [f["high_usd"] for f in fees]
    return {
        "cost_low_usd": money(total),
        "cost_central_usd": None if None in central else money(total + sum(central, Decimal(0))),
        "cost_high_usd": None if None in high else money(total + sum(high, Decimal(0))),
    }


def _totals(
    plan: dict[str, Any], job: Job, gpu_hours: _GpuHours, lines: list[dict[str, Any]], assumptions: list[str]
) -> dict[str, Any]:
    """The bill: the plan, its lines, the total of the published lines, the range with the unknown fees
    and the unit costs."""
    known = [ln["usd"] for ln in lines if ln["usd"] is not None]
    complete = all(ln["usd"] is not None for ln in lines)
    total = sum(known, Decimal(0))
    fees = unknown_fees(lines, job, gpu_hours)
    useful_gpu_hours = Decimal(job.gpus) * job.ideal_hours
    billion_tokens = Decimal(str(job.train_tokens)) / Decimal(10**9)
    return {
        "plan": {
            "name": plan.get("name"),
            "kind": plan.get("kind"),
            "price_usd_per_gpu_hour": gpu_hours.price,
            "term_months": plan.get("term_months"),
            "min_nodes": plan.get("min_nodes"),
            "granularity": plan.get("granularity"),
            "cycle_days": plan.get("cycle_days"),
            "upfront_pct": plan.get("upfront_pct"),
        },
        "lines": lines,
        "complete": complete,
        "total_usd": money(total),
        **_range(total, fees, gpu_hours.price is not None),
        "unknown_fees": fees,
        "billed_hours": gpu_hours.billed_hours,
        "billed_nodes": gpu_hours.billed_nodes,
        "gpu_hours_billed": gpu_hours.billed_nodes * job.gpus_per_node * gpu_hours.billed_hours,
        "usd_per_billion_tokens": money(total / billion_tokens) if billion_tokens else None,
        "usd_per_useful_gpu_hour": (total / useful_gpu_hours).quantize(Decimal("0.0001"))
        if useful_gpu_hours
        else None,
        "assumptions": assumptions,
    }


def plan_bill(facts: dict[str, Any], plan: dict[str, Any] | None, job: Job) -> dict[str, Any]:
    """The full bill under one plan (`plan` None: no plan published, compute is unpriced)."""
    plan = plan or {"kind": "none", "name": NO_PLAN_NAME, "price_usd_per_gpu_hour": None}
    assumptions: list[str] = []
    gpu_hours = _gpu_hour_lines(facts, plan, job, assumptions)
    months = _months(job.wall_hours)
    lines = [
        *gpu_hours.lines,
        *_storage_lines(facts, job, months, assumptions),
        _egress_line(facts, job),
        _traffic_line(facts, job),
        *_fee_lines(facts, months),
    ]
    return _totals(plan, job, gpu_hours, lines, assumptions)


def break_even_days(on_demand: dict[str, Any], plan: dict[str, Any], nodes: int, gpn: int) -> Decimal | None:
    """Job length (days, same cluster) from which `plan` costs no more than on-demand; None: never.

    A term plan costs its whole term up to the term's end, so it breaks even at term x its rate / on-demand
    rate; without a term it is cheaper from the first hour if its hourly rate is lower.
    Granularity is ignored.
    """
    od_price, price = dec(on_demand.get("price_usd_per_gpu_hour")), dec(plan.get("price_usd_per_gpu_hour"))
    if od_price is None or price is None or od_price == 0:
        return None
    od_rate = max(nodes, int(on_demand.get("min_nodes") or 0)) * gpn * od_price
    rate = max(nodes, int(plan.get("min_nodes") or 0)) * gpn * price
    if rate >= od_rate:
        return None
    term = plan.get("term_months")
    if not term:
        return Decimal(0)
    hours = Decimal(int(term)) * HOURS_PER_MONTH * rate / od_rate
    return (hours / 24).quantize(Decimal("0.1"), rounding=ROUND_CEILING)


def job_from_sizing(
    sizing: dict[str, Any], facts: dict[str, Any], workload: dict[str, Any]
) -> tuple[Job, list[str]]:
    """The bill's view of an engine result plus the workload's storage inputs; and what was assumed."""
    notes: list[str] = []
    gpn = int(facts.get("gpus_per_node") or sizing.get("offering", {}).get("gpus_per_node") or 8)
    nodes = int(sizing.get("nodes") or math.ceil(int(sizing["gpus"]) / gpn))
    wall = Decimal(str(sizing["train_days"])) * 24
    ideal = Decimal(str(sizing.get("train_days_no_failures") or sizing["train_days"])) * 24
    ideal = min(ideal, wall)
    ckpt = (sizing.get("goodput") or {}).get("checkpoint_gb")
    if ckpt is None:
        # Full model states: 2 (bf16 weights) + 12 (fp32 master weights and Adam moments) bytes per parameter.
        ckpt = float((sizing.get("params") or {}).get("total") or 0) * 14 / 1e9
        notes.append(_("checkpoint size from 14 bytes per parameter (weights + fp32 optimizer states)"))
    iterations = None
    wl = sizing.get("workload") or {}
    tokens = float(workload.get("train_tokens") or wl.get("train_tokens") or 0)
    tokens_per_iteration = (wl.get("global_batch") or 0) * (wl.get("seq_len") or 0)
    if tokens_per_iteration:
        iterations = tokens / tokens_per_iteration
    node_gbytes_per_s = (sizing.get("offering") or {}).get("inter_node_gbytes_per_s_per_node")
    breakdown = sizing.get("iteration_breakdown_s") or {}
    inter_node_gb: Decimal | None = None
    if iterations and node_gbytes_per_s and breakdown and nodes > 1:
        # Upper bound: the collectives that cross nodes (DP, PP, EP, CP) keep every node's NICs busy
        # for their whole (exposed) time. TP stays inside the node.
        seconds = sum(float(breakdown.get(k) or 0.0) for k in ("dp_comm", "pp_comm", "ep_comm", "cp_comm"))
        gb = seconds * float(node_gbytes_per_s) * nodes * iterations
        inter_node_gb = Decimal(str(round(gb, 1)))
    dataset = workload.get("dataset_size_gb")
    job = Job(
        nodes=nodes,
        gpus_per_node=gpn,
        ideal_hours=ideal.quantize(CENT),
        wall_hours=wall.quantize(CENT),
        train_tokens=tokens,
        checkpoint_gb=Decimal(str(round(float(ckpt), 1))),
        checkpoints_retained=int(workload.get("checkpoints_retained") or 1),
        dataset_size_gb=dec(dataset),
        inter_node_gb=inter_node_gb,
        failover_spares=int((sizing.get("goodput") or {}).get("spare_nodes") or 0),
    )
    return job, notes


def central_or_total(bill: dict[str, Any]) -> Decimal:
    """The central estimate of a bill, or the total of its published lines where no range is known."""
    central = bill.get("cost_central_usd")
    return central if central is not None else bill["total_usd"]


def full_bill(facts: dict[str, Any], sizing: dict[str, Any], workload: dict[str, Any]) -> dict[str, Any]:
    """The bill of every plan, the chosen (cheapest complete, non-spot) plan, and the break-even durations."""
    job, notes = job_from_sizing(sizing, facts, workload)
    plans = [p for p in facts.get("billing_plans") or [] if isinstance(p, dict)]
    bills = [plan_bill(facts, p, job) for p in plans] or [plan_bill(facts, None, job)]
    # Spot is shown but not chosen while another plan is priced: preemptions are not in the goodput model.
    billable = {id(p) for p in billable_plans(plans)[0]}  # by identity, as the engine's cost_block
    candidates = [b for b, p in zip(bills, plans, strict=False) if id(p) in billable]
    if candidates:
        # By the central estimate: a plan cannot win on fees its offering does not publish.
        chosen = min(candidates, key=lambda b: (b["cost_central_usd"] is None, central_or_total(b)))
    else:
        chosen = bills[0]
    on_demand = [
        p for p in plans if p.get("kind") == "on-demand" and p.get("price_usd_per_gpu_hour") is not None
    ]
    od = min(on_demand, key=lambda p: p["price_usd_per_gpu_hour"]) if on_demand else None
    summary = []
    plan_of: list[dict[str, Any] | None] = list(plans) or [None]
    for b, p in zip(bills, plan_of, strict=False):
        entry = {
            "name": b["plan"]["name"],
            "kind": b["plan"]["kind"],
            "price_usd_per_gpu_hour": b["plan"]["price_usd_per_gpu_hour"],
            "total_usd": b["total_usd"] if b["plan"]["price_usd_per_gpu_hour"] is not None else None,
            "complete": b["complete"],
            "cost_central_usd": b["cost_central_usd"],
            "cost_high_usd": b["cost_high_usd"],
            "billed_hours": b["billed_hours"],
            "chosen": b is chosen,
            "break_even_days": None,
        }
        if od is not None and p is not None and p.get("kind") in RESERVED_KINDS:
            entry["break_even_days"] = break_even_days(od, p, job.nodes, job.gpus_per_node)
        summary.append(entry)
    out = dict(chosen)
    out["assumptions"] = list(dict.fromkeys(notes + chosen["assumptions"]))
    out["plans"] = summary
    out["on_demand_plan"] = od.get("name") if od else None
    out["job"] = {
        "nodes": job.nodes,
        "gpus": job.gpus,
        "ideal_hours": job.ideal_hours,
        "wall_hours": job.wall_hours,
        "checkpoint_gb": job.checkpoint_gb,
        "inter_node_gb": job.inter_node_gb,
    }
    return out


def to_json(value: Any) -> Any:
    """The bill with Decimals as strings (exact) for JSON storage and the API."""
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, dict):
        return {k: to_json(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [to_json(v) for v in value]
    return value
