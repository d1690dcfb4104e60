"""Reads of the planner, owner-scoped (another user's workload or run does not exist for you)."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from django.shortcuts import get_object_or_404

from sizing.models import PlanResult, PlanRun, Workload
from sizing.ranking import rank_key


def workload_list(*, owner: Any) -> QuerySet[Workload]:
    return Workload.objects.filter(owner=owner).order_by("-created_at", "-id")


def run_list(*, owner: Any) -> QuerySet[PlanRun]:
    return PlanRun.objects.filter(owner=owner).select_related("workload").order_by("-created_at", "-id")


def run_get(*, owner: Any, run_id: int) -> PlanRun:
    """The run if it is the owner's (Http404 otherwise)."""
    return get_object_or_404(PlanRun.objects.select_related("workload"), pk=run_id, owner=owner)


def run_results(
    *, run: PlanRun, objective: str | None = None, feasible_only: bool = False
) -> list[PlanResult]:
    """The run's results ranked: by the stored rank, or re-ranked for another objective (no re-run)."""
    qs = run.results.select_related("offering", "offering__provider", "offering__gpu")
    results = list(qs)
    if feasible_only:
        results = [r for r in results if r.feasible]
    objective = objective or run.objective
    wl = run.workload
    results.sort(
        key=lambda r: rank_key(r, objective, deadline_days=wl.deadline_days, budget_usd=wl.budget_usd)
    )
    return results


def result_get(*, run: PlanRun, offering_slug: str) -> PlanResult:
    return get_object_or_404(
        PlanResult.objects.select_related("offering", "offering__provider"),
        run=run,
        offering__slug=offering_slug,
    )
