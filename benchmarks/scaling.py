"""Scaling efficiency across node counts, from the parsed uploads of one offering (benchmarks.compare reads
one upload against the claims; this reads several together)."""

from __future__ import annotations

from typing import Any

from benchmarks.compare import run_nodes
from benchmarks.internode import MIN_INTER_NODE_BYTES, tree_may_inflate
from hardware import other_gpu_names
from hardware.messages import Msg, _, listed, ngettext

SCALING_PASS = 0.90
SCALING_WARN = 0.70
# The smallest "largest message size" whose busbw is taken as the bandwidth of the fabric: the floor the
# inter-node verdicts use (internode.MIN_INTER_NODE_BYTES, with its basis). A run that stops below it measures
# latency more than bandwidth and stays out of the curves.
SATURATION_BYTES = MIN_INTER_NODE_BYTES

# How a row names its series and its pass mark to a reader; the row keeps the English key (`claim`,
# `expected`) its readers know beside these words and the values they are built from.
COLLECTIVE_WORDS = {  # the nccl-tests collectives (parsers.nccl.reading.KNOWN_COLLECTIVES)
    "all_reduce": _("all-reduce"),
    "all_gather": _("all-gather"),
    "reduce_scatter": _("reduce-scatter"),
    "alltoall": _("all-to-all"),
    "alltoallv": _("all-to-all of uneven sizes"),
    "sendrecv": _("send/receive"),
    "broadcast": _("broadcast"),
    "reduce": _("reduce"),
    "gather": _("gather"),
    "scatter": _("scatter"),
    "hypercube": _("hypercube"),
}
FRAMEWORK_NAMES = {"megatron": "Megatron", "torchtitan": "torchtitan", "deepspeed": "DeepSpeed"}


def reaches_bandwidth(run: dict[str, Any]) -> bool:
    """The run's largest message size is at or past SATURATION_BYTES (unknown: no)."""
    return int(run.get("max_size_bytes") or 0) >= SATURATION_BYTES


def tree_suspected(run: dict[str, Any], item: dict[str, Any]) -> bool:
    """A run whose busbw tree/NVLS/CollNet may inflate, by the verdicts' own rule
    (internode.tree_may_inflate) at the run's node count (the log's, else the upload's)."""
    per_node = run.get("gpus_per_node")
    return tree_may_inflate(run, run_nodes(run, item), int(per_node) if per_node else None)


def collective_words(collective: str) -> str:
    """A collective in words ("all-reduce"); one the table does not know with its underscores as spaces."""
    return COLLECTIVE_WORDS.get(collective) or collective.replace("_", " ")


def series_words(row: dict[str, Any]) -> Msg:
    """What a row measures, from its values: "all-reduce bus bandwidth, 8 GPUs per node", "Megatron training
    throughput, tokens/s per GPU"."""
    if row.get("metric") == "busbw_gbps":
        collective = collective_words(str(row.get("collective") or ""))
        per_node = row.get("gpus_per_node")
        if not per_node:
            return _("%(collective)s bus bandwidth", collective=collective)
        return ngettext(
            "%(collective)s bus bandwidth, %(count)s GPU per node",
            "%(collective)s bus bandwidth, %(count)s GPUs per node",
            int(per_node),
            collective=collective,
            count=per_node,
        )
    framework = FRAMEWORK_NAMES.get(str(row.get("framework")), str(row.get("framework") or ""))
    if row.get("metric") == "tokens_per_s_per_gpu":
        return _("%(framework)s training throughput, tokens/s per GPU", framework=framework)
    return _("%(framework)s training throughput, TFLOP/s per GPU", framework=framework)


def threshold_words(row: dict[str, Any]) -> Msg:
    """What a row must reach to pass, from its values: "at least 90% of the 2-node figure"."""
    percent = f"{float(row.get('pass_ratio') or SCALING_PASS) * 100:g}"
    if row.get("base_nodes"):
        return _(
            "at least %(percent)s%% of the %(nodes)s-node figure", percent=percent, nodes=row["base_nodes"]
        )
    return _("at least %(percent)s%% of the smallest multi-node figure", percent=percent)


def _worded(row: dict[str, Any]) -> dict[str, Any]:
    """`row` with its series and pass mark in English words and their messages (a page shows them in its
    language)."""
    series, threshold = series_words(row), threshold_words(row)
    messages = {**row.get("messages", {}), "series": series.as_json(), "threshold": threshold.as_json()}
    return {**row, "series": str(series), "threshold": str(threshold), "messages": messages}


def scaling(items: list[dict[str, Any]], gpu: str | None = None) -> list[dict[str, Any]]:
    """Scaling efficiency where the same collective (or training throughput) exists at several node counts.

    Efficiency = per-GPU figure at N nodes / the same at the smallest multi-node count measured (busbw
    for collectives; tokens/s per GPU, else TFLOP/s per GPU, for training). >= 0.9 pass, 0.7-0.9 warn.
    `gpu`: the offering's GPU (a key or name); a collective run of another GPU is left out.
    """
    series: dict[tuple[str, str], list[dict[str, Any]]] = {}
    values: dict[tuple[str, str], dict[str, Any]] = {}  # what each series measures, for its words
    unknown: dict[str, set[int]] = {}  # collective -> node counts of runs whose GPUs per node is unknown
    for item in items:
        kind = item.get("kind")
        summary = item.get("summary", {})
        if kind in ("nccl-tests", "rccl-tests"):
            for run in summary.get("runs", []):
                if not other_gpu_names(gpu, run.get("gpu_names") or []):  # not another cluster's figure
                    _add_collective_point(series, values, unknown, item, run)
        elif kind in ("megatron", "torchtitan", "deepspeed"):
            value = summary.get("median_tokens_per_s_per_gpu") or summary.get("median_tflops_per_gpu")
            nodes = item.get("nodes")
            if nodes and value:
                metric = (
                    "tokens_per_s_per_gpu" if summary.get("median_tokens_per_s_per_gpu") else "tflops_per_gpu"
                )
                values[(metric, kind)] = {"metric": metric, "framework": kind}
                series.setdefault((metric, kind), []).append(
                    {
                        "nodes": int(nodes),
                        "value": value,
                        "file": item.get("filename"),
                        "lines": [summary.get("first_line"), summary.get("last_line")],
                    }  # fmt: skip
                )
    out = _unknown_layout_rows(unknown)
    for (metric, name), points in series.items():
        multi = sorted((p for p in points if p["nodes"] >= 2), key=lambda p: p["nodes"])
        counts = {p["nodes"] for p in multi}
        if len(counts) < 2:
            continue
        base = multi[0]
        for p in multi[1:]:
            if p["nodes"] == base["nodes"]:
                continue
            eff = p["value"] / base["value"] if base["value"] else None
            verdict = (
                "cannot-measure"
                if eff is None
                else ("pass" if eff >= SCALING_PASS else ("warn" if eff >= SCALING_WARN else "fail"))
            )
            detail = _(
                "%(nodes)s nodes %(value)s vs %(base_nodes)s nodes %(base_value)s",
                nodes=p["nodes"],
                value=p["value"],
                base_nodes=base["nodes"],
                base_value=base["value"],
            )
            row: dict[str, Any] = {
                "claim": f"scaling {name} {metric}",
                "expected": f">= {SCALING_PASS:g} of the {base['nodes']}-node figure",
                "measured": round(eff, 3) if eff is not None else None,
                "percent_of_expected": round(eff * 100, 1) if eff is not None else None,
                "verdict": verdict,
                "detail": str(detail),
                # the detail's message (the page shows it in its language) and the node counts it compares
                "messages": {"detail": detail.as_json()},
                "nodes": p["nodes"],
                "base_nodes": base["nodes"],
                "file": p["file"],
                "lines": [x for x in p["lines"] + base["lines"] if x],
                "base_file": base["file"],
                **values[(metric, name)],
                "pass_ratio": SCALING_PASS,
            }
            out.append(_worded(row))
    return out


def _add_collective_point(
    series: dict[tuple[str, str], list[dict[str, Any]]],
    values: dict[tuple[str, str], dict[str, Any]],
    unknown: dict[str, set[int]],
    item: dict[str, Any],
    run: dict[str, Any],
) -> None:
    """One run into its series: same collective, same GPUs per node, largest size past saturation."""
    nodes = run_nodes(run, item)
    value = run.get("busbw_at_max_size_gbps")
    if run.get("failed") or not nodes or value is None or not run.get("collective"):
        return
    if not reaches_bandwidth(run) or tree_suspected(run, item):
        return  # latency-bound sizes, or an inflated 2-node all_reduce, would distort the ratio
    if not run.get("gpus_per_node"):
        if nodes >= 2:
            unknown.setdefault(run["collective"], set()).add(nodes)
        return
    # busbw per GPU depends on the GPUs per node, so only like is compared with like.
    label = f"{run['collective']} ({run['gpus_per_node']} GPU/node)"
    values[("busbw_gbps", label)] = {
        "metric": "busbw_gbps",
        "collective": run["collective"],
        "gpus_per_node": int(run["gpus_per_node"]),
    }
    series.setdefault(("busbw_gbps", label), []).append(
        {
            "nodes": nodes,
            "value": value,
            "file": item.get("filename"),
            "lines": [run.get("first_line"), run.get("last_line")],
        }  # fmt: skip
    )


def _unknown_layout_rows(unknown: dict[str, set[int]]) -> list[dict[str, Any]]:
    """cannot-measure where runs at several node counts do not say their GPUs per node."""
    rows: list[dict[str, Any]] = []
    for collective, counts in sorted(unknown.items()):
        if len(counts) < 2:
            continue
        detail = _(
            "GPUs per node unknown in the %(collective)s runs at %(counts)s nodes: runs of "
            "different layouts cannot be compared",
            collective=collective_words(collective),
            counts=listed(sorted(counts)),
        )
        row: dict[str, Any] = {
            "claim": f"scaling {collective} busbw_gbps",
            "expected": f">= {SCALING_PASS:g} of the smallest multi-node figure",
            "measured": None,
            "percent_of_expected": None,
            "verdict": "cannot-measure",
            "detail": str(detail),
            "messages": {"detail": detail.as_json()},
            "file": "",
            "lines": [],
            "base_file": "",
            "metric": "busbw_gbps",
            "collective": collective,
            "gpus_per_node": None,
            "pass_ratio": SCALING_PASS,
        }
        rows.append(_worded(row))
    return rows
