"""Defects of the `size` contract found by a property probe of the CLI entry point (sizing.engine.cli.main)
over presets, parameter-count, dense and MoE workloads, every GPU, fabric and topology, given layouts and
searches; one test each, every one failing before its fix."""

from __future__ import annotations

import io
import json
from typing import Any

from sizing.engine import search
from sizing.engine.cli import main


def _cli(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(argv, stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def test_a_search_with_no_alternatives_asked_still_answers_and_names_the_model_best(
    h100_ib: dict[str, Any],
) -> None:
    """`--top 0` raised IndexError (exit 1, a traceback) whenever the node-first rule replaced the model's own
    best: the rule's record reads the model's best from the alternatives, which `top` had cut to none."""
    facts = {**h100_ib, "nodes": 128}
    full = search("gpt3-175b", facts, top=3)
    assert full["search"]["selection"]["rule"] == "node-first"  # the case: the rule applies
    argv = ["--workload", "gpt3-175b", "--offering", json.dumps(facts), "--top", "0", "--json"]
    code, out, err = _cli(argv)
    assert code == 0, err
    res = json.loads(out)
    assert res["alternatives"] == []
    assert res["layout"] == full["layout"]
    assert res["search"]["selection"]["model_best"] == full["search"]["selection"]["model_best"]
    assert res["explanation"][-1] == full["explanation"][-1]


def test_a_search_with_no_alternatives_asked_does_not_say_there_is_no_other_layout(
    h100_ib: dict[str, Any],
) -> None:
    """With `top` 0 the explanation said "No other feasible layout was found." while thousands were feasible:
    the runner-up is compared whether or not it is listed."""
    full = search("13b", h100_ib, top=1)
    none_listed = search("13b", h100_ib, top=0)
    assert "search" in full and full["search"]["feasible"] > 1 and "selection" not in full["search"]
    assert none_listed["alternatives"] == []
    assert none_listed["explanation"][-1] == full["explanation"][-1]
    assert "No other feasible layout" not in none_listed["explanation"][-1]
