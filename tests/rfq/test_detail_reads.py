"""The request-for-quote detail (page and API) builds its map of the answers in force once per request:
the side-by-side table and the comparison read the same map."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from rest_framework.test import APIClient

from rfq import selectors
from tests.rfq.test_api import _answer, _send

pytestmark = pytest.mark.django_db


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Every build of the answers-in-force map, by the request's id."""
    seen: list[int] = []
    build = selectors.latest_answers

    def counted(*, rfq: Any) -> Any:
        seen.append(rfq.pk)
        return build(rfq=rfq)

    monkeypatch.setattr(selectors, "latest_answers", counted)
    return seen


def test_the_page_and_the_api_build_the_answers_map_once(world: dict[str, Any], calls: list[int]) -> None:
    rfq_id = _send(world).json()["id"]
    assert _answer(world, rfq_id).status_code == 201
    assert _answer(world, rfq_id, rep="slow_rep", offering="slow-eth", facts={}).status_code == 201
    calls.clear()
    page = Client()
    page.force_login(world["buyer"])
    response = page.get(f"/rfqs/{rfq_id}/")
    body = response.content.decode()
    assert response.status_code == 200 and 'id="side-by-side"' in body and 'id="comparison"' in body
    assert calls == [rfq_id]
    calls.clear()
    api = APIClient()
    api.force_authenticate(world["buyer"])
    data = api.get(f"/api/v1/rfqs/{rfq_id}/").json()
    assert len(data["comparison"]["results"]) == 2
    assert calls == [rfq_id]
