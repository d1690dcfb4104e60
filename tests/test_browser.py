"""Real browser (Debian's chromium through Playwright) against a live server."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.providers.factories import OfferingFactory, PlanFactory, ProviderFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def catalog() -> None:
    ib = OfferingFactory(
        name="Fat IB cluster", provider=ProviderFactory(name="Good Cloud"), fabric="infiniband"
    )
    PlanFactory(offering=ib, price_usd_per_gpu_hour="3.10")
    eth = OfferingFactory(
        name="Cheap Ethernet box",
        provider=ProviderFactory(name="Budget Cloud"),
        fabric="ethernet",
        nics_per_node=2,
        gbps_per_nic=100,
    )
    PlanFactory(offering=eth, price_usd_per_gpu_hour="1.90")


def test_browse_filter_and_open_an_offering(
    live_server: Any, page: Any, catalog: None, artifacts: Path
) -> None:
    page.goto(f"{live_server.url}/offerings/")
    rows = page.locator("#offerings tbody tr")
    assert rows.count() == 2
    page.screenshot(path=str(artifacts / "browse.png"), full_page=True)
    page.select_option("select[name=fabric]", "ethernet")
    page.click("button:has-text('Apply')")
    page.wait_for_load_state()
    assert rows.count() == 1
    assert "Cheap Ethernet box" in rows.first.inner_text()
    page.click("text=Cheap Ethernet box")
    page.wait_for_load_state()
    assert page.locator("h1").inner_text().startswith("Cheap Ethernet box")
    assert page.locator("#group-network").is_visible()
    assert "not published" in page.content()
    page.screenshot(path=str(artifacts / "offering.png"), full_page=True)


def test_a_bad_filter_shows_a_message_not_an_error_page(live_server: Any, page: Any, catalog: None) -> None:
    page.goto(f"{live_server.url}/offerings/?min_gbps_per_gpu=-5")
    assert "Some filters could not be used" in page.content()
    assert "Min Gb/s per GPU: " in page.locator(".errors").inner_text()  # by its label, not its code
