"""The Celery app. Queues: `sizing`, `parse`, `pdf` (DESIGN section 3)."""

from __future__ import annotations

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "portal.settings")

# Every task derives from PooledTask: Celery's dispatch with a broker, the in-process pool without one.
app = Celery("portal", task_cls="portal.task_pool:PooledTask")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()

# The planner's watchdog (`celery -A portal beat`): re-sends the chunks of runs without progress and fails
# runs stuck past a limit (sizing.services.sweep_queued_runs; timings there and in docs/RELIABILITY.md).
# Added here rather than in settings.CELERY_BEAT_SCHEDULE so that it is scheduled whatever that setting
# holds; SIZING_SWEEP_INTERVAL_S overrides the interval.
app.add_periodic_task(
    float(os.environ.get("SIZING_SWEEP_INTERVAL_S", "30")),
    app.signature("sizing.sweep_queued_runs"),
    name="sweep-queued-runs",
)

# Structured task-failure logs and the worker heartbeat that /healthz reads (portal/health.py).
from portal import celery_signals  # noqa: E402, F401
