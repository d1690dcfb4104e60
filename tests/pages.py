"""A page as one user reads it in one language (the language switcher's cookie), for the tests of pages."""

from __future__ import annotations

from typing import Any

from django.test import Client


def page_in(client: Client, user: Any, url: str, language: str) -> str:
    """The HTML of `url` for `user` in `language` ("en", "zh-hans"); it must answer 200."""
    client.force_login(user)
    client.cookies["django_language"] = language
    response = client.get(url)
    assert response.status_code == 200, response.status_code
    return response.content.decode()
