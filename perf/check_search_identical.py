"""The engine's answers before and after an engine change, compared byte for byte.

For every offering of the demo catalog (providers/demo/catalog.yaml, read through `Offering.facts` as the
planner reads it) and several workloads (PRESETS below: dense 13B to 405B and a MoE), objectives
(fastest, cheapest, cheapest within a loose and within a tight deadline) and GPU counts (free: the node
ladder; fixed: FIXED_GPUS), it records the canonical JSON of `sizing.engine.search(...)` with
`search.seconds` removed, and of `sizing.engine.api.evaluate(...)` of each answer's layout with every
assumed fact at its pessimistic value (what the planner's pessimistic column asks). Errors are recorded as
their field and reason.

    .venv/bin/python perf/check_search_identical.py --record /tmp/search-before.json --code /tmp/base
    .venv/bin/python perf/check_search_identical.py --compare /tmp/search-before.json

`--code DIR` runs another checkout's engine (e.g. `git archive main | tar -x -C DIR`); the catalog is read
into a throw-away SQLite database. Exit 1 when any answer differs; prints the first differences.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
PRESETS = ("13b", "llama3-70b", "gpt3-175b", "llama3-405b", "deepseek-v3-671b")
# (objective, deadline in days): the loose deadline is the planner's default (sizing.services), the tight
# one makes most searches fall back to the fastest layout (search._fastest_instead)
OBJECTIVES = (("fastest", None), ("cheapest", None), ("cheapest-within-deadline", 90.0),
              ("cheapest-within-deadline", 3.0))  # fmt: skip
FIXED_GPUS = (None, 64, 512)


def _setup(code: Path, db: Path) -> None:
    os.chdir(code)  # the settings put the working directory first on sys.path
    sys.path.insert(0, str(code))
    os.environ["DATABASE_URL"] = f"sqlite:///{db}"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "portal.settings")
    os.environ.setdefault("DJANGO_SECRET_KEY", "check-search-only")
    import django

    django.setup()


def demo_facts(code: Path) -> list[dict[str, Any]]:
    from django.core.management import call_command

    from providers.catalog import catalog_import, read_catalog_file
    from providers.selectors import offering_queryset
    from providers.services import gpu_table_sync

    call_command("migrate", verbosity=0)
    gpu_table_sync()
    catalog_import(data=read_catalog_file(code / "providers" / "demo" / "catalog.yaml"))
    return [o.facts() for o in offering_queryset().order_by("slug")]


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=str, separators=(",", ":"))


def _pessimistic(workload: str, facts: dict[str, Any], answer: dict[str, Any]) -> Any:
    from hardware.norms import Assumed
    from sizing.engine.api import evaluate
    from sizing.engine.errors import InputError
    from sizing.engine.unpublished import pessimistic_facts

    if not answer.get("layout") or not answer.get("gpus"):
        return None
    assumed = [Assumed(**a) for a in answer.get("assumed_facts") or [] if a.get("fact") != "max_nodes"]
    worse = pessimistic_facts(facts, assumed) or facts
    try:
        return evaluate(workload, worse, answer["layout"], gpus=answer["gpus"])
    except InputError as exc:
        return {"error": [exc.field, exc.reason]}


def answers(facts_list: list[dict[str, Any]]) -> dict[str, str]:
    from sizing.engine.errors import InputError
    from sizing.engine.search import search

    out: dict[str, str] = {}
    for preset in PRESETS:
        for facts in facts_list:
            for objective, deadline in OBJECTIVES:
                for gpus in FIXED_GPUS:
                    key = f"{preset}|{facts['slug']}|{objective}|{deadline}|{gpus}"
                    try:
                        answer = search(preset, facts, objective=objective, gpus=gpus, deadline_days=deadline,
                                        top=3)  # fmt: skip
                        answer.get("search", {}).pop("seconds", None)
                        worse = _pessimistic(preset, facts, answer)
                    except InputError as exc:
                        answer, worse = {"error": [exc.field, exc.reason]}, None
                    out[key] = _canonical({"search": answer, "pessimistic": worse})
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--record", type=Path)
    mode.add_argument("--compare", type=Path)
    parser.add_argument("--code", type=Path, default=ROOT, help="checkout whose engine runs")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        _setup(args.code.resolve(), Path(tmp) / "catalog.sqlite3")
        facts_list = demo_facts(args.code.resolve())
        started = time.process_time()
        got = answers(facts_list)
        cpu = time.process_time() - started
    digest = hashlib.sha256("".join(got[k] for k in sorted(got)).encode()).hexdigest()
    summary = {"answers": len(got), "offerings": len(facts_list), "cpu_s": round(cpu, 1), "sha256": digest}
    if args.record:
        args.record.write_text(json.dumps({"summary": summary, "answers": got}))
        print(json.dumps(summary))
        return
    before = json.loads(args.compare.read_text())["answers"]
    differ = sorted(k for k in set(before) | set(got) if before.get(k) != got.get(k))
    print(json.dumps({**summary, "before_answers": len(before), "differ": len(differ), "first": differ[:10]}))
    sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()
