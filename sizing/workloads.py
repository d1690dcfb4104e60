"""Workloads: the fields a buyer may give, a preset's, their bounds, and creating and validating one through
the engine; and the model the sizing takes for a stored workload."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from django.core.exceptions import ValidationError
from django.utils.translation import gettext, gettext_noop

from hardware.numbers import bound_operand
from portal.i18n import shown
from sizing.engine.errors import InputError
from sizing.engine.workload import PRESETS, workload_from_dict, workload_preset
from sizing.input_errors import input_error_reason
from sizing.models import (
    DEFAULT_DEADLINE_DAYS,
    HEAD_FIELDS,
    LAYER_DETAIL_FIELDS,
    MOE_FIELDS,
    WORKLOAD_BOUNDS,
    Workload,
)
from sizing.presets import preset_label

WORKLOAD_FIELDS = (
    "params",
    "layers",
    "hidden",
    "heads",
    "kv_heads",
    "ffn_hidden",
    "vocab",
    "seq_len",
    "activation",
    "tied_embeddings",
    "global_batch",
    "train_tokens",
    "precision",
    "attention",
    "optimizer",
    "deadline_days",
    "budget_usd",
    "checkpoints_retained",
    "dataset_size_gb",
    "moe_experts",
    "moe_top_k",
    "moe_expert_ffn_hidden",
    "moe_shared_experts",
    "moe_dense_layers",
    *HEAD_FIELDS,
    *LAYER_DETAIL_FIELDS,
)


def engine_field_to_form_field(field: str) -> str:
    """`workload.moe.top_k` -> `moe_top_k`, `workload.heads` -> `heads` (the names of the form and API)."""
    name = field.removeprefix("workload").lstrip(".")
    if name.startswith("moe."):
        return "moe_" + name.removeprefix("moe.")
    if name in ("", "moe"):
        return "__all__" if name == "" else "moe_experts"
    return name


def preset_fields(name: str) -> dict[str, Any]:
    """The workload fields of a DESIGN section 2 preset (ValidationError naming `preset` if unknown)."""
    try:
        wl = workload_preset(name)
    except InputError as exc:
        raise ValidationError({"preset": input_error_reason(exc)}) from exc
    out: dict[str, Any] = {
        k: getattr(wl, k)
        for k in ("layers", "hidden", "heads", "kv_heads", "ffn_hidden", "vocab", "seq_len", "activation")
    }
    out.update(
        tied_embeddings=wl.tied_embeddings,
        global_batch=wl.global_batch,
        train_tokens=wl.train_tokens,
        precision=wl.precision,
        attention=wl.attention,
    )
    if wl.moe is not None:
        out.update({f"moe_{k}": v for k, v in asdict(wl.moe).items() if f"moe_{k}" in WORKLOAD_FIELDS})
    # the clamp, biases and rotary kind a preset states (its dict leaves out the engine's defaults): stored
    # with the workload like its other facts; unstated ones stay null
    stated = wl.to_dict()
    out.update({k: stated[k] for k in LAYER_DETAIL_FIELDS if stated.get(k) is not None})
    return out


def workload_bound_errors(values: dict[str, Any]) -> dict[str, str]:
    """The fields of `values` outside sizing.models.WORKLOAD_BOUNDS, each with its message."""
    errors: dict[str, str] = {}
    for field, bound in WORKLOAD_BOUNDS.items():
        value = values.get(field)
        if value is None or isinstance(value, bool):
            continue
        try:
            number = bound_operand(value)
        except (TypeError, ValueError):
            continue  # not a number: the model's own field validation names it
        message = bound.error(number)
        if message:
            errors[field] = message
    return errors


UNKNOWN_FIELD = gettext_noop("unknown field")
NO_SIZE = gettext_noop("give the architecture (layers, hidden, heads) or a parameter count")
MISSING = gettext_noop("needed for a custom architecture (or choose a preset)")
PARAMS_WITH_SHAPE = gettext_noop(
    "give a parameter count or the architecture (a preset, or layers, hidden and heads), not both: "
    "the architecture decides the size"
)


def preset_name(preset: str) -> str:
    """A workload's default name: its preset's as a buyer knows it ("Llama 3 70B", not "llama3-70b"), in the
    language of the request that creates it; "custom" without a preset."""
    if not preset:
        return gettext("custom")
    return preset_label(preset)


def workload_create(*, owner: Any, name: str = "", preset: str = "", **fields: Any) -> Workload:
    """Create a workload from a preset (fields given override it) or from its fields; validated by the engine
    (ValidationError naming the form field)."""
    values: dict[str, Any] = {}
    if preset:
        values.update(preset_fields(preset))
    unknown = set(fields) - set(WORKLOAD_FIELDS)
    if unknown:
        raise ValidationError({sorted(unknown)[0]: gettext(UNKNOWN_FIELD)})
    given = {k: v for k, v in fields.items() if v is not None and v != ""}
    values.update(given)
    if values.get("layers") is not None:
        if "params" in given:
            # The architecture decides the size: a parameter count given beside it would be dropped unseen.
            raise ValidationError({"params": gettext(PARAMS_WITH_SHAPE)})
        values.pop("params", None)
    # Bounds first (the engine is never given a billion layers); the messages name the field and range.
    errors = workload_bound_errors(values)
    if errors:
        raise ValidationError(errors)
    deadline_default = values.get("deadline_days") is None
    if deadline_default:
        values["deadline_days"] = DEFAULT_DEADLINE_DAYS
    workload = Workload(
        owner=owner,
        name=name or preset_name(preset),
        preset=preset,
        deadline_default=deadline_default,
        **values,
    )
    workload_validate(workload=workload)
    workload.full_clean()
    workload.save()
    return workload


def workload_validate(*, workload: Workload) -> None:
    """A workload the engine takes (a size, heads dividing hidden, a window within the sequence...), else a
    ValidationError naming the form field with the engine's reason; for every form that stores one."""
    # Before the engine, which would name only the parameter count and call it "missing".
    if workload.layers is None and workload.params is None:
        raise ValidationError({"params": gettext(NO_SIZE)})
    try:
        workload_from_dict(workload.to_engine_dict())
    except InputError as exc:
        reason = gettext(MISSING) if exc.reason == "missing" else input_error_reason(exc)
        raise ValidationError({engine_field_to_form_field(exc.field): reason}) from exc


SIZED_AS_FIELDS = (
    *("layers", "hidden", "heads", "kv_heads", "ffn_hidden", "vocab"),
    *("activation", "tied_embeddings"),
)


def workload_sized_as(workload: Workload) -> dict[str, Any] | None:
    """The model the engine sizes for this workload: the shape a bare parameter count derives, or the
    published model's its name and count give (architectures.named), its parameters and the engine's notes
    on what it took, in the active language. None if the engine refuses the stored fields."""
    try:
        wl = workload_from_dict(workload.to_engine_dict())
    except InputError:
        return None
    echo = wl.to_dict()
    moe = echo.get("moe")
    return {
        **{name: echo[name] for name in SIZED_AS_FIELDS},
        "moe": {k: v for k, v in moe.items() if k in MOE_FIELDS} if moe else None,
        "params_total": wl.total_params(),
        "params_active": wl.active_params(),
        "assumptions": [shown(note) for note in wl.notes],
    }


def known_presets() -> list[str]:
    return list(PRESETS)
