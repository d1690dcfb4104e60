"""Long offering names on the compare charts: wrapped whole, and each row tall enough for its label."""

from __future__ import annotations

from typing import Any

import pytest

from compare.charts.common import LABEL_LINE, LABEL_LINE_PX, bar_height, offering_bar_height, wrap
from tests.compare import helpers
from tests.providers.factories import ProviderFactory

LONG_NAME = (
    "PAI Lingjun intelligent computing resources (e.g. ml.gu7xf.c96m1600.8-gu108, ml.gu7ef.c96m1600.8-gu100, "
    "ml.gu8xf.8xlarge-gu108)"
)


def test_a_chinese_character_counts_twice_when_a_label_wraps() -> None:
    lines = wrap("阿里云 · Alibaba Cloud PAI Lingjun (灵骏智算): 灵骏智算资源").split("<br>")
    for line in lines:
        wide = sum(1 for ch in line if ord(ch) > 0x2E80)
        assert len(line) + wide <= LABEL_LINE or " " not in line


def test_a_row_is_as_tall_as_its_wrapped_label() -> None:
    labels = [wrap("Short: one"), wrap("Alibaba Cloud: " + LONG_NAME)]
    lines = labels[1].count("<br>") + 1
    assert lines >= 5
    assert bar_height(2, 40) == 150 + 2 * 40  # short labels keep the chart's own row height
    assert bar_height(2, 40, labels) >= 150 + 2 * LABEL_LINE_PX * lines


@pytest.mark.django_db
def test_the_full_bill_chart_grows_with_a_long_offering_name(client: Any) -> None:
    short = helpers.offering(slug="short-one", name="H100", provider=ProviderFactory(name="Short Cloud"))
    long = helpers.offering(slug="long-one", name=LONG_NAME, provider=ProviderFactory(name="Alibaba Cloud"))
    assert offering_bar_height([short], 40) == 150 + 40
    assert offering_bar_height([short, long], 40) > 150 + 2 * 40 * 2


def test_a_stacked_count_chart_grows_with_its_wrapped_labels() -> None:
    from compare.charts.common import stacked_counts_figure

    long_label = wrap("Alibaba Cloud: " + LONG_NAME)
    traces = [{"type": "bar", "orientation": "h", "x": [1, 2], "y": [wrap("Short: one"), long_label]}]
    figure = stacked_counts_figure(traces, 2, 34, "findings")
    assert figure["layout"]["height"] >= 150 + 2 * LABEL_LINE_PX * (long_label.count("<br>") + 1)


def test_a_table_of_words_may_be_put_under_its_chart() -> None:
    from compare.charts.common import table

    assert table("t", ["a", "b", "c", "d"], [])["wide"] is False
    assert table("t", ["a", "b", "c", "d"], [], wide=True)["wide"] is True
