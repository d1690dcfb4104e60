"""The browse table's compare checkbox is named in the page's language, the offering as every page names it
(Offering.shown_title: "Provider: Offering", the colon "：" in Chinese)."""

from __future__ import annotations

import pytest
from django.test import Client

from tests.providers.factories import PlanFactory

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(("language", "label"), [("en", "compare {p}: {o}"), ("zh-hans", "比较 {p}：{o}")])
def test_the_compare_checkbox_is_named_in_the_pages_language(
    client: Client, language: str, label: str
) -> None:
    offering = PlanFactory().offering
    client.cookies["django_language"] = language
    page = client.get("/offerings/").content.decode()
    name = label.format(p=offering.provider.shown_name, o=offering.name)
    assert f'aria-label="{name}"' in page, page.split('name="offerings"')[1][:300]
