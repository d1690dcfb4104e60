"""The compare and overview pages: what they show, what they refuse, and how they reuse stored sizing."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from compare.models import PresetRun
from sizing.models import PlanRun, Workload
from tests.compare import helpers
from tests.providers.factories import UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def catalog() -> list[Any]:
    offerings = helpers.small_catalog()
    helpers.findings_for(offerings)
    helpers.public_upload(offerings[0])
    return offerings


def figures(content: str) -> dict[str, dict]:
    found = re.findall(r'<script id="(fig-[^"]+)" type="application/json">(.*?)</script>', content, re.S)
    return {key: json.loads(body) for key, body in found}


def test_the_overview_shows_catalog_charts_each_with_a_table(client: Any, catalog: list[Any]) -> None:
    response = client.get("/")
    assert response.status_code == 200
    content = response.content.decode()
    figs = figures(content)
    assert set(figs) == {
        "fig-overview-fabric",
        "fig-overview-price",
        "fig-overview-features",
        "fig-overview-findings",
    }
    for key in figs:
        assert f'id="table-{key.removeprefix("fig-")}"' in content
    assert content.count("<caption>") == 4
    assert 'scope="row"' in content and 'scope="col"' in content
    findings = figs["fig-overview-findings"]["data"]
    assert sum(sum(t["x"]) for t in findings) == 9  # 6 hidden-fees + 3 fabric-not-rdma


def test_compare_shows_claims_evidence_and_findings_without_a_workload(
    client: Any, catalog: list[Any]
) -> None:
    response = client.get("/compare/?offerings=good-ib,cheap-eth,roce-mid")
    assert response.status_code == 200
    content = response.content.decode()
    figs = figures(content)
    assert {
        "fig-interconnect",
        "fig-busbw",
        "fig-usable",
        "fig-fault-tolerance",
        "fig-price-history",
        "fig-findings",
    } <= set(figs)
    assert "fig-cost" not in figs
    assert "Choose a workload" in content
    inter = {t["name"]: t for t in figs["fig-interconnect"]["data"]}
    assert inter["inter-node, claimed"]["x"] == [50.0, 3.125, 25.0]  # 8x400/8/8, 2x100/8/8, 8x200/8/8 GB/s
    assert inter["inter-node, measured"]["text"][0].startswith("▲ 87")
    for fig in figs.values():  # units on every axis
        layout = fig["layout"]
        for name, ax in layout.items():
            if name.startswith(("xaxis", "yaxis")) and ax.get("type") != "category" and "title" in ax:
                assert ax["title"]["text"]


def test_compare_accepts_repeated_offerings_params(client: Any, catalog: list[Any]) -> None:
    response = client.get("/compare/?offerings=good-ib&offerings=cheap-eth,roce-mid&offerings=good-ib")
    assert response.status_code == 200
    assert response.context["slugs"] == "good-ib,cheap-eth,roce-mid"
    assert 'href="/compare/?offerings=good-ib,cheap-eth,roce-mid"' in response.content.decode()


@pytest.mark.parametrize(
    ("query", "param", "words"),
    [
        ("offerings=good-ib", "offerings", "at least 2"),
        ("offerings=" + ",".join(f"s{i}" for i in range(13)), "offerings", "at most 12"),
        ("offerings=good-ib,nope-1,nope-2", "offerings", "unknown offerings: nope-1, nope-2"),
        ("offerings=good-ib,%3Cscript%3E", "offerings", "not an offering slug"),
        ("offerings=good-ib,cheap-eth&workload=nope", "workload", "unknown workload"),
        ("offerings=good-ib,cheap-eth&workload=99999", "workload", "no workload 99999"),
        ("workload=13b", "offerings", "at least 2"),
    ],
)
def test_bad_input_is_a_400_naming_the_parameter(
    client: Any, catalog: list[Any], query: str, param: str, words: str
) -> None:
    response = client.get(f"/compare/?{query}")
    assert response.status_code == 400
    errors = response.context["errors"]
    assert errors[0]["param"] == param
    assert words in errors[0]["message"]
    assert "<script>" not in response.content.decode().split("<main>")[1].split("</main>")[0].replace(
        '<script src="', ""
    )


def test_another_users_workload_does_not_exist_for_you(client: Any, catalog: list[Any]) -> None:
    other = Workload.objects.create(owner=UserFactory(), name="secret", params=70e9)
    client.force_login(UserFactory())
    response = client.get(f"/compare/?offerings=good-ib,cheap-eth&workload={other.pk}")
    assert response.status_code == 400
    assert "secret" not in response.content.decode()


def test_the_bare_compare_address_offers_a_picker(client: Any, catalog: list[Any]) -> None:
    response = client.get("/compare/")
    assert response.status_code == 200
    assert 'name="offerings" value="good-ib"' in response.content.decode()


def test_a_preset_is_sized_once_for_the_catalog_and_reused(
    client: Any, catalog: list[Any], django_capture_on_commit_callbacks: Any
) -> None:
    # In a test the on_commit enqueue fires when this block exits (in the demo: as the request commits).
    with django_capture_on_commit_callbacks(execute=True):
        first = client.get("/compare/?offerings=good-ib,cheap-eth&workload=13b")
    assert first.status_code == 200
    mapping = PresetRun.objects.get(preset="13b")
    assert mapping.run.status == "done"
    assert mapping.run.results.count() == len(catalog)  # the whole catalog, for every later page
    response = client.get("/compare/?offerings=good-ib,cheap-eth&workload=13b")
    figs = figures(response.content.decode())
    assert {"fig-cost", "fig-cost-per-token", "fig-cost-time", "fig-goodput"} <= set(figs)
    runs = PlanRun.objects.count()
    with django_capture_on_commit_callbacks(execute=True):
        again = client.get("/compare/?offerings=roce-mid,plain-a,plain-b&workload=13b")
    assert again.status_code == 200
    assert PlanRun.objects.count() == runs
    assert "fig-cost" in figures(again.content.decode())


def test_stored_results_feed_the_cost_charts(client: Any, catalog: list[Any]) -> None:
    helpers.stored_preset_run(catalog)
    response = client.get("/compare/?offerings=good-ib,cheap-eth,roce-mid&workload=llama3-70b")
    figs = figures(response.content.decode())
    stacked = {t["name"]: t for t in figs["fig-cost"]["data"]}
    assert list(stacked)[:8] == [
        "compute",
        "failure overhead",
        "spare nodes",
        "storage",
        "egress",
        "traffic",
        "support",
        "setup",
    ]
    notes = stacked["incomplete / infeasible"]["text"]
    assert any("incomplete: egress not published" in n for n in notes)
    pareto = figs["fig-cost-time"]["data"][0]
    assert pareto["name"].startswith("Pareto front")
    assert len(pareto["x"]) >= 1


def test_a_users_workload_without_results_starts_a_run_and_polls(client: Any, catalog: list[Any]) -> None:
    user = UserFactory()
    workload = Workload.objects.create(owner=user, name="my 70b", params=70e9)
    client.force_login(user)
    # on_commit callbacks are not executed in this test: the run stays queued, as on a busy worker
    response = client.get(f"/compare/?offerings=good-ib,cheap-eth&workload={workload.pk}")
    assert response.status_code == 200
    content = response.content.decode()
    run = PlanRun.objects.get(workload=workload)
    assert "Sizing in progress" in content
    assert f'hx-get="/compare/sizing/{run.pk}/"' in content
    assert sorted(run.offerings.values_list("slug", flat=True)) == ["cheap-eth", "good-ib"]
    client.get(f"/compare/?offerings=good-ib,cheap-eth&workload={workload.pk}")
    assert PlanRun.objects.filter(workload=workload).count() == 1  # the running one is reused
    status = client.get(f"/compare/sizing/{run.pk}/", HTTP_HX_REQUEST="true")
    assert status.status_code == 200 and "HX-Refresh" not in status
    PlanRun.objects.filter(pk=run.pk).update(status="done")
    status = client.get(f"/compare/sizing/{run.pk}/", HTTP_HX_REQUEST="true")
    assert status["HX-Refresh"] == "true"
    client.force_login(UserFactory())
    assert client.get(f"/compare/sizing/{run.pk}/").status_code == 404


def test_html_in_catalog_text_is_escaped_in_tables_and_figures(client: Any, catalog: list[Any]) -> None:
    helpers.stored_preset_run(catalog)
    response = client.get("/compare/?offerings=xss-offering,good-ib&workload=llama3-70b")
    content = response.content.decode()
    assert helpers.XSS_NAME not in content
    assert helpers.XSS_NOTES not in content
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in content
    for fig in figures(content).values():
        text = json.dumps(fig)
        # Plotly renders a subset of HTML: catalog text reaches it as entities, never as tags
        assert "<script" not in text and "<img" not in text
    home = client.get("/").content.decode()
    assert helpers.XSS_NAME not in home and helpers.XSS_NOTES not in home


def test_browse_and_run_pages_link_to_compare(client: Any, catalog: list[Any]) -> None:
    browse = client.get("/offerings/").content.decode()
    assert 'action="/compare/"' in browse
    assert 'name="offerings" value="good-ib"' in browse
    run = helpers.stored_preset_run(catalog)
    user = UserFactory()
    PlanRun.objects.filter(pk=run.pk).update(owner=user)
    Workload.objects.filter(pk=run.workload_id).update(owner=user)
    client.force_login(user)
    page = client.get(f"/plan/{run.pk}/").content.decode()
    match = re.search(r'href="(/compare/\?offerings=[^"]+)"', page)
    assert match, "the run page links to a comparison"
    assert f"workload={run.workload_id}" in match.group(1).replace("&amp;", "&")


# --- bounded queries ---------------------------------------------------------------------------------------


def _count(client: Any, url: str) -> int:
    with CaptureQueriesContext(connection) as ctx:
        response = client.get(url)
    assert response.status_code == 200, response.content[:500]
    return len(ctx.captured_queries)


def _grow_catalog(n: int, start: int = 0) -> list[Any]:
    made = [
        helpers.offering(
            slug=f"bulk-{i}", name=f"Bulk {i}", fabric=["infiniband", "roce", "ethernet", None][i % 4]
        )
        for i in range(start, start + n)
    ]
    helpers.findings_for(made)
    return made


def test_overview_queries_do_not_grow_with_the_catalog(
    client: Any, django_assert_max_num_queries: Any
) -> None:
    _grow_catalog(10)
    small = _count(client, "/")
    _grow_catalog(110, start=10)
    assert _count(client, "/") == small
    with django_assert_max_num_queries(4):
        client.get("/")


def test_compare_queries_are_bounded_with_a_large_catalog_and_stored_results(
    client: Any, django_assert_max_num_queries: Any
) -> None:
    offerings = _grow_catalog(120)
    for o in offerings[:12]:
        helpers.public_upload(o)
    helpers.stored_preset_run(offerings)
    few = ",".join(o.slug for o in offerings[:2])
    twelve = ",".join(o.slug for o in offerings[:12])
    with django_assert_max_num_queries(12):
        response = client.get(f"/compare/?offerings={twelve}&workload=llama3-70b")
    assert "fig-cost" in response.content.decode()
    assert _count(client, f"/compare/?offerings={few}&workload=llama3-70b") == _count(
        client, f"/compare/?offerings={twelve}&workload=llama3-70b"
    )
    assert _count(client, f"/compare/?offerings={few}") == _count(client, f"/compare/?offerings={twelve}")
