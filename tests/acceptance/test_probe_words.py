"""The training probe on the report page: node counts pluralised in the page's language and each metric by
its label and unit with the portal's number format, never its key; the API keeps the stored keys."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from django.test import Client

from acceptance.models import AcceptanceRun
from acceptance.report import TRAINING_METRICS, build_report
from acceptance.selectors import THROUGHPUT_WORDS
from tests.acceptance.test_bundles import process, targz
from tests.acceptance.test_report import IB_H100
from tests.benchmarks._shared import FIXTURES
from tests.pages import page_in
from tests.providers.factories import GPUModelFactory, OfferingFactory, UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _media(settings: Any, tmp_path: Path) -> None:
    settings.MEDIA_ROOT = str(tmp_path / "media")


def _probe(world: int, summary: dict[str, Any]) -> dict[str, Any]:
    summary = {"world_size": world, "first_line": 3, "last_line": 40, **summary}
    return {"upload_id": world, "filename": f"train_{world}.log", "kind": "torchtitan", "summary": summary}


def _run_with_probes(key: str, values: list[float]) -> AcceptanceRun:
    run = process(OfferingFactory(), targz({"results/notes.txt": b"hello\n"}), owner=UserFactory())
    probes = [_probe(8 * 2**i, {key: value}) for i, value in enumerate(values)]
    run.indicators = build_report(IB_H100, probes)["indicators"]
    run.save(update_fields=["indicators"])
    return run


def _probe_line(client: Client, run: AcceptanceRun, language: str) -> str:
    page = page_in(client, run.owner, f"/benchmarks/acceptance/{run.pk}/", language)
    return page.split('id="throughput">')[1].split("</p>")[0]


@pytest.mark.parametrize(
    ("language", "words"),
    [
        ("en", "Training probe: 1 node: 3,210.5 tokens/s per GPU; 2 nodes: 3,080 tokens/s per GPU"),
        ("zh-hans", "训练探针：1 个节点时为每 GPU 3,210.5 tokens/s；2 个节点时为每 GPU 3,080 tokens/s"),
    ],
)
def test_the_probe_line_pluralises_and_names_tokens_per_second_in_the_pages_language(
    client: Client, language: str, words: str
) -> None:
    run = _run_with_probes("median_tokens_per_s_per_gpu", [3210.5, 3080.0])
    line = _probe_line(client, run, language)
    assert line == words, line
    assert "tokens_per_s_per_gpu" not in line and "node(s)" not in line


def test_tflops_are_labelled_with_their_unit_and_the_basis_names_no_key(client: Client) -> None:
    run = _run_with_probes("median_tflops_per_gpu", [412.25, 398.0, 380.0])
    line = _probe_line(client, run, "zh-hans")
    assert line == (
        "训练探针：1 个节点时为每 GPU 412.25 TFLOP/s；2 个节点时为每 GPU 398 TFLOP/s；"
        "4 个节点时为每 GPU 380 TFLOP/s"
    )
    page = page_in(client, run.owner, f"/benchmarks/acceptance/{run.pk}/", "zh-hans")
    assert "每 GPU 训练吞吐量（TFLOP/s）" in page and "tflops_per_gpu" not in page
    # the API's basis keeps its English, key and all
    basis = run.indicators["scaling_efficiency"]["basis"]
    assert basis.startswith("training throughput per GPU (tflops_per_gpu)")


def test_every_metric_a_probe_can_carry_has_words() -> None:
    assert {metric for metric, _key in TRAINING_METRICS} == set(THROUGHPUT_WORDS)


def test_the_bandwidth_sentences_end_and_bracket_in_chinese_punctuation(client: Client) -> None:
    log = (FIXTURES / "uploads" / "nccl-allreduce-1node.txt").read_bytes()
    a100 = GPUModelFactory(key="A100-SXM4-40GB", name="NVIDIA A100 SXM4 40GB", hbm_gb=40.0)
    offering = OfferingFactory(gpu=a100)
    run = process(offering, targz({"results/nccl/all_reduce_1n.log": log}), owner=UserFactory())
    assert run.status == "done" and run.indicators["collective_bandwidth"].get("intra_node")
    page = page_in(client, run.owner, f"/benchmarks/acceptance/{run.pk}/", "zh-hans")
    basis = page.split('id="bandwidth-basis">')[1].split("</p>")[0]
    assert "作业。" in basis and "单节点内：" in basis and "（无法判断）。" in basis, basis
    assert ". " not in basis and " (" not in basis and ")." not in basis, basis
    assert "作业。宣称线速" in basis and "GB/s。单节点内" in basis and not re.search(r"。\s", basis), basis
    english = page_in(client, run.owner, f"/benchmarks/acceptance/{run.pk}/", "en")
    basis = english.split('id="bandwidth-basis">')[1].split("</p>")[0]
    assert "nccl-tests jobs. Claimed line rate" in basis and "per node. Inside one node: " in basis, basis
    assert basis.endswith(").")
