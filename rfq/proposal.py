"""A provider's answer as the planner reads it: the catalog's facts with the answer's facts and price in
their place, for one request only (the catalog itself is never changed by an answer)."""

from __future__ import annotations

from typing import Any

from providers.facts import FACTS_BY_NAME
from rfq.models import Answer, PaymentTerms


def answer_plan(answer: Answer) -> dict[str, Any]:
    """The answer's terms as one billing plan of docs/FACTS.md (the only plan the proposal's bill uses)."""
    return {
        "kind": "reserved" if answer.term_months else "on-demand",
        "name": f"Proposal of {answer.as_of.isoformat()} (answer {answer.pk})",
        "price_usd_per_gpu_hour": float(answer.price_usd_per_gpu_hour),
        "term_months": answer.term_months,
        "min_nodes": answer.min_nodes,
        "granularity": "hour",
        "cycle_days": None,
        "upfront_pct": 100.0 if answer.payment_terms == PaymentTerms.UPFRONT else None,
    }


def engine_value(name: str, value: Any) -> Any:
    """A stored answer fact (JSON: exact decimals as text) as the facts dict carries it (floats)."""
    fact = FACTS_BY_NAME.get(name)
    if fact is not None and fact.type == "decimal" and value is not None:
        return float(value)
    return value


def facts_with_answer(catalog_facts: dict[str, Any], answer: Answer) -> dict[str, Any]:
    """The offering's facts dict with the answer's facts and price in place of the catalog's."""
    facts = dict(catalog_facts)
    for name, value in (answer.facts or {}).items():
        facts[name] = engine_value(name, value)
    if "max_nodes" in (answer.facts or {}):
        facts["nodes"] = facts["max_nodes"]
    plan = answer_plan(answer)
    facts["billing_plans"] = [plan]
    facts["price_usd_per_gpu_hour"] = plan["price_usd_per_gpu_hour"]
    return facts


def answer_used(answer: Answer) -> dict[str, Any]:
    """What the comparison row took from the answer (the buyer checks it against the source)."""
    return {
        "id": answer.pk,
        "price_usd_per_gpu_hour": str(answer.price_usd_per_gpu_hour),
        "term_months": answer.term_months,
        "delivery_weeks": answer.delivery_weeks,
        "payment_terms": answer.payment_terms,
        "min_nodes": answer.min_nodes,
        "facts": answer.facts,
        "source_url": answer.source_url,
        "as_of": answer.as_of.isoformat(),
        "answered_at": answer.created_at.isoformat() if answer.created_at else None,
        "representative": answer.representative.get_username() if answer.representative else None,
    }
