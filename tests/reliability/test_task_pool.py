"""The embedded mode's in-process pool (portal/task_pool.py): bounded, non-blocking, Celery unchanged."""

from __future__ import annotations

import threading
from concurrent.futures import Future
from typing import Any

import pytest

from portal import task_pool
from portal.celery import app

GATE = threading.Event()


@app.task(name="tests.pool_wait")
def pool_wait(value: int) -> int:
    GATE.wait(10)
    return value


def test_the_pool_refuses_work_beyond_its_queue_and_runs_the_rest() -> None:
    GATE.clear()
    pool = task_pool._Pool(workers=1, queue=1)
    first, second = pool.submit(pool_wait, (1,), {}), pool.submit(pool_wait, (2,), {})
    with pytest.raises(task_pool.PoolFull):
        pool.submit(pool_wait, (3,), {})  # one running, one waiting: full, and the caller is not blocked
    GATE.set()
    assert first.result(10) == 1 and second.result(10) == 2
    assert pool.submit(pool_wait, (4,), {}).result(10) == 4  # the slots are free again
    pool.executor.shutdown(wait=True)


def test_without_a_broker_delay_goes_to_the_pool_and_returns_at_once(settings: Any) -> None:
    settings.CELERY_BROKER_URL = ""
    settings.TASKS_POOL_BEAT = False
    GATE.clear()
    eager = app.conf.task_always_eager
    app.conf.task_always_eager = False
    try:
        pending = pool_wait.delay(7)
        assert isinstance(pending, Future) and not pending.done()  # the caller did not wait for the task
        GATE.set()
        assert pending.result(10) == 7
    finally:
        app.conf.task_always_eager = eager


def test_with_a_broker_celery_dispatches_as_before(settings: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    settings.CELERY_BROKER_URL = "redis://broker.invalid:6379/0"
    sent: list[Any] = []
    monkeypatch.setattr("celery.app.task.Task.apply_async", lambda self, *a, **k: sent.append((self.name, a)))
    eager = app.conf.task_always_eager
    app.conf.task_always_eager = False
    try:
        pool_wait.delay(5)
    finally:
        app.conf.task_always_eager = eager
    assert sent == [("tests.pool_wait", ((5,), {}))]
