"""`size` command: DESIGN section 5 CLI contract. The Django management command is a thin wrapper:
`main(argv, resolve_offering=<slug -> facts dict>, stdout=...)`.

Exit 0 when it answered (an infeasible layout is an answer), 2 on bad input with one line
`error: <field>: <reason>` on stderr.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable
from typing import IO, Any

from hardware.messages import Msg, _
from hardware.numbers import value_text

from .accuracy import accuracy_sentence
from .api import evaluate
from .bounds import chosen
from .errors import InputError
from .search import OBJECTIVES, search
from .workload import PRESETS


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise InputError("arguments", Msg("%(message)s", message=message))  # argparse's own words


def _too_long(field: str) -> InputError:
    """A JSON integer longer than Python reads one (json raises ValueError, not JSONDecodeError)."""
    most = f"{sys.get_int_max_str_digits():,}"
    return InputError(field, _("invalid JSON: a number of more than %(most)s digits", most=most))


def _load(value: str, field: str) -> Any:
    """A JSON string starting with '{', a path to a JSON file, or None (not JSON, not a file)."""
    text = value.strip()
    if text.startswith("{"):
        try:
            return json.loads(text)
        except json.JSONDecodeError as e:
            raise InputError(
                field, _("invalid JSON: %(why)s at character %(pos)s", why=e.msg, pos=e.pos)
            ) from None
        except ValueError:
            raise _too_long(field) from None
    if os.path.isfile(value):
        try:
            with open(value, encoding="utf-8") as fh:
                return json.load(fh)
        except json.JSONDecodeError as e:
            raise InputError(
                field,
                _("invalid JSON in %(file)s: %(why)s at line %(line)s", file=value, why=e.msg, line=e.lineno),
            ) from None
        except UnicodeDecodeError:
            raise InputError(
                field, _("cannot read %(file)s: %(why)s", file=value, why=_("not UTF-8 text"))
            ) from None
        except ValueError:
            raise _too_long(field) from None
        except OSError as e:
            raise InputError(field, _("cannot read %(file)s: %(why)s", file=value, why=e.strerror)) from None
    return None


def _offering(value: str, resolve: Callable[[str], dict[str, Any]] | None) -> dict[str, Any]:
    loaded = _load(value, "offering")
    if loaded is not None:
        if not isinstance(loaded, dict):
            raise InputError("offering", _("must be a JSON object"))
        return loaded
    if resolve is None:
        raise InputError(
            "offering", _("unknown slug %(slug)s (no catalog available; pass a JSON file)", slug=repr(value))
        )
    try:
        facts = resolve(value)
    except KeyError:
        raise InputError("offering", _("unknown slug %(slug)s", slug=repr(value))) from None
    if not isinstance(facts, dict):
        raise InputError("offering", _("unknown slug %(slug)s", slug=repr(value)))
    return facts


def _workload(value: str) -> Any:
    loaded = _load(value, "workload")
    if loaded is not None:
        return loaded
    # `GPT-3 175B`, `Llama3-405B`: the preset whatever its case and how its words are joined
    preset = chosen(value, tuple(PRESETS))
    if preset is not None:
        return preset
    raise InputError(
        "workload",
        _(
            "unknown preset %(name)s and not a JSON file (presets: %(presets)s)",
            name=repr(value),
            presets=", ".join(PRESETS),
        ),
    )


def run(args: argparse.Namespace, resolve: Callable[[str], dict[str, Any]] | None) -> dict[str, Any]:
    wl = _workload(args.workload)
    facts = _offering(args.offering, resolve)
    if args.gpus is not None and args.gpus <= 0:
        raise InputError("gpus", _("must be positive, got %(got)s", got=value_text(args.gpus)))
    if args.deadline_days is not None and args.deadline_days <= 0:
        raise InputError(
            "deadline_days", _("must be positive, got %(got)s", got=value_text(args.deadline_days))
        )
    if args.layout is not None:
        layout = _load(args.layout, "layout")
        if not isinstance(layout, dict):
            raise InputError("layout", _("must be a JSON object or a path to a JSON file"))
        return evaluate(wl, facts, layout, gpus=args.gpus)
    return search(
        wl, facts, objective=args.objective, gpus=args.gpus, deadline_days=args.deadline_days, top=args.top
    )


def main(
    argv: list[str] | None = None,
    resolve_offering: Callable[[str], dict[str, Any]] | None = None,
    stdout: IO[str] | None = None,
    stderr: IO[str] | None = None,
) -> int:
    out = stdout or sys.stdout
    err = stderr or sys.stderr
    p = _Parser(prog="size", description="Size an LLM training job on a GPU cluster offering.")
    p.add_argument("--workload", required=True, help="preset name, JSON file or inline JSON")
    p.add_argument("--offering", required=True, help="offering slug, JSON file or inline JSON")
    p.add_argument("--layout", help="layout JSON (file or inline); without it the search runs")
    p.add_argument("--gpus", type=int, help="total GPUs (fixes the cluster size)")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument("--objective", choices=OBJECTIVES, default="fastest")
    p.add_argument("--deadline-days", type=float, dest="deadline_days")
    p.add_argument("--top", type=int, default=5, help="alternatives to list")
    json_mode = "--json" in (argv or [])
    try:
        args = p.parse_args(argv)
        result = run(args, resolve_offering)
    except InputError as e:
        line = f"error: {e.field}: {e.reason}".replace("\n", " ")
        print(line, file=err)
        if json_mode:
            print(json.dumps({"error": f"{e.field}: {e.reason}", "field": e.field}), file=out)
        return 2
    if args.json:
        print(json.dumps(result, indent=2), file=out)
    else:
        print(format_text(result), file=out)
    return 0


def format_text(r: dict[str, Any]) -> str:
    lay = r["layout"]
    lines = []
    w = r.get("workload", {})
    o = r.get("offering", {})
    lines.append(
        f"Workload {w.get('name')} ({r['params']['total'] / 1e9:.1f}B params, "
        f"{r['params']['active'] / 1e9:.1f}B active) on {o.get('name')} ({o.get('gpu')})"
    )
    lines.append(f"Feasible: {'yes' if r['feasible'] else 'NO'}")
    for reason in r["reasons"]:
        lines.append(f"  - {reason}")
    lines.append(
        f"Layout: TP={lay['tp']} PP={lay['pp']} DP={lay['dp']} CP={lay['cp']} EP={lay['ep']} "
        f"ZeRO-{lay['zero']} "
        f"micro-batch {lay['micro_batch']}, recompute {lay['recompute']}, "
        f"sequence parallel {'on' if lay['sequence_parallel'] else 'off'}, "
        f"virtual stages {lay['virtual_stages']}"
    )
    lines.append(f"Cluster: {r['gpus']} GPUs on {r['nodes']} nodes")
    m = r["memory_gib_per_gpu"]
    gathered = f"gathered parameters {m['gathered_params']:.1f}, " if m.get("gathered_params") else ""
    lines.append(
        f"Memory per GPU (GiB): weights {m['weights']:.1f}, grads {m['grads']:.1f}, "
        f"optimizer {m['optimizer']:.1f}, {gathered}"
        f"activations {m['activations']:.1f}, overhead {m['overhead']:.1f} = {m['total']:.1f} of "
        f"{r['hbm_gib_per_gpu']:.1f}"
    )
    b = r["iteration_breakdown_s"]
    parts = ", ".join(f"{k} {v:.2f}" for k, v in b.items() if v > 0)
    lines.append(f"Iteration: {r['iteration_time_s']:.2f} s ({parts})")
    lines.append(
        f"Throughput: {r['model_tflops_per_gpu']:.0f} model TFLOP/s per GPU "
        f"({r['hardware_tflops_per_gpu']:.0f} "
        f"hardware), MFU {100 * r['mfu']:.1f}%, {r['tokens_per_s']:,.0f} tokens/s"
    )
    g = r["goodput"]
    lines.append(
        f"Training: {r['train_days']:.1f} days with failures ({r['train_days_no_failures']:.1f} without); "
        f"job MTBF {g['mtbf_h']:.1f} h, checkpoint every {g['checkpoint_interval_min']:.0f} min "
        f"({g['checkpoint_write_s']:.0f} s to write), restart {g['restart_min']:.0f} min, goodput "
        f"{100 * g['fraction']:.1f}%"
    )
    accuracy = accuracy_sentence(r.get("accuracy"))
    if accuracy:
        lines.append(f"  {accuracy}")
    if "cost" in r:
        c = r["cost"]
        lines.append(
            f"Cost: {c['gpu_hours']:,.0f} GPU-hours x ${c['usd_per_gpu_hour']:.2f} = ${c['total_usd']:,.0f}"
        )
    if "search" in r:
        s = r["search"]
        lines.append(
            f"Search: {s['evaluated']:,} layouts evaluated, {s['feasible']:,} feasible, {s['seconds']:.3f} s"
        )
        for k, v in r.get("rejected", {}).items():
            lines.append(f"  rejected: {v:,} {k}")
        for a in r.get("alternatives", []):
            la = a["layout"]
            lines.append(
                f"  alternative: TP={la['tp']} PP={la['pp']} DP={la['dp']} CP={la['cp']} EP={la['ep']} "
                f"ZeRO-{la['zero']} mb {la['micro_batch']} {la['recompute']} v{la['virtual_stages']} on "
                f"{a['gpus']} GPUs: {a['train_days']:.1f} days, MFU {100 * a['mfu']:.1f}%"
            )
    if r.get("explanation"):
        lines.append("Why:")
        lines.extend(f"  - {s}" for s in r["explanation"])
    if r.get("assumptions"):
        lines.append("Assumptions:")
        lines.extend(f"  - {s}" for s in r["assumptions"])
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
