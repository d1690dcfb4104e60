"""The scaling rows' details, series and pass marks in the page's language: each row keeps its English text
and keys (the CLI and the tests read them) with its messages, node counts and what it measures beside
them, and the upload page builds the words from them when it is drawn, so every upload, old or new, shows
them in the reader's language."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import pytest
from django.test import Client
from django.utils import translation

from benchmarks.models import Blob, Upload
from benchmarks.scaling import scaling, series_words, threshold_words
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
    assert row["verdict"] == "cannot-measure" and "the all-reduce runs at 2, 4 nodes" in row["detail"]
    assert _chinese(row["messages"]["detail"]).startswith("2、4 个节点的全归约运行中每节点 GPU 数未知")


def test_a_scaling_row_names_its_series_and_pass_mark_in_words_beside_its_english_keys() -> None:
    (row,) = scaling(RING_RUNS)
    # the keys its readers know stay as they were; the values the words are built from are added
    assert row["claim"] == "scaling all_reduce (8 GPU/node) busbw_gbps"
    assert row["expected"] == ">= 0.9 of the 2-node figure"
    assert (row["metric"], row["collective"], row["gpus_per_node"], row["pass_ratio"]) == (
        "busbw_gbps", "all_reduce", 8, 0.9
    )  # fmt: skip
    assert row["series"] == "all-reduce bus bandwidth, 8 GPUs per node"
    assert row["threshold"] == "at least 90% of the 2-node figure"
    assert _chinese(row["messages"]["series"]) == "全归约总线带宽，每节点 8 块 GPU"
    assert _chinese(row["messages"]["threshold"]) == "至少为 2 个节点结果的 90%"


def test_series_words_cover_one_gpu_per_node_training_and_an_unknown_collective() -> None:
    assert str(series_words({"metric": "busbw_gbps", "collective": "all_gather", "gpus_per_node": 1})) == (
        "all-gather bus bandwidth, 1 GPU per node"
    )
    # a collective the table does not know reads as words, never with its underscores
    assert str(series_words({"metric": "busbw_gbps", "collective": "new_collective"})) == (
        "new collective bus bandwidth"
    )
    training = series_words({"metric": "tokens_per_s_per_gpu", "framework": "megatron"})
    assert str(training) == "Megatron training throughput, tokens/s per GPU"
    assert _chinese(training.as_json()) == "Megatron 训练吞吐量，每块 GPU 每秒 token 数"
    assert str(series_words({"metric": "tflops_per_gpu", "framework": "deepspeed"})) == (
        "DeepSpeed training throughput, TFLOP/s per GPU"
    )
    assert str(threshold_words({"pass_ratio": 0.9})) == "at least 90% of the smallest multi-node figure"


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("language", "shown", "not_shown", "series", "threshold"),
    [
        (
            "en",
            "4 nodes 370.0 vs 2 nodes 380.0",
            "个节点",
            "all-reduce bus bandwidth, 8 GPUs per node",
            "at least 90% of the 2-node figure",
        ),
        (
            "zh-hans",
            "4 个节点 370.0，对比 2 个节点 380.0",
            "4 nodes",
            "全归约总线带宽，每节点 8 块 GPU",
            "至少为 2 个节点结果的 90%",
        ),
    ],
)
def test_the_upload_page_shows_the_scaling_rows_in_its_language(
    client: Client, language: str, shown: str, not_shown: str, series: str, threshold: str
) -> None:
    page = _upload_page(client, language)
    section = page.split('<section id="scaling">')[1].split("</section>")[0]
    table = section.split("<tbody>")[1]
    assert shown in table and not_shown not in table, table
    assert '"nodes": 4' in section and '"base_nodes": 2' in section  # the chart's x, not read from the words
    # what the row measures and what it must reach, in words, never the metric's key
    assert f"<td>{series}</td>" in table and f"<td>{threshold}</td>" in table, table
    for internal in ("busbw_gbps", "GPU/node", ">= 0.9"):
        assert internal not in table, internal
    # the chart's legend names the series by the same words (its data carries them for the page's script)
    data = json.loads(section.split('id="scaling-data"')[1].split(">", 1)[1].split("</script>")[0])
    assert [row["series"] for row in data] == [series]
    assert "name: byClaim[k].name" in page and "r.series || r.claim" in page


def _upload_page(client: Client, language: str) -> str:
    """The upload page of the 4-node run, with the 2-node run's upload beside it, in `language`."""
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
    return client.get(f"/benchmarks/{uploads[1].pk}/", HTTP_ACCEPT_LANGUAGE=language).content.decode()


@pytest.mark.parametrize(
    ("language", "note", "legend"),
    [
        ("en", "0.85 or more passes.", "pass threshold 0.85"),
        ("zh-hans", "0.85 及以上为通过。", "通过阈值 0.85"),
    ],
)
@pytest.mark.django_db
def test_the_pass_mark_the_page_states_is_the_one_the_rows_are_judged_by(
    client: Client, monkeypatch: pytest.MonkeyPatch, language: str, note: str, legend: str
) -> None:
    from benchmarks import views

    monkeypatch.setattr(views, "SCALING_PASS", 0.85)
    page = _upload_page(client, language)
    section = page.split('<section id="scaling">')[1].split("</section>")[0]
    assert note in section, section
    assert f'name: "{legend}"' in page and "y: [0.85, 0.85]" in page  # the chart's script
