"""How a quote reads, computed once from its snapshot so the page and the PDF show identical strings.

Money is formatted from the snapshot's exact decimal strings (portal.money); the findings' titles are shown
in the active language (the quote's, when the PDF is written: portal.i18n).
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django.conf import settings
from django.utils import translation
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from checks.severity import Severity  # pure, like this module
from portal.formats import days_text, figure, goodput_text, percent_text
from portal.i18n import (
    data_quantity_shown,
    shown,
    translated,
    translated_list,
    translated_sentences,
    unit_word,
)
from portal.money import Money, active, decimal_or_none, shown_in  # pure, like this module

# the fact registry: plain data, no Django import
from providers.facts import FACTS, FACTS_BY_NAME, GROUPS, fact_label
from providers.names import (
    gpu_vendor,
    note_text,
    value_names,
)  # the codes' names, translated (no model import)
from sizing.bill import LINE_ITEM_LABELS, compute_unpriced  # pure, like this module
from sizing.engine.accuracy import accuracy_sentence  # pure
from sizing.engine_words import optimizer_words, page_worded_list
from sizing.presets import PRESET_LABELS  # pure
from sizing.summary import ITERATION_LABELS, part_label

NOT_PUBLISHED = "not published"
# The parts of one step in the engine's order (the order of sizing.summary's labels). PostgreSQL's jsonb
# does not keep key order, so anything shown from a dict of the snapshot is put in a fixed order here.
ITERATION_ORDER = tuple(k for k in ITERATION_LABELS if k != "total")
# Icon and word of each severity (the word a message id: shown in the quote's language).
SEVERITY_WORDS = {level.value: (level.icon, level.word) for level in Severity}


_dec = decimal_or_none


# The bill's line labels (sizing.bill.LINE_ITEM_LABELS, pure) as message ids, so the catalog has them;
# tests/test_i18n.py checks that this list and the bill's labels are the same.
LINE_ITEM_MSGIDS = (
    gettext_noop("Compute"),
    gettext_noop("Failure and restart overhead"),
    gettext_noop("Spare nodes"),
    gettext_noop("Checkpoint storage"),
    gettext_noop("Dataset storage"),
    gettext_noop("Internet egress"),
    gettext_noop("Inter-node traffic"),
    gettext_noop("Support"),
    gettext_noop("Setup fee"),
)


def item_label(item: Any) -> str:
    """A bill line item as the buyer reads it ("failure_overhead" -> "Failure and restart overhead"), in
    the active language."""
    label = LINE_ITEM_LABELS.get(item)
    return _(label) if label else str(item)


def iteration_label(part: str) -> str:
    """A part of the step time in the quote's language ("tp_comm" -> "tensor-parallel communication")."""
    return part_label(part, ITERATION_LABELS)


def iteration_items(sizing: dict[str, Any]) -> list[tuple[str, Any]]:
    """The step-time breakdown of the sizing as (part, seconds), in a fixed order."""
    parts = dict(sizing.get("iteration_breakdown_s") or {})
    known = [k for k in ITERATION_ORDER if k in parts]
    return [(k, parts[k]) for k in known + sorted(set(parts) - set(known))]


def usd(value: Any, missing: str | None = None) -> str:
    """`$1,234,567.89` (in the quote's currency: `¥8,888,888.81` for a quote issued in yuan), or the word
    for a price nobody published."""
    return active().text(value, 2, _(NOT_PUBLISHED) if missing is None else missing)


def unit_price(value: Any) -> str:
    """A unit price with every published digit (storage is priced in fractions of a cent)."""
    return active().text(value, None, _(NOT_PUBLISHED))


def quote_money(snapshot: dict[str, Any]) -> Money:
    """The currency a quote shows its figures in: the rate frozen in its snapshot ("fx"), else US dollars."""
    return Money.from_dict(snapshot.get("fx"))


def number(value: Any, places: int = 2) -> str:
    """Thousands separators, at most `places` decimals, no trailing zeros (portal.formats.figure)."""
    return figure(value, places)


def fact_text(value: Any, unit: str = "", name: str = "", vendor: str | None = None) -> str:
    """A fact's value in the quote's language; `name` (the fact's) shows an enum or list code by its name
    (an intra-node mesh by the link of the GPU `vendor`'s)."""
    if value is None or value == []:
        return _(NOT_PUBLISHED)
    if isinstance(value, bool):
        return _("yes") if value else _("no")
    if isinstance(value, list):
        return value_names(name, value, vendor)
    if isinstance(value, str) and name:
        return value_names(name, value, vendor)
    if (
        isinstance(value, float | int | Decimal | str)
        and _dec(value) is not None
        and not isinstance(value, str)
    ):
        return f"{number(value, 6)} {unit_word(unit)}".strip()
    return f"{value} {unit_word(unit)}".strip() if unit and not isinstance(value, str) else str(value)


def bill_rows(bill: dict[str, Any], note_messages: Any = None) -> list[dict[str, str]]:
    """The bill's lines as the quote shows them, each note in the quote's language by the message stored
    beside it (`note_messages`, one per line)."""
    lines = bill.get("lines") or []
    notes = translated_list([ln.get("note") or "" for ln in lines], note_messages)
    rows = []
    for ln, note in zip(lines, notes, strict=True):
        quantity, exact = data_quantity_shown(ln.get("quantity"), str(ln.get("unit") or ""))
        rows.append(
            {
                "item": item_label(ln.get("item")),
                "quantity": quantity,
                "quantity_exact": exact,  # the figure in GB, for the title and the PDF
                "unit": _(str(ln["unit"])) if ln.get("unit") else "",
                "unit_price": unit_price(ln.get("unit_price_usd")),
                "usd": usd(ln.get("usd"), missing=_("unknown")),
                "published": "yes" if ln.get("published", True) else "no",
                "note": note,
            }
        )
    return rows


def _refs(evidence: list[dict[str, Any]], messages: Any = None, vendor: str | None = None) -> list[str]:
    """The finding's references in words, a text built from an upload in the quote's language; `vendor` is
    the offering's GPU vendor, which names its direct mesh."""
    texts = translated_list([str(ref.get("text") or "") for ref in evidence or []], messages)
    out = []
    for ref, text in zip(evidence or [], texts, strict=True):
        fact = FACTS_BY_NAME.get(str(ref.get("fact")))
        if ref.get("file"):
            lines = _(", ").join(f"{a}–{b}" if a != b else str(a) for a, b in ref.get("lines") or [])
            text += f" ({ref['file']}{_(', lines %(spans)s') % {'spans': lines} if lines else ''})"
        elif fact is not None and text.startswith(f"{fact.name} = "):  # the rule's default wording: in words
            value = fact_text(ref.get("value"), fact.unit, fact.name, vendor)
            text = f"{_(fact_label(fact.name, vendor))} = {value}"
        elif ref.get("fact") and ref.get("source") != "model" and str(ref["fact"]) not in text:
            label = _(fact_label(fact.name, vendor)) if fact is not None else str(ref["fact"])
            name = fact.name if fact is not None else ""
            text += f" ({label} = {fact_text(ref.get('value'), name=name, vendor=vendor)})"
        out.append(text)
    return out


# Whatever a snapshot holds (one frozen before the length limits, a hand-edited row), the page and the PDF
# show at most this much of any one text and of any one list, so rendering time stays bounded.
DISPLAY_TEXT_MAX = 5000
DISPLAY_LIST_MAX = 500
TRUNCATED = " … (truncated)"


def bounded(value: Any) -> Any:
    """`value` with every string cut to DISPLAY_TEXT_MAX characters and every list to DISPLAY_LIST_MAX."""
    if isinstance(value, str):
        return value if len(value) <= DISPLAY_TEXT_MAX else value[:DISPLAY_TEXT_MAX] + TRUNCATED
    if isinstance(value, dict):
        return {key: bounded(item) for key, item in value.items()}
    if isinstance(value, list):
        return [bounded(item) for item in value[:DISPLAY_LIST_MAX]]
    return value


def unknown_fees(bill: dict[str, Any]) -> list[str]:
    """The bill's lines whose price the provider does not publish, by name."""
    return [item_label(ln.get("item")) for ln in bill.get("lines") or [] if ln.get("usd") is None]


def bill_range(snapshot: dict[str, Any], bill: dict[str, Any]) -> str:
    """ "$low to $high" of an incomplete bill when the snapshot carries its range, else ""."""
    low = snapshot.get("cost_low_usd", bill.get("cost_low_usd"))
    high = snapshot.get("cost_high_usd", bill.get("cost_high_usd"))
    if bill.get("complete") or low is None or high is None:
        return ""
    return _("%(low)s to %(high)s") % {"low": usd(low), "high": usd(high)}


def bill_central(bill: dict[str, Any]) -> str:
    """ "$central" of an incomplete bill: every unpublished fee at the middle of its typical range, the figure
    the planner's ranking shows for the same offering; "" when the bill is complete or carries none."""
    central = bill.get("cost_central_usd")
    if bill.get("complete") or central is None:
        return ""
    return usd(central)


def preset_note(workload: dict[str, Any]) -> str:
    """The preset a quote's workload came from, by its name ("Llama 3 70B", never its code), when the
    workload's own name does not already say it; "" otherwise."""
    preset = workload.get("preset") or ""
    if not preset:
        return ""
    source = PRESET_LABELS.get(preset, preset)
    # a workload named after its preset in another language (made on a Chinese page, quoted in English)
    # does not get it twice either
    names = {source}
    for code, _name in settings.LANGUAGES:
        with translation.override(code):
            names.add(_(source))
    return "" if workload.get("name") in names else _(source)


def quote_view(snapshot: dict[str, Any]) -> dict[str, Any]:
    """The strings of a quote, ready for the templates (texts and lists bounded: `bounded`), its figures in
    the currency it was issued in."""
    with shown_in(quote_money(snapshot)) as money:
        return {**_quote_strings(bounded(snapshot)), "money": money}


def _quote_strings(snapshot: dict[str, Any]) -> dict[str, Any]:
    bill = snapshot.get("bill") or {}
    sizing = snapshot.get("sizing") or {}
    goodput = sizing.get("goodput") or {}
    plan = snapshot.get("plan") or {}
    total_label = (
        _("Total") if bill.get("complete") else _("Total of the published lines (the bill is incomplete)")
    )
    # Without a GPU price the published lines sum to next to nothing: no total is shown, never "$0.00".
    no_price = compute_unpriced(bill)
    if no_price:
        total_label = _("No total: the provider publishes no GPU price")
    sources = _sources(snapshot)
    numbers = {_source_id(s): s["number"] for s in sources}
    return {
        "number": snapshot.get("number", ""),
        "issued_on": snapshot.get("issued_on", ""),
        "valid_until": snapshot.get("valid_until", ""),
        "buyer": snapshot.get("buyer") or {},
        "offering": snapshot.get("offering") or {},
        "workload": snapshot.get("workload") or {},
        "preset_note": preset_note(snapshot.get("workload") or {}),
        # the convention the workload stated; "" when none (the sizing says which default it took) or the
        # quote predates the field
        "optimizer": optimizer_words((snapshot.get("workload") or {}).get("optimizer")),
        "plan": plan,
        "plan_price": unit_price(plan.get("price_usd_per_gpu_hour")),
        "complete": bool(bill.get("complete")),
        "total": _("no price") if no_price else usd(bill.get("total_usd")),
        "no_price": no_price,
        "total_label": total_label,
        "unknown_fees": unknown_fees(bill),
        "range": bill_range(snapshot, bill),
        "central": bill_central(bill),
        "per_billion_tokens": "—" if no_price else usd(bill.get("usd_per_billion_tokens"), missing="—"),
        # a derived figure, in cents like the planner result page (not a published price with every digit)
        "per_useful_gpu_hour": "—" if no_price else usd(bill.get("usd_per_useful_gpu_hour")),
        "bill_rows": bill_rows(bill, snapshot.get("bill_line_note_messages")),
        "plans": [_plan_row(p) for p in bill.get("plans") or []],
        "layout": snapshot.get("layout_text") or "—",
        "headline": _headline(snapshot),
        "accuracy": shown(accuracy_sentence(sizing.get("accuracy"))),
        "goodput": _goodput_rows(goodput),
        "goodput_note": translated(sizing.get("restart_message"), str(goodput.get("restart") or "")),
        "iteration": [(iteration_label(k), number(v, 3)) for k, v in iteration_items(sizing)]
        + [(iteration_label("total"), number(sizing.get("iteration_time_s"), 3))],
        "explanation": translated_list(
            sizing.get("explanation"), page_worded_list(sizing.get("explanation_messages"))
        ),
        "sizing_assumptions": translated_list(
            sizing.get("assumptions"), page_worded_list(sizing.get("assumption_messages"))
        ),
        "bill_assumptions": translated_list(
            bill.get("assumptions"), snapshot.get("bill_assumption_messages")
        ),
        "findings": [
            _finding(f, gpu_vendor((snapshot.get("facts") or {}).get("gpu")))
            for f in snapshot.get("findings") or []
        ],
        "acceptance": [_acceptance(a) for a in snapshot.get("acceptance") or []],
        "open": _open(snapshot),
        "fact_groups": _fact_groups(snapshot, numbers, {s["key"]: s["ref"] for s in sources if s.get("key")}),
        "provenance": snapshot.get("provenance") or [],
        "plan_sources": [_plan_source(p, numbers) for p in snapshot.get("plans") or []],
        "sources": sources,
    }


def _acceptance(test: dict[str, Any]) -> dict[str, Any]:
    """A frozen acceptance test with its rows and findings in the reader's language (by the messages frozen
    beside them; a quote from before they were, as it was frozen)."""
    rows = [
        {
            **row,
            **{
                key: translated(message, str(row.get(key, "")))
                for key, message in row.get("messages", {}).items()
            },
        }
        for row in test.get("rows") or []
    ]
    findings = translated_list(test.get("findings"), test.get("finding_messages"))
    return {**test, "rows": rows, "findings": findings}


def _plan_row(plan: dict[str, Any]) -> dict[str, Any]:
    """One billing plan as the bill priced the job under it."""
    return {
        "name": str(plan.get("name") or ""),
        "kind": str(plan.get("kind") or ""),
        "price": unit_price(plan.get("price_usd_per_gpu_hour")),
        "billed_hours": number(plan.get("billed_hours")),
        "total": usd(plan.get("total_usd"), missing="—"),
        "complete": "complete" if plan.get("complete") else "incomplete",
        "chosen": bool(plan.get("chosen")),
        "break_even": _("%(days)s days") % {"days": number(plan.get("break_even_days"), 1)}
        if plan.get("break_even_days") is not None
        else "—",
    }


def _headline(snapshot: dict[str, Any]) -> list[tuple[str, str]]:
    """The job at a glance: size, layout, time, efficiency and what is billed."""
    bill = snapshot.get("bill") or {}
    sizing = snapshot.get("sizing") or {}
    job = bill.get("job") or {}
    return [
        (_("GPUs"), number(sizing.get("gpus") or job.get("gpus"), 0)),
        (_("Nodes"), number(sizing.get("nodes") or job.get("nodes"), 0)),
        (_("Parallel layout"), snapshot.get("layout_text") or "—"),
        (
            _("Training time"),
            _("%(days)s days (with failures)") % {"days": days_text(sizing.get("train_days"))},
        ),
        (
            _("Without failures"),
            _("%(days)s days") % {"days": days_text(sizing.get("train_days_no_failures"))},
        ),
        ("MFU", percent_text(sizing.get("mfu"))),  # as every page shows it
        (_("Goodput"), goodput_text((sizing.get("goodput") or {}).get("fraction"))),
        (_("Billed hours"), number(bill.get("billed_hours"))),
        (_("Billed nodes"), number(bill.get("billed_nodes"), 0)),
    ]


def _goodput_rows(goodput: dict[str, Any]) -> list[tuple[str, str]]:
    return [
        (_("Job MTBF"), f"{number(goodput.get('mtbf_h'), 1)} h"),
        (_("Checkpoint size"), f"{number(goodput.get('checkpoint_gb'), 1)} GB"),
        (_("Checkpoint write"), f"{number(goodput.get('checkpoint_write_s'), 1)} s"),
        (_("Checkpoint interval (Young/Daly)"), f"{number(goodput.get('checkpoint_interval_min'), 1)} min"),
        (_("Restart"), f"{number(goodput.get('restart_min'), 1)} min"),
        (_("Expected failures"), number(goodput.get("expected_failures"), 1)),
        (_("Goodput"), goodput_text(goodput.get("fraction"))),
    ]


def _finding(finding: dict[str, Any], vendor: str | None = None) -> dict[str, Any]:
    severity = finding.get("severity")
    icon, word = SEVERITY_WORDS.get(severity or "", ("", str(severity or "")))
    messages = finding.get("messages") or {}
    impact = str((finding.get("impact") or {}).get("text") or "")
    return {
        "code": finding.get("code"),
        "severity": severity,
        "severity_word": f"{icon} {_(word) if word else ''}".strip(),
        "title": translated(messages.get("title"), str(finding.get("title") or "")),
        "advice": translated_sentences(messages.get("advice"), str(finding.get("advice") or "")),
        "impact": translated_sentences(messages.get("impact"), impact),
        "evidence": _refs(finding.get("evidence") or [], messages.get("evidence"), vendor),
    }


def _plan_source(plan: dict[str, Any], numbers: dict[str, int]) -> dict[str, Any]:
    """Where a plan's price comes from (by reference number) and when it was true."""
    return {
        "name": plan.get("name"),
        "kind": plan.get("kind"),
        "price": unit_price(plan.get("price_usd_per_gpu_hour")),
        "as_of": plan.get("as_of") or "—",
        "region": plan.get("region") or "",
        "sources": _cited(plan.get("sources"), numbers) or "—",
    }


def _source_id(source: dict[str, Any]) -> str:
    return str(source.get("key") or source.get("title") or "")


def _sources(snapshot: dict[str, Any]) -> list[dict[str, Any]]:
    """Every source the facts and the plans cite, once each, numbered in the order the quote first cites
    them (the fact groups in the order they are shown, then the plans). A reader sees "[2]", never the
    catalog's key for a source, which is an internal name; the snapshot and the API keep the keys."""
    prov = {p.get("group"): p for p in snapshot.get("provenance") or []}
    cited = [src for key in GROUPS for src in (prov.get(key) or {}).get("sources") or []]
    cited += [
        src
        for g in snapshot.get("provenance") or []
        if g.get("group") not in GROUPS
        for src in g.get("sources") or []
    ]
    cited += [src for p in snapshot.get("plans") or [] for src in p.get("sources") or []]
    sources: dict[str, dict[str, Any]] = {}
    for src in cited:
        sources.setdefault(_source_id(src), src)
    return [{**src, "number": i, "ref": f"[{i}]"} for i, src in enumerate(sources.values(), start=1)]


def _cited(sources: list[dict[str, Any]] | None, numbers: dict[str, int]) -> str:
    """The reference numbers of the sources a group or a plan cites, in order: "[1], [3]" ("[1]、[3]" in
    Chinese)."""
    refs = sorted({numbers[_source_id(s)] for s in sources or [] if _source_id(s) in numbers})
    return _(", ").join(f"[{n}]" for n in refs)


def _fact_groups(
    snapshot: dict[str, Any], numbers: dict[str, int], refs: dict[str, str]
) -> list[dict[str, Any]]:
    """The offering's facts by group with each group's sources (by reference number), as-of date and note
    (a source's key in it by its number, a fact's name by its label: providers.names.note_text) (FACTS
    order)."""
    facts = snapshot.get("facts") or {}
    vendor = gpu_vendor(facts.get("gpu"))
    prov = {p.get("group"): p for p in snapshot.get("provenance") or []}
    groups = []
    for key, label in GROUPS.items():
        rows = []
        for fact in FACTS:
            if fact.group != key:
                continue
            value = facts.get("nodes") if fact.name == "max_nodes" else facts.get(fact.name)
            rows.append(
                {
                    "name": fact.name,
                    "label": _(fact_label(fact.name, vendor)),
                    "value": fact_text(value, fact.unit, fact.name, vendor),
                    "np": value is None or value == [],
                }
            )
        p = prov.get(key) or {}
        groups.append(
            {
                "label": _(label),
                "rows": rows,
                "as_of": p.get("as_of") or _("not dated"),
                "sources": _cited(p.get("sources"), numbers) or _("no source recorded"),
                "note": note_text(str(p.get("note") or ""), refs, vendor),
            }
        )
    return groups


def _open(snapshot: dict[str, Any]) -> dict[str, Any]:
    """The open questions, the checklist's in the quote's language by the messages stored beside them."""
    open_questions = snapshot.get("open_questions") or {}
    stored = {a.get("key"): a.get("messages") or {} for a in snapshot.get("checklist") or []}
    out = dict(open_questions)
    keys = ("question", "why", "answer")
    out["checklist"] = [
        {**c, **{k: shown(c.get(k), stored.get(c.get("key"), {}).get(k)) for k in keys}}
        for c in open_questions.get("checklist") or []
    ]
    lines = (snapshot.get("bill") or {}).get("lines") or []
    notes = translated_list([ln.get("note") or "" for ln in lines], snapshot.get("bill_line_note_messages"))
    shown_notes = {ln.get("item"): note for ln, note in zip(lines, notes, strict=True)}
    out["bill_lines"] = [
        {**ln, "item": item_label(ln.get("item")), "note": shown_notes.get(ln.get("item"), ln.get("note"))}
        for ln in open_questions.get("bill_lines") or []
    ]
    vendor = gpu_vendor((snapshot.get("facts") or {}).get("gpu"))
    out["facts"] = [
        {
            **f,
            # the label in the GPU vendor's terms (a scale-up domain off NVIDIA), else as stored
            "label": _(fact_label(str(f["fact"]), vendor) if f.get("fact") in FACTS_BY_NAME else f["label"])
            if f.get("label")
            else "",
            "group": _(f["group"]) if f.get("group") else "",
        }
        for f in open_questions.get("facts") or []
    ]
    return out
