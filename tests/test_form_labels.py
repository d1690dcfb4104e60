"""Every Django form's label ends in the page's colon: Django adds `_(":")` (label_suffix), which our catalog
translates to the full-width "：" on Chinese pages; English keeps ":"."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from tests.providers.factories import UserFactory

pytestmark = pytest.mark.django_db


def labels(language: str) -> list[str]:
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    client.force_login(UserFactory())
    html = client.get("/benchmarks/acceptance/").content.decode()
    return re.findall(r'<label for="id_[^"]*">([^<]*)</label>', html)


def test_a_chinese_form_labels_end_in_a_full_width_colon() -> None:
    shown = labels("zh-hans")
    assert "产品：" in shown and "节点数：" in shown
    assert shown and all(label.endswith("：") for label in shown), shown


def test_an_english_form_labels_end_in_a_colon() -> None:
    shown = labels("en")
    assert "Offering:" in shown and "Nodes:" in shown
    assert all(label.endswith(":") and not label.endswith("：") for label in shown), shown
