"""The compare app listens to the catalog: any change to offerings makes every cached comparison stale
(connected in CompareConfig.ready)."""

from __future__ import annotations

from typing import Any

from providers.cached import catalog_version_bump, catalog_written


def on_offerings_changed(**_: Any) -> None:
    # Sent inside the writing transaction: bump now and on commit, as for any write to the catalog.
    catalog_written()


def on_catalog_imported(**_: Any) -> None:
    """A catalog import, or parsed evidence about an offering."""
    catalog_version_bump()
