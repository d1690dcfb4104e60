"""The import: validate the whole catalog, then write it in one transaction (all-or-nothing)."""

from __future__ import annotations

from typing import Any

from django.db import IntegrityError, transaction

from providers.catalog.report import CatalogError, ImportReport, Problem
from providers.catalog.validation import catalog_validate
from providers.models import BillingPlan, GPUModel, Offering, PricePoint, Provenance, Provider, Source


def catalog_import(*, data: dict[str, Any], dry_run: bool = False) -> ImportReport:
    """Validate the whole catalog, then write it in one transaction (rolled back on a dry run).

    Raises CatalogError naming every bad provider, offering, plan and field; nothing is written then.
    """
    report = ImportReport(dry_run=dry_run)
    gpu_keys = set(GPUModel.objects.values_list("key", flat=True))
    clean = catalog_validate(data, report, gpu_keys)
    if report.problems:
        raise CatalogError(report)
    try:
        with transaction.atomic():
            _write(clean, report)
            if dry_run:
                transaction.set_rollback(True)
    except IntegrityError as exc:  # a constraint the validation missed: still all-or-nothing
        report.problems.append(Problem("database", "constraint", str(exc)))
        raise CatalogError(report) from exc
    return report


def _write(providers: list[dict[str, Any]], report: ImportReport) -> None:
    gpus = {gpu.key: gpu for gpu in GPUModel.objects.all()}
    for provider_data in providers:
        provider, created = Provider.objects.update_or_create(
            slug=provider_data["slug"],
            defaults={
                key: provider_data[key]
                for key in ("name", "kind", "website", "notes", "native_name", "native_name_source")
            },
        )
        report.bump("providers created" if created else "providers updated")
        sources: dict[str, Source] = {source.key: source for source in provider.sources.all()}
        for source_data in provider_data["sources"]:
            source, _ = Source.objects.update_or_create(
                provider=provider,
                key=source_data["key"],
                defaults={key: source_data[key] for key in ("title", "url", "date_text", "kind")},
            )
            sources[source.key] = source
        for offering_data in provider_data["offerings"]:
            _write_offering(provider, offering_data, sources, gpus, report)


def _write_offering(
    provider: Provider,
    offering_data: dict[str, Any],
    sources: dict[str, Source],
    gpus: dict[str, GPUModel],
    report: ImportReport,
) -> None:
    values: dict[str, Any] = {}
    for name, value in offering_data["facts"].items():
        if name == "gpu":
            values["gpu"] = gpus[value] if value else None
        elif name == "schedulers":
            values["schedulers"] = ",".join(value or [])
        else:
            values[name] = value
    offering, created = Offering.objects.update_or_create(
        slug=offering_data["slug"],
        defaults={
            "provider": provider,
            **{key: offering_data[key] for key in ("name", "summary", "fictional")},
            **values,
        },
    )
    report.bump("offerings created" if created else "offerings updated")
    offering.provenance.exclude(group__in=list(offering_data["provenance"])).delete()
    for group, provenance in offering_data["provenance"].items():
        row, _ = Provenance.objects.update_or_create(
            offering=offering,
            group=group,
            defaults={key: provenance[key] for key in ("as_of", "note", "unsure", "fact_sources")},
        )
        # the group cites every source one of its facts cites
        cited = dict.fromkeys(provenance["sources"])
        for entry in provenance["fact_sources"].values():
            cited.update(dict.fromkeys(entry["sources"]))
        row.sources.set([sources[key] for key in cited])
    for plan in offering_data["plans"]:
        _write_plan(offering, plan, sources, report)


def _write_plan(
    offering: Offering, plan: dict[str, Any], sources: dict[str, Source], report: ImportReport
) -> None:
    fields = {key: plan[key] for key in plan if key not in ("name", "sources")}
    stored = BillingPlan.objects.filter(offering=offering, name=plan["name"]).first()
    if stored is None:
        stored = BillingPlan.objects.create(offering=offering, name=plan["name"], **fields)
        report.bump("plans created")
        price_changed = True
    else:
        price_changed = stored.price_usd_per_gpu_hour != plan["price_usd_per_gpu_hour"]
        for key, value in fields.items():
            setattr(stored, key, value)
        stored.save()
        report.bump("plans updated")
    stored.sources.set([sources[key] for key in plan["sources"]])
    if price_changed:
        PricePoint.objects.create(
            plan=stored,
            price_usd_per_gpu_hour=plan["price_usd_per_gpu_hour"],
            as_of=plan["as_of"],
            note=plan["note"][:500],
        )
        report.bump("price points appended")
