"""Why a planner run failed, in words: a `Msg`, stored on the run as its English (`PlanRun.error`, which the
API returns as it is) with its message id and values beside it (`PlanRun.error_message`); the pages and the
API's `error_localized` show it in the request's language from the message, or, for a run that failed before
the message was stored, by reading the English sentence back against its template."""

from __future__ import annotations

import re
from typing import Any

from django.utils.translation import gettext, gettext_noop

from hardware.messages import Msg
from portal.i18n import translated

NO_PROGRESS = gettext_noop(
    "Sizing made no progress for %(minutes)s minutes: the sizing workers are stopped or overloaded. "
    "Results already computed are kept; Retry sizes the rest."
)
CHUNK_ERROR = gettext_noop(
    "Sizing stopped on an unexpected error while sizing %(what)s. "
    "Results already computed are kept; Retry sizes the rest."
)
TIME_LIMIT = gettext_noop(
    "Sizing %(what)s took longer than a sizing task may run (%(seconds)s s). "
    "Results already computed are kept; Retry sizes the rest."
)
TEMPLATES = (NO_PROGRESS, CHUNK_ERROR, TIME_LIMIT)
# What a failed task was sizing: the fan-out, a chunk by its size, or one offering by its name in quotes.
WHAT_LIST = gettext_noop("the list of offerings")
WHAT_COUNT = gettext_noop("%(n)s offerings")
LIST_OF_OFFERINGS = Msg(WHAT_LIST)


def chunk_what(count: int) -> Msg:
    return Msg(WHAT_COUNT, n=f"{count:,}")


def offering_what(name: str) -> str:
    """One offering by its name in quotes (the catalog's own data: not translated)."""
    return f"“{name}”"


def no_progress(minutes: int) -> Msg:
    return Msg(NO_PROGRESS, minutes=minutes)


def chunk_error(what: str) -> Msg:
    return Msg(CHUNK_ERROR, what=what)


def time_limit(what: str, seconds: int) -> Msg:
    return Msg(TIME_LIMIT, what=what, seconds=seconds)


def _pattern(template: str) -> re.Pattern[str]:
    escaped = re.escape(template)
    return re.compile("^" + re.sub(r"%\\\(([a-z]+)\\\)s", r"(?P<\1>.+?)", escaped) + "$", re.DOTALL)


_PATTERNS = tuple((template, _pattern(template)) for template in TEMPLATES)
_COUNT = re.compile(r"^(?P<n>[\d,]+) offerings$")


def _what_shown(what: str) -> str:
    if what == WHAT_LIST:
        return gettext(WHAT_LIST)
    if match := _COUNT.match(what):
        return gettext(WHAT_COUNT) % {"n": match["n"]}
    return what  # an offering's name in quotes: the catalog's own data


def run_error_shown(error: str, message: Any = None) -> str:
    """A run's failure in the page's language: by its stored message (`PlanRun.error_message`), else by its
    English sentence read back against its template (a sentence of no known template as it is)."""
    return translated(message, "") or _read_back(error)


def _read_back(error: str) -> str:
    for template, pattern in _PATTERNS:
        match = pattern.match(error or "")
        if match is None:
            continue
        values = match.groupdict()
        if "what" in values:
            values["what"] = _what_shown(values["what"])
        try:
            return gettext(template) % values
        except (KeyError, TypeError, ValueError):
            return error
    return error
