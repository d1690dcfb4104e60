"""Fixtures shared by the whole suite: shared data location, the real Celery worker, the browser."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urlsplit, urlunsplit

import pytest

REPO = Path(__file__).resolve().parents[1]
IN_CI = bool(os.environ.get("CI"))
T = TypeVar("T")
# Django's cheapest password hasher, for tests that make users: the real one costs about 0.3 s per user
# (log-ins still check the password with it).
FAST_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
# A cache of its own for rows built outside any test (never the Redis cache a worker may share).
ALONE = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "module-rows"}}


def shared_dir() -> Path | None:
    """../shared beside the checkout (or CLUSTERSCOUT_SHARED). Tests needing it skip only outside CI."""
    candidates = [os.environ.get("CLUSTERSCOUT_SHARED"), str(REPO.parent / "shared")]
    for candidate in candidates:
        if candidate and Path(candidate).is_dir():
            return Path(candidate)
    return None


def xdist_index() -> int:
    """This test process's index under pytest-xdist (gw0 -> 0, gw1 -> 1; 0 without xdist)."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    return int(worker[2:]) if worker.startswith("gw") and worker[2:].isdigit() else 0


def redis_database_url(url: str, offset: int) -> str:
    """`url` (redis://host:port/N) on database (N + offset) mod 16, Redis's default count of databases."""
    parts = urlsplit(url)
    number = int(parts.path.strip("/") or 0)
    return urlunsplit(parts._replace(path=f"/{(number + offset) % 16}"))


@pytest.fixture(scope="session", autouse=True)
def _own_redis_database_per_process() -> Iterator[None]:
    """`make test` runs the suite in two processes (pytest-xdist), each on its own test database; each
    also takes its own Redis database for the broker and the cache: a Celery worker one process starts
    must never take the other's tasks (they name rows of the other's database), and the same row ids
    must not meet in the cache. The first process keeps the configured database."""
    from django.conf import settings
    from django.test.utils import override_settings

    from portal.celery import app

    index = xdist_index()
    broker = str(settings.CELERY_BROKER_URL or "")
    if index == 0 or not broker.startswith(("redis://", "rediss://")):
        yield
        return
    own = redis_database_url(broker, index)
    caches = {
        name: {**cache, "LOCATION": own} if cache.get("LOCATION") == settings.REDIS_URL else cache
        for name, cache in settings.CACHES.items()
    }
    override = override_settings(CELERY_BROKER_URL=own, REDIS_URL=own, CACHES=caches)
    override.enable()
    # Celery reads the CELERY_BROKER_URL variable before its own setting (celery.app.utils.Settings)
    old_env, old_conf = os.environ.get("CELERY_BROKER_URL"), app.conf.broker_url
    os.environ["CELERY_BROKER_URL"] = own
    app.conf.broker_url = own
    try:
        yield
    finally:
        app.conf.broker_url = old_conf
        if old_env is None:
            os.environ.pop("CELERY_BROKER_URL", None)
        else:
            os.environ["CELERY_BROKER_URL"] = old_env
        override.disable()


@pytest.fixture
def shared() -> Path:
    path = shared_dir()
    if path is None:
        if IN_CI:
            pytest.fail("../shared is missing in CI")
        pytest.skip("../shared is not present")
    return path


@contextmanager
def module_rows(django_db_blocker: Any, build: Callable[[], T]) -> Iterator[T]:
    """For a module-scoped fixture: `with module_rows(django_db_blocker, build) as built: yield built`.

    What `build` makes in the database is made once, inside a transaction rolled back after the module's
    last test, so none of it is ever committed. Each test that asks for `db` runs in a savepoint inside
    it, rolled back after the test: a test's writes never reach the next test. Every test of the module
    that runs after the first one asking for the fixture sees these rows, whether it asks or not. Not for
    tests needing `transactional_db` (its flush would empty the tables under the open transaction)."""
    from django.db import transaction
    from django.test.utils import override_settings

    django_db_blocker.unblock()
    try:
        with transaction.atomic():
            with override_settings(CACHES=ALONE):
                built = build()
            django_db_blocker.restore()
            try:
                yield built
            finally:
                django_db_blocker.unblock()
            transaction.set_rollback(True)
    finally:
        django_db_blocker.restore()


@pytest.fixture(autouse=True)
def _fresh_content_types() -> None:
    """Each test starts with Django's content-type cache empty: a transactional test's flush re-creates the
    content types under new ids, and a cache kept from before names ids that no longer exist (an admin
    change's log row then breaks its foreign key). Which test runs after which differs with the process
    a module lands in (pytest-xdist)."""
    from django.contrib.contenttypes.models import ContentType

    ContentType.objects.clear_cache()


@pytest.fixture(autouse=True)
def _eager_celery_unless_integration(request: pytest.FixtureRequest) -> Iterator[None]:
    """Unit tests run tasks in-process; tests marked integration talk to the real broker and worker."""
    from portal.celery import app

    if request.node.get_closest_marker("integration"):
        yield
        return
    old = app.conf.task_always_eager
    app.conf.task_always_eager = True
    yield
    app.conf.task_always_eager = old


@pytest.fixture(autouse=True)
def _private_cache_unless_integration(request: pytest.FixtureRequest) -> None:
    """Each unit test gets an empty cache of its own, so rate-limit counters never leak between tests
    (and a shared Redis cache is never flushed under a running worker)."""
    if request.node.get_closest_marker("integration"):
        return
    settings = request.getfixturevalue("settings")
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "LOCATION": request.node.nodeid,
        }
    }


def _require(condition: bool, what: str) -> None:
    if not condition:
        if IN_CI:
            pytest.fail(f"{what} is required in CI")
        pytest.skip(f"{what} is not available")


def start_celery_worker(name: str = "first", **extra_env: str) -> subprocess.Popen[bytes]:
    """A real `celery -A portal worker` process on the test database and the configured Redis broker,
    answering a ping before it is returned; its log goes to test-artifacts/celery-worker-<name>.log.

    With `extra_env` (the RELIABILITY_* variables of tests/reliability/procs.py) it is started through that
    module, which slows down or breaks the work as they say."""
    from django.conf import settings
    from django.db import connection

    from portal.celery import app

    db = connection.settings_dict
    env = dict(os.environ)
    env["DATABASE_URL"] = (
        f"postgres://{db['USER']}:{db['PASSWORD'] or ''}@{db['HOST']}:{db['PORT']}/{db['NAME']}"
    )
    env["CELERY_BROKER_URL"] = settings.CELERY_BROKER_URL
    env["REDIS_URL"] = settings.REDIS_URL  # its cache: this test process's own Redis database
    env["PYTHONUNBUFFERED"] = "1"
    env.update(extra_env)
    entry = ["-m", "tests.reliability.procs"] if extra_env else ["-m", "celery", "-A", "portal"]
    cmd = [
        sys.executable, *entry, "worker", "-Q", "default,sizing,parse,pdf",
        "--pool", "solo", "--without-gossip", "--without-mingle", "-l", "info", "-n", f"{name}@%h",
    ]  # fmt: skip
    logs = REPO / "test-artifacts"
    logs.mkdir(exist_ok=True)
    with open(logs / f"celery-worker-{name}.log", "ab") as log:
        proc = subprocess.Popen(cmd, cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if app.control.ping(timeout=0.5):
            return proc
        if proc.poll() is not None:
            pytest.fail(f"the Celery worker {name} exited at start")
    proc.kill()
    pytest.fail(f"the Celery worker {name} did not answer a ping within 30 s")


def stop_celery_worker(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=5)


@pytest.fixture
def celery_worker(transactional_db: Any) -> Iterator[subprocess.Popen[bytes]]:
    """A real worker for tests marked integration (PostgreSQL and Redis required; fail in CI without)."""
    from django.conf import settings
    from django.db import connection

    from portal.celery import app

    _require(bool(settings.CELERY_BROKER_URL), "CELERY_BROKER_URL (Redis)")
    _require(connection.vendor == "postgresql", "PostgreSQL (DATABASE_URL)")
    # Start from an empty queue: leftovers from an earlier run must not be taken for this run's work.
    app.control.purge()
    proc = start_celery_worker()
    try:
        yield proc
    finally:
        stop_celery_worker(proc)


def chromium_path() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    """Debian's chromium driven by Playwright (never a downloaded browser)."""
    path = chromium_path()
    _require(path is not None, "Debian's chromium")
    from playwright.sync_api import sync_playwright

    os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    with sync_playwright() as p:
        b = p.chromium.launch(
            executable_path=path,
            args=[
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
            ],
        )
        yield b
        b.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1366, "height": 900})
    pg = context.new_page()
    yield pg
    context.close()


@pytest.fixture(scope="session")
def artifacts() -> Path:
    path = REPO / "test-artifacts"
    path.mkdir(exist_ok=True)
    return path


@pytest.fixture(autouse=True)
def _default_language() -> Iterator[None]:
    """Each test starts in the default language: a request's LocaleMiddleware leaves its language active in
    the test thread, and sentences built outside a request (summaries, bills) would follow it."""
    from django.conf import settings
    from django.utils import translation

    translation.activate(settings.LANGUAGE_CODE)
    yield
    translation.activate(settings.LANGUAGE_CODE)
