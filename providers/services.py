"""Writes to the catalog: the GPU table, offering edits with permissions, price changes (append-only)."""

from __future__ import annotations

import datetime as dt
import hashlib
from decimal import Decimal
from typing import Any

from django.conf import settings
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext

from hardware import GPUS
from providers.catalog import coerce_fact
from providers.facts import FACTS_BY_NAME, PLAN_BOUNDS
from providers.models import (
    BillingPlan,
    FactChange,
    GPUModel,
    Offering,
    PricePoint,
    Provenance,
    Source,
)
from providers.signals import catalog_imported, offerings_changed

PRICE_NOTE_MAX_LENGTH = PricePoint._meta.get_field("note").max_length or 500
# A sourced edit resting on a document older than this (days) is flagged for review, and so is a fact
# group whose as-of date is older (settings.FACT_SOURCE_REVIEW_AGE_DAYS overrides it): a year is about
# how long a GPU cloud's price page or network description stays true.
FACT_SOURCE_REVIEW_AGE_DAYS = 365


def gpu_table_sync() -> int:
    """Copy the GPU table of the hardware package (the one place the numbers live) into GPUModel rows."""
    count = 0
    for key, gpu in GPUS.items():
        GPUModel.objects.update_or_create(
            key=key,
            defaults={
                "name": gpu.name,
                "vendor": gpu.vendor,
                "bf16_tflops": gpu.bf16_tflops,
                "fp8_tflops": gpu.fp8_tflops,
                "hbm_gb": gpu.hbm_gb,
                "hbm_tbytes_per_s": gpu.hbm_tbytes_per_s,
                "nvlink_gbytes_per_s": gpu.scale_up_gbytes_per_s,
                "source": gpu.source,
            },
        )
        count += 1
    return count


def _check_can_edit(user: Any, offering: Offering) -> None:
    if user is None or not getattr(user, "can_edit_offering", None) or not user.can_edit_offering(offering):
        raise PermissionDenied(gettext("You may edit only your own provider's offerings."))


def facts_clean(facts: dict[str, Any]) -> dict[str, Any]:
    """Coerce published values to their stored types with the bounds of providers.facts; ValidationError
    naming every bad fact ("" and None mean "not published")."""
    gpu_keys = set(GPUModel.objects.values_list("key", flat=True))
    errors: dict[str, str] = {}
    clean: dict[str, Any] = {}
    for name, value in facts.items():
        fact = FACTS_BY_NAME.get(name)
        if fact is None:
            errors[name] = gettext("unknown fact")
            continue
        if value == "":
            value = None
        try:
            clean[name] = coerce_fact(fact, value, gpu_keys)
        except ValueError as exc:
            errors[name] = str(exc)
    if errors:
        raise ValidationError(errors)
    return clean


@transaction.atomic
def offering_update(*, user: Any, offering: Offering, facts: dict[str, Any]) -> Offering:
    """Change facts of one offering; representatives only their own provider's. All-or-nothing."""
    _check_can_edit(user, offering)
    clean = facts_clean(facts)
    changed = []
    for name, value in clean.items():
        if name == "gpu":
            offering.gpu = GPUModel.objects.get(key=value) if value else None
        elif name == "schedulers":
            offering.schedulers = ",".join(value or [])
        else:
            setattr(offering, name, value)
        changed.append(name)
    offering.full_clean()
    offering.save(update_fields=[*changed, "updated_at"] if changed else None)
    offerings_changed.send(sender=Offering, offering_ids=[offering.pk])
    return offering


def _history_value(value: Any) -> Any:
    """A fact value as the JSON of the history (exact decimals as text, lists as lists)."""
    if isinstance(value, Decimal):
        return str(value.normalize())
    return value


def source_needs_review(as_of: dt.date, *, today: dt.date | None = None) -> bool:
    """True when a source dated `as_of` is older than the stated review age."""
    today = today or timezone.localdate()
    return (today - as_of).days > fact_source_review_age_days()


def fact_source_review_age_days() -> int:
    return int(getattr(settings, "FACT_SOURCE_REVIEW_AGE_DAYS", FACT_SOURCE_REVIEW_AGE_DAYS))


# The earliest date a source of a rented GPU cluster's terms can carry: cloud GPU instances began in
# November 2010 (Amazon EC2 Cluster GPU, cg1.4xlarge). A date before it is a typing slip (1900, 0201).
EARLIEST_SOURCE_DATE = dt.date(2010, 1, 1)


def source_check(source_url: str, as_of: dt.date | None) -> dt.date:
    """A sourced write needs the document's address and its date, from 2010 and not in the future
    (ValidationError naming source_url or as_of). Returns the date."""
    errors = {}
    if not (source_url or "").strip():
        errors["source_url"] = gettext("give the address of the document these values come from")
    if as_of is None:
        errors["as_of"] = gettext("give the date the source states these values (YYYY-MM-DD)")
    elif as_of > timezone.localdate():
        errors["as_of"] = gettext("the source date %(date)s is in the future") % {"date": as_of.isoformat()}
    elif as_of < EARLIEST_SOURCE_DATE:
        errors["as_of"] = gettext(
            "the source date %(date)s is before %(earliest)s, before any cloud rented GPU clusters: "
            "give the date the document states"
        ) % {"date": as_of.isoformat(), "earliest": EARLIEST_SOURCE_DATE.isoformat()}
    if errors:
        raise ValidationError(errors)
    assert as_of is not None
    return as_of


def _provenance_cite(
    *, offering: Offering, groups: set[str], source_url: str, as_of: dt.date, who: str
) -> None:
    """Each fact group touched by a sourced edit cites the edit's document and takes its date."""
    source, _ = Source.objects.get_or_create(
        provider=offering.provider,
        key=f"edit-{hashlib.sha256(source_url.encode()).hexdigest()[:12]}-{as_of.isoformat()}",
        defaults={
            "title": f"Submitted by {who}"[:500],
            "url": source_url[:500],
            "date_text": as_of.isoformat(),
            "kind": "representative edit",
        },
    )
    for group in sorted(groups):
        provenance, _ = Provenance.objects.get_or_create(offering=offering, group=group)
        provenance.as_of = as_of
        provenance.save(update_fields=["as_of"])
        provenance.sources.add(source)


def offering_facts_edit(
    *, user: Any, offering: Offering, facts: dict[str, Any], source_url: str, as_of: dt.date | None
) -> list[FactChange]:
    """A sourced change of an offering's facts: refused without a source and a date; values checked with
    the fact bounds; every changed value's old value kept in FactChange; the touched fact groups cite the
    source. Returns the history rows written (none when every value was already the same)."""
    _check_can_edit(user, offering)
    as_of = source_check(source_url, as_of)
    if not facts:
        raise ValidationError(
            {"facts": gettext("give at least one fact to change besides source_url and as_of")}
        )
    clean = facts_clean(facts)
    old = {name: _history_value(offering.fact_value(name)) for name in clean}
    new = {name: _history_value(value) for name, value in clean.items()}
    changed = [name for name in clean if old[name] != new[name]]
    who = user.get_username()
    review = source_needs_review(as_of)
    with transaction.atomic():
        offering_update(user=user, offering=offering, facts={name: clean[name] for name in changed})
        rows = [
            FactChange.objects.create(
                offering=offering,
                fact=name,
                old=old[name],
                new=new[name],
                source_url=source_url,
                as_of=as_of,
                user=user,
                username=who,
                needs_review=review,
            )
            for name in changed
        ]
        groups = {FACTS_BY_NAME[name].group for name in changed}
        _provenance_cite(offering=offering, groups=groups, source_url=source_url, as_of=as_of, who=who)
    return rows


@transaction.atomic
def plan_price_change(
    *,
    user: Any,
    plan: BillingPlan,
    price_usd_per_gpu_hour: Decimal | None,
    as_of: dt.date | None,
    note: str = "",
) -> PricePoint:
    """Set a plan's current price and append the change to its history (history is never rewritten)."""
    _check_can_edit(user, plan.offering)
    if price_usd_per_gpu_hour is not None:
        message = PLAN_BOUNDS["price_usd_per_gpu_hour"].error(float(price_usd_per_gpu_hour))
        if message:
            raise ValidationError({"price_usd_per_gpu_hour": message})
    if len(note) > PRICE_NOTE_MAX_LENGTH:
        raise ValidationError(
            {"note": f"must be at most {PRICE_NOTE_MAX_LENGTH} characters, got {len(note):,}"}
        )
    plan.price_usd_per_gpu_hour = price_usd_per_gpu_hour
    plan.as_of = as_of
    plan.save(update_fields=["price_usd_per_gpu_hour", "as_of"])
    offerings_changed.send(sender=Offering, offering_ids=[plan.offering_id])
    return PricePoint.objects.create(
        plan=plan, price_usd_per_gpu_hour=price_usd_per_gpu_hour, as_of=as_of, note=note
    )


def catalog_slugs(data: dict[str, Any]) -> list[str]:
    """The offering slugs of a catalog file as `providers.catalog.read_catalog_file` returns it."""
    return [
        str(offering["slug"])
        for provider in data.get("providers") or []
        if isinstance(provider, dict)
        for offering in provider.get("offerings") or []
        if isinstance(offering, dict) and offering.get("slug")
    ]


def catalog_imported_announce(*, data: dict[str, Any]) -> list[str]:
    """Tell the apps above the catalog which offerings a command just imported; they refresh what they
    derive from them now and each answers with a sentence for the command's output."""
    responses = catalog_imported.send(sender=Offering, slugs=catalog_slugs(data))
    return [str(answer) for _, answer in responses if answer]
