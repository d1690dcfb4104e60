"""Answers a buyer can act on: the new result fields, samples left out unless asked for, a fixed GPU count,
the default deadline, bills ranked on their central estimate and errors in words (API and pages)."""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Any

import pytest
from django.core.exceptions import ValidationError
from django.template.defaultfilters import floatformat
from rest_framework.test import APIClient

from hardware.numbers import about_days_text
from sizing import services
from sizing.models import PlanResult, PlanRun
from tests.providers.factories import OfferingFactory, PlanFactory, UserFactory

pytestmark = pytest.mark.django_db

ALL_FEES = {
    "storage_price_usd_per_gb_month": Decimal("0.07"),
    "storage_included_gb": 0.0,
    "egress_price_usd_per_gb": Decimal("0"),
    "traffic_price_usd_per_gb": Decimal("0"),
    "support_fee_usd_per_month": Decimal("0"),
    "setup_fee_usd": Decimal("0"),
    "usable_gpu_guarantee_pct": 100.0,
}


def offering(slug: str, price: str = "2.50", **kw: Any) -> Any:
    o = OfferingFactory(slug=slug, **{"max_nodes": 16, **ALL_FEES, **kw})
    PlanFactory(offering=o, price_usd_per_gpu_hour=Decimal(price))
    return o


def run_all(capture: Any, **kw: Any) -> PlanRun:
    with capture(execute=True):
        run = services.plan_run_create(**kw)
    run.refresh_from_db()
    return run


def by_slug(run: PlanRun) -> dict[str, PlanResult]:
    return {r.offering.slug: r for r in run.results.select_related("offering")}


def test_a_workload_without_a_deadline_gets_the_stated_default() -> None:
    user: Any = UserFactory()
    wl = services.workload_create(owner=user, preset="13b")
    assert wl.deadline_days == services.DEFAULT_DEADLINE_DAYS == 90 and wl.deadline_default
    given = services.workload_create(owner=user, preset="13b", deadline_days=30)
    assert given.deadline_days == 30 and not given.deadline_default
    api = APIClient()
    api.force_authenticate(user)
    body = api.post("/api/v1/workloads/", {"preset": "13b", "deadline_days": None}, format="json").json()
    assert body["deadline_days"] == 90 and body["deadline_default"] is True
    resp = api.post("/api/v1/workloads/", {"preset": "13b", "deadline_days": 10**6}, format="json")
    assert resp.status_code == 400 and "deadline_days" in str(resp.json())


def test_samples_are_left_out_unless_asked_for_and_labelled_when_in(
    django_capture_on_commit_callbacks: Any,
) -> None:
    user: Any = UserFactory()
    offering("real")
    offering("sample", fictional=True)
    wl = services.workload_create(owner=user, preset="13b")
    run = run_all(django_capture_on_commit_callbacks, owner=user, workload=wl)
    assert set(by_slug(run)) == {"real"} and not run.include_samples
    with pytest.raises(ValidationError) as exc:
        services.plan_run_create(owner=user, workload=wl, offering_slugs=["sample"])
    assert "include_samples" in exc.value.message_dict["offerings"][0]
    run = run_all(django_capture_on_commit_callbacks, owner=user, workload=wl, include_samples=True)
    results = by_slug(run)
    assert set(results) == {"real", "sample"}
    assert results["sample"].sample and not results["real"].sample


def test_hidden_fees_cannot_win_on_fees_they_do_not_publish(django_capture_on_commit_callbacks: Any) -> None:
    """A slightly cheaper GPU-hour that publishes no support or setup fee ranks below a complete bill:
    its low estimate is lower, its central estimate is not."""
    user: Any = UserFactory()
    offering("complete", price="2.50")
    offering("hides", price="2.45", support_fee_usd_per_month=None, setup_fee_usd=None)
    wl = services.workload_create(owner=user, preset="13b", train_tokens=100e9)
    run = run_all(django_capture_on_commit_callbacks, owner=user, workload=wl)
    results = by_slug(run)
    hides, complete = results["hides"], results["complete"]
    assert hides.cost_low_usd is not None and complete.cost_low_usd is not None
    assert hides.cost_low_usd < complete.cost_low_usd
    assert hides.cost_low_usd < hides.cost_total_usd < hides.cost_high_usd  # type: ignore[operator]
    assert complete.cost_low_usd == complete.cost_total_usd == complete.cost_high_usd
    assert (complete.rank, hides.rank) == (1, 2)
    assert {f["item"] for f in hides.bill["unknown_fees"]} == {"support", "setup"}


def test_a_fixed_gpu_count_sizes_every_offering_at_it_or_says_why_not(
    django_capture_on_commit_callbacks: Any,
) -> None:
    user: Any = UserFactory()
    offering("big")
    offering("small", max_nodes=2)
    wl = services.workload_create(owner=user, preset="13b", train_tokens=100e9)
    run = run_all(django_capture_on_commit_callbacks, owner=user, workload=wl, gpus=32)
    results = by_slug(run)
    assert run.gpus == 32
    big = results["big"]
    assert big.feasible and big.gpus == 32 and big.infeasible_reason is None, big.infeasible_reason
    small = results["small"]
    assert not small.feasible and small.infeasible_reason
    assert "nodes" in small.infeasible_reason and "Traceback" not in small.infeasible_reason
    for bad in (0, services.MAX_RUN_GPUS + 1):
        with pytest.raises(ValidationError) as exc:
            services.plan_run_create(owner=user, workload=wl, gpus=bad)
        assert "131,072" in exc.value.message_dict["gpus"][0]


def test_a_count_no_layout_can_use_is_an_answer_in_words(django_capture_on_commit_callbacks: Any) -> None:
    user: Any = UserFactory()
    offering("o")
    wl = services.workload_create(owner=user, preset="13b")
    run = run_all(django_capture_on_commit_callbacks, owner=user, workload=wl, gpus=7)
    result = run.results.get()
    assert not result.feasible and result.infeasible_reason
    assert "offering.gpu" not in result.infeasible_reason and "InputError" not in result.infeasible_reason


def test_an_engine_error_becomes_words_never_exception_text(
    client: Any, django_capture_on_commit_callbacks: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    user: Any = UserFactory()
    offering("o")
    wl = services.workload_create(owner=user, preset="13b")

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise ZeroDivisionError("float division by zero in secret_module")

    monkeypatch.setattr(services, "search", broken)
    run = run_all(django_capture_on_commit_callbacks, owner=user, workload=wl)
    result = run.results.get()
    assert run.status == "done" and not result.feasible
    assert result.infeasible_reason and "internal error" in result.infeasible_reason
    client.force_login(user)
    for url in (f"/plan/{run.pk}/", f"/plan/{run.pk}/o/"):
        page = client.get(url).content.decode()
        assert "secret_module" not in page and "ZeroDivisionError" not in page
        assert "internal error" in page


def test_assumptions_and_what_the_pessimistic_values_would_do(
    client: Any, django_capture_on_commit_callbacks: Any
) -> None:
    user: Any = UserFactory()
    offering("published", auto_bad_node_detection=True, auto_replacement=True, auto_checkpoint_restart=True)
    offering("silent", nics_per_node=None, gbps_per_nic=None)
    wl = services.workload_create(owner=user, preset="30b", train_tokens=300e9)
    run = run_all(django_capture_on_commit_callbacks, owner=user, workload=wl, gpus=64)
    silent = by_slug(run)["silent"]
    facts = {a["fact"] for a in silent.assumptions}
    assert {"nics_per_node", "gbps_per_nic"} <= facts
    assert all(set(a) == {"fact", "assumed", "basis"} and a["basis"] for a in silent.assumptions)
    pess = silent.pessimistic
    assert pess is not None and pess["facts"]["nics_per_node"] < 8
    assert silent.train_days is not None and pess["train_days"] > silent.train_days
    assert Decimal(pess["cost_total_usd"]) > silent.cost_total_usd  # type: ignore[operator]
    client.force_login(user)
    page = client.get(f"/plan/{run.pk}/silent/").content.decode()
    assert 'id="assumptions"' in page and "GPU-fabric NICs per node" in page
    assert 'id="pessimistic"' in page
    # the band measured on published runs, applied to this answer's days
    band = silent.sizing["accuracy"]
    assert band["train_days_low"] < silent.train_days < band["train_days_high"]
    accuracy = re.search(r'<p id="accuracy" class="note">(.*?)</p>', page, re.S)
    assert accuracy and "published dense training runs" in accuracy.group(1)
    assert f"{band['time_ratio_low']:.2f} to {band['time_ratio_high']:.2f} times" in accuracy.group(1)
    # the run's ranking shows the same band under each feasible answer's days, and names the fabric
    ranking = client.get(f"/plan/{run.pk}/").content.decode()
    days = re.findall(r'<span class="note range days-band">([\d.,]+)–([\d.,]+)</span>', ranking)
    # written as the result page's sentence writes them ("about 27 to 33 days")
    assert (about_days_text(band["train_days_low"]), about_days_text(band["train_days_high"])) in days
    low, high = about_days_text(band["train_days_low"]), about_days_text(band["train_days_high"])
    assert f"about {low} to {high} days" in accuracy.group(1)
    assert 'id="days-band-note"' in ranking and "8 in 10 published runs" in ranking
    assert " · InfiniBand " in ranking and " · infiniband " not in ranking
    # a deadline the central days meet but the top of the range passes is said beside the range; one the
    # whole range meets is not
    assert "deadline-risk" not in ranking or wl.deadline_days < band["train_days_high"]
    wl.deadline_days = (silent.train_days + band["train_days_high"]) / 2
    wl.save()
    tight = client.get(f"/plan/{run.pk}/").content.decode()
    risk = f"the range passes the {floatformat(wl.deadline_days, -1)}-day deadline"
    assert risk in tight and "may pass the deadline" in tight
    wl.deadline_days = band["train_days_high"] * 2
    wl.save()
    roomy = client.get(f"/plan/{run.pk}/").content.decode()
    assert "the range passes the" not in roomy


def test_the_api_carries_the_new_fields_and_bounds_its_inputs(
    django_capture_on_commit_callbacks: Any,
) -> None:
    user: Any = UserFactory()
    offering("real", support_fee_usd_per_month=None)
    offering("sample", fictional=True)
    api = APIClient()
    api.force_authenticate(user)
    wl_id = api.post("/api/v1/workloads/", {"preset": "13b"}, format="json").json()["id"]
    for bad in ({"gpus": 0}, {"gpus": 10**7}, {"gpus": "many"}, {"include_samples": "perhaps"}):
        resp = api.post("/api/v1/runs/", {"workload": wl_id, **bad}, format="json")
        assert resp.status_code == 400 and next(iter(bad)) in str(resp.json()), resp.json()
    with django_capture_on_commit_callbacks(execute=True):
        resp = api.post(
            "/api/v1/runs/", {"workload": wl_id, "gpus": 16, "include_samples": True}, format="json"
        )
    assert resp.status_code == 201, resp.json()
    body = api.get(f"/api/v1/runs/{resp.json()['id']}/").json()
    assert body["gpus"] == 16 and body["include_samples"] is True
    results = {r["offering"]: r for r in body["results"]}
    assert set(results) == {"real", "sample"}
    for r in results.values():
        assert set(r) >= {
            "rank",
            "sample",
            "assumptions",
            "cost_low_usd",
            "cost_high_usd",
            "infeasible_reason",
        }
        assert r["gpus"] == 16
    assert results["sample"]["sample"] is True and results["real"]["sample"] is False
    real = results["real"]
    assert not real["cost_complete"]
    # how far the model has been from published runs, applied to this answer (tools read the numbers)
    band = real["accuracy"]
    assert band["kind"] == "dense" and band["published_runs"] > 50
    assert band["train_days_low"] < real["train_days"] < band["train_days_high"]
    assert Decimal(real["cost_low_usd"]) < Decimal(real["cost_total_usd"]) < Decimal(real["cost_high_usd"])


def test_pages_show_the_range_the_unknown_fees_the_samples_and_the_inputs(
    client: Any, django_capture_on_commit_callbacks: Any
) -> None:
    user: Any = UserFactory()
    offering("real", setup_fee_usd=None)
    offering("sample", fictional=True)
    client.force_login(user)
    form = client.get("/plan/").content.decode()
    assert 'name="gpus"' in form and 'name="include_samples"' in form
    assert 'name="deadline_days"' in form and 'value="90' in form
    with django_capture_on_commit_callbacks(execute=True):
        resp = client.post(
            "/plan/", {"preset": "13b", "objective": "cheapest", "gpus": "16", "include_samples": "on"}
        )
    assert resp.status_code == 302, resp.content.decode()[:2000]
    run = PlanRun.objects.get(owner=user)
    assert run.gpus == 16 and run.include_samples
    page = client.get(f"/plan/{run.pk}/").content.decode()
    assert (
        "fictional sample" in page and "exactly 16 GPUs" in page and "deadline 90 days (the default" in page
    )
    result = client.get(f"/plan/{run.pk}/real/").content.decode()
    assert 'id="unknown-fees"' in result and "Setup fee" in result and "High estimate" in result
    assert "Failure and restart overhead" in result and "failure_overhead" not in result
    for page_text in (page, result):
        assert "cal §" not in page_text and "DESIGN" not in page_text
    # Pitfalls read as the findings' titles, never as rule codes.
    codes = {code for r in run.results.all() for code in r.findings}
    assert codes
    for code in codes:
        assert f">{code}<" not in page and f">{code}<" not in result


def test_an_amd_nodes_assumed_mesh_is_named_by_its_link(
    client: Any, django_capture_on_commit_callbacks: Any
) -> None:
    """An MI300X offering that does not publish its intra-node interconnect is assumed a direct mesh: the
    answer, its page and its pessimistic case call it Infinity Fabric, never NVLink."""
    from tests.providers.factories import GPUModelFactory

    user: Any = UserFactory()
    mi300x = GPUModelFactory(
        key="MI300X-192GB", name="AMD Instinct MI300X", vendor="AMD", bf16_tflops=1307.4, hbm_gb=192.0
    )
    offering("amd", gpu=mi300x, intra_node=None)
    wl = services.workload_create(owner=user, preset="30b", train_tokens=300e9)
    run = run_all(django_capture_on_commit_callbacks, owner=user, workload=wl, gpus=64)
    amd = by_slug(run)["amd"]
    assert "intra_node" in {a["fact"] for a in amd.assumptions}
    sentences = " ".join(amd.sizing["assumptions"])
    assert "full-mesh (Infinity Fabric) assumed" in sentences and "full-mesh (NVLink)" not in sentences
    client.force_login(user)
    page = client.get(f"/plan/{run.pk}/amd/").content.decode()
    assert "full-mesh (Infinity Fabric)" in page and "full-mesh (NVLink)" not in page
