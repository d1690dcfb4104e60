"""The compare and overview pages: what they show, what they refuse, and how they reuse stored sizing."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from compare import sized
from compare.models import PresetRun
from providers.services import offering_update
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
    # the claims name the fabric and the interconnect as the offering page does, never by code
    hovers = json.dumps(figs["fig-interconnect"]["data"])
    assert "(InfiniBand)" in hovers and "(RoCE)" in hovers and "(TCP Ethernet (no RDMA))" in hovers
    assert "(full-mesh (NVSwitch))" in hovers
    assert not any(f"({code})" in hovers for code in ("infiniband", "roce", "ethernet", "nvswitch"))
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


def test_a_get_never_creates_a_run_and_reuses_cached_sizing(
    client: Any, catalog: list[Any], django_capture_on_commit_callbacks: Any, monkeypatch: Any
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        first = client.get("/compare/?offerings=good-ib,cheap-eth&workload=13b&gpus=64")
    assert first.status_code == 200
    assert PlanRun.objects.count() == 0 and PresetRun.objects.count() == 0
    assert {"fig-cost", "fig-cost-per-token", "fig-cost-time", "fig-goodput"} <= set(
        figures(first.content.decode())
    )
    calls: list[int] = []
    real = sized.size_at

    def counting(**kwargs: Any) -> Any:
        calls.append(kwargs["gpus"])
        return real(**kwargs)

    monkeypatch.setattr(sized, "size_at", counting)
    again = client.get("/compare/?offerings=good-ib,cheap-eth&workload=13b&gpus=64")
    assert again.status_code == 200 and calls == []  # cached under the catalog version
    rep = UserFactory(username="rep-good", role="provider", provider=catalog[0].provider)
    with django_capture_on_commit_callbacks(execute=True):
        offering_update(user=rep, offering=catalog[0], facts={"gbps_per_nic": 200})
    client.get("/compare/?offerings=good-ib,cheap-eth&workload=13b&gpus=64")
    assert calls == [64, 64]  # an offering edit bumps the catalog version: sized again
    assert PlanRun.objects.count() == 0


def test_every_offering_is_sized_at_the_picked_gpu_count(client: Any, catalog: list[Any]) -> None:
    response = client.get("/compare/?offerings=good-ib,roce-mid,plain-a&workload=llama3-70b&gpus=128")
    assert response.status_code == 200
    content = response.content.decode()
    assert "Every offering is sized at the same 128 GPUs" in content
    table = content.split('id="table-cost-time"')[1].split("</table>")[0]
    assert table.count("<tr>") == 4  # header + 3 offerings
    hovers = json.dumps(figures(content)["fig-cost-time"]["data"])
    assert "128 GPUs" in hovers and "256 GPUs" not in hovers
    unpinned = client.get("/compare/?offerings=good-ib,roce-mid&workload=llama3-70b")
    assert unpinned.context["gpus"] >= 8  # a suggested count, shown in the form
    assert f'value="{unpinned.context["gpus"]}"' in unpinned.content.decode()


@pytest.mark.parametrize("value", ["0", "-8", "abc", "999999999", "1.5"])
def test_a_bad_gpu_count_is_a_400_naming_gpus(client: Any, catalog: list[Any], value: str) -> None:
    response = client.get(f"/compare/?offerings=good-ib,cheap-eth&workload=13b&gpus={value}")
    assert response.status_code == 400
    error = response.context["errors"][0]
    assert error["param"] == "gpus" and "from 1 to 131,072" in error["message"]


def test_a_bad_parameter_is_named_by_its_label_in_the_pages_language(client: Any, catalog: list[Any]) -> None:
    response = client.get(
        "/compare/?offerings=good-ib,cheap-eth&workload=13b&gpus=-5", HTTP_ACCEPT_LANGUAGE="zh-hans"
    )
    assert response.status_code == 400
    errors = response.content.decode().split('id="compare-errors"')[1].split("</div>")[0]
    assert "GPU 数量：GPU 数应为 1 至 131,072 之间的整数" in errors  # a full-width colon in Chinese
    assert "<code>" not in errors and "gpus" not in errors and "whole number" not in errors


@pytest.mark.parametrize(("language", "label"), [("en", "Workload: "), ("zh-hans", "工作负载：")])
def test_a_parameters_label_is_followed_by_the_colon_of_the_pages_language(
    client: Any, catalog: list[Any], language: str, label: str
) -> None:
    client.cookies["django_language"] = language
    response = client.get("/compare/?offerings=good-ib,cheap-eth&workload=nope")
    assert response.status_code == 400
    errors = response.content.decode().split('id="compare-errors"')[1].split("</div>")[0]
    assert label in errors and "工作负载:" not in errors


@pytest.mark.parametrize(
    ("language", "quoted"), [("en", "unknown workload “no&#x27;pe”"), ("zh-hans", "未知工作负载“no&#x27;pe”")]
)
def test_an_unknown_workload_is_quoted_as_typed_not_as_python_writes_it(
    client: Any, catalog: list[Any], language: str, quoted: str
) -> None:
    client.cookies["django_language"] = language
    response = client.get("/compare/", {"offerings": "good-ib,cheap-eth", "workload": "no'pe"})
    assert response.status_code == 400
    errors = response.content.decode().split('id="compare-errors"')[1].split("</div>")[0]
    assert quoted in errors and "&quot;no" not in errors and "&#x27;no" not in errors


def test_an_unpriced_offering_shows_no_price_never_a_bar(client: Any, catalog: list[Any]) -> None:
    unpriced = helpers.offering(slug="no-price", name="Unpriced cluster")
    unpriced.plans.update(price_usd_per_gpu_hour=None)
    response = client.get("/compare/?offerings=good-ib,no-price&workload=llama3-70b&gpus=64")
    figs = figures(response.content.decode())
    label = "Unpriced cluster"
    per_token = figs["fig-cost-per-token"]["data"]
    bar, words = per_token[0], per_token[1]
    at = [i for i, y in enumerate(bar["y"]) if label in y.replace("<br>", " ")][0]
    assert bar["x"][at] is None  # no bar at all, never a zero "cheapest" one
    assert any("no price" in t for t in words["text"])
    for trace in figs["fig-cost"]["data"]:
        if trace["type"] == "bar":
            assert not any(label in y.replace("<br>", " ") for y in trace["y"])
    notes = {t["name"]: t for t in figs["fig-cost"]["data"]}["incomplete / infeasible / no price"]
    assert any("no price" in t for t in notes["text"])
    assert "no price" in response.content.decode().split('id="table-cost"')[1].split("</table>")[0]


def test_full_names_are_never_truncated(client: Any, catalog: list[Any]) -> None:
    long_name = "Eight-way H100 SXM5 cluster with 3.2 Tb/s InfiniBand and a very long marketing name"
    helpers.offering(slug="long-name", name=long_name)
    response = client.get("/compare/?offerings=good-ib,long-name&workload=llama3-70b&gpus=64")
    for fig in figures(response.content.decode()).values():
        text = json.dumps(fig)
        assert "…" not in text
    ys = figures(response.content.decode())["fig-cost-per-token"]["data"][0]["y"]
    assert any(y.replace("<br>", " ").endswith(long_name) for y in ys)


def test_samples_are_left_out_unless_asked_for_and_labelled(client: Any, catalog: list[Any]) -> None:
    helpers.offering(slug="trap-sample", name="Trap sample", fictional=True)
    base = "/compare/?offerings=good-ib,cheap-eth,trap-sample&workload=llama3-70b&gpus=64"
    without = client.get(base)
    assert [o.slug for o in without.context["offerings"]] == ["good-ib", "cheap-eth"]
    assert "Left out: " in without.content.decode()
    assert "fictional sample (teaching material, not a real offering)" in without.content.decode()
    client.cookies["django_language"] = "zh-hans"
    left_out_zh = client.get(base).content.decode()
    note = left_out_zh[left_out_zh.find('id="samples-left-out"') :][:600]
    assert "teaching material" not in note and "Tick" not in note, note
    client.cookies["django_language"] = "en"
    included = client.get(base + "&include_samples=1")
    assert [o.slug for o in included.context["offerings"]] == ["good-ib", "cheap-eth", "trap-sample"]
    content = included.content.decode()
    assert "fictional sample" in content
    ys = figures(content)["fig-cost-per-token"]["data"][0]["y"]
    assert any("(fictional sample)" in y for y in ys)
    picker = client.get("/compare/?q=").content.decode()
    assert 'value="trap-sample"' not in client.get("/compare/").content.decode()
    assert "fictional samples are hidden" in picker


def test_a_users_workload_is_compared_without_a_run(client: Any, catalog: list[Any]) -> None:
    user = UserFactory()
    workload = Workload.objects.create(owner=user, name="my 70b", params=70e9, deadline_days=30)
    client.force_login(user)
    response = client.get(f"/compare/?offerings=good-ib,cheap-eth&workload={workload.pk}&gpus=256")
    assert response.status_code == 200
    assert "fig-cost-time" in figures(response.content.decode())
    assert not PlanRun.objects.filter(workload=workload).exists()
    assert "90-day deadline" not in response.content.decode()  # it names its own


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
    assert _count(client, "/") == 0  # the overview of this catalog version is cached
    _grow_catalog(110, start=10)
    sized.catalog_version_bump()  # what an import or an edit does through the catalog's signals
    assert _count(client, "/") == small
    sized.catalog_version_bump()
    with django_assert_max_num_queries(4):
        client.get("/")


def test_an_offering_edit_refreshes_the_cached_overview(
    client: Any, catalog: list[Any], django_capture_on_commit_callbacks: Any
) -> None:
    before = client.get("/").context["offering_count"]
    rep = UserFactory(username="rep-fict", role="provider", provider=catalog[0].provider)
    with django_capture_on_commit_callbacks(execute=True):
        offering_update(user=rep, offering=catalog[0], facts={"gbps_per_nic": 100})
    helpers.offering(slug="late", name="Late addition")
    sized.catalog_version_bump()
    assert client.get("/").context["offering_count"] == before + 1


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
    sized.catalog_version_bump()  # a new catalog version: nothing cached
    few_queries = _count(client, f"/compare/?offerings={few}&workload=llama3-70b")
    sized.catalog_version_bump()
    assert few_queries == _count(client, f"/compare/?offerings={twelve}&workload=llama3-70b")
    sized.catalog_version_bump()
    few_queries = _count(client, f"/compare/?offerings={few}")
    sized.catalog_version_bump()
    assert few_queries == _count(client, f"/compare/?offerings={twelve}")
    cached = _count(client, f"/compare/?offerings={twelve}")
    assert cached < few_queries  # the same comparison again reads its panels from the cache


def test_an_incomplete_bill_is_compared_at_its_central_estimate_as_the_planner_ranks_it(
    catalog: list[Any],
) -> None:
    """The compare page's total of a bill missing a fee is the planner's (unknown fees at the middle of
    their typical range), inside its range; the published lines alone are only the low end."""
    from sizing import bill as bill_module
    from sizing.services import preset_fields

    workload = Workload(name="llama3-70b", preset="llama3-70b", **preset_fields("llama3-70b"))
    offerings = [o for o in catalog if o.slug in ("plain-a", "good-ib")]
    results = sized.compared_results(offerings=offerings, workload=workload, gpus=64)
    incomplete = [r for r in results.values() if r.feasible and not r.cost_complete]
    assert incomplete, [(r.feasible, r.cost_complete, r.reason) for r in results.values()]
    for r in incomplete:
        full = r.bill
        assert r.cost_total_usd == pytest.approx(float(bill_module.central_or_total(full)))
        assert r.cost_low_usd < r.cost_total_usd < r.cost_high_usd
        assert r.cost_low_usd == pytest.approx(float(full["total_usd"]))


def test_cost_per_token_follows_the_total_the_comparison_shows(catalog: list[Any]) -> None:
    """An incomplete bill with a known range is compared at its central estimate; its cost per billion
    tokens is that estimate over the tokens, marked as one, not the published lines' lower bound beside it."""
    from compare.charts import cost, cost_per_token
    from compare.charts.common import per_billion_tokens, usd
    from sizing.services import preset_fields

    workload = Workload(name="llama3-70b", preset="llama3-70b", **preset_fields("llama3-70b"))
    offerings = [o for o in catalog if o.slug in ("plain-a", "good-ib")]
    results = sized.compared_results(offerings=offerings, workload=workload, gpus=64)
    by_pk = {o.pk: results[o.pk] for o in offerings}
    incomplete = [
        (o, r) for o, r in zip(offerings, by_pk.values(), strict=True) if r.feasible and not r.cost_complete
    ]
    assert incomplete
    for o, r in incomplete:
        published = float(r.bill["usd_per_billion_tokens"])
        expected = published * r.cost_total_usd / float(r.bill["total_usd"])
        assert per_billion_tokens(r) == pytest.approx(expected, rel=1e-6)
        assert per_billion_tokens(r) > published  # the unknown fees at the middle of their range
        panel = cost_per_token.cost_per_token_panel(offerings, by_pk, "Llama 3 70B")
        row = next(row for row in panel["table"]["rows"] if o.name in str(row))
        assert "incomplete: estimate" in str(row) and "lower bound" not in str(row)
        money = panel["figure"]["data"][0]["x"][offerings.index(o)]
        assert money == pytest.approx(expected, rel=1e-6)
        # the words beside the bar say it is an estimate, as the table does
        beside = panel["figure"]["data"][0]["text"][offerings.index(o)]
        assert beside == f"about {usd(expected)} (estimate)", beside
        bill_panel = cost.cost_panel(offerings, by_pk, "Llama 3 70B")
        bill_row = next(row for row in bill_panel["table"]["rows"] if o.name in str(row))
        assert "about " + usd(expected) in str(bill_row)


def test_presets_are_named_not_coded_in_the_picker_and_the_title(client: Any, catalog: list[Any]) -> None:
    html = client.get(
        "/compare/?offerings=good-ib,cheap-eth&workload=deepseek-v3-671b&gpus=64",
        HTTP_ACCEPT_LANGUAGE="zh-hans",
    ).content.decode()
    title = html.split("<h1>")[1].split("</h1>")[0]
    assert "deepseek-v3-671b" not in title
    assert "预设：Llama 3 70B</option>" in html and "预设：llama3-70b" not in html


@pytest.mark.parametrize("workload", ["nope", "99999"])
@pytest.mark.parametrize(
    ("language", "named"),
    [
        ("en", ["13B dense (Llama 2 13B shape)", "Llama 3 70B", "1T dense (Megatron)"]),
        ("zh-hans", ["13B 稠密模型（Llama 2 13B 结构）、30B 稠密模型", "1T 稠密模型（Megatron）"]),
    ],
)
def test_an_unknown_workload_lists_the_presets_by_their_names(
    client: Any, catalog: list[Any], workload: str, language: str, named: list[str]
) -> None:
    client.cookies["django_language"] = language
    response = client.get(f"/compare/?offerings=good-ib,cheap-eth&workload={workload}")
    assert response.status_code == 400
    message = response.context["errors"][0]["message"]
    for name in named:
        assert name in message, message
    for code in ("13b", "llama3-70b", "dense-1t", "deepseek-v3-671b"):  # a preset's code is not its name
        assert code not in message, message


@pytest.mark.parametrize(
    ("language", "typed"),
    [
        ("en", "Llama 3 70B"),
        ("en", "llama 3 70b"),
        ("zh-hans", "1T 稠密模型（Megatron）"),
        ("en", "1T dense (Megatron)"),
    ],
)
def test_a_preset_named_as_the_error_lists_it_is_taken(
    client: Any, catalog: list[Any], language: str, typed: str
) -> None:
    # the names an unknown workload's message lists are names the page takes back
    client.cookies["django_language"] = language
    response = client.get("/compare/", {"offerings": "good-ib,cheap-eth", "workload": typed, "gpus": 64})
    assert response.status_code == 200, response.context["errors"] if response.context else response
