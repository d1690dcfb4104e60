"""How findings and checklist answers are shown: labels, icons and links to their evidence.

Severity and status are never shown by colour alone (colour-blind safe, docs/CHECKS.md): each has an
icon and a word; the colours are the Okabe-Ito ones of static/css/site.css.
"""

from __future__ import annotations

from typing import Any

from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from checks.checklist import fact_label
from checks.models import CONTEXT_CLAIMS, Finding
from checks.selectors import finding_list
from checks.severity import Severity
from portal.i18n import shown, translated_list
from providers.facts import FACTS_BY_NAME
from providers.models import Offering
from providers.names import gpu_vendor, value_names

SEVERITY_DISPLAY = {level.value: {"icon": level.icon, "word": level.word} for level in Severity}
# The severity words as message ids (Severity.word is English; pages show it through `severity_word`).
SEVERITY_WORD_IDS = (gettext_noop("Critical"), gettext_noop("Warning"), gettext_noop("Info"))
# ...and the codes themselves, shown after a finding's title in a reference ("… (critical)").
SEVERITY_CODE_IDS = (gettext_noop("critical"), gettext_noop("warning"), gettext_noop("info"))


def severity_word(severity: str) -> str:
    """A severity's word in the page's language ("critical" -> "严重" on a Chinese page)."""
    display = SEVERITY_DISPLAY.get(severity)
    return _(display["word"]) if display else str(severity)


def _severity_code(severity: Any) -> str:
    return _(str(severity)) if str(severity) in SEVERITY_CODE_IDS else str(severity)


def shown_severity(severity: str) -> dict[str, str]:
    """Icon and word of a severity, the word in the page's language."""
    return {"icon": SEVERITY_DISPLAY.get(severity, {}).get("icon", "•"), "word": severity_word(severity)}


STATUS_DISPLAY = {
    "answered": {"icon": "✔", "word": gettext_noop("Answered")},
    "unknown": {"icon": "?", "word": gettext_noop("Unknown")},
    "concern": {"icon": "✖", "word": gettext_noop("Concern")},
}

# Impact numbers worth a line of their own (the rest stays in `text`), with their unit (English; shown
# in the page's language by impact_rows).
IMPACT_LABELS = {
    "gpu_hours_lost": gettext_noop("GPU-hours lost"),
    "usd_lost": gettext_noop("USD lost"),
    "gpu_hours_avoidable": gettext_noop("GPU-hours avoidable"),
    "usd_avoidable": gettext_noop("USD avoidable"),
    "expected_failures": gettext_noop("expected failures"),
    # xgettext:no-python-format
    "slowdown_pct": gettext_noop("% slower"),
    # xgettext:no-python-format
    "comm_share_pct": gettext_noop("% of the step in communication"),
    "gpus_short": gettext_noop("GPUs short"),
    # xgettext:no-python-format
    "unpublished_share_pct": gettext_noop("% of the bill unpublished"),
    # xgettext:no-python-format
    "fees_share_pct": gettext_noop("% of the bill in fees"),
    "gbps_per_gpu": gettext_noop("Gb/s per GPU"),
    "gbps_per_gpu_needed": gettext_noop("Gb/s per GPU needed"),
    "days_over": gettext_noop("days over the deadline"),
    "usd_over": gettext_noop("USD over budget"),
}


# Keys of the facts dict (docs/FACTS.md) that are not a row of the offering page under their own name.
_FACT_ANCHORS = {"nodes": "fact-max_nodes", "billing_plans": "plans", "price_usd_per_gpu_hour": "plans"}


def fact_href(offering_slug: str, fact: str | None) -> str | None:
    """The published fact's row on the offering page (facts without a row link to the page)."""
    if not fact:
        return None
    base = reverse("providers:offering", args=[offering_slug])
    if fact in _FACT_ANCHORS:
        return f"{base}#{_FACT_ANCHORS[fact]}"
    return f"{base}#fact-{fact}" if fact in FACTS_BY_NAME else base


def upload_href(upload_id: Any, lines: list[list[int]] | None) -> str | None:
    """The upload page (DESIGN section 8 /benchmarks/<id>/), anchored at the first cited line."""
    if not isinstance(upload_id, int):
        return None
    anchor = f"#L{lines[0][0]}" if lines and lines[0] else ""
    return reverse("benchmarks:upload", args=[upload_id]) + anchor


def _fact_label_shown(fact: str, vendor: str | None = None) -> str:
    """A fact's label in the page's language (a key without a label as it is: gettext("") is the header)."""
    label = fact_label(fact, vendor)
    return _(label) if label else ""


def _value_text(value: Any, fact: str = "", vendor: str | None = None) -> str:
    """A fact's value in words (the active language): never a raw dict, a list repr or None; an enum or list
    fact's codes by their names (a direct mesh by the link of the GPU `vendor`'s); a dict's entries each by
    its key's fact label and the page's colon ("节点数：4" on a Chinese page), joined by its separator."""
    if value is None:
        return str(_("not published"))
    if isinstance(value, bool):
        return str(_("yes") if value else _("no"))
    if isinstance(value, float) and value.is_integer():
        return f"{value:,.0f}"
    if isinstance(value, list):
        if not value:
            return str(_("none published"))
        if all(isinstance(v, dict) for v in value):
            return _("%(count)d published") % {"count": len(value)}
        return value_names(fact, value, vendor)
    if isinstance(value, dict):
        return _(", ").join(
            f"{_fact_label_shown(str(k), vendor)}{_(': ')}{_value_text(v, str(k), vendor)}"
            for k, v in value.items()
        )
    if isinstance(value, str):
        return value_names(fact, value, vendor)
    return str(value)


def evidence_rows(
    offering_slug: str, evidence: list[dict[str, Any]], messages: Any = None, vendor: str | None = None
) -> list[dict[str, Any]]:
    """The finding's references as the page shows them; a text built from an upload in the page's language
    by the message stored beside it (`messages`: one per reference, None where there is none); `vendor`
    is the offering's GPU vendor, which names its direct mesh."""
    texts = translated_list([ref.get("text", "") for ref in evidence], messages)
    rows: list[dict[str, Any]] = []
    for ref, text in zip(evidence, texts, strict=True):
        source = ref.get("source")
        lines = ref.get("lines") or []
        row: dict[str, Any] = {"source": source, "text": text, "href": None}
        if source == "claim":
            row["label"] = _("published fact")
            row["href"] = fact_href(offering_slug, ref.get("fact"))
            fact = ref.get("fact")
            if fact and str(row["text"]).startswith(f"{fact} = "):  # the rule's default wording: in words
                row["text"] = (
                    f"{_fact_label_shown(fact, vendor)} = {_value_text(ref.get('value'), fact, vendor)}"
                )
        elif source == "evidence":
            spans = _(", ").join(f"{a}" if a == b else f"{a}-{b}" for a, b in lines)
            row["label"] = f"{ref.get('file')}" + (_(", lines %(spans)s") % {"spans": spans} if spans else "")
            row["href"] = upload_href(ref.get("upload_id"), lines)
        else:
            row["label"] = _("model")
        rows.append(row)
    return rows


def impact_rows(impact: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        {"label": _(label), "value": impact[key]}
        for key, label in IMPACT_LABELS.items()
        if isinstance(impact.get(key), int | float) and not isinstance(impact.get(key), bool)
    ]


def finding_view(finding: Finding) -> dict[str, Any]:
    return {
        "finding": finding,
        "severity": shown_severity(finding.severity),
        "evidence": evidence_rows(
            finding.offering.slug,
            finding.evidence or [],
            (finding.messages or {}).get("evidence"),
            gpu_vendor(finding.offering.gpu),
        ),
        "impact_text": finding.shown_impact,
        "impact": impact_rows(finding.impact or {}),
    }


def checklist_view(
    offering_slug: str,
    item: dict[str, Any],
    finding_titles: dict[str, str] | None = None,
    vendor: str | None = None,
) -> dict[str, Any]:
    """A checklist answer for the page: its status as icon and word, its references in words (a finding by
    its title, a fact by its label and value, a direct mesh by the link of the GPU `vendor`'s), each linked
    to where it is shown."""
    finding_titles = finding_titles or {}
    refs: list[dict[str, Any]] = []
    for ref in item.get("refs") or []:
        if "finding" in ref:
            refs.append(
                {
                    "text": f"{finding_titles.get(ref['finding'], _('a finding'))}"
                    f" ({_severity_code(ref.get('severity'))})",
                    "href": "#finding-" + str(ref["finding"]),
                }
            )
        elif "fact" in ref:
            value = _value_text(ref.get("value"), ref["fact"], vendor)
            refs.append(
                {
                    "text": f"{_fact_label_shown(ref['fact'], vendor)}{_(': ')}{value}",
                    "href": fact_href(offering_slug, ref["fact"]),
                }
            )
        elif "file" in ref:
            refs.append({"text": str(ref["file"]), "href": upload_href(ref.get("upload_id"), None)})
    messages = item.get("messages") or {}
    return {
        **item,
        **{key: shown(item.get(key, ""), messages.get(key)) for key in ("question", "why", "answer")},
        "display": {
            **STATUS_DISPLAY.get(item["status"], {"icon": "•", "word": item["status"]}),
            "word": _(STATUS_DISPLAY.get(item["status"], {}).get("word", item["status"])),
        },
        "refs": refs,
    }


def findings_for_offering_page(offering: Offering) -> list[dict[str, Any]]:
    """The offering's catalog findings ("claims" context), most severe first, ready for the template."""
    return [finding_view(f) for f in finding_list(offering=offering, context=CONTEXT_CLAIMS)]
