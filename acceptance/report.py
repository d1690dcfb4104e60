"""The acceptance report: three indicators, an overall verdict and findings (pure, no Django).

`build_report(facts, items, timelines)` takes the offering facts dict, the parsed evidence items of the
bundle's files (docs/FACTS.md shape plus each upload's `verdicts`) and the kit's stability timelines, and
returns `{"indicators", "verdict", "findings", "finding_details", "measured"}` (DESIGN section 8):

- collective bandwidth: busbw at the largest message size at the largest node count (all_reduce, else
  all_gather, else reduce_scatter), against the claimed NICs x Gb/s as benchmarks.compare reckons it
  (the same expected value the upload page shows), and the one-node run against the intra-node rate;
- scaling efficiency: training throughput per GPU at the largest node count over the smallest when the
  training probe ran at two or more node counts; otherwise, stated as a proxy, busbw at the largest node
  count over the smallest multi-node count (same collective, largest size), with the curve;
- stability: drift of repeated busbw at the largest node count, interruptions (failed passes, non-zero
  exit codes in the timeline) and Xid errors; cannot-measure, with what to run, without a stability loop.

Indicator verdicts are pass / fail / cannot-measure; the overall verdict is fail when an indicator fails
or a blocking finding exists, incomplete when an indicator cannot be measured, pass otherwise.
"""

from __future__ import annotations

import re
import statistics
from datetime import datetime
from typing import Any

from acceptance.findings import NCCL_KINDS, bundle_findings, detail, where
from benchmarks.compare import STABILITY_DROP_WARN, compare
from benchmarks.scaling import SCALING_PASS, reaches_bandwidth, tree_suspected
from hardware import other_gpu_names
from hardware.messages import Msg, _, joined, listed, ngettext

HEADLINE_COLLECTIVES = ("all_reduce", "all_gather", "reduce_scatter")
TRAINING_KINDS = ("megatron", "torchtitan", "deepspeed")
STABILITY_MARKER = "clusterscout-acceptance stability v1"
MIN_STABILITY_SAMPLES = 3
WHAT_TO_RUN = _(
    "Run the kit's stability loop (STABILITY_HOURS=24 ./run_all.sh under Slurm, or "
    "kubernetes/stability-mpijob.yaml) and upload its results folder with the rest."
)
_ITER_RE = re.compile(r"stability iteration (\d+) (start|end|exit code) (\S+)")
_TSV_RE = re.compile(r"^(\d+)\t(\S+)\t(\S+)\t(-?\d+)\s*$")


def _verdict_word(verdict: str | None) -> str:
    if verdict == "pass":
        return "pass"
    if verdict in ("warn", "fail"):
        return "fail"
    return "cannot-measure"


def _runs(items: list[dict[str, Any]]) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """(item, run) for every finished collective run whose node count is known."""
    out = []
    for item in items:
        if item.get("kind") not in NCCL_KINDS:
            continue
        for run in (item.get("summary") or {}).get("runs") or []:
            nodes = run.get("nodes") or item.get("nodes")
            if run.get("failed") or not nodes or run.get("busbw_at_max_size_gbps") is None:
                continue
            out.append((item, {**run, "nodes": int(nodes)}))
    return out


def _pick_collective(runs: list[tuple[dict[str, Any], dict[str, Any]]], nodes: int) -> str | None:
    present = {run.get("collective") for _kind, run in runs if run["nodes"] == nodes}
    return next((c for c in HEADLINE_COLLECTIVES if c in present), None)


def _best_run(
    runs: list[tuple[dict[str, Any], dict[str, Any]]], collective: str, nodes: int
) -> tuple[dict[str, Any], dict[str, Any]] | None:
    chosen = [(i, r) for i, r in runs if r.get("collective") == collective and r["nodes"] == nodes]
    if not chosen:
        return None
    return max(
        chosen, key=lambda pair: (pair[1].get("max_size_bytes") or 0, pair[1].get("busbw_at_max_size_gbps"))
    )


def _run_verdict(facts: dict[str, Any], item: dict[str, Any], run: dict[str, Any]) -> dict[str, Any]:
    single = {**item, "summary": {**(item.get("summary") or {}), "runs": [run]}}
    # the run's bandwidth verdict, not its stability (runs of other GPUs are out already: _on_offering_gpus)
    verdicts = [v for v in compare(facts, single) if "stability" not in str(v.get("claim"))]
    return verdicts[0] if verdicts else {"verdict": "cannot-measure", "expected": None}


def _judged(facts: dict[str, Any], pair: tuple[dict[str, Any], dict[str, Any]]) -> dict[str, Any]:
    item, run = pair
    verdict = _run_verdict(facts, item, run)
    measured = run.get("busbw_at_max_size_gbps")
    expected = verdict.get("expected") if isinstance(verdict.get("expected"), int | float) else None
    return {
        "busbw_gbps": measured,
        "collective": run.get("collective"),
        "nodes": run["nodes"],
        "gpus_per_node": run.get("gpus_per_node"),
        "max_size_bytes": run.get("max_size_bytes"),
        "expected_gbps": expected,
        "ratio": round(measured / expected, 3) if expected and measured is not None else None,
        "verdict": _verdict_word(verdict.get("verdict")),
        "basis": verdict.get("detail"),
        "file": item.get("filename"),
        "lines": [run.get("first_line"), run.get("last_line")],
    }


def _full_node(facts: dict[str, Any], runs: list[tuple[dict[str, Any], dict[str, Any]]]) -> int | None:
    """GPUs per node of a full node: the offering's, else the most any run shows."""
    shown = [int(r["gpus_per_node"]) for _i, r in runs if r.get("gpus_per_node")]
    return facts.get("gpus_per_node") or max(shown, default=None)


def collective_bandwidth(facts: dict[str, Any], items: list[dict[str, Any]]) -> dict[str, Any]:
    everything = _runs(items)
    full = _full_node(facts, everything)
    # The headline comes from runs using every GPU of a node (a 1-GPU-per-node run drives one NIC of
    # eight); multi-node runs on fewer GPUs per node are shown apart and judged by nothing here.
    runs = [p for p in everything if p[1]["nodes"] == 1 or p[1].get("gpus_per_node") == full]
    partial = [p for p in everything if p[1]["nodes"] >= 2 and p not in runs]
    multi = sorted({r["nodes"] for _kind, r in runs if r["nodes"] >= 2})
    line_rate = None
    if facts.get("nics_per_node") and facts.get("gbps_per_nic"):
        line_rate = round(facts["nics_per_node"] * facts["gbps_per_nic"] / 8, 2)
    out: dict[str, Any] = {
        "busbw_gbps": None,
        "collective": None,
        "nodes": None,
        "expected_gbps": None,
        "ratio": None,
        "verdict": "cannot-measure",
        "claimed_line_rate_gbytes_per_node": line_rate,
        "intra_node": None,
    }
    collective = _pick_collective(runs, multi[-1]) if multi else None
    if collective is None and partial:
        out["basis"] = _(
            "no multi-node run uses all %(gpus)s GPUs of each node: a run on fewer GPUs per node does not "
            "exercise every NIC; run the kit's nccl-tests jobs on full nodes",
            gpus=full,
        )
    elif collective is None and (other := sorted({n for item in items for n in item.get("other_gpus", [])})):
        out["basis"] = _(
            "the bundle's collective runs ran on %(gpus)s, not on the offering's GPU: not judged against its "
            "links (see the GPU model finding)",
            gpus=listed(other),
        )
    elif collective is None:
        out["basis"] = _(
            "no multi-node all_reduce/all_gather/reduce_scatter run: run the kit's nccl-tests jobs"
        )
    else:
        best = _best_run(runs, collective, multi[-1])
        assert best is not None
        out.update(_judged(facts, best))
    intra_collective = collective or _pick_collective(runs, 1)
    intra = _best_run(runs, intra_collective, 1) if intra_collective else None
    if intra is not None:
        out["intra_node"] = _judged(facts, intra)
        out["multi_node_verdict"] = out["verdict"]
        if out["intra_node"]["verdict"] == "fail":  # a failing NVLink fails whatever the fabric shows
            out["verdict"] = "fail"
    if partial:
        pick = max(partial, key=lambda p: (p[1]["nodes"], p[1].get("gpus_per_node") or 0))
        out["partial_node"] = _judged(facts, pick)
    return out


def busbw_curve(
    items: list[dict[str, Any]], collective: str | None, per_node: int | None = None
) -> list[dict[str, Any]]:
    """Median busbw at the largest size per node count for one collective (repeats folded): only runs
    with `per_node` GPUs per node (when given) whose largest size reaches bandwidth (SATURATION_BYTES)."""
    by_nodes: dict[int, list[float]] = {}
    for _kind, run in _runs(items):
        if per_node and run.get("gpus_per_node") != per_node:
            continue
        if run.get("collective") == collective and reaches_bandwidth(run):
            by_nodes.setdefault(run["nodes"], []).append(float(run["busbw_at_max_size_gbps"]))
    return [
        {"nodes": nodes, "busbw_gbps": round(statistics.median(values), 2)}
        for nodes, values in sorted(by_nodes.items())
    ]


# What a training probe's point carries beside its node count (`throughput_curve`), with the summary key it
# is read from, in order of preference; acceptance.selectors.THROUGHPUT_WORDS names each with its unit.
TRAINING_METRICS = (
    ("tokens_per_s_per_gpu", "median_tokens_per_s_per_gpu"),
    ("tflops_per_gpu", "median_tflops_per_gpu"),
)


def _training_points(facts: dict[str, Any], items: list[dict[str, Any]]) -> tuple[str, list[dict[str, Any]]]:
    """Per node count, the median training throughput per GPU (tokens/s, else TFLOP/s) of the probes."""
    by_metric: dict[str, dict[int, list[float]]] = {}
    for item in items:
        if item.get("kind") not in TRAINING_KINDS:
            continue
        summary = item.get("summary") or {}
        nodes = item.get("nodes")
        world, per_node = summary.get("world_size"), facts.get("gpus_per_node")
        if not nodes and world and per_node and world % per_node == 0:
            nodes = world // per_node
        for metric, key in TRAINING_METRICS:
            if nodes and summary.get(key):
                by_metric.setdefault(metric, {}).setdefault(int(nodes), []).append(float(summary[key]))
                break
    metric = max(by_metric, key=lambda m: len(by_metric[m]), default="tokens_per_s_per_gpu")
    points = [
        {"nodes": n, "value": round(statistics.median(v), 2)}
        for n, v in sorted(by_metric.get(metric, {}).items())
    ]
    return metric, points


def scaling_efficiency(
    facts: dict[str, Any], items: list[dict[str, Any]], collective: str | None, per_node: int | None = None
) -> dict[str, Any]:
    curve = busbw_curve(items, collective, per_node)
    metric, points = _training_points(facts, items)
    out: dict[str, Any] = {"value": None, "basis": None, "curve": curve, "verdict": "cannot-measure"}
    if len(points) >= 2:
        base, top = points[0], points[-1]
        value = top["value"] / base["value"] if base["value"] else None
        out.update(
            value=round(value, 3) if value is not None else None,
            basis=ngettext(
                "training throughput per GPU (%(metric)s) at %(top)s nodes over %(base)s node",
                "training throughput per GPU (%(metric)s) at %(top)s nodes over %(base)s nodes",
                _count(base["nodes"]),
                metric=metric,
                top=top["nodes"],
                base=base["nodes"],
            ),
            throughput_curve=[{"nodes": p["nodes"], metric: p["value"]} for p in points],
        )
    else:
        inflated = _tree_inflated_counts(items, collective)
        multi = [p for p in curve if p["nodes"] >= 2]
        usable = [p for p in multi if p["nodes"] not in inflated]
        if len(usable) < 2 or usable[0]["nodes"] == multi[-1]["nodes"]:
            out["basis"] = _(
                "needs the training probe or the same collective at two or more multi-node counts: "
                "run the kit's probe and nccl-tests jobs at 1, 2, 4 ... nodes"
            )
            return out
        base, top = usable[0], multi[-1]
        value = top["busbw_gbps"] / base["busbw_gbps"] if base["busbw_gbps"] else None
        skipped = sorted(inflated & {p["nodes"] for p in multi})
        basis: Msg = _(
            "proxy: %(collective)s bus bandwidth at the largest message size at %(top)s nodes over %(base)s "
            "nodes (no training probe in the bundle)",
            collective=collective,
            top=top["nodes"],
            base=base["nodes"],
        )
        if skipped:
            not_base = _("the 2-node run is not the base: tree algorithms may inflate 2-node all_reduce")
            basis = joined(basis, not_base, sep=_("; "))
        out.update(value=round(value, 3) if value is not None else None, basis=basis)
    if out["value"] is not None:
        out["verdict"] = "pass" if out["value"] >= SCALING_PASS else "fail"
        out["threshold"] = SCALING_PASS
    return out


def _tree_inflated_counts(items: list[dict[str, Any]], collective: str | None) -> set[int]:
    """{2} when a 2-node run of `collective` may be tree/NVLS-inflated (scaling.tree_suspected)."""
    return {
        2
        for item in items
        if item.get("kind") in NCCL_KINDS
        for run in (item.get("summary") or {}).get("runs") or []
        if run.get("collective") == collective and tree_suspected(run, item)
    }


def _timeline(texts: list[tuple[str, str]]) -> dict[str, Any]:
    """Iterations of the kit's stability loop: start/end times and exit codes (Slurm TSV or k8s log lines)."""
    passes: dict[tuple[str, int], dict[str, Any]] = {}
    for name, text in texts:
        for line in text.splitlines():
            tsv = _TSV_RE.match(line)
            if tsv:
                passes[(name, int(tsv[1]))] = {"start": tsv[2], "end": tsv[3], "exit": int(tsv[4])}
                continue
            marker = _ITER_RE.search(line)
            if marker:
                entry = passes.setdefault((name, int(marker[1])), {"exit": 0})
                if marker[2] == "exit code":
                    entry["exit"] = int(marker[3]) if marker[3].lstrip("-").isdigit() else 1
                else:
                    entry[marker[2]] = marker[3]
    times = [_when(p.get(k)) for p in passes.values() for k in ("start", "end")]
    known = [t for t in times if t is not None]
    hours = (max(known) - min(known)).total_seconds() / 3600 if len(known) >= 2 else None
    failed = sum(1 for p in passes.values() if p.get("exit"))
    return {
        "iterations": len(passes),
        "failed": failed,
        "hours": round(hours, 2) if hours is not None else None,
    }


def _when(value: Any) -> datetime | None:
    try:
        return datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError:
        return None


def _size_class(run: dict[str, Any]) -> Any:
    """Runs past SATURATION_BYTES compare with each other; shorter ones only with the same largest size."""
    return "saturated" if reaches_bandwidth(run) else run.get("max_size_bytes")


def _stability_samples(
    items: list[dict[str, Any]], collective: str | None, nodes: int | None, like: dict[str, Any] | None = None
) -> list[float]:
    """busbw repeats of the headline's collective, node count, GPUs per node and size class."""
    like = like or {}
    samples: list[float] = []
    for _kind, run in _runs(items):
        if run.get("collective") != collective or run["nodes"] != nodes:
            continue
        if like.get("gpus_per_node") and run.get("gpus_per_node") != like["gpus_per_node"]:
            continue
        if like.get("max_size_bytes") and _size_class(run) != _size_class(like):
            continue
        cycles = run.get("busbw_at_max_size_per_cycle_gbps") or []
        samples += [float(v) for v in cycles] if len(cycles) >= 2 else [float(run["busbw_at_max_size_gbps"])]
    return samples


def _xids(items: list[dict[str, Any]]) -> tuple[int, list[Any]]:
    events, codes = 0, set()
    for item in items:
        if item.get("kind") == "dmesg":
            summary = item.get("summary") or {}
            events += len(summary.get("xid_events") or []) + len(summary.get("gpus_fallen_off_bus") or [])
            codes |= set(summary.get("xid_codes") or [])
    return events, sorted(codes, key=str)


def stability(
    items: list[dict[str, Any]],
    texts: list[tuple[str, str]],
    collective: str | None,
    nodes: int | None,
    like: dict[str, Any] | None = None,
) -> dict[str, Any]:
    timeline = _timeline(texts)
    samples = _stability_samples(items, collective, nodes, like)
    failed_runs = sum(
        1
        for item in items
        if item.get("kind") in NCCL_KINDS
        for run in (item.get("summary") or {}).get("runs") or []
        if run.get("failed")
    )
    xid_events, xid_codes = _xids(items)
    drift = None
    if len(samples) >= MIN_STABILITY_SAMPLES and max(samples) > 0:
        drift = round((max(samples) - min(samples)) / max(samples) * 100, 2)
    out: dict[str, Any] = {
        "verdict": "cannot-measure",
        "hours": timeline["hours"],
        "iterations": timeline["iterations"] or (len(samples) if drift is not None else 0),
        "drift_pct": drift,
        "drift_limit_pct": STABILITY_DROP_WARN,
        "interruptions": timeline["failed"] + failed_runs,
        "xid_events": xid_events,
        "xid_codes": xid_codes,
        "samples": len(samples),
        **training_problems(items),
    }
    if xid_events or out["interruptions"] or out["training_verdict"] == "fail":
        out["verdict"] = "fail"
    elif drift is None:
        out["what_to_run"] = WHAT_TO_RUN
        return out
    else:
        out["verdict"] = "pass" if drift <= STABILITY_DROP_WARN else "fail"
    if drift is None:
        out["what_to_run"] = WHAT_TO_RUN
    return out


def training_problems(items: list[dict[str, Any]]) -> dict[str, Any]:
    """nan and skipped iterations and stalls of the bundle's training probes. Rule: any nan iteration
    fails stability (the run computed garbage); skipped iterations and stalls fail it when together they
    are more than STABILITY_DROP_WARN % of the iterations (a few loss-scale skips at the start are
    normal), and are only reported below that."""
    nan = skipped = stalls = total = 0
    for item in items:
        if item.get("kind") in TRAINING_KINDS:
            summary = item.get("summary") or {}
            nan += int(summary.get("nan_iterations") or 0)
            skipped += int(summary.get("skipped_iterations") or 0)
            stalls += len(summary.get("stalls") or [])
            total += int(summary.get("iterations") or summary.get("steady_iterations") or 0)
    verdict = None
    if nan or (total and (skipped + stalls) * 100 > STABILITY_DROP_WARN * total):
        verdict = "fail"
    elif total:
        verdict = "pass"
    return {
        "training_iterations": total,
        "training_nan_iterations": nan,
        "training_skipped_iterations": skipped,
        "training_stalls": stalls,
        "training_verdict": verdict,
    }


def measured_counts(items: list[dict[str, Any]]) -> dict[str, Any]:
    """Nodes and GPUs the logs show: collective runs (ranks, hosts, separators) and nvidia-smi listings."""
    nodes = gpus = per_node = None
    for _kind, run in _runs(items):
        nodes = max(nodes or 0, run["nodes"])
        if run.get("ranks"):
            gpus = max(gpus or 0, int(run["ranks"]))
        if run.get("gpus_per_node"):
            per_node = max(per_node or 0, int(run["gpus_per_node"]))
    for item in items:
        if item.get("kind") == "nvidia-smi" and (item.get("summary") or {}).get("gpus"):
            per_node = max(per_node or 0, int(item["summary"]["gpus"]))
    return {"nodes": nodes, "gpus": gpus, "gpus_per_node": per_node}


def overall(indicators: dict[str, dict[str, Any]], details: list[dict[str, Any]]) -> str:
    verdicts = [ind.get("verdict") for ind in indicators.values()]
    if "fail" in verdicts or any(d.get("blocking") for d in details):
        return "fail"
    if "cannot-measure" in verdicts:
        return "incomplete"
    return "pass"


def step_findings(steps: list[tuple[str, str]]) -> list[dict[str, Any]]:
    """Steps of the kit that failed or whose tool was missing (steps.tsv), one finding per step and
    outcome; not blocking by themselves: what they would have measured shows as cannot-measure."""
    grouped: dict[tuple[str, str, str], list[int]] = {}
    for name, text in steps:
        for number, line in enumerate(text.splitlines(), start=1):
            cells = line.split("\t")
            if len(cells) != 4 or cells[0].startswith("#") or cells[3] in ("0", "exit_code"):
                continue
            step, code = cells[1].split("@", 1)[0], cells[3]
            if code.startswith("none:") or step == "stability":
                continue  # no driver messages found; the stability loop logs its pass count here
            grouped.setdefault((name, step, code), []).append(number)
    out = []
    for (name, step, code), lines in grouped.items():
        what = (
            _("%(tool)s is not installed", tool=code.split(":", 1)[1])
            if code.startswith("missing:")
            else _("exit code %(code)s", code=code)
        )
        text = (
            _("step %(step)s: %(what)s (%(count)s times)", step=step, what=what, count=len(lines))
            if len(lines) > 1
            else _("step %(step)s: %(what)s", step=step, what=what)
        )
        out.append(
            detail(joined(where(name, lines[0]), text, sep=_(": ")), name, lines[0], "step-failed", False)
        )
    return out


def build_report(
    facts: dict[str, Any],
    items: list[dict[str, Any]],
    texts: list[tuple[str, str]] | None = None,
    steps: list[tuple[str, str]] | None = None,
) -> dict[str, Any]:
    """The whole report of one bundle (see the module docstring)."""
    findings = bundle_findings(facts, items)  # the files as uploaded: a log of other GPUs fails its model
    items = [_on_offering_gpus(facts, item) for item in items]
    bandwidth = collective_bandwidth(facts, items)
    collective = bandwidth.get("collective") or next(
        (c for c in HEADLINE_COLLECTIVES if busbw_curve(items, c)), None
    )
    indicators = {
        "collective_bandwidth": bandwidth,
        "scaling_efficiency": scaling_efficiency(facts, items, collective, bandwidth.get("gpus_per_node")),
        "stability": stability(items, texts or [], collective, bandwidth.get("nodes"), bandwidth),
    }
    details = findings + step_findings(steps or [])
    for name, indicator in indicators.items():
        if indicator["verdict"] == "fail":
            details.append(_indicator_finding(name, indicator))
    for indicator in (*indicators.values(), bandwidth.get("intra_node") or {}):
        if isinstance(indicator.get("basis"), Msg):  # its words for a page in another language
            indicator["basis_message"] = indicator["basis"].as_json()
    return {
        "indicators": indicators,
        "verdict": overall(indicators, details),
        "findings": [d["text"] for d in details],
        "finding_details": details,
        "measured": measured_counts(items),
    }


def _on_offering_gpus(facts: dict[str, Any], item: dict[str, Any]) -> dict[str, Any]:
    """The item without the collective runs whose Rank lines name another GPU than the offering's
    (hardware.other_gpu_names): their bandwidth, scaling and stability are another cluster's."""
    runs = (item.get("summary") or {}).get("runs")
    if item.get("kind") not in NCCL_KINDS or not runs:
        return item
    named = [(run, other_gpu_names(facts.get("gpu"), run.get("gpu_names") or [])) for run in runs]
    kept = [run for run, other in named if not other]
    if len(kept) == len(runs):
        return item
    other = sorted({name for _run, names in named for name in names})
    return {**item, "summary": {**item["summary"], "runs": kept}, "other_gpus": other}


def _indicator_finding(name: str, indicator: dict[str, Any]) -> dict[str, Any]:
    if name == "collective_bandwidth":
        parts = [indicator, indicator.get("intra_node") or {}]
        if indicator.get("multi_node_verdict", indicator["verdict"]) != "fail":
            parts.reverse()  # the multi-node run passed or was not judged: the NVLink run failed
        failing = next((p for p in parts if p.get("verdict") == "fail"), indicator)
        text: Msg = ngettext(
            "collective bandwidth: %(collective)s %(busbw)s GB/s on %(nodes)s node, expected %(expected)s "
            "GB/s",
            "collective bandwidth: %(collective)s %(busbw)s GB/s on %(nodes)s nodes, expected %(expected)s "
            "GB/s",
            _count(failing.get("nodes")),
            collective=failing.get("collective"),
            busbw=failing.get("busbw_gbps"),
            nodes=failing.get("nodes"),
            expected=failing.get("expected_gbps"),
        )
        file, lines = failing.get("file"), failing.get("lines") or [None]
        sentence = joined(where(file, lines[0]), text, sep=_(": ")) if file else text
        return detail(sentence, file, lines[0], name, True)
    if name == "scaling_efficiency":
        text = _(
            "scaling efficiency %(value)s is below %(threshold)s (%(basis)s)",
            value=indicator.get("value"),
            threshold=f"{SCALING_PASS:g}",
            basis=indicator.get("basis"),
        )
    elif indicator.get("training_verdict") == "fail":
        text = _(
            "stability: the training probe had %(nan)s, %(skipped)s and %(stalls)s in %(total)s",
            **_training_counts(indicator),
        )
    elif indicator.get("drift_pct") is None:  # failed by interruptions or Xids before any drift was measured
        text = _(
            "stability: %(interruptions)s, %(xids)s",
            interruptions=_interruptions(indicator.get("interruptions")),
            xids=_xid_events(indicator.get("xid_events")),
        )
    else:
        text = _(
            "stability: drift %(drift)s%%, %(interruptions)s, %(xids)s",
            drift=indicator.get("drift_pct"),
            interruptions=_interruptions(indicator.get("interruptions")),
            xids=_xid_events(indicator.get("xid_events")),
        )
    return detail(text, None, None, name, True)


def indicator_rows(indicators: dict[str, Any]) -> list[dict[str, Any]]:
    """Measured beside claimed, one row per indicator: `{name, measured, claimed, verdict}`, each text a
    message (acceptance.selectors shows it in the page's language and freezes it for a quote)."""
    bandwidth = indicators.get("collective_bandwidth") or {}
    scaling = indicators.get("scaling_efficiency") or {}
    stab = indicators.get("stability") or {}
    expected = bandwidth.get("expected_gbps")
    return [
        {
            "name": _("Collective bandwidth"),
            "measured": _bandwidth_text(bandwidth),
            "claimed": _("%(gbps)s GB/s expected", gbps=f"{expected:g}") if expected else "—",
            "verdict": bandwidth.get("verdict") or "cannot-measure",
        },
        {
            "name": _("Scaling efficiency"),
            "measured": f"{scaling['value']:.2f}" if scaling.get("value") is not None else "—",
            "claimed": f"≥ {scaling.get('threshold', SCALING_PASS):g}",
            "verdict": scaling.get("verdict") or "cannot-measure",
        },
        {
            "name": _("Stability"),
            "measured": _stability_text(stab),
            "claimed": _(
                "drift ≤ %(limit)s%%, no interruptions or Xids",
                limit=f"{stab.get('drift_limit_pct', STABILITY_DROP_WARN):g}",
            ),
            "verdict": stab.get("verdict") or "cannot-measure",
        },
    ]


def _bandwidth_text(bandwidth: dict[str, Any]) -> Msg | str:
    value = bandwidth.get("busbw_gbps")
    if value is None:
        return "—"
    return _(
        "%(value)s GB/s (%(collective)s, %(nodes)s nodes)",
        value=f"{value:g}",
        collective=bandwidth.get("collective"),
        nodes=bandwidth.get("nodes"),
    )


def _stability_text(stab: dict[str, Any]) -> Msg:
    if stab.get("drift_pct") is None and not stab.get("interruptions") and not stab.get("xid_events"):
        return _("no stability loop in the bundle")
    parts: list[Any] = []
    if stab.get("hours") is not None:
        parts.append(f"{stab['hours']:g} h")
    if stab.get("drift_pct") is not None:
        parts.append(_("drift %(pct)s%%", pct=f"{stab['drift_pct']:g}"))
    parts.append(_interruptions(stab.get("interruptions", 0)))
    parts.append(_xid_events(stab.get("xid_events", 0)))
    return joined(*parts, sep=_(", "))  # the separator translated too ("、" in Chinese)


def _count(value: Any) -> int:
    """A count read from a bundle's indicators as the number its words follow (none read: the plural)."""
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _training_counts(indicator: dict[str, Any]) -> dict[str, Msg]:
    """The training probe's counts in words ("1 stall", "3 stalls")."""
    nan, skipped = indicator.get("training_nan_iterations"), indicator.get("training_skipped_iterations")
    stalls, total = indicator.get("training_stalls"), indicator.get("training_iterations")
    return {
        "nan": ngettext("%(n)s nan iteration", "%(n)s nan iterations", _count(nan), n=nan),
        "skipped": ngettext(
            "%(n)s skipped iteration", "%(n)s skipped iterations", _count(skipped), n=skipped
        ),
        "stalls": ngettext("%(n)s stall", "%(n)s stalls", _count(stalls), n=stalls),
        "total": ngettext("%(n)s iteration", "%(n)s iterations", _count(total), n=total),
    }


def _interruptions(value: Any) -> Msg:
    return ngettext("%(n)s interruption", "%(n)s interruptions", _count(value), n=value)


def _xid_events(value: Any) -> Msg:
    return ngettext("%(n)s Xid or GPU-lost event", "%(n)s Xid or GPU-lost events", _count(value), n=value)
