"""The quote PDF: WeasyPrint for the pages, Kaleido (Debian's chromium) for the charts as SVG.

Two rules: nothing is fetched from the network while rendering (SafeFetcher serves data: URIs and the
project's static files only), and no browser is ever downloaded (Kaleido gets an explicit path; without a
working browser the PDF holds tables only and says so). One browser per worker process, started on first
use and reused for every chart afterwards.
"""

from __future__ import annotations

import asyncio
import base64
import logging
import mimetypes
import os
import threading
import time
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from django.conf import settings
from django.template.loader import render_to_string
from django.utils import translation
from weasyprint import HTML
from weasyprint.urls import URLFetcher, URLFetcherResponse

from quotes.charts import quote_charts
from quotes.display import quote_view
from quotes.models import Quote

logger = logging.getLogger(__name__)

DEFAULT_BROWSER_PATH = "/usr/bin/chromium"
START_TIMEOUT_S = 45
CHART_TIMEOUT_S = 60
# After a failed start, do not try again for this long (every PDF would wait for the same failure).
RETRY_AFTER_S = 60


def browser_path() -> str:
    """QUOTES_BROWSER_PATH (settings), else BROWSER_PATH (environment), else Debian's chromium."""
    return str(
        getattr(settings, "QUOTES_BROWSER_PATH", None)
        or os.environ.get("BROWSER_PATH")
        or DEFAULT_BROWSER_PATH
    )


def static_root() -> Path:
    dirs = list(getattr(settings, "STATICFILES_DIRS", []) or [])
    return Path(dirs[0] if dirs else Path(settings.BASE_DIR) / "static").resolve()


class RefusedFetch(ValueError):
    """A URL the PDF renderer will not fetch."""


class SafeFetcher(URLFetcher):
    """WeasyPrint's fetcher reduced to data: URIs and files under the static dir; everything else refused."""

    def __init__(self) -> None:
        super().__init__(timeout=1, allowed_protocols=("data", "file"), allow_redirects=False)
        self.requested: list[str] = []
        self.refused: list[str] = []

    def fetch(self, url: str, headers: Any = None) -> URLFetcherResponse:
        self.requested.append(url)
        scheme = url.split(":", 1)[0].lower()
        if scheme == "data":
            return self._data(url)
        if scheme == "file":
            path = Path(unquote(urlsplit(url).path)).resolve()
            root = static_root()
            if path.is_file() and path.is_relative_to(root):
                mime = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
                return URLFetcherResponse(url, path.read_bytes(), {"Content-Type": mime})
        self.refused.append(url)
        logger.warning("quote PDF: refused to fetch %s", url[:200])
        raise RefusedFetch(f"the quote renderer fetches nothing outside the project: {url[:200]}")

    def _data(self, url: str) -> URLFetcherResponse:
        header, _, payload = url[5:].partition(",")
        parts = header.split(";")
        mime = parts[0] or "text/plain"
        body = base64.b64decode(payload) if "base64" in parts[1:] else unquote(payload).encode()
        return URLFetcherResponse(url, body, {"Content-Type": mime})


class ChartBrowser:
    """One Kaleido (one headless chromium) per process, on its own event-loop thread, started lazily."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pid: int | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._kaleido: Any = None
        self._failed_at: float | None = None
        self.error = ""

    def _start(self) -> None:
        path = browser_path()
        if not Path(path).is_file() or not os.access(path, os.X_OK):
            raise RuntimeError(f"no browser at {path}")
        import kaleido

        loop = asyncio.new_event_loop()
        threading.Thread(target=loop.run_forever, name="quotes-kaleido", daemon=True).start()
        # mathjax=False: its default is a CDN URL; plotly.js comes from the installed plotly package.
        k = kaleido.Kaleido(path=path, mathjax=False, n=1, timeout=CHART_TIMEOUT_S)
        try:
            asyncio.run_coroutine_threadsafe(k.open(), loop).result(START_TIMEOUT_S)
        except BaseException:
            loop.call_soon_threadsafe(loop.stop)
            raise
        self._loop, self._kaleido, self._pid = loop, k, os.getpid()

    def ensure(self) -> bool:
        """True when a browser is running in this process (starting it if needed)."""
        with self._lock:
            if self._kaleido is not None and self._pid == os.getpid():
                return True
            self._kaleido = None  # a forked child does not own its parent's browser
            if self._failed_at is not None and time.monotonic() - self._failed_at < RETRY_AFTER_S:
                return False
            try:
                self._start()
            except Exception as exc:  # missing binary, crash at start, timeout
                self._failed_at = time.monotonic()
                self.error = str(exc) or type(exc).__name__
                logger.warning("quote PDF: no browser for charts (%s); tables only", self.error)
                return False
            self._failed_at = None
            self.error = ""
            return True

    def svg(self, figure: dict[str, Any]) -> bytes:
        assert self._loop is not None
        layout = figure.get("layout") or {}
        opts = {"format": "svg", "width": layout.get("width", 720), "height": layout.get("height", 320)}
        future = asyncio.run_coroutine_threadsafe(self._kaleido.calc_fig(figure, opts=opts), self._loop)
        return bytes(future.result(CHART_TIMEOUT_S + 5))

    def reset(self) -> None:
        """Forget the browser (after a failure, or in tests that change the browser path)."""
        with self._lock:
            k, loop = self._kaleido, self._loop
            self._kaleido, self._loop, self._pid, self._failed_at = None, None, None, None
            if k is not None and loop is not None:
                try:
                    asyncio.run_coroutine_threadsafe(k.close(), loop).result(15)
                except Exception:
                    logger.warning("quote PDF: the chart browser did not close cleanly", exc_info=True)
                loop.call_soon_threadsafe(loop.stop)


BROWSER = ChartBrowser()


def charts_possible() -> bool:
    path = browser_path()
    return Path(path).is_file() and os.access(path, os.X_OK)


def chart_images(snapshot: dict[str, Any]) -> tuple[list[dict[str, Any]], str]:
    """The charts with their SVG as data: URIs; ("", reason) when no browser could draw them."""
    charts = quote_charts(snapshot)
    if not charts:
        return [], ""
    if not BROWSER.ensure():
        return [dict(c, svg_uri=None) for c in charts], BROWSER.error
    out = []
    try:
        for chart in charts:
            svg = BROWSER.svg(chart["figure"])
            uri = "data:image/svg+xml;base64," + base64.b64encode(svg).decode()
            out.append(dict(chart, svg_uri=uri))
    except Exception as exc:
        logger.warning("quote PDF: drawing a chart failed; tables only", exc_info=True)
        BROWSER.reset()
        return [dict(c, svg_uri=None) for c in charts], f"the browser failed while drawing: {exc}"
    return out, ""


def quote_html(quote: Quote, *, charts: list[dict[str, Any]], charts_missing: str) -> str:
    return render_to_string(
        "quotes/pdf.html",
        {
            "quote": quote,
            "q": quote_view(quote.snapshot),
            "charts": charts,
            "charts_missing": charts_missing,
            "for_pdf": True,  # no title to hover on paper: a figure's exact count is printed under it
        },
    )


def render_html(html: str, fetcher: SafeFetcher | None = None) -> bytes:
    fetcher = fetcher or SafeFetcher()
    return bytes(HTML(string=html, base_url=static_root().as_uri() + "/", url_fetcher=fetcher).write_pdf())


def render_quote_pdf(quote: Quote, fetcher: SafeFetcher | None = None) -> tuple[bytes, bool]:
    """The PDF bytes of the quote and whether its charts are in it (False: the tables-only fallback)."""
    with translation.override(quote.language or settings.LANGUAGE_CODE):
        # the charts' titles and axes in the quote's language too
        charts, missing = chart_images(quote.snapshot)
        html = quote_html(quote, charts=charts, charts_missing=missing)
    has_charts = bool(charts) and not missing
    return render_html(html, fetcher), has_charts or not charts
