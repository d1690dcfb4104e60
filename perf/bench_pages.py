"""Page speed at a large catalog: median ms of each page against /healthz in the same run, home page bytes.

    .venv/bin/python perf/bench_pages.py        # ~5-10 min on this machine; figures in docs/PERFORMANCE.md

Uses its own PostgreSQL database (BENCH_DB, default cs_d: dropped and recreated) and Redis database
(BENCH_REDIS, default /9: flushed) and never stops either server. Seeds the demo catalog plus renamed
copies of it (perf/grow_catalog.py, bulk inserts) up to BENCH_OFFERINGS (default 3,000) offerings, starts
gunicorn with BENCH_WORKERS workers, then requests each page BENCH_REPEATS times one after another (after
two warm-up hits, so the compare page reads its cached sizing, as every visit but the first does) and
prints one JSON report: the median and p95 ms per page, its ratio to the /healthz median, and the bytes of
each page.
"""

from __future__ import annotations

import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import psycopg
import requests

REPO = Path(__file__).resolve().parents[1]
PG = os.environ.get("BENCH_PG", "postgres://postgres@127.0.0.1:5432")
DB = os.environ.get("BENCH_DB", "cs_d")
REDIS = os.environ.get("BENCH_REDIS", "redis://127.0.0.1:6379/9")
OFFERINGS = int(os.environ.get("BENCH_OFFERINGS", "3000"))
REPEATS = int(os.environ.get("BENCH_REPEATS", "30"))
WORKERS = int(os.environ.get("BENCH_WORKERS", "2"))
PORT = int(os.environ.get("BENCH_PORT", "8769"))
# BENCH_REUSE=1 measures again on the catalog a previous run left in BENCH_DB (seeding takes minutes).


def log(message: str) -> None:
    print(f"[bench] {message}", file=sys.stderr, flush=True)


def reset(env: dict[str, str]) -> None:
    with psycopg.connect(f"{PG}/postgres", autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {DB} WITH (FORCE)")
        conn.execute(f"CREATE DATABASE {DB}")
    import redis

    redis.Redis.from_url(REDIS).flushdb()
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput", "-v0"], cwd=REPO, env=env, check=True
    )


def seed(env: dict[str, str]) -> dict[str, Any]:
    out = subprocess.run(
        [sys.executable, str(REPO / "perf" / "grow_catalog.py")],
        cwd=REPO,
        env={**env, "CELERY_BROKER_URL": "", "BENCH_OFFERINGS": str(OFFERINGS)},
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return dict(json.loads(out.strip().splitlines()[-1]))


def timed(session: requests.Session, url: str) -> tuple[float, int]:
    started = time.perf_counter()
    response = session.get(url, timeout=60)
    elapsed = (time.perf_counter() - started) * 1000
    assert response.status_code == 200, (url, response.status_code, response.text[:300])
    return elapsed, len(response.content)


def measure(base: str, paths: dict[str, str], cookie: str) -> dict[str, Any]:
    session = requests.Session()
    session.cookies.set("sessionid", cookie)
    for path in paths.values():  # warm-up: imports, connections, the compare page's cached sizing
        timed(session, base + path)
        timed(session, base + path)
    samples: dict[str, list[float]] = {name: [] for name in paths}
    sizes: dict[str, int] = {}
    for _ in range(REPEATS):  # interleaved, so a burst of machine load hits every page alike
        for name, path in paths.items():
            ms, size = timed(session, base + path)
            samples[name].append(ms)
            sizes[name] = size
    floor = statistics.median(samples["healthz"])
    return {
        name: {
            "median_ms": round(statistics.median(values), 1),
            "p95_ms": round(sorted(values)[int(0.95 * (len(values) - 1))], 1),
            "x_healthz": round(statistics.median(values) / floor, 2),
            "bytes": sizes[name],
        }
        for name, values in samples.items()
    }


def main() -> None:
    env = {
        **os.environ,
        "DATABASE_URL": f"{PG}/{DB}",
        "CELERY_BROKER_URL": REDIS,
        "DJANGO_DEBUG": "0",
        "DJANGO_SECRET_KEY": "bench-only-not-a-secret-0123456789abcdefghijklmnopqrstuvwxyz0123",
        "DJANGO_SECURE_SSL_REDIRECT": "0",
        "DJANGO_STATIC_ROOT": str(Path(tempfile.gettempdir()) / "clusterscout-bench-static"),
        "DATABASE_CONN_MAX_AGE": "60",
        "LOG_LEVEL": "WARNING",
    }
    started = time.perf_counter()
    static_root = Path(env["DJANGO_STATIC_ROOT"])
    manifest = static_root / "staticfiles.json"
    newest = max(p.stat().st_mtime for p in (REPO / "static").rglob("*") if p.is_file())
    if not manifest.exists() or manifest.stat().st_mtime < newest:  # compressing takes minutes: when stale
        subprocess.run(
            [sys.executable, "manage.py", "collectstatic", "--noinput", "-v0"], cwd=REPO, env=env, check=True
        )
    if os.environ.get("BENCH_REUSE") != "1":  # BENCH_REUSE=1: keep the catalog a previous run seeded
        reset(env)
    seeded = seed(env)
    # The machine's PostgreSQL may run without autovacuum, which in production gathers the planner's
    # statistics soon after a bulk insert; without them it joins ~11,000 sources by a hash of all of them.
    with psycopg.connect(f"{PG}/{DB}", autocommit=True) as conn:
        conn.execute("ANALYZE")
    slugs: list[str] = seeded["slugs"]
    log(f"seeded {seeded['offerings']} offerings in {time.perf_counter() - started:.0f} s")
    real = slugs[:12]
    gunicorn = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "portal.wsgi", "-b", f"127.0.0.1:{PORT}", "-w", str(WORKERS)],
        cwd=REPO,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{PORT}"
    try:
        for _ in range(100):
            try:
                requests.get(base + "/healthz", timeout=5).raise_for_status()
                break
            except requests.RequestException:  # still booting
                time.sleep(0.5)
        paths = {
            "healthz": "/healthz",
            "home": "/",
            "browse": "/offerings/",
            "browse_filtered": "/offerings/?fabric=infiniband&provider_q=Lambda&page=2",
            "api_list": "/api/v1/offerings/",
            "offering": f"/offerings/{slugs[len(slugs) // 2]}/",
            "compare": f"/compare/?offerings={','.join(real[:6])}&workload=llama3-70b&gpus=256",
            "checklist": f"/checks/checklist/?offering={slugs[0]}",
        }
        report = {
            "offerings": seeded["offerings"],
            "repeats": REPEATS,
            "gunicorn_workers": WORKERS,
            "load_at_start": [round(x, 1) for x in os.getloadavg()],
            "pages": measure(base, paths, seeded["session"]),
        }
    finally:
        gunicorn.send_signal(signal.SIGTERM)
        gunicorn.wait(timeout=30)
    print(json.dumps(report, indent=2))
    width = max(len(n) for n in report["pages"])
    for name, row in report["pages"].items():
        print(
            f"{name:<{width}}  {row['median_ms']:>8.1f} ms  p95 {row['p95_ms']:>8.1f}  "
            f"{row['x_healthz']:>6.2f}x  {row['bytes']:>9,} B"
        )


if __name__ == "__main__":
    main()
