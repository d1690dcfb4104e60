"""A value a buyer or a provider sent is quoted in a refusal as the pages quote input, “no'pe”, never as
Python writes it ('no\\'pe', "no'pe"): the planner's API, the findings API, a provider's fact edits, the
catalog import's checks and the `acceptance_kit` command."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.exceptions import ValidationError
from rest_framework.test import APIClient

from providers import services as providers_services
from tests.providers.factories import UserFactory

pytestmark = pytest.mark.django_db
TYPED = "no'pe"


def _api() -> APIClient:
    api = APIClient()
    api.force_authenticate(UserFactory())
    return api


def _python_quoted(text: str) -> bool:
    return repr(TYPED) in text or f"'{TYPED}'" in text


def test_the_planner_api_quotes_an_unknown_preset_as_typed() -> None:
    body = _api().post("/api/v1/workloads/", {"preset": TYPED}, format="json").json()
    [message] = body["extra"]["fields"]["preset"]
    assert message.startswith(f"unknown preset “{TYPED}” (known: ") and not _python_quoted(message)


def test_the_findings_api_quotes_an_unknown_offering_as_typed() -> None:
    response = _api().get("/api/v1/findings/", {"offering": "no-such-offering"})
    assert response.status_code == 400
    text = str(response.json())
    assert "no offering with slug “no-such-offering”" in text and "'no-such-offering'" not in text, text


@pytest.mark.parametrize(
    ("facts", "words"),
    [
        ({"fabric": TYPED}, f"“{TYPED}” is not one of"),
        ({"gpus_per_node": TYPED}, f"expected a number, got “{TYPED}”"),
        ({"bare_metal": TYPED}, f"expected true or false, got “{TYPED}”"),
    ],
)
def test_a_providers_bad_fact_is_quoted_as_typed(facts: dict[str, str], words: str) -> None:
    with pytest.raises(ValidationError) as caught:
        providers_services.facts_clean(facts)
    [message] = next(iter(caught.value.message_dict.values()))
    assert words in message and not _python_quoted(message), message


@pytest.mark.parametrize(
    ("mutate", "words"),
    [
        (lambda d: d.update(format="catalog-0"), "file: format: expected “clusterscout-catalog"),
        (lambda d: d["providers"][0].update(kind=TYPED), f"kind: “{TYPED}” is not one of"),
        (
            lambda d: d["providers"][0]["offerings"][0]["plans"][0].update(kind=TYPED),
            f"kind: “{TYPED}” is not",
        ),
        (
            lambda d: d["providers"][0]["offerings"][0]["plans"][0].update(granularity=TYPED),
            f"granularity: “{TYPED}” is not one of",
        ),
        (
            lambda d: d["providers"][0]["offerings"][0]["groups"]["network"].update(sources=[TYPED]),
            f"source “{TYPED}” is not in the provider's sources",
        ),
    ],
)
def test_the_catalog_import_quotes_a_bad_value_as_typed(mutate: Any, words: str) -> None:
    from providers.catalog import CatalogError, catalog_import
    from tests.providers.factories import GPUModelFactory, small_catalog

    GPUModelFactory()
    data = small_catalog()
    mutate(data)
    with pytest.raises(CatalogError) as caught:
        catalog_import(data=data)
    problems = [str(p) for p in caught.value.report.problems]
    assert any(words in p for p in problems) and not any(_python_quoted(p) for p in problems), problems


def test_the_acceptance_kit_command_quotes_an_unknown_offering_as_typed() -> None:
    from django.core.management import call_command
    from django.core.management.base import CommandError

    with pytest.raises(CommandError) as caught:
        call_command("acceptance_kit", TYPED, "--nodes", "2")
    assert f"no offering with slug “{TYPED}”" in str(caught.value) and not _python_quoted(str(caught.value))
