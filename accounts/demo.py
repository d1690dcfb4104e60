"""The demo accounts (demo mode only: `manage.py load_demo`, never in production)."""

from __future__ import annotations

import errno
import socket
from typing import Any

from accounts.models import User
from providers.models import Provider

DEMO_PROVIDER_SLUG = "nebius"
# How many ports after the requested one the demo tries when that one is taken.
DEMO_PORT_TRIES = 20


def demo_port_choose(host: str, port: int, tries: int = DEMO_PORT_TRIES) -> int:
    """The first port from `port` on that nothing on `host` listens to (the demo server will use it).
    Raises OSError naming the range when all `tries` ports are taken."""
    if not 1 <= port <= 65535:
        raise ValueError(f"port must be between 1 and 65535, got {port}")
    for candidate in range(port, min(port + tries, 65536)):
        with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM) as probe:
            # as the server will: a port left in TIME_WAIT is free, one with a listener is not
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                probe.bind((host, candidate))
            except OSError as exc:
                if exc.errno in (errno.EADDRINUSE, errno.EACCES):
                    continue
                raise
            return candidate
    raise OSError(errno.EADDRINUSE, f"ports {port}-{port + tries - 1} on {host} are all in use")


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
