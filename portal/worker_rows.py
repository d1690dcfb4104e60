"""Rows a worker processes (an upload to parse, an acceptance bundle to read): claiming one, and finding
those a lost message or a dead worker left behind, so that a sweeper enqueues them again."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import models, transaction
from django.db.models import Q
from django.utils import timezone


@dataclass(frozen=True)
class WorkStates:
    """A worked row's statuses: waiting for a worker, taken by one (since the time in the `started`
    field), and the statuses it ends in."""

    waiting: str
    running: str
    started: str
    finished: Collection[str]


def claim(model: type[models.Model], pk: int, states: WorkStates) -> Any:
    """Lock the row and, unless it is finished already (then it comes back as is), mark it running from
    now; returns the row."""
    with transaction.atomic():
        row: Any = model._default_manager.select_for_update().get(pk=pk)
        if row.status in states.finished:
            return row
        row.status = states.running
        setattr(row, states.started, timezone.now())
        row.save(update_fields=["status", states.started])
    return row


def stuck_ids(
    model: type[models.Model],
    states: WorkStates,
    *,
    older_than: timedelta,
    stalled_after: timedelta | None = None,
) -> list[int]:
    """Ids, oldest first, of rows still `waiting` after `older_than` (their enqueue was lost) and of rows
    `running` for longer than the task time limit (their worker died and the message was lost)."""
    now = timezone.now()
    if stalled_after is None:
        stalled_after = timedelta(seconds=settings.CELERY_TASK_TIME_LIMIT + 60)
    stuck = Q(status=states.waiting, created_at__lt=now - older_than) | Q(
        status=states.running, **{f"{states.started}__lt": now - stalled_after}
    )
    return list(model._default_manager.filter(stuck).order_by("created_at").values_list("pk", flat=True))
