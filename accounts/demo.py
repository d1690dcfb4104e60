"""The demo accounts (demo mode only: `manage.py load_demo`, never in production)."""

from __future__ import annotations

from typing import Any

from accounts.models import User
from providers.models import Provider

DEMO_PROVIDER_SLUG = "nebius"


def demo_accounts_create() -> list[tuple[str, str]]:
    """Create (or reset) demo-buyer, demo-provider and demo-admin, each with its name as password."""
    provider = (
        Provider.objects.filter(slug=DEMO_PROVIDER_SLUG).first() or Provider.objects.order_by("slug").first()
    )
    specs: list[tuple[str, dict[str, Any], str]] = [
        (
            "demo-buyer",
            {"role": User.Role.BUYER, "provider": None, "is_staff": False, "is_superuser": False},
            "buyer",
        ),
        (
            "demo-provider",
            {"role": User.Role.PROVIDER, "provider": provider, "is_staff": False, "is_superuser": False},
            f"representative of {provider.name if provider else '(no provider loaded)'}",
        ),
        (
            "demo-admin",
            {"role": User.Role.STAFF, "provider": None, "is_staff": True, "is_superuser": True},
            "staff (admin)",
        ),
    ]
    out = []
    for username, fields, description in specs:
        if fields["role"] == User.Role.PROVIDER and provider is None:
            continue
        # An address on a reserved domain: notifications (requests for quote) go to the console in the demo.
        fields = {**fields, "email": f"{username}@demo.clusterscout.invalid"}
        user, _ = User.objects.update_or_create(username=username, defaults=fields)
        user.set_password(username)
        user.save()
        out.append((username, description))
    return out
