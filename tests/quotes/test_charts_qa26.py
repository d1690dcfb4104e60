"""The quote's cost chart is drawn only when a line has a price above zero (a quote of an offering that
publishes no price had one zero bar on an axis from -1 to 1)."""

from __future__ import annotations

from quotes.charts import quote_charts


def _snapshot(lines: list[dict]) -> dict:
    return {"bill": {"lines": lines}, "sizing": {}}


def test_a_bill_of_unpriced_lines_and_zeros_draws_no_cost_chart() -> None:
    lines = [
        {"item": "compute", "usd": None},
        {"item": "checkpoint_storage", "usd": None},
        {"item": "dataset_storage", "usd": "0.00"},
    ]
    assert [c["key"] for c in quote_charts(_snapshot(lines))] == []


def test_a_bill_with_a_priced_line_keeps_its_zero_lines_on_the_chart() -> None:
    lines = [{"item": "compute", "usd": "1000.00"}, {"item": "dataset_storage", "usd": "0.00"}]
    charts = quote_charts(_snapshot(lines))
    assert [c["key"] for c in charts] == ["cost-by-item"]
    assert charts[0]["figure"]["data"][0]["x"] == [1000.0, 0.0]
