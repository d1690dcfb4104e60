"""Issue 20 item 8: a GET never writes. Every page and API address is read by every role (the demo accounts
and the security cast) and no model's row count changes (sessions excepted: logging in writes one).

The compare pages are left out here: their rework (compare/) stops GET /compare/ creating planner runs and
brings its own test. Every other address of the URL map must be listed below, so a new page is covered.
"""

from __future__ import annotations

from typing import Any

from django.apps import apps
from django.contrib.sessions.models import Session
from django.core.management import call_command
from django.db import connection
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver

from accounts.models import User
from checks.models import Finding
from tests.security.conftest import World

SKIPPED_PREFIXES = ("admin/", "compare/")
# The request-for-quote audit log records who saw a request (issue 19: "full audit of who saw and answered
# what"): a view is recorded on purpose, like a session; nothing else may change.
AUDIT_OF_VIEWS = ("rfq.RfqEvent",)


def _routes(patterns: list[Any], prefix: str = "") -> list[str]:
    out: list[str] = []
    for pattern in patterns:
        if isinstance(pattern, URLResolver):
            out += _routes(pattern.url_patterns, prefix + str(pattern.pattern))
        elif isinstance(pattern, URLPattern):
            out.append(prefix + str(pattern.pattern))
    return out


def _addresses(world: World) -> dict[str, str]:
    """Each route of the URL map with real ids filled in."""
    upload = world.upload_private
    slug = world.offering.slug
    rfq = _rfq(world)
    acceptance = _acceptance_run(world)
    return {
        "benchmarks/": "/benchmarks/",
        "benchmarks/acceptance/": "/benchmarks/acceptance/",
        "benchmarks/acceptance/bundle/": "/benchmarks/acceptance/bundle/",
        "benchmarks/acceptance/<int:run_id>/": f"/benchmarks/acceptance/{acceptance.pk}/",
        "api/v1/acceptance/": "/api/v1/acceptance/",
        "api/v1/acceptance/<int:pk>/": f"/api/v1/acceptance/{acceptance.pk}/",
        "api/v1/acceptance/kit/": f"/api/v1/acceptance/kit/?offering={slug}&nodes=2&scheduler=slurm",
        "rfqs/": "/rfqs/",
        "rfqs/new/": "/rfqs/new/",
        "rfqs/<int:rfq_id>/": f"/rfqs/{rfq.pk}/",
        "rfqs/<int:rfq_id>/answer/<slug:slug>/": f"/rfqs/{rfq.pk}/answer/{slug}/",
        "rfqs/<int:rfq_id>/quote/": f"/rfqs/{rfq.pk}/quote/",
        "offerings/<slug:slug>/facts/": f"/offerings/{slug}/facts/",
        "api/v1/rfqs/": "/api/v1/rfqs/",
        "api/v1/rfqs/<int:rfq_id>/": f"/api/v1/rfqs/{rfq.pk}/",
        "api/v1/rfqs/<int:rfq_id>/answers/": f"/api/v1/rfqs/{rfq.pk}/answers/",
        "api/v1/rfqs/<int:rfq_id>/quote/": f"/api/v1/rfqs/{rfq.pk}/quote/",
        "api/v1/^offerings/(?P<slug>[-a-zA-Z0-9_]+)/facts/$": f"/api/v1/offerings/{slug}/facts/",
        "": "/",
        "healthz": "/healthz",
        "offerings/": "/offerings/",
        "offerings/<slug:slug>/": f"/offerings/{slug}/",
        "offerings/<slug:slug>/edit/": f"/offerings/{slug}/edit/",
        "accounts/login/": "/accounts/login/",
        "accounts/logout/": "/accounts/logout/",
        "accounts/account/": "/accounts/account/",
        "accounts/preferences/": "/accounts/preferences/",
        "i18n/setlang/": "/i18n/setlang/",
        "accounts/account/token/revoke/": "/accounts/account/token/revoke/",
        "plan/": "/plan/",
        "plan/workloads/": "/plan/workloads/",
        "plan/<int:run_id>/": f"/plan/{world.run.pk}/",
        "plan/<int:run_id>/progress/": f"/plan/{world.run.pk}/progress/",
        "plan/<int:run_id>/retry/": f"/plan/{world.run.pk}/retry/",
        "plan/<int:run_id>/<slug:slug>/": f"/plan/{world.run.pk}/{slug}/",
        "benchmarks/upload/": "/benchmarks/upload/",
        "benchmarks/<int:upload_id>/": f"/benchmarks/{upload.pk}/",
        "benchmarks/<int:upload_id>/status/": f"/benchmarks/{upload.pk}/status/",
        "benchmarks/batch/<uuid:batch>/": f"/benchmarks/batch/{upload.batch}/",
        "checks/checklist/": "/checks/checklist/",
        "quotes/": "/quotes/",
        "quotes/new/": "/quotes/new/",
        "quotes/<int:quote_id>/": f"/quotes/{world.shared_quote.pk}/",
        "quotes/<int:quote_id>/pdf": f"/quotes/{world.shared_quote.pk}/pdf",
        "quotes/<int:quote_id>/pdf/status": f"/quotes/{world.shared_quote.pk}/pdf/status",
        "quotes/<int:quote_id>/share": f"/quotes/{world.shared_quote.pk}/share",
        "quotes/<int:quote_id>/share/revoke": f"/quotes/{world.shared_quote.pk}/share/revoke",
        "quotes/shared/<str:token>/": f"/quotes/shared/{world.shared_quote.share_token}/",
        "quotes/shared/<str:token>/pdf": f"/quotes/shared/{world.shared_quote.share_token}/pdf",
        "quotes/shared/<str:token>/pdf/status": f"/quotes/shared/{world.shared_quote.share_token}/pdf/status",
        "api/v1/auth/token/": "/api/v1/auth/token/",
        "api/v1/^providers/$": "/api/v1/providers/",
        "api/v1/^providers/(?P<slug>[-a-zA-Z0-9_]+)/$": f"/api/v1/providers/{world.provider.slug}/",
        "api/v1/^offerings/$": "/api/v1/offerings/",
        "api/v1/^offerings/(?P<slug>[-a-zA-Z0-9_]+)/$": f"/api/v1/offerings/{slug}/",
        "api/v1/^offerings/(?P<slug>[-a-zA-Z0-9_]+)/plans/(?P<plan_id>[0-9]+)/price/$": (
            f"/api/v1/offerings/{slug}/plans/{world.plan.pk}/price/"
        ),
        "api/v1/^offerings/(?P<slug>[-a-zA-Z0-9_]+)/prices/$": f"/api/v1/offerings/{slug}/prices/",
        "api/v1/": "/api/v1/",
        "api/v1/workloads/": "/api/v1/workloads/",
        "api/v1/runs/": "/api/v1/runs/",
        "api/v1/runs/<int:run_id>/": f"/api/v1/runs/{world.run.pk}/",
        "api/v1/uploads/": "/api/v1/uploads/",
        "api/v1/uploads/<int:pk>/": f"/api/v1/uploads/{upload.pk}/",
        "api/v1/uploads/<int:pk>/raw": f"/api/v1/uploads/{upload.pk}/raw",
        "api/v1/findings/": "/api/v1/findings/",
        "api/v1/quotes/": "/api/v1/quotes/",
        "api/v1/quotes/<int:quote_id>/": f"/api/v1/quotes/{world.shared_quote.pk}/",
        "api/v1/quotes/<int:quote_id>/pdf": f"/api/v1/quotes/{world.shared_quote.pk}/pdf",
        "api/v1/quotes/<int:quote_id>/share": f"/api/v1/quotes/{world.shared_quote.pk}/share",
        "api/schema/": "/api/schema/",
        "api/docs/": "/api/docs/",
    }


def _counts() -> dict[str, int]:
    """Every model's row count, all in one query (a query per model, twice per GET, was most of the
    test's time), as the default managers count them: none filters (asserted in the test)."""
    tables = {
        model._meta.label: model._meta.db_table
        for model in apps.get_models()
        if model is not Session and model._meta.label not in AUDIT_OF_VIEWS
    }
    quote = connection.ops.quote_name
    with connection.cursor() as cursor:
        cursor.execute("SELECT " + ", ".join(f"(SELECT COUNT(*) FROM {quote(t)})" for t in tables.values()))
        row = cursor.fetchone()
    return dict(zip(tables, row, strict=True))


def _acceptance_run(world: World) -> Any:
    from acceptance.models import AcceptanceRun

    existing = AcceptanceRun.objects.first()
    if existing is not None:
        return existing
    return AcceptanceRun.objects.create(
        owner=world.users["buyer"],
        offering=world.offering,
        bundle=world.upload_private.blob,
        bundle_name="trial.tar.gz",
        status="done",
        verdict="incomplete",
    )


def _rfq(world: World) -> Any:
    from rfq.models import RequestForQuote
    from rfq.services import rfq_create

    existing = RequestForQuote.objects.first()
    if existing is not None:
        return existing
    return rfq_create(
        buyer=world.users["buyer"],
        offering_slugs=[world.offering.slug],
        gpus=64,
        questions=["Is the fabric InfiniBand end to end?"],
        workload_id=world.workload.pk,
    )


def test_every_address_of_the_url_map_is_read_below(world: World) -> None:
    listed = set(_addresses(world))
    routes = {
        route
        for route in _routes(get_resolver().url_patterns)
        if not route.startswith(SKIPPED_PREFIXES) and "format" not in route
    }
    assert routes <= listed, f"add these addresses to the GET test: {sorted(routes - listed)}"


def test_no_get_of_any_page_or_api_list_writes_for_any_role(world: World) -> None:
    call_command("load_demo", verbosity=0)
    demo = {name: User.objects.get(username=name) for name in ("demo-buyer", "demo-provider", "demo-admin")}
    users: dict[str, Any] = {"anonymous": None, **world.users, **demo}
    addresses = _addresses(world)
    # The counts are the tables' rows, as the default managers count them, and they see one write.
    assert not [m for m in apps.get_models() if m._default_manager.all().query.where]
    before = _counts()
    probe = Finding.objects.create(offering=world.offering, code="probe", severity="info", title="x")
    after = _counts()
    assert {k for k in before if before[k] != after[k]} == {"checks.Finding"}
    assert after["checks.Finding"] == before["checks.Finding"] + 1 == Finding.objects.count()
    probe.delete()
    writes: list[str] = []
    for role, user in users.items():
        client = Client()
        if user is not None:
            client.force_login(user)
        for address in addresses.values():
            before = _counts()
            response = client.get(address)
            after = _counts()
            assert response.status_code < 500, (role, address, response.status_code)
            changed = {k: (before[k], after[k]) for k in before if before[k] != after[k]}
            if changed:
                writes.append(f"{role} GET {address}: {changed}")
    assert not writes, "\n".join(writes)
