"""The codes of enum and list facts by their names in the active language (providers.facts.CHOICE_NAMES):
what the offering page, the browse table, the pitfall evidence and the request-for-quote pages show in place
of a code. Files and the API keep the codes."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext

from hardware import GPUS
from providers.facts import CHOICE_NAMES, choice_name


def code_name(fact_name: str, code: Any, vendor: str | None = None) -> str:
    """One code by its name (providers.facts.choice_name, a mesh by the link of the GPU `vendor`'s),
    translated; a code without a name as it is."""
    if code not in CHOICE_NAMES.get(fact_name, {}):
        return str(code)
    return gettext(choice_name(fact_name, code, vendor))


def value_names(fact_name: str, value: Any, vendor: str | None = None) -> str:
    """A fact's value with each code by its name ("InfiniBand", "Slurm, Kubernetes"); a list is joined with
    ", ", an empty value is ""."""
    if value is None or value == "":
        return ""
    if isinstance(value, list | tuple):
        return ", ".join(code_name(fact_name, code, vendor) for code in value)
    return code_name(fact_name, value, vendor)


def gpu_vendor(gpu: Any) -> str | None:
    """The vendor of a GPU given as a model row (`.vendor`), a hardware table key or a GPU; None unknown."""
    if gpu is None:
        return None
    if isinstance(gpu, str):
        known = GPUS.get(gpu)
        return known.vendor if known is not None else None
    vendor = getattr(gpu, "vendor", None)
    return str(vendor).lower() if vendor else None


def intra_node_shown(offering: Any) -> str:
    """An offering's intra-node interconnect by its name in the page's language, a mesh by its GPU's link."""
    return value_names(
        "intra_node", getattr(offering, "intra_node", None), gpu_vendor(getattr(offering, "gpu", None))
    )
