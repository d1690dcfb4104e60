from __future__ import annotations

import copy
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from providers.catalog import CatalogError, catalog_export, catalog_import, parse_csv, read_catalog_file
from providers.models import BillingPlan, Offering, PricePoint, Provider
from tests.providers.factories import SMALL_CATALOG, GPUModelFactory, small_catalog

pytestmark = pytest.mark.django_db
FIXTURE = SMALL_CATALOG


@pytest.fixture(autouse=True)
def gpu_table() -> None:
    GPUModelFactory()


load = small_catalog


def problems_of(data: dict[str, Any]) -> list[str]:
    with pytest.raises(CatalogError) as info:
        catalog_import(data=data)
    return [str(p) for p in info.value.report.problems]


def test_a_good_file_imports_every_fact_with_its_source() -> None:
    report = catalog_import(data=load())
    assert report.ok
    offering = Offering.objects.get(slug="acme-h100")
    assert offering.gbps_per_gpu == 400
    assert offering.scheduler_list == ["kubernetes", "slurm"]
    network = offering.provenance.get(group="network")
    assert str(network.as_of) == "2026-09-30"
    assert [s.key for s in offering.provenance.get(group="hardware").sources.all()] == ["acme-docs"]
    # provider defaults reach every offering; 0 stays a published zero, null stays unknown
    assert offering.egress_price_usd_per_gb == Decimal("0")
    assert offering.traffic_price_usd_per_gb is None
    box = Offering.objects.get(slug="acme-ethernet")
    assert box.plans.get().price_usd_per_gpu_hour is None
    assert PricePoint.objects.count() == 3


def test_a_dry_run_writes_nothing() -> None:
    report = catalog_import(data=load(), dry_run=True)
    assert report.ok and report.counts["offerings created"] == 2
    assert Provider.objects.count() == 0 and Offering.objects.count() == 0


@pytest.mark.parametrize(
    ("mutate", "expected"),
    [
        (
            lambda d: d["providers"][0]["offerings"][0]["groups"]["network"]["facts"].update(gbps_per_nic=-5),
            "offering acme-h100: groups.network.facts.gbps_per_nic: "
            "Speed per NIC must be between 1 and 1,600 Gb/s",
        ),
        (
            lambda d: d["providers"][0]["offerings"][0]["groups"]["network"]["facts"].update(fabric="wifi"),
            "groups.network.facts.fabric: “wifi” is not one of",
        ),
        (
            lambda d: d["providers"][0]["offerings"][0]["groups"]["hardware"]["facts"].update(gpu="RTX-9999"),
            "groups.hardware.facts.gpu: unknown GPU key “RTX-9999”",
        ),
        (
            lambda d: d["providers"][0]["offerings"][0]["groups"]["hardware"]["facts"].update(
                gpus_per_node="eight"
            ),
            "groups.hardware.facts.gpus_per_node: expected a number",
        ),
        (
            lambda d: d["providers"][0]["offerings"][0]["groups"]["hardware"]["facts"].update(
                gpus_per_node=7.5
            ),
            "expected a whole number",
        ),
        (
            lambda d: d["providers"][0]["offerings"][0]["groups"]["network"].update(sources=["nope"]),
            "groups.network.sources: source “nope” is not in the provider's sources",
        ),
        (
            lambda d: d["providers"][0]["offerings"][0]["groups"]["network"].update(as_of="yesterday"),
            "groups.network.as_of: expected an ISO date",
        ),
        (
            lambda d: d["providers"][0]["offerings"][0]["groups"].update(vibes={"facts": {}}),
            "groups.vibes: unknown group",
        ),
        (
            lambda d: d["providers"][0]["offerings"][0]["groups"]["network"]["facts"].update(colour="red"),
            "groups.network.facts.colour: unknown fact",
        ),
        (lambda d: d["providers"][0]["offerings"][1].update(slug="acme-h100"), "slug: appears twice"),
        (lambda d: d["providers"][0]["offerings"][0].update(slug="Bad Slug"), "slug: required; lower-case"),
        (lambda d: d["providers"][0].update(kind="bank"), "provider acme: kind: “bank” is not one of"),
        (
            lambda d: d["providers"][0]["offerings"][0]["plans"][0].update(price_usd_per_gpu_hour=-1),
            "plan On-demand: price_usd_per_gpu_hour: "
            "Price per GPU-hour must be greater than 0 and at most $200",
        ),
        (
            lambda d: d["providers"][0]["offerings"][0]["plans"][0].update(kind="lease"),
            "plan On-demand: kind: “lease” is not one of",
        ),
        (
            lambda d: d["providers"][0]["offerings"][0]["plans"][1].update(cycle_days=0),
            "plan Monthly cycle: cycle_days: Cycle length must be between 1 and 3,650 days, got 0",
        ),
        (
            lambda d: d["providers"][0]["offerings"][0]["plans"][1].update(upfront_pct=150),
            "upfront_pct: Upfront payment must be between 0 and 100 %, got 150",
        ),
        (
            lambda d: d["providers"][0]["offerings"][0]["groups"].update(
                commercial={"facts": {"usable_gpu_guarantee_pct": 120}}
            ),
            "usable_gpu_guarantee_pct: Usable-GPU guarantee must be between 50 and 100 %, got 120",
        ),
    ],
)
def test_each_kind_of_bad_row_is_named_and_nothing_is_written(mutate: Any, expected: str) -> None:
    data = load()
    mutate(data)
    problems = problems_of(data)
    assert any(expected in p for p in problems), problems
    assert Provider.objects.count() == 0 and Offering.objects.count() == 0


def test_all_problems_are_reported_at_once() -> None:
    data = load()
    data["providers"][0]["offerings"][0]["groups"]["network"]["facts"]["gbps_per_nic"] = 0
    data["providers"][0]["offerings"][1]["groups"]["network"]["facts"]["fabric"] = "wifi"
    assert len(problems_of(data)) == 2


def test_a_failure_in_the_write_rolls_back_everything(monkeypatch: pytest.MonkeyPatch) -> None:
    catalog_import(data=load())
    before = Offering.objects.get(slug="acme-h100").name
    data = load()
    data["providers"][0]["offerings"][0]["name"] = "Renamed"
    import providers.catalog.importing as catalog

    def explode(*args: Any, **kwargs: Any) -> None:
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(catalog, "_write_plan", explode)
    with pytest.raises(RuntimeError):
        catalog_import(data=data)
    assert Offering.objects.get(slug="acme-h100").name == before


def test_a_changed_price_is_appended_to_the_history() -> None:
    catalog_import(data=load())
    data = load()
    data["providers"][0]["offerings"][0]["plans"][0]["price_usd_per_gpu_hour"] = 2.49
    data["providers"][0]["offerings"][0]["plans"][0]["as_of"] = "2026-11-15"
    catalog_import(data=data)
    plan = BillingPlan.objects.get(offering__slug="acme-h100", name="On-demand")
    assert plan.price_usd_per_gpu_hour == Decimal("2.49")
    assert [p.price_usd_per_gpu_hour for p in plan.history.all()] == [Decimal("2.99"), Decimal("2.49")]
    catalog_import(data=data)  # same price again: no new point
    assert plan.history.count() == 2


def test_export_then_import_changes_nothing() -> None:
    catalog_import(data=load())
    exported = catalog_export()
    points = PricePoint.objects.count()
    catalog_import(data=copy.deepcopy(exported))
    assert catalog_export() == exported
    assert PricePoint.objects.count() == points


def test_csv_rows_import_like_yaml(tmp_path: Path) -> None:
    csv_text = (
        "provider_slug,provider_name,provider_kind,provider_sources,offering_slug,offering_name,gpu,gpus_per_node,"
        "intra_node,fabric,nics_per_node,gbps_per_nic,schedulers,network_sources,plan_kind,plan_name,"
        "plan_price_usd_per_gpu_hour,plan_granularity\n"
        "csvco,CSV Co,neocloud,csv-src|CSV source|https://csv.example,csvco-h100,CSV H100,"
        "H100-SXM-80GB,8,nvswitch,roce,8,400,slurm;kubernetes,csv-src,on-demand,OD,3.10,hour\n"
        "csvco,CSV Co,neocloud,,csvco-h100,CSV H100,"
        "H100-SXM-80GB,8,nvswitch,roce,8,400,slurm;kubernetes,csv-src,spot,Spot,1.20,hour\n"
    )
    path = tmp_path / "cat.csv"
    path.write_text(csv_text)
    catalog_import(data=read_catalog_file(path))
    offering = Offering.objects.get(slug="csvco-h100")
    assert offering.fabric == "roce" and offering.plans.count() == 2
    assert offering.scheduler_list == ["kubernetes", "slurm"]


def test_csv_bad_cells_name_their_row_and_column() -> None:
    csv_text = (
        "provider_slug,provider_name,provider_kind,offering_slug,offering_name,gpus_per_node,fabric\n"
        "csvco,CSV Co,neocloud,csvco-a,A,8,roce\n"
        "csvco,CSV Co,neocloud,csvco-b,B,-2,roce\n"
    )
    problems = problems_of(parse_csv(csv_text))
    assert any("offering csvco-b (row 3)" in p and "gpus_per_node" in p for p in problems), problems


def test_csv_unknown_columns_are_refused() -> None:
    with pytest.raises(CatalogError, match="colour: unknown column"):
        parse_csv("provider_slug,offering_slug,colour\na,b,red\n")


def test_the_command_reports_and_exits_2_on_bad_input(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("providers: [ {slug: x")
    with pytest.raises(CommandError) as info:
        call_command("import_catalog", str(bad))
    assert info.value.returncode == 2
    assert "not valid YAML" in str(info.value)
    with pytest.raises(CommandError, match="expected a .yaml, .yml or .csv"):
        (tmp_path / "x.txt").write_text("hello")
        call_command("import_catalog", str(tmp_path / "x.txt"))


def test_the_command_dry_run(capsys: pytest.CaptureFixture[str]) -> None:
    call_command("import_catalog", str(FIXTURE), "--dry-run")
    assert "Dry run" in capsys.readouterr().out
    assert Offering.objects.count() == 0


def test_a_native_name_needs_its_source_and_survives_export() -> None:
    data = load()
    data["providers"][0]["native_name"] = "阿里云"
    assert any("native_name_source" in p for p in problems_of(copy.deepcopy(data)))
    data["providers"][0]["native_name_source"] = "https://www.aliyun.com/"
    catalog_import(data=data)
    provider = Provider.objects.get(slug=data["providers"][0]["slug"])
    assert (provider.native_name, provider.native_name_source) == ("阿里云", "https://www.aliyun.com/")
    exported = catalog_export()
    assert exported["providers"][0]["native_name"] == "阿里云"
    catalog_import(data=copy.deepcopy(exported))
    assert catalog_export() == exported
