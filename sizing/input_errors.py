"""The engine's input errors as a buyer reads them: the field by its label, the reason in the page's language.

The engine (pure, no Django) raises `InputError(field, reason)` whose reason is a `hardware.messages.Msg`:
English text for the CLI, `str(err)` and the API, with its message id and values. Here the field's code
(`workload.seq_len`, `offering.nvlink_domain_gpus`) becomes its label and the reason is translated by its
message id (`portal.i18n`), so a Chinese page shows neither English nor a code; a reason that names one of
the engine's codes is worded for a page in every language (`sizing.engine_words`), never for the API.
"""

from __future__ import annotations

from collections.abc import Mapping

from django.core.exceptions import ValidationError

from hardware.messages import Msg, _
from portal.i18n import shown, translated
from providers.facts import FACTS_BY_NAME
from sizing.engine.errors import InputError
from sizing.engine.unpublished import FACT_WORDS
from sizing.engine_words import page_worded
from sizing.models import WORKLOAD_BOUNDS

# Fields the engine names that have no bound (WORKLOAD_BOUNDS) and no fact label: their labels on the pages.
OTHER_LABELS = {
    "workload": "Workload",
    "workload.precision": "Precision",
    "workload.activation": "Activation",
    "workload.attention": "Attention",
    "workload.linear_bias": "Biases on the linear layers",
    "workload.rope": "Rotary embeddings",
    "workload.moe": "MoE experts",
    "offering": "Offering",
    "gpus": "GPU count",
    "deadline_days": "Deadline",
    "objective": "Objective",
    "layout": "Layout",
}

# The layout's parallel degrees (tensor, pipeline, data, context, expert, expert-tensor).
PARALLEL_DEGREES = ("tp", "pp", "dp", "cp", "ep", "etp")


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
        key = field.removeprefix("layout.")
        # a parallel degree by the abbreviation the frameworks print (TP, PP), another setting in words
        key = key.upper() if key in PARALLEL_DEGREES else key.replace("_", " ").replace("%", "%%")
        return _("%(layout)s %(key)s", layout=Msg(OTHER_LABELS["layout"]), key=key)
    # an input with no label: its last name in words, never with underscores (a code)
    words = field.rsplit(".", 1)[-1].replace("_", " ")
    return Msg(words.replace("%", "%%"))


def input_error_message(exc: InputError) -> Msg:
    """ "Sequence length: must be ..." as a message: the field's label and the engine's reason."""
    return _("%(field)s: %(reason)s", field=field_label(exc.field), reason=exc.reason)


def input_error_reason(exc: InputError) -> str:
    """The engine's reason alone in the active language, in the engine's words (the API's error body)."""
    return shown(exc.reason, exc.message)


def input_error_page_reason(exc: InputError) -> str:
    """The engine's reason alone as a page puts it beside its field: in the page's language, a code it
    names in a buyer's words (sizing.engine_words)."""
    return translated(page_worded(exc.message), str(exc.reason))


def input_error_text(exc: InputError) -> str:
    """The field's label and the reason as a page shows them (input_error_page_reason)."""
    message = input_error_message(exc)
    return translated(page_worded(message.as_json()), str(message))


def refusal_shown(exc: ValidationError, page_reasons: Mapping[str, str] | None = None) -> ValidationError:
    """A service's ValidationError as a form shows it: where the engine refused the input (the service
    chains its InputError), its reason in the page's words; an error that is a message (a `Msg`, whose
    English the API prints) in the page's language and words (the caller's `page_reasons` too: the API's
    message id -> the page's); any other error as it is."""
    cause = exc.__cause__
    one_field = len(getattr(exc, "error_dict", {})) == 1
    if isinstance(cause, InputError) and cause.reason != "missing" and one_field:
        (field,) = exc.error_dict
        return ValidationError({field: input_error_page_reason(cause)})
    errors = getattr(exc, "error_dict", {})
    if not any(isinstance(error.message, Msg) for each in errors.values() for error in each):
        return exc
    return ValidationError(
        {
            field: [_message_shown(error, page_reasons or {}) for error in errors]
            for field, errors in exc.error_dict.items()
        }
    )


def _message_shown(error: ValidationError, page_reasons: Mapping[str, str]) -> ValidationError | str:
    message = error.message
    if isinstance(message, Msg) and not error.params:
        stored = message.as_json()
        stored["msgid"] = page_reasons.get(stored["msgid"], stored["msgid"])
        return translated(page_worded(stored), str(message))
    return error
