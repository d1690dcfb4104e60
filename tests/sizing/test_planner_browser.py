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
    page.select_option("select[name=optimizer]", "muon-bf16-grads")
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
    # the optimizer chosen on the form is the run's, named on its page with what it keeps per parameter
    assert "Muon, bf16 gradients · 12 bytes per parameter" in page.locator("p.lead").inner_text()
    page.screenshot(path=str(artifacts / "plan-ranking.png"), full_page=True)
    page.click("#ranking tbody tr >> nth=0 >> a")
    page.wait_for_selector("#bill")
    page.screenshot(path=str(artifacts / "plan-result.png"), full_page=True)
    assert "Checkpoint storage" in page.locator("#bill").inner_text()


REPO = Path(__file__).resolve().parents[2]
COPIES = 5  # the demo catalog 5 times: ~190 offerings, about 7 s for one worker (10 copies: 14 s)


@pytest.mark.integration
def test_a_buyer_watches_a_real_worker_size_the_demo_catalog(
    live_server: Any, page: Any, celery_worker: Any, artifacts: Path
) -> None:
    """Not eager: the POST only enqueues, a real `celery worker` (PostgreSQL + Redis) sizes the demo catalog
    while the page polls the progress fragment, then the ranking appears."""
    from providers.catalog import catalog_import, read_catalog_file
    from providers.models import Offering, Provider
    from providers.services import gpu_table_sync
    from tests.providers.catalog_copies import copy_providers

    gpu_table_sync()
    catalog_import(data=read_catalog_file(REPO / "providers" / "demo" / "catalog.yaml"))
    # The demo catalog alone is sized in well under a second, between two polls of the page: renamed copies
    # make the run last several seconds, so the page must show it part-way (whatever the machine's speed,
    # a run of COPIES x the demo catalog spans many one-second polls).
    providers = list(Provider.objects.order_by("pk"))
    for n in range(1, COPIES):
        copy_providers(n, providers)
    total = Offering.objects.filter(fictional=False).count()  # samples are left out of runs
    assert total >= 20 * COPIES
    UserFactory(username="buyer", password="buyer-pw")
    page.goto(f"{live_server.url}/accounts/login/?next=/plan/")
    page.fill("input[name=username]", "buyer")
    page.fill("input[name=password]", "buyer-pw")
    page.click("button[type=submit]")
    page.wait_for_url("**/plan/")
    page.select_option("select[name=preset]", "llama3-70b")
    page.fill("input[name=train_tokens]", "1.4e12")
    page.fill("input[name=deadline_days]", "90")
    page.fill("input[name=budget_usd]", "2500000")
    page.fill("input[name=dataset_size_gb]", "6000")
    page.screenshot(path=str(artifacts / "plan-worker-1-form.png"), full_page=True)
    page.click("button:has-text('Size it on the catalog')")
    page.wait_for_selector("#run-progress")

    # Watch the fragment the page polls (htmx, every second) until the run is done.
    seen: list[tuple[str, str]] = []
    intermediate_shot = False
    for _ in range(3000):
        status = page.locator("#run-status").get_attribute("data-status") or ""
        count = page.locator("#run-count").inner_text()
        if not seen or seen[-1] != (status, count):
            seen.append((status, count))
        done, of = (int(x) for x in count.split(" of "))
        if status == "running" and 0 < done < of and not intermediate_shot:
            page.screenshot(path=str(artifacts / "plan-worker-2-progress.png"), full_page=True)
            intermediate_shot = True
        if status == "done":
            break
        page.wait_for_timeout(100)
    assert seen[-1] == ("done", f"{total} of {total}"), seen
    assert any(s == "running" and 0 < int(c.split(" of ")[0]) < total for s, c in seen), seen
    assert intermediate_shot

    page.wait_for_selector("#ranking")
    rows = page.locator("#ranking tbody tr")
    assert rows.count() == total
    verdict = page.locator("#verdict").inner_text()
    assert verdict.startswith("Recommendation.") and "Llama 3 70B fits" in verdict
    page.screenshot(path=str(artifacts / "plan-worker-3-ranking.png"), full_page=True)
    page.select_option("select[name=fabric]", "infiniband")
    page.check("input[name=within_budget]")
    page.click("button:has-text('Apply')")
    page.wait_for_selector("#ranking")
    assert 0 < page.locator("#ranking tbody tr").count() < total
    assert page.locator("#verdict").inner_text() == verdict
    page.screenshot(path=str(artifacts / "plan-worker-4-filtered.png"), full_page=True)
    page.click("#ranking tbody tr >> nth=0 >> a")
    page.wait_for_selector("#bill")
    page.screenshot(path=str(artifacts / "plan-worker-5-result.png"), full_page=True)
