"""The compare app listens to the catalog: any change to offerings makes every cached comparison stale
(connected in CompareConfig.ready)."""

from __future__ import annotations

from typing import Any

from django.db import transaction

from providers.cached import catalog_version_bump


def on_offerings_changed(**_: Any) -> None:
    # Sent inside the writing transaction: bump now (a page rendered meanwhile recomputes) and on commit
    # (a page rendered between the two could have cached the old facts under the new version).
    catalog_version_bump()
    transaction.on_commit(catalog_version_bump)


def on_catalog_imported(**_: Any) -> None:
    """A catalog import, or parsed evidence about an offering."""
    catalog_version_bump()
