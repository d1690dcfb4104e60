"""Renamed copies of a catalog made with bulk inserts: a large catalog in seconds, for tests and perf/.

Each copy repeats every given provider (as "<name> (copy n)"), its offerings, billing plans, provenance (with
sources) and catalog findings, so that pages, queries and the planner see what a real catalog of that size
holds. perf/grow_catalog.py grows the benchmark catalog with it; the real-worker planner test uses it so that
a run lasts long enough to be watched.
"""

from __future__ import annotations

from checks.models import CONTEXT_CLAIMS, Finding
from providers.models import BillingPlan, Offering, Provenance, Provider, Source


def copy_providers(n: int, providers: list[Provider]) -> None:
    """Copy n of every demo provider with everything under it (bulk inserts, a fixed number per copy)."""
    new_providers = {}
    for p in providers:
        new_providers[p.pk] = Provider(
            slug=f"{p.slug}-c{n}"[:60], name=f"{p.name} (copy {n})", kind=p.kind, website=p.website
        )
    Provider.objects.bulk_create(new_providers.values())
    sources = list(Source.objects.filter(provider__in=providers))
    new_sources = {}
    for s in sources:
        old = s.pk
        s.pk, s.provider = None, new_providers[s.provider_id]
        new_sources[old] = s
    Source.objects.bulk_create(new_sources.values())
    offerings = list(Offering.objects.filter(provider__in=providers).order_by("pk"))
    new_offerings = {}
    for o in offerings:
        old = o.pk
        o.pk, o.provider = None, new_providers[o.provider_id]
        o.slug, o.name = f"{o.slug}-c{n}"[:80], f"{o.name} (copy {n})"
        new_offerings[old] = o
    Offering.objects.bulk_create(new_offerings.values())
    plans = list(BillingPlan.objects.filter(offering_id__in=new_offerings))
    for plan in plans:
        plan.pk, plan.offering = None, new_offerings[plan.offering_id]
    BillingPlan.objects.bulk_create(plans)
    provenance = list(Provenance.objects.filter(offering_id__in=new_offerings).prefetch_related("sources"))
    links = []
    for prov in provenance:
        linked = [new_sources[s.pk] for s in prov.sources.all() if s.pk in new_sources]
        prov.pk, prov.offering = None, new_offerings[prov.offering_id]
        links.append((prov, linked))
    Provenance.objects.bulk_create([p for p, _ in links])
    through = Provenance.sources.through
    through.objects.bulk_create(
        [through(provenance_id=p.pk, source_id=s.pk) for p, linked in links for s in linked]
    )
    findings = list(Finding.objects.filter(offering_id__in=new_offerings, context=CONTEXT_CLAIMS))
    for f in findings:
        f.pk, f.offering = None, new_offerings[f.offering_id]
    Finding.objects.bulk_create(findings)
