"""The quote's headline figures and cost chart: the cost chart is drawn only when a line has a price above
zero, and a derived figure is shown in cents (fen) like the planner's result page."""

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


def test_a_yuan_quotes_cost_per_useful_gpu_hour_is_in_fen_like_the_result_page() -> None:
    """A quote issued in yuan showed "¥33.32110936 per useful GPU-hour" (every digit of the conversion)."""
    from quotes.display import quote_view

    fx = {"currency": "CNY", "per_usd": "7.1884", "as_of": "2024-12-31", "source_name": "CFETS"}
    bill = {"lines": [{"item": "compute", "usd": "1000.00"}], "total_usd": "1000.00", "complete": True}
    bill["usd_per_useful_gpu_hour"] = "4.6354"
    view = quote_view({"bill": bill, "sizing": {}, "fx": fx})
    assert view["per_useful_gpu_hour"] == "¥33.32"
    usd_view = quote_view({"bill": bill, "sizing": {}})
    assert usd_view["per_useful_gpu_hour"] == "$4.64"


def test_a_converted_unit_price_keeps_four_decimals_not_every_digit_of_the_rate() -> None:
    """A yuan quote priced checkpoint storage at "¥0.46868368" and a GPU-hour at "¥28.03476"."""
    from decimal import Decimal

    from portal.money import Money

    yuan = Money(code="CNY", per_usd=Decimal("7.1884"))
    assert yuan.text("0.0652", None) == "¥0.4687"
    assert yuan.text("3.90", None) == "¥28.0348"
    assert yuan.text("0.00002", None) == "¥0.000144"  # below a cent: three significant digits
    assert yuan.text("0", None) == "¥0.00"
    dollars = Money(code="USD")
    assert dollars.text("0.0652", None) == "$0.0652" and dollars.text("0.00002", None) == "$0.00002"
