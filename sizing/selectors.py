"""Reads of the planner, owner-scoped: another buyer's workload or run does not exist for you (404).

Staff (`User.is_curator`) curate everything: they read every workload, run and result, but write only their
own (a write on another's object they can read is a 403, not a 404).
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import PermissionDenied
from django.db.models import Q, QuerySet
from django.http import Http404
from django.shortcuts import get_object_or_404
from django.utils.translation import gettext

from accounts.selectors import is_curator
from checks.models import Finding, context_for_run
from hardware import fabric_name
from sizing.models import PlanResult, PlanRun, Workload
from sizing.ranking import rank_key


def readable_q(*, user: Any) -> Q:
    """The workloads or runs `user` may read: their own; everything for staff; nothing for anonymous."""
    if is_curator(user):
        return Q()
    if user is None or not user.is_authenticated:
        return Q(pk__in=[])
    return Q(owner=user)


def workload_list(*, owner: Any) -> QuerySet[Workload]:
    """The workloads `owner` may read (all of them for staff), newest first."""
    return Workload.objects.filter(readable_q(user=owner)).order_by("-created_at", "-id")


def run_list(*, owner: Any) -> QuerySet[PlanRun]:
    """The runs `owner` may read (all of them for staff), newest first."""
    return (
        PlanRun.objects.filter(readable_q(user=owner))
        .select_related("workload")
        .order_by("-created_at", "-id")
    )


def _check_write(user: Any, obj: Workload | PlanRun, *, for_write: bool) -> None:
    if for_write and obj.owner_id != getattr(user, "pk", None):
        raise PermissionDenied("staff may read another user's plans but not change them")


def workload_get(*, owner: Any, workload_id: int, for_write: bool = False) -> Workload:
    """The workload if `owner` may read it (Http404 otherwise); with `for_write`, PermissionDenied when
    they may read it but it is not theirs (staff)."""
    if not getattr(owner, "is_authenticated", False):
        raise Http404("no such workload")
    workload = get_object_or_404(Workload.objects.filter(readable_q(user=owner)), pk=workload_id)
    _check_write(owner, workload, for_write=for_write)
    return workload


def run_get(*, owner: Any, run_id: int, for_write: bool = False) -> PlanRun:
    """The run if `owner` may read it (their own; any run for staff), Http404 otherwise; with `for_write`,
    PermissionDenied when they may read it but it is not theirs."""
    if not getattr(owner, "is_authenticated", False):
        raise Http404("no such run")
    run = get_object_or_404(
        PlanRun.objects.select_related("workload").filter(readable_q(user=owner)), pk=run_id
    )
    _check_write(owner, run, for_write=for_write)
    return run


def run_result_queryset(*, run: PlanRun) -> QuerySet[PlanResult]:
    """The run's stored results with their offering, provider and GPU joined."""
    return run.results.select_related("offering", "offering__provider", "offering__gpu")


def run_results(
    *, run: PlanRun, objective: str | None = None, results: QuerySet[PlanResult] | None = None
) -> list[PlanResult]:
    """The run's results (or `results`, a filtered part of them) ranked by `objective` (default: the
    run's); re-ranks the stored results, never re-runs."""
    workload = run.workload
    ranked = list(results if results is not None else run_result_queryset(run=run))
    objective = objective or run.objective
    ranked.sort(
        key=lambda r: rank_key(
            r, objective, deadline_days=workload.deadline_days, budget_usd=workload.budget_usd
        )
    )
    return ranked


def run_filter_choices(*, run: PlanRun) -> dict[str, list[tuple[str, str]]]:
    """The GPUs and fabrics of the run's offerings, the choices of the run page's filters."""
    rows = run.results.values_list("offering__gpu__key", "offering__gpu__name", "offering__fabric").distinct()
    gpus = sorted({(key, name or key) for key, name, _ in rows if key}, key=lambda c: c[1])
    fabrics = sorted({(fabric, gettext(fabric_name(fabric))) for _, _, fabric in rows if fabric})
    return {"gpu": gpus, "fabric": fabrics}


def result_get(*, run: PlanRun, offering_slug: str) -> PlanResult:
    return get_object_or_404(
        PlanResult.objects.select_related("offering", "offering__provider"),
        run=run,
        offering__slug=offering_slug,
    )


def attach_pitfalls(*, run: PlanRun, results: list[PlanResult]) -> list[PlanResult]:
    """Each result's pitfalls as the buyer reads them: `result.pitfalls` = [(code, title)], the title of
    the finding stored for this run (the code itself only where none is stored)."""
    titles = {  # in the page's language (Finding.shown_title)
        (finding.offering_id, finding.code): finding.shown_title
        for finding in Finding.objects.filter(context=context_for_run(run.pk)).only(
            "offering_id", "code", "title", "messages"
        )
    }
    for result in results:
        result.pitfalls = [  # type: ignore[attr-defined]
            (code, titles.get((result.offering_id, code), code)) for code in result.findings or []
        ]
    return results
