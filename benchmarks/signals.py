"""What the evidence app tells the apps above it (the pitfall findings read parsed uploads).

- `upload_parsed(upload_id, offering_id)`: an upload was parsed and compared with its offering's claims.
"""

from __future__ import annotations

from django.dispatch import Signal

upload_parsed = Signal()
