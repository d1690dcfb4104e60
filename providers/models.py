"""The catalog: providers, their sources, offerings with every fact, provenance per fact group, billing plans
and their append-only price history.

A null fact is "not published" (never the same as 0 or False). Invariants that must hold whatever writes
the row (positive counts, percentages 0-100, known enums) are database constraints generated from
providers.facts.FACTS.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.urls import reverse
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from portal.constraints import RangeValidator, in_range, range_validators, value_known
from providers.facts import (
    FACTS,
    FACTS_BY_NAME,
    GRANULARITY_WORDS,
    GROUPS,
    NOTE_MAX_LENGTH,
    PLAN_BOUNDS,
    PLAN_KIND_WORDS,
)
from providers.names import offering_title, provider_shown_name


def _prefetched(obj: models.Model, rows: str, manager: str) -> list[Any]:
    """The related rows a `Prefetch(..., to_attr=rows)` put on `obj`, else those of its `manager`."""
    prefetched = getattr(obj, rows, None)
    return prefetched if prefetched is not None else list(getattr(obj, manager).all())


class GPUModel(models.Model):
    """One GPU of the hardware package's GPU table (hardware.GPUS is the single source of the numbers)."""

    key = models.SlugField(max_length=40, unique=True)
    name = models.CharField(max_length=120)
    vendor = models.CharField(max_length=40, blank=True)
    bf16_tflops = models.FloatField(null=True, blank=True)
    fp8_tflops = models.FloatField(null=True, blank=True)
    hbm_gb = models.FloatField(null=True, blank=True)
    hbm_tbytes_per_s = models.FloatField(null=True, blank=True)
    nvlink_gbytes_per_s = models.FloatField(null=True, blank=True)
    source = models.TextField(blank=True)

    class Meta:
        ordering = ["key"]
        verbose_name = "GPU model"

    def __str__(self) -> str:
        return self.key


class ProviderKind(models.TextChoices):
    HYPERSCALER = "hyperscaler", _("Hyperscaler")
    HYPERSCALER_CN = "hyperscaler-cn", _("Hyperscaler (China)")
    NEOCLOUD = "neocloud", _("Neocloud")
    REGIONAL = "regional", _("Regional provider")
    FICTIONAL = "fictional", _("Fictional sample")


class Provider(models.Model):
    Kind = ProviderKind

    slug = models.SlugField(max_length=60, unique=True)
    name = models.CharField(max_length=200)
    kind = models.CharField(max_length=20, choices=ProviderKind.choices)
    website = models.URLField(blank=True)
    notes = models.CharField(max_length=NOTE_MAX_LENGTH, blank=True)
    # The provider's name in its own language (阿里云 for Alibaba Cloud), with the page of the provider's
    # own site that uses it; blank for providers that publish no other name.
    native_name = models.CharField(max_length=200, blank=True)
    native_name_source = models.URLField(max_length=500, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name"]
        constraints = [
            value_known("kind", ProviderKind.values, name="provider_kind_known"),
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def shown_name(self) -> str:
        """The name a page shows: on a Chinese page the native name first, beside the English one."""
        return provider_shown_name(self.name, self.native_name)


class Source(models.Model):
    """A public document a fact comes from, as cited by the catalog (`key` is unique per provider)."""

    provider = models.ForeignKey(Provider, on_delete=models.CASCADE, related_name="sources")
    key = models.CharField(max_length=80)
    title = models.CharField(max_length=500)
    url = models.CharField(max_length=500, blank=True)
    date_text = models.CharField(max_length=120, blank=True)
    kind = models.CharField(max_length=60, blank=True)

    class Meta:
        ordering = ["provider", "key"]
        constraints = [
            models.UniqueConstraint(fields=["provider", "key"], name="source_key_unique_per_provider")
        ]

    def __str__(self) -> str:
        return f"{self.key}: {self.title}"


def _fact_constraints() -> list[models.BaseConstraint]:
    constraints: list[models.BaseConstraint] = []
    for fact in FACTS:
        if fact.type == "enum":
            constraints.append(
                models.CheckConstraint(
                    condition=Q(**{f"{fact.name}__isnull": True})
                    | Q(**{f"{fact.name}__in": list(fact.choices)}),
                    name=f"offering_{fact.name}_known",
                )
            )
        bound = fact.bound
        if fact.type in ("int", "float", "decimal") and bound is not None:
            constraints.append(in_range(fact.name, bound, name=f"offering_{fact.name}_range"))
    return constraints


def _bounded(name: str) -> list[RangeValidator]:
    """The validators of one fact's model field, from its bounds in the fact registry."""
    return range_validators(FACTS_BY_NAME[name].bound)


def _plan(name: str) -> list[RangeValidator]:
    """The validators of one billing-plan term, from providers.facts.PLAN_BOUNDS."""
    return range_validators(PLAN_BOUNDS[name])


def _money(
    name: str, max_digits: int, decimal_places: int
) -> models.DecimalField[Decimal | None, Decimal | None]:
    """The field of one money fact: a Decimal (never a float), null while not published, bounded by the
    fact registry."""
    return models.DecimalField(
        max_digits=max_digits, decimal_places=decimal_places, null=True, blank=True, validators=_bounded(name)
    )


def _text(name: str) -> int:
    """The maximum length of one text fact (the registry's, the same in forms, API and import)."""
    length = FACTS_BY_NAME[name].max_length
    assert length is not None, name
    return length


class Offering(models.Model):
    provider = models.ForeignKey(Provider, on_delete=models.CASCADE, related_name="offerings")
    slug = models.SlugField(max_length=80, unique=True)
    name = models.CharField(max_length=300)
    fictional = models.BooleanField(default=False)
    summary = models.CharField(max_length=500, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    # hardware
    gpu = models.ForeignKey(
        GPUModel, null=True, blank=True, on_delete=models.PROTECT, related_name="offerings"
    )
    gpu_label = models.CharField(max_length=_text("gpu_label"), null=True, blank=True)
    gpus_per_node = models.PositiveIntegerField(null=True, blank=True, validators=_bounded("gpus_per_node"))
    hbm_gb_per_gpu = models.FloatField(null=True, blank=True, validators=_bounded("hbm_gb_per_gpu"))
    intra_node = models.CharField(max_length=20, null=True, blank=True)
    intra_node_gbytes_per_s = models.FloatField(
        null=True, blank=True, validators=_bounded("intra_node_gbytes_per_s")
    )
    nvlink_domain_gpus = models.PositiveIntegerField(
        null=True, blank=True, validators=_bounded("nvlink_domain_gpus")
    )
    bare_metal = models.BooleanField(null=True, blank=True)
    # network
    fabric = models.CharField(max_length=20, null=True, blank=True)
    fabric_label = models.CharField(max_length=_text("fabric_label"), null=True, blank=True)
    nics_per_node = models.PositiveIntegerField(null=True, blank=True, validators=_bounded("nics_per_node"))
    gbps_per_nic = models.FloatField(null=True, blank=True, validators=_bounded("gbps_per_nic"))
    topology = models.CharField(max_length=20, null=True, blank=True)
    oversubscription = models.FloatField(null=True, blank=True, validators=_bounded("oversubscription"))
    max_nodes = models.PositiveIntegerField(null=True, blank=True, validators=_bounded("max_nodes"))
    largest_demonstrated_gpus = models.PositiveIntegerField(
        null=True, blank=True, validators=_bounded("largest_demonstrated_gpus")
    )
    # software; schedulers are stored comma-joined so that filtering works on SQLite and PostgreSQL alike
    schedulers = models.CharField(max_length=60, blank=True, default="")
    scheduler_label = models.CharField(max_length=_text("scheduler_label"), null=True, blank=True)
    topology_aware_placement = models.BooleanField(null=True, blank=True)
    accelerator_stack = models.CharField(max_length=20, null=True, blank=True)
    standard_containers = models.BooleanField(null=True, blank=True)
    proprietary_fabric_plugin = models.BooleanField(null=True, blank=True)
    # fault tolerance
    health_checks = models.BooleanField(null=True, blank=True)
    auto_bad_node_detection = models.BooleanField(null=True, blank=True)
    auto_replacement = models.BooleanField(null=True, blank=True)
    replacement_time_min = models.FloatField(
        null=True, blank=True, validators=_bounded("replacement_time_min")
    )
    auto_checkpoint_restart = models.BooleanField(null=True, blank=True)
    spare_node_pool = models.BooleanField(null=True, blank=True)
    failure_rate_per_gpu_hour = models.FloatField(
        null=True, blank=True, validators=_bounded("failure_rate_per_gpu_hour")
    )
    # commercial
    exclusivity = models.CharField(max_length=20, null=True, blank=True)
    usable_gpu_guarantee_pct = models.FloatField(
        null=True, blank=True, validators=_bounded("usable_gpu_guarantee_pct")
    )
    usable_gpu_credit = models.CharField(max_length=_text("usable_gpu_credit"), null=True, blank=True)
    uptime_sla_pct = models.FloatField(null=True, blank=True, validators=_bounded("uptime_sla_pct"))
    sla_claim_window_days = models.PositiveIntegerField(
        null=True, blank=True, validators=_bounded("sla_claim_window_days")
    )
    sla_text = models.CharField(max_length=_text("sla_text"), null=True, blank=True)
    regions = models.CharField(max_length=_text("regions"), null=True, blank=True)
    compliance = models.CharField(max_length=_text("compliance"), null=True, blank=True)
    lead_time_weeks = models.FloatField(null=True, blank=True, validators=_bounded("lead_time_weeks"))
    payment_terms = models.CharField(max_length=20, null=True, blank=True)
    # storage
    storage_type = models.CharField(max_length=_text("storage_type"), null=True, blank=True)
    storage_write_gbytes_per_s = models.FloatField(
        null=True, blank=True, validators=_bounded("storage_write_gbytes_per_s")
    )
    storage_price_usd_per_gb_month = _money("storage_price_usd_per_gb_month", 12, 6)
    storage_included_gb = models.FloatField(null=True, blank=True, validators=_bounded("storage_included_gb"))
    # fees
    egress_price_usd_per_gb = _money("egress_price_usd_per_gb", 12, 6)
    traffic_price_usd_per_gb = _money("traffic_price_usd_per_gb", 12, 6)
    support_fee_usd_per_month = _money("support_fee_usd_per_month", 14, 2)
    setup_fee_usd = _money("setup_fee_usd", 14, 2)
    fees_note = models.CharField(max_length=_text("fees_note"), null=True, blank=True)

    class Meta:
        ordering = ["provider__name", "name"]
        constraints = _fact_constraints()

    def __str__(self) -> str:
        return f"{self.provider.name}: {self.name}"

    def get_absolute_url(self) -> str:
        return reverse("providers:offering", args=[self.slug])

    @property
    def shown_title(self) -> str:
        """The provider and the offering as a page names them: "Provider: Offering", with the full-width
        colon on a Chinese page ("Provider：Offering"), the provider by its `shown_name`."""
        return offering_title(self.provider.shown_name, self.name)

    @property
    def shown_choice(self) -> str:
        """The offering as a form's list of offerings names it: its `shown_title`, a fictional sample marked
        so in the page's language ("（虚构示例）" on a Chinese page)."""
        return self.shown_title + (gettext(" (fictional sample)") if self.fictional else "")

    @property
    def scheduler_list(self) -> list[str]:
        return [s for s in self.schedulers.split(",") if s]

    @property
    def plans_shown(self) -> list[BillingPlan]:
        """The plans as `selectors.offering_api_queryset` prefetched them into a list (no queryset built per
        offering), else from the manager (prefetched or not)."""
        return _prefetched(self, "plan_rows", "plans")

    @property
    def provenance_shown(self) -> list[Provenance]:
        return _prefetched(self, "provenance_rows", "provenance")

    @property
    def node_gbps(self) -> float | None:
        if self.nics_per_node is None or self.gbps_per_nic is None:
            return None
        return self.nics_per_node * self.gbps_per_nic

    @property
    def gbps_per_gpu(self) -> float | None:
        if self.node_gbps is None or not self.gpus_per_node:
            return None
        return self.node_gbps / self.gpus_per_node

    def fact_value(self, name: str) -> Any:
        if name == "gpu":
            return self.gpu.key if self.gpu is not None else None
        if name == "schedulers":
            return self.scheduler_list
        return getattr(self, name)

    def facts(self) -> dict[str, Any]:
        """The plain facts dict of docs/FACTS.md that the pure libraries take (plans must be prefetched)."""
        out: dict[str, Any] = {
            "slug": self.slug,
            "name": self.name,
            "provider": self.provider.name,
            "provider_kind": self.provider.kind,
            "fictional": self.fictional,
        }
        for fact in FACTS:
            value = self.fact_value(fact.name)
            if isinstance(value, Decimal):
                value = float(value)
            out[fact.name] = value
        out["nodes"] = self.max_nodes
        if self.gpu is not None:
            out["hbm_gb_per_gpu"] = out["hbm_gb_per_gpu"] or self.gpu.hbm_gb
        plans = [plan.as_dict() for plan in self.plans.all()]
        out["billing_plans"] = plans
        on_demand = [p["price_usd_per_gpu_hour"] for p in plans if p["kind"] == "on-demand"]
        priced = [p for p in on_demand if p is not None]
        out["price_usd_per_gpu_hour"] = min(priced) if priced else None
        return out


class Provenance(models.Model):
    """Where one group of an offering's facts comes from, and the date it was true."""

    offering = models.ForeignKey(Offering, on_delete=models.CASCADE, related_name="provenance")
    group = models.CharField(max_length=20, choices=list(GROUPS.items()))
    sources = models.ManyToManyField(Source, blank=True, related_name="provenance")
    as_of = models.DateField(null=True, blank=True)
    note = models.CharField(max_length=NOTE_MAX_LENGTH, blank=True)
    unsure = models.BooleanField(default=False)
    # Where single facts of the group come from when that is narrower than the group's sources:
    # {fact: {"sources": [source keys of the provider], "as_of": "YYYY-MM-DD" or None, "note": str,
    # "unsure": True only when that fact is derived, conflicting or second-hand}}.
    # An entry for a fact whose value is null records where it was looked for and not found.
    fact_sources = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["offering", "group"]
        constraints = [
            models.UniqueConstraint(fields=["offering", "group"], name="provenance_one_per_group"),
            value_known("group", GROUPS, name="provenance_group_known"),
        ]

    def __str__(self) -> str:
        return f"{self.offering.slug}/{self.group}"

    @property
    def sources_shown(self) -> list[Source]:
        return _prefetched(self, "source_rows", "sources")


class PlanKind(models.TextChoices):
    ON_DEMAND = "on-demand", _(PLAN_KIND_WORDS["on-demand"])
    RESERVED = "reserved", _(PLAN_KIND_WORDS["reserved"])
    CLUSTER_CYCLE = "cluster-cycle", _(PLAN_KIND_WORDS["cluster-cycle"])
    SPOT = "spot", _(PLAN_KIND_WORDS["spot"])


class Granularity(models.TextChoices):
    SECOND = "second", _(GRANULARITY_WORDS["second"])
    HOUR = "hour", _(GRANULARITY_WORDS["hour"])
    DAY = "day", _(GRANULARITY_WORDS["day"])
    MONTH = "month", _(GRANULARITY_WORDS["month"])
    CYCLE = "cycle", _(GRANULARITY_WORDS["cycle"])


class Currency(models.TextChoices):
    """Currencies prices are published and shown in. Stored prices keep their own currency; the model's bill
    works in US dollars, converted with the dated ExchangeRate."""

    USD = "USD", _("US dollar")
    CNY = "CNY", _("Chinese yuan")


class ExchangeRate(models.Model):
    """Units of a currency per US dollar on a date, with its source. Staff edit it in the admin; pages and
    imports use the latest by date, and show the rate and its date beside any converted figure."""

    currency = models.CharField(max_length=3, choices=Currency.choices)
    per_usd = models.DecimalField(max_digits=12, decimal_places=6)
    as_of = models.DateField()
    source_url = models.URLField(max_length=500)
    source_name = models.CharField(max_length=200)
    recorded_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["currency", "-as_of"]
        get_latest_by = "as_of"
        constraints = [
            models.UniqueConstraint(fields=["currency", "as_of"], name="exchange_rate_one_per_day"),
            value_known("currency", [Currency.CNY], name="exchange_rate_currency_known"),
            # No currency this portal shows trades outside (0, 1000) per US dollar.
            models.CheckConstraint(
                condition=Q(per_usd__gt=0) & Q(per_usd__lt=1000), name="exchange_rate_per_usd_range"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.per_usd} {self.currency}/USD on {self.as_of}"


# A billing plan's commercial terms: what the sizing engine's bill reads (BillingPlan.as_dict).
BILLING_PLAN_TERMS = (
    "kind",
    "name",
    "price_usd_per_gpu_hour",
    "term_months",
    "min_nodes",
    "granularity",
    "cycle_days",
    "upfront_pct",
)
# Every published field of a plan, in the order the catalog file, the API and the admin list them
# (docs/CATALOG_FORMAT.md; the catalog file adds the plan's `sources`).
BILLING_PLAN_FIELDS = (*BILLING_PLAN_TERMS, "region", "as_of", "note")


class BillingPlan(models.Model):
    Kind = PlanKind
    Granularity = Granularity

    offering = models.ForeignKey(Offering, on_delete=models.CASCADE, related_name="plans")
    kind = models.CharField(max_length=20, choices=PlanKind.choices)
    name = models.CharField(max_length=200)
    # The current price; every change is also appended to PricePoint. Null = not published.
    price_usd_per_gpu_hour = models.DecimalField(
        max_digits=12, decimal_places=4, null=True, blank=True, validators=_plan("price_usd_per_gpu_hour")
    )
    # A price published in another currency keeps its own figure here; price_usd_per_gpu_hour is then its
    # conversion at the dated rate named in `note` (providers.currency.plan_price_set).
    price_currency = models.CharField(max_length=3, choices=Currency.choices, default=Currency.USD)
    price_native_per_gpu_hour = models.DecimalField(max_digits=12, decimal_places=4, null=True, blank=True)
    term_months = models.PositiveIntegerField(null=True, blank=True, validators=_plan("term_months"))
    min_nodes = models.PositiveIntegerField(null=True, blank=True, validators=_plan("min_nodes"))
    granularity = models.CharField(max_length=10, choices=Granularity.choices, default=Granularity.HOUR)
    # Null on a cycle plan = the cycle length is not published (the bill then says it cannot round).
    cycle_days = models.PositiveIntegerField(null=True, blank=True, validators=_plan("cycle_days"))
    upfront_pct = models.FloatField(null=True, blank=True, validators=_plan("upfront_pct"))
    region = models.CharField(max_length=120, blank=True)
    as_of = models.DateField(null=True, blank=True)
    sources = models.ManyToManyField(Source, blank=True, related_name="plans")
    note = models.CharField(max_length=NOTE_MAX_LENGTH, blank=True)

    class Meta:
        ordering = ["offering", "kind", "name"]
        constraints = [
            models.UniqueConstraint(fields=["offering", "name"], name="plan_name_unique_per_offering"),
            value_known("kind", PlanKind.values, name="plan_kind_known"),
            value_known("granularity", Granularity.values, name="plan_granularity_known"),
            *(in_range(name, bound, name=f"plan_{name}_range") for name, bound in PLAN_BOUNDS.items()),
            value_known("price_currency", Currency.values, name="plan_price_currency_known"),
            models.CheckConstraint(
                condition=Q(price_native_per_gpu_hour__isnull=True) | Q(price_native_per_gpu_hour__gte=0),
                name="plan_native_price_not_negative",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.offering.slug}: {self.name}"

    @property
    def history_shown(self) -> list[PricePoint]:
        return _prefetched(self, "history_rows", "history")

    def as_dict(self) -> dict[str, Any]:
        """The plan's terms as the plain dict of docs/FACTS.md (prices as float)."""
        terms = {name: getattr(self, name) for name in BILLING_PLAN_TERMS}
        if self.price_usd_per_gpu_hour is not None:
            terms["price_usd_per_gpu_hour"] = float(self.price_usd_per_gpu_hour)
        return terms


class _AppendOnlyQuerySet(models.QuerySet[Any]):
    """No update or delete in bulk either; the model's `refusal` says which history."""

    def update(self, **kwargs: Any) -> int:
        raise PermissionError(self.model.refusal)

    def delete(self) -> tuple[int, dict[str, int]]:
        raise PermissionError(self.model.refusal)


class _AppendOnlyModel(models.Model):
    """A history row: saved once, never changed or deleted (abstract: no table, no migration)."""

    refusal = "history is append-only"

    objects = _AppendOnlyQuerySet.as_manager()

    class Meta:
        abstract = True

    def save(self, *args: Any, **kwargs: Any) -> None:
        if self.pk is not None:
            raise PermissionError(self.refusal)
        super().save(*args, **kwargs)

    def delete(self, *args: Any, **kwargs: Any) -> tuple[int, dict[str, int]]:
        raise PermissionError(self.refusal)


class PricePoint(_AppendOnlyModel):
    """One observed price of a plan. Append-only: rows are never updated or deleted."""

    plan = models.ForeignKey(BillingPlan, on_delete=models.CASCADE, related_name="history")
    price_usd_per_gpu_hour = models.DecimalField(
        max_digits=12, decimal_places=4, null=True, blank=True, validators=_plan("price_usd_per_gpu_hour")
    )
    as_of = models.DateField(null=True, blank=True)
    recorded_at = models.DateTimeField(auto_now_add=True)
    note = models.CharField(max_length=500, blank=True)

    refusal = "price history is append-only"

    class Meta:
        ordering = ["plan", "recorded_at", "id"]
        constraints = [
            in_range(
                "price_usd_per_gpu_hour", PLAN_BOUNDS["price_usd_per_gpu_hour"], name="pricepoint_price_range"
            )
        ]

    def __str__(self) -> str:
        return f"{self.plan}: {self.price_usd_per_gpu_hour} ({self.as_of})"


class FactChange(_AppendOnlyModel):
    """One sourced change of one fact: the old and new value, the document and date it rests on, who made
    it and when. Append-only like the price history; `needs_review` marks a source older than the stated
    age (providers.services.FACT_SOURCE_REVIEW_AGE_DAYS) at the time of the edit."""

    offering = models.ForeignKey(Offering, on_delete=models.CASCADE, related_name="fact_changes")
    fact = models.CharField(max_length=60)
    old = models.JSONField(null=True, blank=True)
    new = models.JSONField(null=True, blank=True)
    source_url = models.URLField(max_length=500)
    as_of = models.DateField()
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="fact_changes",
    )
    # Kept beside the link so the history still says who after an account is removed.
    username = models.CharField(max_length=150)
    recorded_at = models.DateTimeField(auto_now_add=True)
    needs_review = models.BooleanField(default=False)

    refusal = "fact history is append-only"

    class Meta:
        ordering = ["offering", "-recorded_at", "-id"]
        constraints = [
            # The fact name is checked by the service against providers.facts (a constraint listing the
            # names would need a migration for every new fact).
            models.CheckConstraint(condition=~Q(source_url=""), name="factchange_source_required"),
        ]

    def __str__(self) -> str:
        return f"{self.offering_id}/{self.fact} ({self.as_of})"
