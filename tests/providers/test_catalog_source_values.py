"""The catalog import names every bad value of the network and commercial facts and of the per-fact
sources, and imports good ones (on the small catalog: the demo catalog's tests share one import)."""

from __future__ import annotations

from typing import Any

import pytest

from providers.catalog import CatalogError, catalog_import
from providers.models import Offering
from providers.services import gpu_table_sync
from tests.providers.factories import small_catalog

pytestmark = pytest.mark.django_db
_small = small_catalog


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (
            {"facts": {"largest_demonstrated_gpus": 0}},
            "largest_demonstrated_gpus: Largest run demonstrated must be greater than 0 and at most"
            " 1,000,000 GPUs, got 0",
        ),
        (
            {"facts": {"largest_demonstrated_gpus": 5_000_000}},
            "largest_demonstrated_gpus: Largest run demonstrated must be greater than 0 and at most"
            " 1,000,000 GPUs, got 5,000,000",
        ),
        (
            {"fact_sources": {"nics_per_node": {"sources": ["nope"]}}},
            "fact_sources.nics_per_node.sources: source",
        ),
        (
            {"fact_sources": {"gpu": {"sources": ["acme-docs"]}}},
            "fact_sources.gpu: unknown fact for this group",
        ),
        (
            {"fact_sources": {"nics_per_node": {"sources": ["acme-docs"], "as_of": "last year"}}},
            "fact_sources.nics_per_node.as_of: expected an ISO date",
        ),
        ({"fact_sources": {"nics_per_node": "acme-docs"}}, "fact_sources.nics_per_node: expected a mapping"),
        ({"fact_sources": ["nics_per_node"]}, "groups.network.fact_sources: expected a mapping"),
        (
            {"fact_sources": {"nics_per_node": {"sources": ["acme-docs"], "unsure": "maybe"}}},
            "fact_sources.nics_per_node.unsure: expected true or false, got “maybe”",
        ),
    ],
)
def test_bad_network_values_name_their_field(change: dict[str, Any], expected: str) -> None:
    gpu_table_sync()
    data = _small()
    network = data["providers"][0]["offerings"][0]["groups"]["network"]
    network["facts"].update(change.get("facts", {}))
    if "fact_sources" in change:
        network["fact_sources"] = change["fact_sources"]
    with pytest.raises(CatalogError) as info:
        catalog_import(data=data)
    problems = [str(p) for p in info.value.report.problems]
    assert any(expected in p and "offering acme-h100" in p for p in problems), problems
    assert Offering.objects.count() == 0


@pytest.mark.parametrize(
    ("facts", "expected"),
    [
        ({"lead_time_weeks": -1}, "Lead time to a running cluster must be between 0 and 104 weeks, got -1"),
        ({"lead_time_weeks": 300}, "Lead time to a running cluster must be between 0 and 104 weeks, got 300"),
        (
            {"payment_terms": "barter"},
            "groups.commercial.facts.payment_terms: “barter” is not one of upfront",
        ),
    ],
)
def test_bad_terms_name_their_field(facts: dict[str, Any], expected: str) -> None:
    gpu_table_sync()
    data = _small()
    data["providers"][0]["offerings"][0]["groups"]["commercial"] = {"facts": facts}
    with pytest.raises(CatalogError) as info:
        catalog_import(data=data)
    assert any(expected in str(p) for p in info.value.report.problems), info.value.report.problems


def test_good_fact_sources_import_and_widen_the_group_sources() -> None:
    gpu_table_sync()
    data = _small()
    offering = data["providers"][0]["offerings"][0]
    offering["groups"]["network"]["fact_sources"] = {
        "max_nodes": {"sources": ["acme-pricing"], "as_of": "2026-10-01", "note": "'up to 64 nodes'"}
    }
    offering["groups"]["commercial"] = {"facts": {"payment_terms": "net-30", "lead_time_weeks": 6}}
    catalog_import(data=data)
    stored = Offering.objects.get(slug="acme-h100")
    assert (stored.payment_terms, stored.lead_time_weeks) == ("net-30", 6)
    network = stored.provenance.get(group="network")
    assert network.fact_sources["max_nodes"] == {
        "sources": ["acme-pricing"],
        "as_of": "2026-10-01",
        "note": "'up to 64 nodes'",
    }
    assert sorted(s.key for s in network.sources.all()) == ["acme-docs", "acme-pricing"]
