"""Django admin of the planner: workloads (held to the engine's checks), runs with their results (read-only)
and single results.

Results are the model's output: the admin shows them and never edits them (a changed result would no longer
be what the model said); a run's status and progress are the worker's, so they are read-only too.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from sizing.forms import WorkloadAdminForm
from sizing.models import PlanResult, PlanRun, Workload

RESULT_FIELDS = (
    "rank",
    "offering",
    "feasible",
    "layout_text",
    "gpus",
    "nodes",
    "train_days",
    "mfu",
    "goodput",
    "cost_total_usd",
    "cost_low_usd",
    "cost_high_usd",
    "cost_complete",
    "plan_name",
    "sample",
    "infeasible_reason",
    "findings",
)

# A run's status and progress: the worker's to write, the columns of the run list.
RUN_PROGRESS_FIELDS = ("status", "progress_done", "progress_total")


@admin.register(Workload)
class WorkloadAdmin(admin.ModelAdmin[Workload]):
    form = WorkloadAdminForm  # the engine's checks, as on the planner's form
    list_display = ("name", "preset", "owner", "params", "layers", "hidden", "train_tokens", "created_at")
    list_filter = ("preset", "precision")
    search_fields = ("name", "preset", "owner__username")
    list_select_related = ("owner",)
    raw_id_fields = ("owner",)
    readonly_fields = ("created_at",)


class PlanResultInline(admin.TabularInline[PlanResult, PlanRun]):
    model = PlanResult
    extra = 0
    can_delete = False
    fields = RESULT_FIELDS
    readonly_fields = RESULT_FIELDS
    ordering = ("rank", "id")
    show_change_link = True

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def get_queryset(self, request: HttpRequest) -> Any:
        return super().get_queryset(request).select_related("offering")


@admin.register(PlanRun)
class PlanRunAdmin(admin.ModelAdmin[PlanRun]):
    list_display = ("id", "workload", "owner", "objective", *RUN_PROGRESS_FIELDS, "created_at")
    list_filter = ("status", "objective")
    search_fields = ("workload__name", "owner__username")
    list_select_related = ("workload", "owner")
    raw_id_fields = ("workload", "owner")
    filter_horizontal = ("offerings",)
    readonly_fields = (
        *RUN_PROGRESS_FIELDS,
        "created_at",
        "updated_at",
        "started_at",
        "finished_at",
        "error",
        "error_message",
    )
    inlines = [PlanResultInline]


@admin.register(PlanResult)
class PlanResultAdmin(admin.ModelAdmin[PlanResult]):
    list_display = (
        "run",
        "rank",
        "offering",
        "feasible",
        "gpus",
        "train_days",
        "cost_total_usd",
        "cost_complete",
    )
    list_filter = ("feasible", "cost_complete")
    search_fields = ("offering__slug", "offering__name")
    list_select_related = ("run", "offering")
    readonly_fields = (*RESULT_FIELDS, "run", "sizing", "bill", "created_at")
    fields = readonly_fields

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        # Viewable (the change page renders read-only) but never saved.
        return request.method in ("GET", "HEAD") and super().has_change_permission(request, obj)
