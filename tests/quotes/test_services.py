"""Issuing quotes: what the snapshot freezes, the two ways to create one, the questions left open."""

from __future__ import annotations

import datetime as dt
import re
from decimal import Decimal
from typing import Any

import pytest
from django.core.exceptions import ValidationError

from providers.models import BillingPlan, Offering
from providers.services import plan_price_change
from quotes import services
from quotes.display import quote_view
from quotes.models import Quote
from sizing import services as sizing_services
from tests.providers.factories import UserFactory

pytestmark = pytest.mark.django_db


def test_a_quote_has_a_readable_unique_number_and_a_validity(quote: Quote) -> None:
    assert re.fullmatch(r"CS-\d{4}-\d{6}", quote.number)
    assert quote.number == f"CS-{quote.issued_on.year}-{quote.pk:06d}"
    assert quote.valid_until - quote.issued_on == dt.timedelta(days=30)
    assert quote.snapshot["number"] == quote.number


def test_the_snapshot_freezes_every_fact_price_and_source(quote: Quote, offering: Offering) -> None:
    snap = quote.snapshot
    facts = offering.facts()
    assert snap["facts"] == {k: v for k, v in facts.items()}  # every fact, None included
    assert snap["offering"]["provider"] == "Acme GPU Cloud"
    groups = {p["group"]: p for p in snap["provenance"]}
    assert groups["fees"]["as_of"] == "2026-11-01"
    assert groups["fees"]["sources"][0]["key"] == "acme-h100-pricing"
    assert groups["fees"]["sources"][0]["url"] == "https://example.com/pricing"
    plans = {p["name"]: p for p in snap["plans"]}
    assert plans["On-demand"]["price_usd_per_gpu_hour"] == "2.4900"
    assert plans["On-demand"]["sources"][0]["key"] == "acme-h100-pricing"
    lines = snap["bill"]["lines"]
    assert {ln["item"] for ln in lines} >= {"compute", "failure_overhead", "checkpoint_storage", "support"}
    assert all(
        set(ln) >= {"item", "quantity", "unit", "unit_price_usd", "usd", "published", "note"} for ln in lines
    )
    assert snap["sizing"]["layout"] and snap["sizing"]["goodput"]["fraction"]
    assert snap["findings"] and all("evidence" in f and "advice" in f for f in snap["findings"])


def test_editing_the_catalog_after_issuing_changes_nothing_in_the_quote(
    quote: Quote, offering: Offering
) -> None:
    before = quote.snapshot
    view_before = quote_view(before)
    curator = UserFactory(username="curator", role="staff", is_staff=True, is_superuser=True)
    for plan in BillingPlan.objects.filter(offering=offering):
        plan_price_change(
            user=curator, plan=plan, price_usd_per_gpu_hour=Decimal("9.99"), as_of=dt.date(2026, 12, 1)
        )
    Offering.objects.filter(pk=offering.pk).update(name="Renamed", gpus_per_node=4, egress_price_usd_per_gb=1)
    quote.refresh_from_db()
    assert quote.snapshot == before
    assert quote_view(quote.snapshot) == view_before


def test_open_questions_list_unpublished_facts_prices_and_unknown_checklist_items(quote: Quote) -> None:
    open_q = quote.snapshot["open_questions"]
    missing = {f["fact"] for f in open_q["facts"]}
    assert {
        "usable_gpu_guarantee_pct",
        "uptime_sla_pct",
        "traffic_price_usd_per_gb",
        "setup_fee_usd",
    } <= missing
    assert "gpus_per_node" not in missing and "max_nodes" not in missing
    assert "gpu_label" not in missing  # a label restating another fact is not a question
    unpublished = {ln["item"] for ln in quote.snapshot["bill"]["lines"] if not ln["published"]}
    assert unpublished and {ln["item"] for ln in open_q["bill_lines"]} == unpublished
    unknown = [a["key"] for a in quote.snapshot["checklist"] if a["status"] == "unknown"]
    assert [c["key"] for c in open_q["checklist"]] == unknown


def test_a_quote_from_a_planner_result_uses_the_runs_sizing(
    buyer: Any, offering: Offering, workload: Any, django_capture_on_commit_callbacks: Any
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        run = sizing_services.plan_run_create(owner=buyer, workload=workload, offering_slugs=[offering.slug])
    result = run.results.get()
    quote = services.quote_create_from_result(owner=buyer, run_id=run.pk, offering_slug=offering.slug)
    assert quote.run == run and quote.snapshot["run"] == run.pk
    assert quote.snapshot["sizing"] == result.sizing
    assert quote.snapshot["bill"]["total_usd"] == result.bill["total_usd"]
    assert quote.plan_name == result.plan_name
    on_demand = services.quote_create_from_result(
        owner=buyer, run_id=run.pk, offering_slug=offering.slug, plan_name="On-demand"
    )
    assert on_demand.snapshot["plan"]["name"] == "On-demand"
    assert on_demand.snapshot["bill"]["lines"][0]["unit_price_usd"] == "2.49"
    assert [p["name"] for p in on_demand.snapshot["bill"]["plans"] if p["chosen"]] == ["On-demand"]
    assert on_demand.number != quote.number


def test_a_quote_for_an_offering_workload_and_plan_is_sized_at_creation(
    buyer: Any, offering: Offering, workload: Any
) -> None:
    quote = services.quote_create_for_offering(
        owner=buyer, offering_slug=offering.slug, workload_id=workload.pk, plan_name="On-demand"
    )
    assert quote.run is None and quote.plan_name == "On-demand"
    assert quote.snapshot["sizing"]["gpus"] and quote.total_usd and quote.total_usd > 0


def test_it_refuses_other_peoples_runs_unknown_plans_and_offerings_that_do_not_fit(
    buyer: Any, offering: Offering, workload: Any
) -> None:
    other = UserFactory(username="other-buyer")
    with pytest.raises(ValidationError) as exc:
        services.quote_create_for_offering(owner=other, offering_slug=offering.slug, workload_id=workload.pk)
    assert "workload" in exc.value.message_dict
    with pytest.raises(ValidationError) as exc:
        services.quote_create_for_offering(
            owner=buyer, offering_slug=offering.slug, workload_id=workload.pk, plan_name="Gold"
        )
    assert "plan" in exc.value.message_dict
    with pytest.raises(ValidationError) as exc:
        services.quote_create_for_offering(owner=buyer, offering_slug="nope", workload_id=workload.pk)
    assert "offering" in exc.value.message_dict
    # A published maximum of one node cannot hold the 13B workload's model states: nothing fits.
    Offering.objects.filter(pk=offering.pk).update(max_nodes=1, gpus_per_node=1)
    with pytest.raises(ValidationError) as exc:
        services.quote_create_for_offering(owner=buyer, offering_slug=offering.slug, workload_id=workload.pk)
    assert "nothing to quote" in str(exc.value)
    with pytest.raises(ValidationError):
        services.quote_create_from_result(owner=buyer, run_id=999999, offering_slug=offering.slug)


def test_the_snapshot_keeps_the_workloads_head_widths_prediction_and_window(
    buyer: Any, offering: Offering
) -> None:
    stated = {"mtp_layers": 1, "sliding_window": 1024, "sliding_window_layers": 0.5, "qk_head_dim": 192}
    workload = sizing_services.workload_create(owner=buyer, preset="13b", **stated)
    quote = services.quote_create_for_offering(
        owner=buyer, offering_slug=offering.slug, workload_id=workload.pk
    )
    frozen = quote.snapshot["workload"]
    assert {k: frozen[k] for k in stated} == stated
    assert frozen["head_dim"] is None and frozen["v_head_dim"] is None  # not stated: kept as such
