"""/api/v1/workloads/ and /api/v1/runs/ (DESIGN section 8): validate, call a service, serialize."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_field
from rest_framework import serializers, status
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from portal.api_errors import error_responses
from portal.api_fields import FloatField, NameChoiceField
from portal.constraints import range_validators
from providers.models import Offering
from sizing import selectors, services
from sizing.engine.bounds import chosen
from sizing.engine_words import optimizer_bytes
from sizing.models import (
    OPTIMIZERS,
    WORKLOAD_BOUNDS,
    Objective,
    PlanResult,
    PlanRun,
    Rope,
    Workload,
)
from sizing.run_errors import run_error_shown

WORKLOAD_OUTPUT_FIELDS = ["id", "name", "preset", *services.WORKLOAD_FIELDS, "deadline_default", "created_at"]


def _bounded(name: str) -> dict[str, Any]:
    """The validators and the schema's description of one bounded workload field."""
    bound = WORKLOAD_BOUNDS[name]
    return {"validators": range_validators(bound), "help_text": f"{bound.label}: {bound.range_text()}"}


class WorkloadInputSerializer(serializers.Serializer[Any]):
    preset = serializers.CharField(required=False, allow_blank=True, default="")
    name = serializers.CharField(required=False, allow_blank=True, default="", max_length=120)
    params = FloatField(required=False, **_bounded("params"))
    layers = serializers.IntegerField(required=False, **_bounded("layers"))
    hidden = serializers.IntegerField(required=False, **_bounded("hidden"))
    heads = serializers.IntegerField(required=False, **_bounded("heads"))
    kv_heads = serializers.IntegerField(required=False, **_bounded("kv_heads"))
    ffn_hidden = serializers.IntegerField(required=False, **_bounded("ffn_hidden"))
    vocab = serializers.IntegerField(required=False, **_bounded("vocab"))
    seq_len = serializers.IntegerField(required=False, **_bounded("seq_len"))
    activation = NameChoiceField(choices=["gelu", "swiglu"], required=False)
    tied_embeddings = serializers.BooleanField(required=False)
    moe = serializers.DictField(required=False, allow_null=True)
    head_dim = serializers.IntegerField(required=False, allow_null=True, **_bounded("head_dim"))
    qk_head_dim = serializers.IntegerField(required=False, allow_null=True, **_bounded("qk_head_dim"))
    v_head_dim = serializers.IntegerField(required=False, allow_null=True, **_bounded("v_head_dim"))
    mtp_layers = serializers.IntegerField(required=False, allow_null=True, **_bounded("mtp_layers"))
    sliding_window = serializers.IntegerField(required=False, allow_null=True, **_bounded("sliding_window"))
    sliding_window_layers = FloatField(required=False, allow_null=True, **_bounded("sliding_window_layers"))
    glu_clamp = FloatField(required=False, allow_null=True, **_bounded("glu_clamp"))
    linear_bias = serializers.BooleanField(
        required=False,
        allow_null=True,
        help_text="biases on the linear layers; null: not stated (the published model's value, else none)",
    )
    rope = NameChoiceField(
        choices=Rope.values,
        required=False,
        allow_null=True,
        help_text="rotary embeddings: rope (standard) or yarn; "
        "null: not stated (the published model's kind, else standard)",
    )
    global_batch = serializers.IntegerField(required=False, **_bounded("global_batch"))
    train_tokens = FloatField(required=False, **_bounded("train_tokens"))
    precision = NameChoiceField(choices=["bf16", "fp8"], required=False)
    attention = NameChoiceField(choices=["auto", "flash", "unfused"], required=False)
    optimizer = NameChoiceField(
        choices=list(OPTIMIZERS),
        required=False,
        allow_null=True,
        help_text="optimizer-state convention (bytes per parameter for weights, gradients and optimizer "
        "state: "
        + ", ".join(f"{code} {optimizer_bytes(code):g}" for code in OPTIMIZERS)
        + "); null: not stated (the default of the offering's GPU generation, stated in each answer)",
    )
    deadline_days = FloatField(
        required=False,
        allow_null=True,
        validators=_bounded("deadline_days")["validators"],
        help_text=f"left out or null: the default of {services.DEFAULT_DEADLINE_DAYS:g} days; "
        + _bounded("deadline_days")["help_text"],
    )
    budget_usd = serializers.DecimalField(
        max_digits=16, decimal_places=2, required=False, allow_null=True, **_bounded("budget_usd")
    )
    checkpoints_retained = serializers.IntegerField(required=False, **_bounded("checkpoints_retained"))
    dataset_size_gb = FloatField(required=False, allow_null=True, **_bounded("dataset_size_gb"))

    def validate_preset(self, value: str) -> str:
        if not value:
            return value
        known = tuple(services.known_presets())
        preset = chosen(value, known)  # `GPT-3 175B`: the preset gpt3-175b
        if preset is None:
            raise serializers.ValidationError(f"unknown preset “{value}” (known: {', '.join(known)})")
        return preset


class SizedAsSerializer(serializers.Serializer[Any]):
    layers = serializers.IntegerField()
    hidden = serializers.IntegerField()
    heads = serializers.IntegerField()
    kv_heads = serializers.IntegerField()
    ffn_hidden = serializers.IntegerField()
    vocab = serializers.IntegerField()
    activation = serializers.CharField()
    tied_embeddings = serializers.BooleanField()
    moe = serializers.DictField(
        allow_null=True,
        help_text="experts, top_k, expert_ffn_hidden, shared_experts, dense_layers; null: dense",
    )
    params_total = serializers.FloatField()
    params_active = serializers.FloatField()
    assumptions = serializers.ListField(
        child=serializers.CharField(), help_text="what the sizing took that the workload does not state"
    )


class WorkloadOutputSerializer(serializers.ModelSerializer[Workload]):
    sized_as = serializers.SerializerMethodField(
        help_text="the model the sizing takes for this workload: the shape a parameter count alone derives, "
        "or the published model its name and count are, with what it took (null: not sizeable as stored)"
    )

    class Meta:
        model = Workload
        fields = [*WORKLOAD_OUTPUT_FIELDS, "sized_as"]

    @extend_schema_field(SizedAsSerializer(allow_null=True))
    def get_sized_as(self, workload: Workload) -> dict[str, Any] | None:
        return services.workload_sized_as(workload)


class WorkloadListCreateApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(responses={200: WorkloadOutputSerializer(many=True), **error_responses(401)})
    def get(self, request: Request) -> Response:
        workloads = selectors.workload_list(owner=request.user)
        return Response(WorkloadOutputSerializer(workloads, many=True).data)

    @extend_schema(
        request=WorkloadInputSerializer,
        responses={201: WorkloadOutputSerializer, **error_responses(400, 401)},
    )
    def post(self, request: Request) -> Response:
        serializer = WorkloadInputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = dict(serializer.validated_data)
        moe = data.pop("moe", None)
        if moe:
            data.update({f"moe_{k}": v for k, v in moe.items()})
        workload = services.workload_create(owner=request.user, **data)
        return Response(WorkloadOutputSerializer(workload).data, status=status.HTTP_201_CREATED)


def _slug_max_length() -> int:
    """The longest offering slug (the model field's), so a longer one is refused before any query."""
    length = Offering._meta.get_field("slug").max_length
    assert length is not None
    return length


class RunInputSerializer(serializers.Serializer[Any]):
    workload = serializers.IntegerField()
    offerings = serializers.ListField(
        child=serializers.CharField(max_length=_slug_max_length()),
        required=False,
        allow_empty=False,
        max_length=services.MAX_RUN_OFFERINGS,
        error_messages={
            "empty": "give at least one offering slug, or leave the field out for the whole catalog",
            "max_length": f"name at most {services.MAX_RUN_OFFERINGS:,} offerings, or leave the field out "
            "to size the whole catalog",
        },
    )
    objective = serializers.ChoiceField(choices=Objective.values, default=Objective.CHEAPEST)
    gpus = serializers.IntegerField(
        required=False,
        allow_null=True,
        min_value=1,
        max_value=services.MAX_RUN_GPUS,
        help_text="size every offering at exactly this GPU count, or say why not",
        error_messages={
            "min_value": f"must be a whole number from 1 to {services.MAX_RUN_GPUS:,}",
            "max_value": f"must be a whole number from 1 to {services.MAX_RUN_GPUS:,}",
        },
    )
    include_samples = serializers.BooleanField(
        default=False, help_text="include the fictional sample offerings (left out by default)"
    )


# Schema only: the shapes result_json and run_json produce (DESIGN section 8).
class RunCreatedSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    status = serializers.CharField()


class RunProgressSerializer(serializers.Serializer[Any]):
    done = serializers.IntegerField()
    total = serializers.IntegerField()


class AssumptionSerializer(serializers.Serializer[Any]):
    fact = serializers.CharField()
    assumed = serializers.JSONField()
    basis = serializers.CharField()


class PessimisticSerializer(serializers.Serializer[Any]):
    facts = serializers.DictField(help_text="the pessimistic value of each assumed fact")
    feasible = serializers.BooleanField()
    train_days = serializers.FloatField(allow_null=True)
    mfu = serializers.FloatField(allow_null=True)
    cost_total_usd = serializers.CharField(allow_null=True)


class RunResultSerializer(serializers.Serializer[Any]):
    offering = serializers.CharField()
    rank = serializers.IntegerField(allow_null=True)
    feasible = serializers.BooleanField()
    layout = serializers.DictField(allow_null=True)
    gpus = serializers.IntegerField(allow_null=True)
    nodes = serializers.IntegerField(allow_null=True)
    train_days = serializers.FloatField(allow_null=True)
    mfu = serializers.FloatField(allow_null=True)
    goodput = serializers.FloatField(allow_null=True)
    cost_total_usd = serializers.CharField(allow_null=True)
    cost_complete = serializers.BooleanField()
    plan = serializers.CharField(allow_null=True)
    findings = serializers.ListField(child=serializers.CharField())
    sample = serializers.BooleanField(help_text="a fictional sample offering")
    assumptions = AssumptionSerializer(many=True)
    cost_low_usd = serializers.CharField(allow_null=True, help_text="the bill with unpublished fees at zero")
    cost_high_usd = serializers.CharField(
        allow_null=True, help_text="unpublished fees at the high end of their typical range; null: no bound"
    )
    infeasible_reason = serializers.CharField(allow_null=True)
    pessimistic = PessimisticSerializer(allow_null=True)
    accuracy = serializers.DictField(
        allow_null=True,
        help_text="how far the model has been from published runs of this kind (dense or MoE): runs, mean "
        "absolute error, the 10th-90th percentile of published/predicted time, and that band applied to this "
        "answer (iteration_time_s_low/high, train_days_low/high), the answer's GPU and whether published "
        "runs on its architecture are among those measured (gpu, gpu_architecture_measured); null when no "
        "layout fits",
    )


class RunSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    workload = serializers.IntegerField()
    objective = serializers.CharField()
    gpus = serializers.IntegerField(allow_null=True)
    include_samples = serializers.BooleanField()
    status = serializers.CharField()
    progress = RunProgressSerializer()
    error = serializers.CharField(allow_null=True)
    error_localized = serializers.CharField(
        allow_null=True, help_text="`error` in the request's language (Accept-Language); null: no error"
    )
    results = RunResultSerializer(many=True)


def _usd(value: Any) -> str | None:
    return str(value) if value is not None else None


def result_json(result: PlanResult) -> dict[str, Any]:
    return {
        "offering": result.offering.slug,
        "rank": result.rank,
        "feasible": result.feasible,
        "layout": result.layout,
        "gpus": result.gpus,
        "nodes": result.nodes,
        "train_days": result.train_days,
        "mfu": result.mfu,
        "goodput": result.goodput,
        "cost_total_usd": _usd(result.cost_total_usd),
        "cost_complete": result.cost_complete,
        "plan": result.plan_name or None,
        "findings": result.findings,
        "sample": result.sample,
        "assumptions": result.assumptions,
        "cost_low_usd": _usd(result.cost_low_usd),
        "cost_high_usd": _usd(result.cost_high_usd),
        "infeasible_reason": result.infeasible_reason,
        "pessimistic": result.pessimistic,
        "accuracy": (result.sizing or {}).get("accuracy"),
    }


def run_json(run: PlanRun, results: list[PlanResult]) -> dict[str, Any]:
    return {
        "id": run.pk,
        "workload": run.workload_id,
        "objective": run.objective,
        "gpus": run.gpus,
        "include_samples": run.include_samples,
        "status": run.status,
        "progress": {"done": run.progress_done, "total": run.progress_total},
        "error": run.error or None,
        "error_localized": run_error_shown(run.error, run.error_message) if run.error else None,
        "results": [result_json(r) for r in results],
    }


class RunCreateApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        request=RunInputSerializer,
        responses={201: RunCreatedSerializer, **error_responses(400, 401, 403, 404)},
    )
    def post(self, request: Request) -> Response:
        serializer = RunInputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        # Staff may read another buyer's workload but not plan on it (403); others do not see it (404).
        workload = selectors.workload_get(owner=request.user, workload_id=data["workload"], for_write=True)
        run = services.plan_run_create(
            owner=request.user,
            workload=workload,
            offering_slugs=data.get("offerings") or None,
            objective=data["objective"],
            gpus=data.get("gpus"),
            include_samples=data["include_samples"],
        )
        run.refresh_from_db()
        return Response({"id": run.pk, "status": run.status}, status=status.HTTP_201_CREATED)


class RunDetailApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        parameters=[
            OpenApiParameter("objective", str, enum=Objective.values, description="re-rank the results")
        ],
        responses={200: RunSerializer, **error_responses(400, 401, 404)},
    )
    def get(self, request: Request, run_id: int) -> Response:
        run = selectors.run_get(owner=request.user, run_id=run_id)
        objective = request.query_params.get("objective") or None
        if objective not in (None, *Objective.values):
            raise serializers.ValidationError({"objective": f"must be one of {', '.join(Objective.values)}"})
        return Response(run_json(run, selectors.run_results(run=run, objective=objective)))
