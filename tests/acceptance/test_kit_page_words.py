"""The kit form's refusals (a node count past the offering's size, an offering without GPUs per node): the
API and the command keep the English, the kit page says it in its own language."""

from __future__ import annotations

import pytest
from django.test import Client

from tests.providers.factories import OfferingFactory

pytestmark = pytest.mark.django_db


def _kit_errors(client: Client, language: str, **params: object) -> str:
    client.cookies["django_language"] = language
    page = client.get("/benchmarks/acceptance/", {"scheduler": "slurm", **params})
    assert page.status_code == 400
    return page.content.decode().split('id="kit"')[1].split("</section>")[0]


@pytest.mark.parametrize(
    ("language", "words"),
    [
        ("en", "nodes must be a whole number from 1 to 16 for this offering."),
        ("zh-hans", "对此产品，节点数必须是 1 到 16 之间的整数。"),
    ],
)
def test_a_node_count_past_the_offering_is_refused_in_the_pages_language(
    client: Client, language: str, words: str
) -> None:
    offering = OfferingFactory(max_nodes=16)
    assert words in _kit_errors(client, language, offering=offering.slug, nodes=17)


def test_an_offering_without_gpus_per_node_is_refused_in_chinese(client: Client) -> None:
    offering = OfferingFactory(gpus_per_node=None)
    section = _kit_errors(client, "zh-hans", offering=offering.slug, nodes=2)
    assert "该产品未公布每节点 GPU 数，无法生成测试套件。" in section and "publish" not in section


def test_the_api_keeps_the_english(client: Client) -> None:
    offering = OfferingFactory(max_nodes=16)
    body = client.get(
        "/api/v1/acceptance/kit/",
        {"offering": offering.slug, "nodes": 17, "scheduler": "slurm"},
        HTTP_ACCEPT_LANGUAGE="zh-hans",
    ).json()
    refusal = "nodes must be a whole number from 1 to 16 for this offering."
    assert body["extra"]["fields"]["nodes"] == [refusal]
