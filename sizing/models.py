"""Workloads (training jobs), sizing runs over a set of offerings, and one result per (run, offering).

The (run, offering) uniqueness of PlanResult is what makes re-runs and duplicate task deliveries harmless:
a chunk that is delivered twice finds its results already there and writes nothing new.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.urls import reverse
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from portal.constraints import RangeValidator, in_range, range_validators, value_known
from portal.i18n import translated, translated_text
from portal.model_bases import BackgroundJob, Finishes, NewestFirst
from providers.models import Offering
from sizing.engine.constants import OPTIMIZER_BYTES
from sizing.engine.limits import WORKLOAD_BOUNDS
from sizing.engine.workload import preset_extras
from sizing.engine_words import optimizer_words, page_worded


class Precision(models.TextChoices):
    BF16 = "bf16", "bf16"
    FP8 = "fp8", "fp8"


class Attention(models.TextChoices):
    AUTO = "auto", _("by GPU (unfused on A100, fused elsewhere)")
    FLASH = "flash", _("fused (FlashAttention)")
    UNFUSED = "unfused", _("unfused (scores materialised)")


class Activation(models.TextChoices):
    GELU = "gelu", "GeLU"
    SWIGLU = "swiglu", "SwiGLU"


class Rope(models.TextChoices):
    """The rotary embeddings' kind, in the engine's names (`sizing.engine.workload.ROPE_KINDS`)."""

    ROPE = "rope", _("standard (RoPE)")
    YARN = "yarn", _("YaRN (stretched for long contexts)")


# The optimizer-state conventions a workload may state, in the engine's names (constants.OPTIMIZER_BYTES:
# Adam's and Muon's, with their gradient precisions); null: not stated, the default of the offering's GPU
# generation, which the answer states in its assumptions. The page shows each by its short name
# (engine_words.OPTIMIZER_NAMES) with its bytes per parameter (engine_words.optimizer_words).
OPTIMIZERS = tuple(OPTIMIZER_BYTES)


# A workload without a deadline gets this one, stated on the form, the result and in its JSON: 90 days is
# about what the largest published training runs took (Llama 3 405B: 54 days of pre-training, Meta 2024)
# with room for the ramp-up a rented cluster needs.
DEFAULT_DEADLINE_DAYS = 90.0

# The architecture fields in the engine's workload-dict names (DESIGN section 5 CLI contract).
ARCH_FIELDS = ("layers", "hidden", "heads", "kv_heads", "ffn_hidden", "vocab", "seq_len")
MOE_FIELDS = ("experts", "top_k", "expert_ffn_hidden", "shared_experts", "dense_layers")
# Head widths, multi-token prediction and sliding windows, in the engine's names: blank means not stated
# (the engine's default, or the preset's value while the workload keeps the preset's architecture).
HEAD_FIELDS = (
    "head_dim",
    "qk_head_dim",
    "v_head_dim",
    "mtp_layers",
    "sliding_window",
    "sliding_window_layers",
)
# The gated activation's clamp, biases on the linear layers and the rotary embeddings' kind, in the engine's
# names: facts of a model whose code paths run eager passes (gpt-oss). Null means not stated, as for the head
# fields: the engine gets a key only where the workload states it (its defaults otherwise: no clamp, no
# biases, standard RoPE), so a workload stating none gives the engine the same dict as before.
LAYER_DETAIL_FIELDS = ("glu_clamp", "linear_bias", "rope")


def _bounded(name: str) -> list[RangeValidator]:
    return range_validators(WORKLOAD_BOUNDS[name])


def _stated(name: str, help_text: str, kind: type = int) -> Any:
    """An optional bounded number of the workload (null: not stated: the preset's, a published model's or the
    engine's value)."""
    field = models.PositiveIntegerField if kind is int else models.FloatField
    return field(null=True, blank=True, help_text=help_text, validators=_bounded(name))


class Workload(NewestFirst):
    """A training job. Either the architecture is given, or only `params` (the engine derives a shape)."""

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="workloads")
    name = models.CharField(max_length=120)
    preset = models.CharField(
        max_length=40,
        blank=True,
        help_text="the preset it came from (one of the named models on the planner form); empty: none",
    )
    params = models.FloatField(
        null=True,
        blank=True,
        help_text="parameter count when no shape is given",
        validators=_bounded("params"),
    )
    layers = models.PositiveIntegerField(null=True, blank=True, validators=_bounded("layers"))
    hidden = models.PositiveIntegerField(null=True, blank=True, validators=_bounded("hidden"))
    heads = models.PositiveIntegerField(null=True, blank=True, validators=_bounded("heads"))
    kv_heads = models.PositiveIntegerField(null=True, blank=True, validators=_bounded("kv_heads"))
    ffn_hidden = models.PositiveIntegerField(null=True, blank=True, validators=_bounded("ffn_hidden"))
    vocab = models.PositiveIntegerField(null=True, blank=True, validators=_bounded("vocab"))
    seq_len = models.PositiveIntegerField(null=True, blank=True, validators=_bounded("seq_len"))
    activation = models.CharField(max_length=10, choices=Activation.choices, default=Activation.GELU)
    tied_embeddings = models.BooleanField(default=False)
    moe_experts = models.PositiveIntegerField(null=True, blank=True, validators=_bounded("moe_experts"))
    moe_top_k = models.PositiveIntegerField(null=True, blank=True, validators=_bounded("moe_top_k"))
    moe_expert_ffn_hidden = models.PositiveIntegerField(
        null=True, blank=True, validators=_bounded("moe_expert_ffn_hidden")
    )
    moe_shared_experts = models.PositiveIntegerField(
        null=True, blank=True, validators=_bounded("moe_shared_experts")
    )
    moe_dense_layers = models.PositiveIntegerField(
        null=True, blank=True, validators=_bounded("moe_dense_layers")
    )
    head_dim = _stated(
        "head_dim", "empty: the published model's value when the shape is one, else hidden / heads"
    )
    # the two widths are taken from a published model together or not at all (architectures.FACT_GROUPS)
    qk_head_dim = _stated(
        "qk_head_dim", "MLA query/key width; empty: the published model's when both are empty, else head_dim"
    )
    v_head_dim = _stated(
        "v_head_dim", "MLA value width; empty: the published model's when both are empty, else head_dim"
    )
    # a run's choice, never a published model's (sizing.engine.architectures.FACT_KEYS leaves it out)
    mtp_layers = _stated("mtp_layers", "empty: none")
    sliding_window = _stated(
        "sliding_window", "tokens; empty: the published model's value, else full attention"
    )
    sliding_window_layers = _stated(
        "sliding_window_layers",
        "share of the layers banded; empty: the published model's when the window is empty too, else all",
        float,
    )
    glu_clamp = _stated(
        "glu_clamp",
        "the gated activation's input clamp; empty: the published model's value, else none",
        float,
    )
    linear_bias = models.BooleanField(
        null=True,
        blank=True,
        help_text="biases on the linear layers; empty: not stated (the published model's value, else none)",
    )
    rope = models.CharField(
        max_length=10,
        choices=Rope.choices,
        null=True,
        blank=True,
        help_text="rotary embeddings; empty: not stated (the published model's kind, else standard)",
    )
    global_batch = models.PositiveIntegerField(
        null=True, blank=True, help_text="sequences per iteration", validators=_bounded("global_batch")
    )
    train_tokens = models.FloatField(null=True, blank=True, validators=_bounded("train_tokens"))
    precision = models.CharField(max_length=10, choices=Precision.choices, default=Precision.BF16)
    attention = models.CharField(
        max_length=10,
        choices=Attention.choices,
        default=Attention.AUTO,
        help_text="attention kernels: fused FlashAttention or materialised scores",
    )
    optimizer = models.CharField(
        max_length=24,
        choices=[(code, code) for code in OPTIMIZERS],
        null=True,
        blank=True,
        help_text="optimizer-state convention; "
        "empty: not stated (the default of the offering's GPU generation)",
    )
    deadline_days = models.FloatField(null=True, blank=True, validators=_bounded("deadline_days"))
    deadline_default = models.BooleanField(
        default=False,
        help_text=f"no deadline was given: the default of {DEFAULT_DEADLINE_DAYS:g} days applies",
    )
    budget_usd = models.DecimalField(
        max_digits=16, decimal_places=2, null=True, blank=True, validators=_bounded("budget_usd")
    )
    checkpoints_retained = models.PositiveIntegerField(default=2, validators=_bounded("checkpoints_retained"))
    dataset_size_gb = models.FloatField(null=True, blank=True, validators=_bounded("dataset_size_gb"))

    class Meta(NewestFirst.Meta):
        constraints = [
            value_known("precision", Precision.values, name="workload_precision_known"),
            value_known("activation", Activation.values, name="workload_activation_known"),
            value_known("attention", Attention.values, name="workload_attention_known"),
            models.CheckConstraint(
                condition=Q(rope__isnull=True) | Q(rope__in=Rope.values), name="workload_rope_known"
            ),
            models.CheckConstraint(
                condition=Q(optimizer__isnull=True) | Q(optimizer__in=OPTIMIZERS),
                name="workload_optimizer_known",
            ),
            models.CheckConstraint(
                condition=Q(layers__isnull=False) | Q(params__gt=0), name="workload_shape_or_params"
            ),
            *(
                in_range(name, bound, name=f"workload_{name}_range")
                for name, bound in WORKLOAD_BOUNDS.items()
            ),
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def is_moe(self) -> bool:
        return self.moe_experts is not None

    @property
    def optimizer_shown(self) -> str:
        """The stated optimizer-state convention in the page's language with its bytes per parameter; ""
        when not stated (each answer then states the default it took)."""
        return optimizer_words(self.optimizer)

    def to_engine_dict(self) -> dict[str, Any]:
        """The workload dict of the engine (DESIGN section 5); absent values are left out for its defaults."""
        out: dict[str, Any] = {"name": self.name}
        if self.layers is None:
            out["params"] = self.params
        for name in ARCH_FIELDS:
            value = getattr(self, name)
            if value is not None:
                out[name] = value
        for name in ("global_batch", "train_tokens", "deadline_days"):
            value = getattr(self, name)
            if value is not None:
                out[name] = value
        out["precision"] = self.precision
        out["attention"] = self.attention
        # A bare parameter count leaves out the architecture values that are only the fields' defaults (GELU,
        # untied embeddings, no experts): the engine then takes a published model's shape when the name and
        # count are that model's (architectures.named), as the `size` command does for the same dict, and
        # derives the same GELU, untied, dense shape as before otherwise.
        bare = self.layers is None
        if not bare or self.activation != Activation.GELU:
            out["activation"] = self.activation
        if not bare or self.tied_embeddings:
            out["tied_embeddings"] = self.tied_embeddings
        if self.moe_experts is not None:
            moe = {name: getattr(self, f"moe_{name}") for name in MOE_FIELDS}
            out["moe"] = {k: v for k, v in moe.items() if v is not None}
        elif not bare:
            out["moe"] = None
        stated = {name: getattr(self, name) for name in (*HEAD_FIELDS, *LAYER_DETAIL_FIELDS)}
        # a preset's facts (MLA head widths and ranks, dropout, multi-token prediction, sliding windows) fill
        # what the workload leaves blank, while it keeps the preset's architecture; a stated value wins, and
        # only a stated value is sent (null: not stated)
        for name, value in preset_extras(self.preset, out).items():
            if stated.get(name) is None:
                out[name] = value
        out.update({name: value for name, value in stated.items() if value is not None})
        return out

    def to_rules_dict(self) -> dict[str, Any]:
        """What the pitfall rules read about the job (the engine dict plus budget and storage inputs)."""
        out = self.to_engine_dict()
        out["budget_usd"] = float(self.budget_usd) if self.budget_usd is not None else None
        out["checkpoints_retained"] = self.checkpoints_retained
        out["dataset_size_gb"] = self.dataset_size_gb
        return out


class Objective(models.TextChoices):
    CHEAPEST = "cheapest", _("Cheapest within the deadline")
    FASTEST = "fastest", _("Fastest within the budget")


class RunStatus(models.TextChoices):
    QUEUED = "queued", _("Queued")
    RUNNING = "running", _("Running")
    DONE = "done", _("Done")
    FAILED = "failed", _("Failed")


class PlanRun(Finishes, BackgroundJob):
    """Sizing of one workload over a set of offerings; progress lives on the row (the page polls it)."""

    Status = RunStatus
    finished_statuses = (RunStatus.DONE, RunStatus.FAILED)

    workload = models.ForeignKey(Workload, on_delete=models.CASCADE, related_name="runs")
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="plan_runs")
    offerings = models.ManyToManyField(Offering, related_name="plan_runs")
    objective = models.CharField(max_length=10, choices=Objective.choices, default=Objective.CHEAPEST)
    gpus = models.PositiveIntegerField(
        null=True, blank=True, help_text="size every offering at exactly this GPU count (empty: search)"
    )
    include_samples = models.BooleanField(
        default=False, help_text="fictional sample offerings were asked for"
    )
    status = models.CharField(max_length=10, choices=RunStatus.choices, default=RunStatus.QUEUED)
    progress_done = models.PositiveIntegerField(default=0)
    progress_total = models.PositiveIntegerField(default=0)
    updated_at = models.DateTimeField(auto_now=True)
    # The last time an offering's result was stored (or the run started): what the watchdog measures.
    progress_at = models.DateTimeField(null=True, blank=True)
    # `error` as {"msgid", "params"} (hardware.messages.Msg.as_json), shown in the page's language; null on
    # runs that did not fail and on those that failed before it was stored (sizing.run_errors reads their
    # English back).
    error_message = models.JSONField(null=True, blank=True)

    class Meta(BackgroundJob.Meta):
        constraints = [
            value_known("status", RunStatus.values, name="planrun_status_known"),
            value_known("objective", Objective.values, name="planrun_objective_known"),
            models.CheckConstraint(
                condition=Q(progress_done__lte=models.F("progress_total")), name="planrun_progress_bounded"
            ),
        ]

    def __str__(self) -> str:
        return f"run {self.pk} of {self.workload}"

    def get_absolute_url(self) -> str:
        return reverse("sizing:run", args=[self.pk])

    @property
    def progress_pct(self) -> int:
        if not self.progress_total:
            return 100 if self.finished else 0
        return round(100 * self.progress_done / self.progress_total)


class PlanResult(models.Model):
    """The sizing of one offering within a run: the engine's full answer, the full bill, the findings."""

    run = models.ForeignKey(PlanRun, on_delete=models.CASCADE, related_name="results")
    offering = models.ForeignKey(Offering, on_delete=models.CASCADE, related_name="plan_results")
    feasible = models.BooleanField(default=False)
    layout = models.JSONField(default=dict, blank=True)
    gpus = models.PositiveIntegerField(null=True, blank=True)
    nodes = models.PositiveIntegerField(null=True, blank=True)
    train_days = models.FloatField(null=True, blank=True)
    mfu = models.FloatField(null=True, blank=True)
    goodput = models.FloatField(null=True, blank=True)
    sizing = models.JSONField(default=dict, blank=True)
    bill = models.JSONField(default=dict, blank=True)
    cost_total_usd = models.DecimalField(max_digits=16, decimal_places=2, null=True, blank=True)
    cost_complete = models.BooleanField(default=False)
    # The bill with the unpublished fees at zero (known fees only) and at the high end of their typical
    # range; cost_total_usd is the central estimate between them (sizing.bill.FEE_RANGES).
    cost_low_usd = models.DecimalField(max_digits=16, decimal_places=2, null=True, blank=True)
    cost_high_usd = models.DecimalField(max_digits=16, decimal_places=2, null=True, blank=True)
    plan_name = models.CharField(max_length=200, blank=True)
    rank = models.PositiveIntegerField(null=True, blank=True)
    findings = models.JSONField(default=list, blank=True)
    sample = models.BooleanField(default=False, help_text="a fictional sample offering")
    assumptions = models.JSONField(
        default=list,
        blank=True,
        help_text="[{fact, assumed, basis}] for every unpublished fact the model used",
    )
    # What the pessimistic values of those facts would do: {train_days, cost_total_usd, ...}; null: none.
    pessimistic = models.JSONField(null=True, blank=True)
    infeasible_reason = models.TextField(null=True, blank=True, help_text="why it cannot train it, in words")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["run", "rank", "id"]
        constraints = [
            models.UniqueConstraint(fields=["run", "offering"], name="planresult_one_per_offering"),
        ]

    def __str__(self) -> str:
        return f"{self.run_id}/{self.offering_id}"

    @property
    def shown_infeasible_reason(self) -> str:
        """Why the offering cannot run the job, in the page's language (shown_reason)."""
        return shown_reason(self.infeasible_reason, self.sizing)

    @property
    def layout_text(self) -> str:
        return layout_text(self.layout)


def shown_reason(reason: str | None, sizing: dict[str, Any] | None) -> str:
    """Why an offering cannot run the job, in the page's language: the engine's reasons (a sizing's
    `reasons`, joined by "; " into `reason`) by the message ids stored beside them, joined by the page's
    "; " ("；" in Chinese); a sizing stored before them, or a text without one, as it is. Used by a run's
    results and a request for quote's comparison."""
    reason = reason or ""
    sizing = sizing or {}
    reasons = [str(r) for r in sizing.get("reasons") or []]
    messages = sizing.get("reason_messages")
    if not reasons or "; ".join(reasons) != reason or not isinstance(messages, list):
        return translated_text(reason)
    shown = (translated(page_worded(m), text) for text, m in zip(reasons, messages, strict=False))
    return gettext("; ").join(shown)


def layout_text(layout: dict[str, Any] | None) -> str:
    """`TP×PP×DP (EP) ZeRO-n` as buyers read it in papers."""
    if not layout:
        return "—"
    text = f"{layout.get('tp', 1)}×{layout.get('pp', 1)}×{layout.get('dp', 1)}"
    if (layout.get("cp") or 1) > 1:
        text += f" CP{layout['cp']}"
    if (layout.get("ep") or 1) > 1:
        text += f" (EP{layout['ep']})"
    return text + f" ZeRO-{layout.get('zero', 0)}"
