"""`{{ code|verdict_word }}`: a verdict (pass, warn, fail, cannot-measure, incomplete) or a finding's severity
shown as a word in the page's language, never as its code."""

from __future__ import annotations

from django import template
from django.utils.translation import gettext, gettext_noop

register = template.Library()

# English message ids: the same word on an English page as the code it stands for.
WORDS = {
    "pass": gettext_noop("pass"),
    "warn": gettext_noop("warn"),
    "fail": gettext_noop("fail"),
    "cannot-measure": gettext_noop("cannot-measure"),
    "incomplete": gettext_noop("incomplete"),
    "critical": gettext_noop("critical"),
    "warning": gettext_noop("warning"),
    "info": gettext_noop("info"),
}


@register.filter
def verdict_word(code: object) -> str:
    """The word for a verdict or severity code in the page's language; an unknown code as it is."""
    word = WORDS.get(str(code))
    return gettext(word) if word else str(code or "")
