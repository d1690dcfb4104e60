"""Quote pages and API: creation from the result page, privacy, share links, the PDF download flow."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from rest_framework.test import APIClient

from quotes import services
from quotes.models import Quote
from sizing import services as sizing_services
from tests.providers.factories import UserFactory

pytestmark = pytest.mark.django_db


def login(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def api(user: Any | None) -> APIClient:
    client = APIClient()
    if user is not None:
        client.force_authenticate(user)
    return client


@pytest.fixture
def run(buyer: Any, offering: Any, workload: Any, django_capture_on_commit_callbacks: Any) -> Any:
    with django_capture_on_commit_callbacks(execute=True):
        return sizing_services.plan_run_create(owner=buyer, workload=workload, offering_slugs=[offering.slug])


def test_the_result_page_has_a_create_quote_button_that_issues_one(
    buyer: Any, offering: Any, run: Any
) -> None:
    client = login(buyer)
    page = client.get(f"/plan/{run.pk}/{offering.slug}/").content.decode()
    assert 'action="/quotes/new/"' in page and "Create quote" in page
    response = client.post(
        "/quotes/new/", {"run": run.pk, "offering": offering.slug, "next": f"/plan/{run.pk}/{offering.slug}/"}
    )
    quote = Quote.objects.get()
    assert response.status_code == 302 and response["Location"] == f"/quotes/{quote.pk}/"
    assert quote.owner == buyer and quote.run == run
    listing = client.get("/quotes/").content.decode()
    assert quote.number in listing


def test_creating_from_someone_elses_run_is_refused_with_a_message(offering: Any, run: Any) -> None:
    other = login(UserFactory(username="intruder"))
    response = other.post("/quotes/new/", {"run": run.pk, "offering": offering.slug}, follow=True)
    assert "Could not create the quote" in response.content.decode() and not Quote.objects.exists()


def test_the_quote_page_shows_the_quote_and_a_download_button(quote: Quote, buyer: Any) -> None:
    page = login(buyer).get(f"/quotes/{quote.pk}/").content.decode()
    assert quote.number in page and f'href="/quotes/{quote.pk}/pdf"' in page
    assert 'id="bill"' in page and "Questions still open with the provider" in page
    assert "Findings (" in page and "The offering as quoted" in page and "Acme GPU Cloud pricing page" in page
    assert 'id="quote-figures"' in page


def test_quotes_are_private_to_their_owner(quote: Quote) -> None:
    other = UserFactory(username="other-buyer")
    client = login(other)
    for url in (f"/quotes/{quote.pk}/", f"/quotes/{quote.pk}/pdf", f"/quotes/{quote.pk}/pdf/status"):
        assert client.get(url).status_code == 404
        anonymous = Client().get(url)  # sent to log in, whether or not the quote exists
        assert anonymous.status_code == 302 and anonymous["Location"].startswith("/accounts/login/")
    assert client.post(f"/quotes/{quote.pk}/share").status_code == 404
    assert quote.number not in client.get("/quotes/").content.decode()
    assert api(other).get(f"/api/v1/quotes/{quote.pk}/").status_code == 404
    assert api(other).get(f"/api/v1/quotes/{quote.pk}/pdf").status_code == 404
    assert api(other).get("/api/v1/quotes/").json() == {
        "count": 0,
        "next": None,
        "previous": None,
        "results": [],
    }
    assert api(other).post(f"/api/v1/quotes/{quote.pk}/share").status_code == 404
    assert api(None).get("/api/v1/quotes/").status_code in (401, 403)
    assert api(None).get(f"/api/v1/quotes/{quote.pk}/").status_code in (401, 403)
    assert api(other).delete(f"/api/v1/quotes/{quote.pk}/share").status_code == 404
    assert Client().get("/quotes/999999/")["Location"].startswith("/accounts/login/")


def test_a_share_link_is_read_only_and_revoking_it_answers_404(quote: Quote, buyer: Any) -> None:
    owner = login(buyer)
    owner.post(f"/quotes/{quote.pk}/share")
    quote.refresh_from_db()
    token = quote.share_token
    assert token and len(token) >= 40
    owner_page = owner.get(f"/quotes/{quote.pk}/").content.decode()
    assert f"/quotes/shared/{token}/" in owner_page
    anonymous = Client()
    shared = anonymous.get(f"/quotes/shared/{token}/")
    page = shared.content.decode()
    assert shared.status_code == 200 and quote.number in page
    assert (
        "Revoke" not in page and f"/quotes/{quote.pk}/share" not in page and "csrfmiddlewaretoken" not in page
    )
    assert f'href="/quotes/shared/{token}/pdf"' in page
    assert anonymous.get(f"/quotes/shared/{token[:-2]}xx/").status_code == 404
    assert anonymous.post(f"/quotes/{quote.pk}/share/revoke").status_code in (302, 404)
    quote.refresh_from_db()
    assert quote.share_token == token  # an anonymous POST revokes nothing
    owner.post(f"/quotes/{quote.pk}/share/revoke")
    assert anonymous.get(f"/quotes/shared/{token}/").status_code == 404
    assert anonymous.get(f"/quotes/shared/{token}/pdf").status_code == 404


def test_the_pdf_page_says_rendering_and_polls_until_the_file_is_ready(
    quote: Quote, buyer: Any, django_capture_on_commit_callbacks: Any
) -> None:
    client = login(buyer)
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        waiting = client.get(f"/quotes/{quote.pk}/pdf")
    assert waiting.status_code == 202 and len(callbacks) == 1
    body = waiting.content.decode()
    assert "Rendering the PDF" in body and f'hx-get="/quotes/{quote.pk}/pdf/status"' in body
    quote.refresh_from_db()
    assert quote.pdf_status == "rendering"
    with django_capture_on_commit_callbacks(execute=False) as again:
        chinese = client.get(f"/quotes/{quote.pk}/pdf", HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert again == []  # already rendering: not enqueued twice
    assert f"<title>正在生成 {quote.number}" in chinese  # the tab's title in the page's language too
    callbacks[0]()  # the worker renders it
    status = client.get(f"/quotes/{quote.pk}/pdf/status", HTTP_HX_REQUEST="true")
    assert status["HX-Redirect"] == f"/quotes/{quote.pk}/pdf"
    download = client.get(f"/quotes/{quote.pk}/pdf")
    assert download.status_code == 200 and download["Content-Type"] == "application/pdf"
    assert f'filename="{quote.number}.pdf"' in download["Content-Disposition"]
    assert b"".join(download.streaming_content).startswith(b"%PDF")


def test_api_creates_lists_shows_and_serves_quotes(
    buyer: Any, offering: Any, workload: Any, run: Any, django_capture_on_commit_callbacks: Any
) -> None:
    client = api(buyer)
    created = client.post("/api/v1/quotes/", {"run": run.pk, "offering": offering.slug}, format="json")
    assert created.status_code == 201
    body = created.json()
    assert set(body) >= {"id", "number"} and body["number"].startswith("CS-")
    by_plan = client.post(
        "/api/v1/quotes/",
        {"offering": offering.slug, "workload": workload.pk, "plan": "On-demand"},
        format="json",
    )
    assert by_plan.status_code == 201 and by_plan.json()["plan"] == "On-demand"
    listed = client.get("/api/v1/quotes/").json()  # paginated like every list of the API
    assert listed["count"] == 2
    assert [q["id"] for q in listed["results"]] == [by_plan.json()["id"], body["id"]]
    assert [q["id"] for q in client.get("/api/v1/quotes/?limit=1&offset=1").json()["results"]] == [body["id"]]
    detail = client.get(f"/api/v1/quotes/{body['id']}/").json()
    assert detail["number"] == body["number"] and detail["bill"]["lines"] and "open_questions" in detail
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        pending = client.get(f"/api/v1/quotes/{body['id']}/pdf")
    assert pending.status_code == 202 and pending.json()["status"] == "rendering"
    for callback in callbacks:  # the worker picks the task up
        callback()
    ready = client.get(f"/api/v1/quotes/{body['id']}/pdf")
    assert ready.status_code == 200 and ready["Content-Type"] == "application/pdf"
    share = client.post(f"/api/v1/quotes/{body['id']}/share")
    assert share.status_code == 201 and share.json()["token"] in share.json()["url"]
    assert Client().get(share.json()["url"]).status_code == 200
    assert client.delete(f"/api/v1/quotes/{body['id']}/share").status_code == 204
    assert Client().get(share.json()["url"]).status_code == 404


def test_api_errors_use_the_project_shape(buyer: Any, offering: Any, workload: Any) -> None:
    client = api(buyer)
    for payload in (
        {},
        {"offering": offering.slug},
        {"run": 999999, "offering": offering.slug},
        {"offering": offering.slug, "workload": workload.pk, "plan": "Gold"},
        {"offering": "no-such-offering", "workload": workload.pk},
        {"run": 2**70, "offering": offering.slug},
        {"offering": offering.slug, "workload": "x"},
    ):
        response = client.post("/api/v1/quotes/", payload, format="json")
        assert response.status_code == 400, payload
        assert set(response.json()) == {"message", "extra"}, response.json()
    missing = client.get("/api/v1/quotes/999999/")
    assert missing.status_code == 404 and set(missing.json()) == {"message", "extra"}


def test_the_number_is_unique_across_quotes(quote: Quote, buyer: Any, offering: Any, workload: Any) -> None:
    second = services.quote_create_for_offering(
        owner=buyer, offering_slug=offering.slug, workload_id=workload.pk
    )
    assert second.number != quote.number and second.version != "" and second.version != quote.version


def test_staff_read_every_quote_but_change_none(quote: Quote, buyer: Any) -> None:
    staff = UserFactory(username="curator", role="staff", is_staff=True)
    client = login(staff)
    assert client.get(f"/quotes/{quote.pk}/").status_code == 200
    assert quote.number in client.get("/quotes/").content.decode()
    assert client.post(f"/quotes/{quote.pk}/share").status_code == 403
    assert api(staff).get(f"/api/v1/quotes/{quote.pk}/").status_code == 200
    assert [q["id"] for q in api(staff).get("/api/v1/quotes/").json()["results"]] == [quote.pk]
    assert api(staff).post(f"/api/v1/quotes/{quote.pk}/share").status_code == 403
    assert api(staff).delete(f"/api/v1/quotes/{quote.pk}/share").status_code == 403
    quote.refresh_from_db()
    assert quote.share_token is None


def test_the_quote_names_enum_facts_and_their_evidence_never_by_code(
    buyer: Any, offering: Any, workload: Any
) -> None:
    """The quote's facts and a finding's evidence show "Kubernetes, Slurm" and "InfiniBand", as the
    offering page does, in the quote's language; the snapshot keeps the codes."""
    offering.schedulers, offering.accelerator_stack = "kubernetes,slurm", "cuda"
    offering.save()
    quote = services.quote_create_for_offering(
        owner=buyer, offering_slug=offering.slug, workload_id=workload.pk
    )
    assert quote.snapshot["facts"]["schedulers"] == ["kubernetes", "slurm"]
    page = login(buyer).get(f"/quotes/{quote.pk}/").content.decode()
    facts = page[page.index("The offering as quoted") :]
    assert "Kubernetes, Slurm" in facts and "kubernetes, slurm" not in page
    assert ">InfiniBand<" in facts and ">infiniband<" not in facts and ">CUDA<" in facts
