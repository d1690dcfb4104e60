"""Browser checks of a table marked `phone-cards` (static/css/site.css): labelled cards on a phone, a table on
a laptop."""

from __future__ import annotations

from typing import Any


def assert_cards(table: Any) -> None:
    """At phone width: no header row, and nothing to scroll sideways (each row is a card that wraps)."""
    assert table.locator("thead").is_hidden()
    scroll_width, client_width = table.evaluate("t => [t.scrollWidth, t.clientWidth]")
    assert scroll_width <= client_width, (scroll_width, client_width)


def assert_a_table_again(table: Any) -> None:
    """At laptop width: a table with its header row, the first cell under its heading."""
    assert table.locator("thead").is_visible()
    assert table.evaluate("t => getComputedStyle(t).display") == "table"
    head = table.locator("thead th").first.bounding_box()
    cell = table.locator("tbody td").first.bounding_box()
    assert head and cell and abs(head["x"] - cell["x"]) < 2, (head, cell)
