"""Issue 20 item 10: the embedded default (no broker, SQLite) holds a handful of concurrent users.

A real `manage.py runserver` (threaded) on a fresh SQLite file, with neither DATABASE_URL pointing at
PostgreSQL nor a broker: tasks go to the in-process pool (portal/task_pool.py), SQLite runs in WAL mode with
IMMEDIATE transactions and a busy timeout. Two API clients in threads create workloads and runs and read
them back at the same time: no answer is a 5xx, POST /api/v1/runs/ answers at once, and every run ends.

Again by hand: `.venv/bin/pytest -p no:cacheprovider -q tests/reliability/test_embedded_concurrency.py`.
"""

from __future__ import annotations

import json
import os
import secrets
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
SEED = """
import django
django.setup()
from accounts.models import User
from providers.catalog import catalog_import, read_catalog_file
from providers.services import gpu_table_sync
gpu_table_sync()
catalog_import(data=read_catalog_file("tests/providers/fixtures/small_catalog.yaml"))
for name in ("alice", "bob"):
    User.objects.create_user(username=name, password="pw-" + name)
"""


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _env(tmp: Path) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("DJANGO_", "CLUSTERSCOUT_", "CELERY_", "DATABASE_", "REDIS_"))
    }
    env.update(
        DATABASE_URL=f"sqlite:///{tmp / 'embedded.sqlite3'}",
        DJANGO_MEDIA_ROOT=str(tmp / "media"),
        DJANGO_SECRET_KEY=secrets.token_urlsafe(50),
        DJANGO_SETTINGS_MODULE="portal.settings",
        # Tables-only PDFs: the test is about who waits for the render, not about the charts.
        QUOTES_BROWSER_PATH=str(tmp / "no-browser"),
        PYTHONUNBUFFERED="1",
    )
    return env


@pytest.fixture
def server(tmp_path: Path) -> Iterator[str]:
    """The embedded server's address; after the test its log must hold no traceback (a failed pool task
    or a "database is locked" would show there)."""
    env = _env(tmp_path)
    run = dict(cwd=REPO, env=env, capture_output=True, text=True, timeout=300)
    migrated = subprocess.run([sys.executable, "manage.py", "migrate", "--noinput"], **run)  # type: ignore[call-overload]
    assert migrated.returncode == 0, migrated.stderr
    seeded = subprocess.run([sys.executable, "-c", SEED], **run)  # type: ignore[call-overload]
    assert seeded.returncode == 0, seeded.stderr
    port = _free_port()
    log = open(tmp_path / "server.log", "wb")  # noqa: SIM115 - closed below
    proc = subprocess.Popen(
        [sys.executable, "manage.py", "runserver", f"127.0.0.1:{port}", "--noreload"],
        cwd=REPO,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                urllib.request.urlopen(base + "/healthz", timeout=2).read()
                break
            except (urllib.error.URLError, ConnectionError, OSError):
                time.sleep(0.3)
        else:
            pytest.fail("the embedded server did not start: " + (tmp_path / "server.log").read_text())
        yield base
    finally:
        proc.terminate()
        proc.wait(timeout=20)
        log.close()
    text = (tmp_path / "server.log").read_text(errors="replace")
    assert "Traceback" not in text and "database is locked" not in text, text[-4000:]
    assert 'POST /api/v1/runs/ HTTP/1.1" 201' in text  # the runs went through this server


def _call(base: str, method: str, path: str, body: Any = None, token: str = "") -> tuple[int, Any, float]:
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(base + path, data=data, method=method)
    request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", f"Token {token}")
    started = time.monotonic()
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            status, raw = response.status, response.read()
    except urllib.error.HTTPError as exc:
        status, raw = exc.code, exc.read()
    elapsed = time.monotonic() - started
    try:
        return status, json.loads(raw or b"null"), elapsed
    except ValueError:
        return status, raw.decode(errors="replace"), elapsed


def _client(base: str, name: str, rounds: int, out: dict[str, Any]) -> None:
    statuses: list[tuple[str, int]] = []
    post_times: list[float] = []
    runs: list[int] = []
    workloads: list[int] = []
    status, body, _ = _call(base, "POST", "/api/v1/auth/token/", {"username": name, "password": f"pw-{name}"})
    statuses.append(("token", status))
    token = body["token"] if status == 200 else ""
    for i in range(rounds):
        status, body, _ = _call(
            base, "POST", "/api/v1/workloads/", {"preset": "13b", "name": f"{name}-{i}"}, token
        )
        statuses.append(("workload", status))
        if status != 201:
            continue
        workloads.append(body["id"])
        status, run, elapsed = _call(base, "POST", "/api/v1/runs/", {"workload": body["id"]}, token)
        statuses.append(("run", status))
        post_times.append(elapsed)
        if status == 201:
            runs.append(run["id"])
        for path in ("/api/v1/offerings/", "/api/v1/workloads/", "/", "/offerings/"):
            statuses.append((path, _call(base, "GET", path, token=token)[0]))
    out[name] = {
        "statuses": statuses,
        "post_times": post_times,
        "runs": runs,
        "workloads": workloads,
        "token": token,
    }


def test_two_concurrent_api_clients_on_the_embedded_default(server: str) -> None:
    out: dict[str, Any] = {}
    threads = [threading.Thread(target=_client, args=(server, name, 4, out)) for name in ("alice", "bob")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=300)
    assert set(out) == {"alice", "bob"}, "a client thread died"
    for name, result in out.items():
        errors = [(what, status) for what, status in result["statuses"] if status >= 500 or status == 0]
        assert not errors, (name, errors)
        assert all(s < 400 for _, s in result["statuses"]), (name, result["statuses"])
        assert len(result["runs"]) == 4
        # The run is sized in the background: the POST answers at once, whatever the catalog.
        assert max(result["post_times"]) < 5, result["post_times"]
    started = time.monotonic()
    deadline = started + 120
    pending = {(r["token"], run) for r in out.values() for run in r["runs"]}
    while pending and time.monotonic() < deadline:
        for token, run in list(pending):
            status, body, _ = _call(server, "GET", f"/api/v1/runs/{run}/", token=token)
            assert status == 200, body
            if body["status"] in ("done", "failed"):
                assert body["status"] == "done", body
                pending.discard((token, run))
        time.sleep(0.5)
    assert not pending, f"runs still unfinished: {pending}"
    posts = sorted(t for r in out.values() for t in r["post_times"])
    print(  # the figures of docs/RELIABILITY.md (pytest -s shows them)
        f"POST /api/v1/runs/: median {posts[len(posts) // 2]:.3f} s, max {posts[-1]:.3f} s; "
        f"all runs done {time.monotonic() - started:.1f} s after the last POST"
    )
    _quote_pdf_answers_at_once(server, out["alice"])


def _quote_pdf_answers_at_once(server: str, client: dict[str, Any]) -> None:
    """The quote PDF renders in the pool: the GET answers 202 at once, then the PDF once it is ready."""
    token = client["token"]
    body = {"workload": client["workloads"][0], "offering": "acme-h100"}
    status, quote, _ = _call(server, "POST", "/api/v1/quotes/", body, token)
    assert status == 201, quote
    status, _, elapsed = _call(server, "GET", f"/api/v1/quotes/{quote['id']}/pdf", token=token)
    assert status in (200, 202) and elapsed < 5, (status, elapsed)
    deadline = time.monotonic() + 120
    while status != 200 and time.monotonic() < deadline:
        time.sleep(0.5)
        status, _, _ = _call(server, "GET", f"/api/v1/quotes/{quote['id']}/pdf", token=token)
        assert status in (200, 202), status
    assert status == 200
    print(f"quote PDF: first GET answered in {elapsed:.3f} s, PDF ready after polling")
