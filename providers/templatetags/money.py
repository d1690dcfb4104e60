"""Template tags that show US-dollar amounts in the page's currency (providers.currency.Display, put in the
context as `currency_display` by portal.context_processors.site), with the rate and its date on request."""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Any

from django import template
from django.utils.html import format_html
from django.utils.translation import gettext as _

from portal.money import symbol_text
from providers.currency import USD, Display

register = template.Library()


def _display(context: template.Context) -> Display:
    shown = context.get("currency_display")
    return shown if isinstance(shown, Display) else USD


@register.simple_tag(takes_context=True)
def price(context: template.Context, amount_usd: Any, digits: int = 2) -> str:
    """An amount stored in US dollars, in the page's currency; "not published" for None."""
    money = _display(context).money
    if money.convert(amount_usd) is None:
        return format_html('<span class="np">{}</span>', _("not published"))
    return money.text(amount_usd, digits)


@register.simple_tag(takes_context=True)
def plan_price(context: template.Context, plan: Any, digits: int = 3) -> str:
    """A plan's price per GPU-hour: its published figure when the page shows its own currency, else the
    US-dollar price converted; a yuan-priced plan shown in dollars says it was converted."""
    shown = _display(context)
    native = getattr(plan, "price_native_per_gpu_hour", None)
    own = getattr(plan, "price_currency", "USD")
    if native is not None and own == shown.currency:
        return symbol_text(shown.symbol, Decimal(native), digits)
    text = price(context, getattr(plan, "price_usd_per_gpu_hour", None), digits)
    if native is not None and getattr(plan, "price_usd_per_gpu_hour", None) is not None:
        return format_html('{} <span class="muted">({})</span>', text, _("converted from %(c)s") % {"c": own})
    return text


# "$1,234" or "$1,234.56" inside a sentence built in US dollars (finding impacts, bill totals)
_DOLLARS = re.compile(r"\$(\d{1,3}(?:,\d{3})*(?:\.\d+)?|\d+(?:\.\d+)?)")


@register.simple_tag(takes_context=True)
def dollars_shown(context: template.Context, text: Any) -> str:
    """A sentence written in US dollars with each "$amount" in the page's currency (same decimals); the
    sentence itself unchanged when the page shows dollars."""
    money = _display(context).money
    sentence = str(text or "")
    if not money.converted:
        return sentence

    def convert(match: re.Match[str]) -> str:
        figure = match.group(1)
        places = len(figure.split(".")[1]) if "." in figure else 0
        return money.text(figure.replace(",", ""), places)

    return _DOLLARS.sub(convert, sentence)


@register.inclusion_tag("providers/_fx_note.html", takes_context=True)
def fx_note(context: template.Context) -> dict[str, Any]:
    """The line that says which currency prices are in, at which rate, from which source and date."""
    return {"shown": _display(context)}
