"""Sentences built by pure code (which cannot import Django), shown in the page's language.

Pure modules mark a sentence with a message id and its values (`checks.rules.base.Msg`, stored as
{"msgid", "params"}); `translated` looks the id up in the active language's catalog and fills in the values,
translating a value that is itself such a message. English, an unknown id or a broken translation give the
stored English text unchanged.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from decimal import Decimal
from typing import Any

from django.utils.translation import gettext, gettext_noop, ngettext, pgettext, pgettext_lazy

from hardware.numbers import is_nan_or_infinite
from portal.formats import data_quantity
from portal.money import USD_MONEY, active


def _fill(message: dict[str, Any]) -> str:
    params = message.get("params") or {}
    values = {k: _fill(v) if isinstance(v, dict) and "msgid" in v else v for k, v in params.items()}
    if not message["msgid"]:
        return ""  # gettext("") is the catalog header
    if message.get("context") == "unit":
        return unit_word(str(message["msgid"])) % values
    if message.get("plural"):  # hardware.messages.Plural: the form of the count in the page's language
        number = int(message.get("count") or 0)
        return ngettext(str(message["msgid"]), str(message["plural"]), number) % values
    return gettext(str(message["msgid"])) % values


def sentences_joined(sentences: Iterable[Any]) -> str:
    """Sentences in a row as the active language writes them: a space after each full stop in English, none
    after Chinese "。" (the catalog's "two sentences in a row"); empty ones left out."""
    shown = [str(sentence).strip() for sentence in sentences if str(sentence or "").strip()]
    text = shown[0] if shown else ""
    pair = pgettext("two sentences in a row", "%(first)s %(second)s")
    for sentence in shown[1:]:
        text = pair % {"first": text, "second": sentence}
    return text


def translated_sentences(parts: Any, fallback: str) -> str:
    """Sentences (a list of messages) in the active language, joined; `fallback` unless all translate."""
    if not isinstance(parts, list) or not parts:
        return fallback
    shown = [translated(part, "") for part in parts]
    return sentences_joined(shown) if all(shown) else fallback


def translated(message: Any, fallback: str) -> str:
    """`message` ({"msgid", "params"}) in the active language; `fallback` when there is none."""
    if not isinstance(message, dict) or not message.get("msgid"):
        return fallback
    try:
        return _fill(message)
    except (KeyError, TypeError, ValueError):
        return fallback


def translated_list(texts: Any, messages: Any) -> list[str]:
    """Each English sentence of `texts` in the active language by the message stored beside it, in the same
    order (sizing.services stores them); a sentence without one, or a list from before they were stored, is
    shown as it is."""
    texts = [str(t) for t in texts or []]
    if not isinstance(messages, list) or len(messages) != len(texts):
        return texts
    return [translated(message, text) for text, message in zip(texts, messages, strict=True)]


def translated_text(text: Any) -> str:
    """A sentence with no values (a class norm's basis) in the active language, looked up by its English."""
    return translated({"msgid": str(text).replace("%", "%%")}, str(text)) if text else ""


def shown(text: Any, message: Any = None) -> str:
    """A sentence in the page's language: a `Msg` (anything with `as_json`) by its own message id, a stored
    text by the message stored beside it (a checklist answer in a quote), else as it is."""
    if hasattr(text, "as_json"):
        message = text.as_json()
    return translated(message, str(text or ""))


_RANGE = re.compile(
    r"^(?:between \$?(?P<low>[\d,.]+) and|greater than (?P<above>[\d,.]+) and at most) "
    r"(?P<money>\$)?(?P<high>[\d,.]+)"  # "$200": an amount in US dollars (providers.facts.MONEY_UNIT)
    r"(?: (?P<unit>\S.*))?$"  # a unit word (days) or a symbol ($/GB-month, GB/s, %, :1)
)


def money_bound(figure: str) -> str:
    """A bound in US dollars ("200") as money is written on the page (portal.money): "$200", and while the
    page shows yuan, the yuan figure with the dollar one the field is entered in: "¥1,437.68 ($200)"."""
    amount = Decimal(figure.replace(",", ""))

    def places(value: Decimal) -> int | None:  # whole amounts without decimals, others as Money writes them
        return 0 if value == value.to_integral_value() else None

    dollars = USD_MONEY.text(amount, places(amount))
    money = active()
    shown = money.convert(amount)
    if not money.converted or shown is None:
        return dollars
    return gettext("%(amount)s (%(usd)s)") % {"amount": money.text(amount, places(shown)), "usd": dollars}


def translated_hint(text: str) -> str:
    """A help text in the page's language, piece by piece ("; "-separated), ranges included."""
    whole = gettext(str(text))
    if whole != str(text):
        return whole
    pieces = []
    for piece in str(text).split("; "):
        match = _RANGE.match(piece)
        if match is None:
            pieces.append(gettext(piece))
            continue
        unit = unit_word(match["unit"])
        low, high = match["low"], match["high"]
        if match["money"]:
            low, high = (None if low is None else money_bound(low)), money_bound(high)
        if low is not None:
            template = gettext("between %(low)s and %(high)s %(unit)s")
        else:
            template = gettext("greater than %(low)s and at most %(high)s %(unit)s")
            low = match["above"]
        text_in_words = template % {"low": low, "high": high, "unit": unit}
        pieces.append(re.sub(r"\s{2,}", " ", text_in_words).strip())
    return gettext("; ").join(pieces)


def translated_bound_error(bound: Any, value: float) -> str | None:
    """A bounded field's range error (`providers.facts.Bound.error`) in the page's language; the same
    English text in English."""
    english = bound.error(value)
    if english is not None and is_nan_or_infinite(value):  # 1e400 reaches a validator as inf
        return gettext("%(label)s must be a finite number, got %(got)s") % {
            "label": gettext(bound.label),
            "got": value,
        }
    if english is None or ", got " not in english:
        return english
    return gettext("%(label)s must be %(allowed)s, got %(got)s") % {
        "label": gettext(bound.label),
        "allowed": translated_hint(bound.range_text()),
        "got": english.rsplit(", got ", 1)[1],
    }


# The units of providers.facts that are words are messages of their own (providers.facts.UNIT_WORDS). One of
# them is also a column header with another translation ("GPUs": "GPU 数", the number of GPUs): after a value
# it is a unit ("64 块 GPU"), kept apart by the "unit" context.
UNIT_CONTEXT_WORDS = (pgettext_lazy("unit", "GPUs"),)


def unit_word(unit: Any) -> str:
    """A unit after a value in the active language: the "unit" context where the word has one
    (UNIT_CONTEXT_WORDS), else the word's own message; a symbol (GB/s) or a word with no entry as it is."""
    if not unit:
        return ""
    word = pgettext("unit", str(unit))
    return word if word != str(unit) else gettext(str(unit))


# The data units of a bill quantity past a thousand GB-months that are words (portal.formats.DATA_UNITS); TB,
# PB and EB are symbols, the same in every language.
DATA_UNIT_WORDS = (gettext_noop("TB-month"), gettext_noop("PB-month"), gettext_noop("EB-month"))


def data_quantity_shown(quantity: Any, unit: str) -> tuple[str, str]:
    """A bill line's quantity in the page's language and the exact figure in the bill's unit beside it:
    ("23.7 EB", "23,695,312,500 GB") for data, (the figure, "") for anything else."""
    shown_quantity = data_quantity(quantity, unit)
    if not shown_quantity.unit:
        return shown_quantity.figure, ""
    return (
        f"{shown_quantity.figure} {unit_word(shown_quantity.unit)}",
        f"{shown_quantity.exact} {unit_word(unit)}",
    )
