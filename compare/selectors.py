"""Reads of the compare pages: a bounded number of queries whatever the number of offerings.

Each function here is one query (or a fixed handful); the figures are built from what they return
(compare/charts.py), never by re-running the sizing model in the request.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from django.core.exceptions import ValidationError
from django.db.models import Count, Min, Q
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from benchmarks.models import Upload
from checks.models import CONTEXT_CLAIMS, Finding
from checks.selectors import severity_order
from compare.charts.overview import OVERVIEW_FEATURES
from providers.models import BillingPlan, Offering, PricePoint
from sizing.engine.workload import PRESETS
from sizing.models import Workload
from sizing.presets import preset_by_name, preset_label, preset_names
from sizing.services import preset_fields

MIN_OFFERINGS = 2
MAX_OFFERINGS = 12
_SLUG = re.compile(r"^[-a-zA-Z0-9_]{1,80}$")


def _shown(value: str, limit: int = 60) -> str:
    """A user-supplied value for an error message (the template escapes it; this only bounds its length)."""
    return value if len(value) <= limit else value[: limit - 1] + "…"


def parse_offering_slugs(values: list[str]) -> list[str]:
    """`?offerings=a,b&offerings=c` -> ["a", "b", "c"] (order kept, duplicates dropped); ValidationError
    naming `offerings` when there are fewer than 2 or more than 12, or a value is not a slug."""
    slugs: list[str] = []
    for value in values:
        for part in value.split(","):
            part = part.strip()
            if part and part not in slugs:
                slugs.append(part)
    bad = [s for s in slugs if not _SLUG.match(s)]
    if bad:
        raise ValidationError({"offerings": _("not an offering slug: %(slug)s") % {"slug": _shown(bad[0])}})
    if len(slugs) < MIN_OFFERINGS:
        raise ValidationError(
            {
                "offerings": _("pick at least %(min)s offerings to compare (got %(got)s)")
                % {"min": MIN_OFFERINGS, "got": len(slugs)}
            }
        )
    if len(slugs) > MAX_OFFERINGS:
        raise ValidationError(
            {
                "offerings": _("compare at most %(max)s offerings at a time (got %(got)s)")
                % {"max": MAX_OFFERINGS, "got": len(slugs)}
            }
        )
    return slugs


def offering_compare_list(*, slugs: list[str]) -> list[Offering]:
    """The offerings in the order asked, with provider, GPU and plans joined (ValidationError naming
    `offerings` for unknown slugs)."""
    qs = (
        Offering.objects.filter(slug__in=slugs)
        .select_related("provider", "gpu")
        .prefetch_related("plans")
        .annotate(
            on_demand_price=Min(
                "plans__price_usd_per_gpu_hour", filter=Q(plans__kind=BillingPlan.Kind.ON_DEMAND)
            )
        )
    )
    by_slug = {o.slug: o for o in qs}
    missing = [s for s in slugs if s not in by_slug]
    if missing:
        raise ValidationError(
            {
                "offerings": ngettext(
                    "unknown offering: %(slugs)s", "unknown offerings: %(slugs)s", len(missing)
                )
                % {"slugs": _(", ").join(missing)}
            }
        )
    return [by_slug[s] for s in slugs]


PICKER_LIMIT = 100


def offering_picker_list(*, chosen: list[str], include_samples: bool, search: str = "") -> list[Offering]:
    """The offerings the picker lists: the chosen ones, then up to PICKER_LIMIT more whose offering or
    provider name contains `search`; fictional samples only when asked for (two queries)."""
    base = Offering.objects.select_related("provider").order_by("provider__name", "name")
    if not include_samples:
        base = base.filter(fictional=False)
    picked = list(base.filter(slug__in=chosen[:MAX_OFFERINGS]))
    rest = base.exclude(slug__in=chosen[:MAX_OFFERINGS])
    if search:
        rest = rest.filter(Q(name__icontains=search) | Q(provider__name__icontains=search))
    return picked + list(rest[:PICKER_LIMIT])


@dataclass(frozen=True)
class WorkloadRef:
    """What `?workload=` names: a preset (shared by everybody) or one of the user's own workloads."""

    preset: str = ""
    workload: Workload | None = None

    @property
    def value(self) -> str:
        return self.preset or str(self.workload.pk if self.workload else "")

    @property
    def label(self) -> str:
        if self.workload is not None:
            return self.workload.name
        return preset_label(self.preset)  # by its name ("Llama 3 70B"), not its code


def workload_for(ref: WorkloadRef) -> Workload:
    """The workload a reference names: the user's own, or an unsaved one built from the preset."""
    if ref.workload is not None:
        return ref.workload
    return Workload(name=ref.preset, preset=ref.preset, **preset_fields(ref.preset))


def workload_resolve(*, user: Any, value: str) -> WorkloadRef | None:
    """None for no workload; a preset name; or the id of one of `user`'s workloads. ValidationError naming
    `workload` otherwise (another user's workload does not exist for you)."""
    value = (value or "").strip()
    if not value:
        return None
    if value in PRESETS:
        return WorkloadRef(preset=value)
    if (named := preset_by_name(value)) is not None:  # the names the error below lists
        return WorkloadRef(preset=named)
    if value.isdigit() and len(value) < 19:
        if user is not None and user.is_authenticated:
            workload = Workload.objects.filter(pk=int(value), owner=user).first()
            if workload is not None:
                return WorkloadRef(workload=workload)
        raise ValidationError(
            {
                "workload": _("no workload %(id)s of yours (log in, or use a preset: %(presets)s)")
                % {"id": value, "presets": preset_names()}
            }
        )
    raise ValidationError(
        {
            "workload": _(
                "unknown workload “%(value)s”: give the id of one of your workloads or a preset (%(presets)s)"
            )
            % {"value": _shown(value), "presets": preset_names()}  # quoted as typed, as other page errors do
        }
    )


def workload_choices(*, user: Any) -> list[tuple[str, str]]:
    """(value, label) for the workload select: presets first, then the user's own workloads."""
    choices = [(name, _("preset: %(name)s") % {"name": preset_label(name)}) for name in PRESETS]
    if user is not None and user.is_authenticated:
        for pk, name in (
            Workload.objects.filter(owner=user).order_by("-created_at", "-id").values_list("pk", "name")[:50]
        ):
            choices.append((str(pk), _("yours: %(name)s (#%(id)s)") % {"name": name, "id": pk}))
    return choices


def public_uploads(*, offering_ids: list[int]) -> list[Upload]:
    """Public parsed evidence about the offerings, newest first (everyone may see it; one query)."""
    return list(
        Upload.objects.filter(
            offering_id__in=offering_ids, visibility=Upload.Visibility.PUBLIC, status=Upload.Status.PARSED
        )
        .select_related("owner")
        .order_by("-created_at", "-id")
    )


def price_points(*, offering_ids: list[int]) -> list[PricePoint]:
    return list(
        PricePoint.objects.filter(plan__offering_id__in=offering_ids)
        .select_related("plan")
        .order_by("plan__offering_id", "plan_id", "as_of", "recorded_at", "id")
    )


def catalog_findings(*, offering_ids: list[int]) -> list[Finding]:
    """The offerings' findings on their published facts, most severe first (one query)."""
    return list(
        Finding.objects.filter(offering_id__in=offering_ids, context=CONTEXT_CLAIMS)
        .annotate(severity_order=severity_order())
        .order_by("offering_id", "severity_order", "code")
    )


def overview_offerings() -> list[dict[str, Any]]:
    """Every real offering (fictional samples are teaching material, not the market) as the few values the
    overview charts need (one query, no model instances)."""
    return list(
        Offering.objects.filter(fictional=False)
        .annotate(
            on_demand_price=Min(
                "plans__price_usd_per_gpu_hour", filter=Q(plans__kind=BillingPlan.Kind.ON_DEMAND)
            )
        )
        .order_by("provider__name", "name")
        .values(
            "id",
            "slug",
            "name",
            "fictional",
            "provider__name",
            "provider__native_name",
            "gpu__key",
            "gpu__name",
            "gpu_label",
            "fabric",
            "nics_per_node",
            "gbps_per_nic",
            "gpus_per_node",
            "on_demand_price",
            *OVERVIEW_FEATURES,  # the features panel counts these
            "usable_gpu_guarantee_pct",
            "exclusivity",
        )
    )


def overview_finding_counts() -> list[dict[str, Any]]:
    """Catalog findings on real offerings counted by code and severity (one aggregate query)."""
    return list(
        Finding.objects.filter(context=CONTEXT_CLAIMS, offering__fictional=False)
        .values("code", "severity")
        .annotate(n=Count("id"))
        .order_by("code", "severity")
    )


def provider_count() -> int:
    """Providers with at least one real offering."""
    return Offering.objects.filter(fictional=False).values("provider_id").distinct().count()
