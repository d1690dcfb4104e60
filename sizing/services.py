"""Writes of the planner: workloads, runs, their fan-out over the catalog and the ranking of results."""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import timedelta
from decimal import Decimal
from functools import partial
from typing import Any

from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Count, F, Subquery, Value
from django.db.models.functions import Coalesce, Greatest, Least
from django.utils import timezone
from django.utils.translation import gettext, gettext_noop

from checks.models import context_for_run
from checks.rules import Finding, run_rules
from checks.services import findings_store_many
from hardware.gpus import LARGEST_CLUSTER_GPUS
from hardware.messages import Msg, _, joined, listed, messages_of
from hardware.norms import Assumed
from portal.task_pool import enqueue
from providers.models import Offering
from providers.selectors import offering_queryset
from sizing import bill as bill_module
from sizing import run_errors
from sizing.engine.api import evaluate
from sizing.engine.architectures import FACT_KEYS
from sizing.engine.errors import InputError
from sizing.engine.search import search
from sizing.engine.unpublished import pessimistic_facts
from sizing.input_errors import field_label
from sizing.memo import EngineMemo, memo_for
from sizing.models import DEFAULT_DEADLINE_DAYS as DEFAULT_DEADLINE_DAYS  # the form and the API read it here
from sizing.models import (
    PlanResult,
    PlanRun,
    RunStatus,
    Workload,
)
from sizing.ranking import rank_key
from sizing.workloads import SIZED_AS_FIELDS
from sizing.workloads import WORKLOAD_FIELDS as WORKLOAD_FIELDS  # moved to sizing.workloads; read here too
from sizing.workloads import known_presets as known_presets
from sizing.workloads import preset_fields as preset_fields
from sizing.workloads import workload_create as workload_create
from sizing.workloads import workload_sized_as as workload_sized_as
from sizing.workloads import workload_validate as workload_validate

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
# failed with run_errors.NO_PROGRESS (the page offers a retry).
QUEUED_GRACE_S = 30
STALLED_GRACE_S = 60
GIVE_UP_S = 900


def _seconds(name: str, default: float) -> float:
    return float(getattr(settings, name, default))


# Why an offering cannot run the job when the engine gave no reason (shown translated by its text).
NO_LAYOUT_FITS = _("no layout of this workload fits this offering")


# The largest GPU count a run may ask for: the largest published single cluster.
MAX_RUN_GPUS = LARGEST_CLUSTER_GPUS
# The most offerings one run may name: a bound on the request, far above any catalog (the demo catalog has
# 44); a run over the whole catalog names none.
MAX_RUN_OFFERINGS = 1_000

TOO_MANY_OFFERINGS = gettext_noop(
    "name at most %(most)s offerings (%(given)s given), or leave the field out to size the whole catalog"
)


def _enqueue_start(run_id: int) -> None:
    from sizing.tasks import plan_run_start_task

    # Not lost: the run stays queued and sizing.sweep_queued_runs re-enqueues it.
    enqueue(plan_run_start_task, run_id, "sizing run")


# A run's refusals as messages: the API prints their English as it did (str of the Msg), the planner page
# shows them in its language (sizing.input_errors.refusal_shown), those naming a code in a buyer's words
# (sizing.engine_words.PAGE_REASONS).
# A value as the buyer sent it is quoted as the pages quote input, “slowest”, never as Python writes it.
GPUS_RANGE = gettext_noop("must be a whole number from 1 to %(most)s, got “%(got)s”")
UNKNOWN_OFFERINGS = gettext_noop("unknown offering(s): %(slugs)s")
SAMPLES_LEFT_OUT = gettext_noop("%(slugs)s: fictional sample(s); set include_samples to size them")
NOTHING_TO_SIZE = gettext_noop("the catalog has no offering to size")
NO_SUCH_WORKLOAD = gettext_noop("no such workload")
OBJECTIVE_KNOWN = gettext_noop("must be cheapest or fastest, got “%(got)s”")


def check_run_gpus(gpus: Any) -> None:
    """A requested GPU count: a whole number from 1 to MAX_RUN_GPUS (None: search the cluster size)."""
    if gpus is None:
        return
    if isinstance(gpus, bool) or not isinstance(gpus, int) or not 1 <= gpus <= MAX_RUN_GPUS:
        raise ValidationError({"gpus": _(GPUS_RANGE, most=f"{MAX_RUN_GPUS:,}", got=gpus)})


def run_offerings(*, offering_slugs: list[str] | None, include_samples: bool) -> list[Offering]:
    """The offerings a run sizes: the named ones or the whole catalog; fictional samples only when asked."""
    if offering_slugs:
        if len(offering_slugs) > MAX_RUN_OFFERINGS:
            given = {"most": MAX_RUN_OFFERINGS, "given": len(offering_slugs)}
            raise ValidationError({"offerings": gettext(TOO_MANY_OFFERINGS) % given})
        offerings = list(Offering.objects.filter(slug__in=offering_slugs).select_related("provider"))
        missing = sorted(set(offering_slugs) - {o.slug for o in offerings})
        if missing:
            # The first ten by name, and how many more: the message stays short whatever the request.
            shown = listed(missing[:10])
            if len(missing) > 10:
                shown = joined(shown, f"(+{len(missing) - 10})")
            raise ValidationError({"offerings": _(UNKNOWN_OFFERINGS, slugs=shown)})
        samples = sorted((o for o in offerings if o.fictional), key=lambda o: o.slug)
        if samples and not include_samples:
            # the API names them by slug and parameter; a page by their names and the form's checkbox
            names = gettext(", ").join(o.shown_title for o in samples)  # shown at once, in this language
            slugs = ", ".join(o.slug for o in samples)
            raise ValidationError({"offerings": _(SAMPLES_LEFT_OUT, slugs=slugs, names=names)})
    else:
        queryset = Offering.objects.all()
        offerings = list(queryset if include_samples else queryset.filter(fictional=False))
    if not offerings:
        raise ValidationError({"offerings": _(NOTHING_TO_SIZE)})
    return offerings


def plan_run_create(
    *,
    owner: Any,
    workload: Workload,
    offering_slugs: list[str] | None = None,
    objective: str = "cheapest",
    gpus: int | None = None,
    include_samples: bool = False,
) -> PlanRun:
    """Create a queued run of `workload` over the offerings (default: the catalog without its fictional
    samples), optionally at exactly `gpus` GPUs; enqueue its start on commit."""
    if workload.owner_id != owner.pk:
        raise ValidationError({"workload": _(NO_SUCH_WORKLOAD)})
    if objective not in ("cheapest", "fastest"):
        raise ValidationError({"objective": _(OBJECTIVE_KNOWN, got=objective)})
    check_run_gpus(gpus)
    offerings = run_offerings(offering_slugs=offering_slugs, include_samples=include_samples)
    with transaction.atomic():
        run = PlanRun(
            workload=workload,
            owner=owner,
            objective=objective,
            gpus=gpus,
            include_samples=include_samples,
            progress_total=len(offerings),
        )
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


def size_offering(
    *, workload: Workload, facts: dict[str, Any], objective: str, gpus: int | None = None
) -> dict[str, Any]:
    """One offering's sizing, full bill and pitfall codes, as PlanResult field values."""
    values, _ = size_offering_with_findings(workload=workload, facts=facts, objective=objective, gpus=gpus)
    return values


def input_error_words(exc: InputError, gpus: int | None) -> str:
    """Why the engine could not size an offering, in a buyer's words (never the exception's text alone)."""
    if exc.field == "gpus" and gpus is not None:
        return _(
            "this workload cannot be laid out on exactly %(gpus)s GPUs of this offering (%(reason)s)",
            gpus=f"{gpus:,}",
            reason=exc.reason,
        )
    if exc.field == "offering.gpu":
        return _("the offering's GPU model is not published and cannot be read from its description")
    return _(
        "the planner cannot size this offering: %(field)s %(reason)s",
        field=field_label(exc.field),
        reason=exc.reason,
    )


def _engine_call(
    memo: EngineMemo | None,
    function: Callable[..., dict[str, Any]],
    workload: Workload,
    facts: dict[str, Any],
    **kwargs: Any,
) -> dict[str, Any]:
    """`function` (the engine's search or evaluate) on the workload and facts, through the run's memo when
    there is one (an answer to the same inputs earlier in the run is reused)."""
    return _engine_call_dict(memo, function, workload.to_engine_dict(), facts, **kwargs)


def _engine_call_dict(
    memo: EngineMemo | None,
    function: Callable[..., dict[str, Any]],
    engine_workload: dict[str, Any],
    facts: dict[str, Any],
    **kwargs: Any,
) -> dict[str, Any]:
    if memo is None:
        return function(engine_workload, facts, **kwargs)
    return memo.call(function, engine_workload, facts, **kwargs)


# The fields of an answer's `workload` that fix the model a bare parameter count was sized as: the shape
# `sized_as` reports, the experts, and a published model's facts (architectures.named), so the same model
# is evaluated again.
DERIVED_SHAPE_FIELDS = (*SIZED_AS_FIELDS, "moe", *FACT_KEYS)


def _as_sized(workload: Workload, sizing: dict[str, Any]) -> dict[str, Any]:
    """The engine dict of the workload the answer sized: a bare parameter count replaced by the shape the
    search derived, so the same layout is evaluated on the same model (an evaluation derives its own shape
    to fit the layout's pipeline, shapes.derive_shape, which can differ from the search's)."""
    engine = workload.to_engine_dict()
    shape = sizing.get("workload") or {}
    if "params" not in engine or not shape.get("layers"):
        return engine
    fixed = {name: shape[name] for name in DERIVED_SHAPE_FIELDS if shape.get(name) is not None}
    return {**{k: v for k, v in engine.items() if k != "params"}, **fixed}


def engine_sizing(
    *,
    workload: Workload,
    facts: dict[str, Any],
    objective: str,
    gpus: int | None = None,
    memo: EngineMemo | None = None,
) -> dict[str, Any]:
    """The engine's search for one offering; an offering it cannot size is an answer in words too.
    With `memo` (a run's), an answer to the same inputs earlier in the run is reused (sizing.memo)."""
    engine_objective = objective
    if objective == "cheapest" and workload.deadline_days is not None:
        engine_objective = "cheapest-within-deadline"
    try:
        return _engine_call(
            memo,
            search,
            workload,
            facts,
            objective=engine_objective,
            top=3,
            gpus=gpus,
            optimizer=workload.optimizer,
        )
    except InputError as exc:
        reason = input_error_words(exc, gpus)
    except SoftTimeLimitExceeded:
        raise
    except Exception:  # a bug must not become a page of exception text: log it, answer in words
        logger.exception("sizing %s failed", facts.get("slug"))
        reason = _("the planner could not size this offering (an internal error, logged for the team)")
    return {"feasible": False, "reasons": [reason], "explanation": [], "assumed_facts": []}


def pessimistic_answer(
    *, workload: Workload, facts: dict[str, Any], sizing: dict[str, Any], memo: EngineMemo | None = None
) -> dict[str, Any] | None:
    """The same layout and GPU count with every assumed fact at its pessimistic value: days and cost.
    None when nothing was assumed that has a worse value. The cluster size stays as sized (an unpublished
    capacity is a question of its own, listed with the assumptions)."""
    assumed = [Assumed(**a) for a in sizing.get("assumed_facts") or [] if a.get("fact") != "max_nodes"]
    worse_facts = pessimistic_facts(facts, assumed)
    if worse_facts is None or not sizing.get("layout") or not sizing.get("gpus"):
        return None
    try:
        worse = _engine_call_dict(
            memo,
            evaluate,
            _as_sized(workload, sizing),
            worse_facts,
            layout=sizing["layout"],
            gpus=sizing["gpus"],
            optimizer=workload.optimizer,
        )
    except InputError:
        return None
    out: dict[str, Any] = {
        "facts": {a.fact: a.pessimistic for a in assumed if a.pessimistic is not None},
        "feasible": bool(worse.get("feasible")),
        "train_days": worse.get("train_days"),
        "mfu": worse.get("mfu"),
        "cost_total_usd": None,
    }
    if worse.get("train_days") is not None:
        full = bill_module.full_bill(facts, worse, workload.to_rules_dict())
        if full["plan"]["price_usd_per_gpu_hour"] is not None:
            out["cost_total_usd"] = str(bill_module.central_or_total(full))
    return out


def _bill_values(workload: Workload, facts: dict[str, Any], sizing: dict[str, Any]) -> dict[str, Any]:
    """The bill's PlanResult fields: the bill, its central estimate (the ranked cost) and its range."""
    values: dict[str, Any] = {
        "bill": {},
        "cost_total_usd": None,
        "cost_low_usd": None,
        "cost_high_usd": None,
        "cost_complete": False,
        "plan_name": "",
    }
    if not sizing.get("gpus") or sizing.get("train_days") is None:
        return values
    full = bill_module.full_bill(facts, sizing, workload.to_rules_dict())
    values["bill"] = bill_module.to_json(full)
    # the assumptions' message ids beside the English (the result API does not show the bill)
    values["bill"]["assumption_messages"] = messages_of(full["assumptions"])
    values["bill"]["line_note_messages"] = messages_of(line["note"] for line in full["lines"])
    if full["plan"]["price_usd_per_gpu_hour"] is not None:
        values["cost_total_usd"] = bill_module.central_or_total(full)
        values["cost_low_usd"] = full["cost_low_usd"]
        values["cost_high_usd"] = full["cost_high_usd"]
    values["cost_complete"] = bool(full["complete"])
    values["plan_name"] = full["plan"]["name"] or ""
    return values


def size_offering_with_findings(
    *,
    workload: Workload,
    facts: dict[str, Any],
    objective: str,
    gpus: int | None = None,
    memo: EngineMemo | None = None,
) -> tuple[dict[str, Any], list[Finding]]:
    """size_offering, plus the pitfall findings themselves (severity, evidence, advice) for the checks app."""
    sizing = engine_sizing(workload=workload, facts=facts, objective=objective, gpus=gpus, memo=memo)
    # the sentences' message ids beside the English, for a page in another language (portal.i18n)
    sizing["explanation_messages"] = messages_of(sizing.get("explanation") or [])
    sizing["assumption_messages"] = messages_of(sizing.get("assumptions") or [])
    sizing["reason_messages"] = messages_of(sizing.get("reasons") or [])
    sizing["restart_message"] = messages_of([(sizing.get("goodput") or {}).get("restart") or ""])[0]
    feasible = bool(sizing.get("feasible"))
    values: dict[str, Any] = {
        "feasible": feasible,
        "layout": sizing.get("layout") or {},
        "gpus": sizing.get("gpus"),
        "nodes": sizing.get("nodes"),
        "train_days": sizing.get("train_days"),
        "mfu": sizing.get("mfu"),
        "goodput": (sizing.get("goodput") or {}).get("fraction"),
        "sizing": sizing,
        "sample": bool(facts.get("fictional")),
        "assumptions": [
            {"fact": a["fact"], "assumed": a["assumed"], "basis": a["basis"]}
            for a in sizing.get("assumed_facts") or []
        ],
        "infeasible_reason": None if feasible else ("; ".join(sizing.get("reasons") or []) or NO_LAYOUT_FITS),
        "pessimistic": pessimistic_answer(workload=workload, facts=facts, sizing=sizing, memo=memo),
        **_bill_values(workload, facts, sizing),
    }
    findings = run_rules(facts, workload=workload.to_rules_dict(), sizing=sizing, bill=values["bill"] or None)
    values["findings"] = list(dict.fromkeys(f.code for f in findings))
    return values, list(findings)


class ChunkError(Exception):
    """A chunk failed on an offering: `message` is what a buyer reads on the run's page (the cause is
    chained)."""

    def __init__(self, message: Msg) -> None:
        super().__init__(message)
        self.message = message


def plan_run_execute_chunk(*, run_id: int, offering_ids: list[int]) -> int:
    """Size the offerings of one chunk, one result per (run, offering); returns how many were new.

    A fixed number of queries whatever the chunk's size: the run, the offerings already sized, the catalog
    rows (offerings with provider and GPU, their plans), then one transaction that stores every result and
    finding in bulk, and the progress counted from the stored results. Safe to deliver twice, even at the
    same time: offerings with a result are skipped, and a result is unique per (run, offering), inserted
    with ON CONFLICT DO NOTHING (_store_chunk)."""
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
        memo = memo_for((run.pk, run.created_at))  # the engine's answers of this run, in this process
        for offering in offerings:
            try:
                sized[offering.pk] = size_offering_with_findings(
                    workload=run.workload,
                    facts=offering.facts(),
                    objective=run.objective,
                    gpus=run.gpus,
                    memo=memo,
                )
            except Exception as exc:
                raise ChunkError(run_errors.chunk_error(run_errors.offering_what(offering.name))) from exc
    created, finished = _store_chunk(run_id=run_id, sized=sized)
    if finished:
        plan_run_rank(run_id=run_id)
    return created


def _store_chunk(*, run_id: int, sized: dict[int, tuple[dict[str, Any], list[Finding]]]) -> tuple[int, bool]:
    """Store a chunk's results and findings in one transaction; (new results, every offering sized).

    The run's row is not locked while the results (~10 KB of JSON each) and findings are written, so two
    workers store their chunks at the same time: a result is unique per (run, offering) and inserted with
    ON CONFLICT DO NOTHING, so two deliveries of one chunk racing store it once (findings likewise, per
    offering, code and context). The progress is then counted from the stored results in one UPDATE that
    never moves it backwards (_count_progress). A run that finished while the chunk was sized (failed by
    another chunk or the watchdog) may get the chunk's results, kept for a retry as every stored result
    is; its progress and status are left alone."""
    new: dict[int, tuple[dict[str, Any], list[Finding]]] = {}
    if sized:
        with transaction.atomic():
            existing = set(
                PlanResult.objects.filter(run_id=run_id, offering_id__in=list(sized)).values_list(
                    "offering_id", flat=True
                )
            )
            new = {pk: pair for pk, pair in sized.items() if pk not in existing}
            # rank (unset until the ranking) as a literal expression: with one, Django inserts the rows as
            # VALUES instead of UNNEST of one array per column, whose text psycopg escapes quote by quote
            # through a regex callback (a chunk of 47: ~80 -> ~50 ms of CPU; docs/PERFORMANCE.md)
            unranked = Value(None, output_field=PlanResult._meta.get_field("rank"))
            PlanResult.objects.bulk_create(
                [
                    PlanResult(run_id=run_id, offering_id=pk, rank=unranked, **values)
                    for pk, (values, _) in new.items()
                ],
                ignore_conflicts=True,
            )
            # The offering's page and /api/v1/findings/ show what this job would meet there; the codes stay
            # on the PlanResult for the ranking. Same transaction: both are stored or neither.
            findings_store_many(
                context=context_for_run(run_id), findings_by_offering={pk: f for pk, (_, f) in new.items()}
            )
    return len(new), _count_progress(run_id, moved=bool(new))


def _count_progress(run_id: int, *, moved: bool) -> bool:
    """Set the run's progress to its stored results (when this chunk stored any; never lower than it was:
    a statement that waited on a concurrent one may count from an older snapshot) and tell whether every
    offering is sized."""
    if moved:
        stored = PlanResult.objects.filter(run_id=run_id).order_by().values("run_id").annotate(n=Count("id"))
        now = timezone.now()
        PlanRun.objects.filter(pk=run_id).exclude(status__in=PlanRun.finished_statuses).update(
            progress_done=Least(
                F("progress_total"), Greatest(F("progress_done"), Coalesce(Subquery(stored.values("n")), 0))
            ),
            progress_at=now,
            updated_at=now,
        )
    row = PlanRun.objects.filter(pk=run_id).values_list("status", "progress_done", "progress_total").first()
    return row is not None and row[0] not in PlanRun.finished_statuses and row[1] >= row[2]


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
    """Mark an unfinished run failed with `error`, the sentence its owner reads (the first error stays): its
    English for the API and, when it is a `Msg`, its message id and values for the pages."""
    PlanRun.objects.filter(pk=run_id).exclude(status__in=PlanRun.finished_statuses).update(
        status=RunStatus.FAILED,
        error=error[:2000],
        error_message=error.as_json() if isinstance(error, Msg) else None,
        finished_at=timezone.now(),
        updated_at=timezone.now(),
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
        run.error_message = None
        run.finished_at = None
        run.progress_at = timezone.now()
        run.progress_done = run.results.count()
        run.save(
            update_fields=[
                "status",
                "error",
                "error_message",
                "finished_at",
                "progress_at",
                "progress_done",
                "updated_at",
            ]
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
    message = run_errors.no_progress(max(1, round(give_up_s / 60)))
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


def decimal_or_none(value: Any) -> Decimal | None:
    return None if value in (None, "") else Decimal(str(value))
