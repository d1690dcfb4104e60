"""Upload a bundle through the page in a real browser and read the report with its scaling curve."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.acceptance.test_bundles import AAC11, mi325x_roce_offering, targz
from tests.benchmarks._shared import require_shared
from tests.providers.factories import UserFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture(autouse=True)
def _media(settings: Any, tmp_path: Path) -> None:
    settings.MEDIA_ROOT = str(tmp_path / "media")


def test_upload_a_bundle_and_read_the_report(
    live_server: Any, page: Any, artifacts: Path, tmp_path: Path
) -> None:
    offering = mi325x_roce_offering()
    UserFactory(username="buyer", password="buyer-pass-123")
    bundle = tmp_path / "results.tar.gz"
    bundle.write_bytes(targz({"results/nccl/aac11.txt": (require_shared() / AAC11).read_bytes()}))
    page.goto(f"{live_server.url}/accounts/login/?next=/benchmarks/acceptance/")
    page.fill("input[name=username]", "buyer")
    page.fill("input[name=password]", "buyer-pass-123")
    page.click("button[type=submit]")
    page.wait_for_url("**/benchmarks/acceptance/")
    page.set_input_files("#bundle input[name=bundle]", str(bundle))
    page.select_option("#bundle select[name=offering]", offering.slug)
    page.click("#bundle button:has-text('Upload and check')")
    page.wait_for_url("**/benchmarks/acceptance/*/")
    page.wait_for_selector("#curve-chart .main-svg", timeout=15000)
    assert page.locator("#verdict").inner_text().strip().endswith("incomplete")
    assert "350.84 GB/s (all_reduce, 8 nodes)" in page.locator("#indicators").inner_text()
    page.screenshot(path=str(artifacts / "acceptance-report.png"), full_page=True)
    assert page.locator("#curve-chart .xtitle").text_content() == "nodes"
    # the chart's words follow the page's language (acceptance.selectors.curve_chart)
    page.context.add_cookies([{"name": "django_language", "value": "zh-hans", "url": live_server.url}])
    page.reload()
    page.wait_for_selector("#curve-chart .main-svg", timeout=15000)
    assert page.locator("#curve-chart .xtitle").text_content() == "节点数"
    assert page.locator("#curve-chart .ytitle").text_content() == "busbw（GB/s）"
    page.screenshot(path=str(artifacts / "acceptance-report-zh.png"), full_page=True)
