"""Writes to the catalog: the GPU table, offering edits with permissions, price changes (append-only)."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Any

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction

from hardware import GPUS
from providers.catalog import coerce_fact
from providers.facts import FACTS_BY_NAME, PLAN_BOUNDS
from providers.models import BillingPlan, GPUModel, Offering, PricePoint
from providers.signals import catalog_imported, offerings_changed

PRICE_NOTE_MAX_LENGTH = PricePoint._meta.get_field("note").max_length or 500


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
        raise PermissionDenied("You may edit only your own provider's offerings.")


@transaction.atomic
def offering_update(*, user: Any, offering: Offering, facts: dict[str, Any]) -> Offering:
    """Change facts of one offering; representatives only their own provider's. All-or-nothing."""
    _check_can_edit(user, offering)
    gpu_keys = set(GPUModel.objects.values_list("key", flat=True))
    errors: dict[str, str] = {}
    clean: dict[str, Any] = {}
    for name, value in facts.items():
        fact = FACTS_BY_NAME.get(name)
        if fact is None:
            errors[name] = "unknown fact"
            continue
        if value == "":
            value = None
        try:
            clean[name] = coerce_fact(fact, value, gpu_keys)
        except ValueError as exc:
            errors[name] = str(exc)
    if errors:
        raise ValidationError(errors)
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
