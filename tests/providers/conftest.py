"""Fixtures of the catalog tests."""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import FAST_HASHERS


@pytest.fixture(autouse=True)
def _fast_password_hasher(settings: Any) -> None:
    """The real hasher costs about 0.3 s per user made by UserFactory; most tests here make three or more
    (log-ins still check the password, with this hasher)."""
    settings.PASSWORD_HASHERS = FAST_HASHERS
