"""The overview and compare pages in a real browser: charts drawn, workload switched, catalog text inert."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.compare import helpers

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def catalog() -> list[Any]:
    offerings = helpers.small_catalog()
    helpers.findings_for(offerings)
    helpers.public_upload(offerings[0])
    helpers.public_upload(offerings[2], verdict="fail")
    return offerings


def _watch_dialogs(page: Any) -> list[str]:
    fired: list[str] = []

    def on_dialog(dialog: Any) -> None:
        fired.append(dialog.message)
        dialog.dismiss()

    page.on("dialog", on_dialog)
    return fired


def test_the_overview_draws_its_charts(
    live_server: Any, page: Any, catalog: list[Any], artifacts: Path
) -> None:
    dialogs = _watch_dialogs(page)
    page.set_viewport_size({"width": 1366, "height": 768})
    page.goto(f"{live_server.url}/")
    page.wait_for_selector("#panel-overview-fabric .main-svg")
    for key in ("overview-fabric", "overview-price", "overview-features", "overview-findings"):
        assert page.locator(f"#panel-{key} .main-svg").count() >= 1
        assert page.locator(f"#table-{key} caption").is_visible()
    page.screenshot(path=str(artifacts / "compare-overview.png"), full_page=True)
    page.screenshot(path=str(artifacts / "compare-overview-fold.png"))
    assert dialogs == []


def test_compare_draws_charts_and_switches_the_workload(
    live_server: Any, page: Any, catalog: list[Any], artifacts: Path
) -> None:
    dialogs = _watch_dialogs(page)
    page.set_viewport_size({"width": 1366, "height": 768})
    page.goto(f"{live_server.url}/offerings/")
    for slug in ("good-ib", "cheap-eth", "roce-mid", "xss-offering"):
        page.check(f"input[name=offerings][value={slug}]")
    page.click("button:has-text('Compare selected')")
    page.wait_for_selector("#panel-interconnect .main-svg")
    assert "/compare/?offerings=" in page.url and "offerings=good-ib" in page.url
    assert page.locator("#panel-fault-tolerance .main-svg").count() >= 1
    assert page.locator("#panel-findings .main-svg").count() >= 1
    page.screenshot(path=str(artifacts / "compare-no-workload.png"), full_page=True)
    page.locator("#panel-usable").screenshot(path=str(artifacts / "compare-usable.png"))
    page.locator("#panel-fault-tolerance").screenshot(path=str(artifacts / "compare-fault-tolerance.png"))

    # The embedded demo sizes in-process: choosing a preset reloads with the cost charts.
    page.select_option("#workload-select", "13b")
    page.wait_for_url("**workload=13b**")
    page.wait_for_selector("#panel-cost .main-svg", timeout=60_000)
    for key in ("cost", "cost-per-token", "cost-time", "goodput"):
        assert page.locator(f"#panel-{key} .main-svg").count() >= 1, key
        assert page.locator(f"#table-{key}").is_visible()
    page.screenshot(path=str(artifacts / "compare-13b.png"), full_page=True)
    page.screenshot(path=str(artifacts / "compare-13b-fold.png"))
    page.locator("#panel-cost").screenshot(path=str(artifacts / "compare-13b-cost.png"))
    page.locator("#panel-interconnect").screenshot(path=str(artifacts / "compare-interconnect.png"))

    page.select_option("#workload-select", "llama3-70b")
    page.wait_for_url("**workload=llama3-70b**")
    page.wait_for_selector("#panel-cost-time .main-svg", timeout=60_000)
    assert "Llama 3 70B" in page.locator("h1").inner_text()  # the preset by its name, not its code
    page.locator("#panel-cost-time").screenshot(path=str(artifacts / "compare-70b-cost-time.png"))
    assert dialogs == []


def test_html_in_a_providers_name_is_text_everywhere(
    live_server: Any, page: Any, catalog: list[Any], artifacts: Path
) -> None:
    dialogs = _watch_dialogs(page)
    page.goto(f"{live_server.url}/compare/?offerings=xss-offering,good-ib")
    page.wait_for_selector("#panel-interconnect .main-svg")
    page.wait_for_timeout(300)
    assert dialogs == []
    table = page.locator("#table-usable")
    assert helpers.XSS_NAME in table.inner_text()
    assert helpers.XSS_NOTES in table.inner_text()
    assert page.locator("#table-usable img").count() == 0
    # Plotly axis labels show the name literally (entities decoded to text, not markup); long labels wrap
    # over lines, whose texts the tick joins without the space.
    ticks = [t.text_content() or "" for t in page.locator("#panel-interconnect .ytick text").all()]
    assert any("<imgsrc=xonerror=alert(1)>" in t.replace(" ", "") for t in ticks), ticks
    assert page.locator("#panel-interconnect svg image, #panel-interconnect img").count() == 0
    # hover text: the first drawn bar is the intra-node claim of the first offering (the one with HTML)
    bars = [
        b
        for b in page.locator("#panel-interconnect .bars .point path").all()
        if (b.bounding_box() or {}).get("width", 0) > 4
    ]
    box = bars[0].bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.wait_for_selector("#panel-interconnect .hoverlayer .hovertext", timeout=5000)
    hover = page.locator("#panel-interconnect .hoverlayer").text_content() or ""
    assert "<imgsrc=xonerror=alert(1)>" in hover.replace(" ", ""), hover  # the label wraps over lines
    page.screenshot(path=str(artifacts / "compare-xss.png"), full_page=True)
    assert dialogs == []


def test_bad_input_shows_the_message_in_the_page(live_server: Any, page: Any, catalog: list[Any]) -> None:
    response = page.goto(f"{live_server.url}/compare/?offerings=good-ib&workload=nope")
    assert response.status == 400
    assert "Offerings: " in page.locator("#compare-errors").inner_text()  # the field's label, not its code


def _box(page: Any, selector: str) -> dict[str, float]:
    box = page.locator(selector).first.bounding_box()
    assert box is not None, selector
    return box


def _apart(a: dict[str, float], b: dict[str, float]) -> bool:
    return (
        a["x"] + a["width"] <= b["x"]
        or b["x"] + b["width"] <= a["x"]
        or a["y"] + a["height"] <= b["y"]
        or b["y"] + b["height"] <= a["y"]
    )


@pytest.mark.parametrize("key", ["goodput", "interconnect"])  # the compare page's two-panel charts
@pytest.mark.parametrize("width", [390, 1366])
def test_a_two_panel_charts_axis_titles_never_meet(
    live_server: Any, page: Any, catalog: list[Any], artifacts: Path, width: int, key: str
) -> None:
    page.set_viewport_size({"width": width, "height": 844})
    page.goto(f"{live_server.url}/compare/?offerings=good-ib,cheap-eth,roce-mid&workload=llama3-70b&gpus=64")
    page.wait_for_selector(f"#panel-{key} .main-svg", timeout=60_000)
    page.wait_for_timeout(300)  # Plotly's responsive resize
    chart = f"#panel-{key} .chart"
    first, second = _box(page, f"{chart} .g-xtitle text"), _box(page, f"{chart} .g-x2title text")
    page.locator(f"#panel-{key}").screenshot(path=str(artifacts / f"compare-{key}-{width}.png"))
    assert _apart(first, second), (first, second)
    box = _box(page, f"{chart} .main-svg")
    for title in (first, second):  # inside the chart, which is inside the window
        assert box["x"] <= title["x"] and title["x"] + title["width"] <= box["x"] + box["width"]
    assert box["x"] + box["width"] <= width + 1
