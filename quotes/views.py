"""Pages of quotes: the owner's list, one quote, its PDF (or a polling "rendering" page), share links."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.core.files.storage import default_storage
from django.http import FileResponse, HttpRequest, HttpResponse, HttpResponseBase
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext
from django.views.decorators.http import require_GET, require_POST

from portal.form_errors import labelled_errors
from providers.currency import shown_currency
from quotes import selectors, services
from quotes.charts import quote_charts
from quotes.display import quote_view
from quotes.forms import QuoteCreateForm
from quotes.models import Quote
from sizing.input_errors import refusal_shown


@login_required
@require_GET
def quote_list(request: HttpRequest) -> HttpResponse:
    return render(request, "quotes/list.html", {"quotes": selectors.quote_list(owner=request.user)})


def _error_text(form: QuoteCreateForm, exc: ValidationError) -> str:
    """Why no quote was issued, in the page's language, each field named by its label (never its code)."""
    return gettext("; ").join(labelled_errors(form, refusal_shown(exc)))


@login_required
@require_POST
def quote_create(request: HttpRequest) -> HttpResponse:
    form = QuoteCreateForm(request.POST)
    back = request.POST.get("next") or reverse("quotes:list")
    if not back.startswith("/") or back.startswith("//"):
        back = reverse("quotes:list")
    if not form.is_valid():
        messages.error(
            request,
            gettext("Could not create the quote: %(why)s")
            % {"why": _error_text(form, ValidationError(form.errors))},
        )
        return redirect(back)
    try:
        quote = services.quote_create_from_input(
            owner=request.user, data=form.cleaned_data, currency=shown_currency(request)
        )
    except ValidationError as exc:
        why = _error_text(form, exc)
        messages.error(request, gettext("Could not create the quote: %(why)s") % {"why": why})
        return redirect(back)
    messages.success(request, gettext("Quote %(number)s issued.") % {"number": quote.number})
    return redirect(quote.get_absolute_url())


def _page(request: HttpRequest, quote: Quote, *, shared: bool) -> HttpResponse:
    charts = quote_charts(quote.snapshot)
    figures = {c["key"]: c["figure"] for c in charts}
    if shared:
        pdf_url = reverse("quotes:shared-pdf", args=[quote.share_token])
    else:
        pdf_url = reverse("quotes:pdf", args=[quote.pk])
    context: dict[str, Any] = {
        "quote": quote,
        "q": quote_view(quote.snapshot),
        "charts": charts,
        "figures": figures,
        "shared": shared,
        # The buyer's email is for the owner's own page; the share page and the PDF (which share links
        # also serve) show the name only.
        "show_email": not shared,
        "pdf_url": pdf_url,
        # Only the owner manages (and sees) the read-only link; staff read the quote itself.
        "can_edit": not shared and quote.owner_id == request.user.pk,
        "share_url": request.build_absolute_uri(reverse("quotes:shared", args=[quote.share_token]))
        if quote.share_token and not shared and quote.owner_id == request.user.pk
        else "",
    }
    response = render(request, "quotes/detail.html", context)
    if shared:
        response["X-Robots-Tag"] = "noindex"
        response["Referrer-Policy"] = "no-referrer"
    return response


@login_required
@require_GET
def quote_detail(request: HttpRequest, quote_id: int) -> HttpResponse:
    return _page(request, selectors.quote_get(owner=request.user, quote_id=quote_id), shared=False)


@require_GET
def shared_detail(request: HttpRequest, token: str) -> HttpResponse:
    return _page(request, selectors.quote_get_shared(token=token), shared=True)


def _pdf_or_wait(request: HttpRequest, quote: Quote, *, status_url: str) -> HttpResponseBase:
    name = services.quote_pdf_request(quote=quote)
    if name is not None:
        return FileResponse(
            default_storage.open(name, "rb"),
            content_type="application/pdf",
            as_attachment=request.GET.get("inline") is None,
            filename=f"{quote.number}.pdf",
        )
    return render(request, "quotes/rendering.html", {"quote": quote, "status_url": status_url}, status=202)


def _status(request: HttpRequest, quote: Quote, *, pdf_url: str, status_url: str) -> HttpResponse:
    name = services.quote_pdf_ready(quote=quote)
    if name is None:
        # Re-enqueue a render whose worker died (after the grace period); otherwise just report.
        services.quote_pdf_request(quote=quote)
        quote.refresh_from_db(fields=["pdf_status", "pdf_error"])
    response = render(
        request,
        "quotes/_pdf_status.html",
        {"quote": quote, "ready": name is not None, "pdf_url": pdf_url, "status_url": status_url},
    )
    if name is not None and request.headers.get("HX-Request"):
        response["HX-Redirect"] = pdf_url
    return response


@login_required
@require_GET
def quote_pdf(request: HttpRequest, quote_id: int) -> HttpResponseBase:
    quote = selectors.quote_get(owner=request.user, quote_id=quote_id)
    return _pdf_or_wait(request, quote, status_url=reverse("quotes:pdf-status", args=[quote.pk]))


@login_required
@require_GET
def quote_pdf_status(request: HttpRequest, quote_id: int) -> HttpResponse:
    quote = selectors.quote_get(owner=request.user, quote_id=quote_id)
    return _status(
        request,
        quote,
        pdf_url=reverse("quotes:pdf", args=[quote.pk]),
        status_url=reverse("quotes:pdf-status", args=[quote.pk]),
    )


@require_GET
def shared_pdf(request: HttpRequest, token: str) -> HttpResponseBase:
    quote = selectors.quote_get_shared(token=token)
    return _pdf_or_wait(request, quote, status_url=reverse("quotes:shared-pdf-status", args=[token]))


@require_GET
def shared_pdf_status(request: HttpRequest, token: str) -> HttpResponse:
    quote = selectors.quote_get_shared(token=token)
    return _status(
        request,
        quote,
        pdf_url=reverse("quotes:shared-pdf", args=[token]),
        status_url=reverse("quotes:shared-pdf-status", args=[token]),
    )


def _change_link(
    request: HttpRequest, quote_id: int, change: Callable[..., Quote], done: str
) -> HttpResponse:
    """Create or revoke the read-only link of the owner's quote (`change` is the service), then show it."""
    quote = change(quote=selectors.quote_get(owner=request.user, quote_id=quote_id, for_write=True))
    messages.success(request, done)
    return redirect(quote.get_absolute_url())


@login_required
@require_POST
def quote_share(request: HttpRequest, quote_id: int) -> HttpResponse:
    return _change_link(
        request,
        quote_id,
        services.quote_share,
        gettext("Read-only link created. Anyone with the link can read this quote."),
    )


@login_required
@require_POST
def quote_unshare(request: HttpRequest, quote_id: int) -> HttpResponse:
    return _change_link(request, quote_id, services.quote_unshare, gettext("The read-only link is revoked."))
