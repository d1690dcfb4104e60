"""Plain-words summary of a run's winner, derived from the sizing result (not from fixed rules)."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop, ngettext

from hardware import fabric_name, intra_node_name
from hardware.numbers import number_text
from portal.formats import days_text, percent_text
from portal.i18n import translated_text
from portal.money import active
from providers.names import gpu_vendor
from sizing.engine.unpublished import fact_value_text, fact_words
from sizing.models import Rope


def _join(parts: list[str]) -> str:
    if len(parts) == 1:
        return parts[0]
    return _("%(head)s and %(last)s") % {"head": _(", ").join(parts[:-1]), "last": parts[-1]}


def parallelism_words(layout: dict[str, Any]) -> str:
    """E.g. "4-way tensor parallelism, 8 pipeline stages and 12-way data parallelism (3D) with ZeRO-1"
    (in the active language)."""
    tp, pp, dp = layout.get("tp", 1), layout.get("pp", 1), layout.get("dp", 1)
    cp, ep = layout.get("cp") or 1, layout.get("ep") or 1
    parts = []
    if tp > 1:
        parts.append(_("%(n)d-way tensor parallelism") % {"n": tp})
    if pp > 1:
        parts.append(_("%(n)d pipeline stages") % {"n": pp})
    if cp > 1:
        parts.append(_("%(n)d-way context parallelism") % {"n": cp})
    if ep > 1:
        parts.append(_("%(n)d-way expert parallelism") % {"n": ep})
    if dp > 1:
        parts.append(_("%(n)d-way data parallelism") % {"n": dp})
    if not parts:
        return str(_("a single GPU"))
    words = _join(parts)
    if tp > 1 and pp > 1 and dp > 1:
        words = _("%(words)s (3D parallelism)") % {"words": words}
    if layout.get("zero"):
        words = _("%(words)s with ZeRO-%(stage)d") % {"words": words, "stage": layout["zero"]}
    return words


def _where(result: Any, offering: dict[str, Any]) -> str:
    nodes = result.nodes or 1
    gpus_per_node = offering.get("gpus_per_node") or result.offering.gpus_per_node
    # the GPU's vendor names a direct mesh by its link (Infinity Fabric on AMD): the offering's GPU row, else
    # the hardware table's entry for the stored facts' GPU key
    vendor = gpu_vendor(getattr(result.offering, "gpu", None)) or gpu_vendor(offering.get("gpu"))
    name = intra_node_name(offering.get("intra_node") or result.offering.intra_node or "", vendor)
    intra = _(name) if name else ""
    where = ngettext(
        "%(nodes)d node of %(per_node)d %(intra)s GPUs",
        "%(nodes)d nodes of %(per_node)d %(intra)s GPUs",
        nodes,
    ) % {"nodes": nodes, "per_node": gpus_per_node, "intra": intra}
    return where.replace("  ", " ")


def _fabric(result: Any, offering: dict[str, Any]) -> str:
    fabric_key = offering.get("fabric") or result.offering.fabric
    if (result.nodes or 1) <= 1 or not fabric_key:
        return ""
    fabric = _(fabric_name(fabric_key))
    text = (
        _(", across an %(fabric)s fabric") if fabric[0] in "AEIOU" else _(", across a %(fabric)s fabric")
    ) % {"fabric": fabric}
    gbps = result.offering.gbps_per_nic
    if gbps:
        text += _(" at %(gbps)s Gb/s per port") % {"gbps": f"{gbps:g}"}
    return text


def _reason(result: Any) -> str:
    """Why an infeasible result cannot train the job (in the active language where stored as a message)."""
    return (
        getattr(result, "shown_infeasible_reason", None)
        or getattr(result, "infeasible_reason", None)
        or "; ".join((result.sizing or {}).get("reasons") or [])
    )


def result_sentence(workload_name: str, result: Any) -> str:
    """The headline of one offering's result page: winner_sentence's words for a result that can train the
    job; for one that cannot, why this offering cannot (other offerings of the run may)."""
    if result.feasible:
        return winner_sentence(workload_name, result)
    return _("%(offering)s cannot train %(workload)s: %(reason)s") % {
        "offering": result.offering.name,
        "workload": workload_name,
        "reason": _reason(result),
    }


def winner_sentence(workload_name: str, result: Any) -> str:
    """E.g. "13b fits 1 node of 8 full-mesh (NVSwitch) GPUs on X, using 8-way data parallelism with ZeRO-1:
    20.1 days (deadline 30), $12,345." Every word comes from the result, none from a fixed rule; in the
    active language and currency (portal.money.shown_in)."""
    sizing = result.sizing or {}
    offering = sizing.get("offering") or {}
    if not result.feasible:
        return _("No offering in this run can train %(workload)s: %(reason)s") % {
            "workload": workload_name,
            "reason": _reason(result),
        }
    name = result.offering.name + (_(" (fictional sample)") if result.offering.fictional else "")
    text = _("%(workload)s fits %(where)s on %(name)s, using %(parallelism)s") % {
        "workload": workload_name,
        "where": _where(result, offering),
        "name": name,
        "parallelism": parallelism_words(result.layout),
    }
    text += _fabric(result, offering)
    text += _(": %(days)s days") % {"days": days_text(result.train_days)}
    if sizing.get("deadline_days") and sizing.get("meets_deadline"):
        text += _(" (deadline %(days)s)") % {"days": f"{sizing['deadline_days']:g}"}
    if result.cost_total_usd is not None:
        text += _(", %(cost)s") % {"cost": cost_words(result)}
    return _("%(sentence)s.") % {"sentence": text}


def cost_words(result: Any) -> str:
    """ "$1,234" for a complete bill; the central estimate and its range when some fees are not published
    (in the active currency)."""
    money = active()
    if result.cost_complete:
        return money.text(result.cost_total_usd, 0)
    low, high = getattr(result, "cost_low_usd", None), getattr(result, "cost_high_usd", None)
    if low is not None and high is not None:
        span = _("%(low)s to %(high)s") % {"low": money.text(low, 0), "high": money.text(high, 0)}
    else:
        span = str(_("range unknown"))
    return _("about %(central)s (%(span)s: some fees are not published)") % {
        "central": money.text(result.cost_total_usd, 0),
        "span": span,
    }


def tokens_text(tokens: float | None) -> str:
    if not tokens:
        return ""
    for scale, unit in ((1e12, "T"), (1e9, "B"), (1e6, "M")):
        if tokens >= scale:
            return f"{tokens / scale:g}{unit}"
    return f"{tokens:g}"


def head_facts(workload: Any) -> list[str]:
    """What a workload states about its attention and prediction heads, in the page's language (nothing
    for one that states none: the engine's defaults, or its preset's)."""
    facts = []
    if workload.head_dim is not None:
        facts.append(_("head width %(n)s") % {"n": workload.head_dim})
    if workload.qk_head_dim is not None:
        facts.append(_("query/key heads %(n)s wide") % {"n": workload.qk_head_dim})
    if workload.v_head_dim is not None:
        facts.append(_("value heads %(n)s wide") % {"n": workload.v_head_dim})
    if workload.mtp_layers is not None:
        n = workload.mtp_layers
        modules = ngettext("%(n)s multi-token prediction module", "%(n)s multi-token prediction modules", n)
        facts.append(modules % {"n": n})
    if workload.sliding_window is not None:
        window = {"tokens": f"{workload.sliding_window:,}"}
        if workload.sliding_window_layers is None:
            facts.append(_("sliding window of %(tokens)s tokens") % window)
        else:
            window["share"] = percent_text(workload.sliding_window_layers)
            facts.append(_("sliding window of %(tokens)s tokens on %(share)s of the layers") % window)
    return facts


def layer_detail_facts(workload: Any) -> list[str]:
    """What a workload states about its activation clamp, linear biases and rotary embeddings, in the page's
    language (nothing for a standard model's)."""
    facts = []
    if workload.glu_clamp is not None:
        facts.append(_("gated activation clamped at %(value)s") % {"value": number_text(workload.glu_clamp)})
    if workload.linear_bias:
        facts.append(_("biases on the linear layers"))
    if workload.rope == Rope.YARN:
        facts.append(_("YaRN rotary embeddings"))
    return facts


def pessimistic_sentence(result: Any) -> str:
    """What the same layout does if every assumed fact is at its pessimistic value (after the words "If the
    pessimistic values hold"), in the active language and currency (portal.money.shown_in); "" if none."""
    worse = result.pessimistic or {}
    if not worse:
        return ""
    vendor = gpu_vendor(getattr(result.offering, "gpu", None))
    facts = _(", ").join(  # "、" between a Chinese page's facts
        " ".join(
            (
                translated_text(fact_words(fact, vendor)),
                translated_text(fact_value_text(fact, value, vendor)),
            )
        )
        for fact, value in (worse.get("facts") or {}).items()
    )
    if worse.get("train_days") is None:
        what = _("cannot be sized")
    else:
        what = _("takes %(days)s days instead of %(was)s") % {
            "days": days_text(worse["train_days"]),
            "was": days_text(result.train_days),
        }
        if worse.get("cost_total_usd"):
            what += _(" and costs about %(cost)s instead of %(was)s") % {
                "cost": active().text(worse["cost_total_usd"], 0),
                "was": active().text(result.cost_total_usd, 0, missing="—"),
            }
        if not worse.get("feasible"):
            what += _(", and does not fit")
    return _(
        "(%(facts)s), the same layout on %(gpus)s GPUs %(what)s. Ask the provider for these facts before you "
        "sign."
    ) % {"facts": facts, "gpus": f"{result.gpus or 0:,}", "what": what}


# The engine's memory and step-time parts (keys of `memory_gib_per_gpu` and `iteration_breakdown_s`) as
# buyers read them; a part the engine adds later is shown by its key in words.
MEMORY_LABELS = {
    "weights": gettext_noop("weights"),
    "grads": gettext_noop("gradients"),
    "optimizer": gettext_noop("optimizer states"),
    "gathered_params": gettext_noop("gathered parameters (ZeRO-3)"),
    "activations": gettext_noop("activations"),
    "overhead": gettext_noop("framework overhead"),
    "total": gettext_noop("total"),
}
ITERATION_LABELS = {
    "compute": gettext_noop("compute"),
    "recompute": gettext_noop("forward work recomputed in the backward pass"),
    "tp_comm": gettext_noop("tensor-parallel communication"),
    "pp_comm": gettext_noop("pipeline-parallel communication"),
    "dp_comm": gettext_noop("data-parallel communication"),
    "ep_comm": gettext_noop("expert-parallel communication"),
    "cp_comm": gettext_noop("context-parallel communication"),
    "bubble": gettext_noop("pipeline bubble"),
    "sync": gettext_noop("waiting for the slowest data-parallel replica"),
    "other": gettext_noop("elementwise work and optimizer step"),
    "total": gettext_noop("total"),
}


def part_label(part: str, labels: dict[str, str]) -> str:
    """A memory or step-time part in the page's language ("tp_comm" -> "tensor-parallel communication")."""
    return _(labels[part]) if part in labels else part.replace("_", " ")


def labelled(values: dict[str, Any], labels: dict[str, str]) -> list[tuple[str, Any]]:
    """(label, value) of each part, in the labels' order, then any other part by its key."""
    known = [k for k in labels if k in values]
    return [(part_label(k, labels), values[k]) for k in known + sorted(set(values) - set(known))]
