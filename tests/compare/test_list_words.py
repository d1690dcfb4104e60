"""Lists and labels that pages build when they are shown use the page's separators: the compare page's
unknown offerings and bill chart hover, the planner's and the request-for-quote's refusals naming unknown
offerings, a result's reasons, a quote's cited references (", " and ": " in English; "、" and "：" in
Chinese)."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.exceptions import ValidationError
from django.utils import translation

from compare import sized
from compare.charts import cost
from compare.selectors import offering_compare_list
from quotes.display import _cited
from rfq import services as rfq_services
from sizing import services as sizing_services
from sizing.input_errors import refusal_shown
from sizing.models import Workload, shown_reason
from sizing.services import preset_fields
from tests.compare import helpers
from tests.providers.factories import UserFactory

pytestmark = pytest.mark.django_db


def _refused(call: Any, **kwargs: Any) -> ValidationError:
    with pytest.raises(ValidationError) as caught:
        call(**kwargs)
    return caught.value


def test_the_compare_pages_unknown_offerings_are_listed_with_the_pages_separator() -> None:
    assert "nope, zilch" in _refused(offering_compare_list, slugs=["nope", "zilch"]).messages[0]
    with translation.override("zh-hans"):
        chinese = _refused(offering_compare_list, slugs=["nope", "zilch"]).messages[0]
    assert "nope、zilch" in chinese, chinese


def test_the_planners_unknown_offerings_keep_their_english_and_are_listed_in_chinese() -> None:
    user = UserFactory()
    workload = sizing_services.workload_create(owner=user, preset="13b")
    slugs = [f"nope-{i:02d}" for i in range(12)]
    exc = _refused(sizing_services.plan_run_create, owner=user, workload=workload, offering_slugs=slugs)
    english = ", ".join(slugs[:10]) + " (+2)"
    assert exc.message_dict == {"offerings": [f"unknown offering(s): {english}"]}  # the API's, as before
    with translation.override("zh-hans"):
        shown = refusal_shown(exc).message_dict["offerings"][0]
    assert "nope-00、nope-01" in shown and "nope-09 (+2)" in shown and ", " not in shown, shown


def test_the_rfqs_unknown_offerings_are_listed_in_the_pages_words() -> None:
    buyer = UserFactory()
    exc = _refused(
        rfq_services.rfq_create,
        buyer=buyer,
        offering_slugs=["nope", "zilch"],
        gpus=64,
        questions=[],
        preset="13b",
    )
    assert "nope, zilch" in exc.message_dict["offerings"][0]
    with translation.override("zh-hans"):
        shown = refusal_shown(exc).message_dict["offerings"][0]
    assert "nope、zilch" in shown, shown


def test_a_results_reasons_are_joined_by_the_pages_semicolon() -> None:
    sizing = {"reasons": ["first reason", "second reason"]}
    sizing["reason_messages"] = [{"msgid": "first reason"}, {"msgid": "second reason"}]
    assert shown_reason("first reason; second reason", sizing) == "first reason; second reason"
    with translation.override("zh-hans"):
        assert shown_reason("first reason; second reason", sizing) == "first reason；second reason"


def test_a_quotes_cited_references_are_listed_with_the_pages_separator() -> None:
    sources = [{"key": "a"}, {"key": "b"}]
    numbers = {"a": 1, "b": 3}
    assert _cited(sources, numbers) == "[1], [3]"
    with translation.override("zh-hans"):
        assert _cited(sources, numbers) == "[1]、[3]"


def test_the_bill_charts_hover_names_each_item_with_the_pages_colon() -> None:
    offerings = [o for o in helpers.small_catalog() if o.slug in ("plain-a", "good-ib")]
    workload = Workload(name="llama3-70b", preset="llama3-70b", **preset_fields("llama3-70b"))
    with translation.override("zh-hans"):
        results = sized.compared_results(offerings=offerings, workload=workload, gpus=64)
        panel = cost.cost_panel(offerings, {o.pk: results[o.pk] for o in offerings}, "Llama 3 70B")
    hovers = [text for trace in panel["figure"]["data"] for text in trace.get("hovertext") or []]
    assert hovers
    lines = [line for text in hovers for line in text.split("<br>")[1:]]
    assert not [line for line in lines if ": " in line], lines
