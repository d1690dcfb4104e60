"""Writes of the planner: workloads, runs, their fan-out over the catalog and the ranking of results."""

from __future__ import annotations

import logging
from dataclasses import asdict
from datetime import timedelta
from decimal import Decimal
from functools import partial
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models.functions import Coalesce
from django.utils import timezone

from checks.models import context_for_run
from checks.rules import Finding, run_rules
from checks.services import findings_store_many
from providers.models import Offering
from providers.selectors import offering_queryset
from sizing import bill as bill_module
from sizing.engine.errors import InputError
from sizing.engine.search import search
from sizing.engine.workload import PRESETS, workload_from_dict, workload_preset
from sizing.models import PlanResult, PlanRun, RunStatus, Workload
from sizing.ranking import rank_key

logger = logging.getLogger(__name__)

# Offerings per chunk task. A chunk costs a fixed number of queries (load, store, progress) whatever its
# size, so bigger chunks cost fewer queries per offering; more chunks than workers keep every worker busy
# to the end of the run. The default aims at about CHUNKS_TARGET chunks, between CHUNK_MIN and CHUNK_MAX
# offerings each; settings.SIZING_CHUNK_SIZE, when not 0, fixes the size instead (read at fan-out time,
# so a test or a deployment can change it without a reimport). docs/PERFORMANCE.md ("Planner").
CHUNK_MIN = 4
CHUNK_MAX = 50
CHUNKS_TARGET = 64


def chunk_size(total: int = 0) -> int:
    fixed = getattr(settings, "SIZING_CHUNK_SIZE", None)
    if fixed:
        return max(1, int(fixed))
    return min(CHUNK_MAX, max(CHUNK_MIN, -(-total // CHUNKS_TARGET)))


# The watchdog (sweep_queued_runs, celery beat every SIZING_SWEEP_INTERVAL_S), each a setting read at call
# time: a run still queued QUEUED_GRACE_S after creation lost its enqueue (broker down) and is enqueued
# again; a running run without progress for STALLED_GRACE_S lost a chunk (worker killed, broker restarted
# without persistence) and gets its missing chunks sent again; a run without progress for GIVE_UP_S is
# failed with NO_PROGRESS_MESSAGE (the page offers a retry).
QUEUED_GRACE_S = 30
STALLED_GRACE_S = 60
GIVE_UP_S = 900


def _seconds(name: str, default: float) -> float:
    return float(getattr(settings, name, default))


NO_PROGRESS_MESSAGE = (
    "Sizing made no progress for {minutes} minutes: the sizing workers are stopped or overloaded. "
    "Results already computed are kept; Retry sizes the rest."
)
CHUNK_ERROR_MESSAGE = (
    "Sizing stopped on an unexpected error while sizing {what}. "
    "Results already computed are kept; Retry sizes the rest."
)
TIME_LIMIT_MESSAGE = (
    "Sizing {what} took longer than a sizing task may run ({seconds} s). "
    "Results already computed are kept; Retry sizes the rest."
)


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
    "deadline_days",
    "budget_usd",
    "checkpoints_retained",
    "dataset_size_gb",
    "moe_experts",
    "moe_top_k",
    "moe_expert_ffn_hidden",
    "moe_shared_experts",
    "moe_dense_layers",
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
        raise ValidationError({"preset": exc.reason}) from exc
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
    return out


def workload_create(*, owner: Any, name: str = "", preset: str = "", **fields: Any) -> Workload:
    """Create a workload from a preset (fields given override it) or from its fields; validated by the engine
    (ValidationError naming the form field)."""
    values: dict[str, Any] = {}
    if preset:
        values.update(preset_fields(preset))
    unknown = set(fields) - set(WORKLOAD_FIELDS)
    if unknown:
        raise ValidationError({sorted(unknown)[0]: "unknown field"})
    values.update({k: v for k, v in fields.items() if v is not None and v != ""})
    if values.get("layers") is not None:
        values.pop("params", None)
    for field in ("budget_usd", "deadline_days"):
        # The database constraints say the same, but without the field's name.
        if values.get(field) is not None and values[field] <= 0:
            raise ValidationError({field: "must be greater than zero (leave it empty for none)"})
    workload = Workload(owner=owner, name=name or preset or "custom", preset=preset, **values)
    try:
        workload_from_dict(workload.to_engine_dict())
    except InputError as exc:
        raise ValidationError({engine_field_to_form_field(exc.field): exc.reason}) from exc
    if workload.layers is None and workload.params is None:
        raise ValidationError(
            {"params": "give the architecture (layers, hidden, heads) or a parameter count"}
        )
    workload.full_clean()
    workload.save()
    return workload


def _enqueue_start(run_id: int) -> None:
    from sizing.tasks import plan_run_start_task

    try:
        plan_run_start_task.delay(run_id)
    except Exception:  # kombu OperationalError, redis ConnectionError, OSError: the broker is down
        # Not lost: the run stays queued and sizing.sweep_queued_runs re-enqueues it.
        logger.warning("could not enqueue sizing run %s; the sweeper will retry", run_id, exc_info=True)


def plan_run_create(
    *, owner: Any, workload: Workload, offering_slugs: list[str] | None = None, objective: str = "cheapest"
) -> PlanRun:
    """Create a queued run of `workload` over the offerings (default: all); enqueue its start on commit."""
    if workload.owner_id != owner.pk:
        raise ValidationError({"workload": "no such workload"})
    if objective not in ("cheapest", "fastest"):
        raise ValidationError({"objective": f"must be cheapest or fastest, got {objective!r}"})
    if offering_slugs:
        offerings = list(Offering.objects.filter(slug__in=offering_slugs))
        missing = sorted(set(offering_slugs) - {o.slug for o in offerings})
        if missing:
            raise ValidationError({"offerings": f"unknown offering(s): {', '.join(missing)}"})
    else:
        offerings = list(Offering.objects.all())
    if not offerings:
        raise ValidationError({"offerings": "the catalog has no offering to size"})
    with transaction.atomic():
        run = PlanRun(workload=workload, owner=owner, objective=objective, progress_total=len(offerings))
        run.full_clean()
        run.save()
        run.offerings.set(offerings)
        transaction.on_commit(lambda: _enqueue_start(run.pk))
    return run


def plan_run_start(*, run_id: int) -> None:
    """Mark the run running and fan out one chunk task per chunk_size() offerings still without a result.

    Idempotent: a finished run is left alone; a running one only gets its missing offerings re-enqueued."""
    from sizing.tasks import plan_run_chunk_task

    with transaction.atomic():
        run = PlanRun.objects.select_for_update().filter(pk=run_id).first()
        if run is None or run.finished:
            return
        ids = sorted(run.offerings.values_list("id", flat=True))
        done_ids = set(run.results.values_list("offering_id", flat=True))
        todo = [i for i in ids if i not in done_ids]
        now = timezone.now()
        if run.status == RunStatus.QUEUED:
            run.status = RunStatus.RUNNING
            run.started_at = run.started_at or now
            run.progress_at = now
            run.progress_total = len(ids)
            run.progress_done = len(done_ids)
            run.save(
                update_fields=[
                    "status", "started_at", "progress_at", "progress_total", "progress_done", "updated_at"
                ]
            )  # fmt: skip
        else:
            # Not progress: marks when the missing chunks were last sent (the sweeper waits as long again).
            PlanRun.objects.filter(pk=run_id).update(updated_at=now)
        size = chunk_size(len(ids))
        chunks = [todo[i : i + size] for i in range(0, len(todo), size)]
        for chunk in chunks:
            transaction.on_commit(partial(plan_run_chunk_task.delay, run_id, chunk))
    if not todo:
        plan_run_rank(run_id=run_id)


def size_offering(*, workload: Workload, facts: dict[str, Any], objective: str) -> dict[str, Any]:
    """One offering's sizing, full bill and pitfall codes, as PlanResult field values."""
    values, _ = size_offering_with_findings(workload=workload, facts=facts, objective=objective)
    return values


def size_offering_with_findings(
    *, workload: Workload, facts: dict[str, Any], objective: str
) -> tuple[dict[str, Any], list[Finding]]:
    """size_offering, plus the pitfall findings themselves (severity, evidence, advice) for the checks app."""
    engine_objective = objective
    if objective == "cheapest" and workload.deadline_days is not None:
        engine_objective = "cheapest-within-deadline"
    try:
        sizing = search(workload.to_engine_dict(), facts, objective=engine_objective, top=3)
    except InputError as exc:
        # An offering whose facts the engine cannot size (no GPU model, no node count...) is an answer too.
        sizing = {"feasible": False, "reasons": [f"cannot size this offering: {exc}"], "explanation": []}
    values: dict[str, Any] = {
        "feasible": bool(sizing.get("feasible")),
        "layout": sizing.get("layout") or {},
        "gpus": sizing.get("gpus"),
        "nodes": sizing.get("nodes"),
        "train_days": sizing.get("train_days"),
        "mfu": sizing.get("mfu"),
        "goodput": (sizing.get("goodput") or {}).get("fraction"),
        "sizing": sizing,
        "bill": {},
        "cost_total_usd": None,
        "cost_complete": False,
        "plan_name": "",
    }
    full: dict[str, Any] | None = None
    if sizing.get("gpus") and sizing.get("train_days") is not None:
        full = bill_module.full_bill(facts, sizing, workload.to_rules_dict())
        values["bill"] = bill_module.to_json(full)
        values["cost_total_usd"] = (
            full["total_usd"] if full["plan"]["price_usd_per_gpu_hour"] is not None else None
        )
        values["cost_complete"] = bool(full["complete"])
        values["plan_name"] = full["plan"]["name"] or ""
    findings = run_rules(facts, workload=workload.to_rules_dict(), sizing=sizing, bill=values["bill"] or None)
    values["findings"] = list(dict.fromkeys(f.code for f in findings))
    return values, list(findings)


class ChunkError(Exception):
    """A chunk failed on an offering: the message a buyer reads on the run's page (the cause is chained)."""


def plan_run_execute_chunk(*, run_id: int, offering_ids: list[int]) -> int:
    """Size the offerings of one chunk, one result per (run, offering); returns how many were new.

    A fixed number of queries whatever the chunk's size: the run, the offerings already sized, the catalog
    rows (offerings with provider and GPU, their plans), then one transaction that stores every result and
    finding in bulk and moves the progress. Safe to deliver twice: offerings with a result are skipped and
    the store, serialised on the run's row, writes only results that are still missing."""
    run = PlanRun.objects.select_related("workload").filter(pk=run_id).first()
    if run is None or run.finished:
        return 0
    done = set(
        PlanResult.objects.filter(run_id=run_id, offering_id__in=offering_ids).values_list(
            "offering_id", flat=True
        )
    )
    todo = [i for i in offering_ids if i not in done]
    sized: dict[int, tuple[dict[str, Any], list[Finding]]] = {}
    if todo:
        offerings = offering_queryset().filter(pk__in=todo, plan_runs=run).order_by("pk")
        for offering in offerings:
            try:
                sized[offering.pk] = size_offering_with_findings(
                    workload=run.workload, facts=offering.facts(), objective=run.objective
                )
            except Exception as exc:
                raise ChunkError(CHUNK_ERROR_MESSAGE.format(what=f"“{offering.name}”")) from exc
    created, finished = _store_chunk(run_id=run_id, sized=sized)
    if finished:
        plan_run_rank(run_id=run_id)
    return created


def _store_chunk(*, run_id: int, sized: dict[int, tuple[dict[str, Any], list[Finding]]]) -> tuple[int, bool]:
    """Store a chunk's results and findings in one transaction; (new results, every offering sized)."""
    with transaction.atomic():
        run = (
            PlanRun.objects.select_for_update()
            .only("id", "status", "progress_done", "progress_total")
            .filter(pk=run_id)
            .first()
        )
        if run is None or run.finished:
            return 0, False
        if not sized:
            return 0, run.progress_done >= run.progress_total
        existing = set(
            PlanResult.objects.filter(run_id=run_id, offering_id__in=list(sized)).values_list(
                "offering_id", flat=True
            )
        )
        new = {pk: pair for pk, pair in sized.items() if pk not in existing}
        PlanResult.objects.bulk_create(
            [PlanResult(run_id=run_id, offering_id=pk, **values) for pk, (values, _) in new.items()]
        )
        # The offering's page and /api/v1/findings/ show what this job would meet there; the codes stay on
        # the PlanResult for the ranking. Same transaction: both are stored or neither.
        findings_store_many(
            context=context_for_run(run_id), findings_by_offering={pk: f for pk, (_, f) in new.items()}
        )
        done = min(run.progress_total, run.progress_done + len(new))
        if new:
            now = timezone.now()
            PlanRun.objects.filter(pk=run_id).update(progress_done=done, progress_at=now, updated_at=now)
    return len(new), done >= run.progress_total


def plan_run_rank(*, run_id: int) -> None:
    """Rank the results by the run's objective and mark it done (idempotent: a done run is left alone)."""
    with transaction.atomic():
        run = PlanRun.objects.select_for_update().select_related("workload").get(pk=run_id)
        if run.finished:
            return
        # The large JSON columns are not needed to rank: three queries whatever the run's size.
        results = list(run.results.defer("sizing", "bill", "layout"))
        budget = run.workload.budget_usd
        deadline = run.workload.deadline_days
        ordered = sorted(
            results, key=lambda r: rank_key(r, run.objective, deadline_days=deadline, budget_usd=budget)
        )
        changed = []
        for position, result in enumerate(ordered, start=1):
            if result.rank != position:
                result.rank = position
                changed.append(result)
        PlanResult.objects.bulk_update(changed, ["rank"], batch_size=500)
        run.status = RunStatus.DONE
        run.finished_at = timezone.now()
        run.save(update_fields=["status", "finished_at", "updated_at"])


def plan_run_fail(*, run_id: int, error: str) -> None:
    """Mark an unfinished run failed with `error`, the sentence its owner reads (the first error stays)."""
    PlanRun.objects.filter(pk=run_id).exclude(status__in=[RunStatus.DONE, RunStatus.FAILED]).update(
        status=RunStatus.FAILED, error=error[:2000], finished_at=timezone.now(), updated_at=timezone.now()
    )


def plan_run_retry(*, owner: Any, run_id: int) -> PlanRun:
    """Queue a failed run again: its stored results are kept, the missing offerings are sized on commit.

    A run that did not fail is returned unchanged (ValidationError naming `run` if it is not the owner's)."""
    with transaction.atomic():
        run = PlanRun.objects.select_for_update().filter(pk=run_id, owner=owner).first()
        if run is None:
            raise ValidationError({"run": "no such run"})
        if run.status != RunStatus.FAILED:
            return run
        run.status = RunStatus.QUEUED
        run.error = ""
        run.finished_at = None
        run.progress_at = timezone.now()
        run.progress_done = run.results.count()
        run.save(
            update_fields=["status", "error", "finished_at", "progress_at", "progress_done", "updated_at"]
        )
        transaction.on_commit(lambda: _enqueue_start(run.pk))
    return run


def sweep_queued_runs(
    *,
    queued_older_than_s: float | None = None,
    stalled_older_than_s: float | None = None,
    give_up_after_s: float | None = None,
) -> int:
    """The watchdog (celery beat): fail runs without progress for too long, re-enqueue runs whose enqueue
    was lost (queued too long) or whose chunk was lost with its worker or the broker (running without
    progress). Returns how many were re-enqueued; see the timings above the functions."""
    now = timezone.now()
    queued_s = _seconds("SIZING_QUEUED_GRACE_S", QUEUED_GRACE_S)
    queued_s = queued_s if queued_older_than_s is None else queued_older_than_s
    stalled_s = _seconds("SIZING_STALLED_GRACE_S", STALLED_GRACE_S)
    stalled_s = stalled_s if stalled_older_than_s is None else stalled_older_than_s
    give_up_s = _seconds("SIZING_GIVE_UP_S", GIVE_UP_S) if give_up_after_s is None else give_up_after_s
    last_progress = Coalesce("progress_at", "created_at")
    unfinished = PlanRun.objects.filter(status__in=[RunStatus.QUEUED, RunStatus.RUNNING]).alias(
        last_progress=last_progress
    )
    hopeless = list(
        unfinished.filter(last_progress__lte=now - timedelta(seconds=give_up_s)).values_list("id", flat=True)
    )
    message = NO_PROGRESS_MESSAGE.format(minutes=max(1, round(give_up_s / 60)))
    for run_id in hopeless:
        logger.warning("sizing run %s made no progress for %s s: failed", run_id, give_up_s)
        plan_run_fail(run_id=run_id, error=message)
    queued = unfinished.filter(status=RunStatus.QUEUED, created_at__lte=now - timedelta(seconds=queued_s))
    stalled = unfinished.filter(
        status=RunStatus.RUNNING,
        last_progress__lte=now - timedelta(seconds=stalled_s),
        updated_at__lte=now - timedelta(seconds=stalled_s),
    )
    ids = sorted(
        (set(queued.values_list("id", flat=True)) | set(stalled.values_list("id", flat=True))) - set(hopeless)
    )
    for run_id in ids:
        _enqueue_start(run_id)
    return len(ids)


def known_presets() -> list[str]:
    return list(PRESETS)


def decimal_or_none(value: Any) -> Decimal | None:
    return None if value in (None, "") else Decimal(str(value))
