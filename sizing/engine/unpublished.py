"""Facts the model needs and an offering does not publish: filled in with the value typical for its class
(hardware.norms), each recorded as an assumption with its basis and the pessimistic value beside it.

Never a silent worst case, never a zero: the model sizes with the typical value, the answer lists every
assumption (`assumed_facts`), and `pessimistic_facts` gives the facts a buyer should weigh against it.
"""

from __future__ import annotations

import math
from typing import Any

from hardware import GPUS, fabric_name, gpu_shown, gpus_named_in, intra_node_name
from hardware.messages import _
from hardware.norms import Assumed, Norm, norm_for, offering_class
from hardware.numbers import power_of_ten_text
from providers.facts import VENDOR_LABELS

# In dependency order: the GPU decides the class of the rest, the fabric the NIC rows.
FILLED_FACTS = (
    "gpus_per_node",
    "nvlink_domain_gpus",
    "intra_node",
    "fabric",
    "nics_per_node",
    "gbps_per_nic",
    "oversubscription",
    "max_nodes",
    "failure_rate_per_gpu_hour",
    "auto_bad_node_detection",
    "auto_replacement",
    "auto_checkpoint_restart",
)


def _gpu_from_label(facts: dict[str, Any]) -> Assumed | None:
    """An offering that gives no GPU key but names one (or several) in its published label."""
    label = facts.get("gpu_label")
    named = gpus_named_in(label)
    if not named:
        return None
    first = named[0]
    basis = f"read from the GPU as published ({label!r})"
    if len({gpu.key for gpu in named}) > 1:
        others = ", ".join(dict.fromkeys(gpu.name for gpu in named[1:] if gpu.key != first.key))
        basis += (
            f"; the offering lists several GPU models: sized on the first ({first.name}), not on {others}"
        )
    return Assumed("gpu", first.key, basis)


def _scaled(norm: Norm, value: Any, facts: dict[str, Any]) -> Any:
    """Per-GPU rows in the node's or the cluster's terms (NICs per node, nodes in the cluster)."""
    if value is None or not norm.per_gpu:
        return value
    gpus_per_node = int(facts.get("gpus_per_node") or 8)
    if norm.fact == "max_nodes":
        return max(1, math.floor(value / gpus_per_node))
    return max(1, round(value * gpus_per_node))


def _fill(facts: dict[str, Any], fact: str) -> Assumed | None:
    if fact == "max_nodes" and facts.get("nodes") is not None:
        return None  # the CLI's `nodes` is the published cluster size
    norm = norm_for(fact, offering_class(facts))
    if norm is None:
        return None
    typical = _scaled(norm, norm.typical, facts)
    facts[fact] = typical
    return Assumed(fact, typical, norm.basis, _scaled(norm, norm.pessimistic, facts))


def complete_facts(facts: dict[str, Any]) -> tuple[dict[str, Any], list[Assumed]]:
    """A copy of the facts with every unpublished fact the model needs set to its class norm, and the list of
    what was assumed. Published values (including False and 0 where they are valid) are never touched."""
    filled = dict(facts)
    assumed: list[Assumed] = []
    if not filled.get("gpu"):
        from_label = _gpu_from_label(filled)
        guess = from_label or _fill(filled, "gpu")
        if from_label is not None:
            filled["gpu"] = from_label.assumed
        if guess is not None:
            assumed.append(guess)
    for fact in FILLED_FACTS:
        if filled.get(fact) is None:
            record = _fill(filled, fact)
            if record is not None:
                assumed.append(record)
    return filled, assumed


def pessimistic_facts(facts: dict[str, Any], assumed: list[Assumed]) -> dict[str, Any] | None:
    """The facts with every assumed value that has a pessimistic counterpart set to it; None when no
    assumption has one (nothing to weigh)."""
    worse = {a.fact: a.pessimistic for a in assumed if a.pessimistic is not None}
    if not worse:
        return None
    out = dict(facts)
    out.update(worse)
    if worse.get("gpu") is not None and worse["gpu"] not in GPUS:
        out.pop("gpu")
    return out


# How the one-line assumptions name the facts (docs/FACTS.md names, in words).
FACT_WORDS = {
    "gpu": _("GPU model"),
    "gpus_per_node": _("GPUs per node"),
    "nvlink_domain_gpus": _("NVLink domain"),
    "intra_node": _("intra-node interconnect"),
    "fabric": _("inter-node fabric"),
    "nics_per_node": _("GPU-fabric NICs per node"),
    "gbps_per_nic": _("Gb/s per NIC"),
    "oversubscription": _("oversubscription"),
    "max_nodes": _("maximum nodes"),
    "failure_rate_per_gpu_hour": _("failure rate per GPU-hour"),
    "auto_bad_node_detection": _("automatic bad-node detection"),
    "auto_replacement": _("automatic node replacement"),
    "auto_checkpoint_restart": _("automatic checkpoint/restart"),
}
# ... and in neutral words where the usual name is NVIDIA's link, on the GPUs whose labels say so
# (providers.facts.VENDOR_LABELS: AMD and Huawei).
_VENDOR_FACT_WORDS = {
    (fact, vendor): _("scale-up domain") for fact, vendor in VENDOR_LABELS if fact == "nvlink_domain_gpus"
}


def fact_words(fact: Any, vendor: str | None = None) -> Any:
    """How an assumption names `fact` (FACT_WORDS) on a GPU of `vendor`'s; an unknown fact as it is."""
    return _VENDOR_FACT_WORDS.get((fact, vendor or "")) or FACT_WORDS.get(fact, fact)


def value_text(value: Any) -> str:
    """A fact value as buyers read it: yes/no, small rates in 3 significant digits, counts with commas."""
    if isinstance(value, bool):
        return _("yes") if value else _("no")
    if isinstance(value, float) and value < 1e-3:
        return power_of_ten_text(value) if value else "0"  # 2.1 × 10⁻⁵, never Python's 2.1e-05
    if isinstance(value, int | float):
        return f"{value:,g}"
    return str(value)


def fact_value_text(fact: str | None, value: Any, vendor: str | None = None) -> str:
    """A fact's value as buyers read it: an intra-node kind or a fabric by its name ("full-mesh (NVSwitch)",
    "InfiniBand"), never its code, a direct mesh by the link of the GPU `vendor`'s ("full-mesh (Infinity
    Fabric)" on AMD); any other value as value_text gives it."""
    if fact == "intra_node" and isinstance(value, str):
        return intra_node_name(value, vendor)
    if fact == "fabric" and isinstance(value, str):
        return fabric_name(value)
    if fact == "gpu" and (name := gpu_shown(value)) is not None:
        return name
    return value_text(value)


def assumption_text(assumed: Assumed, vendor: str | None = None) -> str:
    """The one-line form the `assumptions` list of the answer carries (`vendor`: the GPU's, which names a
    direct mesh)."""
    words = fact_words(assumed.fact, vendor)
    return _(
        "%(fact)s not published: %(value)s assumed (%(basis)s)",
        fact=words,
        value=fact_value_text(assumed.fact, assumed.assumed, vendor),
        basis=assumed.basis,
    )
