"""The run's memo of engine answers (sizing.memo) gives what the engine itself gives, offering by offering:
an answer remembered for one offering and handed to another with the same facts under another name is the
fresh answer for that other offering."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from providers.catalog import catalog_import, read_catalog_file
from providers.models import Offering
from providers.selectors import offering_queryset
from providers.services import gpu_table_sync
from sizing import services
from sizing.engine.api import evaluate
from sizing.engine.search import search
from sizing.memo import EngineMemo, memo_for
from sizing.models import Workload
from tests.providers.factories import UserFactory

pytestmark = pytest.mark.django_db

DEMO = Path(__file__).resolve().parents[2] / "providers" / "demo" / "catalog.yaml"


def _without_timing(answer: dict[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(answer)
    out.get("search", {}).pop("seconds", None)
    return out


def _renamed(facts: dict[str, Any], n: int) -> dict[str, Any]:
    return {
        **facts,
        "slug": f"{facts['slug']}-r{n}",
        "name": f"{facts['name']} (region {n})",
        "provider": "Other",
    }


@pytest.fixture
def demo_facts() -> list[dict[str, Any]]:
    gpu_table_sync()
    catalog_import(data=read_catalog_file(DEMO))
    return [o.facts() for o in offering_queryset().order_by("slug")]


def test_a_remembered_search_is_the_fresh_search_of_the_renamed_offering(
    demo_facts: list[dict[str, Any]],
) -> None:
    workload: Workload = services.workload_create(owner=UserFactory(), preset="13b")
    engine = workload.to_engine_dict()
    memo = EngineMemo(scope="test")
    for facts in demo_facts:
        first = memo.call(search, engine, facts, objective="cheapest-within-deadline", top=3, gpus=None)
        assert _without_timing(first) == _without_timing(
            search(engine, facts, objective="cheapest-within-deadline", top=3)
        )
        renamed = _renamed(facts, 2)
        reused = memo.call(search, engine, renamed, objective="cheapest-within-deadline", top=3, gpus=None)
        fresh = search(engine, renamed, objective="cheapest-within-deadline", top=3)
        assert _without_timing(reused) == _without_timing(fresh), facts["slug"]
        assert reused["offering"]["slug"] == renamed["slug"]
        if fresh.get("layout") and fresh.get("gpus"):
            layout, gpus = fresh["layout"], fresh["gpus"]
            once = memo.call(evaluate, engine, facts, layout=layout, gpus=gpus)
            again = memo.call(evaluate, engine, renamed, layout=layout, gpus=gpus)
            assert once == evaluate(engine, facts, layout, gpus=gpus)
            assert again == evaluate(engine, renamed, layout, gpus=gpus), facts["slug"]
    assert memo.hits >= len(demo_facts) and memo.misses >= len(demo_facts)


def test_any_other_input_is_another_question() -> None:
    calls: list[dict[str, Any]] = []

    def engine(workload: dict[str, Any], facts: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        calls.append(facts)
        return {
            "offering": {"slug": facts.get("slug"), "name": facts.get("name"), "gpu": "X"},
            "n": len(calls),
        }

    memo = EngineMemo(scope="test", max_entries=2)
    facts = {"slug": "a", "name": "A", "gpus_per_node": 8, "price_usd_per_gpu_hour": 2.0}
    assert memo.call(engine, {"layers": 2}, facts)["n"] == 1
    assert memo.call(engine, {"layers": 2}, {**facts, "slug": "b", "name": "B"}) == {
        "offering": {"slug": "b", "name": "B", "gpu": "X"},
        "n": 1,
    }
    assert memo.call(engine, {"layers": 2}, {**facts, "price_usd_per_gpu_hour": 2.5})["n"] == 2  # a price
    assert memo.call(engine, {"layers": 3}, facts)["n"] == 3  # the workload
    assert memo.call(engine, {"layers": 2}, {**facts, "gpus_per_node": 8.0})["n"] == 4  # 8.0 is not 8
    assert memo.call(engine, {"layers": 2}, facts, gpus=64)["n"] == 5  # an argument
    assert (
        memo.call(engine, {"layers": 2}, {**facts, "name": ""})["n"] == 6
    )  # the name falls back to the slug
    assert len(memo.entries) == 2  # bounded
    assert memo_for(("run", 1)) is memo_for(("run", 1)) and memo_for(("run", 2)) is not memo_for(("run", 1))


def test_a_run_of_renamed_copies_stores_each_offering_under_its_own_name(
    demo_facts: list[dict[str, Any]], django_capture_on_commit_callbacks: Any
) -> None:
    user = UserFactory()
    workload = services.workload_create(owner=user, preset="13b")
    slugs = list(Offering.objects.filter(fictional=False).order_by("slug").values_list("slug", flat=True))[:3]
    for slug in slugs:
        offering = Offering.objects.get(slug=slug)
        plans = list(offering.plans.all())
        offering.pk, offering.slug, offering.name = None, f"{slug}-copy", f"{offering.name} copy"
        offering.save()
        for plan in plans:
            plan.pk, plan.offering = None, offering
            plan.save()
    with django_capture_on_commit_callbacks(execute=True):
        run = services.plan_run_create(
            owner=user, workload=workload, offering_slugs=slugs + [f"{s}-copy" for s in slugs]
        )
    run.refresh_from_db()
    assert run.status == "done", run.error
    by_slug = {r.offering.slug: r for r in run.results.select_related("offering")}
    for slug in slugs:
        original, copied = by_slug[slug], by_slug[f"{slug}-copy"]
        assert copied.sizing["offering"]["slug"] == f"{slug}-copy"
        assert copied.sizing["offering"]["name"] == original.sizing["offering"]["name"] + " copy"
        assert (copied.gpus, copied.train_days, copied.cost_total_usd, copied.layout) == (
            original.gpus,
            original.train_days,
            original.cost_total_usd,
            original.layout,
        )
