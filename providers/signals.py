"""What the catalog tells the apps above it. The catalog imports no other app: apps that derive data from
offerings (the pitfall findings) listen here and do their work, so every arrow points down.

- `offerings_changed(offering_ids)`: facts or prices of these offerings changed (sent inside the writing
  transaction; receivers defer their work to the commit).
- `catalog_imported(slugs)`: a catalog file was imported by a command; receivers do their work now and
  return how many offerings they handled, so the command can say so.
"""

from __future__ import annotations

from django.dispatch import Signal

offerings_changed = Signal()
catalog_imported = Signal()
