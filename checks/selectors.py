"""Reads of findings, and the parsed evidence the rules take (docs/FACTS.md "Parsed evidence items")."""

from __future__ import annotations

from typing import Any

from django.apps import apps
from django.db.models import Case, CharField, IntegerField, Q, QuerySet, Value, When
from django.db.models.functions import Cast, Concat

from accounts.selectors import is_curator
from checks.models import CONTEXT_CLAIMS, SEVERITY_RANK, Finding, context_for_private_evidence
from providers.models import Offering

# Upload statuses whose parse result may be judged (DESIGN section 8: stored/parsing/parsed/...).
_PARSED = "parsed"
_PUBLIC = "public"


def severity_order() -> Case:
    """An annotation that orders findings most severe first (for any queryset of Finding)."""
    return Case(
        *[When(severity=sev.value, then=Value(rank)) for sev, rank in SEVERITY_RANK.items()],
        default=Value(len(SEVERITY_RANK)),
        output_field=IntegerField(),
    )


def finding_visible_q(*, user: Any) -> Q | None:
    """The findings `user` may see, or None for all of them (staff).

    The "claims" findings judge an offering's published facts and are public. A run's findings
    ("run:<id>") judge a buyer's private workload on that offering: only the run's owner and staff see them;
    so do the findings of a buyer's private uploads ("evidence:<user id>"). Anything else (the reserved
    "evidence" context) only staff."""
    if is_curator(user):
        return None
    visible = Q(context=CONTEXT_CLAIMS)
    if user is not None and user.is_authenticated:
        own_contexts = (
            apps.get_model("sizing", "PlanRun")
            .objects.filter(owner=user)
            .annotate(context=Concat(Value("run:"), Cast("pk", CharField()), output_field=CharField()))
            .values("context")
        )
        visible |= Q(context__in=own_contexts) | Q(context=context_for_private_evidence(user.pk))
    return visible


def finding_list(
    *,
    user: Any = None,
    offering: Offering | None = None,
    severity: str | None = None,
    code: str | None = None,
    context: str | None = None,
) -> QuerySet[Finding]:
    """The findings `user` may see (anonymous when None: only the public "claims"), most severe first, with
    their offering and provider joined."""
    qs = Finding.objects.select_related("offering", "offering__provider", "offering__gpu")
    visible = finding_visible_q(user=user)
    if visible is not None:
        qs = qs.filter(visible)
    if offering is not None:
        qs = qs.filter(offering=offering)
    if severity:
        qs = qs.filter(severity=severity)
    if code:
        qs = qs.filter(code=code)
    if context:
        qs = qs.filter(context=context)
    return qs.annotate(severity_order=severity_order()).order_by(
        "offering__slug", "severity_order", "code", "context"
    )


def _upload_model() -> Any | None:
    """The benchmarks Upload model, or None while the uploads app has not shipped it yet."""
    try:
        return apps.get_model("benchmarks", "Upload")
    except LookupError:
        return None


def _first(obj: Any, *names: str) -> Any:
    for name in names:
        value = getattr(obj, name, None)
        if value not in (None, ""):
            return value
    return None


def _evidence_item(upload: Any) -> dict[str, Any]:
    """One upload as the parsed evidence item of docs/FACTS.md: the uploads app's own `upload_item`
    when it has one, else read field by field (the two apps are built in parallel)."""
    try:
        from benchmarks.selectors import upload_item
    except ImportError:
        pass
    else:
        return dict(upload_item(upload))
    filename = _first(upload, "original_filename", "filename", "name")
    if filename is None and getattr(upload, "file", None):
        filename = str(upload.file.name).rsplit("/", 1)[-1]
    summary = _first(upload, "summary") or {}
    return {
        "upload_id": upload.pk,
        "filename": str(filename or f"upload {upload.pk}"),
        "kind": str(_first(upload, "kind") or ""),
        "summary": summary if isinstance(summary, dict) else {},
        "warnings": list(_first(upload, "warnings") or []),
        "errors": list(_first(upload, "errors") or []),
        "nodes": _first(upload, "nodes"),
        "gpus": _first(upload, "gpus"),
    }


def evidence_for_offering(offering: Offering) -> list[dict[str, Any]]:
    """Parsed public uploads of one offering as evidence items; [] until the uploads app has its model.

    Only public uploads count: findings on the offering page are public, and a buyer's private upload
    must not leak into them (DESIGN section 8 `visibility`)."""
    upload_model = _upload_model()
    if upload_model is None:
        return []
    fields = {f.name for f in upload_model._meta.get_fields()}
    if "offering" not in fields:
        return []
    qs = upload_model.objects.filter(offering=offering)
    if "status" in fields:
        qs = qs.filter(status=_PARSED)
    if "visibility" in fields:
        qs = qs.filter(visibility=_PUBLIC)
    return [_evidence_item(upload) for upload in qs.order_by("pk")]


def private_evidence_for(offering: Offering, owner_id: int) -> list[dict[str, Any]]:
    """One buyer's parsed uploads of one offering (private and public) as evidence items."""
    upload_model = _upload_model()
    if upload_model is None:
        return []
    qs = upload_model.objects.filter(offering=offering, owner_id=owner_id, status=_PARSED)
    return [_evidence_item(upload) for upload in qs.order_by("pk")]


def upload_owner_and_visibility(upload_id: int) -> tuple[int, str] | None:
    upload_model = _upload_model()
    if upload_model is None:
        return None
    row = upload_model.objects.filter(pk=upload_id).values_list("owner_id", "visibility").first()
    return (int(row[0]), str(row[1])) if row else None


def offering_for_checklist(*, slug: str) -> Offering:
    """One offering with what `Offering.facts()` needs joined (raises Offering.DoesNotExist)."""
    return (
        Offering.objects.select_related("provider", "gpu")
        .prefetch_related("plans", "provenance__sources")
        .get(slug=slug)
    )


def offering_for_checklist_by_id(offering_id: int) -> Offering | None:
    return (
        Offering.objects.select_related("provider", "gpu")
        .prefetch_related("plans")
        .filter(pk=offering_id)
        .first()
    )


def sourced_groups(offering: Offering) -> set[str]:
    """The offering's fact groups that name at least one source (provenance prefetched)."""
    return {p.group for p in offering.provenance.all() if p.sources.all()}


CHOICES_LIMIT = 30


def offering_choices(*, search: str = "", chosen: str = "") -> list[Offering]:
    """The offerings the checklist's picker links to: the chosen one, then up to CHOICES_LIMIT whose
    offering or provider name contains `search` (a catalog of thousands is never listed whole)."""
    qs = Offering.objects.select_related("provider").order_by("provider__name", "name")
    picked = list(qs.filter(slug=chosen)) if chosen else []
    rest = qs.exclude(slug=chosen)
    if search:
        rest = rest.filter(Q(name__icontains=search) | Q(provider__name__icontains=search))
    return picked + list(rest[:CHOICES_LIMIT])
