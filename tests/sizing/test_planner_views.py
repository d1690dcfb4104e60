"""The run page's objective switch and filters (re-ranking stored results), findings per run, the admin."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from django.test import Client

from checks.models import Finding
from sizing import services
from sizing.models import PlanResult, PlanRun
from tests.providers.factories import GPUModelFactory, OfferingFactory, PlanFactory, UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def run(django_capture_on_commit_callbacks: Any) -> PlanRun:
    """A done run of 13B over four offerings: three H100 (IB, IB, Ethernet) and one A100, different prices."""
    a100 = GPUModelFactory(key="A100-SXM-80GB", name="NVIDIA A100 SXM4 80GB", bf16_tflops=312.0)
    specs = [
        ("h100-ib-cheap", {}, "2.00"),
        ("h100-ib-dear", {}, "4.00"),
        ("h100-eth", {"fabric": "ethernet", "nics_per_node": 2, "gbps_per_nic": 100.0}, "1.50"),
        ("a100-ib", {"gpu": a100, "gbps_per_nic": 200.0}, "1.20"),
    ]
    for slug, kw, price in specs:
        PlanFactory(
            offering=OfferingFactory(slug=slug, max_nodes=8, **kw), price_usd_per_gpu_hour=Decimal(price)
        )
    user = UserFactory(username="filter-buyer")
    wl = services.workload_create(
        owner=user, preset="13b", train_tokens=50e9, deadline_days=60, budget_usd=Decimal("1")
    )
    with django_capture_on_commit_callbacks(execute=True):
        run = services.plan_run_create(owner=user, workload=wl)
    run.refresh_from_db()
    assert run.status == "done"
    # A budget between the second and third cheapest bills, whatever the model's numbers are today.
    costs = sorted(c for c in run.results.values_list("cost_total_usd", flat=True) if c is not None)
    wl.budget_usd = (costs[1] + costs[2]) / 2
    wl.save(update_fields=["budget_usd"])
    return run


def slugs(resp: Any) -> list[str]:
    return [r.offering.slug for r in resp.context["results"]]


def test_filters_by_gpu_fabric_and_budget_re_rank_without_re_running(
    client: Any, run: PlanRun, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_sizing(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("the run page must not size anything again")

    monkeypatch.setattr(services, "search", no_sizing)
    client.force_login(run.owner)
    url = f"/plan/{run.pk}/"
    everything = client.get(url)
    assert len(slugs(everything)) == 4
    html = everything.content.decode()
    assert 'name="gpu"' in html and "NVIDIA A100 SXM4 80GB" in html and 'name="within_budget"' in html

    h100 = client.get(url, {"gpu": "H100-SXM-80GB"})
    assert sorted(slugs(h100)) == ["h100-eth", "h100-ib-cheap", "h100-ib-dear"]
    ib = client.get(url, {"fabric": "infiniband"})
    assert sorted(slugs(ib)) == ["a100-ib", "h100-ib-cheap", "h100-ib-dear"]
    both = client.get(url, {"gpu": "H100-SXM-80GB", "fabric": "infiniband"})
    assert slugs(both) == ["h100-ib-cheap", "h100-ib-dear"]  # ranked by the run's objective: cheapest first

    budget = run.workload.budget_usd
    assert budget is not None
    within = client.get(url, {"within_budget": "on"})
    kept = {r.offering.slug for r in within.context["results"]}
    costs = {r.offering.slug: r.cost_total_usd for r in run.results.select_related("offering")}
    assert kept == {s for s, c in costs.items() if c is not None and c <= budget}
    assert len(kept) == 2, costs

    fastest = client.get(url, {"objective": "fastest", "within_budget": "on"})
    days = [r.train_days for r in fastest.context["results"]]
    assert len(days) == 2 and days == sorted(days)
    assert "fastest within the budget" in fastest.content.decode()
    # The recommendation is the whole run's winner whatever the filters show.
    ethernet = client.get(url, {"fabric": "infiniband", "gpu": "A100-SXM-80GB"})
    assert slugs(ethernet) == ["a100-ib"]
    assert ethernet.context["winner"].pk == everything.context["winner"].pk
    assert ethernet.context["summary"] == everything.context["summary"]
    assert PlanResult.objects.filter(run=run).count() == 4


def test_a_run_stores_its_findings_per_offering_under_its_own_context(run: PlanRun) -> None:
    context = f"run:{run.pk}"
    for result in run.results.select_related("offering"):
        stored = set(
            Finding.objects.filter(offering=result.offering, context=context).values_list("code", flat=True)
        )
        assert stored == set(result.findings)
    eth = run.results.get(offering__slug="h100-eth")
    assert eth.findings, "plain Ethernet should draw at least one finding"
    assert Finding.objects.filter(context=context).count() == sum(len(r.findings) for r in run.results.all())


def test_the_admin_shows_workloads_runs_with_their_results_and_results_read_only(
    client: Any, run: PlanRun
) -> None:
    admin = UserFactory(username="admin", is_staff=True, is_superuser=True)
    client.force_login(admin)
    result = run.results.order_by("rank").first()
    assert result is not None
    for url in (
        "/admin/sizing/workload/",
        f"/admin/sizing/workload/{run.workload_id}/change/",
        "/admin/sizing/planrun/",
        f"/admin/sizing/planrun/{run.pk}/change/",
        "/admin/sizing/planresult/",
        f"/admin/sizing/planresult/{result.pk}/change/",
    ):
        resp = client.get(url)
        assert resp.status_code == 200, url
    run_page = client.get(f"/admin/sizing/planrun/{run.pk}/change/").content.decode()
    assert result.offering.slug in run_page or result.offering.name in run_page
    assert client.get("/admin/sizing/planresult/add/").status_code == 403
    before = PlanResult.objects.get(pk=result.pk).cost_total_usd
    resp = client.post(f"/admin/sizing/planresult/{result.pk}/change/", {"rank": 99})
    assert resp.status_code == 403
    assert PlanResult.objects.get(pk=result.pk).cost_total_usd == before


def test_an_offering_without_a_gpu_price_shows_no_total_never_zero(
    django_capture_on_commit_callbacks: Any,
) -> None:
    """Its published lines sum to next to nothing: the result page says there is no total, not "$0.00"."""
    OfferingFactory(slug="no-plan", max_nodes=8)
    user = UserFactory(username="no-price-buyer")
    wl = services.workload_create(owner=user, preset="13b", train_tokens=50e9)
    with django_capture_on_commit_callbacks(execute=True):
        run = services.plan_run_create(owner=user, workload=wl)
    client = Client()
    client.force_login(user)
    page = client.get(f"/plan/{run.pk}/no-plan/").content.decode()
    assert 'id="bill-no-total"' in page and "No total: the provider publishes no GPU price" in page
    assert "of the published lines (low estimate)" not in page and "$0.00 per billion tokens" not in page


def test_the_workloads_page_shows_presets_by_name_and_figures_in_words() -> None:
    """It showed "14800000000000.0" tokens, "90.0" days, "256 experts top-8" in English on a Chinese page and
    the preset's code."""
    owner = UserFactory()
    services.workload_create(owner=owner, preset="deepseek-v3-671b")
    services.workload_create(
        owner=owner, params=7e9, layers=None, train_tokens=2e12, budget_usd=Decimal("5000")
    )
    client = Client(HTTP_ACCEPT_LANGUAGE="zh-hans")
    client.force_login(owner)
    html = client.get("/plan/workloads/").content.decode()
    table = html.split("<h2>工作负载</h2>")[1]
    assert "DeepSeek-V3 671B MoE（激活 37B）" in table and "256 个专家，top-8" in table
    assert (
        "14.8T" in table
        and "90 天" in table
        and "自定义" in table
        and "7B 参数" in table
        and "$5,000" in table
    )
    for raw in ("14800000000000.0", "90.0", "experts", "params"):
        assert raw not in table, raw


@pytest.mark.parametrize(
    ("language", "named", "code"),
    [("en", "Rank by: Select a valid choice.", ">objective:"), ("zh-hans", "排序依据：", ">objective:")],
)
def test_a_bad_filter_is_named_by_the_label_the_page_shows_never_its_code(
    client: Any, run: PlanRun, language: str, named: str, code: str
) -> None:
    client.force_login(run.owner)
    client.cookies["django_language"] = language
    page = client.get(f"/plan/{run.pk}/", {"objective": "slowest", "gpu": "TPU-v9"}).content.decode()
    errors = page.split('id="filter-errors">')[1].split("</ul>")[0]
    assert named in errors and code not in errors and ">gpu:" not in errors, errors
    assert errors.count("<li>") == 2
    if language == "zh-hans":
        assert "GPU：" in errors and "Select" not in errors


@pytest.mark.parametrize(
    ("language", "named", "derived"),
    [
        ("en", "sized as 61 × 7168, 256 experts, top-8", "sized as 32 × 4096"),
        ("zh-hans", "按 61 层 × 7168 估算，256 个专家，top-8", "按 32 层 × 4096 估算"),
    ],
)
def test_the_workloads_page_says_which_shape_a_parameter_count_is_sized_as(
    language: str, named: str, derived: str
) -> None:
    """A workload given as a name and a count stores only its count: the page says the shape the sizing
    takes, the published model's when the name and count are one (DeepSeek-V3), else the derived one."""
    owner = UserFactory()
    services.workload_create(owner=owner, name="DeepSeek-V3", params=671e9)
    services.workload_create(owner=owner, name="mine", params=7e9)
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    client.force_login(owner)
    html = client.get("/plan/workloads/").content.decode()
    assert named in html and derived in html, html.split("sized-as")[1:]
    assert html.count('class="note sized-as"') == 2
