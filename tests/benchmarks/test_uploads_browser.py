"""Upload a log through the page in a real browser and see the result with its chart."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.phone_cards import assert_a_table_again, assert_cards
from tests.providers.factories import GPUModelFactory, OfferingFactory, ProviderFactory, UserFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
FIXTURES = Path(__file__).parent / "fixtures" / "uploads"


@pytest.fixture(autouse=True)
def _media(settings: Any, tmp_path: Path) -> None:
    settings.MEDIA_ROOT = str(tmp_path / "media")


def test_upload_a_log_and_see_verdicts_and_the_busbw_chart(
    live_server: Any, page: Any, artifacts: Path
) -> None:
    OfferingFactory(
        name="A100 trial pod",
        slug="a100-trial",
        provider=ProviderFactory(name="Good Cloud"),
        gpu=GPUModelFactory(key="A100-SXM-40GB", name="NVIDIA A100 SXM 40GB", nvlink_gbytes_per_s=300.0),
    )
    UserFactory(username="buyer", password="buyer-pass-123")
    page.goto(f"{live_server.url}/accounts/login/?next=/benchmarks/upload/")
    page.fill("input[name=username]", "buyer")
    page.fill("input[name=password]", "buyer-pass-123")
    page.click("button[type=submit]")
    page.wait_for_url("**/benchmarks/upload/")
    page.set_input_files("input[name=file]", str(FIXTURES / "nccl-allreduce-1node.txt"))
    page.select_option("select[name=offering]", "a100-trial")
    page.fill("input[name=nodes]", "1")
    page.fill("input[name=measured_on]", "2026-11-30")
    page.click("button:has-text('Upload and check')")
    page.wait_for_url("**/benchmarks/*/")
    page.wait_for_selector("#busbw-chart .main-svg", timeout=15000)
    assert page.locator("#kind").inner_text() == "nccl-tests"
    assert page.locator("#verdicts tbody tr").count() >= 1
    assert "pass" in page.locator("#verdicts").inner_text()
    page.screenshot(path=str(artifacts / "upload-result.png"), full_page=True)
    # on a phone each claim is a card whose verdict is on screen, not in a column scrolled out of sight
    page.set_viewport_size({"width": 390, "height": 844})
    page.reload()
    claims = page.locator("#claims")
    assert_cards(claims)
    verdict = claims.locator("td[data-label] .verdict").first
    box = verdict.bounding_box()
    assert box and box["x"] + box["width"] <= 390, box
    assert "Verdict" in verdict.evaluate("s => getComputedStyle(s.parentElement, '::before').content")
    page.screenshot(path=str(artifacts / "upload-result-390.png"), full_page=True)
    # and on a laptop the claims are a table again, each cell under its heading
    page.set_viewport_size({"width": 1366, "height": 900})
    page.reload()
    assert_a_table_again(claims)
