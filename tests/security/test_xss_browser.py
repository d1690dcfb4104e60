"""Stored XSS attempts render as text in a real browser: no dialog ever opens, the markup shows as text."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from tests.conftest import FAST_HASHERS
from tests.providers.factories import OfferingFactory, PlanFactory, ProviderFactory, UserFactory
from tests.security.conftest import NCCL_LOG

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SCRIPT = "<script>alert(1)</script>"
SVG = "<svg onload=alert(1)>"
IMG = "<img src=x onerror=alert(1)>"


def test_user_text_is_never_executed(live_server: Any, page: Any, settings: Any, tmp_path: Any) -> None:
    from benchmarks import services as upload_services
    from sizing import services as sizing_services
    from sizing.models import PlanRun

    settings.MEDIA_ROOT = str(tmp_path)
    settings.PASSWORD_HASHERS = FAST_HASHERS
    provider = ProviderFactory(slug="evil", name=SCRIPT, notes=f"{SVG} {IMG}")
    offering = OfferingFactory(slug="evil-h100", provider=provider, name=f"Evil {SVG}", summary=IMG)
    offering.gpu_label = f"{IMG}"
    offering.save()
    PlanFactory(offering=offering, name=f"plan {SCRIPT}", note=IMG)
    buyer = UserFactory(username="xss-buyer")
    outcome = upload_services.upload_create(
        owner=buyer,
        offering=offering,
        files=[upload_services.IncomingFile(name=f"{IMG}.txt", data=NCCL_LOG)],
        nodes=1,
        gpus=None,
        measured_on=None,
        notes=f"{SVG}\n{IMG}\n{SCRIPT}",
        visibility="public",
    )[0]
    workload = sizing_services.workload_create(owner=buyer, preset="13b", name=f"wl {SCRIPT}")
    run = PlanRun.objects.create(workload=workload, owner=buyer, status="done")

    dialogs: list[str] = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    client = Client()
    client.force_login(buyer)
    page.context.add_cookies(
        [{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": live_server.url}]
    )
    pages = {
        "browse": "/offerings/",
        "offering": f"/offerings/{offering.slug}/",
        "checklist": f"/checks/checklist/?offering={offering.slug}",
        "upload result": f"/benchmarks/{outcome.upload.pk}/",
        "planner result": f"/plan/{run.pk}/",
        "workloads": "/plan/workloads/",
    }
    for name, path in pages.items():
        response = page.goto(f"{live_server.url}{path}")
        assert response is not None and response.status < 400, name
        page.wait_for_load_state("load")
        page.wait_for_timeout(200)
        assert dialogs == [], f"a script ran on the {name} page"
        assert page.locator("img[src=x]").count() == 0, name
        assert page.locator("svg[onload]").count() == 0, name
    page.goto(f"{live_server.url}/offerings/{offering.slug}/")
    assert SCRIPT in page.inner_text("body")
    page.goto(f"{live_server.url}/benchmarks/{outcome.upload.pk}/")
    assert IMG in page.inner_text("body")
