"""GET /api/v1/findings/, the Findings section of the offering page, and /checks/checklist/."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from checks import services
from tests.providers.factories import OfferingFactory, ProviderFactory

pytestmark = pytest.mark.django_db

URL = "/api/v1/findings/"


@pytest.fixture
def ethernet() -> object:
    offering = OfferingFactory(slug="eth-box", fabric="ethernet", nics_per_node=1, gbps_per_nic=100.0)
    services.findings_refresh(offering=offering)
    return offering


@pytest.fixture
def clean() -> object:
    offering = OfferingFactory(slug="ib-box")
    services.findings_refresh(offering=offering)
    return offering


def test_the_api_lists_findings_of_one_offering_as_a_plain_list(
    client: Client, ethernet: object, clean: object
) -> None:
    response = client.get(URL, {"offering": "eth-box"})
    assert response.status_code == 200
    body = response.json()
    assert isinstance(body, list) and body
    assert {"offering", "code", "severity", "title", "evidence", "advice", "impact", "context"} <= set(
        body[0]
    )
    assert {item["offering"] for item in body} == {"eth-box"}
    # most severe first
    ranks = {"critical": 0, "warning": 1, "info": 2}
    assert [ranks[i["severity"]] for i in body] == sorted(ranks[i["severity"]] for i in body)
    rdma = next(i for i in body if i["code"] == "fabric-not-rdma")
    assert rdma["severity"] == "critical" and rdma["context"] == "claims"
    assert any(e.get("fact") == "fabric" for e in rdma["evidence"])


def test_the_api_filters_by_severity_and_code(client: Client, ethernet: object, clean: object) -> None:
    critical = client.get(URL, {"offering": "eth-box", "severity": "critical"}).json()
    assert critical and {i["severity"] for i in critical} == {"critical"}
    by_code = client.get(URL, {"code": "fabric-not-rdma"}).json()
    assert [i["offering"] for i in by_code] == ["eth-box"]
    everything = client.get(URL).json()
    assert {i["offering"] for i in everything} >= {"eth-box"}


def test_the_api_refuses_an_unknown_offering_or_severity(client: Client, ethernet: object) -> None:
    response = client.get(URL, {"offering": "no-such-offering"})
    assert response.status_code == 400
    body = response.json()
    assert set(body) == {"message", "extra"} and "offering" in body["message"]
    assert client.get(URL, {"severity": "fatal"}).status_code == 400


def test_the_api_is_public_and_read_only(client: Client, ethernet: object) -> None:
    assert client.get(URL).status_code == 200
    assert client.post(URL, {"offering": "eth-box"}).status_code in (401, 403, 405)


def test_the_offering_page_shows_findings_with_evidence_links(client: Client, ethernet: object) -> None:
    html = client.get("/offerings/eth-box/").content.decode()
    assert 'id="findings"' in html
    assert "Critical" in html and "fabric-not-rdma" in html
    assert 'href="/offerings/eth-box/#fact-fabric"' in html and 'id="fact-fabric"' in html
    assert "Advice:" in html and "Impact:" in html
    assert "/checks/checklist/?offering=eth-box" in html


def test_the_offering_page_says_when_nothing_was_found(client: Client) -> None:
    offering = OfferingFactory(slug="nothing-found")
    html = client.get(offering.get_absolute_url()).content.decode()
    assert "No pitfall found" in html


def test_the_checklist_page_answers_for_one_offering(client: Client, ethernet: object) -> None:
    response = client.get("/checks/checklist/", {"offering": "eth-box"})
    assert response.status_code == 200
    html = response.content.decode()
    assert 'id="q-fabric"' in html
    fabric_row = html.split('id="q-fabric"')[1].split("</tr>")[0]
    assert "Concern" in fabric_row and "✖" in fabric_row
    sla_row = html.split('id="q-sla"')[1].split("</tr>")[0]
    assert "Unknown" in sla_row
    assert "Answered" in html
    assert 'id="finding-fabric-not-rdma"' in html


@pytest.mark.parametrize(
    ("language", "title", "heading"),
    [
        ("en", "Checklist: {name} ·", "Questions to ask before signing: {name}</h1>"),
        ("zh-hans", "核查清单：{name} ·", "签约前应询问的问题：{name}</h1>"),
    ],
)
def test_the_checklist_page_names_its_offering_after_the_pages_colon(
    client: Client, ethernet: Any, language: str, title: str, heading: str
) -> None:
    html = client.get(
        "/checks/checklist/", {"offering": "eth-box"}, HTTP_ACCEPT_LANGUAGE=language
    ).content.decode()
    shown_title = html.split("<title>")[1].split("</title>")[0]
    assert shown_title.startswith(title.format(name=ethernet.name)), shown_title
    assert heading.format(name=ethernet.name) in html
    if language != "en":
        assert f": {ethernet.name}" not in html


def test_the_checklist_page_offers_a_choice_without_an_offering(client: Client, ethernet: object) -> None:
    response = client.get("/checks/checklist/")
    assert response.status_code == 200
    html = response.content.decode()
    assert '<select id="checklist-offering" name="offering">' in html and 'value="eth-box"' in html
    assert 'id="q-fabric"' not in html


def test_the_checklist_page_says_an_unknown_offering_is_not_found(client: Client, ethernet: object) -> None:
    response = client.get("/checks/checklist/", {"offering": "<b>nope</b>"})
    assert response.status_code == 404
    html = response.content.decode()
    assert "No offering with the slug" in html and "<b>nope</b>" not in html


def test_provider_names_are_escaped_in_findings_and_checklist(client: Client) -> None:
    evil = "<script>alert(1)</script>"
    offering = OfferingFactory(
        slug="evil", provider=ProviderFactory(name=evil), name=evil, fabric="ethernet", fabric_label=evil
    )
    services.findings_refresh(offering=offering)
    for url in ("/offerings/evil/", "/checks/checklist/?offering=evil", "/checks/checklist/"):
        html = client.get(url).content.decode()
        assert evil not in html, url
        assert "&lt;script&gt;" in html, url


def test_evidence_from_an_upload_links_to_its_lines() -> None:
    from checks.display import evidence_rows

    rows = evidence_rows(
        "eth-box",
        [
            {
                "source": "evidence",
                "file": "ibstat.txt",
                "lines": [[14, 14], [20, 31]],
                "upload_id": 5,
                "text": "t",
            }
        ],
    )
    assert rows[0]["label"] == "ibstat.txt, lines 14, 20-31"
    assert rows[0]["href"].endswith("/5/#L14")


def test_fact_aliases_link_to_their_rows() -> None:
    from checks.display import fact_href

    assert fact_href("x", "nodes") == "/offerings/x/#fact-max_nodes"
    assert fact_href("x", "billing_plans") == "/offerings/x/#plans"
    assert fact_href("x", "fabric") == "/offerings/x/#fact-fabric"
    assert fact_href("x", "deadline_days") == "/offerings/x/"


def test_the_api_list_does_not_query_per_finding(client: Client, django_assert_max_num_queries: Any) -> None:
    for n in range(4):
        services.findings_refresh(offering=OfferingFactory(fabric="ethernet", slug=f"many-{n}"))
    with django_assert_max_num_queries(3):
        body = client.get(URL).json()
    assert len(body) >= 4


def test_a_fact_cited_as_evidence_names_a_direct_mesh_by_the_offerings_gpu_link() -> None:
    """An AMD node's direct mesh is Infinity Fabric, not NVLink, in a finding's evidence and a checklist
    reference on the pages and in a quote's findings."""
    from checks.display import checklist_view, evidence_rows
    from quotes.display import quote_view

    ref = {
        "source": "claim",
        "fact": "intra_node",
        "value": "nvlink-mesh",
        "text": "intra_node = nvlink-mesh",
    }
    assert "Infinity Fabric" in evidence_rows("mi300x", [ref], None, "amd")[0]["text"]
    assert "NVLink" in evidence_rows("h100", [ref], None, "nvidia")[0]["text"]
    item = {"status": "unknown", "question": "q", "why": "w", "answer": "a", "refs": [ref]}
    assert "Infinity Fabric" in checklist_view("mi300x", item, None, "amd")["refs"][0]["text"]
    snapshot = {"facts": {"gpu": "MI300X-192GB"}, "findings": [{"severity": "warning", "evidence": [ref]}]}
    evidence = quote_view(snapshot)["findings"][0]["evidence"]
    assert "Infinity Fabric" in evidence[0] and "NVLink" not in evidence[0]
