"""The codes of enum and list facts by their names in the active language (providers.facts.CHOICE_NAMES):
what the offering page, the browse table, the pitfall evidence and the request-for-quote pages show in place
of a code. Files and the API keep the codes."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext

from providers.facts import CHOICE_NAMES


def code_name(fact_name: str, code: Any) -> str:
    """One code by its name, translated; a code without a name as it is."""
    named = CHOICE_NAMES.get(fact_name, {})
    return gettext(str(named[code])) if code in named else str(code)


def value_names(fact_name: str, value: Any) -> str:
    """A fact's value with each code by its name ("InfiniBand", "Slurm, Kubernetes"); a list is joined with
    ", ", an empty value is ""."""
    if value is None or value == "":
        return ""
    if isinstance(value, list | tuple):
        return ", ".join(code_name(fact_name, code) for code in value)
    return code_name(fact_name, value)
