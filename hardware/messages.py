"""Sentences written by pure code (the engine, the hardware tables) that a page can show in its language.

A `Msg` is the English sentence itself (a str: the engine's JSON, the CLI and the API print exactly what
they printed before) that also carries its message id and values. `_` marks the sentence for
`manage.py makemessages` (which finds the name `_`); the portal stores `as_json()` beside the English text
and `portal.i18n.translated` shows it in the page's language. No Django import: this is the ground floor.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any


class Msg(str):
    """An English sentence with its message id and named values (`%(name)s` placeholders)."""

    msgid: str
    params: dict[str, Any]

    def __new__(cls, msgid: str, **params: Any) -> Msg:
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
        kind = UnitWord if stored.get("context") == "unit" else Msg
        return kind(str(stored["msgid"]), **params)


class UnitWord(Msg):
    """A unit after a value ("64 GPUs"), translated in the "unit" context where the word has one there
    (portal.i18n.UNIT_CONTEXT_WORDS: "GPUs" is also a column header, "GPU 数", with another translation)."""

    def as_json(self) -> dict[str, Any]:
        return {**super().as_json(), "context": "unit"}


def _(msgid: str, **params: Any) -> Msg:
    """Mark a sentence for translation, its values as named placeholders (pure code cannot import Django's
    gettext; the page translates it when it is shown)."""
    return Msg(msgid, **params)


def joined(*parts: str, sep: str = " ") -> Msg:
    """Sentences (or phrases) joined by `sep`, each translated on its own where it is a Msg. The joining
    message id is not in the catalog, so every language shows a plain `sep` as is; a `sep` that is a Msg
    (`_(", ")`, "、" in Chinese) is translated like the parts."""
    names = [f"p{i}" for i in range(len(parts))]
    values: dict[str, Any] = dict(zip(names, parts, strict=True))
    if isinstance(sep, Msg):
        return Msg("%(sep)s".join(f"%({name})s" for name in names), sep=sep, **values)
    return Msg(sep.replace("%", "%%").join(f"%({name})s" for name in names), **values)


def messages_of(sentences: Iterable[Any]) -> list[dict[str, Any] | None]:
    """Each sentence's {"msgid", "params"} (None for one not marked), in order: stored beside the English."""
    return [s.as_json() if isinstance(s, Msg) else None for s in sentences]
