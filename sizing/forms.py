"""Shape validation of the planner's input; invariants are the engine's (through services.workload_create)."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django import forms
from django.core.exceptions import ValidationError
from django.utils.translation import gettext, gettext_noop

from portal.constraints import range_validators
from portal.form_errors import add_form_errors
from portal.i18n import translated_hint
from providers.models import Offering
from sizing.engine.workload import PRESETS
from sizing.engine_words import OPTIMIZER_NAMES, optimizer_words
from sizing.models import (
    HEAD_FIELDS,
    LAYER_DETAIL_FIELDS,
    WORKLOAD_BOUNDS,
    Activation,
    Attention,
    Objective,
    Precision,
    Rope,
    Workload,
)
from sizing.presets import PRESET_LABELS
from sizing.services import DEFAULT_DEADLINE_DAYS, MAX_RUN_GPUS, workload_validate

OPTIMIZER_NOT_STATED = gettext_noop("by GPU: Adam, as its frameworks keep it")
# What the form shows in words, marked for translation (the labels come from the bounds table, the fields and
# the model's choices; PlanForm translates them when it is drawn, in the page's language).
FORM_MESSAGES = (
    gettext_noop("Preset"),
    gettext_noop("custom (fill in the shape or a parameter count)"),
    gettext_noop("Name"),
    gettext_noop("defaults to the preset's name"),
    gettext_noop("Parameters"),
    gettext_noop("e.g. 175e9, when no shape is given"),
    gettext_noop("Layers"),
    gettext_noop("Hidden size"),
    gettext_noop("Attention heads"),
    gettext_noop("KV heads"),
    gettext_noop("GQA"),
    gettext_noop("defaults to the heads"),
    gettext_noop("FFN hidden"),
    gettext_noop("defaults to 4 × hidden"),
    gettext_noop("Vocabulary"),
    gettext_noop("Sequence length"),
    gettext_noop("Activation"),
    gettext_noop("preset / default"),
    gettext_noop("Attention"),
    gettext_noop("fused kernels keep no attention scores in memory"),
    gettext_noop("Optimizer"),
    gettext_noop(
        "what each GPU keeps per parameter for the weights, gradients and optimizer state, "
        "before ZeRO shards it"
    ),
    gettext_noop("preset / by GPU"),
    gettext_noop("by GPU (unfused on A100, fused elsewhere)"),
    gettext_noop("fused (FlashAttention)"),
    gettext_noop("unfused (scores materialised)"),
    gettext_noop("MoE experts"),
    gettext_noop("MoE top-k"),
    gettext_noop("Expert FFN hidden"),
    gettext_noop("Shared experts"),
    gettext_noop("Leading dense layers"),
    gettext_noop("Head width"),
    gettext_noop("the width of each attention head"),
    gettext_noop("empty: the published model's value when the shape is one, else hidden size ÷ heads"),
    gettext_noop("Query/key head width"),
    gettext_noop("for latent attention (DeepSeek-V3: 192)"),
    gettext_noop("Value head width"),
    gettext_noop("for latent attention (DeepSeek-V3: 128)"),
    gettext_noop("empty: the published model's value when both widths are empty, else the head width"),
    gettext_noop("Multi-token prediction modules"),
    gettext_noop("each predicts one more token ahead (DeepSeek-V3: 1)"),
    gettext_noop("empty: none"),
    gettext_noop("Sliding window"),
    gettext_noop("each token attends only to this many tokens before it"),
    gettext_noop("empty: the published model's value, else the whole sequence"),
    gettext_noop("tokens"),
    gettext_noop("Layers with the window"),
    gettext_noop("the share of the layers that use it (every other layer: 0.5)"),
    gettext_noop("empty: the published model's share when the window is empty too, else all of them"),
    gettext_noop("Clamp of the gated activation"),
    gettext_noop("the largest value let into the gated activation (gpt-oss: 7)"),
    gettext_noop("empty: the published model's value, else no clamp"),
    gettext_noop("Biases on the linear layers"),
    gettext_noop("each linear layer adds a learned bias (gpt-oss: yes)"),
    gettext_noop("Rotary embeddings"),
    gettext_noop("standard, or YaRN for a context stretched past its training length (gpt-oss: YaRN)"),
    gettext_noop("preset / published model / standard"),
    gettext_noop("preset / published model / none"),
    gettext_noop("standard (RoPE)"),
    gettext_noop("YaRN (stretched for long contexts)"),
    gettext_noop("Global batch"),
    gettext_noop("sequences per iteration"),
    gettext_noop("Training tokens"),
    gettext_noop("e.g. 300e9"),
    gettext_noop("Precision"),
    gettext_noop("preset / bf16"),
    gettext_noop("Deadline (days)"),
    gettext_noop("left empty: 90 days"),
    gettext_noop("Budget (USD)"),
    gettext_noop("Checkpoints kept"),
    gettext_noop("Dataset size (GB)"),
    gettext_noop("Objective"),
    gettext_noop("Cheapest within the deadline"),
    gettext_noop("Fastest within the budget"),
    gettext_noop("GPU count"),
    gettext_noop("size every offering at exactly this many GPUs; empty: the best cluster size for each"),
    gettext_noop("Include the fictional sample offerings"),
    gettext_noop("teaching examples, not real offers; left out unless ticked"),
    gettext_noop("Offerings"),
    gettext_noop("none selected: the whole catalog"),
    gettext_noop("sequences"),
    gettext_noop("days"),
    gettext_noop("GB"),
)


def attribute_number(value: float) -> str:
    """A bound as an input's min or max in plain decimal digits ("400000000000000", "0.00001"), never in
    Python's exponent form ("4e+14", as `:g` wrote it), which not every reader of the page takes."""
    if float(value).is_integer():
        return str(int(value))
    return format(Decimal(repr(float(value))), "f")  # the float's shortest digits, never an exponent


def _bounded(name: str, help_text: str = "", step: str = "any") -> dict[str, Any]:
    """A bounded field's arguments: the model's validator (one message naming the field and the range), the
    range as a hint, and min/max on the browser's input."""
    bound = WORKLOAD_BOUNDS[name]
    hint = f"{help_text}; {bound.range_text()}" if help_text else bound.range_text()
    attrs: dict[str, Any] = {"step": step}
    if bound.minimum is not None:
        attrs["min"] = attribute_number(bound.minimum)
    if bound.maximum is not None:
        attrs["max"] = attribute_number(bound.maximum)
    return {
        "label": bound.label,
        "required": False,
        "validators": range_validators(bound),
        "help_text": hint,
        "widget": forms.NumberInput(attrs=attrs),
    }


def _int(name: str, help_text: str = "") -> forms.IntegerField:
    return forms.IntegerField(**_bounded(name, help_text, step="1"))


def _any_stated(fields: list[forms.BoundField]) -> bool:
    """One of `fields` is filled in (stated) or refused: its section is drawn open."""
    return any(field.value() not in (None, "") or field.errors for field in fields)


class PlanForm(forms.Form):
    """A workload (a preset, its overrides, or a custom shape) and the run to size it over the catalog."""

    preset = forms.ChoiceField(
        choices=[("", "custom (fill in the shape or a parameter count)")]
        + [(k, PRESET_LABELS.get(k, k)) for k in PRESETS],
        required=False,
        initial="gpt3-175b",
    )
    name = forms.CharField(max_length=120, required=False, help_text="defaults to the preset's name")
    params = forms.FloatField(**_bounded("params", "e.g. 175e9, when no shape is given"))
    layers = _int("layers")
    hidden = _int("hidden")
    heads = _int("heads")
    kv_heads = _int("kv_heads", "GQA; defaults to the heads")
    ffn_hidden = _int("ffn_hidden", "defaults to 4 × hidden")
    vocab = _int("vocab")
    seq_len = _int("seq_len")
    activation = forms.ChoiceField(
        choices=[("", "preset / default")] + list(Activation.choices), required=False
    )
    attention = forms.ChoiceField(
        choices=[("", "preset / by GPU")] + list(Attention.choices),
        required=False,
        help_text="fused kernels keep no attention scores in memory",
    )
    moe_experts = _int("moe_experts")
    moe_top_k = _int("moe_top_k")
    moe_expert_ffn_hidden = _int("moe_expert_ffn_hidden")
    moe_shared_experts = _int("moe_shared_experts")
    moe_dense_layers = _int("moe_dense_layers")
    head_dim = _int(
        "head_dim",
        "the width of each attention head; "
        "empty: the published model's value when the shape is one, else hidden size ÷ heads",
    )
    qk_head_dim = _int(
        "qk_head_dim",
        "for latent attention (DeepSeek-V3: 192); "
        "empty: the published model's value when both widths are empty, else the head width",
    )
    v_head_dim = _int(
        "v_head_dim",
        "for latent attention (DeepSeek-V3: 128); "
        "empty: the published model's value when both widths are empty, else the head width",
    )
    # a run's choice, never a published model's (architectures.FACT_KEYS leaves it out)
    mtp_layers = _int("mtp_layers", "each predicts one more token ahead (DeepSeek-V3: 1); empty: none")
    sliding_window = _int(
        "sliding_window",
        "each token attends only to this many tokens before it; "
        "empty: the published model's value, else the whole sequence",
    )
    # a window and its share are taken together (architectures.FACT_GROUPS): a stated window is on all layers
    sliding_window_layers = forms.FloatField(
        **_bounded(
            "sliding_window_layers",
            "the share of the layers that use it (every other layer: 0.5); "
            "empty: the published model's share when the window is empty too, else all of them",
        )
    )
    glu_clamp = forms.FloatField(
        **_bounded(
            "glu_clamp",
            "the largest value let into the gated activation (gpt-oss: 7); "
            "empty: the published model's value, else no clamp",
        )
    )
    linear_bias = forms.TypedChoiceField(
        label="Biases on the linear layers",
        choices=[("", "preset / published model / none"), ("yes", "yes"), ("no", "no")],
        coerce=lambda value: value == "yes",
        empty_value=None,
        required=False,
        help_text="each linear layer adds a learned bias (gpt-oss: yes)",
    )
    rope = forms.ChoiceField(
        label="Rotary embeddings",
        choices=[("", "preset / published model / standard")] + list(Rope.choices),
        required=False,
        help_text="standard, or YaRN for a context stretched past its training length (gpt-oss: YaRN)",
    )
    global_batch = _int("global_batch", "sequences per iteration")
    train_tokens = forms.FloatField(**_bounded("train_tokens", "e.g. 300e9"))
    precision = forms.ChoiceField(choices=[("", "preset / bf16")] + list(Precision.choices), required=False)
    # each convention's words and bytes per parameter are drawn in the page's language (__init__)
    optimizer = forms.ChoiceField(
        label="Optimizer",
        choices=[("", OPTIMIZER_NOT_STATED)] + [(code, code) for code in OPTIMIZER_NAMES],
        required=False,
        help_text="what each GPU keeps per parameter for the weights, gradients and optimizer state, "
        "before ZeRO shards it",
    )
    deadline_days = forms.FloatField(
        **{
            **_bounded("deadline_days", f"left empty: {DEFAULT_DEADLINE_DAYS:g} days"),
            "label": "Deadline (days)",
        },
        initial=DEFAULT_DEADLINE_DAYS,
    )
    budget_usd = forms.DecimalField(
        **{**_bounded("budget_usd", step="0.01"), "label": "Budget (USD)"}, decimal_places=2
    )
    checkpoints_retained = forms.IntegerField(**_bounded("checkpoints_retained"), initial=2)
    dataset_size_gb = forms.FloatField(**{**_bounded("dataset_size_gb"), "label": "Dataset size (GB)"})
    objective = forms.ChoiceField(choices=Objective.choices, initial=Objective.CHEAPEST)
    gpus = forms.IntegerField(
        label="GPU count",
        required=False,
        min_value=1,
        max_value=MAX_RUN_GPUS,
        help_text="size every offering at exactly this many GPUs; empty: the best cluster size for each",
    )
    include_samples = forms.BooleanField(
        label="Include the fictional sample offerings",
        required=False,
        help_text="teaching examples, not real offers; left out unless ticked",
    )
    offerings = forms.MultipleChoiceField(
        required=False,
        help_text="none selected: the whole catalog",
        widget=forms.SelectMultiple(attrs={"size": 8}),
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for name, each in self.fields.items():
            each.label = gettext(str(each.label or name.replace("_", " ").capitalize()))
            if each.help_text:
                each.help_text = translated_hint(str(each.help_text))
            if isinstance(each, forms.ChoiceField) and name != "offerings":
                choices: Any = each.choices
                each.choices = [(value, gettext(str(label))) for value, label in choices]
        optimizer = self.fields["optimizer"]
        assert isinstance(optimizer, forms.ChoiceField)
        optimizer.choices = [("", gettext(OPTIMIZER_NOT_STATED))] + [
            (code, optimizer_words(code)) for code in OPTIMIZER_NAMES
        ]
        field = self.fields["offerings"]
        assert isinstance(field, forms.MultipleChoiceField)
        field.choices = [
            (o.slug, o.shown_choice)
            for o in Offering.objects.select_related("provider").order_by("provider__name", "name")
        ]

    @property
    def head_fields(self) -> list[forms.BoundField]:
        """The optional attention and prediction-head fields, drawn as one section of the page."""
        return [self[name] for name in HEAD_FIELDS]

    @property
    def head_fields_open(self) -> bool:
        """The section is drawn open when one of its fields is filled in or refused."""
        return _any_stated(self.head_fields)

    @property
    def layer_detail_fields(self) -> list[forms.BoundField]:
        """The optional activation clamp, linear biases and rotary embeddings, drawn as one section."""
        return [self[name] for name in LAYER_DETAIL_FIELDS]

    @property
    def layer_detail_fields_open(self) -> bool:
        """Drawn open when one of them is stated (a clamp, biases or not, a rotary kind) or refused."""
        return _any_stated(self.layer_detail_fields)

    def workload_fields(self) -> dict[str, Any]:
        data = dict(self.cleaned_data)
        for key in ("preset", "name", "objective", "offerings", "gpus", "include_samples"):
            data.pop(key, None)
        return {k: v for k, v in data.items() if v not in (None, "")}


class WorkloadAdminForm(forms.ModelForm[Workload]):
    """The admin's workload: after the model's own checks (the bounds), the engine's, as the planner form
    and the API have them, so the admin stores no workload the engine would refuse when it is sized. The
    admin gives it its model and fields (WorkloadAdmin)."""

    def _post_clean(self) -> None:
        # Django builds the instance from the form here, as UserCreationForm does to check a password on it.
        super()._post_clean()  # type: ignore[misc]  # not in django-stubs
        if self.errors:
            return  # a field refused already: the engine would only name it again
        try:
            workload_validate(workload=self.instance)
        except ValidationError as exc:
            add_form_errors(self, exc, None)
