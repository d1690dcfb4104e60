"""The imported demo catalog: sources per fact group and per fact in the API, GPU keys the engine knows,
the new facts reaching the engine (the catalog import naming every bad value of the new fields is in
test_catalog_source_values.py, on a catalog of its own)."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.core.serializers.json import DjangoJSONEncoder
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from hardware import GPUS
from hardware.names import gpu_from_text
from providers import selectors
from providers.api import OfferingSerializer
from providers.catalog import catalog_export, catalog_import, read_catalog_file
from providers.facts import GROUPS
from providers.models import Offering
from providers.services import gpu_table_sync
from tests.conftest import module_rows

pytestmark = pytest.mark.django_db
REPO = Path(__file__).resolve().parents[2]
# Real offerings whose GPU model is not published anywhere the catalog read (no key can be given honestly).
GPU_NOT_PUBLISHED = {"ali-lingjun", "volc-rdma-gpu", "yiwan-rack-cluster"}


@pytest.fixture(scope="module")
def demo_rows(django_db_setup: None, django_db_blocker: Any) -> Iterator[None]:
    """The demo catalog imported once for the module (every test here reads it; see module_rows)."""

    def build() -> None:
        gpu_table_sync()
        catalog_import(data=read_catalog_file(REPO / "providers" / "demo" / "catalog.yaml"))

    with module_rows(django_db_blocker, build):
        yield


@pytest.fixture
def demo(db: None, demo_rows: None) -> None:
    """The demo catalog as imported: what a test writes is rolled back with its savepoint."""


def offering_json(client: Client, slug: str) -> dict[str, Any]:
    response = client.get(f"/api/v1/offerings/{slug}/")
    assert response.status_code == 200
    return dict(response.json())


def test_the_offering_json_gives_each_group_its_sources_and_date(client: Client, demo: None) -> None:
    data = offering_json(client, "azure-nd-h100-v5")
    assert set(data["sources"]) == set(GROUPS)
    network = data["sources"]["network"]
    assert network["label"] == GROUPS["network"] and network["as_of"] == "2024-08-01"
    assert all(set(s) == {"key", "title", "url", "date", "kind"} for s in network["sources"])
    # the group cites the sources of its single facts too
    assert "mlperf-tr31-azure" in {s["key"] for s in network["sources"]}
    largest = network["facts"]["largest_demonstrated_gpus"]
    assert data["largest_demonstrated_gpus"] == 10752
    assert [s["url"] for s in largest["sources"]] == [
        "https://github.com/mlcommons/training_results_v3.1/blob/main/Azure+NVIDIA/systems/ND_H100_v5_n1344_pytorch.json"
    ]
    assert largest["as_of"] == "2025-01-14" and "1,344 nodes" in largest["note"]
    # a group the offering publishes nothing in: no sources, no date
    assert data["sources"]["storage"]["sources"] == [] or data["sources"]["storage"]["as_of"] is None
    lambda_storage = offering_json(client, "lambda-1cc")["sources"]["storage"]
    assert lambda_storage == {
        "label": GROUPS["storage"],
        "sources": [],
        "as_of": None,
        "unsure": False,
        "note": "",
        "facts": {},
    }


def test_not_published_stays_null_beside_where_it_was_looked_for(client: Client, demo: None) -> None:
    data = offering_json(client, "cw-hgx-h200")
    assert data["nics_per_node"] is None and data["gbps_per_nic"] is None
    looked = data["sources"]["network"]["facts"]["nics_per_node"]
    assert looked["note"].startswith("Not published") and looked["sources"]
    lam = offering_json(client, "lambda-1cc-b200")
    assert lam["lead_time_weeks"] is None and lam["payment_terms"] is None
    terms = lam["sources"]["commercial"]["facts"]
    assert terms["payment_terms"]["note"] == "Not published in the Lambda pages read."
    # a published value next to it is a value, with its own source
    # a second-hand figure is a value marked unsure on its own, even in a group that is sure
    ultra = offering_json(client, "gcp-a3-ultra")["sources"]["network"]
    assert ultra["unsure"] is False and ultra["facts"]["nics_per_node"]["unsure"] is True
    assert ultra["facts"]["largest_demonstrated_gpus"]["unsure"] is False
    h100 = offering_json(client, "cw-hgx-h100")
    assert (h100["nics_per_node"], h100["gbps_per_nic"], h100["gbps_per_gpu"]) == (8, 400, 400)
    assert h100["sources"]["network"]["facts"]["nics_per_node"]["as_of"] == "2023-08-10"


def test_the_offering_list_reads_sources_in_a_fixed_number_of_queries(client: Client, demo: None) -> None:
    counts = []
    for limit in (3, 40):
        with CaptureQueriesContext(connection) as queries:
            data = client.get(f"/api/v1/offerings/?limit={limit}&include_fictional=true").json()
        assert len(data["results"]) == limit and all("sources" in o for o in data["results"])
        counts.append(len(queries))
    assert counts[0] == counts[1]


def test_the_offering_list_reads_prefetched_lists_and_answers_as_the_managers_do(
    client: Client, demo: None
) -> None:
    """The API's prefetch into lists (no queryset per object) gives the same JSON as the serializer reading
    the related managers, as the edit answers do (selectors.offering_get)."""
    offering = selectors.offering_api_queryset().get(slug="aws-p5-48xlarge")
    assert isinstance(offering.plan_rows, list) and isinstance(offering.provenance_rows, list)  # type: ignore[attr-defined]
    assert offering.plans_shown and all(isinstance(p.history_rows, list) for p in offering.plans_shown)  # type: ignore[attr-defined]
    assert any(p.history_shown for p in offering.plans_shown)
    assert any(row.sources_shown for row in offering.provenance_shown)
    listed = client.get("/api/v1/offerings/?limit=100&include_fictional=true").json()["results"]
    assert len(listed) == Offering.objects.count()
    for row in listed:
        from_managers = OfferingSerializer(selectors.offering_get(slug=row["slug"])).data
        assert json.loads(json.dumps(from_managers, cls=DjangoJSONEncoder)) == row, row["slug"]


def test_every_real_offering_has_a_gpu_key_the_engine_knows(demo: None) -> None:
    real = Offering.objects.filter(fictional=False).select_related("gpu")
    assert real.count() == 38
    without = set()
    for offering in real:
        if offering.gpu is None:
            without.add(offering.slug)
            # nothing in what it publishes names a GPU
            assert offering.gpu_label is None or gpu_from_text(offering.gpu_label) is None, offering.slug
            continue
        assert offering.gpu.key in GPUS, offering.slug
        named = gpu_from_text(offering.gpu_label or "")
        assert named is None or named.key == offering.gpu.key, (offering.slug, offering.gpu_label)
    assert without == GPU_NOT_PUBLISHED
    kinds = set(real.exclude(gpu=None).values_list("gpu__key", flat=True))
    for key in ("B200-180GB", "GB200-186GB", "GB300-288GB", "MI300X-192GB", "MI355X-288GB"):
        assert key in kinds
    assert {"H800-SXM-80GB", "Ascend-910B-64GB", "Ascend-910C-128GB"} <= kinds


def test_offerings_split_per_gpu_model_keep_their_own_prices(demo: None) -> None:
    def prices(slug: str) -> dict[str, Any]:
        return {p.name: p.price_usd_per_gpu_hour for p in Offering.objects.get(slug=slug).plans.all()}

    assert set(prices("lambda-1cc")) == {"H100 (8x instance) on-demand", "H100 (1x instance) on-demand"}
    assert [float(p) for p in prices("lambda-1cc-b200").values()] == [6.99]
    assert "H200 on-demand (observed)" in prices("together-gpu-clusters-h200")
    assert "H100 on-demand (observed)" not in prices("together-gpu-clusters-b200")
    for slug in ("nebius-gb300-nvl72", "crusoe-gb200-nvl72"):
        offering = Offering.objects.get(slug=slug)
        assert offering.gpus_per_node == 4 and offering.nvlink_domain_gpus == 72


def test_the_engine_receives_the_published_fabric_and_new_facts(demo: None) -> None:
    from sizing.engine.hardware import hardware_from_facts

    for offering in Offering.objects.filter(fictional=False).exclude(gpu=None).prefetch_related("plans"):
        facts = offering.facts()
        for name in ("largest_demonstrated_gpus", "lead_time_weeks", "payment_terms", "max_nodes"):
            assert name in facts
        assert facts["nodes"] == offering.max_nodes
        hw = hardware_from_facts(facts)  # every real offering with a GPU key builds a link model
        if offering.nics_per_node and offering.gbps_per_nic:
            assert not any(a.fact == "nics_per_node" for a in hw.assumed), offering.slug
    azure = Offering.objects.get(slug="azure-nd-h100-v5").facts()
    assert (azure["nics_per_node"], azure["gbps_per_nic"], azure["largest_demonstrated_gpus"]) == (
        8,
        400,
        10752,
    )


def test_export_keeps_fact_sources_and_reimport_changes_nothing(demo: None) -> None:
    exported = catalog_export()
    cw = next(p for p in exported["providers"] if p["slug"] == "coreweave")
    h100 = next(o for o in cw["offerings"] if o["slug"] == "cw-hgx-h100")
    assert h100["groups"]["network"]["fact_sources"]["nics_per_node"]["sources"] == ["mlperf-tr30-cw"]
    catalog_import(data=copy.deepcopy(exported))
    assert catalog_export() == exported


def test_the_offering_page_rows_carry_each_fact_source(client: Client, demo: None) -> None:
    response = client.get("/offerings/cw-hgx-h200/")
    network = next(g for g in response.context["groups"] if g["key"] == "network")
    rows = {row["fact"].name: row for row in network["rows"]}
    assert rows["nics_per_node"]["published"] is False
    assert rows["nics_per_node"]["source"]["note"].startswith("Not published")
    assert rows["topology"]["source"]["sources"][0]["url"].startswith("https://docs.coreweave.com/")
    assert rows["fabric"]["source"] is None  # covered by the group's sources only


def test_a_hand_edited_fact_source_of_another_shape_is_skipped(client: Client, demo: None) -> None:
    from providers.models import Provenance

    row = Provenance.objects.get(offering__slug="cw-hgx-h200", group="network")
    row.fact_sources = {"nics_per_node": "typed by hand", "topology": {"sources": "cw-hpc-interconnect"}}
    row.save()
    facts = offering_json(client, "cw-hgx-h200")["sources"]["network"]["facts"]
    assert list(facts) == ["topology"] and facts["topology"]["sources"] == []
