"""Reads of the planner, owner-scoped (another user's workload or run does not exist for you)."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from django.shortcuts import get_object_or_404

from sizing.models import PlanResult, PlanRun, Workload
from sizing.ranking import rank_key
from sizing.summary import FABRIC as FABRIC_LABELS


def workload_list(*, owner: Any) -> QuerySet[Workload]:
    return Workload.objects.filter(owner=owner).order_by("-created_at", "-id")


def run_list(*, owner: Any) -> QuerySet[PlanRun]:
    return PlanRun.objects.filter(owner=owner).select_related("workload").order_by("-created_at", "-id")


def run_get(*, owner: Any, run_id: int) -> PlanRun:
    """The run if it is the owner's (Http404 otherwise)."""
    return get_object_or_404(PlanRun.objects.select_related("workload"), pk=run_id, owner=owner)


def run_results(
    *,
    run: PlanRun,
    objective: str | None = None,
    feasible_only: bool = False,
    complete_only: bool = False,
    within_budget: bool = False,
    gpu: str = "",
    fabric: str = "",
) -> list[PlanResult]:
    """The run's results ranked by `objective` (default: the run's), filtered; re-ranks the stored results,
    never re-runs. `within_budget` keeps the bills at or under the workload's budget (all, if it has none)."""
    qs = run.results.select_related("offering", "offering__provider", "offering__gpu")
    if feasible_only:
        qs = qs.filter(feasible=True)
    if complete_only:
        qs = qs.filter(cost_complete=True)
    if gpu:
        qs = qs.filter(offering__gpu__key=gpu)
    if fabric:
        qs = qs.filter(offering__fabric=fabric)
    wl = run.workload
    if within_budget and wl.budget_usd is not None:
        qs = qs.filter(cost_total_usd__lte=wl.budget_usd)
    results = list(qs)
    objective = objective or run.objective
    results.sort(
        key=lambda r: rank_key(r, objective, deadline_days=wl.deadline_days, budget_usd=wl.budget_usd)
    )
    return results


def run_filter_choices(*, run: PlanRun) -> dict[str, list[tuple[str, str]]]:
    """The GPUs and fabrics of the run's offerings, for the filters of the run page."""
    rows = run.results.values_list("offering__gpu__key", "offering__gpu__name", "offering__fabric").distinct()
    gpus = sorted({(key, name or key) for key, name, _ in rows if key}, key=lambda c: c[1])
    fabrics = sorted({(fabric, FABRIC_LABELS.get(fabric, fabric)) for _, _, fabric in rows if fabric})
    return {"gpu": gpus, "fabric": fabrics}


def result_get(*, run: PlanRun, offering_slug: str) -> PlanResult:
    return get_object_or_404(
        PlanResult.objects.select_related("offering", "offering__provider"),
        run=run,
        offering__slug=offering_slug,
    )
