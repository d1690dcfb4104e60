"""The bounds clean-up on a database written before them (the state the security review left): values no
offering can have become "not published", overlong text is cut, absurd workloads go, and every row left then
satisfies the check constraints the same migrations add.

The clean-up ran as providers 0003 and sizing 0003; those migrations are now squashed, and the squashed
migrations carry it as RunPython ahead of their constraints. A database in the state before the bounds is
rebuilt here inside the test's transaction (rolled back after it): the check constraints off and the
notes column without its limit."""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from django.db import connection
from django.db.migrations.loader import MigrationLoader
from django.db.models import CheckConstraint

PROVIDERS = importlib.import_module("providers.migrations.0001_squashed_0007_addendum_facts_and_fact_sources")
SIZING = importlib.import_module("sizing.migrations.0001_squashed_0006_planner_answers_ranges_samples_gpus")
BOUNDED = [("providers", "Offering"), ("providers", "BillingPlan"), ("sizing", "Workload")]


@contextmanager
def _before_the_bounds(apps: Any) -> Iterator[None]:
    """SQLite enforces neither varchar lengths nor, with the pragma, check constraints; PostgreSQL drops
    them and widens the notes column in the test's transaction, which the test's end rolls back."""
    if connection.vendor == "sqlite":
        with connection.cursor() as cursor:
            cursor.execute("PRAGMA ignore_check_constraints = ON")
        try:
            yield
        finally:
            with connection.cursor() as cursor:
                cursor.execute("PRAGMA ignore_check_constraints = OFF")
        return
    with connection.schema_editor() as editor:
        for app_label, name in BOUNDED:
            model = apps.get_model(app_label, name)
            for constraint in model._meta.constraints:
                if isinstance(constraint, CheckConstraint):
                    editor.remove_constraint(model, constraint)
        editor.execute("ALTER TABLE providers_offering ALTER COLUMN fees_note TYPE text")
    yield


def _check_constraints_hold(model: Any) -> None:
    for row in model.objects.all():
        for constraint in model._meta.constraints:
            if isinstance(constraint, CheckConstraint):
                constraint.validate(model, row)  # raises ValidationError for a row outside the bounds


@pytest.mark.django_db
def test_rows_outside_the_bounds_are_cleaned_before_the_constraints() -> None:
    apps = MigrationLoader(connection).project_state().apps  # the models as the migrations leave them
    with _before_the_bounds(apps):
        provider = apps.get_model("providers", "Provider").objects.create(
            slug="old", name="Old", kind="neocloud"
        )
        offering = apps.get_model("providers", "Offering").objects.create(
            provider=provider,
            slug="old-h100",
            name="Old H100",
            usable_gpu_guarantee_pct=0,
            gpus_per_node=10_000,
            gbps_per_nic=400,
            fees_note="n" * 5000,
        )
        plan = apps.get_model("providers", "BillingPlan").objects.create(
            offering=offering, kind="on-demand", name="free", price_usd_per_gpu_hour=0
        )
        owner = apps.get_model("accounts", "User").objects.create(username="old-buyer")
        workloads: Any = apps.get_model("sizing", "Workload").objects
        absurd = workloads.create(owner=owner, name="absurd", layers=1_000_000_000, hidden=8, heads=1)
        sane = workloads.create(owner=owner, name="sane", layers=40, hidden=5120, heads=40)

        PROVIDERS.unpublish_values_outside_the_bounds(apps, None)
        SIZING.delete_workloads_outside_the_bounds(apps, None)

    offering = apps.get_model("providers", "Offering").objects.get(slug="old-h100")
    assert offering.usable_gpu_guarantee_pct is None and offering.gpus_per_node is None
    assert offering.gbps_per_nic == 400  # a value inside its range is kept
    assert offering.fees_note == "n" * 2000
    assert apps.get_model("providers", "BillingPlan").objects.get(pk=plan.pk).price_usd_per_gpu_hour is None
    remaining = set(apps.get_model("sizing", "Workload").objects.values_list("pk", flat=True))
    assert sane.pk in remaining and absurd.pk not in remaining
    for app_label, name in BOUNDED:
        _check_constraints_hold(apps.get_model(app_label, name))
