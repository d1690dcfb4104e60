"""The scaling rows' details in the page's language: each row keeps its English text (the CLI and the tests
read it) with its message and node counts beside it, and the upload page builds the sentence from them
when it is drawn, so every upload, old or new, shows it in the reader's language."""

from __future__ import annotations

import hashlib
from typing import Any

import pytest
from django.test import Client
from django.utils import translation

from benchmarks.models import Blob, Upload
from benchmarks.scaling import scaling
from portal.i18n import translated
from tests.providers.factories import OfferingFactory, UserFactory

from .test_compare import _nccl_item

RING_RUNS = [
    _nccl_item(nodes=n, ranks=8 * n, busbw_at_max_size_gbps=v, algorithm_hint="Ring")
    for n, v in ((2, 380.0), (4, 370.0))
]


def _chinese(message: Any) -> str:
    with translation.override("zh-hans"):
        return translated(message, "")


def test_a_scaling_detail_keeps_its_english_and_carries_its_message_and_node_counts() -> None:
    (row,) = scaling(RING_RUNS)
    assert row["detail"] == "4 nodes 370.0 vs 2 nodes 380.0"
    assert (row["nodes"], row["base_nodes"]) == (4, 2)
    assert _chinese(row["messages"]["detail"]) == "4 个节点 370.0，对比 2 个节点 380.0"


def test_runs_of_unknown_layout_say_so_in_the_pages_language() -> None:
    unknown = [dict(item) for item in RING_RUNS]
    for item in unknown:
        item["summary"] = {"runs": [{**item["summary"]["runs"][0], "gpus_per_node": None}]}
    (row,) = scaling(unknown)
    assert row["verdict"] == "cannot-measure" and "at 2, 4 nodes" in row["detail"]
    assert _chinese(row["messages"]["detail"]).startswith("2、4 个节点的 all_reduce 运行中每节点 GPU 数未知")


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("language", "shown", "not_shown"),
    [
        ("en", "4 nodes 370.0 vs 2 nodes 380.0", "个节点"),
        ("zh-hans", "4 个节点 370.0，对比 2 个节点 380.0", "4 nodes"),
    ],
)
def test_the_upload_page_shows_the_scaling_detail_in_its_language(
    client: Client, language: str, shown: str, not_shown: str
) -> None:
    owner, offering = UserFactory(), OfferingFactory()
    uploads = []
    for item in RING_RUNS:
        nodes = item["summary"]["runs"][0]["nodes"]
        sha = hashlib.sha256(f"scaling-{nodes}".encode()).hexdigest()
        blob = Blob.objects.create(sha256=sha, size_bytes=100, storage_name=Blob.storage_name_for(sha))
        uploads.append(
            Upload.objects.create(
                owner=owner,
                offering=offering,
                blob=blob,
                original_filename=f"nccl-{nodes}.log",
                status=Upload.Status.PARSED,
                kind="nccl-tests",
                summary=item["summary"],
            )
        )
    client.force_login(owner)
    page = client.get(f"/benchmarks/{uploads[1].pk}/", HTTP_ACCEPT_LANGUAGE=language).content.decode()
    section = page.split('<section id="scaling">')[1].split("</section>")[0]
    table = section.split("<tbody>")[1]
    assert shown in table and not_shown not in table, table
    assert '"nodes": 4' in section and '"base_nodes": 2' in section  # the chart's x, not read from the words
