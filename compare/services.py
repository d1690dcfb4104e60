"""Writes of the compare pages: make sure a sizing run covers the compared offerings for a workload.

The page never sizes in the request: it reads stored PlanResults, and when none cover the offerings it
starts a planner run through sizing.services (on the worker; in-process in the embedded demo) and polls.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.db import transaction

from compare.models import PresetRun
from compare.selectors import WorkloadRef, run_covering
from providers.models import Offering
from sizing import services as sizing_services
from sizing.models import PlanRun, Workload

# Owner of the shared preset workloads and their catalog runs. Inactive with an unusable password: it
# exists only because a run must have an owner, and nobody can log in as it.
CATALOG_USERNAME = "clusterscout-catalog"


def catalog_user() -> Any:
    """The system user that owns the preset catalog runs (created on first use)."""
    user_model = get_user_model()
    user, created = user_model.objects.get_or_create(
        username=CATALOG_USERNAME, defaults={"is_active": False, "role": "buyer"}
    )
    if created:
        user.set_unusable_password()
        user.save(update_fields=["password"])
    return user


def _preset_workload(*, owner: Any, preset: str) -> Workload:
    workload = Workload.objects.filter(owner=owner, preset=preset).order_by("id").first()
    if workload is None:
        workload = sizing_services.workload_create(owner=owner, name=preset, preset=preset)
    return workload


def compare_run_ensure(*, user: Any, ref: WorkloadRef, offerings: list[Offering]) -> PlanRun:
    """A run of the workload covering every offering: a stored one when there is one, else a new one.

    Presets share one catalog-wide run (PresetRun), replaced when the catalog grows past it; a user's
    workload gets a run over exactly the compared offerings. A failed run is replaced, not reused."""
    ids = [o.pk for o in offerings]
    if ref.workload is not None:
        runs = PlanRun.objects.filter(workload=ref.workload, owner=user)
        run = run_covering(runs=runs, offering_ids=ids)
        if run is None:
            run = sizing_services.plan_run_create(
                owner=user, workload=ref.workload, offering_slugs=[o.slug for o in offerings]
            )
            run.refresh_from_db()  # the embedded demo sized it in-process on commit
        return run
    run = _preset_run_ensure(preset=ref.preset, offering_ids=ids)
    if run.status == PlanRun.Status.QUEUED:
        run.refresh_from_db()  # the embedded demo sized it in-process on commit
    return run


def _preset_run_ensure(*, preset: str, offering_ids: list[int]) -> PlanRun:
    ids = offering_ids
    with transaction.atomic():
        owner = catalog_user()
        mapping = PresetRun.objects.select_for_update().filter(preset=preset).first()
        if mapping is not None:
            run = run_covering(runs=PlanRun.objects.filter(pk=mapping.run_id), offering_ids=ids)
            if run is not None:
                return run
        workload = _preset_workload(owner=owner, preset=preset)
        # The whole catalog: every later compare page naming this preset reuses the same results.
        run = sizing_services.plan_run_create(owner=owner, workload=workload, offering_slugs=None)
        if mapping is None:
            PresetRun.objects.create(preset=preset, run=run)
        else:
            mapping.run = run
            mapping.save(update_fields=["run", "updated_at"])
        return run
