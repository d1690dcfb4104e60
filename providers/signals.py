"""What the catalog tells the apps above it. The catalog imports no other app: apps that derive data from
offerings (the pitfall findings) listen here and do their work, so every arrow points down.

- `offerings_changed(offering_ids)`: facts or prices of these offerings changed (sent inside the writing
  transaction; receivers defer their work to the commit).
- `catalog_imported(slugs)`: a catalog file was imported by a command; receivers do their work now and
  return how many offerings they handled, so the command can say so.
"""

from __future__ import annotations

from typing import Any

from django.dispatch import Signal

offerings_changed = Signal()
catalog_imported = Signal()


def subscribe(app: str, *, on_offerings_changed: Any, on_catalog_imported: Any) -> None:
    """Connect an upper app's receivers to both signals, once (dispatch uids "<app>.<signal>")."""
    offerings_changed.connect(on_offerings_changed, dispatch_uid=f"{app}.offerings_changed")
    catalog_imported.connect(on_catalog_imported, dispatch_uid=f"{app}.catalog_imported")
