"""One private stack (PostgreSQL, Redis, gunicorn) for the whole folder; each test starts its own workers."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from tests.reliability import stack as stack_module


@pytest.fixture(scope="session")
def stack() -> Iterator[stack_module.Stack]:
    missing = stack_module.available()
    if missing is not None:
        if os.environ.get("CI"):
            pytest.fail(f"{missing} is required in CI")
        pytest.skip(f"{missing} is not available")
    with stack_module.running_stack() as running:
        yield running


@pytest.fixture
def rel(stack: stack_module.Stack) -> Iterator[stack_module.Stack]:
    """The stack with both servers up and no worker left over from the previous test."""
    if stack.redis.proc is None:
        stack.redis.start()
    yield stack
    for name in list(stack.workers):
        stack.stop_worker(name)
    if stack.redis.proc is None:
        stack.redis.start()
