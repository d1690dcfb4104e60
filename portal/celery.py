"""The Celery app. Queues: `sizing`, `parse`, `pdf` (DESIGN section 3)."""

from __future__ import annotations

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "portal.settings")

# Every task derives from PooledTask: Celery's dispatch with a broker, the in-process pool without one.
app = Celery("portal", task_cls="portal.task_pool:PooledTask")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()

# Structured task-failure logs and the worker heartbeat that /healthz reads (portal/health.py).
from portal import celery_signals  # noqa: E402, F401
