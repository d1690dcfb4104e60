"""A training time reads the same wherever the buyer meets it: the planner's table, the result page, the
sentence above a plan, the deadline pitfall, the no-fault-tolerance finding, the quote and the compare table
all round one place half up from the model's figure. Before, the table rounded 272.45 days to 272.5 (Django's
floatformat) while the pitfall beside it said 272.4 (Python's float format)."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from django.template import Context, Template
from django.utils import translation

from hardware.numbers import days_text, days_value
from tests.checks.helpers import good_offering, sizing_result
from tests.plan_results import plan_result

# 100.25 and 272.45: a figure whose second place is a 5 (100.25 is exact in binary, so Python's own format
# rounds it to even, "100.2"; 272.45 is a hair below in binary, "272.4").
HALVES = ((100.25, "100.3"), (272.45, "272.5"), (41.26, "41.3"), (90.0, "90.0"), (1234.56, "1,234.6"))


@pytest.mark.parametrize(("days", "text"), HALVES)
def test_days_are_rounded_half_up_from_the_figure_given(days: float, text: str) -> None:
    assert days_text(days) == text
    assert days_text(str(days)) == text
    assert days_value(days) == Decimal(text.replace(",", ""))


@pytest.mark.parametrize("nothing", [None, "", "many", float("inf"), float("nan"), True])
def test_no_figure_is_a_dash(nothing: object) -> None:
    assert days_text(nothing) == "—"
    assert days_value(nothing) is None


@pytest.mark.parametrize(("days", "text"), HALVES)
def test_the_template_filter_is_the_same_figure(days: float, text: str) -> None:
    rendered = Template("{% load units %}{{ d|days }}|{{ missing|days }}").render(Context({"d": days}))
    assert rendered == f"{text}|—"


def _deadline_finding(days: float, deadline: float) -> Any:
    from checks.rules import run_rules

    with translation.override("en"):
        [finding] = run_rules(
            good_offering(),
            sizing=sizing_result(train_days=days),
            workload={"params": 70e9, "tokens": 1e12, "deadline_days": deadline},
            codes=["deadline-missed"],
        )
    return finding


@pytest.mark.parametrize(
    ("days", "deadline", "shown", "late"),
    [(272.45, 90, "272.5", "182.5"), (100.25, 90, "100.3", "10.3"), (100.25, 90.25, "100.3", "10.1")],
)
def test_the_deadline_pitfall_names_the_table_figure_and_the_difference_of_the_shown_figures(
    days: float, deadline: float, shown: str, late: str
) -> None:
    finding = _deadline_finding(days, deadline)
    assert finding.title == f"Training takes {shown} days, the deadline is {deadline:g}"
    assert str(finding.impact["text"]) == f"{late} days late."
    assert finding.impact["days_over"] == float(late)
    assert finding.evidence[0].text == f"train_days = {shown}"
    assert finding.evidence[0].value == days  # the cited model number keeps every digit


def test_the_plan_sentence_and_the_pessimistic_sentence_use_the_same_figure() -> None:
    from sizing.summary import pessimistic_sentence, winner_sentence

    result = plan_result(
        sizing={"offering": {}, "deadline_days": 90, "meets_deadline": False},
        train_days=100.25,
        cost_total_usd=None,
        cost_complete=True,
        pessimistic={"train_days": 272.45, "feasible": True, "facts": {}},
    )
    with translation.override("en"):
        assert ": 100.3 days" in winner_sentence("70b", result)
        assert "takes 272.5 days instead of 100.3" in pessimistic_sentence(result)


def test_the_quote_headline_uses_the_same_figure() -> None:
    from quotes.display import _headline

    with translation.override("en"):
        rows = dict(
            _headline({"sizing": {"train_days": 100.25, "train_days_no_failures": 272.45}, "bill": {}})
        )
    assert rows["Training time"] == "100.3 days (with failures)"
    assert rows["Without failures"] == "272.5 days"


# The ends of a days range: whole days from 10 up, one place from 1, two significant figures below, rounded
# half up (4.25 is exact in binary: Python's own format wrote "4.2" in the accuracy sentence before).
RANGE_ENDS = (
    (33.46, "33"),
    (33.5, "34"),
    (1234.5, "1,235"),
    (4.25, "4.3"),
    (9.96, "10"),
    (0.0045, "0.0045"),
    (0.01234, "0.012"),
    (None, "—"),
)


@pytest.mark.parametrize(("days", "text"), RANGE_ENDS)
def test_a_range_end_reads_the_same_in_the_sentence_and_on_the_run_page(days: Any, text: str) -> None:
    from hardware.numbers import about_days_text
    from sizing.engine.accuracy import accuracy_sentence

    assert about_days_text(days) == text
    assert Template("{% load units %}{{ d|about_days }}").render(Context({"d": days})) == text
    if days is not None:
        figures = {
            "kind": "dense",
            "published_runs": 10,
            "mean_abs_error": 0.1,
            "time_ratio_low": 0.9,
            "time_ratio_high": 1.1,
            "train_days_low": days,
            "train_days_high": days,
        }
        assert f"about {text} to {text} days" in str(accuracy_sentence(figures))
