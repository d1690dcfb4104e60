"""The engine's answers remembered within one planner run (docs/PERFORMANCE.md "Planner").

`sizing.engine.search` and `evaluate` are pure: their answer depends only on their inputs (the workload, the
offering's facts, the objective, the GPU count, the layout). Many offerings of a catalog share a hardware
configuration and prices and differ only in their name (a provider's regions, resellers, copies), and the
pessimistic re-run of an answer often repeats an input, so a run asks the same question many times. The
memo keys each call by the canonical JSON of exactly those inputs, with the offering's identity (slug, name,
provider name: read by the engine only to label its answer) left out of the key and written into the
remembered answer's `offering` block on the way out. Answers are kept pickled (each caller gets its own
copy) and at most MAX_ENTRIES of them per worker process; errors are never remembered.
"""

from __future__ import annotations

import json
import pickle
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

# Facts that only name the offering. The engine copies slug and name into result["offering"] (the name
# falls back to the slug, then to the GPU) and reads neither for anything else; the provider's name it does
# not read at all (its kind it does: it stays in the key). tests/sizing/test_planner_memo.py checks a
# remembered answer against a fresh one for every offering of the demo catalog.
IDENTITY_FACTS = ("slug", "name", "provider")
# Distinct answers kept per worker process (an answer is ~10-50 KB pickled).
MAX_ENTRIES = 256


def _typed(value: Any) -> Any:
    """JSON for what json cannot write, with its type, so that values of two types never share a key."""
    return {"__type__": type(value).__name__, "value": str(value)}


def _key(function: Callable[..., Any], workload: dict[str, Any], facts: dict[str, Any], kwargs: Any) -> str:
    identity = {name: bool(facts.get(name)) for name in IDENTITY_FACTS}  # the name's fallback depends on it
    rest = {k: v for k, v in facts.items() if k not in IDENTITY_FACTS}
    return json.dumps(
        [f"{function.__module__}.{function.__qualname__}:{id(function)}", workload, rest, identity, kwargs],
        sort_keys=True,
        default=_typed,
        separators=(",", ":"),
    )


def _relabel(answer: dict[str, Any], facts: dict[str, Any]) -> dict[str, Any]:
    """The remembered answer with this offering's slug and name, as the engine writes them."""
    block = answer.get("offering")
    if isinstance(block, dict):
        block["slug"] = facts.get("slug")
        block["name"] = str(facts.get("name") or facts.get("slug") or block.get("gpu"))
    return answer


class EngineMemo:
    """The answers of one run's engine calls, within one worker process."""

    def __init__(self, scope: Any, max_entries: int = MAX_ENTRIES) -> None:
        self.scope = scope
        self.max_entries = max_entries
        self.entries: OrderedDict[str, bytes] = OrderedDict()
        self.hits = 0
        self.misses = 0

    def call(
        self,
        function: Callable[..., dict[str, Any]],
        workload: dict[str, Any],
        facts: dict[str, Any],
        **kwargs: Any,
    ) -> dict[str, Any]:
        """`function(workload, facts, **kwargs)`, or the answer it gave to the same inputs in this run."""
        key = _key(function, workload, facts, kwargs)
        stored = self.entries.get(key)
        if stored is not None:
            self.hits += 1
            self.entries.move_to_end(key)
            answer: dict[str, Any] = pickle.loads(stored)  # noqa: S301 - bytes this process pickled itself
            return _relabel(answer, facts)
        self.misses += 1
        answer = function(workload, facts, **kwargs)
        self.entries[key] = pickle.dumps(answer, protocol=pickle.HIGHEST_PROTOCOL)
        if len(self.entries) > self.max_entries:
            self.entries.popitem(last=False)
        return answer


_current: EngineMemo | None = None


def memo_for(scope: Any) -> EngineMemo:
    """The memo of `scope` (a run: its id and creation time, as ids can be reused); one run's at a time."""
    global _current
    if _current is None or _current.scope != scope:
        _current = EngineMemo(scope)
    return _current
