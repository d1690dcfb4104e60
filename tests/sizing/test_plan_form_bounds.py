"""The planner form's number inputs carry their bounds as min/max the browser can read: plain decimals."""

from __future__ import annotations

import re
from decimal import Decimal

import pytest
from django.test import Client

from sizing.forms import attribute_number
from sizing.models import WORKLOAD_BOUNDS
from tests.providers.factories import UserFactory

PLAIN_DECIMAL = re.compile(r"-?\d+(\.\d+)?")


def _input_bounds(page: str) -> dict[str, dict[str, str]]:
    """Each number input's min and max by the input's name, as the page writes them."""
    bounds: dict[str, dict[str, str]] = {}
    for tag in re.findall(r'<input type="number"[^>]*>', page):
        name = re.search(r'name="([^"]+)"', tag)
        assert name is not None, tag
        bounds[name.group(1)] = dict(re.findall(r'\b(min|max)="([^"]*)"', tag))
    return bounds


@pytest.mark.django_db
def test_the_plan_form_writes_its_bounds_as_plain_decimals(client: Client) -> None:
    client.force_login(UserFactory())
    bounds = _input_bounds(client.get("/plan/").content.decode())
    assert bounds["train_tokens"] == {"min": "1000000", "max": "400000000000000"}
    assert bounds["params"] == {"min": "1000000", "max": "20000000000000"}
    assert bounds["budget_usd"] == {"max": "100000000000"}
    assert bounds["sliding_window_layers"] == {"max": "1"}
    for name, bound in WORKLOAD_BOUNDS.items():
        if name not in bounds:
            continue  # a bound of the workload the form does not ask for
        for attribute, value in bounds[name].items():
            assert PLAIN_DECIMAL.fullmatch(value), (name, attribute, value)
            assert Decimal(value) == Decimal(repr(getattr(bound, f"{attribute}imum"))), (name, attribute)


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (4e14, "400000000000000"),
        (2, "2"),
        (0.5, "0.5"),
        (1e-5, "0.00001"),
        (1.5e-7, "0.00000015"),
        (-2.5, "-2.5"),
    ],
)
def test_a_bound_that_is_no_whole_number_stays_a_plain_decimal(value: float, text: str) -> None:
    assert attribute_number(value) == text
