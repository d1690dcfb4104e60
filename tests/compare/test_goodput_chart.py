"""The goodput chart's two axes (goodput, GPU-hours lost) on a laptop and at a phone's 390 px: their titles
never meet. On a laptop the panels stand side by side with a gap; on a phone (compare.js applies the
figure's `narrow`) they are stacked, each with its own y axis, so each title has the screen's width."""

from __future__ import annotations

from typing import Any

import pytest
from django.utils import translation

from compare import sized
from compare.charts import goodput_panel
from sizing.models import Workload
from sizing.services import preset_fields
from tests.compare import helpers
from tests.compare.two_panels import assert_side_by_side, assert_stacked


@pytest.fixture
def figure(db: Any) -> dict[str, Any]:
    offerings = [o for o in helpers.small_catalog() if o.slug in ("good-ib", "cheap-eth", "roce-mid")]
    workload = Workload(name="llama3-70b", preset="llama3-70b", **preset_fields("llama3-70b"))
    results = sized.compared_results(offerings=offerings, workload=workload, gpus=64)
    return goodput_panel(offerings, results, "Llama 3 70B")["figure"]


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_the_note_names_the_lost_hours_panel_by_its_title_true_beside_or_below(
    db: Any, language: str
) -> None:
    # a phone stacks the panels, so "right" would be false there: the note names the panel as both draw it
    with translation.override(language):
        offerings = [o for o in helpers.small_catalog() if o.slug in ("good-ib", "cheap-eth")]
        workload = Workload(name="llama3-70b", preset="llama3-70b", **preset_fields("llama3-70b"))
        results = sized.compared_results(offerings=offerings, workload=workload, gpus=64)
        drawn = goodput_panel(offerings, results, "Llama 3 70B")
    title = drawn["figure"]["layout"]["xaxis2"]["title"]["text"]
    assert title == drawn["figure"]["narrow"]["layout"]["xaxis2"]["title"]["text"]
    assert f"“{title}”" in drawn["note"]
    positions = ("Right", "right", "Left", "below", "右侧", "左侧", "下方")
    assert not any(word in drawn["note"] for word in positions)


def test_on_a_laptop_the_two_panels_stand_apart_on_one_row(figure: dict[str, Any]) -> None:
    assert_side_by_side(figure)
    assert [trace.get("yaxis", "y") for trace in figure["data"]] == ["y", "y"]


def test_on_a_phone_the_two_panels_are_stacked_each_with_its_own_row_of_bars(figure: dict[str, Any]) -> None:
    goodput, lost = assert_stacked(figure)
    # the trace drawn on the lost-hours axis moves to the lower row; the goodput bars stay
    assert [trace["xaxis"] for trace in figure["data"]] == ["x", "x2"]
    assert figure["narrow"]["data"] == [{}, {"yaxis": "y2"}]
    # ticks few enough to stand upright in a panel a phone's width
    assert goodput["nticks"] <= 6 and lost["nticks"] <= 4


def test_the_hover_names_no_source_file(figure: dict[str, Any]) -> None:
    # a buyer reads where the figure comes from in words, never a path into our code
    hovers = [text for trace in figure["data"] for text in trace.get("hovertext") or trace.get("text") or []]
    assert hovers
    assert not any(".py" in str(text) or "sizing/engine" in str(text) for text in hovers)
    assert any("failures, checkpoints and restarts" in str(text) for text in hovers)
