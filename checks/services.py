"""Writes of the checks app: run the pitfall rules for an offering and store their findings."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction

from checks import rules
from checks.models import CONTEXT_CLAIMS, CONTEXT_EVIDENCE, Finding, Severity, context_for_private_evidence
from checks.selectors import evidence_for_offering, private_evidence_for
from portal.task_pool import enqueue
from providers.models import Offering


@transaction.atomic
def findings_store(*, offering: Offering, context: str, findings: Sequence[rules.Finding]) -> list[Finding]:
    """Make the stored findings of (offering, context) exactly `findings`: atomic and idempotent.

    A code that fires again keeps its row (same id, `created_at` kept); codes that no longer fire are
    deleted. Findings of other contexts are untouched."""
    # Serialises concurrent refreshes of one offering (PostgreSQL; SQLite locks the whole database).
    Offering.objects.select_for_update().filter(pk=offering.pk).first()
    existing = {f.code: f for f in Finding.objects.filter(offering=offering, context=context)}
    codes = {f.code for f in findings}
    Finding.objects.filter(offering=offering, context=context).exclude(code__in=codes).delete()
    stored: list[Finding] = []
    for result in findings:
        values = _finding_values(result)
        row = existing.get(result.code)
        if row is None:
            row = Finding(offering=offering, context=context, code=result.code, **values)
            row.full_clean()
            row.save()
        elif any(getattr(row, key) != value for key, value in values.items()):
            for key, value in values.items():
                setattr(row, key, value)
            row.full_clean()
            row.save(update_fields=[*values, "updated_at"])
        stored.append(row)
    return stored


def _finding_values(result: rules.Finding) -> dict[str, Any]:
    data: dict[str, Any] = result.as_dict()
    return {
        "severity": data["severity"],
        "title": data["title"][:500],
        "evidence": data["evidence"],
        "advice": data["advice"],
        "impact": data["impact"],
        "messages": result.messages(),
    }


def findings_store_many(*, context: str, findings_by_offering: Mapping[int, Sequence[rules.Finding]]) -> int:
    """The bulk form of findings_store for many offerings of one context (a planner chunk): two queries
    whatever the count. Must run inside the caller's transaction; returns the number of rows stored.

    Validated once at the boundary instead of a full_clean per row: the context, then per row only what
    the rules could get wrong (the code, the severity; the title is cut to its column)."""
    if not findings_by_offering:
        return 0
    if context not in (CONTEXT_CLAIMS, CONTEXT_EVIDENCE) and not re.fullmatch(r"run:[0-9]+", context):
        raise ValidationError({"context": f"unknown findings context {context!r}"})
    known = set(Severity.values)
    rows: list[Finding] = []
    for offering_id, findings in findings_by_offering.items():
        for result in {f.code: f for f in findings}.values():
            values = _finding_values(result)
            if not result.code or values["severity"] not in known:
                raise ValidationError(f"finding {result.code!r}: unknown severity {values['severity']!r}")
            rows.append(Finding(offering_id=offering_id, context=context, code=result.code, **values))
    Finding.objects.filter(offering_id__in=list(findings_by_offering), context=context).delete()
    # a row already there was written by a concurrent delivery of the same planner chunk since the delete:
    # the same finding (ON CONFLICT DO NOTHING)
    Finding.objects.bulk_create(rows, batch_size=1000, ignore_conflicts=True)
    return len(rows)


def findings_refresh(*, offering: Offering) -> list[Finding]:
    """Re-run the rules on the offering's published facts and its parsed public uploads; replace the
    "claims" findings with the result (idempotent: a second run changes nothing)."""
    facts = offering.facts()
    evidence = evidence_for_offering(offering)
    results = rules.run_rules(facts, evidence=evidence)
    return findings_store(offering=offering, context=CONTEXT_CLAIMS, findings=results)


def _cites_evidence(finding: rules.Finding) -> bool:
    return any(ref.source == "evidence" and ref.upload_id is not None for ref in finding.evidence)


def findings_refresh_private(*, offering: Offering, owner_id: int) -> list[Finding]:
    """The findings one buyer's parsed uploads raise against the offering's claims, in that buyer's own
    context (their private evidence must not reach the public "claims" findings). Only findings that cite
    an upload are kept: the claims-only ones are already in "claims". Idempotent."""
    evidence = private_evidence_for(offering, owner_id)
    results = [f for f in rules.run_rules(offering.facts(), evidence=evidence) if _cites_evidence(f)]
    context = context_for_private_evidence(owner_id)
    return findings_store(offering=offering, context=context, findings=results)


def _enqueue(offering_id: int) -> None:
    from checks.tasks import findings_refresh_task

    # Broker down: the findings stay stale until the next change or import.
    enqueue(findings_refresh_task, offering_id, "checks.findings_refresh for offering")


def findings_refresh_for(offering_ids: Iterable[int]) -> None:
    """Refresh the findings of these offerings once the current transaction commits (Celery task
    `checks.findings_refresh`; in-process when no broker is configured). For uploads and the planner."""
    for offering_id in sorted(set(offering_ids)):
        transaction.on_commit(lambda oid=offering_id: _enqueue(oid))  # type: ignore[misc]


def findings_refresh_catalog(*, slugs: Iterable[str] | None = None) -> int:
    """Refresh, in this process, the findings of the offerings with these slugs (all when None).

    For the catalog import commands: the rules are pure and take milliseconds per offering."""
    qs = Offering.objects.select_related("provider", "gpu").prefetch_related("plans").order_by("slug")
    if slugs is not None:
        qs = qs.filter(slug__in=list(slugs))
    count = 0
    for offering in qs:
        findings_refresh(offering=offering)
        count += 1
    return count
