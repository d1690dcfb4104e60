"""The shared "catalog run" of each workload preset, so that every buyer's compare page reuses one sizing.

A preset names the same workload for everybody (DESIGN section 2), so its results over the catalog are
computed once, owned by the system user, and read by every compare page that names the preset. The
mapping lives here rather than as a field on sizing's models: the planner does not need to know about it.
"""

from __future__ import annotations

from django.db import models

from sizing.models import PlanRun


class PresetRun(models.Model):
    """The current catalog-wide sizing run of one preset (replaced when the catalog outgrows it)."""

    preset = models.CharField(max_length=40, unique=True)
    run = models.ForeignKey(PlanRun, on_delete=models.CASCADE, related_name="+")
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["preset"]
        constraints = [
            models.CheckConstraint(condition=~models.Q(preset=""), name="presetrun_preset_not_empty")
        ]

    def __str__(self) -> str:
        return f"{self.preset} -> run {self.run_id}"
