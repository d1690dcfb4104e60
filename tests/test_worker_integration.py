"""A real Celery worker process on PostgreSQL and Redis (DESIGN section 3)."""

from __future__ import annotations

import time
from typing import Any

import pytest

from providers.models import GPUModel
from providers.tasks import gpu_table_sync_task

pytestmark = [pytest.mark.integration]


def test_a_real_worker_runs_a_task_against_the_database(celery_worker: Any) -> None:
    GPUModel.objects.all().delete()
    gpu_table_sync_task.delay()
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not GPUModel.objects.filter(key="H100-SXM-80GB").exists():
        time.sleep(0.2)
    assert GPUModel.objects.filter(key="H100-SXM-80GB").exists()
    assert celery_worker.poll() is None
