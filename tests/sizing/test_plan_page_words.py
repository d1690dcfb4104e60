"""The planner's lead sentence and the link to a buyer's workloads after it, written as the page's language
writes sentences in a row: a space in English, none after "。" in Chinese."""

from __future__ import annotations

import pytest
from django.test import Client

from tests.pages import page_in
from tests.providers.factories import UserFactory

pytestmark = pytest.mark.django_db


def _lead(page: str) -> str:
    return page.split('<p class="lead">')[1].split("</p>")[0]


@pytest.mark.parametrize(
    ("language", "joint"),
    [
        ("en", 'and ranks them. <a href="/plan/workloads/">Your workloads and runs</a>'),
        ("zh-hans", '。<a href="/plan/workloads/">'),
    ],
)
def test_the_link_after_the_lead_sentence_follows_the_pages_sentence_spacing(
    client: Client, language: str, joint: str
) -> None:
    lead = _lead(page_in(client, UserFactory(), "/plan/", language))
    assert joint in lead and "。 " not in lead, lead
