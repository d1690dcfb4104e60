"""The planner's answers in a real browser on the demo catalog, desktop and 390 px wide: samples labelled,
bills as ranges with the unknown fees named, assumptions beside the answer, nothing wider than the screen."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from providers.catalog import catalog_import, read_catalog_file
from providers.services import gpu_table_sync
from sizing import services
from tests.providers.factories import UserFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

DEMO = Path(__file__).resolve().parents[2] / "providers" / "demo" / "catalog.yaml"


def login(page: Any, url: str) -> None:
    page.goto(f"{url}/accounts/login/?next=/plan/")
    page.fill("input[name=username]", "buyer")
    page.fill("input[name=password]", "buyer-pw")
    page.click("button[type=submit]")
    page.wait_for_url("**/plan/")


def test_run_and_result_pages_show_ranges_samples_and_assumptions_at_both_widths(
    live_server: Any, browser: Any, artifacts: Path
) -> None:
    gpu_table_sync()
    catalog_import(data=read_catalog_file(DEMO))
    user: Any = UserFactory(username="buyer", password="buyer-pw")
    workload = services.workload_create(owner=user, preset="gpt3-175b")
    run = services.plan_run_create(owner=user, workload=workload, include_samples=True)
    run.refresh_from_db()
    assert run.status == "done"
    result = run.results.filter(cost_complete=False, cost_total_usd__isnull=False, sample=False).first()
    assert result is not None
    for name, width in (("desktop", 1366), ("390px", 390)):
        context = browser.new_context(viewport={"width": width, "height": 900})
        page = context.new_page()
        login(page, live_server.url)
        page.goto(f"{live_server.url}/plan/{run.pk}/")
        verdict = page.inner_text("#verdict")
        ranking = page.inner_text("#ranking")
        assert "fictional sample" in ranking and "about $" in ranking
        if "sample" in verdict.lower():
            assert "fictional sample" in verdict
        page.screenshot(path=str(artifacts / f"planner-run-{name}.png"), full_page=True)
        page.goto(f"{live_server.url}/plan/{run.pk}/{result.offering.slug}/")
        assert page.is_visible("#unknown-fees") and page.is_visible("#assumptions")
        assert "Central estimate" in page.inner_text("#bill")
        page.screenshot(path=str(artifacts / f"planner-result-{name}.png"), full_page=True)
        # The planner's own content never pushes the page sideways: wide tables scroll in their box.
        widest = page.evaluate(
            "Math.max(...[...document.querySelectorAll('main .scroll, main .verdict, main h1')]"
            ".map(e => e.getBoundingClientRect().right))"
        )
        assert widest <= width + 1, (name, widest)
        context.close()
