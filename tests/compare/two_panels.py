"""What every two-panel compare chart holds to (compare/charts/two_panels.py): on a laptop its two value axes
side by side with a gap between their titles; on a phone (the figure's `narrow`, applied by compare.js)
stacked, each the screen's width, the second panel's bars on their own y axis below the first's."""

from __future__ import annotations

from typing import Any


def assert_titled(axis: dict[str, Any]) -> None:
    """An axis whose title is kept off its tick labels and whose margin grows to hold both."""
    assert axis["automargin"] is True
    assert axis["title"]["text"] and axis["title"]["standoff"] > 0


def assert_side_by_side(figure: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The laptop's layout; its two value axes (x, x2)."""
    layout = figure["layout"]
    first, second = layout["xaxis"], layout["xaxis2"]
    assert first["anchor"] == second["anchor"] == "y"  # one row of bars, two value axes
    assert second["domain"][0] - first["domain"][1] >= 0.15, "a gap between the two titles"
    for axis in (first, second):
        assert_titled(axis)
    assert {trace.get("yaxis", "y") for trace in figure["data"]} == {"y"}
    return first, second


def assert_stacked(figure: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The phone's layout; its two value axes (x, x2), each as wide as the screen, on a row of bars each."""
    narrow = figure["narrow"]
    layout = narrow["layout"]
    first, second = layout["xaxis"], layout["xaxis2"]
    assert first["domain"] == second["domain"] == [0, 1]  # each as wide as the screen
    assert (first["anchor"], second["anchor"]) == ("y", "y2")
    above, below = layout["yaxis"]["domain"], layout["yaxis2"]["domain"]
    assert above[0] - below[1] >= 0.05, "room under the upper bars for their ticks and title"
    for axis in (first, second):
        assert_titled(axis)
    for y in (layout["yaxis"], layout["yaxis2"]):
        assert y["type"] == "category" and y["automargin"] is True and y["autorange"] == "reversed"
    # every trace drawn on the second value axis moves to the lower row; the others stay
    moved = [{"yaxis": "y2"} if trace["xaxis"] == "x2" else {} for trace in figure["data"]]
    assert narrow["data"] == moved
    return first, second
