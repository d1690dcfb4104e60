"""Shape validation of the planner's input; invariants are the engine's (through services.workload_create)."""

from __future__ import annotations

from typing import Any

from django import forms

from providers.models import Offering
from sizing.engine.workload import PRESETS
from sizing.models import Activation, Attention, Objective, Precision
from sizing.services import DEFAULT_DEADLINE_DAYS, MAX_RUN_GPUS

PRESET_LABELS = {
    "13b": "13B dense (Llama 2 13B shape)",
    "30b": "30B dense (LLaMA 33B shape)",
    "llama3-70b": "Llama 3 70B",
    "gpt3-175b": "GPT-3 175B",
    "llama3-405b": "Llama 3 405B",
    "dense-1t": "1T dense (Megatron)",
    "deepseek-v3-671b": "DeepSeek-V3 671B MoE (37B active)",
}


def _int(label: str, help_text: str = "") -> forms.IntegerField:
    return forms.IntegerField(label=label, required=False, min_value=1, help_text=help_text)


class PlanForm(forms.Form):
    """A workload (a preset, its overrides, or a custom shape) and the run to size it over the catalog."""

    preset = forms.ChoiceField(
        choices=[("", "custom (fill in the shape or a parameter count)")]
        + [(k, PRESET_LABELS.get(k, k)) for k in PRESETS],
        required=False,
        initial="gpt3-175b",
    )
    name = forms.CharField(max_length=120, required=False, help_text="defaults to the preset's name")
    params = forms.FloatField(
        label="Parameters", required=False, min_value=1, help_text="e.g. 175e9, when no shape is given"
    )
    layers = _int("Layers")
    hidden = _int("Hidden size")
    heads = _int("Attention heads")
    kv_heads = _int("KV heads", "GQA; defaults to the heads")
    ffn_hidden = _int("FFN hidden", "defaults to 4 × hidden")
    vocab = _int("Vocabulary")
    seq_len = _int("Sequence length")
    activation = forms.ChoiceField(
        choices=[("", "preset / default")] + list(Activation.choices), required=False
    )
    attention = forms.ChoiceField(
        choices=[("", "preset / by GPU")] + list(Attention.choices),
        required=False,
        help_text="fused kernels keep no attention scores in memory",
    )
    moe_experts = _int("MoE experts")
    moe_top_k = _int("MoE top-k")
    moe_expert_ffn_hidden = _int("Expert FFN hidden")
    moe_shared_experts = forms.IntegerField(label="Shared experts", required=False, min_value=0)
    moe_dense_layers = forms.IntegerField(label="Leading dense layers", required=False, min_value=0)
    global_batch = _int("Global batch", "sequences per iteration")
    train_tokens = forms.FloatField(
        label="Training tokens", required=False, min_value=1, help_text="e.g. 300e9"
    )
    precision = forms.ChoiceField(choices=[("", "preset / bf16")] + list(Precision.choices), required=False)
    deadline_days = forms.FloatField(
        label="Deadline (days)",
        required=False,
        min_value=0.01,
        max_value=3650,
        initial=DEFAULT_DEADLINE_DAYS,
        help_text=f"left empty: {DEFAULT_DEADLINE_DAYS:g} days",
    )
    budget_usd = forms.DecimalField(label="Budget (USD)", required=False, min_value=1, decimal_places=2)
    checkpoints_retained = forms.IntegerField(
        label="Checkpoints kept", required=False, min_value=1, initial=2
    )
    dataset_size_gb = forms.FloatField(label="Dataset size (GB)", required=False, min_value=0)
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
        field = self.fields["offerings"]
        assert isinstance(field, forms.MultipleChoiceField)
        field.choices = [
            (o.slug, f"{o.provider.name}: {o.name}{' (fictional sample)' if o.fictional else ''}")
            for o in Offering.objects.select_related("provider").order_by("provider__name", "name")
        ]

    def workload_fields(self) -> dict[str, Any]:
        data = dict(self.cleaned_data)
        for key in ("preset", "name", "objective", "offerings", "gpus", "include_samples"):
            data.pop(key, None)
        return {k: v for k, v in data.items() if v not in (None, "")}
