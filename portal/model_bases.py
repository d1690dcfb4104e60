"""Abstract bases of the apps' models: fields and ordering several models hold alike, each written once."""

from __future__ import annotations

from collections.abc import Collection
from typing import ClassVar

from django.db import models


class NewestFirst(models.Model):
    """A row stamped when it is created and listed newest first (the later id first on a tie)."""

    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        abstract = True
        ordering = ["-created_at", "-id"]


class BackgroundJob(NewestFirst):
    """A row a worker carries out: when it started and finished, and in words why it failed."""

    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    error = models.TextField(blank=True)

    class Meta(NewestFirst.Meta):
        abstract = True


class Finishes:
    """A row whose `status` ends in one of `finished_statuses` (a run, an upload, a bundle): `finished`
    tells a page to stop polling and a worker that there is nothing left to do."""

    finished_statuses: ClassVar[Collection[str]]
    status: str  # the model's field

    @property
    def finished(self) -> bool:
        return self.status in self.finished_statuses
