"""Session login with a limit on failed attempts (per normalised user name and client address)."""

from __future__ import annotations

from typing import Any

from django import forms
from django.conf import settings
from django.contrib import messages
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.contrib.auth.forms import AuthenticationForm
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_POST

from accounts import ratelimit, selectors, services
from providers.currency import COOKIE as currency_cookie
from providers.models import Currency


def login_limit() -> ratelimit.Limit:
    return ratelimit.Limit(
        scope="login",
        max_hits=settings.RATE_LIMIT_LOGIN_FAILURES,
        window_seconds=settings.RATE_LIMIT_LOGIN_WINDOW_SECONDS,
    )


def login_key(request: HttpRequest, username: str) -> str:
    """The failed-attempt counter's key: the normalised identity and the client address."""
    return f"{ratelimit.normalised_identity(username)}|{ratelimit.client_ip(request)}"


def rate_limited_page(request: HttpRequest, *, message: str, retry_after: int) -> HttpResponse:
    """The 429 page of every limit (failed log-ins, uploads), with its Retry-After header."""
    response = render(request, "accounts/rate_limited.html", {"message": message}, status=429)
    response["Retry-After"] = str(retry_after)
    return response


def too_many_logins_page(request: HttpRequest, retry_after: int) -> HttpResponse:
    minutes = max(1, round(retry_after / 60))
    message = (
        "Too many failed log-in attempts for this user name. "
        f"Please wait about {minutes} minute{'s' if minutes != 1 else ''} and try again."
    )
    return rate_limited_page(request, message=message, retry_after=retry_after)


class LoginView(auth_views.LoginView):
    template_name = "accounts/login.html"

    def post(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        retry_after = ratelimit.blocked_for(
            login_limit(), login_key(request, request.POST.get("username", ""))
        )
        if retry_after:
            return too_many_logins_page(request, retry_after)
        return super().post(request, *args, **kwargs)

    def form_invalid(self, form: AuthenticationForm) -> HttpResponse:
        ratelimit.record(login_limit(), login_key(self.request, self.request.POST.get("username", "")))
        return super().form_invalid(form)


@login_required
def account(request: HttpRequest) -> HttpResponse:
    """The account page: who you are and your API token, with a button that revokes it."""
    token = selectors.token_get(user=request.user)
    context: dict[str, Any] = {
        "token": token,
        "expires_at": services.token_expires_at(token=token) if token else None,
        "expired": services.token_expired(token=token) if token else False,
        "lifetime_days": max(1, settings.API_TOKEN_LIFETIME_HOURS // 24),
    }
    return render(request, "accounts/account.html", context)


@login_required
@require_POST
def token_revoke(request: HttpRequest) -> HttpResponse:
    if services.token_revoke(user=request.user):
        messages.success(request, "Your API token is revoked; scripts that used it are refused from now on.")
    return redirect("accounts:account")


class PreferencesForm(forms.Form):
    currency = forms.ChoiceField(choices=Currency.choices, label=gettext_lazy("Show prices in"))


@login_required
def preferences(request: HttpRequest) -> HttpResponse:
    """The signed-in user's display settings: the currency prices are shown in (the language follows the
    switcher in the header)."""
    user: Any = request.user
    if request.method == "POST":
        form = PreferencesForm(request.POST)
        if form.is_valid():
            user.currency = form.cleaned_data["currency"]
            user.save(update_fields=["currency"])
            saved = _("Saved: prices are shown in %(c)s.") % {"c": user.get_currency_display()}
            messages.success(request, saved)
            response = redirect("accounts:preferences")
            response.delete_cookie(currency_cookie)  # the setting wins over an earlier ?currency= choice
            return response
    else:
        form = PreferencesForm(initial={"currency": user.currency})
    return render(request, "accounts/preferences.html", {"form": form})
