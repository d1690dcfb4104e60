"""The codes of enum and list facts by their names in the active language (providers.facts.CHOICE_NAMES):
what the offering page, the browse table, the pitfall evidence and the request-for-quote pages show in place
of a code. Files and the API keep the codes."""

from __future__ import annotations

import re
from typing import Any

from django.utils.translation import get_language, gettext, pgettext

from hardware import GPUS, gpu_shown
from providers.facts import CHOICE_NAMES, FACTS, FACTS_BY_NAME, PLAN_BOUNDS, choice_name, fact_label


def provider_shown_name(name: str, native_name: str | None) -> str:
    """A provider as a page names it: on a Chinese page the native name first, beside the English one
    ("阿里云 · Alibaba Cloud"); the English name on any other page."""
    if native_name and (get_language() or "").startswith("zh"):
        return f"{native_name} · {name}"
    return name


def offering_title(provider: str, offering: str) -> str:
    """A provider (as the page names it) and its offering: "Provider: Offering", with the full-width colon
    on a Chinese page ("Provider：Offering", the catalog's "a provider and its offering")."""
    return pgettext("a provider and its offering", "%(provider)s: %(offering)s") % {
        "provider": provider,
        "offering": offering,
    }


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
        return gettext(", ").join(code_name(fact_name, code, vendor) for code in value)
    if fact_name == "gpu" and (name := gpu_shown(value)) is not None:
        return name
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


# A fact's or a plan term's catalog name has an underscore ("nvlink_domain_gpus", "term_months"): in a note's
# prose it is never a word.
_NAMED = [f.name for f in FACTS] + list(PLAN_BOUNDS)
_FACT_NAME = "|".join(sorted((re.escape(name) for name in _NAMED if "_" in name), key=len, reverse=True))
_FACT_NAMES = re.compile(r"(?<![\w-])(" + _FACT_NAME + r")(?![\w-])")

# How a transcriber records a value left empty: "-> max_nodes null", "-> left null", "so term_months null",
# "intra_node left null", "is left null", "(null)", "egress: null". Each reads as words on a page.
_EMPTY = r"(?:null|None)\b"
_ARROW_EMPTY = re.compile(r"\s*->\s*(?:left\s+)?(?:(?P<fact>" + _FACT_NAME + r")\s+)?" + _EMPTY)
_FACT_EMPTY = re.compile(
    r"(?<![\w-])(?P<fact>" + _FACT_NAME + r")\s+(?:(?:is|stays)\s+)?(?:left\s+)?" + _EMPTY
)
_LEFT_EMPTY = re.compile(r"\b(?P<left>[Ll])eft\s+" + _EMPTY)  # "Left null: ..." begins a sentence
# a bare "null" only where it records a value (in brackets, after a colon or an equals sign, or ending a
# clause): "The API returns null for storage" keeps its word
_BARE_EMPTY = re.compile(
    r"(?<![\w'-])null(?=\))|(?<=[:=]\s)null\b|(?<=[:=])null\b|(?<![\w'-])null(?=\s*(?:[.;,]|$))|(?<=\()None\b"
)


def _catalog_label(name: str, vendor: str | None) -> str:
    """The English label (a message id) of a fact (in the GPU `vendor`'s terms) or of a plan term."""
    return fact_label(name, vendor) if name in FACTS_BY_NAME else PLAN_BOUNDS[name].label


def _empty_values(note: str, vendor: str | None) -> str:
    """A note's records of a value left empty as words in the page's language, and its other arrows ("'HGX'
    -> NVSwitch board") as the arrow sign."""

    def label(match: re.Match[str]) -> str:
        return gettext(_catalog_label(match["fact"], vendor))

    def arrow(match: re.Match[str]) -> str:
        if match["fact"]:
            return gettext(", so %(fact)s is left blank") % {"fact": label(match)}
        return gettext(", so it is left blank")

    def left(match: re.Match[str]) -> str:
        return gettext("Left blank") if match["left"] == "L" else gettext("left blank")

    text = _ARROW_EMPTY.sub(arrow, note)
    text = _FACT_EMPTY.sub(lambda m: gettext("%(fact)s is left blank") % {"fact": label(m)}, text)
    text = _LEFT_EMPTY.sub(left, text)
    text = _BARE_EMPTY.sub(lambda m: gettext("left blank"), text)
    text = _ARROW_CODE.sub(lambda m: "→ " + _arrow_target(m["code"], vendor), text)
    return text.replace("->", "→")


# What an arrow records a published phrase as: a code of one fact ("'NVLink + NVSwitch' -> nvswitch") or a
# fact's name ("-> exclusivity"), each read by its name; a code two facts share ("other") stays as written.
def _facts_of_codes() -> dict[str, str]:
    """Each code that exactly one fact uses, with that fact."""
    facts: dict[str, set[str]] = {}
    for fact, names in CHOICE_NAMES.items():
        for code in names:
            facts.setdefault(str(code), set()).add(fact)
    return {code: next(iter(owners)) for code, owners in facts.items() if len(owners) == 1}


_CODE_FACT = _facts_of_codes()
_ARROW_WORDS = sorted([*_CODE_FACT, *_NAMED], key=len, reverse=True)
_ARROW_CODE = re.compile(r"->\s*(?P<code>" + "|".join(re.escape(w) for w in _ARROW_WORDS) + r")(?![\w-])")


def _arrow_target(word: str, vendor: str | None) -> str:
    if word in _CODE_FACT:
        return code_name(_CODE_FACT[word], word, vendor)
    return gettext(_catalog_label(word, vendor))


# A GPU's table key in a note ("-> GPU table key Ascend-910B-64GB"): the transcriber's record of how a
# published name was read, which a buyer reads as the GPU's name.
_GPU_KEYS = re.compile(
    r"(?:GPU table key )?(?<![\w-])("
    + "|".join(sorted((re.escape(k) for k in GPUS), key=len, reverse=True))
    + r")(?![\w-])"
)


def note_text(note: str, sources: dict[str, str] | None = None, vendor: str | None = None) -> str:
    """A catalog note as a buyer reads it: a fact's catalog name by its label ("nvlink_domain_gpus 8" reads
    "NVLink domain 8"), and a cited source's key, always hyphenated in the catalog ("ml-eng-network"), by
    what `sources` maps it to (a quote's reference number, the source's title on the offering page). The
    note's own words are the transcriber's and stay as written, but a value they record as left empty ("->
    max_nodes null") reads as words ("so Maximum nodes in one fabric is left blank"), never "null" or "->";
    files and the API keep the note unchanged. A label is in the terms of the GPU `vendor`'s
    (providers.facts.fact_label)."""
    if not note:
        return ""
    text = _FACT_NAMES.sub(lambda m: _catalog_label(m.group(1), vendor), _empty_values(note, vendor))
    text = _GPU_KEYS.sub(lambda m: GPUS[m.group(1)].name, text)
    keys = sorted((k for k in sources or {} if "-" in k), key=len, reverse=True)
    if keys:
        pattern = re.compile(r"(?<![\w-])(" + "|".join(re.escape(k) for k in keys) + r")(?![\w-])")
        text = pattern.sub(lambda m: (sources or {})[m.group(1)], text)
    return text
