"""The quote PDF read back: content equal to the page, vector charts, page numbers, frozen content,
escaping, no network while rendering, and the tables-only fallback without a browser."""

from __future__ import annotations

import datetime as dt
import hashlib
import html
import io
import re
import socket
import threading
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from django.core.files.storage import default_storage
from django.test import Client
from pypdf import PdfReader

from providers.models import BillingPlan, Offering
from providers.services import plan_price_change
from quotes import pdf, services
from quotes.display import quote_view
from quotes.models import Quote
from sizing import services as sizing_services
from tests.providers.factories import PlanFactory, UserFactory
from tests.quotes.conftest import make_offering
from tests.quotes.helpers import flat, page_content, page_texts, pdf_bytes, pdf_text, to_png, xobject_kinds

pytestmark = pytest.mark.django_db

PATH_OPERATORS = re.compile(rb"(?:^|\s)-?[\d.]+ -?[\d.]+ [ml](?:\s|$)")


def nospace(text: str) -> str:
    return re.sub(r"\s+", "", text)


def render(quote: Quote) -> bytes:
    services.quote_pdf_render(quote_id=quote.pk)
    quote.refresh_from_db()
    return pdf_bytes(quote)


@pytest.fixture
def no_browser(settings: Any, tmp_path: Path) -> Any:
    settings.QUOTES_BROWSER_PATH = str(tmp_path / "no-such-chromium")
    pdf.BROWSER.reset()
    yield
    pdf.BROWSER.reset()


def test_the_pdf_holds_the_number_offering_every_bill_line_and_total_as_the_page_shows_them(
    quote: Quote, buyer: Any, artifacts: Path
) -> None:
    data = render(quote)
    to_png(data, artifacts, "quote-pdf")
    client = Client()
    client.force_login(buyer)
    page = html.unescape(flat(client.get(f"/quotes/{quote.pk}/").content.decode()))
    text = flat(" ".join(page_texts(data)))
    view = quote_view(quote.snapshot)
    assert quote.number in text and quote.number in page
    assert "H100 SXM cluster" in text and "Acme GPU Cloud" in text
    assert view["bill_rows"]
    for row in view["bill_rows"]:
        for key in ("item", "quantity", "unit", "unit_price", "usd"):
            assert row[key] in page, (key, row[key])
            assert nospace(row[key]) in nospace(text), (key, row[key])
        # the same cells, in the same order, on one row of the table
        cells = nospace(row["item"] + row["quantity"] + row["unit"] + row["unit_price"] + row["usd"])
        assert cells in nospace(text)
    assert view["total"] in page and view["total"] in text
    # how close the time (and so the bill) is: the band measured on published runs, on the page and the PDF
    assert view["accuracy"].startswith("How close this estimate is: on ") and view["accuracy"] in page
    assert nospace(view["accuracy"]) in nospace(text)
    assert nospace(view["total_label"] + view["total"]) in nospace(text)
    pages = PdfReader(io.BytesIO(data)).pages
    assert len(pages) >= 3
    for number, page_text in enumerate(page_texts(data), start=1):
        assert f"Page {number} of {len(pages)}" in page_text


def test_the_plans_table_keeps_each_plan_name_whole_beside_its_price(buyer: Any, offering: Any) -> None:
    """The plans under the bill of a large run (nine-digit totals, an unpriced plan, the long spot label)
    gave most of the width to the other columns: a plan's name broke inside its words ("On- / deman / d")."""
    PlanFactory(
        offering=offering, kind="spot", name="Spot (North America)", price_usd_per_gpu_hour=Decimal("0.99")
    )
    PlanFactory(offering=offering, kind="reserved", name="Committed usage", price_usd_per_gpu_hour=None)
    Offering.objects.filter(pk=offering.pk).update(max_nodes=2048)
    workload = sizing_services.workload_create(owner=buyer, preset="llama3-405b", train_tokens=1e13)
    quote = services.quote_create_for_offering(
        owner=buyer, offering_slug=offering.slug, workload_id=workload.pk
    )
    text = pdf_text(render(quote))
    start = text.index("The same job under each billing plan")
    lines = text[start : text.index("* incomplete", start)].splitlines()  # that table's lines only
    plans = quote_view(quote.snapshot)["plans"]
    assert {p["kind"] for p in plans} >= {"on-demand", "spot"} and max(len(p["total"]) for p in plans) >= 12
    for plan in plans:
        first_word = plan["name"].split()[0]
        # the row's line starts with the name's first word, whole (the kind column may repeat it)
        assert any(line.split()[:1] == [first_word] and plan["price"] in line for line in lines), plan


def test_the_charts_are_vector_graphics_with_real_text(quote: Quote) -> None:
    data = render(quote)
    assert quote.pdf_has_charts is True and not quote.pdf_name.endswith("-tables.pdf")
    reader = PdfReader(io.BytesIO(data))
    chart_pages = [p for p in reader.pages if "US dollars" in (p.extract_text() or "")]
    assert chart_pages, "no page carries the charts' axis titles as text"
    for page in chart_pages:
        text = page.extract_text() or ""
        assert "Cost by line item" in text and "Compute" in text  # title and a category label
        assert "seconds per step" in text or "US dollars per job" in text
        assert "/Image" not in xobject_kinds(page), "a chart was embedded as a raster image"
        content = page_content(page)
        assert len(PATH_OPERATORS.findall(content)) > 20, "no vector paths on the chart page"
    for page in reader.pages:
        assert "/Image" not in xobject_kinds(page)


def test_editing_prices_after_issuing_changes_neither_the_quote_nor_its_pdf(
    quote: Quote, offering: Offering, buyer: Any
) -> None:
    first = render(quote)
    digest = hashlib.sha256(first).hexdigest()
    curator = UserFactory(username="curator", role="staff", is_staff=True, is_superuser=True)
    for plan in BillingPlan.objects.filter(offering=offering):
        plan_price_change(
            user=curator, plan=plan, price_usd_per_gpu_hour=Decimal("7.77"), as_of=dt.date(2026, 12, 1)
        )
    Offering.objects.filter(pk=offering.pk).update(name="Renamed offering", setup_fee_usd=Decimal("1000"))
    quote.refresh_from_db()
    # A re-render request serves the stored file of this quote version.
    services.quote_pdf_render(quote_id=quote.pk)
    assert services.quote_pdf_request(quote=quote) == quote.pdf_name
    assert hashlib.sha256(pdf_bytes(quote)).hexdigest() == digest
    # Even rendered again from scratch, the text is the same: the PDF reads only the snapshot.
    default_storage.delete(quote.pdf_name)
    again = render(quote)
    assert page_texts(again) == page_texts(first)
    text = pdf_text(again)
    assert "7.77" not in text and "Renamed offering" not in text


class Listener:
    """A TCP listener on 127.0.0.1 that records every connection it receives."""

    def __init__(self) -> None:
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.connections: list[Any] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                conn, addr = self.sock.accept()
            except OSError:
                continue
            self.connections.append(addr)
            conn.close()

    def close(self) -> None:
        self._stop.set()
        self._thread.join(2)
        self.sock.close()


def test_a_malicious_provider_is_literal_text_and_nothing_is_fetched(
    buyer: Any, workload: Any, monkeypatch: pytest.MonkeyPatch, artifacts: Path
) -> None:
    listener = Listener()
    try:
        img = f"<img src=http://127.0.0.1:{listener.port}/x>"
        script = "<script>alert(1)</script>"
        offering = make_offering(provider_name=script, name=f"Evil {img}", slug="evil", note=img)
        BillingPlan.objects.filter(offering=offering, name="Reserved 1 month").update(name=f"Reserved {img}")
        quote = services.quote_create_for_offering(
            owner=buyer, offering_slug=offering.slug, workload_id=workload.pk
        )
        asked: list[str] = []
        original = pdf.SafeFetcher.fetch

        def spy(self: pdf.SafeFetcher, url: str, headers: Any = None) -> Any:
            asked.append(url)
            return original(self, url, headers)

        monkeypatch.setattr(pdf.SafeFetcher, "fetch", spy)
        data = render(quote)
        to_png(data, artifacts, "quote-malicious")
        client = Client()
        client.force_login(buyer)
        page = client.get(f"/quotes/{quote.pk}/").content.decode()
        assert script not in page and "<img src=http://127.0.0.1" not in page
        assert html.escape(script, quote=False) in page
        assert html.escape(img, quote=False) in page
        text = nospace(" ".join(page_texts(data)))
        assert nospace(script) in text and nospace(img) in text
        assert not [u for u in asked if u.lower().startswith(("http:", "https:"))]
    finally:
        listener.close()
    assert listener.connections == [], "the renderer connected to 127.0.0.1"


def test_the_fetcher_serves_data_uris_and_static_files_and_refuses_everything_else(tmp_path: Path) -> None:
    fetcher = pdf.SafeFetcher()
    for url in (
        "http://127.0.0.1:9/x",
        "https://cdn.example.com/font.woff",
        "ftp://example.com/x",
        "file:///etc/passwd",
        f"file://{tmp_path}/x.css",
        "file://" + str(pdf.static_root() / ".." / "portal" / "settings.py"),
    ):
        with pytest.raises(pdf.RefusedFetch):
            fetcher.fetch(url)
    assert fetcher.refused[0] == "http://127.0.0.1:9/x"
    assert fetcher.fetch("data:text/plain;base64,aGk=").read() == b"hi"
    assert fetcher.fetch("data:text/plain,h%C3%A9").read() == "hé".encode()
    css = pdf.static_root() / "css" / "site.css"
    assert fetcher.fetch(css.as_uri()).read() == css.read_bytes()


def test_an_html_image_pointing_at_the_network_is_refused_by_the_renderer() -> None:
    asked: list[str] = []

    class Recording(pdf.SafeFetcher):
        def fetch(self, url: str, headers: Any = None) -> Any:
            asked.append(url)
            return super().fetch(url, headers)

    fetcher = Recording()
    data = pdf.render_html(
        '<p>x</p><img src="http://127.0.0.1:9/x.png"><link rel=stylesheet href="https://e.com/a.css">',
        fetcher,
    )
    assert data.startswith(b"%PDF")
    assert set(fetcher.refused) == {"http://127.0.0.1:9/x.png", "https://e.com/a.css"} == set(asked)


def test_without_a_browser_the_pdf_has_tables_only_and_says_so(
    quote: Quote, no_browser: Any, artifacts: Path
) -> None:
    data = render(quote)
    to_png(data, artifacts, "quote-tables-only")
    assert quote.pdf_name.endswith("-tables.pdf") and quote.pdf_has_charts is False
    text = flat(pdf_text(data))
    assert "Tables only: the charts could not be drawn" in text
    assert "no browser" in text
    view = quote_view(quote.snapshot)
    assert quote.number in text and view["total"] in text
    for page in PdfReader(io.BytesIO(data)).pages:
        assert "/Image" not in xobject_kinds(page)


def test_kaleido_never_downloads_or_searches_for_a_browser(
    quote: Quote, monkeypatch: pytest.MonkeyPatch
) -> None:
    import choreographer.cli._cli_utils as cli_utils
    import kaleido
    from choreographer.browsers.chromium import Chromium

    def forbidden(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("a browser download or search was attempted")

    monkeypatch.setattr(kaleido, "get_chrome_sync", forbidden)
    monkeypatch.setattr(kaleido, "get_chrome", forbidden)
    monkeypatch.setattr(cli_utils, "get_chrome_sync", forbidden)
    monkeypatch.setattr(Chromium, "find_browser", classmethod(forbidden))
    pdf.BROWSER.reset()
    render(quote)
    assert quote.pdf_has_charts is True
    # One browser per process: a second quote reuses it.
    started = pdf.BROWSER._kaleido
    second = services.quote_create_for_offering(
        owner=quote.owner, offering_slug="acme-h100", workload_id=quote.workload_id
    )
    render(second)
    assert pdf.BROWSER._kaleido is started


def test_long_and_cjk_provider_names_are_drawn(buyer: Any, workload: Any, artifacts: Path) -> None:
    name = "超大规模 H100 训练集群 — a very long offering name that goes on to describe every option"
    offering = make_offering(
        provider_name="算力云计算有限公司 (SuanLi Cloud Computing Co., Ltd.)", name=name, slug="cjk"
    )
    quote = services.quote_create_for_offering(
        owner=buyer, offering_slug=offering.slug, workload_id=workload.pk
    )
    data = render(quote)
    to_png(data, artifacts, "quote-cjk")
    text = nospace(" ".join(page_texts(data)))
    assert "算力云计算有限公司" in text and nospace(name) in text


def test_a_huge_stored_note_renders_in_bounded_time_truncated(quote: Quote, no_browser: Any) -> None:
    """A 4.8 MB note frozen into a snapshot before the length limits took 181 s to render; the page and the
    PDF now show at most DISPLAY_TEXT_MAX characters of any text."""
    import time

    from quotes.display import DISPLAY_TEXT_MAX, TRUNCATED

    snapshot = dict(quote.snapshot)
    snapshot["offering"] = dict(snapshot["offering"], summary="note " * 960_000)
    snapshot["facts"] = {**snapshot.get("facts", {}), "fees_note": "fee " * 1_200_000}
    Quote.objects.filter(pk=quote.pk).update(snapshot=snapshot)
    quote.refresh_from_db()
    view = quote_view(quote.snapshot)
    assert view["offering"]["summary"].endswith(TRUNCATED)
    assert len(view["offering"]["summary"]) == DISPLAY_TEXT_MAX + len(TRUNCATED)
    started = time.monotonic()
    data = render(quote)
    assert time.monotonic() - started < 60
    assert "(truncated)" in flat(pdf_text(data))
