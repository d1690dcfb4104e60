"""The bounds migrations on a database written before them (the state the security review left): values no
offering can have become "not published", overlong text is cut, absurd workloads go, and the constraints
are then added without an error."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

BEFORE = [("providers", "0002_plan_cycle_days_optional"), ("sizing", "0002_workload_attention")]


@pytest.mark.django_db(transaction=True)
def test_rows_outside_the_bounds_are_cleaned_before_the_constraints() -> None:
    executor = MigrationExecutor(connection)
    latest = executor.loader.graph.leaf_nodes()
    executor.migrate(BEFORE)
    old = executor.loader.project_state(BEFORE).apps
    provider = old.get_model("providers", "Provider").objects.create(slug="old", name="Old", kind="neocloud")
    offering = old.get_model("providers", "Offering").objects.create(
        provider=provider,
        slug="old-h100",
        name="Old H100",
        usable_gpu_guarantee_pct=0,
        gpus_per_node=10_000,
        gbps_per_nic=400,
        fees_note="n" * 5000,
    )
    plan = old.get_model("providers", "BillingPlan").objects.create(
        offering=offering, kind="on-demand", name="free", price_usd_per_gpu_hour=0
    )
    owner = old.get_model("accounts", "User").objects.create(username="old-buyer")
    workloads: Any = old.get_model("sizing", "Workload").objects
    absurd = workloads.create(owner=owner, name="absurd", layers=1_000_000_000, hidden=8, heads=1)
    sane = workloads.create(owner=owner, name="sane", layers=40, hidden=5120, heads=40)

    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(latest)
    new = executor.loader.project_state(latest).apps
    offering = new.get_model("providers", "Offering").objects.get(slug="old-h100")
    assert offering.usable_gpu_guarantee_pct is None and offering.gpus_per_node is None
    assert offering.gbps_per_nic == 400  # a value inside its range is kept
    assert offering.fees_note == "n" * 2000
    assert new.get_model("providers", "BillingPlan").objects.get(pk=plan.pk).price_usd_per_gpu_hour is None
    remaining = set(new.get_model("sizing", "Workload").objects.values_list("pk", flat=True))
    assert sane.pk in remaining and absurd.pk not in remaining
