"""`{% sentences first second ... %}`: sentences a template translated (`{% translate ... as x %}`,
`{% blocktranslate asvar x %}`) written in a row as the page's language writes them: a space between them in
English, none after Chinese "。" (portal.i18n.sentences_joined)."""

from __future__ import annotations

from typing import Any

from django import template
from django.utils.html import conditional_escape
from django.utils.safestring import SafeString, mark_safe

from portal.i18n import sentences_joined

register = template.Library()


@register.simple_tag
def sentences(*parts: Any) -> SafeString:
    """The sentences in a row, each escaped (a translated one is already safe), empty ones left out."""
    return mark_safe(sentences_joined(conditional_escape(part) for part in parts if part))  # noqa: S308 (escaped)
