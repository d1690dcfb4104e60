"""The engine's input errors as a buyer reads them: the field by its label, the reason in the page's language.

The engine (pure, no Django) raises `InputError(field, reason)` whose reason is a `hardware.messages.Msg`:
English text for the CLI, `str(err)` and the API, with its message id and values. Here the field's code
(`workload.seq_len`, `offering.nvlink_domain_gpus`) becomes its label and the reason is translated by its
message id (`portal.i18n`), so a Chinese page shows neither English nor a code.
"""

from __future__ import annotations

from hardware.messages import Msg, _
from portal.i18n import shown
from providers.facts import FACTS_BY_NAME
from sizing.engine.errors import InputError
from sizing.engine.unpublished import FACT_WORDS
from sizing.models import WORKLOAD_BOUNDS

# Fields the engine names that have no bound (WORKLOAD_BOUNDS) and no fact label: their labels on the pages.
OTHER_LABELS = {
    "workload": "Workload",
    "workload.precision": "Precision",
    "workload.activation": "Activation",
    "workload.attention": "Attention",
    "workload.moe": "MoE experts",
    "offering": "Offering",
    "gpus": "GPU count",
    "deadline_days": "Deadline",
    "objective": "Objective",
    "layout": "Layout",
}


def _workload_field(field: str) -> str:
    """`workload.moe.top_k` -> `moe_top_k`, the name WORKLOAD_BOUNDS and the form use."""
    return field.removeprefix("workload.").replace(".", "_")


def field_label(field: str) -> Msg:
    """The label of the input an engine error names, as a message (translated where it is shown)."""
    if field in OTHER_LABELS:
        return Msg(OTHER_LABELS[field])
    if field.startswith("workload.") and (bound := WORKLOAD_BOUNDS.get(_workload_field(field))):
        return Msg(bound.label)
    if field.startswith("offering."):
        key = field.removeprefix("offering.")
        key = "max_nodes" if key == "nodes" else key
        if key in FACT_WORDS:
            return FACT_WORDS[key]
        if key in FACTS_BY_NAME:
            return Msg(FACTS_BY_NAME[key].label)
    if field.startswith("layout."):
        # the layout's setting named in words ("Layout zero", not "Layout" alone for every setting)
        key = field.removeprefix("layout.").replace("_", " ").replace("%", "%%")
        return _("%(layout)s %(key)s", layout=Msg(OTHER_LABELS["layout"]), key=key)
    # an input with no label: its last name in words, never with underscores (a code)
    words = field.rsplit(".", 1)[-1].replace("_", " ")
    return Msg(words.replace("%", "%%"))


def input_error_message(exc: InputError) -> Msg:
    """ "Sequence length: must be ..." as a message: the field's label and the engine's reason."""
    return _("%(field)s: %(reason)s", field=field_label(exc.field), reason=exc.reason)


def input_error_reason(exc: InputError) -> str:
    """The engine's reason alone (the form puts it beside its field) in the page's language."""
    return shown(exc.reason, exc.message)


def input_error_text(exc: InputError) -> str:
    """The field's label and the reason, in the page's language."""
    return shown(input_error_message(exc))
