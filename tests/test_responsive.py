"""The main pages at a phone's 390 px and on a laptop, in Debian's chromium: the menu folds, wide tables
scroll inside themselves and charts fit, so the page body never scrolls sideways. Screenshots of every page
(and of the quote PDF) go to test-artifacts/ for a person to look at."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from checks.services import findings_refresh
from providers.models import Provenance, Source
from quotes import services as quote_services
from sizing import services as sizing_services
from tests.compare import helpers
from tests.phone_cards import assert_a_table_again, assert_cards
from tests.providers.factories import UserFactory
from tests.quotes.conftest import make_offering
from tests.quotes.helpers import pdf_bytes, to_png

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PHONE = {"width": 390, "height": 844}
LAPTOP = {"width": 1366, "height": 900}


@pytest.fixture
def site(settings: Any, tmp_path: Path) -> dict[str, Any]:
    """A small catalog with findings, a buyer with a finished run and a quote."""
    settings.MEDIA_ROOT = tmp_path / "media"
    offerings = helpers.small_catalog()
    long_named = make_offering(
        provider_name="A provider with a rather long registered company name GmbH",
        name="Eight-way H100 SXM5 cluster with 3.2 Tb/s InfiniBand, reserved for a year",
        slug="long-named",
    )
    # a source cited by a title with no place to break (a repository path, as real catalogs cite them)
    source = Source.objects.create(
        provider=long_named.provider,
        key="long-path",
        title="MLPerf Training v5.0 results/Nebius/systems/"
        "nebius_soperator_8xH200_SXM_141GBx8_all_reduce.json",
        url="https://example.org/mlperf",
    )
    provenance, _ = Provenance.objects.get_or_create(offering=long_named, group="hardware")
    provenance.sources.add(source)
    for o in [*offerings, long_named]:
        findings_refresh(offering=o)
    buyer = UserFactory(username="phone-buyer")
    workload = sizing_services.workload_create(owner=buyer, preset="13b", train_tokens=3e11)
    run = sizing_services.plan_run_create(owner=buyer, workload=workload)
    quote = quote_services.quote_create_for_offering(
        owner=buyer, offering_slug=long_named.slug, workload_id=workload.pk
    )
    return {"buyer": buyer, "run": run, "quote": quote, "offering": long_named}


def _login(page: Any, live_server: Any, client: Any, user: Any) -> None:
    client.force_login(user)
    cookie = client.cookies["sessionid"]
    page.context.add_cookies([{"name": "sessionid", "value": cookie.value, "url": live_server.url}])


def _pages(site: dict[str, Any]) -> dict[str, str]:
    slugs = "good-ib,cheap-eth,roce-mid,long-named"
    return {
        "home": "/",
        "browse": "/offerings/",
        "offering": "/offerings/long-named/",
        "plan-result": f"/plan/{site['run'].pk}/long-named/",
        "run": f"/plan/{site['run'].pk}/",
        "compare": f"/compare/?offerings={slugs}&workload=13b&gpus=64",
        "checklist": "/checks/checklist/?offering=cheap-eth",
        "quote": f"/quotes/{site['quote'].pk}/",
        # forms whose selects list offerings by their full names (one of them long)
        "plan": "/plan/",
        "rfq-new": "/rfqs/new/",
        "upload": "/benchmarks/upload/",
        "acceptance": "/benchmarks/acceptance/",
    }


def _overflow(page: Any) -> int:
    """How many pixels the page is wider than the window (0: nothing scrolls sideways)."""
    return int(
        page.evaluate(
            "Math.max(document.documentElement.scrollWidth, document.body.scrollWidth) - window.innerWidth"
        )
    )


def test_every_main_page_fits_a_phone_and_a_laptop(
    live_server: Any, page: Any, client: Any, site: dict[str, Any], artifacts: Path
) -> None:
    _login(page, live_server, client, site["buyer"])
    for size_name, size in (("390", PHONE), ("desktop", LAPTOP)):
        page.set_viewport_size(size)
        for name, path in _pages(site).items():
            response = page.goto(live_server.url + path)
            assert response is not None and response.status == 200, (name, response and response.status)
            if page.locator("[data-figure]").count():
                page.wait_for_selector(".main-svg", timeout=30_000)
                page.wait_for_timeout(300)  # Plotly's responsive resize
            page.screenshot(path=str(artifacts / f"page-{name}-{size_name}.png"), full_page=True)
            assert _overflow(page) <= 0, f"{name} at {size_name} scrolls sideways by {_overflow(page)} px"
            for chart in page.locator(".chart .main-svg").all()[:4]:
                box = chart.bounding_box()
                assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= size["width"] + 1


def test_the_menu_folds_behind_a_button_at_390_px(
    live_server: Any, page: Any, site: dict[str, Any], artifacts: Path
) -> None:
    page.set_viewport_size(PHONE)
    page.goto(live_server.url + "/offerings/")
    nav = page.locator("#site-nav")
    assert not nav.is_visible()
    page.click("#menu-toggle")
    assert nav.is_visible()
    assert page.locator("#menu-toggle").get_attribute("aria-expanded") == "true"
    page.screenshot(path=str(artifacts / "page-menu-open-390.png"))
    page.locator("#site-nav a", has_text="Checklist").click()
    page.wait_for_url("**/checks/checklist/**")
    page.set_viewport_size(LAPTOP)
    assert page.locator("#site-nav").is_visible() and not page.locator("#menu-toggle").is_visible()


def test_wide_tables_scroll_inside_themselves_at_390_px(
    live_server: Any, page: Any, site: dict[str, Any]
) -> None:
    page.set_viewport_size(PHONE)
    page.goto(live_server.url + "/offerings/")
    table = page.locator("#offerings")
    widths = table.evaluate("t => [t.scrollWidth, t.clientWidth]")
    assert widths[0] > widths[1], "the catalog table is wider than a phone: it scrolls inside itself"
    assert _overflow(page) <= 0


def test_the_planner_ranking_is_a_list_of_labelled_cards_at_390_px(
    live_server: Any, page: Any, client: Any, site: dict[str, Any], artifacts: Path
) -> None:
    _login(page, live_server, client, site["buyer"])
    page.set_viewport_size(PHONE)
    page.goto(live_server.url + f"/plan/{site['run'].pk}/")
    ranking = page.locator("#ranking")
    assert ranking.locator("tbody tr").count() >= 2
    assert_cards(ranking)  # each offering is a card: nothing to scroll sideways
    # every line of a card says what it is (the column header it stands for)
    cell = ranking.locator("td[data-label]").first
    assert "Full bill" in cell.evaluate("td => getComputedStyle(td, '::before').content")
    page.screenshot(path=str(artifacts / "page-run-cards-390.png"), full_page=True)
    page.set_viewport_size(LAPTOP)
    page.reload()
    assert_a_table_again(ranking)
    assert cell.evaluate("td => getComputedStyle(td, '::before').content") in ("none", "normal")


def test_the_assumed_facts_are_labelled_cards_at_390_px(
    live_server: Any, page: Any, client: Any, site: dict[str, Any], artifacts: Path
) -> None:
    run = site["run"]
    result = next(r for r in run.results.select_related("offering") if r.assumptions)
    _login(page, live_server, client, site["buyer"])
    page.set_viewport_size(PHONE)
    page.goto(live_server.url + f"/plan/{run.pk}/{result.offering.slug}/")
    facts = page.locator("#assumptions")
    assert facts.locator("tbody tr").count() == len(result.assumptions)
    assert_cards(facts)  # each assumed fact is a card: its reason wraps instead of scrolling
    reason = facts.locator("td.note").first
    assert "Why this value" in reason.evaluate("td => getComputedStyle(td, '::before').content")
    assert _overflow(page) <= 0
    page.screenshot(path=str(artifacts / "page-result-assumed-390.png"), full_page=True)
    page.set_viewport_size(LAPTOP)
    page.reload()
    assert_a_table_again(facts)  # one row a fact, each cell under its heading


def test_the_fault_tolerance_heatmap_keeps_its_icons_and_upright_columns_at_390_px(
    live_server: Any, page: Any, client: Any, site: dict[str, Any], artifacts: Path
) -> None:
    """At 390 px the cells' words ("? not published") and the column names overlapped into an unreadable
    block: on a phone each cell shows its icon (the words stay in the hover and the table), the columns
    stand upright."""
    _login(page, live_server, client, site["buyer"])
    figure = "() => document.querySelector('#panel-fault-tolerance .chart')"
    state = f"() => {{ const e = ({figure})(); return [e.data[0].text, e.layout.xaxis.tickangle]; }}"
    page.set_viewport_size(PHONE)
    page.goto(live_server.url + _pages(site)["compare"])
    page.wait_for_selector("#panel-fault-tolerance .main-svg", timeout=30_000)
    cells, angle = page.evaluate(state)
    assert angle == -90 and cells and all(len(c) == 1 for row in cells for c in row), (cells, angle)
    assert "not published" in str(page.evaluate(f"() => ({figure})().data[0].customdata"))
    page.locator("#panel-fault-tolerance").screenshot(path=str(artifacts / "compare-fault-tolerance-390.png"))
    page.set_viewport_size(LAPTOP)
    page.reload()
    page.wait_for_selector("#panel-fault-tolerance .main-svg", timeout=30_000)
    cells, angle = page.evaluate(state)
    assert angle == 0 and any("not published" in c for row in cells for c in row), (cells, angle)


def test_the_quote_pdf_renders_to_pictures(site: dict[str, Any], artifacts: Path) -> None:
    quote_services.quote_pdf_render(quote_id=site["quote"].pk)
    site["quote"].refresh_from_db()
    pages = to_png(pdf_bytes(site["quote"]), artifacts, "quote-pdf-pages")
    assert pages, "pdftoppm drew the PDF's pages"


# The y-axis tick labels of a chart, as boxes: [top, bottom] of each label on the page.
TICK_BOXES = """sel => [...document.querySelectorAll(sel + ' .main-svg .yaxislayer-above .ytick text')]
  .map(t => t.getBoundingClientRect()).filter(r => r.height > 0).map(r => [r.top, r.bottom])"""


@pytest.mark.parametrize("size_name", ["390", "desktop"])
def test_the_compare_charts_labels_never_overlap(
    live_server: Any, page: Any, client: Any, site: dict[str, Any], artifacts: Path, size_name: str
) -> None:
    _login(page, live_server, client, site["buyer"])
    page.set_viewport_size(PHONE if size_name == "390" else LAPTOP)
    page.goto(live_server.url + _pages(site)["compare"])
    for panel in ("cost", "goodput", "usable"):
        selector = f"#panel-{panel}"
        page.wait_for_selector(f"{selector} .main-svg", timeout=30_000)
        boxes = sorted(page.evaluate(TICK_BOXES, selector))
        assert len(boxes) >= 4, (panel, boxes)
        for upper, lower in zip(boxes, boxes[1:], strict=False):
            assert upper[1] <= lower[0] + 1, f"{panel} at {size_name}: labels overlap {upper} {lower}"
    page.locator("#panel-cost").screenshot(path=str(artifacts / f"compare-cost-labels-{size_name}.png"))


def test_the_planner_rankings_bill_range_may_break_between_its_figures_on_a_laptop(
    live_server: Any, page: Any, client: Any, site: dict[str, Any]
) -> None:
    """A range kept on one line ("$12,248,829 to $13,239,846") made the demo's ranking 20 px wider than the
    page at 1366 px, its pitfalls column cut off; it may now break at its spaces, the days band may not."""
    _login(page, live_server, client, site["buyer"])
    page.set_viewport_size(LAPTOP)
    page.goto(live_server.url + f"/plan/{site['run'].pk}/")
    ranking = page.locator("#ranking")
    bill_range = ranking.locator("td.num .range:not(.days-band)").first
    assert bill_range.evaluate("s => getComputedStyle(s).whiteSpace") == "normal"
    assert ranking.locator(".days-band").first.evaluate("s => getComputedStyle(s).whiteSpace") == "nowrap"
    widths = ranking.evaluate("t => [t.parentElement.scrollWidth, t.parentElement.clientWidth]")
    assert widths[0] <= widths[1], f"the ranking is {widths[0] - widths[1]} px wider than the page"


def test_the_quotes_bill_and_plans_are_labelled_cards_at_390_px(
    live_server: Any, page: Any, client: Any, site: dict[str, Any], artifacts: Path
) -> None:
    """At 390 px the bill hid its amount column off to the side and the plans table broke plan names between
    letters ("On-deman d"); each line and each plan is now a card."""
    _login(page, live_server, client, site["buyer"])
    page.set_viewport_size(PHONE)
    page.goto(live_server.url + f"/quotes/{site['quote'].pk}/")
    for selector in ("#bill", "table.plans"):
        table = page.locator(selector)
        if table.count():
            assert_cards(table)
    amount = page.locator("#bill td[data-label]").nth(3)
    assert "USD" in amount.evaluate("td => getComputedStyle(td, '::before').content")
    assert _overflow(page) <= 0
    page.screenshot(path=str(artifacts / "page-quote-cards-390.png"), full_page=True)
    page.set_viewport_size(LAPTOP)
    page.reload()
    assert_a_table_again(page.locator("#bill"))
