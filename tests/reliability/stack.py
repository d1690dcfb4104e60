"""A private PostgreSQL, Redis, gunicorn and Celery workers on loopback, for the fault tests.

The machine's shared PostgreSQL and Redis are never touched: these tests stop and restart servers, so they
start their own (a throw-away cluster under a temporary directory, a Redis without persistence, each on a
free port) and drive the portal as a user would, over HTTP, checking the outcome in the database.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import psycopg
import requests

REPO = Path(__file__).resolve().parents[2]
PG_BIN = Path("/usr/lib/postgresql/15/bin")
HOST = "127.0.0.1"
DB_NAME = "clusterscout"
PASSWORD = "reliability-pw"


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return int(s.getsockname()[1])


def wait_for(predicate: Callable[[], Any], timeout: float, interval: float = 0.1) -> Any:
    """The first truthy value of `predicate()` within `timeout` seconds, else None."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            value = predicate()
        except Exception:  # noqa: BLE001 - a server still starting answers with errors
            value = None
        if value:
            return value
        if time.monotonic() > deadline:
            return None
        time.sleep(interval)


def stop_process(proc: subprocess.Popen[bytes] | None, timeout: float = 15) -> None:
    if proc is None or proc.poll() is not None:
        return
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=5)


def available() -> str | None:
    """Why the private stack cannot start here, or None."""
    if not (PG_BIN / "initdb").exists():
        return "PostgreSQL 15 server binaries (/usr/lib/postgresql/15/bin)"
    if shutil.which("redis-server") is None:
        return "redis-server"
    if os.geteuid() == 0 and shutil.which("runuser") is None:
        return "runuser (initdb refuses root)"
    return None


class PrivatePostgres:
    """A throw-away cluster; initdb refuses root, so as root it runs as the `postgres` user."""

    def __init__(self, root: Path) -> None:
        self.dir = root / "pg"
        self.port = free_port()
        self.log = root / "pg.log"
        self.dir.mkdir()
        self.as_postgres = os.geteuid() == 0
        if self.as_postgres:
            shutil.chown(root, "postgres")
            shutil.chown(self.dir, "postgres")
        self._run(
            [str(PG_BIN / "initdb"), "-D", str(self.dir), "-U", "postgres", "-A", "trust", "--no-sync"],
            timeout=60,
        )

    def _run(self, cmd: list[str], timeout: float) -> None:
        if self.as_postgres:
            cmd = ["runuser", "-u", "postgres", "--", *cmd]
        subprocess.run(cmd, check=True, timeout=timeout, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)

    def start(self) -> None:
        opts = f"-p {self.port} -k {self.dir} -c listen_addresses={HOST} -c fsync=off -c max_connections=100"
        self._run(
            [str(PG_BIN / "pg_ctl"), "-D", str(self.dir), "-l", str(self.log), "-o", opts, "-w", "start"],
            timeout=60,
        )

    def stop(self, mode: str = "fast") -> None:
        self._run([str(PG_BIN / "pg_ctl"), "-D", str(self.dir), "-m", mode, "-w", "stop"], timeout=60)

    def url(self, dbname: str = DB_NAME) -> str:
        return f"postgres://postgres@{HOST}:{self.port}/{dbname}"

    def create_database(self) -> None:
        with psycopg.connect(self.url("postgres"), autocommit=True) as conn:
            conn.execute(f"CREATE DATABASE {DB_NAME}")


class PrivateRedis:
    def __init__(self, root: Path) -> None:
        self.port = free_port()
        self.dir = root
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        cmd = ["redis-server", "--port", str(self.port), "--bind", HOST, "--save", "", "--appendonly", "no"]
        cmd += ["--daemonize", "no", "--dir", str(self.dir), "--logfile", str(self.dir / "redis.log")]
        self.proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if not wait_for(self.ping, 10):
            raise RuntimeError("the private redis-server did not start")

    def ping(self) -> bool:
        import redis

        return bool(redis.Redis(host=HOST, port=self.port, socket_timeout=0.5).ping())

    def stop(self) -> None:
        stop_process(self.proc)
        self.proc = None

    def url(self) -> str:
        return f"redis://{HOST}:{self.port}/0"


class Stack:
    """PostgreSQL + Redis + gunicorn + any number of workers, all private; see the module docstring."""

    def __init__(self) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="clusterscout-rel-"))
        os.chmod(self.root, 0o755)
        self.pg = PrivatePostgres(self.root)
        self.redis = PrivateRedis(self.root)
        self.web: subprocess.Popen[bytes] | None = None
        self.web_port = free_port()
        self.workers: dict[str, subprocess.Popen[bytes]] = {}
        self.token = ""
        media = self.root / "media"
        media.mkdir()
        self.env = {
            **os.environ,
            "DATABASE_URL": self.pg.url(),
            "CELERY_BROKER_URL": self.redis.url(),
            "DJANGO_SETTINGS_MODULE": "tests.reliability.stack_settings",
            "DJANGO_MEDIA_ROOT": str(media),
            "DATABASE_CONN_MAX_AGE": "60",
            "CELERY_VISIBILITY_TIMEOUT": "8",
            # a worker SIGKILLed while it held kombu's redelivery lock must not hold redelivery for 5 min
            "CELERY_UNACKED_MUTEX_EXPIRE": "10",
            "CLUSTERSCOUT_HEARTBEAT_INTERVAL_S": "1",
            "CLUSTERSCOUT_HEARTBEAT_TTL_S": "3",
            "PYTHONUNBUFFERED": "1",
            "LOG_LEVEL": "INFO",
            # The uploads limiter (accounts/ratelimit.py) is not under test here.
            "RATE_LIMIT_UPLOADS": "100000",
        }

    # --- lifecycle -------------------------------------------------------------------------------------
    def start(self) -> None:
        self.pg.start()
        self.pg.create_database()
        self.redis.start()
        self.manage(["migrate", "--noinput"], timeout=180)
        self.token = (
            self.python(["-m", "tests.reliability.procs", "seed"], timeout=120).strip().splitlines()[-1]
        )
        self.start_web()

    def close(self) -> None:
        for name in list(self.workers):
            self.stop_worker(name)
        stop_process(self.web)
        self.redis.stop()
        with contextlib.suppress(Exception):
            self.pg.stop("immediate")
        artifacts = REPO / "test-artifacts"
        if artifacts.is_dir():
            target = artifacts / "reliability"
            target.mkdir(exist_ok=True)
            for log in self.root.glob("*.log"):
                with contextlib.suppress(OSError):
                    shutil.copy(log, target / log.name)
        shutil.rmtree(self.root, ignore_errors=True)

    def python(self, args: list[str], timeout: float, extra_env: dict[str, str] | None = None) -> str:
        done = subprocess.run(
            [sys.executable, *args],
            cwd=REPO,
            env={**self.env, **(extra_env or {})},
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        if done.returncode != 0:
            raise RuntimeError(f"{args} failed:\n{done.stdout[-2000:]}\n{done.stderr[-4000:]}")
        return done.stdout

    def manage(self, args: list[str], timeout: float) -> str:
        return self.python(["manage.py", *args], timeout=timeout)

    def sweep(self, stalled_s: float = 0) -> str:
        """Both sweepers once, as `celery beat` would run them, with no grace period."""
        return self.python(["-m", "tests.reliability.procs", "sweep", str(stalled_s)], timeout=60)

    def start_web(self) -> None:
        log = open(self.root / "gunicorn.log", "ab")  # noqa: SIM115 - closed with the process
        cmd = [sys.executable, "-m", "gunicorn", "portal.wsgi", "-b", f"{HOST}:{self.web_port}"]
        cmd += ["-w", "2", "--timeout", "30", "--graceful-timeout", "5", "--access-logfile", "-"]
        self.web = subprocess.Popen(cmd, cwd=REPO, env=self.env, stdout=log, stderr=subprocess.STDOUT)
        if not wait_for(lambda: requests.get(self.http("/healthz"), timeout=2).status_code == 200, 30):
            raise RuntimeError("gunicorn did not answer /healthz within 30 s")

    def start_worker(self, name: str, queues: str = "default,sizing,parse,pdf", **slow: str) -> None:
        """A `celery worker` named `name@reliability`; waits until its heartbeat shows it consuming."""
        log = open(self.root / f"worker-{name}.log", "ab")  # noqa: SIM115 - closed with the process
        args = ["-m", "tests.reliability.procs", "worker", "-Q", queues, "--pool", "solo"]
        args += ["--without-gossip", "--without-mingle", "-l", "info", "-n", f"{name}@reliability"]
        env = {**self.env, **slow}
        proc = subprocess.Popen(
            [sys.executable, *args], cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT
        )
        self.workers[name] = proc
        if (
            not wait_for(lambda: self._heartbeat(name) or proc.poll() is not None, 40)
            or proc.poll() is not None
        ):
            raise RuntimeError(f"worker {name} did not start:\n{self.log_tail(f'worker-{name}.log')}")

    def _heartbeat(self, name: str) -> bool:
        import redis

        client = redis.Redis(host=HOST, port=self.redis.port, socket_timeout=0.5)
        return bool(client.exists(f"clusterscout:worker-heartbeat:{name}@reliability"))

    def kill_worker(self, name: str) -> None:
        proc = self.workers.pop(name)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)

    def stop_worker(self, name: str) -> None:
        stop_process(self.workers.pop(name, None))

    def log_tail(self, name: str, lines: int = 40) -> str:
        path = self.root / name
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:]) if path.exists() else ""

    def worker_log(self, name: str) -> str:
        path = self.root / f"worker-{name}.log"
        return path.read_text(errors="replace") if path.exists() else ""

    # --- talking to it -----------------------------------------------------------------------------------
    def http(self, path: str) -> str:
        return f"http://{HOST}:{self.web_port}{path}"

    def api(self) -> requests.Session:
        session = requests.Session()
        session.headers["Authorization"] = f"Token {self.token}"
        return session

    def browser(self) -> requests.Session:
        """A logged-in browser session (cookie + CSRF), for the HTML pages."""
        session = requests.Session()
        session.get(self.http("/accounts/login/"), timeout=10)
        response = session.post(
            self.http("/accounts/login/"),
            data={
                "username": "buyer",
                "password": PASSWORD,
                "csrfmiddlewaretoken": session.cookies.get("csrftoken", ""),
            },
            timeout=10,
            allow_redirects=False,
        )
        assert response.status_code == 302, response.text[:500]
        return session

    def sql(self, query: str, *params: Any) -> list[tuple[Any, ...]]:
        """One query on a fresh connection (the server may have restarted since the last one)."""
        with psycopg.connect(self.pg.url(), connect_timeout=3) as conn:
            return list(conn.execute(query, params).fetchall())

    def scalar(self, query: str, *params: Any) -> Any:
        return self.sql(query, *params)[0][0]

    def offering_slugs(self, count: int) -> list[str]:
        # Real offerings only: a run refuses the fictional samples unless asked for them.
        query = "SELECT slug FROM providers_offering WHERE NOT fictional ORDER BY slug LIMIT %s"
        rows = self.sql(query, count)
        return [r[0] for r in rows]

    def create_run(self, session: requests.Session, slugs: list[str], preset: str = "13b") -> int:
        workload = session.post(self.http("/api/v1/workloads/"), json={"preset": preset}, timeout=15)
        assert workload.status_code == 201, workload.text[:500]
        run = session.post(
            self.http("/api/v1/runs/"),
            json={"workload": workload.json()["id"], "offerings": slugs},
            timeout=15,
        )
        assert run.status_code == 201, run.text[:500]
        return int(run.json()["id"])

    def upload(
        self, session: requests.Session, slug: str, text: str, name: str = "nccl.txt"
    ) -> requests.Response:
        return session.post(
            self.http("/api/v1/uploads/"),
            data={"offering": slug},
            files={"file": (name, text.encode(), "text/plain")},
            timeout=20,
        )


@contextlib.contextmanager
def running_stack() -> Iterator[Stack]:
    stack = Stack()
    try:
        stack.start()
        yield stack
    finally:
        stack.close()
