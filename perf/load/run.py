"""Load benchmark: gunicorn + PostgreSQL + Redis on this machine, wrk clients, concurrent uploads.

    .venv/bin/python perf/load/run.py            # about 2 minutes; figures in docs/PERFORMANCE.md ("Load")

Uses its own database (clusterscout_load, dropped and recreated) on the machine's PostgreSQL and its own
Redis database (/10, flushed); never stops either server. Seeds the demo catalog plus renamed copies of it
(several hundred offerings), a buyer and a finished planner run, then measures each kind of page with
CONNECTIONS concurrent wrk clients for DURATION seconds, the trivial /healthz first as the floor, and finally
a mix of everything while UPLOADS evidence files are posted concurrently, all of which must be parsed.
Environment knobs: LOAD_PG (server URL without database), LOAD_REDIS, LOAD_CONNECTIONS, LOAD_DURATION,
LOAD_WEB_WORKERS, LOAD_UPLOADS, LOAD_CATALOG_COPIES. Writes perf/load/last-run.json and prints a table.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import psycopg
import requests

REPO = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
PG = os.environ.get("LOAD_PG", "postgres://postgres@127.0.0.1:5432")
DB = "clusterscout_load"
REDIS = os.environ.get("LOAD_REDIS", "redis://127.0.0.1:6379/10")
CONNECTIONS = int(os.environ.get("LOAD_CONNECTIONS", "20"))
DURATION = int(os.environ.get("LOAD_DURATION", "10"))
WEB_WORKERS = int(os.environ.get("LOAD_WEB_WORKERS", str(2 * (os.cpu_count() or 1))))
UPLOADS = int(os.environ.get("LOAD_UPLOADS", "60"))
NCCL_LOG = (REPO / "tests" / "benchmarks" / "fixtures" / "nccl-one-rank.txt").read_text()


def log(message: str) -> None:
    print(f"[load] {message}", file=sys.stderr, flush=True)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def ensure_wrk() -> str:
    path = shutil.which("wrk")
    if path is None:
        log("installing wrk (Debian package)")
        subprocess.run(["apt-get", "install", "-y", "-qq", "wrk"], check=False)
        path = shutil.which("wrk")
        if path is None:
            subprocess.run(["apt-get", "update", "-qq"], check=True)
            subprocess.run(["apt-get", "install", "-y", "-qq", "wrk"], check=True)
            path = shutil.which("wrk")
    assert path, "wrk is not installed"
    return path


def reset_database() -> None:
    with psycopg.connect(f"{PG}/postgres", autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {DB} WITH (FORCE)")
        conn.execute(f"CREATE DATABASE {DB}")
    import redis

    redis.Redis.from_url(REDIS).flushdb()


def static_is_stale(static_root: Path) -> bool:
    """True unless the collected assets (kept between runs) are newer than every file under static/."""
    manifest = static_root / "staticfiles.json"
    if not manifest.exists():
        return True
    newest = max(p.stat().st_mtime for p in (REPO / "static").rglob("*") if p.is_file())
    return newest > manifest.stat().st_mtime


def stop(proc: subprocess.Popen[bytes] | None) -> None:
    if proc is not None and proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()


def wrk(binary: str, base: str, paths: list[str], cookie: str = "", auth: str = "") -> dict[str, Any]:
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as handle:
        handle.write("\n".join(paths) + "\n")
    cmd = [binary, "-t", "2", "-c", str(CONNECTIONS), "-d", f"{DURATION}s", "--timeout", "10s"]
    cmd += ["-s", str(HERE / "paths.lua"), base, "--", handle.name, cookie, auth]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True, timeout=DURATION + 60).stdout
    os.unlink(handle.name)
    line = next(x for x in out.splitlines() if x.startswith("WRK_JSON "))
    return dict(json.loads(line.removeprefix("WRK_JSON ")))


def main() -> None:
    wrk_bin = ensure_wrk()
    work = Path(tempfile.mkdtemp(prefix="clusterscout-load-"))
    static_root = Path(tempfile.gettempdir()) / "clusterscout-load-static"
    env = {
        **os.environ,
        "DATABASE_URL": f"{PG}/{DB}",
        "CELERY_BROKER_URL": REDIS,
        "DJANGO_DEBUG": "0",
        "DJANGO_SECRET_KEY": "load-test-only-not-a-secret-0123456789abcdefghijklmnopqrstuvwxyz",
        "DJANGO_SECURE_SSL_REDIRECT": "0",
        "DJANGO_STATIC_ROOT": str(static_root),
        "DJANGO_MEDIA_ROOT": str(work / "media"),
        "DATABASE_CONN_MAX_AGE": "60",
        "LOG_LEVEL": "WARNING",
        # Capacity is measured here, not the per-user upload limiter (accounts/ratelimit.py).
        "RATE_LIMIT_UPLOADS": "1000000",
        "PYTHONUNBUFFERED": "1",
    }
    py = sys.executable
    procs: list[subprocess.Popen[bytes]] = []
    try:
        log(f"database {DB}, redis {REDIS}, {WEB_WORKERS} gunicorn workers, {CONNECTIONS} clients")
        load_at_start = [round(x, 1) for x in os.getloadavg()]
        reset_database()
        subprocess.run([py, "manage.py", "migrate", "--noinput", "-v0"], cwd=REPO, env=env, check=True)
        if static_is_stale(static_root):  # compressing the assets takes minutes on a busy machine
            subprocess.run(
                [py, "manage.py", "collectstatic", "--noinput", "-v0"], cwd=REPO, env=env, check=True
            )
        seed_env = {**env, "CELERY_BROKER_URL": ""}  # the seed run is sized in-process
        seeded = json.loads(
            subprocess.run(
                [py, str(HERE / "seed.py")],
                cwd=REPO,
                env=seed_env,
                check=True,
                capture_output=True,
                text=True,
            )
            .stdout.strip()
            .splitlines()[-1]
        )
        slugs: list[str] = seeded["slugs"]
        log(f"seeded {len(slugs)} offerings, run {seeded['run']} ({seeded['run_status']})")

        port = free_port()
        base = f"http://127.0.0.1:{port}"
        web_log = open(work / "gunicorn.log", "ab")  # noqa: SIM115
        procs.append(
            subprocess.Popen(
                [py, "-m", "gunicorn", "portal.wsgi", "-b", f"127.0.0.1:{port}", "-w", str(WEB_WORKERS)],
                cwd=REPO,
                env=env,
                stdout=web_log,
                stderr=subprocess.STDOUT,
            )
        )
        worker_log = open(work / "worker.log", "ab")  # noqa: SIM115
        procs.append(
            subprocess.Popen(
                [
                    py,
                    "-m",
                    "celery",
                    "-A",
                    "portal",
                    "worker",
                    "-Q",
                    "parse",
                    "--pool",
                    "solo",
                    "-l",
                    "warning",
                ],
                cwd=REPO,
                env=env,
                stdout=worker_log,
                stderr=subprocess.STDOUT,
            )
        )
        for _ in range(100):
            try:
                if requests.get(f"{base}/healthz", timeout=2).status_code == 200:
                    break
            except requests.RequestException:
                pass
            time.sleep(0.2)

        cookie = f"sessionid={seeded['session']}"
        auth = f"Token {seeded['token']}"
        run_id = seeded["run"]
        offering_pages = [f"/offerings/{s}/" for s in slugs]
        browse_pages = ["/offerings/", "/offerings/?gpu=h100", "/offerings/?sort=price", "/"]
        api_reads = [f"/api/v1/offerings/?limit=20&offset={o}" for o in range(0, len(slugs), 20)]
        api_reads += [f"/api/v1/offerings/{s}/" for s in slugs[:50]] + [f"/api/v1/runs/{run_id}/"]
        result_pages = [f"/plan/{run_id}/"] + [f"/plan/{run_id}/{s}/" for s in seeded["run_slugs"]]
        compare_pages: list[str] = []
        compare = requests.get(f"{base}/compare/?offerings={','.join(slugs[:4])}", timeout=30)
        if compare.status_code == 200:
            compare_pages = [f"/compare/?offerings={','.join(slugs[i : i + 4])}" for i in range(0, 200, 4)]
        else:
            log(f"/compare/ answered {compare.status_code}: skipped")

        scenarios: list[tuple[str, list[str], str, str]] = [
            ("healthz (floor)", ["/healthz"], "", ""),
            ("browse", browse_pages, "", ""),
            ("offering page", offering_pages, "", ""),
            ("planner results (login)", result_pages, cookie, ""),
            ("API reads (token)", api_reads, "", auth),
        ]
        if compare_pages:
            scenarios.insert(3, ("compare", compare_pages, "", ""))
        # Warm every path once: the figures are for a running service, not first hits.
        for _, paths, c, a in scenarios:
            for path in paths[:20]:
                requests.get(base + path, headers={"Cookie": c, "Authorization": a}, timeout=30)

        results: dict[str, Any] = {}
        for name, paths, c, a in scenarios:
            log(f"wrk: {name} ({len(paths)} paths)")
            results[name] = wrk(wrk_bin, base, paths, c, a)

        # The mix, with uploads posted concurrently by 4 clients.
        mix = browse_pages + offering_pages[:60] + result_pages[:20] + api_reads[:20] + compare_pages[:20]
        answers: list[tuple[int, int | None]] = []
        lock = threading.Lock()

        def upload(i: int) -> None:
            text = f"{NCCL_LOG}\n# load test upload {i} {time.time_ns()}\n"
            r = requests.post(
                f"{base}/api/v1/uploads/",
                headers={"Authorization": auth},
                data={"offering": slugs[i % len(slugs)]},
                files={"file": (f"nccl-{i}.txt", text.encode(), "text/plain")},
                timeout=60,
            )
            with lock:
                answers.append((r.status_code, r.json().get("id") if r.status_code in (200, 201) else None))

        def uploader() -> None:
            with ThreadPoolExecutor(4) as pool:
                list(pool.map(upload, range(UPLOADS)))

        log(f"wrk: mix + {UPLOADS} concurrent uploads")
        thread = threading.Thread(target=uploader)
        thread.start()
        results["mix (all of the above, with uploads)"] = wrk(wrk_bin, base, mix, cookie, auth)
        thread.join(timeout=300)
        ids = [i for code, i in answers if i is not None]
        deadline = time.monotonic() + 180
        parsed = 0
        while time.monotonic() < deadline:
            with psycopg.connect(f"{PG}/{DB}") as conn:
                parsed = conn.execute(
                    "SELECT count(*) FROM benchmarks_upload WHERE id = ANY(%s) AND status = 'parsed'", (ids,)
                ).fetchone()[0]  # type: ignore[index]
            if parsed == len(ids):
                break
            time.sleep(0.5)
        floor = results["healthz (floor)"]["p50_ms"] or 0.001
        for figures in results.values():
            figures["p50_vs_floor"] = round(figures["p50_ms"] / floor, 1)
        report = {
            "when": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
            "offerings": len(slugs),
            "connections": CONNECTIONS,
            "duration_s": DURATION,
            "gunicorn_workers": WEB_WORKERS,
            "cpus": os.cpu_count(),
            # This machine is shared: the load average says how much else ran beside the benchmark.
            "load_average_at_start": load_at_start,
            "load_average_at_end": [round(x, 1) for x in os.getloadavg()],
            "compare": "measured" if compare_pages else f"skipped (/compare/ answered {compare.status_code})",
            "uploads": {
                "sent": UPLOADS,
                "acknowledged": len(ids),
                "non_2xx": sum(1 for code, _ in answers if code not in (200, 201)),
                "parsed": parsed,
                "lost": len(ids) - parsed,
            },
            "results": results,
        }
        (HERE / "last-run.json").write_text(json.dumps(report, indent=2) + "\n")
        print(json.dumps(report, indent=2))
        print("\n| scenario | req/s | p50 ms | p95 ms | p99 ms | errors | p50 / floor |")
        print("|---|---:|---:|---:|---:|---:|---:|")
        for name, f in results.items():
            errors = f["errors_status"] + f["errors_socket"]
            print(
                f"| {name} | {f['rps']:.0f} | {f['p50_ms']:.1f} | {f['p95_ms']:.1f} | {f['p99_ms']:.1f} "
                f"| {errors} | {f['p50_vs_floor']} |"
            )
    finally:
        for proc in reversed(procs):
            stop(proc)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
