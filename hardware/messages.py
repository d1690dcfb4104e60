"""Sentences written by pure code (the engine, the hardware tables) that a page can show in its language.

A `Msg` is the English sentence itself (a str: the engine's JSON, the CLI and the API print exactly what
they printed before) that also carries its message id and values. `_` marks the sentence for
`manage.py makemessages` (which finds the name `_`); the portal stores `as_json()` beside the English text
and `portal.i18n.translated` shows it in the page's language. No Django import: this is the ground floor.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Self


class Msg(str):
    """An English sentence with its message id and named values (`%(name)s` placeholders)."""

    msgid: str
    params: dict[str, Any]

    def __new__(cls, msgid: str, **params: Any) -> Self:
        text = msgid % {k: str(v) for k, v in params.items()}  # "%%" is a percent sign, values or not
        obj = super().__new__(cls, text)
        obj.msgid = msgid
        obj.params = params
        return obj

    def __getnewargs_ex__(self) -> tuple[tuple[str], dict[str, Any]]:  # type: ignore[override]
        # pickled (the run's memo of engine answers) as its id and values, not as the filled-in text
        return (self.msgid,), dict(self.params)

    def as_json(self) -> dict[str, Any]:
        return {
            "msgid": self.msgid,
            "params": {k: v.as_json() if isinstance(v, Msg) else str(v) for k, v in self.params.items()},
        }

    @classmethod
    def from_json(cls, stored: Any, text: Any = "") -> Msg | str:
        """A stored {"msgid", "params"} as the message again (its values too); `text` as a plain string where
        nothing was stored (a verdict from before its messages were)."""
        if not isinstance(stored, dict) or not stored.get("msgid"):
            return str(text)
        params = {
            k: cls.from_json(v, v) if isinstance(v, dict) else v
            for k, v in (stored.get("params") or {}).items()
        }
        if stored.get("plural"):
            number = int(stored.get("count") or 0)
            return Plural(str(stored["msgid"]), str(stored["plural"]), number, **params)
        kind = UnitWord if stored.get("context") == "unit" else Msg
        return kind(str(stored["msgid"]), **params)


class UnitWord(Msg):
    """A unit after a value ("64 GPUs"), translated in the "unit" context where the word has one there
    (portal.i18n.UNIT_CONTEXT_WORDS: "GPUs" is also a column header, "GPU 数", with another translation)."""

    def as_json(self) -> dict[str, Any]:
        return {**super().as_json(), "context": "unit"}


class Plural(Msg):
    """A sentence whose words follow a count ("1 spare node", "3 spare nodes"): the English text is the
    singular for a count of 1 and the plural otherwise; a page picks its language's form (Django's
    ngettext, portal.i18n) by the count stored beside the two message ids. (`number`, not `count`: a str
    has a method of that name.)"""

    plural: str
    number: int

    def __new__(cls, singular: str, plural: str, number: int, **params: Any) -> Self:
        obj = super().__new__(cls, singular if number == 1 else plural, **params)
        obj.msgid, obj.plural, obj.number = singular, plural, number
        return obj

    def __getnewargs_ex__(self) -> tuple[tuple[str, str, int], dict[str, Any]]:  # type: ignore[override]
        return (self.msgid, self.plural, self.number), dict(self.params)

    def as_json(self) -> dict[str, Any]:
        return {**super().as_json(), "plural": self.plural, "count": self.number}


def _(msgid: str, **params: Any) -> Msg:
    """Mark a sentence for translation, its values as named placeholders (pure code cannot import Django's
    gettext; the page translates it when it is shown)."""
    return Msg(msgid, **params)


def ngettext(singular: str, plural: str, count: int, /, **params: Any) -> Plural:
    """Mark a sentence with a singular and a plural form for translation (`manage.py makemessages` finds the
    name `ngettext`), the form chosen by `count`; its values as named placeholders, as `_` (a placeholder may
    itself be named `count`)."""
    return Plural(singular, plural, count, **params)


def joined(*parts: str, sep: str = " ") -> Msg:
    """Sentences (or phrases) joined by `sep`, each translated on its own where it is a Msg. The joining
    message id is not in the catalog, so every language shows a plain `sep` as is; a `sep` that is a Msg
    (`_(", ")`, "、" in Chinese) is translated like the parts."""
    names = [f"p{i}" for i in range(len(parts))]
    values: dict[str, Any] = dict(zip(names, parts, strict=True))
    if isinstance(sep, Msg):
        return Msg("%(sep)s".join(f"%({name})s" for name in names), sep=sep, **values)
    return Msg(sep.replace("%", "%%").join(f"%({name})s" for name in names), **values)


def listed(items: Iterable[Any], *, more: bool = False) -> Msg:
    """What a sentence lists that is not words (bus ids, Xid codes, line numbers, host, port and device
    names) as the page's language writes a list: ", " between the items in English, "、" in Chinese (the
    separator is the catalog's ", ", translated when the sentence is shown, so a message stored at parse
    time follows the reader's page); each item as it is, a Msg translated; "…" last where `more` were left
    out."""
    parts = [item if isinstance(item, Msg) else str(item) for item in items]
    return joined(*parts, *(["…"] if more else []), sep=_(", "))


def sentences(*parts: str) -> Msg:
    """Sentences in a row as the page's language writes them: a space after each full stop in English, none
    after Chinese "。" (each pair is the catalog's "%(first)s %(second)s"; `joined` keeps its `sep` in every
    language). Empty parts are left out."""
    kept = [part for part in parts if part]
    text = joined(*kept[:1])
    for sentence in kept[1:]:
        text = _("%(first)s %(second)s", first=text, second=sentence)
    return text


def messages_of(sentences: Iterable[Any]) -> list[dict[str, Any] | None]:
    """Each sentence's {"msgid", "params"} (None for one not marked), in order: stored beside the English."""
    return [s.as_json() if isinstance(s, Msg) else None for s in sentences]
