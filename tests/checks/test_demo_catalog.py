"""The demo catalog: each fictional trap offering raises its trap, well-built offerings raise none.

Real offerings that publish a full RDMA fabric, a full NVSwitch mesh and standard containers must not
get a critical finding about hardware, fees or lock-in. The one critical a real offering may get is
`no-fault-tolerance` when it publishes neither automatic bad-node detection nor automatic
checkpoint/restart: for the portal's 100B reference job (~16 expected failures at the Llama 3 rate) a
manual-only recovery costs hours of the whole cluster each time, and an unpublished capability is one the
buyer cannot count on (docs/CHECKS.md). Offerings that publish it (AWS, CoreWeave, Crusoe) get none.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from checks.models import Finding
from checks.services import findings_refresh_catalog
from providers.catalog import catalog_import, read_catalog_file
from providers.services import gpu_table_sync
from tests.conftest import module_rows

DEMO = Path(__file__).resolve().parents[2] / "providers" / "demo" / "catalog.yaml"


@pytest.fixture(scope="module")
def demo_catalog() -> dict[str, Any]:
    return read_catalog_file(DEMO)


@pytest.fixture(scope="module")
def demo_rows(
    django_db_setup: None, django_db_blocker: Any, demo_catalog: dict[str, Any]
) -> Iterator[dict[str, dict[str, str]]]:
    """The demo catalog imported and checked once for the module (its rows rolled back after the module,
    see module_rows), with each offering's claims findings: code -> severity."""

    def build() -> dict[str, dict[str, str]]:
        gpu_table_sync()
        catalog_import(data=copy.deepcopy(demo_catalog))
        findings_refresh_catalog()
        out: dict[str, dict[str, str]] = {}
        for row in Finding.objects.select_related("offering").filter(context="claims"):
            out.setdefault(row.offering.slug, {})[row.code] = row.severity
        return out

    with module_rows(django_db_blocker, build) as findings:
        yield findings


@pytest.fixture
def demo_findings(db: None, demo_rows: dict[str, dict[str, str]]) -> dict[str, dict[str, str]]:
    return copy.deepcopy(demo_rows)


def test_every_sample_trap_raises_its_trap(demo_findings: dict[str, dict[str, str]]) -> None:
    assert demo_findings["sample-ethernet-highspeed"].get("fabric-not-rdma") == "critical"
    assert demo_findings["sample-pcie-box"].get("intra-node-not-full-mesh") == "critical"
    assert "no-fault-tolerance" in demo_findings["sample-no-fault-tolerance"]
    assert "usable-gpus-short" in demo_findings["sample-no-fault-tolerance"]
    assert "hidden-fees" in demo_findings["sample-hidden-fees"]
    assert "topology-wont-scale" in demo_findings["sample-ring-cluster"]


def test_each_trap_sample_raises_no_critical_outside_its_trap(
    demo_findings: dict[str, dict[str, str]],
) -> None:
    # An Ethernet or PCIe sample also has too little fabric per GPU: that is the same trap seen from the
    # sizing side, so fabric-too-slow is allowed there.
    allowed = {
        "sample-ethernet-highspeed": {"fabric-not-rdma", "fabric-too-slow"},
        "sample-pcie-box": {"intra-node-not-full-mesh", "fabric-too-slow"},
        "sample-no-fault-tolerance": {"no-fault-tolerance", "usable-gpus-short"},
        "sample-hidden-fees": {"hidden-fees"},
        "sample-ring-cluster": {"topology-wont-scale"},
    }
    for slug, codes in allowed.items():
        critical = {c for c, s in demo_findings.get(slug, {}).items() if s == "critical"}
        assert critical <= codes, slug


def test_the_well_built_sample_raises_no_critical(demo_findings: dict[str, dict[str, str]]) -> None:
    assert "critical" not in demo_findings.get("sample-well-built", {}).values()


def test_well_built_real_offerings_raise_no_critical_they_do_not_deserve(
    demo_findings: dict[str, dict[str, str]],
) -> None:
    for slug in ("aws-p5-48xlarge", "aws-p5en-48xlarge", "cw-hgx-h100", "crusoe-h100"):
        assert "critical" not in demo_findings.get(slug, {}).values(), slug
    for slug in ("azure-nd-h100-v5", "nebius-hgx-h100", "oci-bm-gpu-h100-8", "gcp-a3-ultra", "cw-hgx-b200"):
        critical = {c for c, s in demo_findings.get(slug, {}).items() if s == "critical"}
        assert critical <= {"no-fault-tolerance"}, slug
    # ... and that one only for not publishing the capability, never for a published "yes".
    unpublished = Finding.objects.filter(
        code="no-fault-tolerance", severity="critical", offering__fictional=False
    )
    assert unpublished.exists()
    assert not unpublished.exclude(title__contains="not published").exists()
