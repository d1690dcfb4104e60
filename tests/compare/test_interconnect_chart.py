"""The interconnect chart's two axes (inside a node, across nodes) on a laptop and at a phone's 390 px: their
titles never meet. As the goodput chart: side by side with a gap on a laptop; on a phone (compare.js applies
the figure's `narrow`) stacked, the inter-node bars on their own y axis, so each title has the screen's
width."""

from __future__ import annotations

from typing import Any

import pytest

from compare.charts import interconnect_panel
from tests.compare import helpers
from tests.compare.two_panels import assert_side_by_side, assert_stacked


@pytest.fixture
def figure(db: Any) -> dict[str, Any]:
    offerings = [o for o in helpers.small_catalog() if o.slug in ("good-ib", "cheap-eth", "roce-mid")]
    uploads = [helpers.public_upload(offerings[0])]
    return interconnect_panel(offerings, uploads)["figure"]


def test_on_a_laptop_the_two_panels_stand_apart_on_one_row(figure: dict[str, Any]) -> None:
    assert_side_by_side(figure)
    assert [trace["xaxis"] for trace in figure["data"]] == ["x", "x", "x2", "x2"]  # inside, then across


def test_on_a_phone_the_two_panels_are_stacked_each_with_its_own_row_of_bars(figure: dict[str, Any]) -> None:
    intra, inter = assert_stacked(figure)
    # the claimed and measured bars across nodes move to the lower row; those inside a node stay
    assert figure["narrow"]["data"] == [{}, {}, {"yaxis": "y2"}, {"yaxis": "y2"}]
    # each axis keeps the laptop's range
    assert intra["range"] == figure["layout"]["xaxis"]["range"]
    assert inter["range"] == figure["layout"]["xaxis2"]["range"]
