"""The request-for-quote services' refusals on a page: in the page's language, an answered fact's on its
field (by its label, never its key); the API keeps their English."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.messages import get_messages

from rfq import services
from rfq.models import Answer, RequestForQuote
from tests.rfq.test_pages import _answer_post, _login, _send

pytestmark = pytest.mark.django_db


def test_too_many_questions_are_refused_in_chinese_on_the_questions_field(demo: dict[str, Any]) -> None:
    buyer = _login("demo-buyer")
    buyer.defaults["HTTP_ACCEPT_LANGUAGE"] = "zh-hans"
    data = {"workload": "p:13b", "gpus": "64", "offerings": ["nebius-h100"], "questions": "why?\n" * 21}
    html = buyer.post("/rfqs/new/", data).content.decode()
    assert "最多 20 个问题，实际为 21 个" in html and "questions, got" not in html
    assert not RequestForQuote.objects.exists()


def test_a_proposal_the_planner_cannot_size_names_the_facts_by_their_labels(
    demo: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    rfq = _send(_login("demo-buyer"))
    rep = _login("demo-provider")
    rep.defaults["HTTP_ACCEPT_LANGUAGE"] = "zh-hans"

    def overflow(**_kwargs: Any) -> None:
        raise OverflowError("a value far outside what the model covers")

    monkeypatch.setattr(services, "answer_size", overflow)
    html = rep.post(
        f"/rfqs/{rfq.pk}/answer/nebius-h100/", _answer_post(fact_nics_per_node="8")
    ).content.decode()
    labels = "每节点 GPU 网络网卡数、可用 GPU 保证"  # the answered facts by their labels
    assert f"规划器无法按这些数值测算此报价方案（{labels}）：请检查其单位" in html
    errors = html.split('class="errors"')[1].split("</div>")[0]
    assert "nics_per_node" not in errors and "cannot size" not in html
    assert not Answer.objects.exists()


def test_no_fitting_proposal_is_said_in_chinese_on_the_request_page(demo: dict[str, Any]) -> None:
    buyer = _login("demo-buyer")
    rfq = _send(buyer)
    buyer.defaults["HTTP_ACCEPT_LANGUAGE"] = "zh-hans"
    response = buyer.post(f"/rfqs/{rfq.pk}/quote/")
    *_sent, message = [str(m) for m in get_messages(response.wsgi_request)]
    assert message == "无法生成报价单：在所询的 GPU 数量下，没有任何已答复的报价方案能容纳该工作负载"
    api = _login("demo-buyer")
    answer = api.post(f"/api/v1/rfqs/{rfq.pk}/quote/", content_type="application/json")
    if answer.status_code == 400:  # the API's refusal keeps its English
        assert "no answered proposal fits the workload at the GPU count asked" in answer.content.decode()
