"""The comparison's "answer used" cell joins its terms in the page's punctuation: it read
"每 GPU 小时 $2.10, 3 周, 按月支付; 来源" on a Chinese page."""

from __future__ import annotations

from typing import Any

import pytest

from tests.rfq.test_pages import _answer_post, _login, _send

pytestmark = pytest.mark.django_db


def test_the_answer_used_reads_in_chinese_punctuation(demo: dict[str, Any]) -> None:
    buyer = _login("demo-buyer")
    rfq = _send(buyer)
    answered = _login("demo-provider").post(f"/rfqs/{rfq.pk}/answer/nebius-h100/", _answer_post())
    assert answered.status_code == 302
    chinese = buyer.get(f"/rfqs/{rfq.pk}/", HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "3 周、按月支付；<a" in chinese
    english = buyer.get(f"/rfqs/{rfq.pk}/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "3 weeks, Monthly; <a" in english
