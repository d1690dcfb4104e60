"""Sentences built by pure code (which cannot import Django), shown in the page's language.

Pure modules mark a sentence with a message id and its values (`checks.rules.base.Msg`, stored as
{"msgid", "params"}); `translated` looks the id up in the active language's catalog and fills in the values,
translating a value that is itself such a message. English, an unknown id or a broken translation give the
stored English text unchanged.
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext


def _fill(message: dict[str, Any]) -> str:
    params = message.get("params") or {}
    values = {k: _fill(v) if isinstance(v, dict) and "msgid" in v else v for k, v in params.items()}
    text = gettext(str(message["msgid"]))
    return text % values


def translated_sentences(parts: Any, fallback: str) -> str:
    """Sentences (a list of messages) in the active language, joined; `fallback` unless all translate."""
    if not isinstance(parts, list) or not parts:
        return fallback
    shown = [translated(part, "") for part in parts]
    return " ".join(shown) if all(shown) else fallback


def translated(message: Any, fallback: str) -> str:
    """`message` ({"msgid", "params"}) in the active language; `fallback` when there is none."""
    if not isinstance(message, dict) or not message.get("msgid"):
        return fallback
    try:
        return _fill(message)
    except (KeyError, TypeError, ValueError):
        return fallback
