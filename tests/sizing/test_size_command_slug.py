"""`manage.py size --offering SLUG`: a slug written in capitals is the catalog's lowercase slug."""

from __future__ import annotations

import pytest

from sizing.management.commands.size import resolve_offering
from tests.providers.factories import OfferingFactory

pytestmark = pytest.mark.django_db


def test_a_slug_in_capitals_is_the_catalog_slug() -> None:
    offering = OfferingFactory(slug="azure-nd-h100-v5")
    assert resolve_offering("Azure-ND-H100-v5") == resolve_offering("azure-nd-h100-v5") == offering.facts()


def test_an_unknown_slug_stays_unknown_in_any_case() -> None:
    OfferingFactory(slug="azure-nd-h100-v5")
    with pytest.raises(KeyError):
        resolve_offering("Azure-ND-H200-v5")
