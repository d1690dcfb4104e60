"""The planner in a real browser: fill the workload form, start a run, see the progress and the ranking."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from tests.providers.factories import OfferingFactory, PlanFactory, ProviderFactory, UserFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def catalog() -> None:
    good = OfferingFactory(
        name="H100 fat-tree cluster",
        provider=ProviderFactory(name="Good Cloud"),
        max_nodes=64,
        usable_gpu_guarantee_pct=95.0,
        storage_price_usd_per_gb_month=Decimal("0.07"),
        egress_price_usd_per_gb=Decimal("0"),
        traffic_price_usd_per_gb=Decimal("0"),
        support_fee_usd_per_month=Decimal("0"),
        setup_fee_usd=Decimal("0"),
        storage_included_gb=0,
        auto_bad_node_detection=True,
        auto_replacement=True,
        auto_checkpoint_restart=True,
    )
    PlanFactory(offering=good, price_usd_per_gpu_hour=Decimal("2.99"), name="On-demand")
    PlanFactory(
        offering=good,
        kind="reserved",
        name="Reserved 3 months",
        term_months=3,
        price_usd_per_gpu_hour=Decimal("2.10"),
    )
    eth = OfferingFactory(
        name="Ethernet box",
        provider=ProviderFactory(name="Budget Cloud"),
        fabric="ethernet",
        nics_per_node=2,
        gbps_per_nic=100,
        max_nodes=16,
    )
    PlanFactory(offering=eth, price_usd_per_gpu_hour=Decimal("1.90"), name="On-demand")


def test_fill_the_form_run_and_read_the_ranking(
    live_server: Any, page: Any, catalog: None, artifacts: Path
) -> None:
    UserFactory(username="buyer", password="buyer-pw")
    page.goto(f"{live_server.url}/accounts/login/?next=/plan/")
    page.fill("input[name=username]", "buyer")
    page.fill("input[name=password]", "buyer-pw")
    page.click("button[type=submit]")
    page.wait_for_url("**/plan/")
    page.select_option("select[name=preset]", "llama3-70b")
    page.fill("input[name=train_tokens]", "2e12")
    page.fill("input[name=deadline_days]", "120")
    page.fill("input[name=dataset_size_gb]", "8000")
    page.screenshot(path=str(artifacts / "plan-form.png"), full_page=True)
    page.click("button:has-text('Size it on the catalog')")
    page.wait_for_selector("#run-progress")
    page.screenshot(path=str(artifacts / "plan-progress.png"), full_page=True)
    page.wait_for_selector("#run-status[data-status=done]", timeout=30000)
    page.wait_for_selector("#ranking")
    rows = page.locator("#ranking tbody tr")
    assert rows.count() == 2
    assert "H100 fat-tree cluster" in rows.first.inner_text()
    assert "Recommendation." in page.locator("#verdict").inner_text()
    assert page.locator("#run-count").inner_text() == "2 of 2"
    page.screenshot(path=str(artifacts / "plan-ranking.png"), full_page=True)
    page.click("#ranking tbody tr >> nth=0 >> a")
    page.wait_for_selector("#bill")
    page.screenshot(path=str(artifacts / "plan-result.png"), full_page=True)
    assert "checkpoint_storage" in page.locator("#bill").inner_text()
