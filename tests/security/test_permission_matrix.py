"""Who may do what, as one matrix: role x object kind x action, through the API and through the pages.

Expected outcomes: a status code, or for lists "shown"/"hidden" (200 and whether the object is listed).
404 is for objects a user may not know exist (another buyer's private things), 403 for objects everyone
knows but this user may not change, 401 (API) or a redirect to the log-in page (pages) for anonymous writes.

Decisions worth knowing: workloads, runs, their results and quotes are private to their buyer, but staff
curate everything: they read every one of them (lists included) and change none (403: they know it exists).
Other users get 404 for them. A quote's read-only link is readable by anyone holding it, and 404 once
revoked. Findings are public for an offering's published facts ("claims"); the findings of a sizing run
("run:<id>") only for the run's owner and staff. Findings are computed, so nobody writes them through the
API (405). The catalog has no DELETE in the API; staff delete in the admin.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.conf import settings
from django.core.files.storage import default_storage

from providers.models import FactChange
from tests.security.conftest import ROLES, World

Outcome = int | str
Probe = Callable[[World, Any], Any]

# Every fact edit names the document it rests on and its date.
SOURCE = {"source_url": "https://example.org/spec-sheet", "as_of": "2026-11-01"}
SIGNED_IN = ("buyer", "other_buyer", "own_rep", "other_rep", "staff")


def everyone(outcome: Outcome) -> dict[str, Outcome]:
    return dict.fromkeys(ROLES, outcome)


def anonymous_then(anonymous: Outcome, others: Outcome) -> dict[str, Outcome]:
    return {"anonymous": anonymous, **dict.fromkeys(SIGNED_IN, others)}


def only(
    allowed: set[str], yes: Outcome, no: Outcome, anonymous: Outcome | None = None
) -> dict[str, Outcome]:
    out = {role: (yes if role in allowed else no) for role in ROLES}
    if anonymous is not None:
        out["anonymous"] = anonymous
    return out


def owner_staff_others(
    owner: Outcome, staff: Outcome, others: Outcome, anonymous: Outcome
) -> dict[str, Outcome]:
    """A write on a buyer's private thing: staff may read it (so 403), other users may not know it (404)."""
    return {**dict.fromkeys(ROLES, others), "buyer": owner, "staff": staff, "anonymous": anonymous}


OWNER_OR_STAFF = {"buyer", "staff"}
OWNER = {"buyer"}
EDITORS = {"own_rep", "staff"}
LOGIN = "login"  # pages: a redirect to the log-in page

# (channel, kind, action) -> (probe, expected outcome per role, what a list must contain)
API: dict[tuple[str, str], tuple[Probe, dict[str, Outcome], Callable[[World], str] | None]] = {
    ("offering", "list"): (
        lambda w, c: c.get("/api/v1/offerings/"),
        everyone("shown"),
        lambda w: w.offering.slug,
    ),
    ("offering", "read"): (lambda w, c: c.get(f"/api/v1/offerings/{w.offering.slug}/"), everyone(200), None),
    ("offering", "write"): (
        lambda w, c: c.patch(
            f"/api/v1/offerings/{w.offering.slug}/", {"max_nodes": 64, **SOURCE}, format="json"
        ),
        only(EDITORS, 200, 403, anonymous=401),
        None,
    ),
    ("offering", "write price"): (
        lambda w, c: c.post(
            f"/api/v1/offerings/{w.offering.slug}/plans/{w.plan.pk}/price/",
            {"price_usd_per_gpu_hour": "3.10"},
            format="json",
        ),
        only(EDITORS, 201, 403, anonymous=401),
        None,
    ),
    ("offering", "price history"): (
        lambda w, c: c.get(f"/api/v1/offerings/{w.offering.slug}/prices/"),
        everyone(200),
        None,
    ),
    ("offering", "delete"): (
        lambda w, c: c.delete(f"/api/v1/offerings/{w.offering.slug}/"),
        anonymous_then(401, 405),
        None,
    ),
    ("provider", "list"): (
        lambda w, c: c.get("/api/v1/providers/"),
        everyone("shown"),
        lambda w: w.provider.slug,
    ),
    ("provider", "read"): (lambda w, c: c.get(f"/api/v1/providers/{w.provider.slug}/"), everyone(200), None),
    ("provider", "write"): (
        lambda w, c: c.patch(f"/api/v1/providers/{w.provider.slug}/", {"name": "x"}, format="json"),
        anonymous_then(401, 405),
        None,
    ),
    ("provider", "delete"): (
        lambda w, c: c.delete(f"/api/v1/providers/{w.provider.slug}/"),
        anonymous_then(401, 405),
        None,
    ),
    ("workload", "list"): (
        lambda w, c: c.get("/api/v1/workloads/"),
        only(OWNER_OR_STAFF, "shown", "hidden", anonymous=401),
        lambda w: f'"id":{w.workload.pk},',
    ),
    ("workload", "write run"): (
        lambda w, c: c.post(
            "/api/v1/runs/", {"workload": w.workload.pk, "offerings": [w.offering.slug]}, format="json"
        ),
        owner_staff_others(201, 403, 404, anonymous=401),
        None,
    ),
    ("run", "read"): (
        lambda w, c: c.get(f"/api/v1/runs/{w.run.pk}/"),
        only(OWNER_OR_STAFF, 200, 404, anonymous=401),
        None,
    ),
    ("run result", "read"): (
        lambda w, c: c.get(f"/api/v1/runs/{w.run.pk}/"),
        only(OWNER_OR_STAFF, "shown", 404, anonymous=401),
        lambda w: f'"offering":"{w.offering.slug}"',
    ),
    ("quote", "list"): (
        lambda w, c: c.get("/api/v1/quotes/"),
        only(OWNER_OR_STAFF, "shown", "hidden", anonymous=401),
        lambda w: f'"id":{w.quote.pk},',
    ),
    ("quote", "read"): (
        lambda w, c: c.get(f"/api/v1/quotes/{w.quote.pk}/"),
        only(OWNER_OR_STAFF, 200, 404, anonymous=401),
        None,
    ),
    ("quote", "write share"): (
        lambda w, c: c.post(f"/api/v1/quotes/{w.quote.pk}/share"),
        owner_staff_others(201, 403, 404, anonymous=401),
        None,
    ),
    ("quote", "write revoke"): (
        lambda w, c: c.delete(f"/api/v1/quotes/{w.shared_quote.pk}/share"),
        owner_staff_others(204, 403, 404, anonymous=401),
        None,
    ),
    ("quote pdf", "read"): (
        lambda w, c: c.get(f"/api/v1/quotes/{w.quote.pk}/pdf"),
        only(OWNER_OR_STAFF, 200, 404, anonymous=401),
        None,
    ),
    ("upload private", "list"): (
        lambda w, c: c.get("/api/v1/uploads/"),
        only(OWNER_OR_STAFF, "shown", "hidden"),
        lambda w: f'"id":{w.upload_private.pk},',
    ),
    ("upload private", "read"): (
        lambda w, c: c.get(f"/api/v1/uploads/{w.upload_private.pk}/"),
        only(OWNER_OR_STAFF, 200, 404),
        None,
    ),
    ("upload private", "write"): (
        lambda w, c: c.patch(f"/api/v1/uploads/{w.upload_private.pk}/", {"notes": "x"}, format="json"),
        anonymous_then(401, 405),
        None,
    ),
    ("upload private", "delete"): (
        lambda w, c: c.delete(f"/api/v1/uploads/{w.upload_private.pk}/"),
        anonymous_then(401, 405),
        None,
    ),
    ("upload public", "list"): (
        lambda w, c: c.get("/api/v1/uploads/"),
        everyone("shown"),
        lambda w: f'"id":{w.upload_public.pk},',
    ),
    ("upload public", "read"): (
        lambda w, c: c.get(f"/api/v1/uploads/{w.upload_public.pk}/"),
        everyone(200),
        None,
    ),
    ("upload public", "write"): (
        lambda w, c: c.patch(f"/api/v1/uploads/{w.upload_public.pk}/", {"notes": "x"}, format="json"),
        anonymous_then(401, 405),
        None,
    ),
    ("upload public", "delete"): (
        lambda w, c: c.delete(f"/api/v1/uploads/{w.upload_public.pk}/"),
        anonymous_then(401, 405),
        None,
    ),
    ("upload raw private", "read"): (
        lambda w, c: c.get(f"/api/v1/uploads/{w.upload_private.pk}/raw"),
        only(OWNER_OR_STAFF, 200, 404),
        None,
    ),
    ("upload raw public", "read"): (
        lambda w, c: c.get(f"/api/v1/uploads/{w.upload_public.pk}/raw"),
        everyone(200),
        None,
    ),
    ("finding", "list"): (
        lambda w, c: c.get(f"/api/v1/findings/?offering={w.offering.slug}"),
        everyone(200),
        None,
    ),
    ("finding claims", "list"): (
        lambda w, c: c.get(f"/api/v1/findings/?offering={w.offering.slug}"),
        everyone("shown"),
        lambda w: f'"code":"{w.claims_finding.code}"',
    ),
    ("finding of a run", "list"): (
        lambda w, c: c.get(f"/api/v1/findings/?offering={w.offering.slug}"),
        only(OWNER_OR_STAFF, "shown", "hidden"),
        lambda w: f'"code":"{w.run_finding.code}"',
    ),
    ("finding of a run", "list all"): (
        lambda w, c: c.get("/api/v1/findings/"),
        only(OWNER_OR_STAFF, "shown", "hidden"),
        lambda w: f'"code":"{w.run_finding.code}"',
    ),
    ("finding of a run", "list by context"): (
        lambda w, c: c.get(f"/api/v1/findings/?context=run:{w.run.pk}"),
        only(OWNER_OR_STAFF, "shown", "hidden"),
        lambda w: f'"code":"{w.run_finding.code}"',
    ),
    ("finding", "write"): (lambda w, c: c.post("/api/v1/findings/", {}, format="json"), everyone(405), None),
    ("finding", "delete"): (lambda w, c: c.delete("/api/v1/findings/"), everyone(405), None),
}

PAGES: dict[tuple[str, str], tuple[Probe, dict[str, Outcome], Callable[[World], str] | None]] = {
    ("offering", "list"): (lambda w, c: c.get("/offerings/"), everyone("shown"), lambda w: w.offering.name),
    ("offering", "read"): (lambda w, c: c.get(f"/offerings/{w.offering.slug}/"), everyone(200), None),
    ("offering", "write form"): (
        lambda w, c: c.get(f"/offerings/{w.offering.slug}/edit/"),
        only(EDITORS, 200, 403, anonymous=LOGIN),
        None,
    ),
    ("offering", "write submit"): (
        lambda w, c: c.post(f"/offerings/{w.offering.slug}/edit/", _edit_form_data(w)),
        only(EDITORS, 302, 403, anonymous=LOGIN),
        None,
    ),
    ("workload", "list"): (
        lambda w, c: c.get("/plan/workloads/"),
        only(OWNER_OR_STAFF, "shown", "hidden", anonymous=LOGIN),
        lambda w: w.workload.name,
    ),
    ("run", "read"): (
        lambda w, c: c.get(f"/plan/{w.run.pk}/"),
        only(OWNER_OR_STAFF, 200, 404, anonymous=LOGIN),
        None,
    ),
    ("run", "read progress"): (
        lambda w, c: c.get(f"/plan/{w.run.pk}/progress/"),
        only(OWNER_OR_STAFF, 200, 404, anonymous=LOGIN),
        None,
    ),
    ("run result", "read"): (
        lambda w, c: c.get(f"/plan/{w.run.pk}/{w.offering.slug}/"),
        only(OWNER_OR_STAFF, 200, 404, anonymous=LOGIN),
        None,
    ),
    ("quote", "list"): (
        lambda w, c: c.get("/quotes/"),
        only(OWNER_OR_STAFF, "shown", "hidden", anonymous=LOGIN),
        lambda w: w.quote.number,
    ),
    ("quote", "read"): (
        lambda w, c: c.get(f"/quotes/{w.quote.pk}/"),
        only(OWNER_OR_STAFF, 200, 404, anonymous=LOGIN),
        None,
    ),
    ("quote", "write share"): (
        lambda w, c: c.post(f"/quotes/{w.quote.pk}/share"),
        owner_staff_others(302, 403, 404, anonymous=LOGIN),
        None,
    ),
    ("quote", "write revoke"): (
        lambda w, c: c.post(f"/quotes/{w.shared_quote.pk}/share/revoke"),
        owner_staff_others(302, 403, 404, anonymous=LOGIN),
        None,
    ),
    ("quote pdf", "read"): (
        lambda w, c: c.get(f"/quotes/{w.quote.pk}/pdf"),
        only(OWNER_OR_STAFF, 200, 404, anonymous=LOGIN),
        None,
    ),
    ("quote pdf", "read status"): (
        lambda w, c: c.get(f"/quotes/{w.quote.pk}/pdf/status"),
        only(OWNER_OR_STAFF, 200, 404, anonymous=LOGIN),
        None,
    ),
    ("quote share link", "read"): (
        lambda w, c: c.get(f"/quotes/shared/{w.shared_quote.share_token}/"),
        everyone(200),
        None,
    ),
    ("quote share link", "read pdf"): (
        lambda w, c: c.get(f"/quotes/shared/{w.shared_quote.share_token}/pdf"),
        everyone(200),
        None,
    ),
    ("quote revoked link", "read"): (
        lambda w, c: c.get(f"/quotes/shared/{w.revoked_token}/"),
        everyone(404),
        None,
    ),
    ("quote revoked link", "read pdf"): (
        lambda w, c: c.get(f"/quotes/shared/{w.revoked_token}/pdf"),
        everyone(404),
        None,
    ),
    ("upload private", "read"): (
        lambda w, c: c.get(f"/benchmarks/{w.upload_private.pk}/"),
        only(OWNER_OR_STAFF, 200, 404),
        None,
    ),
    ("upload private", "read status"): (
        lambda w, c: c.get(f"/benchmarks/{w.upload_private.pk}/status/"),
        only(OWNER_OR_STAFF, 200, 404),
        None,
    ),
    ("upload public", "read"): (
        lambda w, c: c.get(f"/benchmarks/{w.upload_public.pk}/"),
        everyone(200),
        None,
    ),
    ("upload raw private", "read"): (
        lambda w, c: c.get(f"/api/v1/uploads/{w.upload_private.pk}/raw"),
        only(OWNER_OR_STAFF, 200, 404),
        None,
    ),
    ("upload", "write form"): (
        lambda w, c: c.get("/benchmarks/upload/"),
        anonymous_then(LOGIN, 200),
        None,
    ),
    ("finding", "read checklist"): (
        lambda w, c: c.get(f"/checks/checklist/?offering={w.offering.slug}"),
        everyone(200),
        None,
    ),
}


def _edit_form_data(world: World) -> dict[str, Any]:
    """The edit form as the page would submit it, with one fact changed."""
    from providers.facts import FACTS

    data: dict[str, Any] = {}
    for fact in FACTS:
        value = world.offering.fact_value(fact.name)
        if fact.type == "bool":
            data[fact.name] = "" if value is None else ("true" if value else "false")
        elif fact.type == "list":
            data[fact.name] = value or []
        else:
            data[fact.name] = "" if value is None else value
    data["max_nodes"] = "64"
    return {**data, **SOURCE}


@pytest.fixture
def world(world_of_the_module: World) -> World:
    """One World for the module (building it per case was most of the module's time); each case still
    starts from it as built, as the two tests below show."""
    return world_of_the_module


def _as_built(world: World) -> dict[str, bool]:
    """What the cases rely on, each True while it is as the World was built."""
    from benchmarks.models import Upload
    from checks.models import Finding
    from quotes.models import Quote
    from quotes.services import pdf_names
    from sizing.models import PlanRun

    offering = type(world.offering).objects.filter(pk=world.offering.pk).first()
    quotes = (world.quote, world.shared_quote)
    uploads = (world.upload_private, world.upload_public)
    return {
        "offering facts": offering is not None
        and offering.fact_value("max_nodes") == world.offering.fact_value("max_nodes"),
        "no probe price": not world.plan.history.filter(note="leak probe").exists(),
        "share link": Quote.objects.filter(
            pk=world.shared_quote.pk, share_token=world.shared_quote.share_token
        )
        .exclude(share_token=None)
        .exists(),
        "revoked quote": Quote.objects.filter(pk=world.quote.pk, share_token=None).exists(),
        "uploads": Upload.objects.filter(pk__in=[u.pk for u in uploads]).count() == 2,
        "run": PlanRun.objects.filter(pk=world.run.pk, status="done").exists(),
        "findings": Finding.objects.filter(pk__in=[world.run_finding.pk, world.claims_finding.pk]).count()
        == 2,
        "users": type(world.users["buyer"])
        .objects.filter(pk__in=[u.pk for u in world.users.values()])
        .count()
        == 5,
        "files": all(default_storage.exists(pdf_names(q)[0]) for q in quotes)
        and all(default_storage.exists(u.blob.storage_name) for u in uploads),
        "objects": world.offering.slug == "own-h100" and world.users["buyer"].username == "buyer",
    }


def test_a_case_may_change_or_delete_all_of_the_world(world: World) -> None:
    from benchmarks.models import Upload
    from quotes.services import pdf_names

    assert all(_as_built(world).values()), _as_built(world)
    buyer, rep = world.api("buyer"), world.api("own_rep")
    assert buyer.delete(f"/api/v1/quotes/{world.shared_quote.pk}/share").status_code == 204
    assert buyer.post(f"/api/v1/quotes/{world.quote.pk}/share").status_code == 201
    edit = {"max_nodes": (world.offering.fact_value("max_nodes") or 0) + 8, **SOURCE}
    assert rep.patch(f"/api/v1/offerings/{world.offering.slug}/", edit, format="json").status_code == 200
    price = {"price_usd_per_gpu_hour": "3.10", "note": "leak probe"}
    url = f"/api/v1/offerings/{world.offering.slug}/plans/{world.plan.pk}/price/"
    assert rep.post(url, price, format="json").status_code == 201
    for name in [
        pdf_names(world.quote)[0],
        pdf_names(world.shared_quote)[0],
        world.upload_public.blob.storage_name,
    ]:
        default_storage.delete(name)
    Upload.objects.filter(pk=world.upload_private.pk).delete()
    world.run_finding.delete()
    world.run.delete()
    world.users["other_buyer"].delete()
    world.offering.slug, world.users["buyer"].username = "changed", "changed"
    assert not any(_as_built(world).values()), _as_built(world)


def test_the_next_case_finds_the_world_as_built(world: World) -> None:
    assert all(_as_built(world).values()), _as_built(world)


def _cases(table: dict[Any, Any], channel: str) -> list[Any]:
    return [
        pytest.param(channel, kind, action, role, id=f"{channel}-{kind}-{action}-{role}".replace(" ", "_"))
        for (kind, action), (_, expected, _) in table.items()
        for role in ROLES
    ]


@pytest.mark.parametrize(("channel", "kind", "action", "role"), [*_cases(API, "api"), *_cases(PAGES, "page")])
def test_permission_matrix(world: World, channel: str, kind: str, action: str, role: str) -> None:
    table = API if channel == "api" else PAGES
    probe, expected_by_role, marker = table[(kind, action)]
    client = world.api(role) if channel == "api" else world.pages(role)
    response = probe(world, client)
    expected = expected_by_role[role]
    where = f"{channel} {kind} {action} as {role}"
    if expected == LOGIN:
        assert response.status_code == 302, where
        assert response["Location"].startswith(
            settings.LOGIN_URL if "/" in settings.LOGIN_URL else "/accounts/login/"
        )
        return
    if expected in ("shown", "hidden"):
        assert response.status_code == 200, where
        assert marker is not None
        body = response.content.decode().replace(" ", "") if channel == "api" else response.content.decode()
        assert (
            marker(world).replace(" ", "") if channel == "api" else marker(world)
        ) in body or expected == "hidden", where
        if expected == "hidden":
            assert marker(world) not in body, where
        return
    assert response.status_code == expected, f"{where}: {response.status_code} {response.content[:300]!r}"
    if channel == "api" and response.status_code >= 400:
        body = response.json()
        assert set(body) == {"message", "extra"}, where


def test_provider_representatives_see_but_cannot_change_the_evidence_about_them(world: World) -> None:
    rep = world.api("own_rep")
    assert rep.get(f"/api/v1/uploads/{world.upload_public.pk}/").status_code == 200
    assert rep.get(f"/api/v1/uploads/{world.upload_private.pk}/").status_code == 404
    assert (
        rep.patch(f"/api/v1/uploads/{world.upload_public.pk}/", {"notes": "x"}, format="json").status_code
        == 405
    )


def test_edits_go_through_the_service_and_land_in_the_history(world: World) -> None:
    rep = world.api("own_rep")
    response = rep.patch(
        f"/api/v1/offerings/{world.offering.slug}/",
        {"max_nodes": 64, "fabric": "roce", **SOURCE},
        format="json",
    )
    assert response.status_code == 200, response.content
    assert response.json()["max_nodes"] == 64 and response.json()["fabric"] == "roce"
    history = FactChange.objects.filter(offering=world.offering).order_by("fact")
    assert [(c.fact, c.new, c.source_url) for c in history] == [
        ("fabric", "roce", SOURCE["source_url"]),
        ("max_nodes", 64, SOURCE["source_url"]),
    ]
    bad = rep.patch(f"/api/v1/offerings/{world.offering.slug}/", {"gpus_per_node": -1}, format="json")
    assert bad.status_code == 400 and "gpus_per_node" in bad.json()["extra"]["fields"]
    posted = rep.post(
        f"/api/v1/offerings/{world.offering.slug}/plans/{world.plan.pk}/price/",
        {"price_usd_per_gpu_hour": "2.95", "as_of": "2026-11-01", "note": "autumn list price"},
        format="json",
    )
    assert posted.status_code == 201, posted.content
    history = world.api("anonymous").get(f"/api/v1/offerings/{world.offering.slug}/prices/").json()
    assert history[-1]["price_usd_per_gpu_hour"] == "2.9500" and history[-1]["note"] == "autumn list price"
    # A plan of another offering is not reachable through this one.
    other_plan = world.other_offering.plans.create(kind="on-demand", name="x")
    url = f"/api/v1/offerings/{world.offering.slug}/plans/{other_plan.pk}/price/"
    assert rep.post(url, {"price_usd_per_gpu_hour": "1"}, format="json").status_code == 404


def test_staff_read_a_buyers_run_but_issue_quotes_only_from_their_own(world: World) -> None:
    payload = {"run": world.run.pk, "offering": world.offering.slug}
    for role in ("staff", "other_buyer"):
        response = world.api(role).post("/api/v1/quotes/", payload, format="json")
        assert response.status_code == 400, role
        assert response.json()["extra"]["fields"] == {"run": ["no such run"]}, role
    assert world.api("staff").get(f"/api/v1/runs/{world.run.pk}/").status_code == 200
    # Nothing was issued in the buyer's name or from the buyer's run.
    from quotes.models import Quote

    assert set(Quote.objects.values_list("pk", flat=True)) == {world.quote.pk, world.shared_quote.pk}


def test_staff_see_a_buyers_quote_without_its_share_link(world: World) -> None:
    page = world.pages("staff").get(f"/quotes/{world.shared_quote.pk}/")
    assert page.status_code == 200
    assert world.shared_quote.share_token not in page.content.decode()
    owner_page = world.pages("buyer").get(f"/quotes/{world.shared_quote.pk}/")
    assert world.shared_quote.share_token in owner_page.content.decode()


def test_the_findings_of_a_run_stay_with_its_owner_and_staff(world: World) -> None:
    secret = world.run_finding.title
    for role in ROLES:
        body = world.api(role).get("/api/v1/findings/").content.decode()
        assert (secret in body) == (role in OWNER_OR_STAFF), role
    # Asking for the context by name does not reveal it either.
    body = world.api("other_buyer").get(f"/api/v1/findings/?context=run:{world.run.pk}").json()
    assert body == []
    # The public checklist page only ever shows the offering's claims.
    page = world.pages("buyer").get(f"/checks/checklist/?offering={world.offering.slug}").content.decode()
    assert secret not in page
