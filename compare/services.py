"""Writes of the compare app: the system user that owns shared catalog runs.

The compare page itself writes nothing (a GET): its workload figures are sized at the buyer's GPU count
and cached under the catalog version (compare.sized)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model

# Owner of the shared preset workloads and their catalog runs. Inactive with an unusable password: it
# exists only because a run must have an owner, and nobody can log in as it.
CATALOG_USERNAME = "clusterscout-catalog"


def catalog_user() -> Any:
    """The system user that owns the preset catalog runs (created on first use)."""
    user_model = get_user_model()
    user, created = user_model.objects.get_or_create(
        username=CATALOG_USERNAME, defaults={"is_active": False, "role": "buyer"}
    )
    if created:
        user.set_unusable_password()
        user.save(update_fields=["password"])
    return user
