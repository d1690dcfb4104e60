"""Numbers in messages as a reader writes them: never Python's 1e+20, nor 21 digits."""

from __future__ import annotations

import pytest
from django.utils import translation

from hardware.numbers import number_text, value_text
from portal.i18n import translated_bound_error
from sizing.engine.bounds import check_offering_numbers
from sizing.engine.errors import InputError
from sizing.engine.workload import workload_from_dict
from sizing.models import WORKLOAD_BOUNDS


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (1e20, "1 × 10²⁰"),
        (-1e20, "-1 × 10²⁰"),
        (2.5e300, "2.5 × 10³⁰⁰"),
        (10**400, "1 × 10⁴⁰⁰"),
        (1.2345e17, "1.23 × 10¹⁷"),
        (2.1e-5, "2.1 × 10⁻⁵"),
        (4e14, "400,000,000,000,000"),
        (1600.0, "1,600"),
        (0.01, "0.01"),
        (0, "0"),
        (float("inf"), "inf"),
        # six places would round these: a refused share of 1.0000001 must not read "got 1"
        (1.0000001, "1.0000001"),
        (2.0000000000001, "2.0000000000001"),
        (1234.5678, "1,234.5678"),
    ],
)
def test_a_number_is_written_in_digits_or_as_a_power_of_ten(value: float, text: str) -> None:
    assert number_text(value) == text


def test_a_value_that_is_not_a_number_is_quoted_as_sent() -> None:
    assert value_text("relu") == "'relu'" and value_text(True) == "True" and value_text(3e20) == "3 × 10²⁰"


def test_a_bound_message_writes_a_huge_value_as_a_power_of_ten_in_both_languages() -> None:
    bound = WORKLOAD_BOUNDS["train_tokens"]
    english = bound.error(1e20)
    assert english is not None and english.endswith(", got 1 × 10²⁰") and "e+" not in english
    with translation.override("zh-hans"):
        chinese = translated_bound_error(bound, 1e20)
    assert chinese is not None and "1 × 10²⁰" in chinese and "e+" not in chinese, chinese


def test_the_engine_refuses_a_huge_offering_number_without_python_notation() -> None:
    with pytest.raises(InputError) as caught:
        check_offering_numbers({"gbps_per_nic": 1e300})
    assert str(caught.value).endswith("got 1 × 10³⁰⁰"), str(caught.value)


def test_the_engine_refuses_a_negative_parameter_count_without_python_notation() -> None:
    with pytest.raises(InputError) as caught:
        workload_from_dict({"params": -1e20})
    assert str(caught.value) == "workload.params: must be positive, got -1 × 10²⁰"


def test_a_refused_share_just_above_its_bound_is_not_printed_as_inside_it() -> None:
    with pytest.raises(InputError) as err:
        workload_from_dict(
            {"layers": 2, "hidden": 1024, "heads": 8, "ffn_hidden": 4096, "seq_len": 1024, "global_batch": 8}
            | {"train_tokens": 1e9, "sliding_window": 128, "sliding_window_layers": 1.0000001}
        )
    assert str(err.value).endswith("got 1.0000001")
