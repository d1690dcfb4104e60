"""Abstract bases of the apps' models: fields and ordering several models hold alike, each written once."""

from __future__ import annotations

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
