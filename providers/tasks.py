"""Thin Celery tasks of the catalog: take ids, call a service, idempotent."""

from __future__ import annotations

from celery import shared_task

from providers import services


@shared_task(name="providers.gpu_table_sync")
def gpu_table_sync_task() -> int:
    """Re-copy the model's GPU table into the database (idempotent)."""
    return services.gpu_table_sync()
