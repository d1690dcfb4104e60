"""Planner benchmark: SQL queries and wall time per offering, and the wall time of one run over a catalog of
OFFERINGS offerings with 1, then 2, worker processes on the real PostgreSQL and Redis.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/<db> CELERY_BROKER_URL=redis://127.0.0.1:6379/<n> \\
        .venv/bin/python perf/bench_planner.py [--offerings 3000] [--workers 1,2] [--preset 13b] \\
        [--in-process 300] [--repeat 1] [--distinct]

The database is migrated and grown to OFFERINGS offerings (the demo catalog plus renamed copies, as
perf/load/seed.py makes them); the Redis database is purged of queued tasks (use your own database numbers).

1. In this process, no broker: one run over IN_PROCESS offerings, its chunks executed one after the other
   with every SQL query counted and the engine's time (the sizing search, the bill, the rules) measured
   apart from the planner's own (loading, storing, progress, ranking). With --distinct, every offering's
   facts are made distinct in this phase (each price scaled by 1 + pk / 10^6 and a fact the engine does not
   read set to the offering's id: the same work for the engine), so that no two offerings share an engine
   answer and the run's memo (sizing.memo) cannot help.
2. Through the broker: WORKERS `celery worker --pool solo` processes (each one process, one task at a time)
   on the `sizing` queue; the wall time from creating a run over OFFERINGS offerings to its `done`.

Prints one JSON object. Figures and their reading are in docs/PERFORMANCE.md ("Planner").
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "perf" / "load")]
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "portal.settings")
# As deployed: DEBUG off (no query log kept in memory), in this process and in the workers it starts.
os.environ.setdefault("DJANGO_DEBUG", "false")
os.environ.setdefault("DJANGO_SECRET_KEY", "bench-planner-only")

import django  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import connection, reset_queries  # noqa: E402
from django.test.utils import CaptureQueriesContext  # noqa: E402
from seed import catalog_copy  # noqa: E402

from accounts.models import User  # noqa: E402
from portal.celery import app  # noqa: E402
from providers.catalog import catalog_import, read_catalog_file  # noqa: E402
from providers.models import Offering  # noqa: E402
from providers.services import gpu_table_sync  # noqa: E402
from sizing import services, tasks  # noqa: E402
from sizing.models import PlanRun  # noqa: E402


def grow_catalog(target: int) -> list[str]:
    """At least `target` offerings (demo catalog + copies); the first `target` slugs."""
    if Offering.objects.count() < target:
        gpu_table_sync()
        demo = read_catalog_file(REPO / "providers" / "demo" / "catalog.yaml")
        catalog_import(data=demo)
        n = 0
        while Offering.objects.count() < target:
            n += 1
            if not Offering.objects.filter(slug__endswith=f"-c{n}").exists():
                catalog_import(data=catalog_copy(demo, n))
    return list(Offering.objects.order_by("slug").values_list("slug", flat=True)[:target])


def buyer_workload(preset: str) -> tuple[User, Any]:
    user, _ = User.objects.get_or_create(username="bench-planner")
    return user, services.workload_create(owner=user, preset=preset)


def distinct_facts(real: Any) -> Any:
    """Offering.facts with every price scaled by 1 + pk / 10^6 and an unread fact set to the offering's id:
    no two offerings have the same facts (an offering without a price would otherwise repeat its copies')."""

    def facts(offering: Offering) -> dict[str, Any]:
        out: dict[str, Any] = real(offering)
        scale = 1 + offering.pk / 1e6
        if out.get("price_usd_per_gpu_hour") is not None:
            out["price_usd_per_gpu_hour"] *= scale
        for plan in out.get("billing_plans") or []:
            if plan.get("price_usd_per_gpu_hour") is not None:
                plan["price_usd_per_gpu_hour"] = float(plan["price_usd_per_gpu_hour"]) * scale
        out["bench_distinct"] = offering.pk
        return out

    return facts


def in_process(slugs: list[str], preset: str, size: int, distinct: bool = False) -> dict[str, Any]:
    """Run the chunks (of `size` offerings) in this process, counting queries and timing the engine apart."""
    settings.SIZING_CHUNK_SIZE = size
    real_facts = Offering.facts
    if distinct:
        Offering.facts = distinct_facts(real_facts)  # type: ignore[method-assign]
    user, workload = buyer_workload(preset)
    real_enqueue, real_delay = services._enqueue_start, tasks.plan_run_chunk_task.delay
    chunks: list[list[int]] = []
    services._enqueue_start = lambda run_id: None  # type: ignore[assignment]
    tasks.plan_run_chunk_task.delay = lambda run_id, ids: chunks.append(ids)  # type: ignore[method-assign,assignment,return-value]
    real_size = services.size_offering_with_findings
    engine_s = engine_cpu_s = 0.0

    def timed_size(**kwargs: Any) -> Any:
        nonlocal engine_s, engine_cpu_s
        started, cpu_started = time.perf_counter(), time.process_time()
        try:
            return real_size(**kwargs)
        finally:
            engine_s += time.perf_counter() - started
            engine_cpu_s += time.process_time() - cpu_started

    services.size_offering_with_findings = timed_size  # type: ignore[assignment]
    reset_queries()
    try:
        with CaptureQueriesContext(connection) as queries:
            wall0, cpu0 = time.perf_counter(), time.process_time()
            run = services.plan_run_create(
                owner=user, workload=workload, offering_slugs=slugs, include_samples=True
            )
            services.plan_run_start(run_id=run.pk)
            for chunk in chunks:
                services.plan_run_execute_chunk(run_id=run.pk, offering_ids=chunk)
            wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
    finally:
        services._enqueue_start = real_enqueue  # type: ignore[assignment]
        tasks.plan_run_chunk_task.delay = real_delay  # type: ignore[method-assign]
        services.size_offering_with_findings = real_size  # type: ignore[assignment]
        Offering.facts = real_facts  # type: ignore[method-assign]
        del settings.SIZING_CHUNK_SIZE
    run.refresh_from_db()
    assert run.status == "done", run.status
    n = len(slugs)
    from sizing.memo import memo_for

    memo = memo_for((run.pk, run.created_at))
    return {
        "offerings": n,
        "distinct_facts": distinct,
        "engine_memo_hits": getattr(memo, "hits", None),
        "engine_memo_misses": getattr(memo, "misses", None),
        "chunks": len(chunks),
        "chunk_size": len(chunks[0]),
        "queries": len(queries),
        "queries_per_offering": round(len(queries) / n, 3),
        "wall_ms_per_offering": round(1000 * wall / n, 2),
        "cpu_ms_per_offering": round(1000 * cpu / n, 2),
        "engine_ms_per_offering": round(1000 * engine_s / n, 2),
        "planner_overhead_ms_per_offering": round(1000 * (wall - engine_s) / n, 2),
        "engine_cpu_ms_per_offering": round(1000 * engine_cpu_s / n, 2),
        "planner_overhead_cpu_ms_per_offering": round(1000 * (cpu - engine_cpu_s) / n, 2),
    }


def start_workers(count: int) -> list[subprocess.Popen[bytes]]:
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    procs = []
    for i in range(count):
        cmd = [sys.executable, "-m", "celery", "-A", "portal", "worker", "-Q", "sizing", "--pool", "solo"]
        cmd += ["--without-gossip", "--without-mingle", "-l", "warning", "-n", f"bench{i}@%h"]
        log = open(REPO / "perf" / f".bench-worker-{i}.log", "ab")  # noqa: SIM115 - closed with the process
        procs.append(subprocess.Popen(cmd, cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT))
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if len(app.control.ping(timeout=1.0) or []) >= count:
            return procs
    stop_workers(procs)
    raise SystemExit(f"{count} workers did not answer a ping within 60 s")


def cpu_seconds(proc: subprocess.Popen[bytes]) -> float:
    """User + system CPU time of a running process (Linux /proc)."""
    fields = Path(f"/proc/{proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def stop_workers(procs: list[subprocess.Popen[bytes]]) -> None:
    for proc in procs:
        proc.send_signal(signal.SIGTERM)
    for proc in procs:
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()


def through_workers(slugs: list[str], preset: str, count: int) -> dict[str, Any]:
    user, workload = buyer_workload(preset)
    app.control.purge()
    procs = start_workers(count)
    cpu0 = [cpu_seconds(p) for p in procs]
    try:
        started = time.perf_counter()
        run = services.plan_run_create(
            owner=user, workload=workload, offering_slugs=slugs, include_samples=True
        )
        while True:
            run.refresh_from_db()
            if run.finished:
                break
            time.sleep(0.1)
        wall = time.perf_counter() - started
        cpu = [round(cpu_seconds(p) - c, 2) for p, c in zip(procs, cpu0, strict=True)]
    finally:
        stop_workers(procs)
    assert run.status == PlanRun.Status.DONE, (run.status, run.error)
    return {
        "workers": count,
        "offerings": len(slugs),
        "wall_s": round(wall, 2),
        "offerings_per_s": round(len(slugs) / wall, 1),
        "wall_ms_per_offering_per_worker": round(1000 * wall * count / len(slugs), 2),
        # CPU each worker spent on the run: their balance bounds the speed-up whatever the machine's load.
        "worker_cpu_s": cpu,
        "cpu_ms_per_offering": round(1000 * sum(cpu) / len(slugs), 2),
        "balance_bound_speedup": round(sum(cpu) / max(cpu), 2) if max(cpu) else None,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--offerings", type=int, default=3000)
    parser.add_argument("--workers", default="1,2")
    parser.add_argument("--preset", default="13b")
    parser.add_argument("--in-process", type=int, default=300, help="offerings of the in-process phase")
    parser.add_argument("--repeat", type=int, default=1, help="worker runs per worker count (interleaved)")
    parser.add_argument("--distinct", action="store_true", help="in-process phase: no two offerings alike")
    args = parser.parse_args()
    if not settings.CELERY_BROKER_URL or connection.vendor != "postgresql":
        raise SystemExit("set DATABASE_URL (PostgreSQL) and CELERY_BROKER_URL (Redis)")
    call_command("migrate", verbosity=0)
    slugs = grow_catalog(args.offerings)
    report: dict[str, Any] = {"preset": args.preset, "catalog": Offering.objects.count()}
    if args.in_process:
        # Chunks of the size the full run gets, so that the per-chunk queries weigh what they weigh there.
        chunk = services.chunk_size(len(slugs))
        report["in_process"] = in_process(slugs[: args.in_process], args.preset, chunk, args.distinct)
    counts = [int(c) for c in args.workers.split(",") if c]
    runs: dict[int, list[dict[str, Any]]] = {c: [] for c in counts}
    for _ in range(args.repeat):
        for count in counts:
            runs[count].append(through_workers(slugs, args.preset, count))
    report["workers"] = runs
    best = {c: min(r["wall_s"] for r in rs) for c, rs in runs.items() if rs}
    if 1 in best:
        report["speedup_vs_1_worker"] = {c: round(best[1] / w, 2) for c, w in best.items()}
    report["load_average"] = os.getloadavg()
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
