"""Sourced fact edits: PATCH /api/v1/offerings/<slug>/facts/ and the page form (issue 19 item 2)."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from providers.models import FactChange, Provenance, Source
from providers.services import offering_facts_edit
from tests.providers.factories import OfferingFactory, ProviderFactory, UserFactory

pytestmark = pytest.mark.django_db

SOURCE = "https://example.com/network-whitepaper.pdf"


@pytest.fixture
def world() -> dict[str, Any]:
    mine = OfferingFactory(slug="mine-h100", provider=ProviderFactory(slug="mine"), gbps_per_nic=400.0)
    theirs = OfferingFactory(slug="theirs-h100", provider=ProviderFactory(slug="theirs"))
    return {
        "mine": mine,
        "theirs": theirs,
        "rep": UserFactory(username="rep", role="provider", provider=mine.provider),
        "buyer": UserFactory(username="buyer"),
        "staff": UserFactory(username="staff", role="staff"),
    }


def _client(user: Any) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def _today() -> str:
    return timezone.localdate().isoformat()


def test_a_sourced_edit_changes_the_fact_and_keeps_the_old_value(world: dict[str, Any]) -> None:
    body = {"gbps_per_nic": 200, "oversubscription": 2, "source_url": SOURCE, "as_of": _today()}
    response = _client(world["rep"]).patch("/api/v1/offerings/mine-h100/facts/", body, format="json")
    assert response.status_code == 200, response.json()
    data = response.json()
    assert data["offering"]["gbps_per_nic"] == 200
    changes = {c["fact"]: c for c in data["changes"]}
    assert changes["gbps_per_nic"]["old"] == 400 and changes["gbps_per_nic"]["new"] == 200
    assert changes["oversubscription"]["old"] is None and changes["oversubscription"]["new"] == 2
    assert changes["gbps_per_nic"]["username"] == "rep" and changes["gbps_per_nic"]["source_url"] == SOURCE
    row = FactChange.objects.get(offering=world["mine"], fact="gbps_per_nic")
    assert (row.old, row.new, row.as_of, row.user) == (400, 200, timezone.localdate(), world["rep"])
    # the network group now cites the document with its date
    provenance = Provenance.objects.get(offering=world["mine"], group="network")
    assert provenance.as_of == timezone.localdate()
    assert [s.url for s in provenance.sources.all()] == [SOURCE]


def test_a_second_edit_keeps_the_whole_history(world: dict[str, Any]) -> None:
    for value in (200, 800):
        offering_facts_edit(
            user=world["rep"],
            offering=world["mine"],
            facts={"gbps_per_nic": value},
            source_url=SOURCE,
            as_of=timezone.localdate(),
        )
    history = list(FactChange.objects.filter(offering=world["mine"]).order_by("recorded_at", "id"))
    assert [(h.old, h.new) for h in history] == [(400, 200), (200, 800)]
    with pytest.raises(PermissionError):
        history[0].save()
    with pytest.raises(PermissionError):
        FactChange.objects.all().delete()
    # the same source and date are cited once, not once per edit
    assert Source.objects.filter(provider=world["mine"].provider, url=SOURCE).count() == 1


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"gbps_per_nic": 200, "as_of": "2026-11-01"}, "source_url"),
        ({"gbps_per_nic": 200, "source_url": SOURCE}, "as_of"),
        ({"gbps_per_nic": 200, "source_url": "", "as_of": "2026-11-01"}, "source_url"),
        ({"gbps_per_nic": 200, "source_url": "not a url", "as_of": "2026-11-01"}, "source_url"),
        ({"gbps_per_nic": 200, "source_url": SOURCE, "as_of": "2999-01-01"}, "as_of"),
        ({"gbps_per_nic": -5, "source_url": SOURCE, "as_of": "2026-11-01"}, "gbps_per_nic"),
        (
            {"usable_gpu_guarantee_pct": 140, "source_url": SOURCE, "as_of": "2026-11-01"},
            "usable_gpu_guarantee_pct",
        ),
        ({"fabric": "carrier-pigeon", "source_url": SOURCE, "as_of": "2026-11-01"}, "fabric"),
        ({"source_url": SOURCE, "as_of": "2026-11-01"}, "facts"),
    ],
)
def test_an_edit_without_source_and_date_or_outside_the_bounds_is_refused(
    world: dict[str, Any], body: dict[str, Any], field: str
) -> None:
    response = _client(world["rep"]).patch("/api/v1/offerings/mine-h100/facts/", body, format="json")
    assert response.status_code == 400
    data = response.json()
    assert field in data["extra"]["fields"], data
    assert data["message"].startswith(field)
    world["mine"].refresh_from_db()
    assert world["mine"].gbps_per_nic == 400.0
    assert not FactChange.objects.exists()


def test_a_representative_cannot_edit_another_providers_offering(world: dict[str, Any]) -> None:
    body = {"gbps_per_nic": 1, "source_url": SOURCE, "as_of": _today()}
    assert (
        _client(world["rep"]).patch("/api/v1/offerings/theirs-h100/facts/", body, format="json").status_code
        == 403
    )
    assert (
        _client(world["buyer"]).patch("/api/v1/offerings/mine-h100/facts/", body, format="json").status_code
        == 403
    )
    assert APIClient().patch("/api/v1/offerings/mine-h100/facts/", body, format="json").status_code in (
        401,
        403,
    )
    assert (
        _client(world["rep"]).patch("/api/v1/offerings/nope/facts/", body, format="json").status_code == 404
    )
    assert not FactChange.objects.exists()
    # staff may edit any offering
    assert (
        _client(world["staff"]).patch("/api/v1/offerings/theirs-h100/facts/", body, format="json").status_code
        == 200
    )


def test_an_old_source_is_flagged_for_review_and_so_are_old_groups(
    world: dict[str, Any], settings: Any
) -> None:
    settings.FACT_SOURCE_REVIEW_AGE_DAYS = 30
    old = (timezone.localdate() - dt.timedelta(days=45)).isoformat()
    Provenance.objects.create(
        offering=world["mine"], group="fees", as_of=dt.date(2020, 1, 1), note="old fee page"
    )
    body = {"fabric": "roce", "source_url": SOURCE, "as_of": old}
    data = _client(world["rep"]).patch("/api/v1/offerings/mine-h100/facts/", body, format="json").json()
    assert data["changes"][0]["needs_review"] is True
    assert data["review_age_days"] == 30
    stale = {g["group"]: g for g in data["stale_groups"]}
    assert stale["fees"]["note"] == "old fee page" and stale["network"]["as_of"] == old
    fresh = {"fabric": "infiniband", "source_url": SOURCE, "as_of": _today()}
    data = _client(world["rep"]).patch("/api/v1/offerings/mine-h100/facts/", fresh, format="json").json()
    assert data["changes"][0]["needs_review"] is False
    assert "network" not in {g["group"] for g in data["stale_groups"]}


def test_the_page_form_needs_a_source_and_shows_the_history(world: dict[str, Any], client: Any) -> None:
    client.force_login(world["rep"])
    page = client.get("/offerings/mine-h100/")
    assert "/offerings/mine-h100/facts/" in page.content.decode()
    form = client.get("/offerings/mine-h100/facts/")
    assert form.status_code == 200
    refused = client.post("/offerings/mine-h100/facts/", {"gbps_per_nic": "200", "gpus_per_node": "8"})
    assert refused.status_code == 400
    assert "Give the address of the document" in refused.content.decode()
    world["mine"].refresh_from_db()
    assert world["mine"].gbps_per_nic == 400.0
    post = {"gbps_per_nic": "200", "gpus_per_node": "8", "source_url": SOURCE, "as_of": _today()}
    done = client.post("/offerings/mine-h100/facts/", {**_form_values(form), **post}, follow=True)
    assert done.status_code == 200
    html = done.content.decode()
    assert "network-whitepaper.pdf" in html and "400" in html
    assert list(FactChange.objects.values_list("fact", "old", "new")) == [("gbps_per_nic", 400, 200)]
    assert client.get("/offerings/theirs-h100/facts/").status_code == 403


def _form_values(response: Any) -> dict[str, Any]:
    """The form's current values as the browser would send them back unchanged."""
    form = response.context["form"]
    out: dict[str, Any] = {}
    for name, field in form.fields.items():
        value = form.initial.get(name, field.initial)
        if value in (None, ""):
            continue
        out[name] = value
    return out


def test_the_old_patch_address_needs_a_source_and_date_and_keeps_the_history(world: dict[str, Any]) -> None:
    rep = _client(world["rep"])
    bare = rep.patch("/api/v1/offerings/mine-h100/", {"gbps_per_nic": 200}, format="json")
    assert bare.status_code == 400
    fields = bare.json()["extra"]["fields"]
    assert set(fields) >= {"source_url", "as_of"}
    assert "give the address of the document these values come from" in str(fields["source_url"])
    world["mine"].refresh_from_db()
    assert world["mine"].gbps_per_nic == 400.0 and not FactChange.objects.exists()
    body = {"gbps_per_nic": 200, "source_url": SOURCE, "as_of": _today()}
    response = rep.patch("/api/v1/offerings/mine-h100/", body, format="json")
    assert response.status_code == 200, response.json()
    # the contract's answer is still the offering itself, now citing the source for the network group
    assert response.json()["slug"] == "mine-h100" and response.json()["gbps_per_nic"] == 200
    assert SOURCE in str(response.json()["sources"]["network"])
    row = FactChange.objects.get(offering=world["mine"])
    assert (row.fact, row.old, row.new, row.source_url, row.user) == (
        "gbps_per_nic",
        400,
        200,
        SOURCE,
        world["rep"],
    )
    # another provider's offering stays out of reach on this address too
    assert rep.patch("/api/v1/offerings/theirs-h100/", body, format="json").status_code == 403


def test_the_old_edit_page_is_the_sourced_form(world: dict[str, Any], client: Any) -> None:
    client.force_login(world["rep"])
    page = client.get("/offerings/mine-h100/edit/")
    assert page.status_code == 200
    assert b'name="source_url"' in page.content and b'name="as_of"' in page.content
    refused = client.post("/offerings/mine-h100/edit/", {"gbps_per_nic": "200"})
    assert refused.status_code == 400
    assert b"Give the address of the document these values come from." in refused.content
    assert b"Give the date the source states these values." in refused.content
    world["mine"].refresh_from_db()
    assert world["mine"].gbps_per_nic == 400.0 and not FactChange.objects.exists()
    values = {**_form_values(page), "gbps_per_nic": "200", "source_url": SOURCE, "as_of": _today()}
    done = client.post("/offerings/mine-h100/edit/", values)
    assert done.status_code == 302 and done["Location"] == "/offerings/mine-h100/facts/"
    row = FactChange.objects.get(offering=world["mine"])
    assert (row.fact, row.new, row.source_url) == ("gbps_per_nic", 200, SOURCE)


def test_the_facts_page_shows_a_stale_groups_note_in_words(world: dict[str, Any], client: Any) -> None:
    # the representative's review list showed the transcriber's note raw ("-> max_nodes null")
    Provenance.objects.create(
        offering=world["mine"], group="fees", as_of=dt.date(2020, 1, 1), note="open-ended -> max_nodes null"
    )
    client.force_login(world["rep"])
    html = client.get("/offerings/mine-h100/facts/").content.decode()
    assert "open-ended, so Maximum nodes in one fabric is left blank" in html
    assert "-&gt; max_nodes" not in html and "max_nodes null" not in html
    # the API keeps the note as transcribed
    body = {"fabric": "roce", "source_url": SOURCE, "as_of": _today()}
    data = _client(world["rep"]).patch("/api/v1/offerings/mine-h100/facts/", body, format="json").json()
    assert {g["group"]: g["note"] for g in data["stale_groups"]}["fees"] == "open-ended -> max_nodes null"


def test_the_history_names_facts_and_values_in_the_pages_language(world: dict[str, Any], client: Any) -> None:
    """The history showed codes and raw values to a Chinese page: `spare_node_pool`, "not published",
    "True", "source older than 365 days: review"."""
    old = (timezone.localdate() - dt.timedelta(days=800)).isoformat()
    body = {"spare_node_pool": True, "fabric": "roce", "source_url": SOURCE, "as_of": old}
    assert (
        _client(world["rep"]).patch("/api/v1/offerings/mine-h100/facts/", body, format="json").status_code
        == 200
    )
    client.force_login(world["rep"])
    html = client.get("/offerings/mine-h100/facts/", HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    history = html.split('id="history"')[1].split("</section>")[0]
    assert "备用节点池" in history and "未公布" in history and "<td>是</td>" in history
    assert "来源早于" in history and "RoCE" in history
    for code in ("spare_node_pool", "not published", "True", "source older", "<code>"):
        assert code not in history, code
