"""Acceptance over the API and the pages, and the loop back into findings, the offering page and quotes."""

from __future__ import annotations

import io
import tarfile
from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.test import Client, TestCase
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from acceptance.models import AcceptanceRun
from benchmarks import services as upload_services
from benchmarks.services import IncomingFile
from checks.models import Finding
from checks.selectors import finding_list
from tests.acceptance.test_bundles import AAC11, mi325x_roce_offering, targz
from tests.benchmarks._shared import require_shared
from tests.providers.factories import OfferingFactory, UserFactory

pytestmark = pytest.mark.django_db
ETHERNET_IBSTAT = "evidence/ibstat/l2fwd-nv-issue6-2x-cx6dx-100g-ethernet.txt"


@pytest.fixture(autouse=True)
def _media(settings: Any, tmp_path: Path) -> None:
    settings.MEDIA_ROOT = str(tmp_path / "media")


def _api(user: Any = None) -> APIClient:
    client = APIClient()
    if user is not None:
        token, _ = Token.objects.get_or_create(user=user)
        client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    return client


def _post_bundle(client: APIClient, offering: Any, data: bytes, **fields: Any) -> Any:
    with TestCase.captureOnCommitCallbacks(execute=True):
        return client.post(
            "/api/v1/acceptance/",
            {"bundle": SimpleUploadedFile("results.tar.gz", data), "offering": offering.slug, **fields},
            format="multipart",
        )


def _ethernet_bundle() -> bytes:
    return targz({"results/nodes/node01/ibstat.txt": (require_shared() / ETHERNET_IBSTAT).read_bytes()})


def test_a_private_ibstat_with_ethernet_raises_fabric_not_rdma_for_its_owner_only() -> None:
    offering, owner, other = OfferingFactory(fabric="infiniband"), UserFactory(), UserFactory()
    data = (require_shared() / ETHERNET_IBSTAT).read_bytes()
    with TestCase.captureOnCommitCallbacks(execute=True):
        [outcome] = upload_services.upload_create(
            owner=owner, offering=offering, files=[IncomingFile("ib.txt", data)]
        )
    row = Finding.objects.get(offering=offering, code="fabric-not-rdma")
    assert row.context == f"evidence:{owner.pk}" and row.severity == "critical"
    cited = [ref for ref in row.evidence if ref.get("source") == "evidence"]
    assert cited and cited[0]["upload_id"] == outcome.upload.pk and cited[0]["file"] == "ib.txt"
    assert finding_list(user=owner, offering=offering, code="fabric-not-rdma").count() == 1
    assert finding_list(user=other, offering=offering, code="fabric-not-rdma").count() == 0
    assert finding_list(offering=offering, code="fabric-not-rdma").count() == 0  # not on the public page


def test_post_and_get_follow_the_design_shapes_and_cite_the_pitfall() -> None:
    owner = UserFactory()
    offering = OfferingFactory(fabric="infiniband")
    response = _post_bundle(_api(owner), offering, _ethernet_bundle())
    assert response.status_code == 201, response.content
    assert {"id", "status"} <= set(response.json())
    body = _api(owner).get(f"/api/v1/acceptance/{response.json()['id']}/").json()
    assert body["status"] == "done" and body["offering"] == offering.slug and body["verdict"] == "fail"
    assert set(body["indicators"]) == {"collective_bandwidth", "scaling_efficiency", "stability"}
    assert {"busbw_gbps", "collective", "nodes", "expected_gbps", "ratio", "verdict"} <= set(
        body["indicators"]["collective_bandwidth"]
    )
    assert {"value", "basis", "curve", "verdict"} <= set(body["indicators"]["scaling_efficiency"])
    assert body["files"] == [
        {"name": "results/nodes/node01/ibstat.txt", "kind": "ibstat", "upload": body["files"][0]["upload"]}
    ]
    assert any("link layer Ethernet" in text for text in body["findings"])
    assert [p["code"] for p in body["pitfall_findings"]] == ["fabric-not-rdma"]
    # Private: another buyer and anonymous visitors do not see it.
    assert _api(UserFactory()).get(f"/api/v1/acceptance/{body['id']}/").status_code == 404
    assert _api().get(f"/api/v1/acceptance/{body['id']}/").status_code == 404
    listing = _api().get("/api/v1/acceptance/").json()
    assert body["id"] not in [r["id"] for r in (listing["results"] if isinstance(listing, dict) else listing)]


def test_posting_needs_a_login_and_names_the_bad_field() -> None:
    offering = OfferingFactory()
    assert _post_bundle(_api(), offering, b"x").status_code in (401, 403)
    response = _post_bundle(_api(UserFactory()), offering, b"not an archive")
    body = response.json()
    assert response.status_code == 400 and "not a readable tar.gz" in body["extra"]["fields"]["bundle"][0]
    assert body["message"].startswith("bundle: not a readable tar.gz")  # the field named once
    assert "Error" not in body["message"]  # no exception class name (it read "(ReadError)")
    response = _api(UserFactory()).post("/api/v1/acceptance/", {"offering": "nope"}, format="multipart")
    assert response.status_code == 400 and {"bundle", "offering"} <= set(response.json()["extra"]["fields"])


def test_the_kit_api_answers_a_tar_gz_and_clear_400s() -> None:
    offering = OfferingFactory(slug="kit-h100", max_nodes=16)
    response = _api().get(
        "/api/v1/acceptance/kit/", {"offering": "kit-h100", "nodes": 8, "scheduler": "slurm"}
    )
    assert response.status_code == 200 and response["Content-Type"] == "application/gzip"
    assert 'filename="acceptance-kit-h100-8n-slurm.tar.gz"' in response["Content-Disposition"]
    with tarfile.open(fileobj=io.BytesIO(response.content)) as archive:
        assert "acceptance-kit-h100-8n-slurm/slurm/nccl_8n.sbatch" in archive.getnames()
    for params, field, words in [
        ({"nodes": 17, "scheduler": "slurm"}, "nodes", "from 1 to 16"),
        ({"nodes": 0, "scheduler": "slurm"}, "nodes", "from 1 to 16"),
        ({"nodes": 4, "scheduler": "pbs"}, "scheduler", "not a valid choice"),
        ({"nodes": 4, "scheduler": "slurm", "stability_hours": 500}, "stability_hours", "0 to 168"),
    ]:
        bad = _api().get("/api/v1/acceptance/kit/", {"offering": offering.slug, **params})
        assert bad.status_code == 400 and words in bad.json()["extra"]["fields"][field][0], bad.json()
    missing = _api().get("/api/v1/acceptance/kit/", {"offering": "nope", "nodes": 4, "scheduler": "slurm"})
    assert missing.status_code == 400 and "offering" in missing.json()["extra"]["fields"]


def test_the_command_writes_the_kit_and_refuses_out_of_range(tmp_path: Path) -> None:
    OfferingFactory(slug="cmd-h100", max_nodes=8)
    out = tmp_path / "kit.tar.gz"
    call_command("acceptance_kit", "cmd-h100", "--nodes", "8", "--scheduler", "kubernetes", "-o", str(out))
    with tarfile.open(out) as archive:
        assert "acceptance-cmd-h100-8n-kubernetes/kubernetes/nccl-mpijob-8n.yaml" in archive.getnames()
    with pytest.raises(CommandError, match="nodes: nodes must be a whole number from 1 to 8"):
        call_command("acceptance_kit", "cmd-h100", "--nodes", "9", "-o", str(out))


def test_the_pages_kit_download_report_and_the_buyers_list() -> None:
    owner = UserFactory()
    offering = mi325x_roce_offering()
    client = Client()
    assert client.get("/benchmarks/acceptance/").status_code == 200
    download = client.get(
        "/benchmarks/acceptance/", {"offering": offering.slug, "nodes": 4, "scheduler": "slurm"}
    )
    assert download.status_code == 200 and download["Content-Type"] == "application/gzip"
    refused = client.get(
        "/benchmarks/acceptance/", {"offering": offering.slug, "nodes": 2000, "scheduler": "slurm"}
    )
    assert refused.status_code == 400 and "1024" in refused.content.decode()
    assert client.get("/benchmarks/").status_code == 302  # a buyer's list needs a login
    client.force_login(owner)
    data = targz({"aac11.txt": (require_shared() / AAC11).read_bytes()})
    with TestCase.captureOnCommitCallbacks(execute=True):
        response = client.post(
            "/benchmarks/acceptance/bundle/",
            {
                "bundle": SimpleUploadedFile("r.tar.gz", data),
                "offering": offering.slug,
                "visibility": "public",
            },
        )
    run = AcceptanceRun.objects.get()
    assert response.status_code == 302 and response["Location"] == f"/benchmarks/acceptance/{run.pk}/"
    page = client.get(f"/benchmarks/acceptance/{run.pk}/").content.decode()
    assert 'id="verdict" class="verdict incomplete"' in page and "350.84 GB/s (all_reduce, 8 nodes)" in page
    assert 'id="curve-data"' in page and "Cannot be measured from this bundle" in page
    # on a phone the indicators are labelled cards: the verdict column was off the screen at 390 px
    assert 'class="grid phone-cards" id="indicator-table"' in page and 'data-label="Verdict"' in page
    listing = client.get("/benchmarks/").content.decode()
    assert f"/benchmarks/acceptance/{run.pk}/" in listing and "aac11.txt" in listing
    # Public: the offering page and the checklist show it, dated, beside the claim.
    offering_page = Client().get(offering.get_absolute_url()).content.decode()
    assert 'id="acceptance"' in offering_page and "368 GB/s expected" in offering_page
    assert run.finished_at.date().isoformat() in offering_page
    checklist = Client().get("/checks/checklist/", {"offering": offering.slug}).content.decode()
    assert "350.84 GB/s (all_reduce, 8 nodes)" in checklist


def test_a_failing_public_report_shows_red_on_the_offering_page_and_goes_into_the_quote() -> None:
    from quotes.services import quote_create_for_offering
    from sizing import services as sizing_services
    from tests.quotes.conftest import make_offering

    owner = UserFactory()
    offering = make_offering()
    response = _post_bundle(_api(owner), offering, _ethernet_bundle(), visibility="public")
    run = AcceptanceRun.objects.get(pk=response.json()["id"])
    assert run.verdict == "fail"
    page = Client().get(offering.get_absolute_url()).content.decode()
    assert 'class="acceptance-cannot-measure"' in page and "overall fail" in page
    other = OfferingFactory()
    compare = Client().get("/compare/", {"offerings": f"{offering.slug},{other.slug}"}).content.decode()
    assert f'id="acceptance-{offering.slug}"' in compare and f'id="acceptance-{other.slug}"' not in compare
    # A public bundle's uploads are public evidence: the offering's own findings cite them.
    assert Finding.objects.filter(offering=offering, context="claims", code="fabric-not-rdma").exists()
    workload = sizing_services.workload_create(owner=owner, preset="13b", train_tokens=3e11)
    quote = quote_create_for_offering(owner=owner, offering_slug=offering.slug, workload_id=workload.pk)
    [section] = quote.snapshot["acceptance"]
    assert section["verdict"] == "fail" and section["id"] == run.pk
    assert any("link layer Ethernet" in text for text in section["findings"])
    client = Client()
    client.force_login(owner)
    body = client.get(quote.get_absolute_url()).content.decode()
    assert 'id="acceptance-section"' in body and "overall fail" in body


@pytest.mark.parametrize(
    ("data", "words"),
    [
        (b"plain text, not an archive", "不是可读取的 tar.gz、tar 或 zip 归档"),
        (b"PK\x05\x06" + b"\0" * 18, "归档中没有可读取的文件。"),
    ],
)
def test_a_bad_bundle_is_refused_in_the_pages_language_naming_the_field_once(data: bytes, words: str) -> None:
    """It read "Bundle: bundle: not a readable tar.gz, tar or zip archive (ReadError); ..." in Chinese."""
    client = Client(HTTP_ACCEPT_LANGUAGE="zh-hans")
    client.force_login(UserFactory())
    offering = OfferingFactory()
    data_sent = {
        "bundle": SimpleUploadedFile("r.txt", data),
        "offering": offering.slug,
        "visibility": "private",
    }
    response = client.post("/benchmarks/acceptance/bundle/", data_sent)
    assert response.status_code == 400
    html = response.content.decode()
    assert "结果包：" + words in html  # the field's label, then a full-width colon
    assert "bundle:" not in html and "Error)" not in html and "not a readable" not in html


def test_a_verdict_that_cannot_be_measured_says_so_in_words() -> None:
    from benchmarks.templatetags.verdict_words import verdict_word

    assert verdict_word("cannot-measure") == "cannot be measured"
