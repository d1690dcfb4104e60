"""The Finding model, the refresh service and its triggers."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction

from checks import selectors, services
from checks.models import Finding
from checks.tasks import findings_refresh_task
from compare.sized import catalog_version_bump
from providers.services import offering_update, plan_price_change
from tests.providers.factories import OfferingFactory, PlanFactory, ProviderFactory, UserFactory

pytestmark = pytest.mark.django_db


def make_finding(offering: Any, **overrides: Any) -> Finding:
    values = {"code": "hidden-fees", "severity": "warning", "title": "t", "context": "claims"}
    values.update(overrides)
    return Finding.objects.create(offering=offering, **values)


def test_it_allows_one_finding_per_offering_code_and_context() -> None:
    offering = OfferingFactory()
    make_finding(offering)
    make_finding(offering, context="run:7")
    with pytest.raises(IntegrityError), transaction.atomic():
        make_finding(offering)


@pytest.mark.parametrize(
    "overrides", [{"severity": "fatal"}, {"context": "somewhere"}, {"context": "run:abc"}, {"code": ""}]
)
def test_the_database_rejects_bad_severity_context_and_code(overrides: dict) -> None:
    with pytest.raises(IntegrityError), transaction.atomic():
        make_finding(OfferingFactory(), **overrides)


def test_refresh_is_idempotent() -> None:
    offering = OfferingFactory(fabric="ethernet", nics_per_node=1, gbps_per_nic=100.0)
    first = services.findings_refresh(offering=offering)
    rows = list(Finding.objects.filter(offering=offering).order_by("code").values())
    second = services.findings_refresh(offering=offering)
    assert [f.pk for f in first] == [f.pk for f in second]
    assert list(Finding.objects.filter(offering=offering).order_by("code").values()) == rows
    assert {"fabric-not-rdma", "fabric-too-slow"} <= {r["code"] for r in rows}


def test_refresh_replaces_only_its_own_context() -> None:
    offering = OfferingFactory(fabric="ethernet")
    stale = make_finding(offering, code="no-such-trap")
    run = make_finding(offering, code="deadline-missed", severity="critical", context="run:3")
    services.findings_refresh(offering=offering)
    assert not Finding.objects.filter(pk=stale.pk).exists()
    assert Finding.objects.filter(pk=run.pk).exists()
    assert Finding.objects.filter(offering=offering, code="fabric-not-rdma", context="claims").exists()


def test_refresh_stores_what_the_rules_say() -> None:
    offering = OfferingFactory(fabric="ethernet")
    services.findings_refresh(offering=offering)
    row = Finding.objects.get(offering=offering, code="fabric-not-rdma")
    assert row.severity == "critical"
    assert row.advice and row.impact.get("text")
    assert any(e.get("fact") == "fabric" and e.get("value") == "ethernet" for e in row.evidence)


def checks_callbacks(callbacks: list[Any]) -> list[Any]:
    """The on-commit work of the checks app (the compare app also bumps its catalog version on commit)."""
    return [c for c in callbacks if c is not catalog_version_bump]


def test_an_offering_edit_refreshes_its_findings(django_capture_on_commit_callbacks: Any) -> None:
    offering = OfferingFactory(provider=ProviderFactory(slug="edit-me"))
    rep = UserFactory(username="rep-edit", role="provider", provider=offering.provider)
    services.findings_refresh(offering=offering)
    assert not Finding.objects.filter(offering=offering, code="fabric-not-rdma").exists()
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        offering_update(user=rep, offering=offering, facts={"fabric": "ethernet"})
    assert len(checks_callbacks(callbacks)) == 1
    assert Finding.objects.get(offering=offering, code="fabric-not-rdma").severity == "critical"
    with django_capture_on_commit_callbacks(execute=True):
        offering_update(user=rep, offering=offering, facts={"fabric": "infiniband"})
    assert not Finding.objects.filter(offering=offering, code="fabric-not-rdma").exists()


def test_a_price_change_refreshes_its_findings(django_capture_on_commit_callbacks: Any) -> None:
    plan = PlanFactory()
    rep = UserFactory(username="rep-price", role="provider", provider=plan.offering.provider)
    assert not Finding.objects.filter(offering=plan.offering).exists()
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        plan_price_change(user=rep, plan=plan, price_usd_per_gpu_hour=Decimal("2.10"), as_of=None)
    assert len(checks_callbacks(callbacks)) == 1
    assert Finding.objects.filter(offering=plan.offering, context="claims").exists()


def test_nothing_is_refreshed_when_the_edit_rolls_back(django_capture_on_commit_callbacks: Any) -> None:
    offering = OfferingFactory()
    rep = UserFactory(username="rep-bad", role="provider", provider=offering.provider)
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        with pytest.raises(ValidationError):
            offering_update(user=rep, offering=offering, facts={"gbps_per_nic": "lots"})
    assert callbacks == []


def test_refresh_for_schedules_one_task_per_offering(django_capture_on_commit_callbacks: Any) -> None:
    a, b = OfferingFactory(fabric="ethernet"), OfferingFactory(fabric="ethernet")
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        services.findings_refresh_for([a.pk, b.pk, a.pk])
    assert len(callbacks) == 2
    assert Finding.objects.filter(code="fabric-not-rdma").count() == 2


def test_the_task_is_routed_to_the_sizing_queue_and_ignores_deleted_offerings() -> None:
    from portal.celery import app

    assert findings_refresh_task.name == "checks.findings_refresh"
    route = app.amqp.router.route({}, findings_refresh_task.name)
    assert route["queue"].name == "sizing"
    assert findings_refresh_task.delay(999_999).get() == 0


def test_evidence_is_empty_until_the_uploads_app_has_its_model() -> None:
    offering = OfferingFactory()
    if selectors._upload_model() is None:
        assert selectors.evidence_for_offering(offering) == []
    else:  # the uploads app has shipped: items have the documented shape
        for item in selectors.evidence_for_offering(offering):
            assert {"upload_id", "filename", "kind", "summary"} <= set(item)


def test_the_refresh_command_checks_every_offering() -> None:
    from django.core.management import call_command

    OfferingFactory(fabric="ethernet")
    OfferingFactory(fabric="ethernet")
    call_command("findings_refresh")
    assert Finding.objects.filter(code="fabric-not-rdma").count() == 2


def _upload(offering: Any, owner: Any, **values: Any) -> Any:
    from benchmarks.models import Blob, Upload

    blob = Blob.objects.create(
        sha256=values.pop("sha", "a" * 64), size_bytes=10, storage_name=values.pop("storage", "u/a")
    )
    defaults = {
        "original_filename": "node1-ibstat.txt",
        "visibility": "public",
        "status": "parsed",
        "kind": "ibstat",
        "summary": {
            "ports": [
                {
                    "device": "mlx5_0",
                    "port": 1,
                    "state": "Active",
                    "link_layer": "Ethernet",
                    "rate_gbps": 100,
                    "line": 14,
                },
            ],
            "active_infiniband_ports": 0,
            "active_ethernet_ports": 1,
        },
    }
    defaults.update(values)
    return Upload.objects.create(offering=offering, owner=owner, blob=blob, **defaults)


def test_public_parsed_uploads_feed_the_findings_and_private_ones_do_not() -> None:
    if selectors._upload_model() is None:
        pytest.skip("the uploads app has no Upload model yet")
    offering = OfferingFactory(slug="ib-claimed")
    buyer = UserFactory(username="buyer-ev")
    private = _upload(offering, buyer, visibility="private")
    services.findings_refresh(offering=offering)
    assert not Finding.objects.filter(offering=offering, code="fabric-not-rdma").exists()

    public = _upload(offering, buyer, sha="b" * 64, storage="u/b")
    items = selectors.evidence_for_offering(offering)
    assert [i["upload_id"] for i in items] == [public.pk] and private.pk not in [
        i["upload_id"] for i in items
    ]
    assert items[0]["filename"] == "node1-ibstat.txt" and items[0]["kind"] == "ibstat"
    services.findings_refresh(offering=offering)
    row = Finding.objects.get(offering=offering, code="fabric-not-rdma")
    assert row.severity == "critical"
    ref = next(e for e in row.evidence if e["source"] == "evidence")
    assert ref["file"] == "node1-ibstat.txt" and ref["lines"] == [[14, 14]] and ref["upload_id"] == public.pk
