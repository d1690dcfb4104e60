"""Seed a large catalog fast: the demo catalog imported once, then renamed copies made with bulk inserts.

Run by perf/bench_pages.py with DATABASE_URL pointing at its own database and no broker. Each copy repeats
every provider (as "<name> (copy n)", so a 3,000-offering catalog has about 1,200 providers, as the issue
measured), its offerings, billing plans, provenance (with sources) and catalog findings, so that pages and
their queries see what a real catalog of that size holds. Prints one JSON line: session key and slugs.
"""

from __future__ import annotations

import json
import math
import os
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "portal.settings")

import django  # noqa: E402

django.setup()

from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY  # noqa: E402
from django.contrib.sessions.backends.db import SessionStore  # noqa: E402
from django.db import transaction  # noqa: E402

from accounts.models import User  # noqa: E402
from providers.catalog import catalog_import, read_catalog_file  # noqa: E402
from providers.models import Offering, Provider  # noqa: E402
from providers.services import catalog_imported_announce, gpu_table_sync  # noqa: E402
from tests.providers.catalog_copies import copy_providers  # noqa: E402

TARGET = int(os.environ.get("BENCH_OFFERINGS", "3000"))


def grow() -> None:
    gpu_table_sync()
    demo = read_catalog_file(REPO / "providers" / "demo" / "catalog.yaml")
    catalog_import(data=demo)
    catalog_imported_announce(data=demo)  # the pitfall findings of the demo catalog, copied below
    providers = list(Provider.objects.order_by("pk"))
    per_copy = Offering.objects.count()
    for n in range(1, max(0, math.ceil(TARGET / per_copy) - 1) + 1):
        with transaction.atomic():
            copy_providers(n, providers)


def main() -> None:
    if Offering.objects.count() < TARGET:  # a catalog seeded by an earlier run is reused as it is
        grow()
    user = User.objects.filter(username="benchbuyer").first() or User.objects.create_user(
        username="benchbuyer", password="bench-password-not-secret"
    )
    session = SessionStore()
    session[SESSION_KEY] = str(user.pk)
    session[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
    session[HASH_SESSION_KEY] = user.get_session_auth_hash()
    session.create()
    slugs = list(Offering.objects.filter(fictional=False).order_by("pk").values_list("slug", flat=True))
    print(json.dumps({"session": session.session_key, "slugs": slugs, "offerings": Offering.objects.count()}))


if __name__ == "__main__":
    main()
